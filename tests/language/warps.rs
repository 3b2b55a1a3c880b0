//! `lane_id()` and `warp_size()` on the backend of the process: the lane of
//! every thread of 1-, 2- and 3-D blocks, full and partial warps, against
//! CUDA's rule (the linear index in the block, `x` fastest, modulo 32);
//! `tests/agree/` runs the same kernels' C and `tests/cpu_paths/` each CPU path.
//!
//! The warp intrinsics (issue #21): each shuffle of every 32- and 64-bit
//! type, the votes, `match_any_sync`, `activemask`, `lanemask_lt` and
//! `syncwarp`, on full and partial warps with masks of every shape (full,
//! odd lanes, one lane, a prefix, random), against a host model of CUDA's
//! semantics (`kernels::warps`); a two-stage shuffle reduction; a shuffle in
//! a device function; and what a GPU leaves undefined, which the CPU
//! backend reports as a fault naming the warp and lanes.

use crate::kernels::warps::*;

use crate::common;

use gpujit::zeros;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, nvrtc) = (None, Some(common::Tool::Nvrtc));
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        any => lanes_follow_the_linear_index_in_every_block_shape,
        any => the_first_warp_and_a_grid_stride_loop_see_their_lanes,
        nvrtc => the_warp_kernels_compile_with_nvrtc,
        any => shuffles_of_every_type_read_their_source_lanes,
        any => votes_matches_and_lane_masks_follow_the_mask,
        any => match_any_compares_bits,
        any => match_all_follows_the_mask,
        any => values_of_types_only_rustc_knows_are_exchanged,
        any => a_two_stage_shuffle_reduction_sums_each_block,
        any => a_device_function_shuffles,
        cpu => breaking_the_warp_rules_is_a_fault_naming_the_lanes,
        any => numbas_warp_tests_give_numbas_values,
        any => numbas_useful_syncwarp_sees_lane_0s_store,
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
    common::assert_compiles_with_nvrtc("the_warp_kernels_compile_with_nvrtc", &intrinsic_kernels());
}

/// Block sizes (whole warps and a partial last warp) and the masks of
/// their warps: full, odd lanes, one lane, a prefix, and random.
fn launches() -> Vec<(usize, usize, Vec<u32>)> {
    let mut out = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for (blocks, block) in [(2usize, 32usize), (3, 48), (2, 64), (2, 100)] {
        let warps = blocks * block.div_ceil(32);
        for shape in 0..5 {
            let mask: Vec<u32> = (0..warps)
                .map(|w| match shape {
                    0 => u32::MAX,
                    1 => 0xaaaa_aaaa,
                    2 => 1 << ((w * 7) % 32),
                    3 => 0x0000_ffff >> (w % 3),
                    _ => {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        (seed >> 32) as u32 | 1
                    }
                })
                .collect();
            out.push((blocks, block, mask));
        }
    }
    out
}

/// One shuffle kernel on every launch of `launches`, against the model.
fn check_shuffles<T: gpujit::DeviceScalar>(
    name: &str,
    make: impl Fn(usize) -> T,
    zero: T,
    run: impl Fn(
        (usize, usize),
        &gpujit::DeviceArray<T>,
        &gpujit::DeviceArray<u32>,
        &gpujit::DeviceArray<u32>,
        &mut gpujit::DeviceArray<T>,
    ) -> gpujit::Result<()>,
) {
    for (k, (blocks, block, mask)) in launches().into_iter().enumerate() {
        let n = blocks * block;
        let x: Vec<T> = (0..n).map(&make).collect();
        let args = valid_shuffle_args(n, block, &mask, 17 + k as u64);
        let mut out = zeros::<T>((4, n)).unwrap();
        let d_x = gpujit::to_device(&x).unwrap();
        let d_args =
            gpujit::to_device(&gpujit::ndarray::Array2::from_shape_vec((4, n), args.clone()).unwrap()).unwrap();
        let d_mask = gpujit::to_device(&mask).unwrap();
        run((blocks, block), &d_x, &d_args, &d_mask, &mut out).unwrap();
        assert_eq!(
            out.copy_to_host().unwrap(),
            want_shuffles(&x, &args, block, &mask, zero),
            "{name}: {blocks} blocks of {block}, masks {mask:x?}"
        );
    }
}

fn shuffles_of_every_type_read_their_source_lanes() {
    check_shuffles(
        "i32",
        |i| i as i32 * -3 - 1,
        0,
        |(g, b), x, a, m, o| shuffles_i32![g, b](x, a, m, o),
    );
    check_shuffles(
        "u32",
        |i| 0xf000_0000 | i as u32,
        0,
        |(g, b), x, a, m, o| shuffles_u32![g, b](x, a, m, o),
    );
    check_shuffles(
        "f32",
        |i| i as f32 * 0.5 - 7.25,
        0.0,
        |(g, b), x, a, m, o| shuffles_f32![g, b](x, a, m, o),
    );
    check_shuffles(
        "i64",
        |i| -(1i64 << 40) - i as i64,
        0,
        |(g, b), x, a, m, o| shuffles_i64![g, b](x, a, m, o),
    );
    check_shuffles(
        "u64",
        |i| (1u64 << 63) | i as u64,
        0,
        |(g, b), x, a, m, o| shuffles_u64![g, b](x, a, m, o),
    );
    check_shuffles(
        "usize",
        |i| i * 1_000_003,
        0,
        |(g, b), x, a, m, o| shuffles_usize![g, b](x, a, m, o),
    );
    check_shuffles(
        "f64",
        |i| 1e300 / (i as f64 + 1.0),
        0.0,
        |(g, b), x, a, m, o| shuffles_f64![g, b](x, a, m, o),
    );
}

fn votes_matches_and_lane_masks_follow_the_mask() {
    for (blocks, block, mask) in launches() {
        let n = blocks * block;
        // Three predicates' patterns: mixed, all odd, all even (and values
        // that repeat, for the match).
        for pattern in 0..3 {
            let p: Vec<u32> = (0..n as u32)
                .map(|i| match pattern {
                    0 => (i * 7 + i / 5) % 6,
                    1 => 2 * (i % 3) + 1,
                    _ => 2 * (i % 4),
                })
                .collect();
            let mut out = zeros::<u32>((7, n)).unwrap();
            warp_votes![blocks, block](
                &gpujit::to_device(&p).unwrap(),
                &gpujit::to_device(&mask).unwrap(),
                &mut out,
            )
            .unwrap();
            assert_eq!(
                out.copy_to_host().unwrap(),
                want_votes(&p, block, &mask),
                "{blocks} blocks of {block}, pattern {pattern}, masks {mask:x?}"
            );
        }
    }
}

fn match_all_follows_the_mask() {
    for (blocks, block, mask) in launches() {
        let n = blocks * block;
        // Equal values in whole warps, and warps where one lane differs.
        for pattern in 0..3u64 {
            let x: Vec<u64> = (0..n as u64)
                .map(|i| match pattern {
                    0 => 7,
                    1 => (i / 32) << 40,
                    _ => u64::from(i % 61 == 3),
                })
                .collect();
            let mut out = zeros::<u32>((2, n)).unwrap();
            match_all_masks![blocks, block](
                &gpujit::to_device(&x).unwrap(),
                &gpujit::to_device(&mask).unwrap(),
                &mut out,
            )
            .unwrap();
            assert_eq!(
                out.copy_to_host().unwrap(),
                want_match_all(&x, block, &mask),
                "{blocks} blocks of {block}, pattern {pattern}, masks {mask:x?}"
            );
        }
    }
}

/// Found by the fuzzer: a module constant's element was refused as a
/// shuffled value (its type is rustc's to know).
fn values_of_types_only_rustc_knows_are_exchanged() {
    let mut out = zeros::<i64>(64).unwrap();
    outside_values![1, 64](&mut out).unwrap();
    let want: Vec<i64> = (0..64i64)
        .map(|i| {
            let below = if i % 32 == 0 { i } else { i - 1 };
            -20 + 2 * below + 1
        })
        .collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
}

fn match_any_compares_bits() {
    let nan = f64::from_bits(0x7ff8_0000_0000_0001);
    let x: Vec<f64> = (0..64).map(|i| [0.0, -0.0, nan, 1.5][i % 4]).collect();
    let mut out = zeros::<u32>(64).unwrap();
    match_f64![1, 64](&gpujit::to_device(&x).unwrap(), &mut out).unwrap();
    let want: Vec<u32> = (0..64).map(|i| 0x1111_1111u32 << (i % 4)).collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
}

fn a_two_stage_shuffle_reduction_sums_each_block() {
    for (blocks, block) in [(1, 32), (3, 256), (2, 1024), (2, 96)] {
        let n = blocks * block - 5;
        // Small integers: every order of the sums is exact.
        let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
        let mut out = zeros::<f32>(blocks).unwrap();
        block_sum_shfl![blocks, block](&gpujit::to_device(&x).unwrap(), &mut out).unwrap();
        let want: Vec<f32> = (0..blocks)
            .map(|b| x[b * block..((b + 1) * block).min(n)].iter().sum())
            .collect();
        assert_eq!(out.copy_to_host().unwrap(), want, "{blocks} blocks of {block}");
    }
}

fn a_device_function_shuffles() {
    let x: Vec<i64> = (0..96).map(|i| i * i - 1000).collect();
    let d_x = gpujit::to_device(&x).unwrap();
    let mut out = zeros::<i64>(96).unwrap();
    warp_sums_in_callee![1, 96](&d_x, &mut out).unwrap();
    let want: Vec<i64> = (0..96).map(|i| x[i / 32 * 32..i / 32 * 32 + 32].iter().sum()).collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
    // A kernel with a barrier of its own around the call.
    let mut out = zeros::<i64>(3).unwrap();
    block_sums_in_callee![3, 32](&d_x, &mut out).unwrap();
    let want: Vec<i64> = x.chunks(32).map(|c| c.iter().sum()).collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
}

fn breaking_the_warp_rules_is_a_fault_naming_the_lanes() {
    let mut out = zeros::<u32>(64).unwrap();
    let (block, thread, _, message) = common::fault_of(warp_misses_lanes![1, 64](&mut out), "warp_misses_lanes");
    assert_eq!((block, thread), ([0, 0, 0], [0, 0, 0]));
    assert!(
        message.contains("divergent warp: lane 0 of warp 0 waits at shfl_down_sync() number 1")
            && message.contains("lane 16 of that warp, named in the mask, waits at syncthreads() number 2"),
        "{message}"
    );

    let mut out = zeros::<u32>(32).unwrap();
    let (_, thread, _, message) = common::fault_of(shfl_outside_the_mask![1, 32](&mut out), "shfl_outside_the_mask");
    assert_eq!(thread, [8, 0, 0]);
    assert!(
        message.contains("lane 8 reads lane 16 in shfl_down_sync() number 1"),
        "{message}"
    );

    let x = gpujit::to_device(&[1.0f32; 96]).unwrap();
    let mut out = zeros::<f32>(96).unwrap();
    let (block, thread, _, message) =
        common::fault_of(shfl_in_a_partial_warp![2, 48](&x, &mut out), "shfl_in_a_partial_warp");
    // Lane 0 of each block's second warp (16 lanes) reads lane 16.
    assert_eq!((block, thread), ([0, 0, 0], [32, 0, 0]));
    assert!(message.contains("lane 0 reads lane 16"), "{message}");
    // Whole warps: the same kernel is fine.
    let x = gpujit::to_device(&[1.0f32; 64]).unwrap();
    let mut out = zeros::<f32>(64).unwrap();
    shfl_in_a_partial_warp![1, 64](&x, &mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap()[0], 32.0);

    let mut out = zeros::<u32>(32).unwrap();
    let (_, _, _, message) = common::fault_of(masks_differ![1, 32](&mut out), "masks_differ");
    assert!(
        message.contains("call syncwarp() number 1 with different masks") || message.contains("which does not name it"),
        "{message}"
    );
}

/// Numba's `test_warp_ops.py` (and `test_sync.py`'s warp tests), each
/// kernel with the launch, inputs and asserted values of Numba's test.
fn numbas_warp_tests_give_numbas_values() {
    let host_i32 = |a: &gpujit::DeviceArray<i32>| a.copy_to_host().unwrap();
    let lanes: Vec<i32> = (0..32).collect();
    let wants: [(u32, u32, Vec<i32>); 4] = [
        (0, 4, vec![4; 32]),
        (1, 4, lanes.iter().map(|&l| if l >= 4 { l - 4 } else { l }).collect()),
        (2, 4, lanes.iter().map(|&l| if l < 28 { l + 4 } else { l }).collect()),
        (3, 16, lanes.iter().map(|&l| l ^ 16).collect()),
    ];
    for (mode, arg, want) in wants {
        let mut ary = zeros::<i32>(32).unwrap();
        numba_shfl![1, 32](&mut ary, mode, arg).unwrap();
        assert_eq!(host_i32(&ary), want, "shfl mode {mode}");
    }

    let mut a = zeros::<i32>(32).unwrap();
    numba_shfl_with_val_i32![1, 32](&mut a, -1).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), [-1; 32]);
    let mut a = zeros::<i64>(32).unwrap();
    numba_shfl_with_val_i64![1, 32](&mut a, 1 << 42).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), [1i64 << 42; 32]);
    let mut a = zeros::<f32>(32).unwrap();
    numba_shfl_with_val_f32![1, 32](&mut a, std::f32::consts::PI).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), [std::f32::consts::PI; 32]);
    let mut a = zeros::<f64>(32).unwrap();
    numba_shfl_with_val_f64![1, 32](&mut a, std::f64::consts::PI).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), [std::f64::consts::PI; 32]);

    let vote = |mode: u32, input: &[i32]| {
        let mut out = zeros::<i32>(32).unwrap();
        numba_vote![1, 32](&gpujit::to_device(input).unwrap(), &mut out, mode).unwrap();
        host_i32(&out)
    };
    let mut ones = vec![1i32; 32];
    assert_eq!(vote(0, &ones), [1; 32], "all_sync of ones");
    ones[31] = 0;
    assert_eq!(vote(0, &ones), [0; 32], "all_sync with a zero");
    let mut zs = vec![0i32; 32];
    assert_eq!(vote(1, &zs), [0; 32], "any_sync of zeros");
    zs[2] = 1;
    zs[5] = 1;
    assert_eq!(vote(1, &zs), [1; 32], "any_sync of two ones");
    assert_eq!(vote(2, &[0; 32]), [1; 32], "eq_sync of zeros");
    let mut one = vec![0i32; 32];
    one[1] = 1;
    assert_eq!(vote(2, &one), [0; 32], "eq_sync with a one");
    assert_eq!(vote(2, &[1; 32]), [1; 32], "eq_sync of ones");
    assert_eq!(vote(3, &[0; 32]), [-1; 32], "ballot_sync of true");

    // A partial warp of 10 lanes: the mask's missing lanes have exited.
    let input: Vec<i32> = (0..10).map(|i| i % 2).collect();
    let mut out = zeros::<i32>(10).unwrap();
    numba_match_any![1, 10](&gpujit::to_device(&input).unwrap(), &mut out).unwrap();
    assert_eq!(
        host_i32(&out),
        [0b01_0101_0101, 0b10_1010_1010].repeat(5),
        "match_any_sync"
    );
    // `use_match_all_sync` at Numba's launch: the 10 lanes that take part.
    let mut input = vec![0i32; 10];
    let mut out = zeros::<i32>(10).unwrap();
    numba_match_all![1, 10](&gpujit::to_device(&input).unwrap(), &mut out).unwrap();
    assert_eq!(host_i32(&out), [0b11_1111_1111; 10], "match_all_sync, all equal");
    input[1] = 4;
    numba_match_all![1, 10](&gpujit::to_device(&input).unwrap(), &mut out).unwrap();
    assert_eq!(host_i32(&out), [0; 10], "match_all_sync, one differs");

    let mut arr = zeros::<u32>(32).unwrap();
    numba_independent_scheduling![1, 32](&mut arr).unwrap();
    assert_eq!(
        arr.copy_to_host().unwrap(),
        [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888].repeat(8),
        "independent_scheduling"
    );

    let mut x = zeros::<u32>(32).unwrap();
    numba_activemask![1, 32](&mut x).unwrap();
    assert_eq!(
        x.copy_to_host().unwrap(),
        [0x5555_5555, 0xaaaa_aaaa].repeat(16),
        "activemask"
    );

    let mut x = zeros::<u32>(32).unwrap();
    numba_lanemask_lt![1, 32](&mut x).unwrap();
    let want: Vec<u32> = (0..32).map(|l| (1u32 << l) - 1).collect();
    assert_eq!(x.copy_to_host().unwrap(), want, "lanemask_lt");

    for mode in 0..2 {
        let mut ary = zeros::<i32>(10).unwrap();
        numba_useless_syncwarp![1, 10](&mut ary, mode).unwrap();
        assert_eq!(
            host_i32(&ary),
            (0..10).collect::<Vec<i32>>(),
            "useless_syncwarp mode {mode}"
        );
    }

    let mut res = zeros::<i32>(1).unwrap();
    numba_coop_syncwarp![1, 32](&mut res).unwrap();
    assert_eq!(host_i32(&res), [496], "coop_syncwarp");
}

/// Numba's `useful_syncwarp`: lane 0's store is seen by every lane after
/// `syncwarp`. (Its `ary[i] = ary[0]` then races lane 0's store with the
/// other lanes' loads of `ary[0]`, which checked mode reports: CI's
/// checked pass skips this test.)
fn numbas_useful_syncwarp_sees_lane_0s_store() {
    let mut ary = zeros::<i32>(32).unwrap();
    numba_useful_syncwarp![1, 32](&mut ary).unwrap();
    assert_eq!(ary.copy_to_host().unwrap(), [42; 32], "useful_syncwarp");
}
