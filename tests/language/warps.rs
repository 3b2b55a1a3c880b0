//! `lane_id()` and `warp_size()` on the backend of the process: the lane of
//! every thread of 1-, 2- and 3-D blocks, full and partial warps, against
//! CUDA's rule (the linear index in the block, `x` fastest, modulo 32);
//! `tests/agree/` runs the same kernels' C and `tests/cpu_paths/` each CPU path.

use crate::kernels::warps::*;

use crate::common;

use gpujit::zeros;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, nvrtc) = (None, Some(common::Tool::Nvrtc));
    cases![
        any => lanes_follow_the_linear_index_in_every_block_shape,
        any => the_first_warp_and_a_grid_stride_loop_see_their_lanes,
        nvrtc => the_warp_kernels_compile_with_nvrtc,
    ]
}

fn lanes_follow_the_linear_index_in_every_block_shape() {
    let grid = (2, 3, 1);
    for block in SHAPES {
        let shape = (grid.2 * block.2, grid.1 * block.1, grid.0 * block.0);
        let want = want_lanes(grid, block);
        let mut out = zeros::<u32>(shape).unwrap();
        lanes_plain![grid, block](&mut out).unwrap();
        assert_eq!(out.copy_to_host().unwrap(), want, "lanes_plain, block {block:?}");
        let mut out = zeros::<u32>(shape).unwrap();
        lanes_split![grid, block](&mut out).unwrap();
        assert_eq!(out.copy_to_host().unwrap(), want, "lanes_split, block {block:?}");
    }
}

fn the_first_warp_and_a_grid_stride_loop_see_their_lanes() {
    for threads in [32, 48, 100, 256] {
        let n = 3 * threads - 5;
        let mut out = zeros::<u32>(n).unwrap();
        first_warp![3, threads](&mut out).unwrap();
        assert_eq!(
            out.copy_to_host().unwrap(),
            want_first_warp(n, threads),
            "{threads} threads"
        );
        let n = 7 * threads + 3;
        let mut out = zeros::<u32>(n).unwrap();
        lanes_strided![2, threads](&mut out).unwrap();
        assert_eq!(
            out.copy_to_host().unwrap(),
            want_strided(n, 2, threads),
            "{threads} threads"
        );
    }
}

fn the_warp_kernels_compile_with_nvrtc() {
    common::assert_compiles_with_nvrtc(
        "the_warp_kernels_compile_with_nvrtc",
        &[
            &lanes_plain::KERNEL,
            &lanes_split::KERNEL,
            &first_warp::KERNEL,
            &lanes_strided::KERNEL,
        ],
    );
}
