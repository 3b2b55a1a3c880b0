//! Matrix multiply on a stream (the seed article's stream program): the
//! copies to the GPU, the tiled kernel and the copy back are queued on one
//! stream, the result lands in a pinned host array, and events time the
//! transfers and the kernel. Numba:
//!
//! ```python
//! stream = cuda.stream()
//! d_a = cuda.to_device(a, stream=stream)
//! d_b = cuda.to_device(b, stream=stream)
//! d_c = cuda.device_array((n, n), np.float32, stream=stream)
//! matmul[grid, block, stream](d_a, d_b, d_c)
//! d_c.copy_to_host(c, stream=stream)   # c = cuda.pinned_array((n, n), np.float32)
//! stream.synchronize()
//! ```
//!
//! Checked against a host `f64` product; exits non-zero on a mismatch. On the
//! CPU backend the stream's work runs in order during each call and the
//! events measure wall time.
//!
//! Run: `cargo run --release --example streams -- [N]` (default N = 256, small enough for the driver double; pass 4096 on a GPU)

#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul;

use matmul::{matmul_tiled, max_rel_error, test_matrix, TILE};
use ndarray::Array2;

fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(256)?;
    const TOLERANCE: f64 = 1e-4;
    println!("backend: {}", gpujit::detect());
    println!("C = A · B on a stream, A, B {n} x {n} f32; reference: host f64; tolerance {TOLERANCE:e} (relative)");
    let a = test_matrix(n, n, 1);
    let b = test_matrix(n, n, 2);

    let stream = gpujit::stream()?;
    let [start, uploaded, computed, downloaded] =
        [gpujit::event()?, gpujit::event()?, gpujit::event()?, gpujit::event()?];
    let mut c = gpujit::pinned_array::<f32>(n * n)?;

    start.record(&stream)?;
    let d_a = gpujit::to_device_on(&a, &stream)?;
    let d_b = gpujit::to_device_on(&b, &stream)?;
    let mut d_c = gpujit::device_array::<f32>((n, n))?;
    uploaded.record(&stream)?;
    let grid = (n.div_ceil(TILE), n.div_ceil(TILE));
    matmul_tiled![grid, (TILE, TILE), &stream](&d_a, &d_b, &mut d_c)?;
    computed.record(&stream)?;
    d_c.copy_to_pinned(&mut c, &stream)?;
    downloaded.record(&stream)?;
    stream.synchronize()?;

    let got = Array2::from_shape_vec((n, n), c.as_slice()?.to_vec())?;
    let reference = a.mapv(f64::from).dot(&b.mapv(f64::from));
    let err = max_rel_error(&got, &reference);
    let matches = err < TOLERANCE;
    let bytes = |elems: usize| (elems * std::mem::size_of::<f32>()) as f64;
    let h2d = start.elapsed_time(&uploaded)?;
    let kernel = uploaded.elapsed_time(&computed)?;
    let d2h = computed.elapsed_time(&downloaded)?;
    println!(
        "to device {h2d:.3} ms ({} GB/s), kernel {kernel:.3} ms ({} GFLOP/s), to pinned host {d2h:.3} ms ({} GB/s)",
        per_ms(bytes(2 * n * n) / 1e6, h2d),
        per_ms(2.0 * (n as f64).powi(3) / 1e6, kernel),
        per_ms(bytes(n * n) / 1e6, d2h),
    );
    println!(
        "max rel. error {err:.2e}, expected below {TOLERANCE:e}, match: {}",
        gpujit_examples::verdict(matches)
    );
    if !matches {
        std::process::exit(1);
    }
    Ok(())
}

/// `amount / ms` with two decimals, or `-` for a time too short to measure.
fn per_ms(amount: f64, ms: f32) -> String {
    if ms > 0.0 {
        format!("{:.2}", amount / f64::from(ms))
    } else {
        "-".to_string()
    }
}
