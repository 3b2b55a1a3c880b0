//! SAXPY with a grid-stride loop, Numba's idiom for covering any `n` with a
//! fixed launch: each thread starts at `grid(1)` and steps by `gridsize(1)`.
//! Prints the emitted CUDA C, launches with the macro and with the method
//! form, and checks the result against the host.
//!
//! Run: `cargo run --release --example saxpy -- [N]` (default N = 10,000,000)

use gpujit::prelude::*;

/// `y[i] = a * x[i] + y[i]` for every `i`, whatever the launch size.
#[gpu_kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let start = grid(1);
    let stride = gridsize(1);
    for i in (start..y.len()).step_by(stride) {
        y[i] = a * x[i] + y[i];
    }
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

#[allow(dead_code)]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(10_000_000)?;
    println!("backend: {}", gpujit::detect());
    println!("emitted CUDA C:\n{}", saxpy::cuda_source());

    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::to_device(&y)?;

    // 64 blocks of 256 threads cover any n: each thread strides by gridsize(1).
    let (blocks, threads) = (64, 256);
    saxpy![blocks, threads](2.0, &d_x, &mut d_y)?;
    // The method form, for generic or cross-crate callers.
    saxpy::launch(blocks, threads, -1.0, &d_x, &mut d_y)?;

    let got = d_y.copy_to_host()?;
    let want: Vec<f32> = x.iter().zip(&y).map(|(&xi, &yi)| -xi + (2.0 * xi + yi)).collect();
    let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
    println!(
        "n = {n}: y = -x + (2x + y); elements differing from the host: {wrong}; match: {}",
        gpujit_examples::verdict(wrong == 0)
    );
    // Few blocks make each thread stride through memory (what a GPU wants);
    // one element per thread keeps the CPU backend's accesses contiguous.
    for blocks in [64, n.div_ceil(threads)] {
        let t = gpujit_examples::median_secs(5, || saxpy![blocks, threads](1.0, &d_x, &mut d_y))?;
        let gbytes = 12.0 * n as f64 / t / 1e9;
        println!(
            "{blocks:>8} blocks x {threads} threads: median of 5 warm runs {}, {gbytes:.2} GB/s",
            gpujit_examples::human_time(t)
        );
    }
    if wrong != 0 {
        std::process::exit(1);
    }
    Ok(())
}
