//! The spelling suite (issue #20): eight algorithms, each in the spellings
//! users write (`for`/`while`/`loop`, an `if` guard or an early `return`,
//! `grid()` or a hand-computed index, sizes from `block_dim()` or from a
//! constant). Every spelling of an algorithm computes the same result bit
//! for bit (the same operations in the same order), checked against the
//! host before anything is timed, and is timed against the fastest
//! spelling of its algorithm. Each run also records the CPU path the launch
//! took (`gpujit::__private::last_launch_*`): the spellings marked
//! `same_path` must take the first spelling's, counter for counter
//! (`bench/tests/cpu_bench.rs` checks it in CI).

use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use super::histogram_example::{histogram_256, histogram_host, BINS};
use super::matmul::{matmul_tiled, test_matrix, TILE};
use super::{block_sum, block_sum_while, compare, stencil5, Sizes, BLOCK, STRIDE_BLOCKS};

/// One spelling of an algorithm.
#[derive(Debug, Clone, Copy)]
pub struct Spelling {
    pub label: &'static str,
    /// Whether the CPU backend must run it on the first spelling's path.
    pub same_path: bool,
}

const fn sp(label: &'static str, same_path: bool) -> Spelling {
    Spelling { label, same_path }
}

/// The path counters of the last CPU launch on this OS thread:
/// coroutine, lockstep, merged, narrowed blocks, narrowed loops, span
/// blocks, span loops, row blocks (lockstep rows in registers), inner
/// blocks.
pub type Paths = [usize; 9];

/// The counters of the last CPU launch.
pub fn last_paths() -> Paths {
    use gpujit::__private as p;
    [
        p::last_launch_coroutine_blocks(),
        p::last_launch_lockstep_blocks(),
        p::last_launch_merged_blocks(),
        p::last_launch_narrowed_blocks(),
        p::last_launch_narrowed_loops(),
        p::last_launch_span_blocks(),
        p::last_launch_span_loops(),
        p::last_launch_row_blocks(),
        p::last_launch_inner_blocks(),
    ]
}

/// `paths` in words: the strategies with a non-zero counter.
pub fn describe(paths: &Paths) -> String {
    let names = [
        "coroutines",
        "lockstep",
        "merged",
        "narrowed",
        "narrowed loops",
        "spans",
        "span loops",
        "rows",
        "inner",
    ];
    let parts: Vec<String> = names
        .iter()
        .zip(paths)
        .filter(|(_, n)| **n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if parts.is_empty() {
        "thread loops".into()
    } else {
        parts.join(", ")
    }
}

/// An algorithm in its spellings, with its data on the device.
pub trait Family {
    fn algorithm(&self) -> String;
    fn spellings(&self) -> &'static [Spelling];
    /// Launches spelling `k` (the timed part).
    ///
    /// # Errors
    /// A failed launch.
    fn run(&mut self, k: usize) -> gpujit::Result<()>;
    /// Resets the output before a checked launch (where a launch adds to it).
    ///
    /// # Errors
    /// A failed copy.
    fn clear(&mut self) -> gpujit::Result<()> {
        Ok(())
    }
    /// The output's bits after a launch.
    ///
    /// # Errors
    /// A failed copy.
    fn output(&self) -> gpujit::Result<Vec<u32>>;
    /// The host's result, as bits.
    fn expected(&self) -> Vec<u32>;
    /// Launches spelling `k` and compares its output with the host's.
    ///
    /// # Errors
    /// A failed launch or a different result, in words.
    fn check(&mut self, k: usize) -> Result<(), String> {
        let what = format!("{} ({})", self.algorithm(), self.spellings()[k].label);
        self.clear().map_err(|e| failed(&what, e))?;
        self.run(k).map_err(|e| failed(&what, e))?;
        let got = self.output().map_err(|e| failed(&what, e))?;
        compare(&what, &got, &self.expected())
    }
}

/// The algorithms of the suite, as each family's name begins.
pub const ALGORITHMS: [&str; 8] = [
    "block reduction",
    "grid-stride map",
    "5-point stencil",
    "tiled matmul",
    "histogram",
    "block scan",
    "transpose",
    "n-body",
];

/// Every family at `sizes`.
///
/// # Errors
/// An allocation or copy to the device that fails.
pub fn all(sizes: &Sizes) -> gpujit::Result<Vec<Box<dyn Family>>> {
    Ok(vec![
        Box::new(Reduce::new(sizes.reduction)?),
        Box::new(Map::new(sizes.saxpy)?),
        Box::new(Stencil::new(sizes.stencil)?),
        Box::new(Matmul::new(sizes.matmul[0])?),
        Box::new(Histogram::new(sizes.histogram)?),
        Box::new(Scan::new(sizes.reduction)?),
        Box::new(Transpose::new(sizes.stencil)?),
        Box::new(NBody::new(sizes.nbody)?),
    ])
}

fn failed(what: &str, e: gpujit::Error) -> String {
    format!("{what}: launch failed: {e}")
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

// ---------------------------------------------------------------- reduction

/// `block_sum` with `loop`, a `break` and `>>= 1`, the stride from
/// `block_dim()`.
#[gpu_kernel]
pub fn block_sum_loop(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; BLOCK]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut s = block_dim().x >> 1;
    loop {
        if s == 0 {
            break;
        }
        if tid < s {
            cache[tid] += cache[tid + s];
        }
        syncthreads();
        s >>= 1;
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

struct Reduce {
    d_x: DeviceArray<f32>,
    d_partial: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl Reduce {
    fn new(n: usize) -> gpujit::Result<Self> {
        // Integers: every partial sum is exact, in any order.
        let x: Vec<f32> = (0..n).map(|i| ((i * 31) % 97) as f32 - 40.0).collect();
        Ok(Reduce {
            d_partial: zeros(n.div_ceil(BLOCK))?,
            reference: x.chunks(BLOCK).map(|c| c.iter().sum()).collect(),
            d_x: to_device(&x)?,
        })
    }
}

impl Family for Reduce {
    fn algorithm(&self) -> String {
        format!("block reduction, {} f32", self.d_x.len())
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`for level in 1..9`", true),
            sp("`while stride > 0`, `/= 2`", true),
            sp("`loop` + `break`, `block_dim()`, `>>= 1`", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let blocks = self.d_partial.len();
        let (x, p) = (&self.d_x, &mut self.d_partial);
        match k {
            0 => block_sum![blocks, BLOCK](x, p),
            1 => block_sum_while![blocks, BLOCK](x, p),
            _ => block_sum_loop![blocks, BLOCK](x, p),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_partial.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- grid-stride map

/// `out = a·x + y` over a grid-stride `for .. step_by`.
#[gpu_kernel]
pub fn map_for(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    for i in (grid(1)..out.len()).step_by(gridsize(1)) {
        out[i] = a * x[i] + y[i];
    }
}

/// The same as a `while` (CUDA's samples).
#[gpu_kernel]
pub fn map_while(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let mut i = grid(1);
    while i < out.len() {
        out[i] = a * x[i] + y[i];
        i += gridsize(1);
    }
}

/// As a `loop` with a `break`.
#[gpu_kernel]
pub fn map_loop(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let n = out.len();
    let stride = gridsize(1);
    let mut i = grid(1);
    loop {
        if i >= n {
            break;
        }
        out[i] = a * x[i] + y[i];
        i += stride;
    }
}

/// A `while` with a hand-computed index and stride.
#[gpu_kernel]
pub fn map_hand(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let stride = block_dim().x * grid_dim().x;
    let mut i = block_idx().x * block_dim().x + thread_idx().x;
    while i < out.len() {
        out[i] = a * x[i] + y[i];
        i = i + stride;
    }
}

struct Map {
    d_x: DeviceArray<f32>,
    d_y: DeviceArray<f32>,
    d_out: DeviceArray<f32>,
    reference: Vec<f32>,
}

const MAP_A: f32 = 0.5;

impl Map {
    fn new(n: usize) -> gpujit::Result<Self> {
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25 - 100.0).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 1.5).collect();
        Ok(Map {
            reference: x.iter().zip(&y).map(|(x, y)| MAP_A * x + y).collect(),
            d_x: to_device(&x)?,
            d_y: to_device(&y)?,
            d_out: zeros(n)?,
        })
    }
}

impl Family for Map {
    fn algorithm(&self) -> String {
        format!("grid-stride map, {} f32, {STRIDE_BLOCKS} × {BLOCK}", self.d_x.len())
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`for .. step_by(gridsize(1))`", true),
            sp("`while i < n`, `i += gridsize(1)`", true),
            sp("`loop` + `break`", true),
            sp("`while`, hand-computed index and stride", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let (x, y, out) = (&self.d_x, &self.d_y, &mut self.d_out);
        match k {
            0 => map_for![STRIDE_BLOCKS, BLOCK](MAP_A, x, y, out),
            1 => map_while![STRIDE_BLOCKS, BLOCK](MAP_A, x, y, out),
            2 => map_loop![STRIDE_BLOCKS, BLOCK](MAP_A, x, y, out),
            _ => map_hand![STRIDE_BLOCKS, BLOCK](MAP_A, x, y, out),
        }
    }
    fn clear(&mut self) -> gpujit::Result<()> {
        self.d_out.copy_from_host(&vec![0.0; self.d_out.len()])
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_out.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- stencil

/// `stencil5` with an early `return` for the threads past the grid.
#[gpu_kernel]
pub fn stencil5_return(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y >= h || x >= w {
        return;
    }
    if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
        out[[y, x]] = 0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]]);
    } else {
        out[[y, x]] = a[[y, x]];
    }
}

/// `stencil5` with hand-computed coordinates.
#[gpu_kernel]
pub fn stencil5_hand(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    let (h, w) = out.dim();
    if y < h && x < w {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            out[[y, x]] = 0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]]);
        } else {
            out[[y, x]] = a[[y, x]];
        }
    }
}

/// The 16 × 16 blocks of the 2-D families.
const TILE2: usize = 16;

fn grid2(n: usize) -> ((usize, usize), (usize, usize)) {
    ((n.div_ceil(TILE2), n.div_ceil(TILE2)), (TILE2, TILE2))
}

struct Stencil {
    n: usize,
    d_a: DeviceArray<f32>,
    d_out: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl Stencil {
    fn new(n: usize) -> gpujit::Result<Self> {
        let a = gpujit::ndarray::Array2::from_shape_fn((n, n), |(y, x)| ((y * 7 + x * 3) % 29) as f32 * 0.5);
        let reference = gpujit::ndarray::Array2::from_shape_fn((n, n), |(y, x)| {
            if y > 0 && y + 1 < n && x > 0 && x + 1 < n {
                0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]])
            } else {
                a[[y, x]]
            }
        });
        Ok(Stencil {
            n,
            d_a: to_device(&a.iter().copied().collect::<Vec<f32>>())?.reshape((n, n))?,
            d_out: zeros::<f32>((n, n))?,
            reference: reference.into_iter().collect(),
        })
    }
}

impl Family for Stencil {
    fn algorithm(&self) -> String {
        format!("5-point stencil, {0} × {0} f32", self.n)
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`grid(2)`, `if` guard", true),
            sp("early `return`", true),
            sp("hand-computed coordinates", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let (g, b) = grid2(self.n);
        let (a, out) = (&self.d_a, &mut self.d_out);
        match k {
            0 => stencil5![g, b](a, out),
            1 => stencil5_return![g, b](a, out),
            _ => stencil5_hand![g, b](a, out),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_out.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- tiled matmul

/// `matmul_tiled` with a `while` over the tiles.
#[gpu_kernel]
pub fn matmul_tiled_while(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; TILE]; TILE]>();
    let sb = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    let mut t0 = 0;
    while t0 < k {
        let ka = t0 + tx;
        let kb = t0 + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..TILE {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
        t0 += TILE;
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

/// `matmul_tiled` with the tile edge from `block_dim()`.
#[gpu_kernel]
pub fn matmul_tiled_dim(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; TILE]; TILE]>();
    let sb = shared_array::<[[f32; TILE]; TILE]>();
    let tile = block_dim().x;
    let col = block_idx().x * tile + thread_idx().x;
    let row = block_idx().y * block_dim().y + thread_idx().y;
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + tile - 1) / tile {
        let ka = t * tile + tx;
        let kb = t * tile + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..tile {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

struct Matmul {
    n: usize,
    d_a: DeviceArray<f32>,
    d_b: DeviceArray<f32>,
    d_c: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl Matmul {
    fn new(n: usize) -> gpujit::Result<Self> {
        let (a, b) = (test_matrix(n, n, 1), test_matrix(n, n, 2));
        // The kernels' order: tile by tile, `j` inside a tile; zero
        // padding adds `+ 0.0 * 0.0` terms, which change no bit.
        let reference = gpujit::ndarray::Array2::from_shape_fn((n, n), |(r, c)| {
            let mut acc = 0.0f32;
            for i in 0..n {
                acc += a[[r, i]] * b[[i, c]];
            }
            acc
        });
        Ok(Matmul {
            n,
            d_a: to_device(&a.iter().copied().collect::<Vec<f32>>())?.reshape((n, n))?,
            d_b: to_device(&b.iter().copied().collect::<Vec<f32>>())?.reshape((n, n))?,
            d_c: zeros::<f32>((n, n))?,
            reference: reference.into_iter().collect(),
        })
    }
}

impl Family for Matmul {
    fn algorithm(&self) -> String {
        format!("tiled matmul, n = {}", self.n)
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`for t`, constant `TILE`", true),
            sp("`while t0 < k`, `t0 += TILE`", true),
            sp("tile edge from `block_dim()`, hand-computed index", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let g = (self.n.div_ceil(TILE), self.n.div_ceil(TILE));
        let (a, b, c) = (&self.d_a, &self.d_b, &mut self.d_c);
        match k {
            0 => matmul_tiled![g, (TILE, TILE)](a, b, c),
            1 => matmul_tiled_while![g, (TILE, TILE)](a, b, c),
            _ => matmul_tiled_dim![g, (TILE, TILE)](a, b, c),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_c.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- histogram

/// `histogram_256` with `for .. step_by` loops.
#[gpu_kernel]
pub fn histogram_for(pixels: &[u8], hist: &mut [u32]) {
    let bins = shared_array::<[u32; BINS]>();
    let t = thread_idx().x;
    for b in (t..BINS).step_by(block_dim().x) {
        bins[b] = 0;
    }
    syncthreads();
    for i in (grid(1)..pixels.len()).step_by(gridsize(1)) {
        atomic_add(&mut bins[pixels[i] as usize], 1);
    }
    syncthreads();
    for b in (t..BINS).step_by(block_dim().x) {
        let count = bins[b];
        if count > 0 {
            atomic_add(&mut hist[b], count);
        }
    }
}

/// `histogram_256` with a hand-computed index and stride.
#[gpu_kernel]
pub fn histogram_hand(pixels: &[u8], hist: &mut [u32]) {
    let bins = shared_array::<[u32; BINS]>();
    let t = thread_idx().x;
    let mut b = t;
    while b < BINS {
        bins[b] = 0;
        b += block_dim().x;
    }
    syncthreads();
    let stride = block_dim().x * grid_dim().x;
    let mut i = block_idx().x * block_dim().x + t;
    while i < pixels.len() {
        atomic_add(&mut bins[pixels[i] as usize], 1);
        i += stride;
    }
    syncthreads();
    let mut b = t;
    while b < BINS {
        let count = bins[b];
        if count > 0 {
            atomic_add(&mut hist[b], count);
        }
        b += block_dim().x;
    }
}

struct Histogram {
    d_pixels: DeviceArray<u8>,
    d_hist: DeviceArray<u32>,
    reference: Vec<u32>,
}

impl Histogram {
    fn new(n: usize) -> gpujit::Result<Self> {
        let pixels: Vec<u8> = (0..n).map(|i| ((i * 37 + i / 5) % 251) as u8).collect();
        Ok(Histogram {
            reference: histogram_host(&pixels),
            d_pixels: to_device(&pixels)?,
            d_hist: zeros(BINS)?,
        })
    }
}

impl Family for Histogram {
    fn algorithm(&self) -> String {
        format!("histogram, 256 bins, {} bytes", self.d_pixels.len())
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`while` loops (examples/histogram.rs)", true),
            sp("`for .. step_by` loops", true),
            sp("hand-computed index and stride", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        self.d_hist.copy_from_host(&[0u32; BINS])?;
        // As examples/histogram.rs launches it.
        let blocks = self.d_pixels.len().div_ceil(BINS * 64).clamp(1, 64);
        let (p, h) = (&self.d_pixels, &mut self.d_hist);
        match k {
            0 => histogram_256![blocks, BINS](p, h),
            1 => histogram_for![blocks, BINS](p, h),
            _ => histogram_hand![blocks, BINS](p, h),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        self.d_hist.copy_to_host()
    }
    fn expected(&self) -> Vec<u32> {
        self.reference.clone()
    }
}

// ---------------------------------------------------------------- scan

/// Each block's inclusive prefix sums of its `BLOCK` elements
/// (Hillis-Steele in shared memory), `for d in 0..8`.
#[gpu_kernel]
pub fn scan_for(x: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; BLOCK]>();
    let t = thread_idx().x;
    let i = grid(1);
    buf[t] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    for d in 0..8 {
        let off = 1 << d;
        let v = if t >= off { buf[t - off] } else { 0.0 };
        syncthreads();
        buf[t] += v;
        syncthreads();
    }
    if i < out.len() {
        out[i] = buf[t];
    }
}

/// The same with `while off < block_dim()`, `off *= 2`.
#[gpu_kernel]
pub fn scan_while(x: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; BLOCK]>();
    let t = thread_idx().x;
    let i = grid(1);
    buf[t] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut off = 1;
    while off < block_dim().x {
        let v = if t >= off { buf[t - off] } else { 0.0 };
        syncthreads();
        buf[t] += v;
        syncthreads();
        off *= 2;
    }
    if i < out.len() {
        out[i] = buf[t];
    }
}

/// The same with `loop`, a `break` and `<<= 1`.
#[gpu_kernel]
pub fn scan_loop(x: &[f32], out: &mut [f32]) {
    let buf = shared_array::<[f32; BLOCK]>();
    let t = thread_idx().x;
    let i = grid(1);
    buf[t] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut off = 1;
    loop {
        if off >= BLOCK {
            break;
        }
        let v = if t >= off { buf[t - off] } else { 0.0 };
        syncthreads();
        buf[t] += v;
        syncthreads();
        off <<= 1;
    }
    if i < out.len() {
        out[i] = buf[t];
    }
}

struct Scan {
    d_x: DeviceArray<f32>,
    d_out: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl Scan {
    fn new(n: usize) -> gpujit::Result<Self> {
        // Small integers: every prefix sum is exact, in any order.
        let x: Vec<f32> = (0..n).map(|i| ((i * 13) % 23) as f32 - 11.0).collect();
        let mut reference = Vec::with_capacity(n);
        for chunk in x.chunks(BLOCK) {
            let mut s = 0.0f32;
            reference.extend(chunk.iter().map(|v| {
                s += v;
                s
            }));
        }
        Ok(Scan {
            d_x: to_device(&x)?,
            d_out: zeros(n)?,
            reference,
        })
    }
}

impl Family for Scan {
    fn algorithm(&self) -> String {
        format!("block scan, {} f32", self.d_x.len())
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`for d in 0..8`, `off = 1 << d`", true),
            sp("`while off < block_dim()`, `off *= 2`", true),
            sp("`loop` + `break`, `off <<= 1`", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let blocks = self.d_x.len().div_ceil(BLOCK);
        let (x, out) = (&self.d_x, &mut self.d_out);
        match k {
            0 => scan_for![blocks, BLOCK](x, out),
            1 => scan_while![blocks, BLOCK](x, out),
            _ => scan_loop![blocks, BLOCK](x, out),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_out.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- transpose

/// `out[x][y] = a[y][x]`, `grid(2)` and an `if` guard.
#[gpu_kernel]
pub fn transpose(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = a.dim();
    if y < h && x < w {
        out[[x, y]] = a[[y, x]];
    }
}

/// The same with an early `return`.
#[gpu_kernel]
pub fn transpose_return(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = a.dim();
    if y >= h || x >= w {
        return;
    }
    out[[x, y]] = a[[y, x]];
}

/// The same with hand-computed coordinates.
#[gpu_kernel]
pub fn transpose_hand(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if y < a.dim().0 && x < a.dim().1 {
        out[[x, y]] = a[[y, x]];
    }
}

struct Transpose {
    n: usize,
    d_a: DeviceArray<f32>,
    d_out: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl Transpose {
    fn new(n: usize) -> gpujit::Result<Self> {
        let a = gpujit::ndarray::Array2::from_shape_fn((n, n), |(y, x)| (y * n + x) as f32);
        Ok(Transpose {
            n,
            reference: a.t().iter().copied().collect(),
            d_a: to_device(&a.iter().copied().collect::<Vec<f32>>())?.reshape((n, n))?,
            d_out: zeros::<f32>((n, n))?,
        })
    }
}

impl Family for Transpose {
    fn algorithm(&self) -> String {
        format!("transpose, {0} × {0} f32", self.n)
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`grid(2)`, `if` guard", true),
            sp("early `return`", true),
            sp("hand-computed coordinates", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let (g, b) = grid2(self.n);
        let (a, out) = (&self.d_a, &mut self.d_out);
        match k {
            0 => transpose![g, b](a, out),
            1 => transpose_return![g, b](a, out),
            _ => transpose_hand![g, b](a, out),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_out.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}

// ---------------------------------------------------------------- n-body

/// All pairs on a line: `force[i] = Σ_j d / (d² + ε)^(3/2)`-like, `d =
/// pos[j] - pos[i]`, over `for j in 0..n`.
#[gpu_kernel]
pub fn nbody_for(pos: &[f32], force: &mut [f32]) {
    let i = grid(1);
    if i < pos.len() {
        let p = pos[i];
        let mut acc = 0.0f32;
        for j in 0..pos.len() {
            let d = pos[j] - p;
            let r2 = d * d + 0.01;
            acc += d / (r2 * r2.sqrt());
        }
        force[i] = acc;
    }
}

/// The same with `while j < n`.
#[gpu_kernel]
pub fn nbody_while(pos: &[f32], force: &mut [f32]) {
    let i = grid(1);
    let n = pos.len();
    if i < n {
        let p = pos[i];
        let mut acc = 0.0f32;
        let mut j = 0;
        while j < n {
            let d = pos[j] - p;
            let r2 = d * d + 0.01;
            acc += d / (r2 * r2.sqrt());
            j += 1;
        }
        force[i] = acc;
    }
}

/// The same with an early `return` and a hand-computed index.
#[gpu_kernel]
pub fn nbody_return(pos: &[f32], force: &mut [f32]) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i >= pos.len() {
        return;
    }
    let p = pos[i];
    let mut acc = 0.0f32;
    for j in 0..pos.len() {
        let d = pos[j] - p;
        let r2 = d * d + 0.01;
        acc += d / (r2 * r2.sqrt());
    }
    force[i] = acc;
}

struct NBody {
    d_pos: DeviceArray<f32>,
    d_force: DeviceArray<f32>,
    reference: Vec<f32>,
}

impl NBody {
    fn new(n: usize) -> gpujit::Result<Self> {
        let pos: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.01).collect();
        let reference = pos
            .iter()
            .map(|&p| {
                let mut acc = 0.0f32;
                for &q in &pos {
                    let d = q - p;
                    let r2 = d * d + 0.01;
                    acc += d / (r2 * r2.sqrt());
                }
                acc
            })
            .collect();
        Ok(NBody {
            d_pos: to_device(&pos)?,
            d_force: zeros(n)?,
            reference,
        })
    }
}

impl Family for NBody {
    fn algorithm(&self) -> String {
        format!("n-body (1-D, all pairs), n = {}", self.d_pos.len())
    }
    fn spellings(&self) -> &'static [Spelling] {
        const S: &[Spelling] = &[
            sp("`for j in 0..n`, `if` guard", true),
            sp("`while j < n`", true),
            sp("early `return`, hand-computed index", true),
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        let blocks = self.d_pos.len().div_ceil(BLOCK);
        let (p, f) = (&self.d_pos, &mut self.d_force);
        match k {
            0 => nbody_for![blocks, BLOCK](p, f),
            1 => nbody_while![blocks, BLOCK](p, f),
            _ => nbody_return![blocks, BLOCK](p, f),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        Ok(bits(&self.d_force.copy_to_host()?))
    }
    fn expected(&self) -> Vec<u32> {
        bits(&self.reference)
    }
}
