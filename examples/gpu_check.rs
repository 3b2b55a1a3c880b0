//! The measuring half of `scripts/gpu-check.sh` (run that, not this): on the
//! CUDA backend (a GPU, or the driver double when there is none) it
//! - times each example kernel against a hand-written CUDA C kernel of the
//!   same algorithm, compiled by the same NVRTC with the same options
//!   (`gpujit::nvrtc::compile_cubin`) and launched through cudarc directly;
//! - measures grayscale on the photo tiled to 16384×16384 as bandwidth,
//!   against a device-to-device copy of the same traffic;
//! - times the warp-shuffle sum of `examples/reduce.rs` against the same
//!   kernel in CUDA C and as bandwidth against a device-to-device copy;
//! - times an empty kernel's launch against a raw cudarc launch;
//! - times a first launch (NVRTC), a first launch from the disk cache (each
//!   in a fresh process) and a steady-state launch;
//! - launches (1 << 23) + 1 blocks of 256 threads (more than 2³¹), each
//!   comparing `grid(1)` with a 64-bit hand computation;
//! - checks float-to-int casts (saturation, NaN → 0) against Rust's `as`;
//! - checks that the seed kernels give the CPU backend's results bit for bit
//!   (gpujit compiles without FMA contraction, `--fmad=false`), as a
//!   hand-written kernel with `__fmul_rn`/`__fadd_rn` does.
//!
//! Prints one `ROW|check|result|goal|verdict` line per check on stdout and
//! the details to `--details FILE` (else to stderr). On the driver double the sizes are
//! scaled down (said in the rows) and timings are meaningless: their
//! verdicts are `n/a (double)`, while correctness checks count.
//!
//! Run: `GPUJIT_BACKEND=cuda cargo run --release --example gpu_check -- --details FILE`

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig as CuConfig, PushKernelArg};
use gpujit::prelude::*;
use ndarray::{Array2, Array3};

#[path = "grayscale.rs"]
#[allow(dead_code)]
mod grayscale;
#[path = "loop_test.rs"]
#[allow(dead_code)]
mod loop_test;
#[path = "lucas.rs"]
#[allow(dead_code)]
mod lucas_example;
#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul;
#[path = "reduce.rs"]
#[allow(dead_code)]
mod reduce_example;
#[path = "saxpy.rs"]
#[allow(dead_code)]
mod saxpy_example;

use grayscale::rgb_to_grayscale;
use loop_test::loop_kernel;
use lucas_example::lucas;
use matmul::{matmul_naive, matmul_tiled};
use reduce_example::block_sums;
use saxpy_example::saxpy;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One measurement of the check: its title and the function that runs it.
type Step = (&'static str, fn(&mut Check) -> Res<()>);

/// A kernel with nothing to do: launch overhead.
#[gpu_kernel]
fn empty() {}

/// Each of more than 2³¹ threads compares `grid(1)` with the index computed
/// by hand in 64 bits; a block with a mismatch marks itself, and the last
/// thread of the grid writes its index.
#[gpu_kernel]
fn grid_index_check(bad_blocks: &mut [u8], last: &mut [u64]) {
    let i = grid(1);
    let hand = block_idx().x * block_dim().x + thread_idx().x;
    if i != hand {
        bad_blocks[block_idx().x] = 1;
    }
    if i + 1 == gridsize(1) {
        last[0] = i as u64;
    }
}

/// Float-to-int casts of every kind the language has.
#[gpu_kernel]
fn casts(
    x: &[f32],
    d: &[f64],
    i32s: &mut [i32],
    u32s: &mut [u32],
    u8s: &mut [u8],
    i64s: &mut [i64],
    u64s: &mut [u64],
    di32: &mut [i32],
    du64: &mut [u64],
) {
    let k = grid(1);
    if k < x.len() {
        i32s[k] = x[k] as i32;
        u32s[k] = x[k] as u32;
        u8s[k] = x[k] as u8;
        i64s[k] = x[k] as i64;
        u64s[k] = x[k] as u64;
        di32[k] = d[k] as i32;
        du64[k] = d[k] as u64;
    }
}

/// The hand-written kernels: the same algorithms in plain CUDA C, with the
/// parameter names the driver double reads extents from. `_nofma` variants
/// use round-to-nearest intrinsics, which NVRTC never fuses into an FMA.
const RAW: &str = r#"
#if defined(__CUDA_ARCH__)
#define MULF(a, b) __fmul_rn(a, b)
#define ADDF(a, b) __fadd_rn(a, b)
#define MULD(a, b) __dmul_rn(a, b)
#define ADDD(a, b) __dadd_rn(a, b)
#else
#define MULF(a, b) ((a) * (b))
#define ADDF(a, b) ((a) + (b))
#define MULD(a, b) ((a) * (b))
#define ADDD(a, b) ((a) + (b))
#endif
extern "C" __global__ void raw_empty() {}
extern "C" __global__ void raw_block_sums(const float* __restrict__ x, unsigned long long n, float* __restrict__ partial, unsigned long long partial_len) {
    __shared__ float warp_sums[32];
    float v = 0.0f;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) v = ADDF(v, x[i]);
    for (unsigned o = 16; o > 0; o /= 2) v = ADDF(v, __shfl_down_sync(0xffffffffu, v, o));
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (unsigned o = 16; o > 0; o /= 2) s = ADDF(s, __shfl_down_sync(0xffffffffu, s, o));
        if (lane == 0) partial[blockIdx.x] = s;
    }
}
extern "C" __global__ void raw_saxpy(float a, const float* __restrict__ x, unsigned long long x_len, float* __restrict__ y, unsigned long long y_len) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < y_len; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
extern "C" __global__ void raw_saxpy_nofma(float a, const float* __restrict__ x, unsigned long long x_len, float* __restrict__ y, unsigned long long y_len) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < y_len; i += stride) {
        y[i] = ADDF(MULF(a, x[i]), y[i]);
    }
}
extern "C" __global__ void raw_loop(double* __restrict__ out, unsigned long long out_len) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < out_len) {
        double s = 0.0;
        for (unsigned long long j = 0; j < 10000ull; j++) s += (double)(i * j) * 0.1;
        out[i] = s;
    }
}
extern "C" __global__ void raw_loop_nofma(double* __restrict__ out, unsigned long long out_len) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < out_len) {
        double s = 0.0;
        for (unsigned long long j = 0; j < 10000ull; j++) s = ADDD(s, MULD((double)(i * j), 0.1));
        out[i] = s;
    }
}
extern "C" __global__ void raw_lucas(unsigned long long* __restrict__ out, unsigned long long out_len) {
    const unsigned long long n = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n < out_len) {
        unsigned long long a = 2, b = 1;
        for (unsigned long long k = 0; k < n; k++) { const unsigned long long t = a + b; a = b; b = t; }
        out[n] = a;
    }
}
extern "C" __global__ void raw_gray(const unsigned char* __restrict__ rgb, unsigned long long rgb_d0, unsigned long long rgb_d1, unsigned long long rgb_d2, unsigned char* __restrict__ gray, unsigned long long gray_d0, unsigned long long gray_d1) {
    const unsigned long long x = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long y = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (y < gray_d0 && x < gray_d1) {
        const unsigned char* p = rgb + (y * rgb_d1 + x) * 3;
        const float v = 0.299f * (float)p[0] + 0.587f * (float)p[1] + 0.114f * (float)p[2];
        gray[y * gray_d1 + x] = (unsigned char)min(__float2uint_rz(v), 255u);
    }
}
extern "C" __global__ void raw_gray_nofma(const unsigned char* __restrict__ rgb, unsigned long long rgb_d0, unsigned long long rgb_d1, unsigned long long rgb_d2, unsigned char* __restrict__ gray, unsigned long long gray_d0, unsigned long long gray_d1) {
    const unsigned long long x = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long y = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (y < gray_d0 && x < gray_d1) {
        const unsigned char* p = rgb + (y * rgb_d1 + x) * 3;
        const float v = ADDF(ADDF(MULF(0.299f, (float)p[0]), MULF(0.587f, (float)p[1])), MULF(0.114f, (float)p[2]));
        gray[y * gray_d1 + x] = (unsigned char)min(__float2uint_rz(v), 255u);
    }
}
extern "C" __global__ void raw_matmul_naive(const float* __restrict__ a, unsigned long long a_d0, unsigned long long a_d1, const float* __restrict__ b, unsigned long long b_d0, unsigned long long b_d1, float* __restrict__ c, unsigned long long c_d0, unsigned long long c_d1) {
    const unsigned long long col = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long row = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < c_d0 && col < c_d1) {
        float acc = 0.0f;
        for (unsigned long long i = 0; i < a_d1; i++) acc += a[row * a_d1 + i] * b[i * b_d1 + col];
        c[row * c_d1 + col] = acc;
    }
}
extern "C" __global__ void raw_matmul_naive_nofma(const float* __restrict__ a, unsigned long long a_d0, unsigned long long a_d1, const float* __restrict__ b, unsigned long long b_d0, unsigned long long b_d1, float* __restrict__ c, unsigned long long c_d0, unsigned long long c_d1) {
    const unsigned long long col = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long row = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < c_d0 && col < c_d1) {
        float acc = 0.0f;
        for (unsigned long long i = 0; i < a_d1; i++) acc = ADDF(acc, MULF(a[row * a_d1 + i], b[i * b_d1 + col]));
        c[row * c_d1 + col] = acc;
    }
}
extern "C" __global__ void raw_matmul_tiled(const float* __restrict__ a, unsigned long long a_d0, unsigned long long a_d1, const float* __restrict__ b, unsigned long long b_d0, unsigned long long b_d1, float* __restrict__ c, unsigned long long c_d0, unsigned long long c_d1) {
    __shared__ float sa[16][16];
    __shared__ float sb[16][16];
    const unsigned long long col = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long row = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int tx = threadIdx.x, ty = threadIdx.y;
    const unsigned long long n = a_d0, k = a_d1, m = b_d1;
    float acc = 0.0f;
    for (unsigned long long t = 0; t < (k + 15) / 16; t++) {
        const unsigned long long ka = t * 16 + tx, kb = t * 16 + ty;
        sa[ty][tx] = (row < n && ka < k) ? a[row * k + ka] : 0.0f;
        sb[ty][tx] = (kb < k && col < m) ? b[kb * m + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < 16; j++) acc += sa[ty][j] * sb[j][tx];
        __syncthreads();
    }
    if (row < n && col < m) c[row * m + col] = acc;
}
"#;

/// Sizes for a GPU, or scaled down for the driver double.
struct Sizes {
    reps: usize,
    saxpy_n: usize,
    matmul_n: usize,
    gray_side: usize,
    big_side: usize,
    loop_n: usize,
    launches: usize,
    big_grid_blocks: usize,
}

/// One line of the final table.
struct Row {
    check: String,
    result: String,
    goal: String,
    verdict: String,
}

struct Check {
    on_gpu: bool,
    sizes: Sizes,
    rows: Vec<Row>,
    details: String,
    ctx: Arc<CudaContext>,
    raw_stream: Arc<CudaStream>,
    arch: (u32, u32),
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--first-launch") {
        gpujit_examples::exit_on_error(first_launch_child());
        return;
    }
    gpujit_examples::exit_on_error(run());
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let details_path = args
        .iter()
        .position(|a| a == "--details")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let d = gpujit::detect();
    if d.kind != gpujit::BackendKind::Cuda {
        return Err(format!("gpu_check needs the CUDA backend (a GPU, or the driver double: eval \"$(bash scripts/driver-double.sh)\"), got: {d}").into());
    }
    let gpu = gpujit::gpus()?.into_iter().next().ok_or("no GPU listed")?;
    let on_gpu = !gpu.name.contains("driver double");
    let sizes = if on_gpu {
        Sizes {
            reps: 20,
            saxpy_n: 1 << 26,
            matmul_n: 2048,
            gray_side: 4096,
            big_side: 16384,
            loop_n: 10_000,
            launches: 20_000,
            big_grid_blocks: (1 << 23) + 1,
        }
    } else {
        Sizes {
            reps: 3,
            saxpy_n: 1 << 16,
            matmul_n: 48,
            gray_side: 256,
            big_side: 512,
            loop_n: 512,
            launches: 200,
            big_grid_blocks: (1 << 23) + 1,
        }
    };
    let ctx = CudaContext::new(0)?;
    let raw_stream = ctx.new_stream()?;
    let mut c = Check {
        on_gpu,
        sizes,
        rows: Vec::new(),
        details: String::new(),
        ctx,
        raw_stream,
        arch: gpu.compute_capability,
    };
    writeln!(
        c.details,
        "gpu_check on {d}\nGPU 0: {} (sm_{}{}), {} multiprocessors",
        gpu.name, gpu.compute_capability.0, gpu.compute_capability.1, gpu.multiprocessors
    )?;
    writeln!(
        c.details,
        "NVRTC {:?}; {}",
        gpujit::nvrtc::version()?,
        if on_gpu {
            "full sizes"
        } else {
            "driver double: sizes scaled down, timings meaningless"
        }
    )?;

    let steps: [Step; 8] = [
        ("kernels vs hand-written CUDA C", kernels_vs_raw),
        ("grayscale bandwidth", grayscale_bandwidth),
        ("warp-shuffle sum", shuffle_sum),
        ("launch overhead", launch_overhead),
        ("first launch", first_launches),
        ("more than 2^31 threads", big_grid),
        ("float-to-int casts", float_casts),
        ("FMA contraction", fma_effect),
    ];
    for (name, step) in steps {
        eprintln!("gpu_check: {name} ...");
        if let Err(e) = step(&mut c) {
            writeln!(c.details, "{name}: ERROR {e}")?;
            c.row(name, &format!("error: {e}"), "no error", "FAIL".into());
        }
    }
    match details_path {
        Some(path) => std::fs::write(path, &c.details)?,
        None => eprint!("{}", c.details),
    }
    let mut out = std::io::stdout().lock();
    for r in &c.rows {
        writeln!(out, "ROW|{}|{}|{}|{}", r.check, r.result, r.goal, r.verdict)?;
    }
    Ok(())
}

impl Check {
    fn row(&mut self, check: &str, result: &str, goal: &str, verdict: String) {
        self.rows.push(Row {
            check: check.into(),
            result: result.into(),
            goal: goal.into(),
            verdict,
        });
    }

    /// A timing's verdict: meaningless on the double.
    fn timed(&self, ok: bool) -> String {
        match (self.on_gpu, ok) {
            (false, _) => "n/a (double)".into(),
            (true, true) => "pass".into(),
            (true, false) => "FAIL".into(),
        }
    }

    fn size_note(&self, what: String) -> String {
        if self.on_gpu {
            what
        } else {
            format!("{what}, scaled down")
        }
    }

    /// Loads hand-written kernel `entry`, compiled like gpujit's own.
    fn raw(&self, entry: &str) -> Res<CudaFunction> {
        let cubin = gpujit::nvrtc::compile_cubin(RAW, entry, self.arch)?;
        let module = self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin.image))?;
        Ok(module.load_function(entry)?)
    }

    /// Median milliseconds of `reps` runs of `f` between two cudarc events on the raw stream.
    fn time_raw(&self, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
        f()?;
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let (a, b) = (self.ctx.new_event(timing)?, self.ctx.new_event(timing)?);
        let mut t = Vec::new();
        for _ in 0..self.sizes.reps {
            a.record(&self.raw_stream)?;
            f()?;
            b.record(&self.raw_stream)?;
            b.synchronize()?;
            t.push(f64::from(a.elapsed_ms(&b)?));
        }
        Ok(median(t))
    }

    /// The same for gpujit launches on a gpujit stream and events.
    fn time_gpujit(&self, stream: &gpujit::Stream, mut f: impl FnMut() -> gpujit::Result<()>) -> Res<f64> {
        f()?;
        let (a, b) = (gpujit::event()?, gpujit::event()?);
        let mut t = Vec::new();
        for _ in 0..self.sizes.reps {
            a.record(stream)?;
            f()?;
            b.record(stream)?;
            b.synchronize()?;
            t.push(f64::from(a.elapsed_time(&b)?));
        }
        Ok(median(t))
    }

    fn ratio_row(&mut self, kernel: &str, size: String, ours: f64, raw: f64, same: bool) -> Res<()> {
        let ratio = ours / raw;
        writeln!(
            self.details,
            "{kernel} ({size}): gpujit {ours:.4} ms, hand-written {raw:.4} ms, ratio {ratio:.3}, same results: {same}"
        )?;
        // A kernel of a few µs times the launch, not the code: its ratio is
        // noise (lucas: 7 µs, 3% apart one run, 0% another).
        let launch_bound = raw < 0.02;
        let verdict = match (same, launch_bound && self.on_gpu) {
            (false, _) => "FAIL".into(),
            (true, true) => "info (launch-bound)".into(),
            (true, false) => self.timed(ratio <= 1.02),
        };
        let result = format!(
            "{ratio:.3}× ({ours:.3} / {raw:.3} ms){}",
            if same { "" } else { ", RESULTS DIFFER" }
        );
        self.row(
            &format!("{kernel} vs CUDA C ({})", self.size_note(size)),
            &result,
            "≤ 1.02×, same results",
            verdict,
        );
        Ok(())
    }
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn cfg1(blocks: usize, threads: usize) -> CuConfig {
    CuConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn cfg2(w: usize, h: usize, tile: usize) -> CuConfig {
    CuConfig {
        grid_dim: (w.div_ceil(tile) as u32, h.div_ceil(tile) as u32, 1),
        block_dim: (tile as u32, tile as u32, 1),
        shared_mem_bytes: 0,
    }
}

/// A synthetic RGB image.
fn rgb_image(h: usize, w: usize) -> Array3<u8> {
    Array3::from_shape_fn((h, w, 3), |(y, x, c)| ((x * 7 + y * 13 + c * 101) % 256) as u8)
}

// ------------------------------------------------------------------ kernels vs raw

fn kernels_vs_raw(c: &mut Check) -> Res<()> {
    let s = gpujit::stream()?;
    let st = c.raw_stream.clone();

    // saxpy (grid-stride), as the example launches it: 256 threads, blocks to cover n.
    let n = c.sizes.saxpy_n;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 777) as f32).collect();
    let blocks = n.div_ceil(256);
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::to_device(&y0)?;
    let ours = c.time_gpujit(&s, || saxpy![blocks, 256, &s](2.0, &d_x, &mut d_y))?;
    let f = c.raw("raw_saxpy")?;
    let r_x = st.clone_htod(&x)?;
    let mut r_y = st.clone_htod(&y0)?;
    let (nn, a) = (n as u64, 2.0f32);
    let raw = c.time_raw(|| {
        let mut l = st.launch_builder(&f);
        l.arg(&a).arg(&r_x).arg(&nn).arg(&mut r_y).arg(&nn);
        // SAFETY: the arguments follow raw_saxpy's parameter list; both slices hold n floats.
        unsafe { l.launch(cfg1(blocks, 256)) }?;
        Ok(())
    })?;
    // Both ran 1 + reps times from the same start: same results expected.
    let same = d_y.copy_to_host()? == st.clone_dtoh(&r_y)?;
    c.ratio_row("saxpy", format!("n = {n}"), ours, raw, same)?;

    // matmul naive and tiled.
    let n = c.sizes.matmul_n;
    let am = matmul::test_matrix(n, n, 1);
    let bm = matmul::test_matrix(n, n, 2);
    let d_a = gpujit::to_device(&am)?;
    let d_b = gpujit::to_device(&bm)?;
    let mut d_c = gpujit::device_array::<f32>((n, n))?;
    let r_a = st.clone_htod(am.as_slice().ok_or("layout")?)?;
    let r_b = st.clone_htod(bm.as_slice().ok_or("layout")?)?;
    let mut r_c = st.alloc_zeros::<f32>(n * n)?;
    let nn = n as u64;
    let grid = (n.div_ceil(16), n.div_ceil(16));
    for (name, entry, tiled) in [
        ("matmul_naive", "raw_matmul_naive", false),
        ("matmul_tiled", "raw_matmul_tiled", true),
    ] {
        let ours = c.time_gpujit(&s, || {
            if tiled {
                matmul_tiled![grid, (16, 16), &s](&d_a, &d_b, &mut d_c)
            } else {
                matmul_naive![grid, (16, 16), &s](&d_a, &d_b, &mut d_c)
            }
        })?;
        let f = c.raw(entry)?;
        let raw = c.time_raw(|| {
            let mut l = st.launch_builder(&f);
            l.arg(&r_a)
                .arg(&nn)
                .arg(&nn)
                .arg(&r_b)
                .arg(&nn)
                .arg(&nn)
                .arg(&mut r_c)
                .arg(&nn)
                .arg(&nn);
            // SAFETY: the arguments follow the kernel's parameter list; each slice holds n × n floats.
            unsafe { l.launch(cfg2(n, n, 16)) }?;
            Ok(())
        })?;
        let same = d_c.copy_to_host()? == st.clone_dtoh(&r_c)?;
        c.ratio_row(name, format!("{n}×{n}"), ours, raw, same)?;
    }

    // grayscale.
    let side = c.sizes.gray_side;
    let img = rgb_image(side, side);
    let d_rgb = gpujit::to_device(&img)?;
    let mut d_gray = gpujit::device_array::<u8>((side, side))?;
    let ggrid = (side.div_ceil(16), side.div_ceil(16));
    let ours = c.time_gpujit(&s, || rgb_to_grayscale![ggrid, (16, 16), &s](&d_rgb, &mut d_gray))?;
    let f = c.raw("raw_gray")?;
    let r_rgb = st.clone_htod(img.as_slice().ok_or("layout")?)?;
    let mut r_gray = st.alloc_zeros::<u8>(side * side)?;
    let (sd, three) = (side as u64, 3u64);
    let raw = c.time_raw(|| {
        let mut l = st.launch_builder(&f);
        l.arg(&r_rgb)
            .arg(&sd)
            .arg(&sd)
            .arg(&three)
            .arg(&mut r_gray)
            .arg(&sd)
            .arg(&sd);
        // SAFETY: the arguments follow raw_gray's parameter list and the slices' sizes.
        unsafe { l.launch(cfg2(side, side, 16)) }?;
        Ok(())
    })?;
    let same = d_gray.copy_to_host()? == st.clone_dtoh(&r_gray)?;
    c.ratio_row("rgb_to_grayscale", format!("{side}×{side}"), ours, raw, same)?;

    // loop_test's kernel, 64 threads per block.
    let n = c.sizes.loop_n;
    let mut d_out = gpujit::device_array::<f64>(n)?;
    let ours = c.time_gpujit(&s, || loop_kernel![n.div_ceil(64), 64, &s](&mut d_out))?;
    let f = c.raw("raw_loop")?;
    let mut r_out = st.alloc_zeros::<f64>(n)?;
    let nn = n as u64;
    let raw = c.time_raw(|| {
        let mut l = st.launch_builder(&f);
        l.arg(&mut r_out).arg(&nn);
        // SAFETY: the arguments follow raw_loop's parameter list.
        unsafe { l.launch(cfg1(n.div_ceil(64), 64)) }?;
        Ok(())
    })?;
    let same = d_out.copy_to_host()? == st.clone_dtoh(&r_out)?;
    c.ratio_row("loop_kernel", format!("{n} threads"), ours, raw, same)?;

    // lucas, the seed's 41 values (launch-bound).
    let n = 41;
    let mut d_l = gpujit::device_array::<u64>(n)?;
    let ours = c.time_gpujit(&s, || lucas![1, 64, &s](&mut d_l))?;
    let f = c.raw("raw_lucas")?;
    let mut r_l = st.alloc_zeros::<u64>(n)?;
    let nn = n as u64;
    let raw = c.time_raw(|| {
        let mut l = st.launch_builder(&f);
        l.arg(&mut r_l).arg(&nn);
        // SAFETY: the arguments follow raw_lucas's parameter list.
        unsafe { l.launch(cfg1(1, 64)) }?;
        Ok(())
    })?;
    let same = d_l.copy_to_host()? == st.clone_dtoh(&r_l)?;
    c.ratio_row("lucas", "L(0..=40)".into(), ours, raw, same)?;
    Ok(())
}

// ------------------------------------------------------------------ bandwidth

/// Grayscale written for bandwidth: flat arrays, four pixels per thread, so
/// that each thread has 12 loads in flight (one pixel per thread leaves the
/// H200's memory latency-bound, hand-written or not).
#[gpu_kernel]
fn gray_x4(rgb: &[u8], gray: &mut [u8]) {
    let first = grid(1) * 4;
    for p in first..(first + 4).min(gray.len()) {
        let r = rgb[3 * p] as f32;
        let g = rgb[3 * p + 1] as f32;
        let b = rgb[3 * p + 2] as f32;
        gray[p] = (0.299 * r + 0.587 * g + 0.114 * b) as u8;
    }
}

fn grayscale_bandwidth(c: &mut Check) -> Res<()> {
    let side = c.sizes.big_side;
    let photo = grayscale::load_rgb(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/data/astronaut.png"
    )))?;
    let (ph, pw, _) = photo.dim();
    let big = Array3::from_shape_fn((side, side, 3), |(y, x, ch)| photo[[y % ph, x % pw, ch]]);
    let s = gpujit::stream()?;
    let d_rgb = gpujit::to_device(&big)?;
    let mut d_gray = gpujit::device_array::<u8>((side, side))?;
    let grid = (side.div_ceil(16), side.div_ceil(16));
    let t_gray = c.time_gpujit(&s, || rgb_to_grayscale![grid, (16, 16), &s](&d_rgb, &mut d_gray))?;
    let got: Array2<u8> = d_gray.copy_to_ndarray()?;
    let want = grayscale::grayscale_host(&big);
    let differ = got.iter().zip(want.iter()).filter(|(a, b)| a != b).count();
    drop((d_rgb, d_gray));
    let flat_rgb = gpujit::to_device(big.as_slice().ok_or("layout")?)?;
    let mut flat_gray = gpujit::device_array::<u8>(side * side)?;
    let blocks = (side * side).div_ceil(4 * 256);
    let t_x4 = c.time_gpujit(&s, || gray_x4![blocks, 256, &s](&flat_rgb, &mut flat_gray))?;
    let got_x4 = flat_gray.copy_to_host()?;
    let differ_x4 = got_x4.iter().zip(want.iter()).filter(|(a, b)| a != b).count();
    drop((flat_rgb, flat_gray));
    // A device-to-device copy with the same traffic: 4 bytes per pixel (3 read, 1 written).
    let bytes = side * side * 4;
    let st = c.raw_stream.clone();
    let src = st.alloc_zeros::<u8>(bytes / 2)?;
    let mut dst = st.alloc_zeros::<u8>(bytes / 2)?;
    let t_copy = c.time_raw(|| Ok(st.memcpy_dtod(&src, &mut dst)?))?;
    let gb = |ms: f64| bytes as f64 / (ms * 1e6);
    let ratio = gb(t_gray) / gb(t_copy);
    writeln!(c.details, "grayscale {side}×{side} (photo tiled): {t_gray:.4} ms = {:.1} GB/s; device-to-device copy of {} MB: {t_copy:.4} ms = {:.1} GB/s; ratio {:.1}%; {differ} pixels differ from the host reference (FMA: see below)", gb(t_gray), bytes / 2 / 1_000_000, gb(t_copy), 100.0 * ratio)?;
    writeln!(c.details, "grayscale, 4 pixels per thread on flat arrays: {t_x4:.4} ms = {:.1} GB/s ({:.1}% of the copy); {differ_x4} pixels differ", gb(t_x4), 100.0 * gb(t_x4) / gb(t_copy))?;
    let verdict = if differ_x4 == 0 {
        "info".to_string()
    } else {
        "FAIL".to_string()
    };
    c.row(
        &format!(
            "grayscale, 4 pixels per thread ({})",
            c.size_note(format!("{side}×{side}"))
        ),
        &format!(
            "{:.0}% ({:.0} GB/s), {differ_x4} pixels differ",
            100.0 * gb(t_x4) / gb(t_copy),
            gb(t_x4)
        ),
        "(info) 0 differ",
        verdict,
    );
    let result = format!("{:.0}% ({:.0} of {:.0} GB/s)", 100.0 * ratio, gb(t_gray), gb(t_copy));
    let verdict = c.timed(ratio >= 0.85);
    c.row(
        &format!(
            "grayscale bandwidth vs D2D copy ({})",
            c.size_note(format!("{side}×{side}"))
        ),
        &result,
        "≥ 85%",
        verdict,
    );
    Ok(())
}

/// The two-stage warp-shuffle sum of `examples/reduce.rs` (blocks of 256,
/// 256 blocks on a GPU, then one): against the same kernel in CUDA C, and as
/// bandwidth against a device-to-device copy of the input's bytes.
fn shuffle_sum(c: &mut Check) -> Res<()> {
    let n = c.sizes.saxpy_n;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let s = gpujit::stream()?;
    let d_x = gpujit::to_device(&x)?;
    // The example's 256 blocks on a GPU; 8 on the double, which starts an
    // OS thread per CUDA thread.
    let (blocks, threads) = (if c.on_gpu { 256usize } else { 8 }, 256usize);
    let mut partial = gpujit::zeros::<f32>(blocks)?;
    let mut total = gpujit::zeros::<f32>(1)?;
    let ours = c.time_gpujit(&s, || {
        block_sums![blocks, threads, &s](&d_x, &mut partial)?;
        block_sums![1, threads, &s](&partial, &mut total)
    })?;
    let st = c.raw_stream.clone();
    let f = c.raw("raw_block_sums")?;
    let r_x = st.clone_htod(&x)?;
    let mut r_partial = st.alloc_zeros::<f32>(blocks)?;
    let mut r_total = st.alloc_zeros::<f32>(1)?;
    let (nn, bb, one) = (n as u64, blocks as u64, 1u64);
    let raw = c.time_raw(|| {
        let mut l = st.launch_builder(&f);
        l.arg(&r_x).arg(&nn).arg(&mut r_partial).arg(&bb);
        // SAFETY: the arguments follow raw_block_sums's parameter list: `n`
        // floats in, one float per block out.
        unsafe { l.launch(cfg1(blocks, threads)) }?;
        let mut l = st.launch_builder(&f);
        l.arg(&r_partial).arg(&bb).arg(&mut r_total).arg(&one);
        // SAFETY: the same kernel over the `blocks` partial sums, one block.
        unsafe { l.launch(cfg1(1, threads)) }?;
        Ok(())
    })?;
    let same = total.copy_to_host()? == st.clone_dtoh(&r_total)?;
    c.ratio_row("warp-shuffle sum", format!("n = {n}"), ours, raw, same)?;
    let bytes = n * 4;
    let src = st.alloc_zeros::<u8>(bytes / 2)?;
    let mut dst = st.alloc_zeros::<u8>(bytes / 2)?;
    let t_copy = c.time_raw(|| Ok(st.memcpy_dtod(&src, &mut dst)?))?;
    let gb = |ms: f64| bytes as f64 / (ms * 1e6);
    let ratio = gb(ours) / gb(t_copy);
    writeln!(
        c.details,
        "warp-shuffle sum of {n} floats: {ours:.4} ms = {:.1} GB/s; device-to-device copy of the same bytes: {t_copy:.4} ms = {:.1} GB/s; ratio {:.1}%",
        gb(ours),
        gb(t_copy),
        100.0 * ratio
    )?;
    let verdict = c.timed(ratio >= 0.85);
    c.row(
        &format!(
            "warp-shuffle sum bandwidth vs D2D copy ({})",
            c.size_note(format!("n = {n}"))
        ),
        &format!("{:.0}% ({:.0} of {:.0} GB/s)", 100.0 * ratio, gb(ours), gb(t_copy)),
        "≥ 85%",
        verdict,
    );
    Ok(())
}

// ------------------------------------------------------------------ launches

fn launch_overhead(c: &mut Check) -> Res<()> {
    let n = c.sizes.launches;
    empty![1, 1]()?;
    gpujit::synchronize()?;
    let t0 = Instant::now();
    for _ in 0..n {
        empty![1, 1]()?;
    }
    let ours = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    gpujit::synchronize()?;
    let f = c.raw("raw_empty")?;
    let st = c.ctx.default_stream();
    let launch = || -> Res<()> {
        // SAFETY: raw_empty takes no parameters.
        unsafe { st.launch_builder(&f).launch(cfg1(1, 1)) }?;
        Ok(())
    };
    launch()?;
    st.synchronize()?;
    let t0 = Instant::now();
    for _ in 0..n {
        launch()?;
    }
    let raw = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
    st.synchronize()?;
    let ratio = ours / raw;
    writeln!(
        c.details,
        "empty kernel, {n} launches: gpujit {ours:.2} µs, cudarc {raw:.2} µs per launch (host time), ratio {ratio:.3}"
    )?;
    let verdict = c.timed(ratio <= 1.1);
    c.row(
        "empty-kernel launch vs raw cudarc",
        &format!("{ratio:.2}× ({ours:.2} / {raw:.2} µs)"),
        "≤ 1.1×",
        verdict,
    );

    // Steady state: launch and wait.
    let mut t = Vec::new();
    for _ in 0..c.sizes.reps.max(10) {
        let t0 = Instant::now();
        empty![1, 1]()?;
        gpujit::synchronize()?;
        t.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let steady = median(t);
    writeln!(c.details, "steady-state launch + synchronize: {steady:.4} ms")?;
    c.row(
        "steady-state launch + sync",
        &format!("{steady:.3} ms"),
        "(info)",
        "info".into(),
    );
    Ok(())
}

/// Child: opens the GPU, then times the first launch of `empty` (NVRTC or the disk cache, module load).
fn first_launch_child() -> Res<()> {
    let _warm = gpujit::zeros::<u8>(1)?;
    gpujit::synchronize()?;
    let t0 = Instant::now();
    empty![1, 1]()?;
    gpujit::synchronize()?;
    println!("first_launch_ms={}", t0.elapsed().as_secs_f64() * 1e3);
    Ok(())
}

fn first_launches(c: &mut Check) -> Res<()> {
    let dir = tempfile::tempdir()?;
    let mut times = Vec::new();
    for _ in 0..2 {
        let out = Command::new(std::env::current_exe()?)
            .arg("--first-launch")
            .env("GPUJIT_CACHE_DIR", dir.path())
            .env_remove("GPUJIT_CACHE")
            .output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "first-launch child failed: {}{}",
                text,
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        let ms: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("first_launch_ms="))
            .ok_or("no first_launch_ms line")?
            .trim()
            .parse()?;
        times.push(ms);
    }
    writeln!(c.details, "first launch of an empty kernel in a fresh process: {:.2} ms with NVRTC (empty cache), {:.2} ms from the disk cache", times[0], times[1])?;
    c.row(
        "first launch: NVRTC / disk cache",
        &format!("{:.1} / {:.1} ms", times[0], times[1]),
        "(info) cache faster",
        if times[1] < times[0] {
            "info".into()
        } else {
            "check".into()
        },
    );
    Ok(())
}

// ------------------------------------------------------------------ correctness on the device

fn big_grid(c: &mut Check) -> Res<()> {
    let blocks = c.sizes.big_grid_blocks;
    let mut bad = gpujit::zeros::<u8>(blocks)?;
    let mut last = gpujit::zeros::<u64>(1)?;
    let t0 = Instant::now();
    grid_index_check![blocks, 256](&mut bad, &mut last)?;
    let bad_blocks = bad.copy_to_host()?.iter().filter(|&&b| b != 0).count();
    let last = last.copy_to_host()?[0];
    let threads = blocks as u64 * 256;
    let ok = bad_blocks == 0 && last == threads - 1;
    writeln!(c.details, "{blocks} blocks × 256 = {threads} threads in {:.1} ms: {bad_blocks} blocks with a mismatch, last thread's grid(1) = {last} (want {})", t0.elapsed().as_secs_f64() * 1e3, threads - 1)?;
    c.row(
        &format!("grid(1) over {threads} threads"),
        &format!("{bad_blocks} mismatching blocks, last index {last}"),
        "0, 2³¹+255",
        if ok { "pass".into() } else { "FAIL".into() },
    );
    Ok(())
}

fn float_casts(c: &mut Check) -> Res<()> {
    let x: Vec<f32> = vec![
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e20,
        -1e20,
        3e9,
        -3e9,
        2147483647.0,
        4294967296.0,
        255.5,
        256.0,
        -0.9,
        -1.0,
        0.5,
        1e-45,
        1.8446744e19,
        -9.223_372e18,
    ];
    let d: Vec<f64> = x.iter().map(|&v| f64::from(v) * 1.5).collect();
    let n = x.len();
    let (dx, dd) = (gpujit::to_device(&x)?, gpujit::to_device(&d)?);
    let mut o = (
        gpujit::zeros::<i32>(n)?,
        gpujit::zeros::<u32>(n)?,
        gpujit::zeros::<u8>(n)?,
        gpujit::zeros::<i64>(n)?,
        gpujit::zeros::<u64>(n)?,
        gpujit::zeros::<i32>(n)?,
        gpujit::zeros::<u64>(n)?,
    );
    casts![1, 32](
        &dx, &dd, &mut o.0, &mut o.1, &mut o.2, &mut o.3, &mut o.4, &mut o.5, &mut o.6,
    )?;
    let mut wrong = Vec::new();
    let (a, b, cc, e, f, g, h) = (
        o.0.copy_to_host()?,
        o.1.copy_to_host()?,
        o.2.copy_to_host()?,
        o.3.copy_to_host()?,
        o.4.copy_to_host()?,
        o.5.copy_to_host()?,
        o.6.copy_to_host()?,
    );
    for k in 0..n {
        let (v, w) = (x[k], d[k]);
        let want = (v as i32, v as u32, v as u8, v as i64, v as u64, w as i32, w as u64);
        let got = (a[k], b[k], cc[k], e[k], f[k], g[k], h[k]);
        if want != got {
            wrong.push(format!("{v:e} / {w:e}: got {got:?}, Rust gives {want:?}"));
        }
    }
    writeln!(c.details, "float-to-int casts of {n} values (NaN, ±inf, out of range, fractions) to i32 u32 u8 i64 u64 (f32) and i32 u64 (f64): {} differ from Rust's `as`{}", wrong.len(), wrong.iter().map(|w| format!("\n  {w}")).collect::<String>())?;
    let verdict = if wrong.is_empty() { "pass" } else { "FAIL" };
    c.row(
        "float→int saturation, NaN → 0",
        &format!("{} of {n} values differ", wrong.len()),
        "0",
        verdict.into(),
    );
    Ok(())
}

/// Elements of `got` that differ from `want`, and the largest difference.
fn diff<T: Copy + PartialEq + Into<f64>>(got: &[T], want: &[T]) -> (usize, f64) {
    got.iter()
        .zip(want)
        .filter(|(g, w)| g != w)
        .fold((0, 0.0), |(n, m), (g, w)| {
            let d = ((*g).into() - (*w).into()).abs();
            (n + 1, if d > m { d } else { m })
        })
}

fn fma_effect(c: &mut Check) -> Res<()> {
    let st = c.raw_stream.clone();
    let mut lines = Vec::new();
    let mut nofma_exact = true;
    let mut gpujit_exact = true;

    // matmul_naive: the CPU backend's exact f32 arithmetic, in order.
    let n = c.sizes.matmul_n.min(512);
    let am = matmul::test_matrix(n, n, 3);
    let bm = matmul::test_matrix(n, n, 4);
    let host: Vec<f32> = (0..n * n)
        .map(|e| {
            let (row, col) = (e / n, e % n);
            let mut acc = 0.0f32;
            for i in 0..n {
                acc += am[[row, i]] * bm[[i, col]];
            }
            acc
        })
        .collect();
    let d_a = gpujit::to_device(&am)?;
    let d_b = gpujit::to_device(&bm)?;
    let mut d_c = gpujit::device_array::<f32>((n, n))?;
    matmul_naive![(n.div_ceil(16), n.div_ceil(16)), (16, 16)](&d_a, &d_b, &mut d_c)?;
    let ours = diff(&d_c.copy_to_host()?, &host);
    let f = c.raw("raw_matmul_naive_nofma")?;
    let r_a = st.clone_htod(am.as_slice().ok_or("layout")?)?;
    let r_b = st.clone_htod(bm.as_slice().ok_or("layout")?)?;
    let mut r_c = st.alloc_zeros::<f32>(n * n)?;
    let nn = n as u64;
    let mut l = st.launch_builder(&f);
    l.arg(&r_a)
        .arg(&nn)
        .arg(&nn)
        .arg(&r_b)
        .arg(&nn)
        .arg(&nn)
        .arg(&mut r_c)
        .arg(&nn)
        .arg(&nn);
    // SAFETY: the arguments follow raw_matmul_naive_nofma's parameter list; each slice holds n × n floats.
    unsafe { l.launch(cfg2(n, n, 16)) }?;
    let nofma = diff(&st.clone_dtoh(&r_c)?, &host);
    nofma_exact &= nofma.0 == 0;
    gpujit_exact &= ours.0 == 0;
    lines.push(format!("matmul_naive {n}×{n}: gpujit {} of {} elements differ from the CPU backend (max |Δ| {:.2e}); without FMA {} differ", ours.0, n * n, ours.1, nofma.0));

    // grayscale: pixels whose truncation flips.
    let side = c.sizes.gray_side;
    let img = rgb_image(side, side);
    let host = grayscale::grayscale_host(&img);
    let d_rgb = gpujit::to_device(&img)?;
    let mut d_gray = gpujit::device_array::<u8>((side, side))?;
    grayscale::to_grayscale(&d_rgb, &mut d_gray)?;
    let ours = diff(&d_gray.copy_to_host()?, host.as_slice().ok_or("layout")?);
    let f = c.raw("raw_gray_nofma")?;
    let r_rgb = st.clone_htod(img.as_slice().ok_or("layout")?)?;
    let mut r_gray = st.alloc_zeros::<u8>(side * side)?;
    let (sd, three) = (side as u64, 3u64);
    let mut l = st.launch_builder(&f);
    l.arg(&r_rgb)
        .arg(&sd)
        .arg(&sd)
        .arg(&three)
        .arg(&mut r_gray)
        .arg(&sd)
        .arg(&sd);
    // SAFETY: the arguments follow raw_gray_nofma's parameter list and the slices' sizes.
    unsafe { l.launch(cfg2(side, side, 16)) }?;
    let nofma = diff(&st.clone_dtoh(&r_gray)?, host.as_slice().ok_or("layout")?);
    nofma_exact &= nofma.0 == 0;
    gpujit_exact &= ours.0 == 0;
    lines.push(format!(
        "rgb_to_grayscale {side}×{side}: gpujit {} of {} pixels differ (max |Δ| {}); without FMA {} differ",
        ours.0,
        side * side,
        ours.1,
        nofma.0
    ));

    // loop_test: per-thread sums and the seed's total.
    let n = 10_000;
    let host = loop_test::loop_host(n);
    let mut d_out = gpujit::device_array::<f64>(n)?;
    loop_kernel![n.div_ceil(256), 256](&mut d_out)?;
    let got = d_out.copy_to_host()?;
    let ours = diff(&got, &host);
    let total: f64 = got.iter().sum();
    let f = c.raw("raw_loop_nofma")?;
    let mut r_out = st.alloc_zeros::<f64>(n)?;
    let nn = n as u64;
    let mut l = st.launch_builder(&f);
    l.arg(&mut r_out).arg(&nn);
    // SAFETY: the arguments follow raw_loop_nofma's parameter list.
    unsafe { l.launch(cfg1(n.div_ceil(256), 256)) }?;
    let nofma = diff(&st.clone_dtoh(&r_out)?, &host);
    nofma_exact &= nofma.0 == 0;
    gpujit_exact &= ours.0 == 0;
    lines.push(format!("loop_kernel: gpujit {} of {n} sums differ (max |Δ| {:.2e}), total {total:.1} (seed 249950002500000.0); without FMA {} differ", ours.0, ours.1, nofma.0));

    // saxpy: a * x + y is the textbook FMA.
    let n: usize = 1 << 16;
    let x: Vec<f32> = (0..n).map(|i| (i as f32).sqrt() * 0.1).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    let host: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 1.1f32 * x + y).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::to_device(&y)?;
    saxpy![n.div_ceil(256), 256](1.1, &d_x, &mut d_y)?;
    let ours = diff(&d_y.copy_to_host()?, &host);
    let f = c.raw("raw_saxpy_nofma")?;
    let r_x = st.clone_htod(&x)?;
    let mut r_y = st.clone_htod(&y)?;
    let (nn, a) = (n as u64, 1.1f32);
    let mut l = st.launch_builder(&f);
    l.arg(&a).arg(&r_x).arg(&nn).arg(&mut r_y).arg(&nn);
    // SAFETY: the arguments follow raw_saxpy_nofma's parameter list; both slices hold n floats.
    unsafe { l.launch(cfg1(n.div_ceil(256), 256)) }?;
    let nofma = diff(&st.clone_dtoh(&r_y)?, &host);
    nofma_exact &= nofma.0 == 0;
    gpujit_exact &= ours.0 == 0;
    lines.push(format!(
        "saxpy n = {n}: gpujit {} of {n} elements differ (max |Δ| {:.2e}); without FMA {} differ",
        ours.0, ours.1, nofma.0
    ));

    writeln!(
        c.details,
        "No FMA contraction (gpujit compiles with --fmad=false): results against the CPU backend's exact arithmetic:"
    )?;
    for l in &lines {
        writeln!(c.details, "  {l}")?;
    }
    let summary = lines
        .iter()
        .map(|l| {
            l.split(':')
                .next()
                .unwrap_or("")
                .split(' ')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(", ");
    c.row(
        "seed kernels = CPU bit for bit, no FMA (details file)",
        &format!(
            "{summary}: gpujit exact: {}; hand-written no-FMA exact: {}",
            gpujit_examples::verdict(gpujit_exact),
            gpujit_examples::verdict(nofma_exact)
        ),
        "both = CPU bit for bit",
        if nofma_exact && gpujit_exact {
            "pass".into()
        } else {
            "FAIL".into()
        },
    );
    Ok(())
}
