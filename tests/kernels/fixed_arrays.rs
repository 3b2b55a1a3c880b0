//! Local arrays (`let mut a = [0.0f32; 8];`, Numba's `cuda.local.array`)
//! and module `const` arrays (`FILTER[i]`, CUDA `__constant__` memory).

use gpujit::prelude::*;

/// Local array extents from module constants.
pub const ROWS: usize = 3;
pub const COLS: usize = 4;

/// A 5-tap filter, read from kernels and a device function.
pub const FILTER: [f32; 5] = [0.1, 0.2, 0.4, 0.2, 0.1];
/// A 2-D stencil of integers.
pub const STENCIL: [[i32; 3]; 3] = [[1, 2, 1], [2, -12, 2], [1, 2, 1]];
/// Values whose decimal spelling is far from trivial: C must read back
/// exactly these bits.
pub const TRICKY_F64: [f64; 8] = [
    0.1,
    -0.0,
    1e-310,
    f64::MAX,
    f64::MIN_POSITIVE,
    std::f64::consts::PI,
    -1.0 / 3.0,
    f64::INFINITY,
];
pub const TRICKY_F32: [f32; 6] = [0.1, -0.0, 1e-40, f32::MAX, std::f32::consts::E, f32::NEG_INFINITY];
pub const BIG_U64: [u64; 3] = [u64::MAX, 1 << 63, 12_345_678_901_234_567_890];
pub const NEG_I64: [i64; 3] = [i64::MIN, -1, i64::MAX];
pub const BYTES: [u8; 4] = [0, 1, 128, 255];
pub const FLAGS: [bool; 3] = [true, false, true];
/// A 3-D `const` array.
pub const CUBE: [[[u32; 2]; 2]; 2] = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]];
/// Constants of and into the types narrower than C's `int` (`i8 i16 u16`),
/// whose values the CUDA C handles through its generic helpers.
pub const WIDE_I32: [i32; 4] = [1, -300, 70_000, i32::MIN];
pub const WIDE_U32: u32 = 70_000;
/// (A NaN in a `const` once failed to compile: the check that a name is a
/// `const`, not a `static`, used it in a `match` pattern.)
pub const WIDE_F32: [f32; 4] = [-1.5, 1e6, f32::NAN, -1e6];
pub const NARROW_I8: [i8; 4] = [i8::MIN, 127, -5, 3];
pub const NARROW_I16: [i16; 4] = [i16::MIN, 32_767, -300, 7];
pub const NARROW_U16: [u16; 4] = [65_535, 0, 300, 9];

// ---------------------------------------------------------------- local arrays, each element type

/// Per thread: a repeated value and a list, mixed and read back out.
/// `out[4 * i + k] = a[k]` where `a = [x[i], w[i % 3], w[(i + 1) % 3], x[i]]`,
/// `w = [A, B, C]`.
macro_rules! local_kernel {
    ($name:ident, $t:ty, $a:expr, $b:expr, $c:expr) => {
        #[gpu_kernel]
        pub fn $name(x: &[$t], out: &mut [$t]) {
            let i = grid(1);
            if i < x.len() {
                let mut a = [x[i]; 4];
                let w: [$t; 3] = [$a, $b, $c];
                a[1] = w[i % w.len()];
                a[2] = w[(i + 1) % 3];
                for k in 0..a.len() {
                    out[4 * i + k] = a[k];
                }
            }
        }
    };
}

local_kernel!(local_u8, u8, 7, 200, 255);
local_kernel!(local_i32, i32, -7, i32::MIN, 123_456);
local_kernel!(local_i64, i64, -7, i64::MIN, 1 << 40);
local_kernel!(local_u32, u32, 7, u32::MAX, 65_536);
local_kernel!(local_u64, u64, 7, u64::MAX, 1 << 40);
local_kernel!(local_usize, usize, 7, usize::MAX, 1 << 40);
local_kernel!(local_f32, f32, 0.1, -0.0, 1e-40);
local_kernel!(local_f64, f64, 0.1, -0.0, 1e-310);

/// Lists of computed elements of every narrow and wide type (C++ refuses
/// narrowing in a brace list): `out[i] = w[0] + w[1] + w[2]` per type.
#[gpu_kernel]
pub fn local_computed_lists(x: &[u8], bytes: &mut [u8], ints: &mut [i64], floats: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        let b = [x[i] + 1, x[i] * 2, x[i] >> 1];
        bytes[i] = b[0] ^ b[1] ^ b[2];
        let w = [x[i] as i64 - 300, (x[i] as i64) << 40, -(x[i] as i64)];
        ints[i] = w[0] + w[1] + w[2];
        let f = [x[i] as f32 * 0.5, 1.0 / (x[i] as f32 + 1.0)];
        floats[i] = f[0] + f[1];
    }
}

/// `bool` elements: `out[3 * i + k] = [x[i] odd, k == i % 3 ...]` as `u8`.
#[gpu_kernel]
pub fn local_bool(x: &[u8], out: &mut [u8]) {
    let i = grid(1);
    if i < x.len() {
        let mut b = [false; 3];
        b[i % 3] = true;
        let odd = [x[i] % 2 == 1, x[i] % 2 == 0];
        b[0] = b[0] || odd[0];
        for k in 0..3 {
            out[3 * i + k] = b[k] as u8;
        }
    }
}

/// Unsuffixed literals take the type the uses give them (`f32`, `u64`).
#[gpu_kernel]
pub fn local_inferred(x: &[f32], out: &mut [f32], n: &mut [u64]) {
    let i = grid(1);
    if i < x.len() {
        let mut acc = [0.0; 3];
        let counts = [1, 2, 3];
        acc[0] = x[i] * 0.1;
        acc[1] += x[i];
        acc[2] -= 2.5;
        out[i] = acc[0] + acc[1] + acc[2];
        n[i] = counts[i % 3] * 10_000_000_000;
    }
}

// ---------------------------------------------------------------- 2-D and 3-D

/// A `ROWS x COLS` matrix per thread, filled, updated in place
/// (compound assignment), and written out row-major.
#[gpu_kernel]
pub fn local_2d(x: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        const EXTRA: usize = 1;
        let mut m = [[0i32; COLS]; ROWS - EXTRA + 1];
        for r in 0..ROWS {
            for c in 0..COLS {
                m[r][c] = x[i] * r as i32 + c as i32;
            }
        }
        m[1][2] += 100;
        m[2][3] *= -2;
        m[i % ROWS][i % COLS] <<= 1;
        for r in 0..ROWS {
            for c in 0..COLS {
                out[(i * ROWS + r) * COLS + c] = m[r][c];
            }
        }
    }
}

/// A 2x3x2 array per thread, from a repeated value and from a nested list.
#[gpu_kernel]
pub fn local_3d(x: &[f64], out: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        let mut c = [[[0.5f64; 2]; 3]; 2];
        let l = [
            [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
            [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]],
        ];
        c[i % 2][1][1] = x[i];
        for a in 0..2 {
            for b in 0..3 {
                for d in 0..2 {
                    c[a][b][d] += l[a][b][d] * x[i];
                    out[((i * 2 + a) * 3 + b) * 2 + d] = c[a][b][d];
                }
            }
        }
    }
}

/// One thread (grid index 5) indexes a local array of 4 at `idx`, reading
/// and writing; the rest stay in range.
#[gpu_kernel]
pub fn local_oob(idx: usize, out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        let j = if i == 5 { idx } else { i % 4 };
        let mut a = [1.0f32; 4];
        a[j] = 2.0;
        out[i] = a[j] + a[0];
    }
}

/// A 2-D local array indexed out of range in its inner dimension.
#[gpu_kernel]
pub fn local_oob_2d(col: usize, out: &mut [i32]) {
    let i = grid(1);
    if i < out.len() {
        let m = [[1i32, 2], [3, 4]];
        out[i] = m[i % 2][if i == 3 { col } else { 0 }];
    }
}

// ---------------------------------------------------------------- barriers

/// A local array written before a barrier and read after it: the CPU
/// backend runs such a kernel's threads as coroutines (each keeps its own
/// array). `out[g] = s[(t + 1) % n] + acc[3]` with `acc[k] = x[g] + k`.
#[gpu_kernel]
pub fn local_across_barrier(x: &[f32], out: &mut [f32]) {
    let g = grid(1);
    let t = thread_idx().x;
    let n = block_dim().x;
    let mut acc = [0.0f32; 4];
    for k in 0..4 {
        acc[k] = x[g] + k as f32;
    }
    let s = shared_array::<[f32; 64]>();
    s[t] = acc[0];
    syncthreads();
    acc[3] += s[(t + 1) % n];
    out[g] = acc[3];
}

/// Local arrays that each live between two barriers only: the kernel
/// stays on the split (thread loop) path.
#[gpu_kernel]
pub fn local_between_barriers(x: &[f32], out: &mut [f32]) {
    let g = grid(1);
    let t = thread_idx().x;
    let n = block_dim().x;
    let s = shared_array::<[f32; 64]>();
    {
        let w = [x[g], 2.0 * x[g]];
        s[t] = w[0] + w[1];
    }
    syncthreads();
    let mut v = [0.0f32; 2];
    v[0] = s[(t + 1) % n];
    v[1] = s[(t + n - 1) % n];
    out[g] = v[0] - v[1];
}

// ---------------------------------------------------------------- grid-stride loops

/// A grid-stride loop accumulating into a local array declared before it:
/// the array must stay per thread (no loop interchange for this kernel).
/// `out[i] = sum of x[j] for j = i, i + stride, ...` and the count.
#[gpu_kernel]
pub fn local_grid_stride(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let mut acc = [0.0f32; 2];
    for j in (i..x.len()).step_by(gridsize(1)) {
        acc[0] += x[j];
        acc[1] += 1.0;
    }
    if i < out.len() / 2 {
        out[2 * i] = acc[0];
        out[2 * i + 1] = acc[1];
    }
}

/// A grid-stride loop with a local array inside its body only: the loop
/// still runs in lockstep across the block's threads.
#[gpu_kernel]
pub fn local_in_grid_stride(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    for j in (i..x.len()).step_by(gridsize(1)) {
        let w = [x[j], 0.5 * x[j]];
        out[j] = w[0] + w[1];
    }
}

// ---------------------------------------------------------------- device functions

/// Horner's rule with a local coefficient list: `1 + x/2 + x^2/4`.
#[gpu_device]
pub fn poly(x: f32) -> f32 {
    let c = [0.25f32, 0.5, 1.0];
    let mut s = 0.0f32;
    for k in 0..3 {
        s = s * x + c[k];
    }
    s
}

/// Tap `k` of `FILTER` (a `const` array read in a device function).
#[gpu_device]
pub fn tap(k: usize) -> f32 {
    FILTER[k]
}

/// A device function with its own local array and a 2-D `const` array.
#[gpu_device]
pub fn stencil_at(x: &[i32], i: usize, j: usize, n: usize) -> i32 {
    let mut acc = [0i32; 3];
    for a in 0..3 {
        for b in 0..3 {
            acc[a] += STENCIL[a][b] * x[(i + a) * n + j + b];
        }
    }
    acc[0] + acc[1] + acc[2]
}

#[gpu_kernel]
pub fn device_arrays(x: &[f32], xi: &[i32], n: usize, out: &mut [f32], st: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = poly(x[i]) + tap(i % 5);
    }
    if i < (n - 2) * (n - 2) {
        st[i] = stencil_at(xi, i / (n - 2), i % (n - 2), n);
    }
}

// ---------------------------------------------------------------- const arrays

/// 1-D convolution with `FILTER` (zero padding): `y[i] = sum_k FILTER[k] * x[i + k - 2]`.
#[gpu_kernel]
pub fn conv_filter(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let mut s = 0.0f32;
        for k in 0..5 {
            let j = i + k;
            if j >= 2 && j - 2 < x.len() {
                s += FILTER[k] * x[j - 2];
            }
        }
        y[i] = s;
    }
}

/// Every `const` array copied out element by element (each element type,
/// 1-3 dimensions): the values must arrive bit for bit.
#[gpu_kernel]
pub fn const_copies(f64s: &mut [f64], f32s: &mut [f32], u64s: &mut [u64], i64s: &mut [i64], small: &mut [u32]) {
    let i = grid(1);
    if i < 8 {
        f64s[i] = TRICKY_F64[i];
    }
    if i < 6 {
        f32s[i] = TRICKY_F32[i];
    }
    if i < 3 {
        u64s[i] = BIG_U64[i];
        i64s[i] = NEG_I64[i];
        small[i] = FLAGS[i] as u32;
    }
    if i < 4 {
        small[3 + i] = BYTES[i] as u32;
    }
    if i < 8 {
        small[7 + i] = CUBE[i / 4][(i / 2) % 2][i % 2];
    }
    if i < 9 {
        small[15 + i] = (STENCIL[i / 3][i % 3] + 100) as u32;
    }
}

/// `WIDE_F32[i]`, from a device function (a `const` with a NaN in it).
#[gpu_device]
pub fn wide_f32_at(i: usize) -> f32 {
    WIDE_F32[i]
}

/// Module constants cast to and computed in `i8`, `i16` and `u16`: four
/// threads, each writing element `i` of each group of four.
/// - `o8[i]`, `o16[i]`, `ou16[i]`: `WIDE_I32[i]` cast (truncating);
/// - `[4 + i]`: `WIDE_F32[i]` cast (saturating, NaN to 0; for `o16`
///   through a device function);
/// - `[8 + i]`: wrapping `*`, `+`, `-` on the narrow constants;
/// - `[12 + i]`: `/`, `%` (by -1 too), shifts and `!`;
/// - `wide[i]`: the narrow values and `WIDE_U32` widened to `i64`.
#[gpu_kernel]
pub fn const_narrow(o8: &mut [i8], o16: &mut [i16], ou16: &mut [u16], wide: &mut [i64]) {
    let i = grid(1);
    if i < 4 {
        o8[i] = WIDE_I32[i] as i8;
        o16[i] = WIDE_I32[i] as i16;
        ou16[i] = WIDE_I32[i] as u16;
        o8[4 + i] = WIDE_F32[i] as i8;
        o16[4 + i] = wide_f32_at(i) as i16;
        ou16[4 + i] = WIDE_F32[i] as u16;
        o8[8 + i] = NARROW_I8[i] * 3 + NARROW_I8[3 - i];
        o16[8 + i] = NARROW_I16[i] * 5 - NARROW_I16[3 - i];
        ou16[8 + i] = NARROW_U16[i] * NARROW_U16[i] + NARROW_U16[3 - i];
        o8[12 + i] =
            NARROW_I8[i] / NARROW_I8[(i + 2) % 4] + NARROW_I8[i] % NARROW_I8[(i + 3) % 4] + (NARROW_I8[i] >> 2);
        o16[12 + i] = (NARROW_I16[i] << 9) + NARROW_I16[i] / -1 + !NARROW_I16[3 - i];
        ou16[12 + i] = (NARROW_U16[i] >> 3) + !NARROW_U16[i] + NARROW_U16[i] % 7;
        wide[i] = NARROW_I8[i] as i64 + NARROW_I16[i] as i64 * 1000 + NARROW_U16[i] as i64 * 1_000_000;
    }
    if i == 0 {
        wide[4] = WIDE_U32 as u16 as i64;
        wide[5] = WIDE_U32 as i16 as i64;
        wide[6] = WIDE_U32 as i8 as i64;
    }
}

/// `FILTER[k]` with a `k` out of range in thread 2.
#[gpu_kernel]
pub fn const_oob(k: usize, out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = FILTER[if i == 2 { k } else { i % 5 }];
    }
}

/// Zero-length local arrays (C has none: the CUDA C must still compile):
/// `out[i]` is their lengths' sum plus 1.
#[gpu_kernel]
pub fn local_zero_length(out: &mut [i32]) {
    let i = grid(1);
    let z = [0i32; 0];
    let w = [[1u8; 0]; 2];
    if i < out.len() {
        out[i] = z.len() as i32 + w.len() as i32 - 1;
    }
}

pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &local_zero_length::KERNEL,
        &local_u8::KERNEL,
        &local_i32::KERNEL,
        &local_i64::KERNEL,
        &local_u32::KERNEL,
        &local_u64::KERNEL,
        &local_usize::KERNEL,
        &local_f32::KERNEL,
        &local_f64::KERNEL,
        &local_bool::KERNEL,
        &local_computed_lists::KERNEL,
        &local_inferred::KERNEL,
        &local_2d::KERNEL,
        &local_3d::KERNEL,
        &local_oob::KERNEL,
        &local_oob_2d::KERNEL,
        &local_across_barrier::KERNEL,
        &local_between_barriers::KERNEL,
        &local_grid_stride::KERNEL,
        &local_in_grid_stride::KERNEL,
        &device_arrays::KERNEL,
        &conv_filter::KERNEL,
        &const_copies::KERNEL,
        &const_narrow::KERNEL,
        &const_oob::KERNEL,
    ]
}
