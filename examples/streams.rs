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
pub mod matmul;

use matmul::{matmul_tiled, max_rel_error, test_matrix, TILE};
use ndarray::Array2;

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

/// What the four events measured, in milliseconds (GPU time on CUDA, wall
/// time on the CPU backend).
#[derive(Debug, Clone, Copy)]
pub struct Timings {
    /// Both copies to the device.
    pub to_device_ms: f32,
    /// The kernel.
    pub kernel_ms: f32,
    /// The copy back into the pinned array.
    pub to_host_ms: f32,
}

/// `a · b` (shapes (n, k) and (k, m)) with every step queued on one stream,
/// as the article does; the result comes back through a pinned array.
pub fn matmul_on_stream(
    a: &Array2<f32>,
    b: &Array2<f32>,
) -> Result<(Array2<f32>, Timings), Box<dyn std::error::Error>> {
    let (n, m) = (a.nrows(), b.ncols());
    let stream = gpujit::stream()?;
    let [start, uploaded, computed, downloaded] =
        [gpujit::event()?, gpujit::event()?, gpujit::event()?, gpujit::event()?];
    let mut c = gpujit::pinned_array::<f32>(n * m)?;

    start.record(&stream)?;
    let d_a = gpujit::to_device_on(a, &stream)?;
    let d_b = gpujit::to_device_on(b, &stream)?;
    let mut d_c = gpujit::device_array::<f32>((n, m))?;
    uploaded.record(&stream)?;
    let grid = (m.div_ceil(TILE), n.div_ceil(TILE));
    matmul_tiled![grid, (TILE, TILE), &stream](&d_a, &d_b, &mut d_c)?;
    computed.record(&stream)?;
    d_c.copy_to_pinned(&mut c, &stream)?;
    downloaded.record(&stream)?;
    stream.synchronize()?;

    let timings = Timings {
        to_device_ms: start.elapsed_time(&uploaded)?,
        kernel_ms: uploaded.elapsed_time(&computed)?,
        to_host_ms: computed.elapsed_time(&downloaded)?,
    };
    Ok((Array2::from_shape_vec((n, m), c.as_slice()?.to_vec())?, timings))
}

#[allow(dead_code)]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(256)?;
    const TOLERANCE: f64 = 1e-4;
    println!("backend: {}", gpujit::detect());
    println!("C = A · B on a stream, A, B {n} x {n} f32; reference: host f64; tolerance {TOLERANCE:e} (relative)");
    let a = test_matrix(n, n, 1);
    let b = test_matrix(n, n, 2);
    let (got, t) = matmul_on_stream(&a, &b)?;
    let reference = a.mapv(f64::from).dot(&b.mapv(f64::from));
    let err = max_rel_error(&got, &reference);
    let matches = err < TOLERANCE;
    let mb = |elems: usize| (elems * std::mem::size_of::<f32>()) as f64 / 1e6;
    println!(
        "to device {:.3} ms ({} GB/s), kernel {:.3} ms ({} GFLOP/s), to pinned host {:.3} ms ({} GB/s)",
        t.to_device_ms,
        per_ms(mb(2 * n * n), t.to_device_ms),
        t.kernel_ms,
        per_ms(2.0 * (n as f64).powi(3) / 1e6, t.kernel_ms),
        t.to_host_ms,
        per_ms(mb(n * n), t.to_host_ms),
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
#[allow(dead_code)]
fn per_ms(amount: f64, ms: f32) -> String {
    if ms > 0.0 {
        format!("{:.2}", amount / f64::from(ms))
    } else {
        "-".to_string()
    }
}
