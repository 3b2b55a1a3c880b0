//! Kernels exercised by `tests/language/semantics/`. They live in one module so that
//! another test can compile every one of them with NVRTC: [`all`] lists the
//! `KERNEL` static of each.

#![allow(dead_code)]

use gpujit::prelude::*;

pub mod adversarial;
pub mod atomics;
pub mod collectives;
pub mod control;
pub mod fixed_arrays;
pub mod int_methods;
pub mod math;
pub mod naming;
pub mod order;
#[path = "../common/reduction.rs"]
mod reduction;
pub mod types;
pub mod warps;

/// A module-level constant used inside kernels.
pub const SCALE: f64 = 2.5;
/// Block size of the shared-memory reduction kernels.
pub use reduction::RED_THREADS;
/// Tile edge of the shared-memory transpose.
pub const TR_TILE: usize = 16;

// ---------------------------------------------------------------- indices

/// `out[i] = grid(1)`, plus the same value recomputed from the intrinsics.
#[gpu_kernel]
pub fn global_index(out: &mut [u64], manual: &mut [u64]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = i as u64;
        manual[i] = (block_idx().x * block_dim().x + thread_idx().x) as u64;
    }
}

/// `out[0] = b * d + t` in `usize` (the index math of `grid(1)` with scalars).
#[gpu_kernel]
pub fn usize_index_math(b: usize, d: usize, t: usize, out: &mut [u64]) {
    if grid(1) == 0 {
        out[0] = (b * d + t) as u64;
    }
}

/// For every thread of a 3-D launch: its `grid(3)`, `gridsize(3)`,
/// `thread_idx`, `block_idx`, `block_dim`, `grid_dim` (18 values), stored at
/// its linear global index `(z * ny + y) * nx + x`.
#[gpu_kernel]
pub fn coords3(info: &mut [u64]) {
    let (x, y, z) = grid(3);
    let (nx, ny, nz) = gridsize(3);
    let lin = (z * ny + y) * nx + x;
    let o = lin * 18;
    if o + 18 <= info.len() {
        info[o] = x as u64;
        info[o + 1] = y as u64;
        info[o + 2] = z as u64;
        info[o + 3] = nx as u64;
        info[o + 4] = ny as u64;
        info[o + 5] = nz as u64;
        info[o + 6] = thread_idx().x as u64;
        info[o + 7] = thread_idx().y as u64;
        info[o + 8] = thread_idx().z as u64;
        info[o + 9] = block_idx().x as u64;
        info[o + 10] = block_idx().y as u64;
        info[o + 11] = block_idx().z as u64;
        info[o + 12] = block_dim().x as u64;
        info[o + 13] = block_dim().y as u64;
        info[o + 14] = block_dim().z as u64;
        info[o + 15] = grid_dim().x as u64;
        info[o + 16] = grid_dim().y as u64;
        info[o + 17] = grid_dim().z as u64;
    }
}

/// `out[[y, x]] = y * 1000 + x` for a 2-D grid, using `let (x, y) = grid(2)`
/// and `gridsize(2)` (written at the transposed place for threads outside).
#[gpu_kernel]
pub fn coords2(out: ArrayViewMut2<u32>, sizes: &mut [u32]) {
    let (x, y) = grid(2);
    let (rows, cols) = out.dim();
    if y < rows && x < cols {
        out[[y, x]] = (y * 1000 + x) as u32;
    }
    if x == 0 && y == 0 {
        let (gx, gy) = gridsize(2);
        sizes[0] = gx as u32;
        sizes[1] = gy as u32;
        sizes[2] = gridsize(1) as u32;
    }
}

// ---------------------------------------------------------------- literals

/// `out[i] = x[i] * 0.1` with `f32` data: the literal is an `f32`.
#[gpu_kernel]
pub fn scale_tenth_f32(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = x[i] * 0.1;
    }
}

/// `out[i] = x[i] * 0.1` with `f64` data: the literal stays a double.
#[gpu_kernel]
pub fn scale_tenth_f64(x: &[f64], out: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = x[i] * 0.1;
    }
}

/// `x[i] = 0.7` into an `f32` array.
#[gpu_kernel]
pub fn store_seven_tenths(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = 0.7;
    }
}

// ---------------------------------------------------------------- integer wrapping

/// Per input pair: `+ - * neg << >> abs` wrapping like Rust's `wrapping_*`.
#[gpu_kernel]
pub fn wrap_i32(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 7;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = -x;
        out[o + 4] = x << y;
        out[o + 5] = x >> y;
        out[o + 6] = x.abs();
    }
}

/// Per input pair: `+ - * << >>` on `u32`.
#[gpu_kernel]
pub fn wrap_u32(a: &[u32], b: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 5;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x << y;
        out[o + 4] = x >> y;
    }
}

/// Per input pair: `+ - * << >>` on `u8` (no promotion to int).
#[gpu_kernel]
pub fn wrap_u8(a: &[u8], b: &[u8], out: &mut [u8]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 6;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x << y;
        out[o + 4] = x >> y;
        let mut acc = x;
        acc += 200;
        acc *= 3;
        out[o + 5] = acc;
    }
}

/// Per input pair: `+ - * neg << >>` on `i64`.
#[gpu_kernel]
pub fn wrap_i64(a: &[i64], b: &[i64], out: &mut [i64]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 6;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = -x;
        out[o + 4] = x << y;
        out[o + 5] = x >> y;
    }
}

/// Per input pair: `+ - * << >>` on `u64`.
#[gpu_kernel]
pub fn wrap_u64(a: &[u64], b: &[u64], out: &mut [u64]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 5;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x << y;
        out[o + 4] = x >> y;
    }
}

// ---------------------------------------------------------------- casts

/// `f32 as` every integer type (Rust's saturating casts).
#[gpu_kernel]
pub fn cast_f32(x: &[f32], oi32: &mut [i32], ou32: &mut [u32], oi64: &mut [i64], ou64: &mut [u64], ou8: &mut [u8]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        oi32[i] = v as i32;
        ou32[i] = v as u32;
        oi64[i] = v as i64;
        ou64[i] = v as u64;
        ou8[i] = v as u8;
    }
}

/// `f64 as` every integer type (Rust's saturating casts).
#[gpu_kernel]
pub fn cast_f64(x: &[f64], oi32: &mut [i32], ou32: &mut [u32], oi64: &mut [i64], ou64: &mut [u64], ou8: &mut [u8]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        oi32[i] = v as i32;
        ou32[i] = v as u32;
        oi64[i] = v as i64;
        ou64[i] = v as u64;
        ou8[i] = v as u8;
    }
}

/// Integer-to-integer and integer-to-float casts (truncation, sign extension).
#[gpu_kernel]
pub fn cast_ints(
    x: &[i64],
    ou8: &mut [u8],
    oi32: &mut [i32],
    ou32: &mut [u32],
    ou64: &mut [u64],
    of32: &mut [f32],
    of64: &mut [f64],
) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        ou8[i] = v as u8;
        oi32[i] = v as i32;
        ou32[i] = v as u32;
        ou64[i] = (v as i32) as u64;
        of32[i] = v as f32;
        of64[i] = (v as u64) as f64;
    }
}

// ---------------------------------------------------------------- division

/// `q = a / b`, `r = a % b` on `i32`.
#[gpu_kernel]
pub fn divrem_i32(a: &[i32], b: &[i32], q: &mut [i32], r: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
    }
}

/// `q = a / b`, `r = a % b` on `i64`.
#[gpu_kernel]
pub fn divrem_i64(a: &[i64], b: &[i64], q: &mut [i64], r: &mut [i64]) {
    let i = grid(1);
    if i < a.len() {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
    }
}

/// `q = a / b`, `r = a % b` on `u32`, and `/=`, `%=` on `u8`.
#[gpu_kernel]
pub fn divrem_u(a: &[u32], b: &[u32], q: &mut [u32], r: &mut [u32], q8: &mut [u8]) {
    let i = grid(1);
    if i < a.len() {
        q[i] = a[i] / b[i];
        r[i] = a[i] % b[i];
        let mut v = a[i] as u8;
        v /= b[i] as u8;
        q8[i] = v;
    }
}

// ---------------------------------------------------------------- faults

/// Every thread writes its own slot, but thread `bad_t` of block `bad_b`
/// writes `out.len() + 3`.
#[gpu_kernel]
pub fn oob_write(out: &mut [i32], bad_b: usize, bad_t: usize) {
    let i = grid(1);
    if block_idx().x == bad_b && thread_idx().x == bad_t {
        out[out.len() + 3] = -1;
    } else if i < out.len() {
        out[i] = 7;
    }
}

/// Thread `bad` reads one element past the end of `x`.
#[gpu_kernel]
pub fn oob_read(x: &[f32], out: &mut [f32], bad: usize) {
    let i = grid(1);
    if i < out.len() {
        if i == bad {
            out[i] = x[x.len()];
        } else {
            out[i] = x[i];
        }
    }
}

/// Thread 0 reads `a[[row, col]]` of a 2-D array (one axis out of range
/// while the linear offset is inside the array).
#[gpu_kernel]
pub fn oob_2d(a: ArrayView2<i32>, row: usize, col: usize, out: &mut [i32]) {
    if grid(1) == 0 {
        out[0] = a[[row, col]];
    }
}

/// Shared arrays indexed with `i` (1-D, 8 elements) and `[0][j]` (2-D, 4 × 5).
#[gpu_kernel]
pub fn shared_oob(i: usize, j: usize, out: &mut [i32]) {
    let s = shared_array::<[i32; 8]>();
    let t = shared_array::<[[i32; 5]; 4]>();
    if thread_idx().x == 1 {
        s[i] = 5;
        t[0][j] = 6;
    }
    syncthreads();
    if thread_idx().x == 0 {
        out[0] = s[i % 8];
        out[1] = t[0][j % 5];
    }
}

/// `(0..n).step_by(s)` count into `out[0]` (s = 0 is a panic in Rust).
#[gpu_kernel]
pub fn step_count(n: u32, s: usize, out: &mut [u32]) {
    let mut c: u32 = 0;
    for _ in (0..n).step_by(s) {
        c += 1;
    }
    out[0] = c;
}

// ---------------------------------------------------------------- control flow

/// Thread 0: sums and counts over `a..b`, `a..=b`, `(a..b).step_by(s)`,
/// `(a..=b).step_by(s)` for `i32`, as `i64` sums: out = [sum, count] × 4.
#[gpu_kernel]
pub fn ranges_i32(a: i32, b: i32, s: usize, out: &mut [i64]) {
    if grid(1) != 0 {
        return;
    }
    let mut sum: i64 = 0;
    let mut n: i64 = 0;
    for k in a..b {
        sum += k as i64;
        n += 1;
    }
    out[0] = sum;
    out[1] = n;
    sum = 0;
    n = 0;
    for k in a..=b {
        sum += k as i64;
        n += 1;
    }
    out[2] = sum;
    out[3] = n;
    sum = 0;
    n = 0;
    for k in (a..b).step_by(s) {
        sum += k as i64;
        n += 1;
    }
    out[4] = sum;
    out[5] = n;
    sum = 0;
    n = 0;
    for k in (a..=b).step_by(s) {
        sum += k as i64;
        n += 1;
    }
    out[6] = sum;
    out[7] = n;
}

/// The same four loops over `u32`.
#[gpu_kernel]
pub fn ranges_u32(a: u32, b: u32, s: usize, out: &mut [u64]) {
    if grid(1) != 0 {
        return;
    }
    let mut sum: u64 = 0;
    let mut n: u64 = 0;
    for k in a..b {
        sum += k as u64;
        n += 1;
    }
    out[0] = sum;
    out[1] = n;
    sum = 0;
    n = 0;
    for k in a..=b {
        sum += k as u64;
        n += 1;
    }
    out[2] = sum;
    out[3] = n;
    sum = 0;
    n = 0;
    for k in (a..b).step_by(s) {
        sum += k as u64;
        n += 1;
    }
    out[4] = sum;
    out[5] = n;
    sum = 0;
    n = 0;
    for k in (a..=b).step_by(s) {
        sum += k as u64;
        n += 1;
    }
    out[6] = sum;
    out[7] = n;
}

/// Only the two `step_by` loops of [`ranges_i32`] (out = [sum, count] × 2),
/// for ranges too long to walk one by one.
#[gpu_kernel]
pub fn stepped_i32(a: i32, b: i32, s: usize, out: &mut [i64]) {
    if grid(1) != 0 {
        return;
    }
    let mut sum: i64 = 0;
    let mut n: i64 = 0;
    for k in (a..b).step_by(s) {
        sum += k as i64;
        n += 1;
    }
    out[0] = sum;
    out[1] = n;
    sum = 0;
    n = 0;
    for k in (a..=b).step_by(s) {
        sum += k as i64;
        n += 1;
    }
    out[2] = sum;
    out[3] = n;
}

/// Only the two `step_by` loops of [`ranges_u32`].
#[gpu_kernel]
pub fn stepped_u32(a: u32, b: u32, s: usize, out: &mut [u64]) {
    if grid(1) != 0 {
        return;
    }
    let mut sum: u64 = 0;
    let mut n: u64 = 0;
    for k in (a..b).step_by(s) {
        sum += k as u64;
        n += 1;
    }
    out[0] = sum;
    out[1] = n;
    sum = 0;
    n = 0;
    for k in (a..=b).step_by(s) {
        sum += k as u64;
        n += 1;
    }
    out[2] = sum;
    out[3] = n;
}

/// `for` with `continue` and `break`, `while`, `loop` with `break`/`continue`.
/// Per thread `i` (value `v = x[i]`):
/// - out[4i]: sum of `k` in 0..v skipping multiples of 3, stopping at k > 50;
/// - out[4i+1]: Collatz steps of v + 1 (`while`);
/// - out[4i+2]: `loop`: smallest power of two ≥ v, skipping odd rounds via `continue`;
/// - out[4i+3]: count of `k` in `(0..=v).step_by(3)` with `continue` on even `k`.
#[gpu_kernel]
pub fn loops(x: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i >= x.len() {
        return;
    }
    let v = x[i];
    let mut s: u32 = 0;
    for k in 0..v {
        if k % 3 == 0 {
            continue;
        }
        if k > 50 {
            break;
        }
        s += k;
    }
    out[4 * i] = s;

    let mut c = v + 1;
    let mut steps: u32 = 0;
    while c != 1 {
        if c % 2 == 0 {
            c /= 2;
        } else {
            c = 3 * c + 1;
        }
        steps += 1;
    }
    out[4 * i + 1] = steps;

    let mut p: u32 = 1;
    let mut round: u32 = 0;
    loop {
        round += 1;
        if p >= v {
            break;
        }
        if round % 2 == 1 {
            continue;
        }
        p *= 2;
    }
    out[4 * i + 2] = p;

    let mut odd: u32 = 0;
    for k in (0..=v).step_by(3) {
        if k % 2 == 0 {
            continue;
        }
        odd += 1;
    }
    out[4 * i + 3] = odd;
}

/// `out[i] = 1`, then even threads return before `out[i] = 2`.
#[gpu_kernel]
pub fn early_return(out: &mut [i32]) {
    let i = grid(1);
    if i >= out.len() {
        return;
    }
    out[i] = 1;
    if i % 2 == 0 {
        return;
    }
    out[i] = 2;
}

/// if / else-if chains, `if` as an expression, shadowing, body and module
/// constants, `f32::MAX`, `std::f64::consts::PI`.
#[gpu_kernel]
pub fn branches(x: &[i32], cls: &mut [i32], val: &mut [f64], big: &mut [f32]) {
    const OFFSET: i32 = 3;
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        if v < 0 {
            cls[i] = -1;
        } else if v == 0 {
            cls[i] = 0;
        } else if v < 10 {
            cls[i] = 1;
        } else {
            cls[i] = 2;
        }
        let w = if v % 2 == 0 {
            v / 2
        } else if v > 0 {
            v * 3 + 1
        } else {
            OFFSET
        };
        let v = w + OFFSET;
        let v = v as f64 * SCALE;
        let mut r = 0.0;
        {
            // An inner scope shadowing `v` does not leak out of it.
            let v = v + std::f64::consts::PI;
            r = v * 2.0;
        }
        let v = r - v;
        val[i] = v;
        big[i] = if v > 0.0 { f32::MAX } else { f32::MIN_POSITIVE };
    }
}

/// `b[[i, j, k]] = 2 a[[i, j, k]] + 100 i + 10 j + k`, and `sizes` =
/// `a.dim()`, `a.shape()`, `a.len()`, `b.len()`.
#[gpu_kernel]
pub fn arrays3d(a: ArrayView3<f32>, b: ArrayViewMut3<f32>, sizes: &mut [u64]) {
    let (k, j, i) = grid(3);
    let (d0, d1, d2) = a.dim();
    if i < d0 && j < d1 && k < d2 {
        b[[i, j, k]] = 2.0 * a[[i, j, k]] + (100 * i + 10 * j + k) as f32;
    }
    if i == 0 && j == 0 && k == 0 {
        sizes[0] = d0 as u64;
        sizes[1] = d1 as u64;
        sizes[2] = d2 as u64;
        sizes[3] = a.shape()[0] as u64;
        sizes[4] = a.shape()[1] as u64;
        sizes[5] = a.shape()[2] as u64;
        sizes[6] = a.len() as u64;
        sizes[7] = b.len() as u64;
        sizes[8] = b.dim().2 as u64;
    }
}

/// Math methods on `f64`: 13 results per element.
#[gpu_kernel]
pub fn math_f64(x: &[f64], y: &[f64], out: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 13;
        out[o] = a.abs().sqrt();
        out[o + 1] = a.abs();
        out[o + 2] = a.min(b);
        out[o + 3] = a.max(b);
        out[o + 4] = a.mul_add(b, 0.25);
        out[o + 5] = a.floor();
        out[o + 6] = a.ceil();
        out[o + 7] = (a / 4.0).exp();
        out[o + 8] = a.abs().ln();
        out[o + 9] = a.sin();
        out[o + 10] = a.cos();
        out[o + 11] = a.abs().powf(b);
        out[o + 12] = a.powi(3);
    }
}

/// Math methods on `f32`: 13 results per element.
#[gpu_kernel]
pub fn math_f32(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 13;
        out[o] = a.abs().sqrt();
        out[o + 1] = a.abs();
        out[o + 2] = a.min(b);
        out[o + 3] = a.max(b);
        out[o + 4] = a.mul_add(b, 0.25);
        out[o + 5] = a.floor();
        out[o + 6] = a.ceil();
        out[o + 7] = (a / 4.0).exp();
        out[o + 8] = a.abs().ln();
        out[o + 9] = a.sin();
        out[o + 10] = a.cos();
        out[o + 11] = a.abs().powf(b);
        out[o + 12] = a.powi(3);
    }
}

/// Integer `min`, `max`, `abs` on `i32` and `u64`.
#[gpu_kernel]
pub fn math_int(a: &[i32], b: &[i32], out: &mut [i32], ua: &[u64], ub: &[u64], uout: &mut [u64]) {
    let i = grid(1);
    if i < a.len() {
        out[3 * i] = a[i].min(b[i]);
        out[3 * i + 1] = a[i].max(b[i]);
        out[3 * i + 2] = a[i].abs();
        uout[2 * i] = ua[i].min(ub[i]);
        uout[2 * i + 1] = ua[i].max(ub[i]);
    }
}

/// Scalar parameters of every type; `bool` flags drive the branches.
#[gpu_kernel]
pub fn scalars(
    flag: bool,
    neg: bool,
    a: i64,
    b: u64,
    c: usize,
    d: u32,
    e: i32,
    f: u8,
    g: f32,
    h: f64,
    oi: &mut [i64],
    ou: &mut [u64],
    of: &mut [f64],
) {
    let i = grid(1);
    if i < oi.len() {
        let k = i as i64;
        let mut v = a * k + e as i64;
        if flag && !neg {
            v += 1;
        } else if flag || neg {
            v -= 1;
        }
        oi[i] = if neg { -v } else { v };
        ou[i] = b + (c * i) as u64 + d as u64 + f as u64;
        of[i] = g as f64 * k as f64 + h;
    }
}

// ---------------------------------------------------------------- shared memory

/// One partial sum per block: shared array, halving strides, a barrier each step.
#[gpu_kernel]
pub fn block_sum_i64(x: &[i64], partial: &mut [i64]) {
    let cache = shared_array::<[i64; RED_THREADS]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0 };
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

/// Block votes: per block, how many values are positive, whether all are
/// below 100, whether any is zero; then rounds of a `syncthreads_or` loop.
#[gpu_kernel]
pub fn votes(x: &[i32], out: &mut [u32]) {
    let i = grid(1);
    let v = x[i];
    let positive = syncthreads_count(v > 0);
    let small = syncthreads_and(v < 100);
    let mut rounds: u32 = 0;
    let mut k: i32 = 0;
    while syncthreads_or(k < v % 7) {
        rounds += 1;
        k += 1;
    }
    if syncthreads_or(v == 0) {
        rounds += 1000;
    }
    out[i] = positive * 100000 + (small as u32) * 10000 + rounds * 10 + k as u32;
}

/// A vote inside an expression and a `continue` out of a voting loop: the
/// CPU backend runs this one as coroutines.
#[gpu_kernel]
pub fn votes_nested(x: &[i32], out: &mut [u32]) {
    let i = grid(1);
    let mut rounds: u32 = 0;
    let mut k: i32 = 0;
    while syncthreads_or(k < x[i] % 5) {
        rounds += 1;
        if k >= x[i] % 5 {
            continue;
        }
        k += 1;
    }
    out[i] = syncthreads_count(k > 1) * 100 + rounds;
}

/// The same reduction in `f32` with a `for` loop over the halving steps
/// (shared with the path tests `narrowed` and `split_spans`).
pub use reduction::block_sum_f32;

/// `out = inp^T` through a TR_TILE × (TR_TILE + 1) shared tile.
#[gpu_kernel]
pub fn transpose(inp: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let tile = shared_array::<[[f32; TR_TILE + 1]; TR_TILE]>();
    let (rows, cols) = inp.dim();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let x = block_idx().x * TR_TILE + tx;
    let y = block_idx().y * TR_TILE + ty;
    if y < rows && x < cols {
        tile[ty][tx] = inp[[y, x]];
    }
    syncthreads();
    let ox = block_idx().y * TR_TILE + tx;
    let oy = block_idx().x * TR_TILE + ty;
    if oy < cols && ox < rows {
        out[[oy, ox]] = tile[tx][ty];
    }
}

/// In a 4×4×4 block: every thread stores its linear id in `s[z][y][x]`, then
/// reads the mirrored thread's slot `s[3-z][3-y][3-x]`.
#[gpu_kernel]
pub fn mirror3d(out: &mut [u32]) {
    let s = shared_array::<[[[u32; 4]; 4]; 4]>();
    let t = thread_idx();
    let lin = (t.z * 4 + t.y) * 4 + t.x;
    s[t.z][t.y][t.x] = (lin + 1000 * block_idx().x) as u32;
    syncthreads();
    out[block_idx().x * 64 + lin] = s[3 - t.z][3 - t.y][3 - t.x];
}

// ---------------------------------------------------------------- &mut arguments

/// `y = a x + y` in place.
#[gpu_kernel]
pub fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// `out[i] = inp[i] * 3 + i`.
#[gpu_kernel]
pub fn step(inp: &[i64], out: &mut [i64]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = inp[i] * 3 + i as i64;
    }
}

/// Trip count of `opaque_loops`, used only with literals in the kernel.
pub const ITERS: usize = 5;

/// Loops bounded only by literals and an outside constant: the loop
/// variable's type is known to rustc alone (CUDA C takes it from the bound).
#[gpu_kernel]
pub fn opaque_loops(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        let mut v = x[i];
        for _ in 0..ITERS {
            v *= 0.5;
        }
        for _ in (1..=ITERS).step_by(2) {
            v += 1.0;
        }
        x[i] = v;
    }
}

// ---------------------------------------------------------------- faults and run-away kernels

/// Thread 0 of each block counts the iterations of `(0..1).step_by(s)`, the
/// other threads of `(0..1).step_by(1)`: with `s == 0` only thread 0 faults.
#[gpu_kernel]
pub fn step_zero_thread0(s: usize, out: &mut [u32]) {
    let i = grid(1);
    let step = if thread_idx().x == 0 { s } else { 1 };
    let mut c: u32 = 0;
    for _ in (0..1).step_by(step) {
        c += 1;
    }
    out[i] = c;
}

/// As [`step_zero_thread0`] with inclusive `i32` and `u8` ranges (the latter
/// ending at `u8::MAX`) around a barrier: 1 + 251 iterations at step 1.
#[gpu_kernel]
pub fn step_zero_sync(s: usize, out: &mut [u32]) {
    let i = grid(1);
    let step = if thread_idx().x == 0 { s } else { 1 };
    let mut c: u32 = 0;
    for _ in (0i32..=0).step_by(step) {
        c += 1;
    }
    syncthreads();
    for _ in (5u8..=255).step_by(step) {
        c += 1;
    }
    out[i] = c;
}

/// Every thread faults exactly once, by `kind`: 0 a `step_by(0)` loop, 1 an
/// out-of-bounds read, 2 an integer division by zero, 3 one of those by
/// `grid(1) % 3`. Each thread then writes `out[i] = 1`.
#[gpu_kernel]
pub fn every_thread_faults(kind: u32, a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    let k = if kind == 3 { (i % 3) as u32 } else { kind };
    let mut v: u32 = 1;
    if k == 0 {
        for _ in (0..4).step_by(k as usize) {
            v += 1;
        }
    } else if k == 1 {
        v += a[a.len() + i];
    } else {
        v += 7 / (k - 2);
    }
    out[i] = v;
}

/// [`every_thread_faults`] with a barrier before and after the fault.
#[gpu_kernel]
pub fn every_thread_faults_sync(kind: u32, a: &[u32], out: &mut [u32]) {
    let i = grid(1);
    let k = if kind == 3 { (i % 3) as u32 } else { kind };
    let mut v: u32 = 1;
    syncthreads();
    if k == 0 {
        for _ in (0..4).step_by(k as usize) {
            v += 1;
        }
    } else if k == 1 {
        v += a[a.len() + i];
    } else {
        v += 7 / (k - 2);
    }
    syncthreads();
    out[i] = v;
}

/// `usize::MAX`, for [`opaque_arith`].
pub const BIG_USIZE: usize = usize::MAX;
/// `i32::MIN`, for [`opaque_arith`].
pub const MIN_I32: i32 = i32::MIN;

/// Arithmetic on values whose type only rustc knows (outside constants and
/// what is computed from them alone): wraps, and ÷0 is a fault (one per
/// iteration), never a panic. out = [x, m, sh, q].
#[gpu_kernel]
pub fn opaque_arith(out: &mut [i64]) {
    let mut x = 0;
    let mut m = MIN_I32;
    let mut sh = ITERS;
    let mut q = 1;
    for i in 0..ITERS {
        x = x + i * BIG_USIZE;
        m = -m;
        m = m.abs();
        sh = sh << (BIG_USIZE >> 58);
        q = q / (i * 0);
    }
    out[0] = x as i64;
    out[1] = m as i64;
    out[2] = sh as i64;
    out[3] = q as i64;
}

/// Never ends: a `loop` without `break`.
#[gpu_kernel]
pub fn spin_loop(out: &mut [u32]) {
    let i = grid(1);
    loop {
        if i < out.len() {
            out[i] += 1;
        }
    }
}

/// Never ends: a `while` whose condition never changes (`out[0]` stays 0).
#[gpu_kernel]
pub fn spin_while(out: &mut [u32]) {
    let mut n: u32 = 0;
    while out[0] < 1 {
        n += 1;
    }
    out[0] = n;
}

/// Never ends: a `loop` with a `syncthreads()` in it.
#[gpu_kernel]
pub fn spin_sync(out: &mut [u32]) {
    let i = grid(1);
    loop {
        if i < out.len() {
            out[i] += 1;
        }
        syncthreads();
    }
}

/// A short loop per thread (`n` iterations), for huge grids: `out[i]` is
/// `0 + 1 + ... + (n - 1)` where `i < out.len()`.
#[gpu_kernel]
pub fn short_threads(n: u64, out: &mut [u64]) {
    let i = grid(1);
    let mut acc: u64 = 0;
    for k in 0..n {
        acc += k;
    }
    if i < out.len() {
        out[i] = acc;
    }
}

/// Every kernel of this module.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    let mut all = naming::all();
    all.extend(adversarial::all());
    all.extend(atomics::all());
    all.extend(math::all());
    all.extend(int_methods::all());
    all.extend(control::all());
    all.extend(fixed_arrays::all());
    all.extend(types::all());
    all.extend(order::all());
    all.extend(warps::all());
    all.extend(collectives::all());
    all.extend([
        &global_index::KERNEL,
        &usize_index_math::KERNEL,
        &coords3::KERNEL,
        &coords2::KERNEL,
        &scale_tenth_f32::KERNEL,
        &scale_tenth_f64::KERNEL,
        &store_seven_tenths::KERNEL,
        &wrap_i32::KERNEL,
        &wrap_u32::KERNEL,
        &wrap_u8::KERNEL,
        &wrap_i64::KERNEL,
        &wrap_u64::KERNEL,
        &cast_f32::KERNEL,
        &cast_f64::KERNEL,
        &cast_ints::KERNEL,
        &divrem_i32::KERNEL,
        &divrem_i64::KERNEL,
        &divrem_u::KERNEL,
        &oob_write::KERNEL,
        &oob_read::KERNEL,
        &oob_2d::KERNEL,
        &shared_oob::KERNEL,
        &step_count::KERNEL,
        &ranges_i32::KERNEL,
        &ranges_u32::KERNEL,
        &stepped_i32::KERNEL,
        &stepped_u32::KERNEL,
        &loops::KERNEL,
        &early_return::KERNEL,
        &branches::KERNEL,
        &arrays3d::KERNEL,
        &math_f64::KERNEL,
        &math_f32::KERNEL,
        &math_int::KERNEL,
        &scalars::KERNEL,
        &block_sum_i64::KERNEL,
        &block_sum_f32::KERNEL,
        &votes::KERNEL,
        &votes_nested::KERNEL,
        &transpose::KERNEL,
        &mirror3d::KERNEL,
        &axpy::KERNEL,
        &step::KERNEL,
        &opaque_loops::KERNEL,
        &step_zero_thread0::KERNEL,
        &step_zero_sync::KERNEL,
        &every_thread_faults::KERNEL,
        &every_thread_faults_sync::KERNEL,
        &spin_loop::KERNEL,
        &spin_while::KERNEL,
        &spin_sync::KERNEL,
        &short_threads::KERNEL,
        &opaque_arith::KERNEL,
    ]);
    all
}
