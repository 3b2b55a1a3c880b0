//! The workloads of the CPU-backend benchmark (issue #7), shared by
//! `bench/benches/cpu_backend.rs` (criterion) and `bench/examples/cpu_bench.rs` (one
//! table and a chart): each job as a gpujit kernel and as hand-written Rust.
//!
//! Every workload has the same implementations ([`Impl`]):
//! - `Gpujit`: the kernel on the current backend, inputs already on the
//!   "device" (only the launch is timed);
//! - `Serial`: the same job written by hand on slices the plain CPU way,
//!   one core: the kernel's arithmetic in the kernel's order, loops in the
//!   order a CPU wants (matmul as `i-k-j`, saxpy as one pass);
//! - `Rayon`: the same code with rows or elements in parallel;
//! - `TiledRayon` (tiled kernels only): rayon with the kernel's tiling, a
//!   block of the grid per task and its shared memory as local arrays.
//!
//! All of them compute bit for bit the same result: the same floating-point
//! operations in the same order (Rust never contracts `a * b + c`), and the
//! reduction sums integer-valued `f32`s, exact in any order. [`Workload::check`]
//! compares each implementation with the serial one exactly.
//!
//! The kernels of the examples are reused as they are (`loop_test`,
//! `grayscale`, `saxpy`, `matmul`); the others are defined here.
#![allow(dead_code)] // each includer uses part of it

use std::hint::black_box;

use gpujit::prelude::*;
use ndarray::Array3;
use rayon::prelude::*;

#[path = "../../examples/grayscale.rs"]
#[allow(dead_code, unused_imports)]
mod grayscale;
#[path = "../../examples/histogram.rs"]
#[allow(dead_code)]
mod histogram_example;
#[path = "../../examples/loop_test.rs"]
#[allow(dead_code)]
mod loop_test;
#[path = "../../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;
#[path = "../../examples/saxpy.rs"]
#[allow(dead_code)]
mod saxpy_example;

use grayscale::rgb_to_grayscale;
use histogram_example::{histogram, histogram_host, BINS};
use loop_test::{loop_kernel, INNER};
use matmul::{matmul_naive, matmul_tiled, test_matrix, TILE};
use saxpy_example::saxpy;

pub mod spellings;

/// Threads per block of the 1-D kernels, and the reduction's block size.
pub const BLOCK: usize = 256;

/// Blocks of the grid-stride saxpy launch (the "4 blocks × 256").
pub const STRIDE_BLOCKS: usize = 4;

/// The variable that selects [`Sizes::quick`] in [`Sizes::from_env`].
pub const QUICK_VAR: &str = "GPUJIT_BENCH_QUICK";

/// `out[i] = a * x[i] + y[i]`, in place on `y`, one element per thread.
#[gpu_kernel]
pub fn saxpy_one(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// 5-point stencil: the mean of a point and its 4 neighbours inside,
/// a copy of the input on the border.
#[gpu_kernel]
pub fn stencil5(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            out[[y, x]] = 0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]]);
        } else {
            out[[y, x]] = a[[y, x]];
        }
    }
}

/// `partial[b]` = sum of block `b`'s `BLOCK` elements of `x` (zeros past the
/// end), by halving in shared memory with a barrier per step.
#[gpu_kernel]
pub fn block_sum(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; BLOCK]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    for level in 1..9 {
        let stride = BLOCK >> level;
        if tid < stride {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

/// [`block_sum`] as CUDA's samples and Numba's docs spell it: a `while`
/// over a halving mutable `stride` (issue #20's spelling suite).
#[gpu_kernel]
pub fn block_sum_while(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; BLOCK]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut stride = block_dim().x / 2;
    while stride > 0 {
        if tid < stride {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
        stride /= 2;
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

/// Does nothing: the cost of a launch.
#[gpu_kernel]
pub fn empty_kernel() {}

/// The problem sizes of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes {
    /// Threads of the loop test (each runs `INNER` = 10,000 steps).
    pub loop_threads: usize,
    /// Grayscale image, (width, height).
    pub image: (usize, usize),
    /// Elements of both saxpy workloads.
    pub saxpy: usize,
    /// Edge of the stencil's square grid.
    pub stencil: usize,
    /// Matrix edges of the matmul workloads (naive and tiled for each).
    pub matmul: [usize; 2],
    /// Elements of the block reduction.
    pub reduction: usize,
    /// Blocks of the empty launch (one thread each).
    pub empty_blocks: usize,
    /// Bytes counted by the histogram.
    pub histogram: usize,
    /// Bodies of the spelling suite's n-body (`spellings`).
    pub nbody: usize,
}

impl Sizes {
    /// The sizes.
    pub fn full() -> Self {
        Sizes {
            loop_threads: 10_000,
            image: (3840, 2160),
            saxpy: 10_000_000,
            stencil: 4096,
            matmul: [512, 1024],
            reduction: 16 << 20,
            empty_blocks: 1000,
            histogram: 3840 * 2160 * 3,
            nbody: 4096,
        }
    }

    /// A quarter of the work (1/8 for matmul), arrays still larger than
    /// the caches: criterion's whole run in about a minute.
    pub fn quick() -> Self {
        Sizes {
            loop_threads: 2_500,
            image: (1920, 1080),
            saxpy: 2_500_000,
            stencil: 2048,
            matmul: [256, 512],
            reduction: 4 << 20,
            empty_blocks: 1000,
            histogram: 1920 * 1080 * 3,
            nbody: 2048,
        }
    }

    /// Odd sizes that leave partial blocks and tiles everywhere: for tests.
    pub fn tiny() -> Self {
        Sizes {
            loop_threads: 300,
            image: (37, 23),
            saxpy: 1_000 + 7,
            stencil: 45,
            matmul: [20, 37],
            reduction: 3 * BLOCK + 77,
            empty_blocks: 10,
            histogram: 5_000 + 11,
            nbody: 300 + 7,
        }
    }

    /// [`Sizes::quick`] when `GPUJIT_BENCH_QUICK` is set to anything but
    /// `0` or empty, else [`Sizes::full`].
    pub fn from_env() -> Self {
        match std::env::var(QUICK_VAR) {
            Ok(v) if !v.is_empty() && v != "0" => Self::quick(),
            _ => Self::full(),
        }
    }
}

/// One implementation of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Impl {
    Gpujit,
    Serial,
    Rayon,
    TiledRayon,
}

impl Impl {
    /// Column and benchmark name.
    pub fn label(self) -> &'static str {
        match self {
            Impl::Gpujit => "gpujit",
            Impl::Serial => "serial",
            Impl::Rayon => "rayon",
            Impl::TiledRayon => "tiled rayon",
        }
    }
}

const PLAIN: &[Impl] = &[Impl::Gpujit, Impl::Serial, Impl::Rayon];
const TILED: &[Impl] = &[Impl::Gpujit, Impl::Serial, Impl::Rayon, Impl::TiledRayon];

/// What the gpujit time is compared with for a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The faster of `Rayon` and `TiledRayon`.
    BestRayon,
    /// `Rayon` alone (the reduction's plain rayon sum).
    Rayon,
    /// `TiledRayon` alone (the same tiling as the kernel).
    TiledRayon,
}

/// The goal for a workload: gpujit time / reference time ≤ `max_ratio`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Goal {
    pub max_ratio: f64,
    pub against: Against,
}

impl Goal {
    const fn best(max_ratio: f64) -> Self {
        Goal {
            max_ratio,
            against: Against::BestRayon,
        }
    }

    /// No goal in the issue: reported, never "missed".
    const NONE: Goal = Goal {
        max_ratio: f64::INFINITY,
        against: Against::BestRayon,
    };

    /// `≤ 1.1`, `≤ 1.2 vs tiled rayon`, `none`.
    pub fn describe(&self) -> String {
        if self.max_ratio.is_infinite() {
            return "none".into();
        }
        match self.against {
            Against::BestRayon => format!("≤ {}", self.max_ratio),
            Against::Rayon => format!("≤ {} vs rayon sum", self.max_ratio),
            Against::TiledRayon => format!("≤ {} vs tiled rayon", self.max_ratio),
        }
    }
}

/// One job of the benchmark, with its inputs and outputs allocated.
pub trait Workload {
    /// Row name, with the size: `matmul naive n = 512`.
    fn name(&self) -> String;
    /// Short name for the chart.
    fn short(&self) -> String {
        self.name()
    }
    /// The implementations this workload has (`Gpujit` first).
    fn impls(&self) -> &'static [Impl];
    /// The goal.
    fn goal(&self) -> Goal;
    /// Runs `which` once; with `Gpujit`, only the launch.
    fn run(&mut self, which: Impl) -> gpujit::Result<()>;
    /// Runs `which` once from the original inputs and compares its output
    /// with the serial reference, exactly.
    ///
    /// # Errors
    /// A message naming the workload, the implementation and the first
    /// differing element, or a launch error.
    fn check(&mut self, which: Impl) -> Result<(), String>;
}

/// `Ok` when `got == want` element for element, else where they differ.
pub fn compare<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()));
    }
    let wrong = got.iter().zip(want).filter(|(g, w)| g != w).count();
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: {wrong} of {} elements differ from the serial reference; first at {i}: {:?}, expected {:?}",
            got.len(),
            got[i],
            want[i]
        )),
    }
}

fn launch_err(what: &str, e: gpujit::Error) -> String {
    format!("{what}: launch failed: {e}")
}

/// Every workload of the issue at `sizes`, in the order.
///
/// # Errors
/// An allocation or copy to the device that fails.
pub fn all(sizes: &Sizes) -> gpujit::Result<Vec<Box<dyn Workload>>> {
    let mut v: Vec<Box<dyn Workload>> = vec![
        Box::new(LoopTest::new(sizes.loop_threads)?),
        Box::new(Grayscale::new(sizes.image)?),
        Box::new(Saxpy::new(sizes.saxpy, false)?),
        Box::new(Saxpy::new(sizes.saxpy, true)?),
        Box::new(Stencil::new(sizes.stencil)?),
    ];
    for n in sizes.matmul {
        v.push(Box::new(Matmul::new(n, false)?));
    }
    for n in sizes.matmul {
        v.push(Box::new(Matmul::new(n, true)?));
    }
    v.push(Box::new(Reduction::new(sizes.reduction, false)?));
    v.push(Box::new(Reduction::new(sizes.reduction, true)?));
    v.push(Box::new(EmptyLaunch {
        blocks: sizes.empty_blocks,
    }));
    v.push(Box::new(Histogram::new(sizes.histogram)?));
    Ok(v)
}

// ---------------------------------------------------------------- loop test

/// examples/loop_test.rs: `out[i] = Σ_{j < 10,000} (i·j) · 0.1` in f64.
pub struct LoopTest {
    d_out: DeviceArray<f64>,
    out: Vec<f64>,
    reference: Vec<f64>,
}

fn loop_one(i: usize) -> f64 {
    let mut s = 0.0f64;
    for j in 0..INNER {
        s += (i * j) as f64 * 0.1;
    }
    s
}

impl LoopTest {
    pub fn new(n: usize) -> gpujit::Result<Self> {
        Ok(LoopTest {
            d_out: gpujit::zeros::<f64>(n)?,
            out: vec![0.0; n],
            reference: (0..n).map(loop_one).collect(),
        })
    }
}

impl Workload for LoopTest {
    fn name(&self) -> String {
        format!("loop test ({} threads × {} f64 steps)", self.out.len(), INNER)
    }
    fn short(&self) -> String {
        "loop test".into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::best(1.1)
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit => loop_kernel![self.out.len().div_ceil(BLOCK), BLOCK](&mut self.d_out)?,
            Impl::Serial => self.out.iter_mut().enumerate().for_each(|(i, o)| *o = loop_one(i)),
            _ => self.out.par_iter_mut().enumerate().for_each(|(i, o)| *o = loop_one(i)),
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.out.fill(0.0);
        self.d_out = gpujit::zeros::<f64>(self.out.len()).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_out.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.out.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- grayscale

/// examples/grayscale.rs's kernel on a synthetic `(h, w, 3)` image.
pub struct Grayscale {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
    d_rgb: DeviceArray<u8>,
    d_gray: DeviceArray<u8>,
    gray: Vec<u8>,
    reference: Vec<u8>,
}

fn gray_px(px: &[u8]) -> u8 {
    let [r, g, b] = [px[0] as f32, px[1] as f32, px[2] as f32];
    (0.299f32 * r + 0.587f32 * g + 0.114f32 * b) as u8
}

fn gray_serial(rgb: &[u8], gray: &mut [u8]) {
    for (g, px) in gray.iter_mut().zip(rgb.chunks_exact(3)) {
        *g = gray_px(px);
    }
}

impl Grayscale {
    pub fn new((w, h): (usize, usize)) -> gpujit::Result<Self> {
        // Every value 0..=255 in every channel, no simple pattern.
        let rgb = Array3::from_shape_fn((h, w, 3), |(y, x, c)| ((x * 7 + y * 13 + c * 101 + x * y) % 256) as u8);
        let d_rgb = gpujit::to_device(&rgb)?;
        let rgb = rgb.into_raw_vec_and_offset().0;
        let mut reference = vec![0; w * h];
        gray_serial(&rgb, &mut reference);
        Ok(Grayscale {
            w,
            h,
            d_rgb,
            d_gray: gpujit::zeros::<u8>((h, w))?,
            gray: vec![0; w * h],
            rgb,
            reference,
        })
    }
}

impl Workload for Grayscale {
    fn name(&self) -> String {
        format!("grayscale {}×{}", self.w, self.h)
    }
    fn short(&self) -> String {
        "grayscale".into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::best(1.1)
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit => {
                let grid = (self.w.div_ceil(16), self.h.div_ceil(16));
                rgb_to_grayscale![grid, (16, 16)](&self.d_rgb, &mut self.d_gray)?
            }
            Impl::Serial => gray_serial(&self.rgb, &mut self.gray),
            _ => {
                let w = self.w;
                self.gray
                    .par_chunks_mut(w)
                    .zip(self.rgb.par_chunks(3 * w))
                    .for_each(|(g, px)| gray_serial(px, g));
            }
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.gray.fill(0);
        self.d_gray = gpujit::zeros::<u8>((self.h, self.w)).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_gray.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.gray.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- saxpy

/// `y = a·x + y` in place: one element per thread (`saxpy_one`), or
/// examples/saxpy.rs's grid-stride kernel on 4 blocks × 256 threads.
pub struct Saxpy {
    grid_stride: bool,
    x: Vec<f32>,
    y0: Vec<f32>,
    y: Vec<f32>,
    d_x: DeviceArray<f32>,
    d_y: DeviceArray<f32>,
    reference: Vec<f32>,
}

/// The scale: repeated runs make `y` grow by `x / 2` per run, never overflow.
const SAXPY_A: f32 = 0.5;

fn saxpy_serial(x: &[f32], y: &mut [f32]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += SAXPY_A * xi;
    }
}

impl Saxpy {
    pub fn new(n: usize, grid_stride: bool) -> gpujit::Result<Self> {
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25 - 100.0).collect();
        let y0: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 1.5).collect();
        let mut reference = y0.clone();
        saxpy_serial(&x, &mut reference);
        Ok(Saxpy {
            grid_stride,
            d_x: gpujit::to_device(&x)?,
            d_y: gpujit::to_device(&y0)?,
            y: y0.clone(),
            x,
            y0,
            reference,
        })
    }
}

impl Workload for Saxpy {
    fn name(&self) -> String {
        let n = self.x.len();
        if self.grid_stride {
            format!("saxpy {n}, grid-stride, {STRIDE_BLOCKS} blocks × {BLOCK}")
        } else {
            format!("saxpy {n}, one element per thread")
        }
    }
    fn short(&self) -> String {
        if self.grid_stride {
            "saxpy grid-stride"
        } else {
            "saxpy 1 elem/thread"
        }
        .into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::best(if self.grid_stride { 3.0 } else { 1.1 })
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit if self.grid_stride => saxpy![STRIDE_BLOCKS, BLOCK](SAXPY_A, &self.d_x, &mut self.d_y)?,
            Impl::Gpujit => saxpy_one![self.x.len().div_ceil(BLOCK), BLOCK](SAXPY_A, &self.d_x, &mut self.d_y)?,
            Impl::Serial => saxpy_serial(&self.x, &mut self.y),
            _ => self
                .y
                .par_iter_mut()
                .zip(self.x.par_iter())
                .for_each(|(yi, &xi)| *yi += SAXPY_A * xi),
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.y.copy_from_slice(&self.y0);
        self.d_y.copy_from_host(&self.y0).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_y.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.y.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- stencil

/// [`stencil5`] on an `n × n` f32 grid, 16×16 blocks.
pub struct Stencil {
    n: usize,
    a: Vec<f32>,
    d_a: DeviceArray<f32>,
    d_out: DeviceArray<f32>,
    out: Vec<f32>,
    reference: Vec<f32>,
}

fn stencil_row(a: &[f32], n: usize, y: usize, row: &mut [f32]) {
    for (x, o) in row.iter_mut().enumerate() {
        let i = y * n + x;
        *o = if y > 0 && y + 1 < n && x > 0 && x + 1 < n {
            0.2 * (a[i] + a[i - n] + a[i + n] + a[i - 1] + a[i + 1])
        } else {
            a[i]
        };
    }
}

impl Stencil {
    pub fn new(n: usize) -> gpujit::Result<Self> {
        let a: Vec<f32> = (0..n * n).map(|i| ((i * 2654435761) % 4096) as f32 / 64.0).collect();
        let mut reference = vec![0.0; n * n];
        for (y, row) in reference.chunks_mut(n).enumerate() {
            stencil_row(&a, n, y, row);
        }
        Ok(Stencil {
            n,
            d_a: gpujit::to_device(&a)?.reshape((n, n))?,
            d_out: gpujit::zeros::<f32>((n, n))?,
            out: vec![0.0; n * n],
            a,
            reference,
        })
    }
}

impl Workload for Stencil {
    fn name(&self) -> String {
        format!("5-point stencil {0}×{0} f32", self.n)
    }
    fn short(&self) -> String {
        "stencil".into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::best(1.1)
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        let n = self.n;
        match which {
            Impl::Gpujit => {
                let grid = (n.div_ceil(16), n.div_ceil(16));
                stencil5![grid, (16, 16)](&self.d_a, &mut self.d_out)?
            }
            Impl::Serial => {
                for (y, row) in self.out.chunks_mut(n).enumerate() {
                    stencil_row(&self.a, n, y, row);
                }
            }
            _ => {
                let a = &self.a;
                self.out
                    .par_chunks_mut(n)
                    .enumerate()
                    .for_each(|(y, row)| stencil_row(a, n, y, row));
            }
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.out.fill(0.0);
        self.d_out = gpujit::zeros::<f32>((self.n, self.n)).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_out.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.out.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- matmul

/// examples/matmul.rs's kernels, `n × n` f32, 16×16 blocks. Serial and
/// rayon (rows in parallel) are the usual CPU loop order `i-k-j`: each
/// element gets the kernel's products added in the kernel's order (so the
/// same bits), but the inner loop runs along rows of `b` and `c` instead of
/// down a column of `b` — the interchange the issue asks the macro for.
/// Tiled rayon (tiled only) runs the kernel's tiling, one 16-row band of
/// blocks per task.
pub struct Matmul {
    n: usize,
    tiled: bool,
    a: Vec<f32>,
    b: Vec<f32>,
    d_a: DeviceArray<f32>,
    d_b: DeviceArray<f32>,
    d_c: DeviceArray<f32>,
    c: Vec<f32>,
    reference: Vec<f32>,
}

/// Row `row` of `c = a · b` (all `n × n`): `c_row += a[row][i] · b[i]` for
/// `i` in order, the same additions per element as one dot product.
fn matmul_row(a: &[f32], b: &[f32], n: usize, row: usize, c_row: &mut [f32]) {
    c_row.fill(0.0);
    for i in 0..n {
        let a_ri = a[row * n + i];
        for (c, &b_ic) in c_row.iter_mut().zip(&b[i * n..(i + 1) * n]) {
            *c += a_ri * b_ic;
        }
    }
}

/// The rows `by·TILE..` of `c` (`c_band`), as the tiled kernel computes them:
/// for each block of the band, TILE×TILE tiles of `a` and `b` staged in
/// local arrays (zeros outside the matrices), accumulated in tile order.
fn matmul_tiled_band(a: &[f32], b: &[f32], n: usize, by: usize, c_band: &mut [f32]) {
    let mut sa = [[0.0f32; TILE]; TILE];
    let mut sb = [[0.0f32; TILE]; TILE];
    for bx in 0..n.div_ceil(TILE) {
        let mut acc = [[0.0f32; TILE]; TILE];
        for t in 0..n.div_ceil(TILE) {
            for ty in 0..TILE {
                for tx in 0..TILE {
                    let (row, col) = (by * TILE + ty, bx * TILE + tx);
                    let (ka, kb) = (t * TILE + tx, t * TILE + ty);
                    sa[ty][tx] = if row < n && ka < n { a[row * n + ka] } else { 0.0 };
                    sb[ty][tx] = if kb < n && col < n { b[kb * n + col] } else { 0.0 };
                }
            }
            for ty in 0..TILE {
                for tx in 0..TILE {
                    let mut s = acc[ty][tx];
                    for j in 0..TILE {
                        s += sa[ty][j] * sb[j][tx];
                    }
                    acc[ty][tx] = s;
                }
            }
        }
        for (ty, c_row) in c_band.chunks_mut(n).enumerate() {
            for tx in 0..TILE.min(n - bx * TILE) {
                c_row[bx * TILE + tx] = acc[ty][tx];
            }
        }
    }
}

impl Matmul {
    pub fn new(n: usize, tiled: bool) -> gpujit::Result<Self> {
        let a = test_matrix(n, n, 1);
        let b = test_matrix(n, n, 2);
        let (d_a, d_b) = (gpujit::to_device(&a)?, gpujit::to_device(&b)?);
        let (a, b) = (a.into_raw_vec_and_offset().0, b.into_raw_vec_and_offset().0);
        let mut reference = vec![0.0; n * n];
        for (row, c_row) in reference.chunks_mut(n).enumerate() {
            matmul_row(&a, &b, n, row, c_row);
        }
        Ok(Matmul {
            n,
            tiled,
            d_a,
            d_b,
            d_c: gpujit::zeros::<f32>((n, n))?,
            c: vec![0.0; n * n],
            a,
            b,
            reference,
        })
    }
}

impl Workload for Matmul {
    fn name(&self) -> String {
        let kind = if self.tiled {
            "tiled (16×16 shared, 2 syncthreads)"
        } else {
            "naive"
        };
        format!("matmul {kind}, n = {}", self.n)
    }
    fn short(&self) -> String {
        format!("matmul {} {}", if self.tiled { "tiled" } else { "naive" }, self.n)
    }
    fn impls(&self) -> &'static [Impl] {
        if self.tiled {
            TILED
        } else {
            PLAIN
        }
    }
    fn goal(&self) -> Goal {
        if self.tiled {
            Goal {
                max_ratio: 1.2,
                against: Against::TiledRayon,
            }
        } else {
            Goal::best(3.0)
        }
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        let n = self.n;
        let (a, b) = (&self.a, &self.b);
        match which {
            Impl::Gpujit => {
                let grid = (n.div_ceil(TILE), n.div_ceil(TILE));
                if self.tiled {
                    matmul_tiled![grid, (TILE, TILE)](&self.d_a, &self.d_b, &mut self.d_c)?
                } else {
                    matmul_naive![grid, (TILE, TILE)](&self.d_a, &self.d_b, &mut self.d_c)?
                }
            }
            Impl::Serial => {
                for (row, c_row) in self.c.chunks_mut(n).enumerate() {
                    matmul_row(a, b, n, row, c_row);
                }
            }
            Impl::Rayon => self
                .c
                .par_chunks_mut(n)
                .enumerate()
                .for_each(|(row, c_row)| matmul_row(a, b, n, row, c_row)),
            Impl::TiledRayon => self
                .c
                .par_chunks_mut(TILE * n)
                .enumerate()
                .for_each(|(by, band)| matmul_tiled_band(a, b, n, by, band)),
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.c.fill(f32::NAN);
        self.d_c = gpujit::zeros::<f32>((self.n, self.n)).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_c.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.c.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- reduction

/// [`block_sum`]: the sum of every block of 256 `f32`s. Serial and rayon sum
/// each block's slice in order (`iter().sum()`); tiled rayon runs the
/// kernel's halving tree on a local copy of each block.
pub struct Reduction {
    x: Vec<f32>,
    d_x: DeviceArray<f32>,
    d_partial: DeviceArray<f32>,
    partial: Vec<f32>,
    reference: Vec<f32>,
    /// The kernel is [`block_sum_while`], not [`block_sum`].
    while_spelling: bool,
}

fn tree_sum(chunk: &[f32]) -> f32 {
    let mut cache = [0.0f32; BLOCK];
    cache[..chunk.len()].copy_from_slice(chunk);
    let mut stride = BLOCK / 2;
    while stride > 0 {
        for tid in 0..stride {
            cache[tid] += cache[tid + stride];
        }
        stride /= 2;
    }
    cache[0]
}

impl Reduction {
    pub fn new(n: usize, while_spelling: bool) -> gpujit::Result<Self> {
        // Integers in -40..57: every partial sum is exact, in any order.
        let x: Vec<f32> = (0..n).map(|i| ((i * 31) % 97) as f32 - 40.0).collect();
        let reference: Vec<f32> = x.chunks(BLOCK).map(|c| c.iter().sum()).collect();
        Ok(Reduction {
            d_x: gpujit::to_device(&x)?,
            d_partial: gpujit::zeros::<f32>(reference.len())?,
            partial: vec![0.0; reference.len()],
            x,
            reference,
            while_spelling,
        })
    }
}

impl Workload for Reduction {
    fn name(&self) -> String {
        let spelling = if self.while_spelling { " (`while` stride)" } else { "" };
        format!("block reduction in shared memory{spelling}, {} f32", self.x.len())
    }
    fn short(&self) -> String {
        if self.while_spelling {
            "reduction, while".into()
        } else {
            "block reduction".into()
        }
    }
    fn impls(&self) -> &'static [Impl] {
        TILED
    }
    fn goal(&self) -> Goal {
        Goal {
            max_ratio: 1.2,
            against: Against::Rayon,
        }
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit if self.while_spelling => {
                block_sum_while![self.partial.len(), BLOCK](&self.d_x, &mut self.d_partial)?
            }
            Impl::Gpujit => block_sum![self.partial.len(), BLOCK](&self.d_x, &mut self.d_partial)?,
            Impl::Serial => {
                for (p, c) in self.partial.iter_mut().zip(self.x.chunks(BLOCK)) {
                    *p = c.iter().sum();
                }
            }
            Impl::Rayon => self
                .partial
                .par_iter_mut()
                .zip(self.x.par_chunks(BLOCK))
                .for_each(|(p, c)| *p = c.iter().sum()),
            Impl::TiledRayon => self
                .partial
                .par_iter_mut()
                .zip(self.x.par_chunks(BLOCK))
                .for_each(|(p, c)| *p = tree_sum(c)),
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.partial.fill(f32::NAN);
        self.d_partial = gpujit::zeros::<f32>(self.partial.len()).map_err(|e| launch_err(&what, e))?;
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_partial.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.partial.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}

// ---------------------------------------------------------------- empty launch

/// [`empty_kernel`] on `blocks` blocks of one thread, against a loop over as
/// many items (serial, and rayon's `for_each`).
pub struct EmptyLaunch {
    blocks: usize,
}

impl Workload for EmptyLaunch {
    fn name(&self) -> String {
        format!("empty kernel, {} blocks × 1 thread", self.blocks)
    }
    fn short(&self) -> String {
        "empty launch".into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::best(1.2)
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit => empty_kernel![self.blocks, 1]()?,
            Impl::Serial => (0..self.blocks).for_each(|i| {
                black_box(i);
            }),
            _ => (0..self.blocks).into_par_iter().for_each(|i| {
                black_box(i);
            }),
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        // Nothing to compare: the launch must succeed.
        let what = format!("{} ({})", self.name(), which.label());
        self.run(which).map_err(|e| launch_err(&what, e))
    }
}

// ---------------------------------------------------------------- histogram

/// examples/histogram.rs: a 256-bin histogram of bytes with shared-memory
/// atomics per block, merged with global atomics. Serial counts in one
/// array; rayon counts per chunk and adds the chunks' histograms.
pub struct Histogram {
    bytes: Vec<u8>,
    d_bytes: DeviceArray<u8>,
    d_hist: DeviceArray<u32>,
    hist: Vec<u32>,
    reference: Vec<u32>,
}

impl Histogram {
    pub fn new(n: usize) -> gpujit::Result<Self> {
        // Photo-like: smooth runs with noise, most bins used, some far more.
        let bytes: Vec<u8> = (0..n).map(|i| ((i / 97 % 200) + (i * 7919 % 56)) as u8).collect();
        let reference = histogram_host(&bytes);
        Ok(Histogram {
            d_bytes: gpujit::to_device(&bytes)?,
            d_hist: gpujit::zeros::<u32>(BINS)?,
            hist: vec![0; BINS],
            bytes,
            reference,
        })
    }
}

impl Workload for Histogram {
    fn name(&self) -> String {
        format!(
            "histogram, 256 bins, {} bytes (shared-memory atomics)",
            self.bytes.len()
        )
    }
    fn short(&self) -> String {
        "histogram".into()
    }
    fn impls(&self) -> &'static [Impl] {
        PLAIN
    }
    fn goal(&self) -> Goal {
        Goal::NONE
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit => histogram(&self.d_bytes, &mut self.d_hist)?,
            Impl::Serial => self.hist = histogram_host(&self.bytes),
            _ => {
                self.hist = self
                    .bytes
                    .par_chunks(1 << 16)
                    .map(histogram_host)
                    .reduce(|| vec![0; BINS], |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect())
            }
        }
        Ok(())
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        let what = format!("{} ({})", self.name(), which.label());
        self.hist.fill(u32::MAX);
        self.run(which).map_err(|e| launch_err(&what, e))?;
        let got = match which {
            Impl::Gpujit => self.d_hist.copy_to_host().map_err(|e| launch_err(&what, e))?,
            _ => self.hist.clone(),
        };
        compare(&what, &got, &self.reference)
    }
}
