//! The sum of 2²⁶ floats with warp shuffles, in two stages, the way tuned
//! CUDA reductions are written: each block sums a grid-stride share of the
//! input per thread, each warp reduces its threads' sums with
//! `shfl_down_sync`, the warps' sums are reduced the same way, and a
//! second launch of one block sums the blocks' results. Checked against a sum on
//! the host (in `f64`); the program exits non-zero if they differ by more
//! than `f32` rounding allows.
//!
//! The same sum with the library's `block_reduce_sum` (the same shuffle tree
//! and shared array, written out by the macro) runs beside it, checked and
//! timed alike.
//!
//! Run: `cargo run --release --example reduce -- [N]` (default 2²⁶ values).

use gpujit::prelude::*;

/// Threads per block: whole warps, at most 32 of them.
pub const THREADS: usize = 256;
/// Blocks of the first stage: its partial sums are one block's work.
pub const BLOCKS: usize = THREADS;
/// Every lane of a warp.
const FULL: u32 = 0xffff_ffff;

/// `partial[b]` = the sum of block `b`'s grid-stride share of `x` (blocks
/// of whole warps). Every thread reaches each shuffle, so on the CPU
/// backend the kernel runs as loops over the block's threads, the 32 lanes
/// of each warp exchanging their values at each shuffle (see the
/// reference's "Warps"); a shuffle in a `#[gpu_device]` function, or under
/// `if warp == 0`, would put it on the slower coroutine path.
#[gpu_kernel]
pub fn block_sums(x: &[f32], partial: &mut [f32]) {
    let warp_sums = shared_array::<[f32; 32]>();
    let mut v = 0.0f32;
    let mut i = grid(1);
    while i < x.len() {
        v += x[i];
        i += gridsize(1);
    }
    // Each warp's sum, in its lane 0 (Numba's and CUDA's `shfl_down` tree).
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(FULL, v, offset);
        offset /= 2;
    }
    let lane = lane_id();
    if lane == 0 {
        warp_sums[thread_idx().x / 32] = v;
    }
    syncthreads();
    // The warps' sums, reduced by every warp alike; thread 0 stores.
    let mut s = if lane < block_dim().x / 32 {
        warp_sums[lane]
    } else {
        0.0
    };
    let mut offset = 16;
    while offset > 0 {
        s += shfl_down_sync(FULL, s, offset);
        offset /= 2;
    }
    if thread_idx().x == 0 {
        partial[block_idx().x] = s;
    }
}

/// Both stages: the sum of `x` into `total[0]`.
/// [`block_sums`] with the library's block reduction.
#[gpu_kernel]
pub fn block_sums_lib(x: &[f32], partial: &mut [f32]) {
    let mut v = 0.0f32;
    let mut i = grid(1);
    while i < x.len() {
        v += x[i];
        i += gridsize(1);
    }
    let s = block_reduce_sum(v);
    if thread_idx().x == 0 {
        partial[block_idx().x] = s;
    }
}

/// [`sum`] with [`block_sums_lib`].
pub fn sum_lib(
    x: &DeviceArray<f32>,
    partial: &mut DeviceArray<f32>,
    total: &mut DeviceArray<f32>,
) -> gpujit::Result<()> {
    block_sums_lib![BLOCKS, THREADS](x, partial)?;
    block_sums_lib![1, THREADS](partial, total)
}

pub fn sum(x: &DeviceArray<f32>, partial: &mut DeviceArray<f32>, total: &mut DeviceArray<f32>) -> gpujit::Result<()> {
    block_sums![BLOCKS, THREADS](x, partial)?;
    block_sums![1, THREADS](partial, total)
}

fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(1 << 26)?;
    println!("backend: {}", gpujit::detect());
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut partial = gpujit::zeros::<f32>(BLOCKS)?;
    let mut total = gpujit::zeros::<f32>(1)?;
    let start = std::time::Instant::now();
    let want: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let host = start.elapsed().as_secs_f64();
    let mut ok = true;
    type Sum = fn(&DeviceArray<f32>, &mut DeviceArray<f32>, &mut DeviceArray<f32>) -> gpujit::Result<()>;
    let ways: [(&str, Sum); 2] = [("shuffles written out", sum), ("block_reduce_sum", sum_lib)];
    for (what, f) in ways {
        f(&d_x, &mut partial, &mut total)?;
        let got = f64::from(total.copy_to_host()?[0]);
        // Each thread adds about n / 65536 values in `f32`, then 13 levels of
        // pairs: a relative error of a few 1e-7 per level.
        let close = (got - want).abs() <= 1e-5 * want.abs().max(1.0);
        ok &= close;
        println!(
            "result ({what}): sum of {n} values {got} (host, in f64: {want}; relative difference {:.1e}); match: {}",
            (got - want).abs() / want.abs().max(1.0),
            gpujit_examples::verdict(close)
        );
        let t = gpujit_examples::median_secs(5, || f(&d_x, &mut partial, &mut total))?;
        println!(
            "kernel ({what}): median of 5 warm runs {} (a plain loop on the host, one core: {})",
            gpujit_examples::human_time(t),
            gpujit_examples::human_time(host)
        );
    }
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
