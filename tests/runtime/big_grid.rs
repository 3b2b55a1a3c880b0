//! 64-bit index math on a real launch: the thread in block 8,388,608 with
//! thread index 255 and 256 threads per block has `grid(1)` = 2,147,483,903,
//! past `i32::MAX`. The launch runs 2,147,483,904 threads on the CPU backend,
//! so it runs in release builds only (`cargo test --release`, as CI does).

use gpujit::prelude::*;

use crate::common;
use common::Tool;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        Some(Tool::Release) => grid_index_past_i32_max,
        None => emitted_c_widens_before_multiplying,
        Some(Tool::Nvrtc) => find_index_compiles_with_nvrtc,
    ]
}

/// Every thread whose global index is `target` writes it to `out[0]`.
#[gpu_kernel]
fn find_index(target: usize, out: &mut [u64]) {
    let i = grid(1);
    if i == target {
        out[0] = i as u64;
        out[1] = block_idx().x as u64;
        out[2] = thread_idx().x as u64;
    }
}

fn grid_index_past_i32_max() -> gpujit::Result<()> {
    const BLOCKS: usize = 8_388_609;
    const THREADS: usize = 256;
    let target = 8_388_608 * THREADS + 255;
    assert_eq!(target, 2_147_483_903);
    let mut out = gpujit::zeros::<u64>(3)?;
    find_index![BLOCKS, THREADS](target, &mut out)?;
    assert_eq!(out.copy_to_host()?, vec![2_147_483_903, 8_388_608, 255]);
    Ok(())
}

fn emitted_c_widens_before_multiplying() {
    let src = find_index::cuda_source();
    assert!(
        src.contains("((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)"),
        "{src}"
    );
}

fn find_index_compiles_with_nvrtc() {
    common::assert_compiles_with_nvrtc("big_grid", &[&find_index::KERNEL]);
}
