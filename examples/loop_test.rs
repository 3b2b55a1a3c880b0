//! The loop test (the seed's first program): 10000 threads, each sums
//! `i * j * 0.1` over `j < 10000` in f64; the host sums the results.
//! Expected total: 249950002500000.0.
//!
//! Also shows Numba's advice on block size by launching with 256 and with 64
//! threads per block.
//!
//! Run: `cargo run --release --example loop_test`

use gpujit::prelude::*;

/// Inner trip count of every thread.
pub const INNER: usize = 10_000;

/// `out[i] = sum over j < INNER of i * j * 0.1`.
#[gpu_kernel]
pub fn loop_kernel(out: &mut [f64]) {
    let i = grid(1);
    if i < out.len() {
        let mut s = 0.0;
        for j in 0..INNER {
            s += (i * j) as f64 * 0.1;
        }
        out[i] = s;
    }
}

/// Runs the kernel for `n` threads with `threads_per_block`, returns the host sum.
pub fn loop_total(d_out: &mut DeviceArray<f64>, threads_per_block: usize) -> gpujit::Result<f64> {
    let n = d_out.len();
    loop_kernel![n.div_ceil(threads_per_block), threads_per_block](d_out)?;
    Ok(d_out.copy_to_host()?.iter().sum())
}

/// The per-thread sums computed on the host, in the same order.
pub fn loop_host(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let mut s = 0.0f64;
            for j in 0..INNER {
                s += (i * j) as f64 * 0.1;
            }
            s
        })
        .collect()
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

#[allow(dead_code)]
pub fn run() -> gpujit::Result<()> {
    const N: usize = 10_000;
    const EXPECTED: f64 = 249_950_002_500_000.0;
    println!("backend: {}", gpujit::detect());
    let mut d_out = gpujit::device_array::<f64>(N)?;
    let mut ok = true;
    for threads in [256, 64] {
        let total = loop_total(&mut d_out, threads)?;
        let rel = ((total - EXPECTED) / EXPECTED).abs();
        let matches = rel < 1e-12;
        ok &= matches;
        let t = gpujit_examples::median_secs(5, || loop_total(&mut d_out, threads).map(|_| ()))?;
        println!(
            "{threads:4} threads/block, {:3} blocks: total {total:.1}, expected {EXPECTED:.1}, rel. error {rel:.1e}, match: {}, median of 5 warm runs {}",
            N.div_ceil(threads),
            gpujit_examples::verdict(matches),
            gpujit_examples::human_time(t)
        );
    }
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
