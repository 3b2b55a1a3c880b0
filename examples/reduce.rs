//! The sum of 2²⁶ floats with warp shuffles, in two stages, the way tuned
//! CUDA reductions are written: each block sums a grid-stride share of the
//! input per thread, each warp reduces its threads' sums with
//! `shfl_down_sync`, the first warp reduces the warps' sums, and a second
//! launch of one block sums the blocks' results. Checked against a sum on
//! the host (in `f64`); the program exits non-zero if they differ by more
//! than `f32` rounding allows.
//!
//! Run: `cargo run --release --example reduce -- [N]` (default 2²⁶ values).

use gpujit::prelude::*;

/// Threads per block: whole warps, at most 32 of them.
const THREADS: usize = 256;
/// Blocks of the first stage: its partial sums are one block's work.
const BLOCKS: usize = THREADS;
/// Every lane of a warp.
const FULL: u32 = 0xffff_ffff;

/// The sum of `v` over the 32 lanes of a whole warp, in lane 0 (Numba's
/// and CUDA's `shfl_down` tree).
#[gpu_device]
pub fn warp_sum(v: f32) -> f32 {
    let mut v = v;
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(FULL, v, offset);
        offset /= 2;
    }
    v
}

/// `partial[b]` = the sum of block `b`'s grid-stride share of `x` (blocks
/// of whole warps).
#[gpu_kernel]
pub fn block_sums(x: &[f32], partial: &mut [f32]) {
    let warp_sums = shared_array::<[f32; 32]>();
    let mut v = 0.0f32;
    let mut i = grid(1);
    while i < x.len() {
        v += x[i];
        i += gridsize(1);
    }
    v = warp_sum(v);
    let lane = lane_id();
    let warp = thread_idx().x / 32;
    if lane == 0 {
        warp_sums[warp] = v;
    }
    syncthreads();
    if warp == 0 {
        let s = if lane < block_dim().x / 32 {
            warp_sums[lane]
        } else {
            0.0
        };
        let s = warp_sum(s);
        if lane == 0 {
            partial[block_idx().x] = s;
        }
    }
}

/// Both stages: the sum of `x` into `total[0]`.
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
    sum(&d_x, &mut partial, &mut total)?;
    let got = f64::from(total.copy_to_host()?[0]);
    let start = std::time::Instant::now();
    let want: f64 = x.iter().map(|&v| f64::from(v)).sum();
    let host = start.elapsed().as_secs_f64();
    // Each thread adds about n / 65536 values in `f32`, then 13 levels of
    // pairs: a relative error of a few 1e-7 per level.
    let ok = (got - want).abs() <= 1e-5 * want.abs().max(1.0);
    println!(
        "result: sum of {n} values {got} (host, in f64: {want}; relative difference {:.1e}); match: {}",
        (got - want).abs() / want.abs().max(1.0),
        gpujit_examples::verdict(ok)
    );
    let t = gpujit_examples::median_secs(5, || sum(&d_x, &mut partial, &mut total))?;
    println!(
        "kernel: median of 5 warm runs {} (a plain loop on the host, one core: {})",
        gpujit_examples::human_time(t),
        gpujit_examples::human_time(host)
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
