//! Matrix multiply, naive and shared-memory tiled (the seed's last two
//! programs), on `f32`, checked against a host `f64` reference.
//!
//! The tiled kernel stages TILE×TILE blocks of A and B in shared memory and
//! meets two `syncthreads()` per tile step. Threads outside C still load zeros
//! and reach both barriers, so any shape works (20×37 times 37×5, say).
//!
//! Run: `cargo run --release --example matmul -- [N]` (default N = 1024)

use gpujit::prelude::*;
use ndarray::Array2;

/// Edge of a shared-memory tile and of a thread block.
pub const TILE: usize = 16;

/// `c = a · b`, one thread per element of `c`: `a` is (n, k), `b` is (k, m), `c` is (n, m).
#[gpu_kernel]
pub fn matmul_naive(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let k = a.shape()[1];
        let mut acc = 0.0;
        for i in 0..k {
            acc += a[[row, i]] * b[[i, col]];
        }
        c[[row, col]] = acc;
    }
}

/// `c = a · b` with TILE×TILE tiles of `a` and `b` in shared memory.
#[gpu_kernel]
pub fn matmul_tiled(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; TILE]; TILE]>();
    let sb = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + TILE - 1) / TILE {
        let ka = t * TILE + tx;
        let kb = t * TILE + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..TILE {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

/// Which kernel to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Naive,
    Tiled,
}

/// `c = a · b` on the current backend with TILE×TILE blocks.
pub fn matmul(
    variant: Variant,
    a: &DeviceArray<f32>,
    b: &DeviceArray<f32>,
    c: &mut DeviceArray<f32>,
) -> gpujit::Result<()> {
    let (n, m) = (c.shape()[0], c.shape()[1]);
    let grid = (m.div_ceil(TILE), n.div_ceil(TILE));
    let block = (TILE, TILE);
    match variant {
        Variant::Naive => matmul_naive![grid, block](a, b, c),
        Variant::Tiled => matmul_tiled![grid, block](a, b, c),
    }
}

/// Largest `|got - want| / (|want| + 1)` over all elements, with `want` in f64.
pub fn max_rel_error(got: &Array2<f32>, want: &Array2<f64>) -> f64 {
    got.iter()
        .zip(want.iter())
        .map(|(&g, &w)| (g as f64 - w).abs() / (w.abs() + 1.0))
        .fold(0.0, f64::max)
}

/// Deterministic test matrix with entries in [-1, 1).
pub fn test_matrix(rows: usize, cols: usize, seed: u64) -> Array2<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    Array2::from_shape_simple_fn((rows, cols), || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    })
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

#[allow(dead_code)]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(1024)?;
    const TOLERANCE: f64 = 1e-4;
    println!("backend: {}", gpujit::detect());
    println!("C = A · B with A, B {n} x {n} f32; reference: host f64; tolerance {TOLERANCE:e} (relative)");
    let a = test_matrix(n, n, 1);
    let b = test_matrix(n, n, 2);
    let reference = a.mapv(f64::from).dot(&b.mapv(f64::from));
    let d_a = gpujit::to_device(&a)?;
    let d_b = gpujit::to_device(&b)?;
    let mut d_c = gpujit::device_array::<f32>((n, n))?;
    let flops = 2.0 * (n as f64).powi(3);
    let mut ok = true;
    let mut gflops = Vec::new();
    for variant in [Variant::Naive, Variant::Tiled] {
        matmul(variant, &d_a, &d_b, &mut d_c)?;
        let err = max_rel_error(&d_c.copy_to_ndarray()?, &reference);
        let matches = err < TOLERANCE;
        ok &= matches;
        let t = gpujit_examples::median_secs(3, || matmul(variant, &d_a, &d_b, &mut d_c))?;
        gflops.push(flops / t / 1e9);
        println!(
            "{variant:?}: max rel. error {err:.2e}, match: {}, median of 3 warm runs {}, {:.2} GFLOP/s",
            gpujit_examples::verdict(matches),
            gpujit_examples::human_time(t),
            flops / t / 1e9
        );
    }
    println!("tiled / naive speed ratio: {:.2}", gflops[1] / gflops[0]);
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
