//! Kernels on the small element types (`i8 i16 u16 bool`): C promotes `i8`,
//! `i16` and `u16` to `int`, so every result must be cast back to wrap as
//! Rust does, and `u16 * u16` must not overflow C's `int`.

use gpujit::prelude::*;

/// Per input pair: `+ - * neg << >> / % ! & | ^`, compound `+= *=`, `abs
/// min max` and an `as i32` on `i8` (`/` and `%` only where `y != 0`).
#[gpu_kernel]
pub fn wrap_i8(a: &[i8], b: &[i8], out: &mut [i8], wide: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = i * 16;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = -x;
        out[o + 4] = x << y;
        out[o + 5] = x >> y;
        if y != 0 {
            out[o + 6] = x / y;
            out[o + 7] = x % y;
        }
        out[o + 8] = !x;
        out[o + 9] = x & y;
        out[o + 10] = x | y;
        out[o + 11] = x ^ y;
        let mut acc = x;
        acc += 100;
        acc *= 3;
        out[o + 12] = acc;
        out[o + 13] = x.abs();
        out[o + 14] = x.min(y);
        out[o + 15] = x.max(y);
        wide[i] = (x * y) as i32 + (x as i32) * (y as i32);
    }
}

/// As [`wrap_i8`] on `i16`.
#[gpu_kernel]
pub fn wrap_i16(a: &[i16], b: &[i16], out: &mut [i16], wide: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = i * 16;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = -x;
        out[o + 4] = x << y;
        out[o + 5] = x >> y;
        if y != 0 {
            out[o + 6] = x / y;
            out[o + 7] = x % y;
        }
        out[o + 8] = !x;
        out[o + 9] = x & y;
        out[o + 10] = x | y;
        out[o + 11] = x ^ y;
        let mut acc = x;
        acc += 30000;
        acc *= 3;
        out[o + 12] = acc;
        out[o + 13] = x.abs();
        out[o + 14] = x.min(y);
        out[o + 15] = x.max(y);
        wide[i] = (x * y) as i32 + (x as i32) * (y as i32);
    }
}

/// As [`wrap_i8`] on `u16` (no negation or `abs`: slots 3 and 13 stay 0);
/// `x * y` up to 65535² would overflow C's `int`.
#[gpu_kernel]
pub fn wrap_u16(a: &[u16], b: &[u16], out: &mut [u16], wide: &mut [u32]) {
    let i = grid(1);
    if i < a.len() {
        let (x, y) = (a[i], b[i]);
        let o = i * 16;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 4] = x << y;
        out[o + 5] = x >> y;
        if y != 0 {
            out[o + 6] = x / y;
            out[o + 7] = x % y;
        }
        out[o + 8] = !x;
        out[o + 9] = x & y;
        out[o + 10] = x | y;
        out[o + 11] = x ^ y;
        let mut acc = x;
        acc += 60000;
        acc *= x;
        out[o + 12] = acc;
        out[o + 14] = x.min(y);
        out[o + 15] = x.max(y);
        wide[i] = (x * y) as u32 + (x as u32) * (y as u32);
    }
}

/// `f as i8`, `f as i16`, `f as u16` (saturating, NaN → 0) and the wrapping
/// `i as i8`, `i as i16`, `i as u16` of `i = f as i32`.
#[gpu_kernel]
pub fn cast_small(f: &[f32], o8: &mut [i8], o16: &mut [i16], ou16: &mut [u16]) {
    let i = grid(1);
    if i < f.len() {
        let x = f[i];
        o8[2 * i] = x as i8;
        o16[2 * i] = x as i16;
        ou16[2 * i] = x as u16;
        let w = x as i32;
        o8[2 * i + 1] = w as i8;
        o16[2 * i + 1] = w as i16;
        ou16[2 * i + 1] = w as u16;
    }
}

/// Scalars of the small types by value: `out[i] = a[i] + s8 + s16 + s16u`
/// in `i32`, and the `bool` flag.
#[gpu_kernel]
pub fn small_scalars(s8: i8, s16: i16, s16u: u16, flag: bool, a: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let base = a[i] + s8 as i32 + s16 as i32 + s16u as i32;
        out[i] = if flag { base } else { -base };
    }
}

/// `bool` arrays in and out: `out[2i] = a ^ b`, `out[2i + 1] = a && !b`, and
/// through a shared `bool` array, each thread's neighbour's `a`.
#[gpu_kernel]
pub fn bool_arrays(a: &[bool], b: &[bool], out: &mut [bool], neighbour: &mut [bool]) {
    let flags = shared_array::<[bool; 64]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    flags[t] = false;
    if i < a.len() {
        flags[t] = a[i];
        out[2 * i] = a[i] ^ b[i];
        out[2 * i + 1] = a[i] && !b[i];
    }
    syncthreads();
    if i < a.len() {
        neighbour[i] = flags[(t + 1) % 64];
    }
}

/// A block sum of `i16`s in a shared `i16` array (wrapping), and `u16`
/// elements of a 2-D view: `grid2[y, x] = (x * y) as u16 * 1000`.
#[gpu_kernel]
pub fn small_shared_and_views(v: &[i16], sums: &mut [i16], grid2: ArrayViewMut2<u16>) {
    let cache = shared_array::<[i16; 64]>();
    let t = thread_idx().x as usize;
    let i = grid(1);
    cache[t] = if i < v.len() { v[i] } else { 0 };
    syncthreads();
    if t == 0 {
        let mut s: i16 = 0;
        for k in 0..64 {
            s += cache[k];
        }
        sums[block_idx().x as usize] = s;
    }
    let (rows, cols) = grid2.dim();
    if i < rows * cols {
        let (y, x) = (i / cols, i % cols);
        grid2[[y, x]] = (x * y) as u16 * 1000;
    }
}

/// Tuple locals: built, copied, swapped, read by field and taken apart:
/// `out[3i..3i + 3]` = `[x * 2 + (x - 1), x - 1 + x * 2 + 7, x * 2 - 1]`.
#[gpu_kernel]
pub fn tuple_locals(x: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let t = (x[i] * 2, x[i] - 1, 7);
        let u = t;
        let (a, b, _) = u;
        let swapped = (t.1, t.0);
        let (c, d) = swapped;
        out[3 * i] = a + b;
        out[3 * i + 1] = c + d + u.2;
        out[3 * i + 2] = swapped.1 + t.1 - x[i] + 1 - 1;
    }
}

/// `p · q` of two tuple parameters.
#[gpu_device]
fn dot2(p: (f32, f32), q: (f32, f32)) -> f32 {
    let (a, b) = q;
    p.0 * a + p.1 * b
}

/// `s * p`, a tuple parameter after a scalar one, passed on to `dot2`.
#[gpu_device]
fn scaled(s: f32, p: (f32, f32)) -> (f32, f32) {
    let n = dot2(p, (0.0, 0.0));
    (p.0 * s + n, p.1 * s)
}

/// Tuples as device-function arguments (a local, a literal, components):
/// `out[2i] = x + 1`, `out[2i + 1] = 3x² + 12`.
#[gpu_kernel]
pub fn tuple_params(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        let t = (x[i], 2.0f32);
        let (u, v) = scaled(3.0, t);
        out[2 * i] = dot2(t, (1.0, 0.5));
        out[2 * i + 1] = dot2((u, v), t);
    }
}

pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &tuple_params::KERNEL,
        &tuple_locals::KERNEL,
        &wrap_i8::KERNEL,
        &wrap_i16::KERNEL,
        &wrap_u16::KERNEL,
        &cast_small::KERNEL,
        &small_scalars::KERNEL,
        &bool_arrays::KERNEL,
        &small_shared_and_views::KERNEL,
    ]
}
