//! Adversarial kernels: valid kernels in the documented language that probe
//! the translation's corners (operator precedence, cast chains, u8 wrapping,
//! empty and extreme ranges, shadowing, outside constants of every type,
//! if-expressions with statements, 3-D launches, extreme scalars).
//! Differential cases are in `tests/agree/adversarial.rs` (`adversarial_kernels_agree`).
//!
//! Kernels listed in [`broken`] instead of [`all`] make the emitted CUDA C fail
//! to compile (NVRTC and/or g++); keeping them out of [`all`] keeps the shared
//! NVRTC and g++ builds green. See the ignored tests in `tests/agree/`.

use gpujit::prelude::*;

pub const ADV_U8: u8 = 200;
pub const ADV_I32: i32 = -5;
pub const ADV_I64: i64 = (1 << 60) + 1;
pub const ADV_U32: u32 = 7;
pub const ADV_U64: u64 = u64::MAX - 2;
pub const ADV_N: usize = 3;
pub const ADV_F32: f32 = 1.1;
pub const ADV_BIG_F32: f32 = 1e10;
pub const ADV_F64: f64 = -2.75;
pub const ADV_FLAG: bool = true;
pub const ADV_INF: f32 = f32::INFINITY;

// ---------------------------------------------------------------- precedence

/// 16 mixes of `i32` operators per element.
#[gpu_kernel]
pub fn adv_prec_i32(a: &[i32], b: &[i32], c: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let w = c[i];
        let o = i * 16;
        out[o] = x << (y & 7) + (w & 7);
        out[o + 1] = ((x & y) == w) as i32;
        out[o + 2] = -x * y;
        out[o + 3] = !x & y;
        out[o + 4] = x - y - w;
        out[o + 5] = x / y / w;
        out[o + 6] = x % y * w;
        out[o + 7] = x - (y - w);
        out[o + 8] = x ^ y | w & x;
        out[o + 9] = (x | y) ^ w;
        out[o + 10] = x >> (y & 31) >> (w & 31);
        out[o + 11] = (x < y) as i32 + (y <= w) as i32 * 2 + ((x == w) | (y != w)) as i32 * 4;
        out[o + 12] = -(x - y);
        out[o + 13] = !(x + y) * 3;
        out[o + 14] = x * -y - -w;
        out[o + 15] = ((x as i64 - y as i64) >> 1) as i32;
    }
}

/// `u8` arithmetic: every result wraps at 8 bits, also in compound assignment.
#[gpu_kernel]
pub fn adv_prec_u8(a: &[u8], b: &[u8], out: &mut [u8]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 14;
        out[o] = x + y * 3;
        out[o + 1] = x - y - 1;
        out[o + 2] = x / y / 2;
        out[o + 3] = (x << 3) >> 3;
        out[o + 4] = !x >> 4;
        out[o + 5] = (x * y) % 7 + 250;
        out[o + 6] = (x - y) / 3;
        out[o + 7] = ((x + y) > 100) as u8;
        out[o + 8] = (x as i32 - y as i32) as u8;
        out[o + 9] = (x ^ 0xff) & y | 1;
        out[o + 10] = -(x as i32) as u8;
        out[o + 11] = x * x * x;
        let mut acc = x;
        acc -= y;
        acc <<= y;
        acc *= y;
        acc >>= 1;
        acc += 255;
        out[o + 12] = acc;
        out[o + 13] = if x + y < x { 1 } else { 0 };
    }
}

/// Boolean operators and comparisons: `&& || ! & | ^` and `==` on bools.
#[gpu_kernel]
pub fn adv_bools(a: &[i32], b: &[i32], flag: bool, out: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let p = x < y;
        let q = x == y || flag && y > 0;
        let r = (x < 0) == (y < 0);
        let mut m = false;
        m |= p;
        m &= !q;
        m ^= r;
        let o = i * 6;
        out[o] = p as i32 + (q as i32) * 2 + (r as i32) * 4 + (m as i32) * 8;
        out[o + 1] = ((x > 0) ^ (y > 0)) as i32;
        out[o + 2] = (!(x >= y) && !flag || r) as i32;
        out[o + 3] = ((x as u32) < 5) as i32;
        out[o + 4] = (ADV_FLAG && p) as i32;
        out[o + 5] = (x as i64 > y as i64 * 2) as i32;
    }
}

// ---------------------------------------------------------------- casts

/// Cast chains from `f64`.
#[gpu_kernel]
pub fn adv_cast_chain(x: &[f64], oi64: &mut [i64], ou32: &mut [u32], of32: &mut [f32], oi32: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        oi64[i] = v as u8 as i32 as f32 as i64;
        ou32[i] = v as f32 as u32;
        of32[i] = (v as i64) as f32;
        oi32[i] = v as u64 as i32;
    }
}

/// Casts from `u64` and `i64` to floats (rounding) and back.
#[gpu_kernel]
pub fn adv_cast_wide(x: &[u64], of32: &mut [f32], of64: &mut [f64], ou64: &mut [u64], oi32: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        of32[2 * i] = v as f32;
        of32[2 * i + 1] = v as i64 as f32;
        of64[2 * i] = v as f64;
        of64[2 * i + 1] = v as i64 as f64;
        ou64[i] = (v as f32) as u64;
        oi32[i] = (v as i32 as u8 as i32) - (v as u32 >> 31) as i32;
    }
}

/// Casts of constants, negative literals and `bool`.
#[gpu_kernel]
pub fn adv_cast_consts(flag: bool, of64: &mut [f64], of32: &mut [f32], ou64: &mut [u64], oi64: &mut [i64]) {
    if grid(1) == 0 {
        of64[0] = i64::MIN as f64;
        of64[1] = u64::MAX as f64;
        of64[2] = std::f64::consts::E;
        of64[3] = f64::MIN_POSITIVE;
        of64[4] = i32::MIN as f64 - 0.5;
        of32[0] = u64::MAX as f32;
        of32[1] = f32::MAX;
        of32[2] = i32::MIN as f32;
        of32[3] = std::f32::consts::PI * 2.0;
        ou64[0] = u64::MAX;
        ou64[1] = -1i32 as u64;
        ou64[2] = f32::MAX as u64;
        ou64[3] = (-1.5f32) as u64;
        ou64[4] = u32::MAX as u64 + 1;
        oi64[0] = i64::MIN;
        oi64[1] = -9223372036854775808i64;
        oi64[2] = -2147483648i32 as i64;
        oi64[3] = flag as i64 - (!flag) as i64 * 7;
        oi64[4] = 300i32 as u8 as i64 + (-129i32) as u8 as i64;
        oi64[5] = (i64::MAX as f64) as i64;
        oi64[6] = 0x7fff_ffffi64 + 0b1010 + 0o17;
        oi64[7] = u32::MAX as i32 as i64;
    }
}

// ---------------------------------------------------------------- loops

/// Unsigned count-downs, nested loops with `break`/`continue`, `loop` exits.
#[gpu_kernel]
pub fn adv_loops(n: &[u32], out: &mut [u32]) {
    let i = grid(1);
    if i < n.len() {
        let v = n[i];
        // Count down with `while` without going below zero.
        let mut k = v;
        let mut acc: u32 = 0;
        while k > 0 {
            k -= 1;
            acc += k * 2 + 1;
        }
        out[4 * i] = acc;
        // Nested loops.
        let mut s: u32 = 0;
        for a in 0..v {
            if a == 2 {
                continue;
            }
            for b in a..v {
                if b > a + 3 {
                    break;
                }
                if (a + b) % 2 == 0 {
                    continue;
                }
                s += a * 10 + b;
            }
            if s > 500 {
                break;
            }
        }
        out[4 * i + 1] = s;
        // `loop` with several exits.
        let mut j: u32 = 0;
        let mut r: u32 = 0;
        loop {
            j += 1;
            if j % 3 == 0 {
                continue;
            }
            r += j;
            if r > v * 4 {
                break;
            }
            if j > 100 {
                r = 7777;
                break;
            }
        }
        out[4 * i + 2] = r * 1000 + j;
        // `while` whose condition reads the array only when in range.
        let mut m = 0;
        while m < n.len() && n[m] != v {
            m += 1;
        }
        out[4 * i + 3] = m as u32;
    }
}

/// Empty, single-step and extreme ranges; out = [sum, count] pairs.
#[gpu_kernel]
pub fn adv_ranges(a: i32, b: i32, out: &mut [i64]) {
    if grid(1) != 0 {
        return;
    }
    let mut o = 0;
    let mut sum: i64 = 0;
    let mut n: i64 = 0;
    for k in b..=a {
        sum += k as i64;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    sum = 0;
    n = 0;
    for k in a..a {
        sum += k as i64;
        n += 1;
    }
    for k in (0..5).step_by(100) {
        sum += k as i64 + 1000;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    sum = 0;
    n = 0;
    for k in -5..-1 {
        sum += k as i64;
        n += 1;
    }
    for k in (-10..=10).step_by(3) {
        sum += k as i64 * 100;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    sum = 0;
    n = 0;
    for k in i32::MIN..i32::MIN + 3 {
        sum += k as i64;
        n += 1;
    }
    for k in (i32::MAX - 2)..=i32::MAX {
        sum += k as i64;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    sum = 0;
    n = 0;
    for k in 250u8..=255 {
        sum += k as i64;
        n += 1;
    }
    for k in (0u8..=255).step_by(7) {
        sum += k as i64;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    sum = 0;
    n = 0;
    for k in (i64::MIN..=i64::MIN + 10).step_by(4) {
        sum += k - i64::MIN;
        n += 1;
    }
    for k in (u64::MAX - 3..=u64::MAX).step_by(2) {
        sum += (u64::MAX - k) as i64;
        n += 1;
    }
    out[o] = sum;
    out[o + 1] = n;
    o += 2;
    // The range is evaluated once, even if its bound changes in the body.
    sum = 0;
    n = 0;
    let mut end = 3;
    for k in 0..end {
        end += k;
        n += 1;
    }
    sum += end as i64;
    out[o] = sum;
    out[o + 1] = n;
}

/// A loop variable shadowing the binding its range is built from.
#[gpu_kernel]
pub fn adv_loop_shadow(start: usize, out: &mut [u64]) {
    if grid(1) == 0 {
        let k = start;
        let mut acc: u64 = 0;
        for k in k..k + 3 {
            acc += k as u64;
        }
        out[0] = acc;
        let i = 2;
        acc = 0;
        for i in 0..i {
            for i in i..i + 2 {
                acc += i as u64 * 10;
            }
        }
        out[1] = acc;
        acc = 0;
        for j in 0..4 {
            let j = j * 2;
            let j = j + 1;
            acc = acc * 10 + j as u64;
        }
        out[2] = acc;
        let v: u64 = 5;
        acc = 0;
        for _ in 0..3 {
            let v = v + acc;
            acc += v;
        }
        out[3] = acc;
    }
}

// ---------------------------------------------------------------- shadowing, deferred init, if-values

/// Shadowing across types and scopes, deferred `let`, mutable parameters.
#[gpu_kernel]
pub fn adv_shadow(mut n: u32, mut f: f32, x: &[i32], out: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        n += i as u32;
        f *= 2.0;
        let v = x[i];
        let v = v as f64 * 0.5;
        let r;
        let q: f32;
        if v > 0.0 {
            r = v;
            q = f;
        } else {
            let v = -v + 1.0;
            r = v * 3.0;
            q = n as f32;
        }
        let v = v > 1.0;
        {
            let r = r + 100.0;
            out[3 * i] = r;
        }
        out[3 * i + 1] = if v { r } else { -r };
        out[3 * i + 2] = q as f64 + n as f64;
    }
}

/// `if` as a value: chains, nesting, statements inside the branches.
#[gpu_kernel]
pub fn adv_if_values(x: &[i32], out: &mut [i32], side: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        let w = if v < 0 {
            v * 2 - 1
        } else if v == 0 {
            100
        } else if v > 10 {
            if v > 1000 {
                1
            } else {
                v
            }
        } else {
            -v
        };
        let z = 1 + (if v % 2 == 0 { 2 } else { 3 }) * 4;
        let u = if v > 5 {
            v + 1
        } else if v > 2 {
            2 * if v > 3 { v } else { -v }
        } else {
            0
        };
        side[i] = if (if v > 0 { v } else { -v }) > 3 { 1 } else { 2 } + if v < 0 { 10 } else { 20 };
        let s = if v > 0 { v.min(5) * (v.min(5) - 1) / 2 } else { -1 };
        out[4 * i] = w;
        out[4 * i + 1] = z;
        out[4 * i + 2] = u;
        out[4 * i + 3] = s;
    }
}

// ---------------------------------------------------------------- arrays

/// 3-D and 2-D views with non-square shapes, `dim()`, `shape()[k]`, `len()`.
#[gpu_kernel]
pub fn adv_nd(a: ArrayView3<i32>, b: ArrayViewMut2<i64>, sizes: &mut [u64]) {
    let (col, row) = grid(2);
    let (rows, cols) = b.dim();
    let (d0, _, d2) = a.dim();
    if row < rows && col < cols {
        let mut s: i64 = 0;
        for k in 0..d2 {
            let j = (col * 2 + 1) % a.shape()[1];
            s += a[[row % d0, j, d2 - 1 - k]] as i64 * (k as i64 + 1);
        }
        b[[row, col]] = s + (row * cols + col) as i64 * 1000;
    }
    if row == 0 && col == 0 {
        sizes[0] = a.len() as u64;
        sizes[1] = b.len() as u64;
        sizes[2] = a.shape()[2] as u64;
        sizes[3] = b.shape()[1] as u64;
        let mut t: u64 = 0;
        for k in 0..a.len() {
            t += k as u64 % 3;
        }
        sizes[4] = t;
    }
}

/// Shared arrays of `u8`, `i64` and `f64` rotated through barriers in a loop.
#[gpu_kernel]
pub fn adv_shared_mix(out8: &mut [u8], out64: &mut [i64], outf: &mut [f64]) {
    let s8 = shared_array::<[u8; 32]>();
    let s64 = shared_array::<[i64; 32]>();
    let sf = shared_array::<[[f64; ADV_N + 1]; 8]>();
    let t = thread_idx().x;
    s8[t] = (t * 37) as u8;
    s64[t] = i64::MAX - t as i64;
    sf[t / 4][t % 4] = t as f64 * 0.1;
    for round in 0..4 {
        syncthreads();
        let a = s8[(t + 1) % 32];
        let b = s64[(t + 31) % 32];
        let c = sf[(t / 4 + 1) % 8][(t + round) % 4];
        syncthreads();
        s8[t] = a + s8[t] * 3;
        s64[t] = b + s64[t] * 7;
        sf[t / 4][t % 4] = c * 1.5 + sf[t / 4][t % 4];
    }
    syncthreads();
    out8[block_idx().x * 32 + t] = s8[t];
    out64[block_idx().x * 32 + t] = s64[t];
    outf[block_idx().x * 32 + t] = sf[t / 4][t % 4];
}

/// 3-D launch: intrinsics kept in locals, a per-block linear id.
#[gpu_kernel]
pub fn adv_dims3(out: &mut [u64]) {
    let t = thread_idx();
    let b = block_idx();
    let bd = block_dim();
    let gd = grid_dim();
    let (x, y, z) = grid(3);
    let (nx, ny, _) = gridsize(3);
    let lin = (z * ny + y) * nx + x;
    let local = (t.z * bd.y + t.y) * bd.x + t.x;
    let blk = (b.z * gd.y + b.y) * gd.x + b.x;
    if lin * 2 + 1 < out.len() {
        out[lin * 2] = (blk * bd.x * bd.y * bd.z + local) as u64;
        out[lin * 2 + 1] = (x * 10000 + y * 100 + z) as u64 ^ (gridsize(1) as u64) << 32;
    }
}

// ---------------------------------------------------------------- constants

/// Outside constants of several types in arithmetic, loop bounds and body consts.
#[gpu_kernel]
pub fn adv_consts(x: &[f64], out: &mut [f64], oi: &mut [i64]) {
    const M: usize = ADV_N * 4 + 1;
    const H: f64 = ADV_F64 / 2.0;
    let i = grid(1);
    if i < x.len() {
        let mut acc = x[i] * ADV_F64 + H;
        for k in 0..ADV_N {
            acc += k as f64;
        }
        for _ in (1..=M).step_by(ADV_N) {
            acc *= 1.5;
        }
        out[i] = acc;
        oi[4 * i] = ADV_U8 as i64 + ADV_I32 as i64 + M as i64;
        oi[4 * i + 1] = ADV_I64 + (ADV_U32 as i64) * (i as i64);
        oi[4 * i + 2] = (ADV_U64 - i as u64) as i64;
        oi[4 * i + 3] = if ADV_FLAG { (ADV_F32 as f64 * 10.0) as i64 } else { 0 };
    }
}

/// Outside constants whose type only rustc knows, in expressions that nothing
/// else types: `u8` shifts and `!`, an `f32` times an unsuffixed literal.
#[gpu_kernel]
pub fn adv_opaque_int(out: &mut [u32]) {
    if grid(1) == 0 {
        out[0] = (ADV_U8 << 1) as u32;
        out[1] = (!ADV_U8) as u32;
        let s = ADV_U8 << 2;
        out[2] = s as u32;
        out[3] = if (ADV_U8 << 1) > 150 { 1 } else { 0 };
    }
}

/// An `f32` outside constant times an unsuffixed float literal.
#[gpu_kernel]
pub fn adv_opaque_float(out: &mut [f64]) {
    if grid(1) == 0 {
        let y = ADV_F32 * 0.1;
        out[0] = y as f64;
        out[1] = (ADV_F32 / 3.0) as f64;
    }
}

/// Methods on outside constants: `sqrt` of an `f32`, `abs`/`max` of integers.
#[gpu_kernel]
pub fn adv_opaque_math(out: &mut [f64], oi: &mut [i64]) {
    if grid(1) == 0 {
        out[0] = ADV_F32.sqrt() as f64;
        out[1] = (ADV_I32.abs() / 2) as f64;
        oi[0] = ADV_I64.max(0) as i64;
        oi[1] = ADV_I32.min(3) as i64;
    }
}

/// Float-to-integer casts of outside constants (Rust saturates).
#[gpu_kernel]
pub fn adv_opaque_cast(oi: &mut [i32], ou: &mut [u32]) {
    if grid(1) == 0 {
        oi[0] = ADV_BIG_F32 as i32;
        ou[0] = ADV_F64 as u32;
    }
}

// ---------------------------------------------------------------- floats

/// `min`/`max` with NaN and signed zeros, `%` with negatives and infinities, `mul_add`.
#[gpu_kernel]
pub fn adv_float_edges(a: &[f32], b: &[f32], out: &mut [f32], d: &[f64], e: &[f64], outd: &mut [f64]) {
    let i = grid(1);
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[5 * i] = x.min(y);
        out[5 * i + 1] = x.max(y);
        out[5 * i + 2] = x % y;
        out[5 * i + 3] = x.mul_add(y, -x);
        let mut r = x;
        r %= y;
        out[5 * i + 4] = -r;
        let p = d[i];
        let q = e[i];
        outd[4 * i] = p.min(q);
        outd[4 * i + 1] = p.max(q);
        outd[4 * i + 2] = p % q;
        outd[4 * i + 3] = p.mul_add(q, 1.0);
    }
}

/// `powi` with negative, zero and huge exponents.
#[gpu_kernel]
pub fn adv_powi(a: &[f32], n: &[i32], out: &mut [f32], outd: &mut [f64]) {
    let i = grid(1);
    if i < a.len() {
        out[i] = a[i].powi(n[i]);
        outd[i] = (a[i] as f64).powi(n[i]);
    }
}

/// Float literal spellings.
#[gpu_kernel]
pub fn adv_float_lits(x: &[f32], out: &mut [f32], outd: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        out[4 * i] = v * 1e-3 + 1E3;
        out[4 * i + 1] = v + 2. - 1_000.000_1;
        out[4 * i + 2] = v * 1f32 + 1e-45;
        out[4 * i + 3] = -0.0 * v;
        outd[2 * i] = v as f64 * 4.9e-324 + 1_0.5e1;
        outd[2 * i + 1] = (v as f64).mul_add(0.1, 0.2);
    }
}

// ---------------------------------------------------------------- scalars

/// Scalar parameters of every type with extreme values.
#[gpu_kernel]
#[allow(clippy::too_many_arguments)]
pub fn adv_scalars(
    a: i32,
    b: i64,
    c: u32,
    d: u64,
    e: usize,
    f: u8,
    g: f32,
    h: f64,
    flag: bool,
    oi: &mut [i64],
    ou: &mut [u64],
    of: &mut [f64],
) {
    if grid(1) == 0 {
        oi[0] = (a - 1) as i64;
        oi[1] = b + 1;
        oi[2] = (-a) as i64;
        oi[3] = a.abs() as i64;
        oi[4] = b.abs();
        oi[5] = b >> 63;
        oi[6] = (a as i64) << 33;
        oi[7] = (flag ^ true) as i64;
        ou[0] = (c + 1) as u64;
        ou[1] = d * 2;
        ou[2] = (e - 1) as u64;
        ou[3] = (f + 1) as u64;
        ou[4] = d >> (c & 63);
        ou[5] = 1u64 << (c % 64);
        of[0] = g as f64 * 2.0;
        of[1] = h as f32 as f64;
        of[2] = (g * 2.0) as f64;
        of[3] = h / g as f64;
    }
}

/// Integer `min`/`max`/`abs` against literals on `u8`, `i64` and `usize`.
#[gpu_kernel]
pub fn adv_int_methods(x: &[u8], y: &[i64], out8: &mut [u8], out64: &mut [i64]) {
    let i = grid(1);
    if i < x.len() {
        out8[2 * i] = x[i].min(3);
        out8[2 * i + 1] = x[i].max(250);
        out64[3 * i] = y[i].max(0);
        out64[3 * i + 1] = y[i].min(-1).abs();
        out64[3 * i + 2] = (i.max(2) as i64).min(y[i]);
    }
}

// ---------------------------------------------------------------- candidates for compile errors

/// An outside `f32` constant that is infinite (its C declaration).
#[gpu_kernel]
pub fn adv_const_inf(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = x[i].min(ADV_INF) + f32::NEG_INFINITY * 0.0;
    }
}

/// An outside `f64` constant times an unsuffixed literal with `_` separators (agrees).
#[gpu_kernel]
pub fn adv_opaque_underscore(out: &mut [f64]) {
    if grid(1) == 0 {
        let y = ADV_F64 * 1_000.5;
        out[0] = y as f64;
    }
}

/// Every kernel of this module.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &adv_prec_i32::KERNEL,
        &adv_prec_u8::KERNEL,
        &adv_bools::KERNEL,
        &adv_cast_chain::KERNEL,
        &adv_cast_wide::KERNEL,
        &adv_cast_consts::KERNEL,
        &adv_loops::KERNEL,
        &adv_ranges::KERNEL,
        &adv_loop_shadow::KERNEL,
        &adv_shadow::KERNEL,
        &adv_if_values::KERNEL,
        &adv_nd::KERNEL,
        &adv_shared_mix::KERNEL,
        &adv_dims3::KERNEL,
        &adv_consts::KERNEL,
        &adv_opaque_int::KERNEL,
        &adv_opaque_float::KERNEL,
        &adv_opaque_math::KERNEL,
        &adv_opaque_cast::KERNEL,
        &adv_const_inf::KERNEL,
        &adv_int_methods::KERNEL,
        &adv_float_edges::KERNEL,
        &adv_powi::KERNEL,
        &adv_float_lits::KERNEL,
        &adv_scalars::KERNEL,
        &adv_opaque_underscore::KERNEL,
    ]
}
