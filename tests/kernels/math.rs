//! The numeric methods (`f32`/`f64` math, integer methods): one kernel per
//! group and type that applies every method of the group to each input
//! element, and beside it the same methods in plain Rust (`*_ref`), the host
//! reference. `out` holds one row per element, one column per method, in
//! the order listed.

use gpujit::prelude::*;
use std::f32::consts::TAU;

/// A kernel `$k` applying `$m(args)` to each `x[i]` (a `$t`), writing
/// `$out`-typed results, and `$r`, the same in Rust.
macro_rules! per_element {
    ($k:ident, $r:ident, $t:ident, $out:ident, ($a:ident, $b:ident, $c:ident, $n:ident), [$($m:ident($($arg:ident),*)),* $(,)?]) => {
        #[gpu_kernel]
        pub fn $k(x: &[$t], y: &[$t], z: &[$t], n: &[i32], out: &mut [$out]) {
            let i = grid(1);
            if i < x.len() {
                let ($a, $b, $c, $n) = (x[i], y[i], z[i], n[i]);
                let mut o = i * (out.len() / x.len());
                $(
                    out[o] = $a.$m($($arg),*) as $out;
                    o += 1;
                )*
            }
        }

        /// The host reference of the kernel of the same name.
        #[allow(unused_variables, clippy::unnecessary_cast)]
        pub fn $r($a: $t, $b: $t, $c: $t, $n: i32) -> Vec<$out> {
            vec![$($a.$m($($arg),*) as $out),*]
        }
    };
}

macro_rules! floats {
    ($t:ident, $un:ident, $un_ref:ident, $exact:ident, $exact_ref:ident, $bin:ident, $bin_ref:ident, $pred:ident, $pred_ref:ident) => {
        // Transcendental: within the CUDA Math API's ulp bounds of each other.
        per_element!(
            $un,
            $un_ref,
            $t,
            $t,
            (a, _b, _c, _k),
            [
                cbrt(),
                exp(),
                exp2(),
                exp_m1(),
                ln(),
                log2(),
                log10(),
                ln_1p(),
                sin(),
                cos(),
                tan(),
                asin(),
                acos(),
                atan(),
                sinh(),
                cosh(),
                tanh(),
                asinh(),
                acosh(),
                atanh(),
            ]
        );
        // Correctly rounded or exact in both: bit for bit.
        per_element!(
            $exact,
            $exact_ref,
            $t,
            $t,
            (a, _b, _c, _k),
            [
                sqrt(),
                abs(),
                signum(),
                floor(),
                ceil(),
                round(),
                trunc(),
                fract(),
                recip(),
                to_degrees(),
                to_radians(),
                copysign(_b),
                powi(_k),
                mul_add(_b, _c),
            ]
        );
        per_element!(
            $bin,
            $bin_ref,
            $t,
            $t,
            (a, _b, _c, _k),
            [atan2(_b), hypot(_b), powf(_b)]
        );
        per_element!(
            $pred,
            $pred_ref,
            $t,
            u8,
            (a, _b, _c, _k),
            [is_nan(), is_infinite(), is_finite()]
        );
    };
}
floats!(
    f32,
    unary_f32,
    unary_f32_ref,
    exact_f32,
    exact_f32_ref,
    binary_f32,
    binary_f32_ref,
    pred_f32,
    pred_f32_ref
);
floats!(
    f64,
    unary_f64,
    unary_f64_ref,
    exact_f64,
    exact_f64_ref,
    binary_f64,
    binary_f64_ref,
    pred_f64,
    pred_f64_ref
);

/// `min`/`max` (with one NaN: the other operand) and `clamp(lo, hi)` with
/// `lo <= hi`, floats.
#[gpu_kernel]
pub fn min_max_clamp_f32(x: &[f32], y: &[f32], lo: &[f32], hi: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        out[3 * i] = x[i].min(y[i]);
        out[3 * i + 1] = f32::max(x[i], y[i]);
        out[3 * i + 2] = x[i].clamp(lo[i], hi[i]);
    }
}

/// A zero minus an integer converted to a float, in the spellings g++ folded
/// to a negation (-0.0 for 0, where IEEE and a GPU give +0.0; found by the
/// fuzzer, seed 208): a literal, a module `const`, a sum, and `0.0 + -x`.
pub const ZERO_F64: f64 = 0.0;

#[gpu_kernel]
pub fn zero_minus_int(i: &[i32], u: &[u8], out64: &mut [f64], out32: &mut [f32]) {
    let k = grid(1);
    if k < i.len() {
        out64[4 * k] = 0.0 - i[k] as f64;
        out64[4 * k + 1] = 0.0 + -(i[k] as f64);
        out64[4 * k + 2] = ZERO_F64 - u[k] as f64;
        out64[4 * k + 3] = 0.0 - (i[k] as f64 + 0.0);
        out32[2 * k] = 0.0f32 - i[k] as f32;
        out32[2 * k + 1] = 0.0 - (u[k] as f32);
    }
}

/// As [`min_max_clamp_f32`], `f64`, in call form.
#[gpu_kernel]
pub fn min_max_clamp_f64(x: &[f64], y: &[f64], lo: &[f64], hi: &[f64], out: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        out[3 * i] = f64::min(x[i], y[i]);
        out[3 * i + 1] = x[i].max(y[i]);
        out[3 * i + 2] = f64::clamp(x[i], lo[i], hi[i]);
    }
}

/// Call form of a few float methods: `f32::tanh(x)`, `f64::atan2(y, x)`, ...
#[gpu_kernel]
pub fn call_form(x: &[f32], y: &[f64], out32: &mut [f32], out64: &mut [f64]) {
    let i = grid(1);
    if i < x.len() {
        out32[2 * i] = f32::tanh(x[i]);
        out32[2 * i + 1] = f32::powi(x[i], 3) + f32::mul_add(x[i], 2.0, 1.0);
        out64[2 * i] = f64::atan2(y[i], 0.5);
        out64[2 * i + 1] = f64::sqrt(f64::abs(y[i]));
    }
}

pub use consts::float_consts;
mod consts {
    use super::*;
    // `f32::consts::PI` names the module `std::f32` imported here.
    #[allow(deprecated_in_future)]
    use std::{f32, f64};

    /// Rust's float constants, by every path spelling.
    #[gpu_kernel]
    pub fn float_consts(out32: &mut [f32], out64: &mut [f64]) {
        if grid(1) == 0 {
            out32[0] = core::f32::consts::PI;
            out32[1] = std::f32::consts::E;
            out32[2] = TAU;
            out32[3] = f32::consts::SQRT_2 * 1.0;
            out32[4] = std::f32::consts::LN_2 + std::f32::consts::FRAC_PI_2;
            out64[0] = std::f64::consts::PI;
            out64[1] = core::f64::consts::LN_10;
            out64[2] = std::f64::consts::FRAC_1_SQRT_2;
            out64[3] = f64::consts::LOG2_E;
            out64[4] = std::f64::consts::FRAC_2_SQRT_PI;
        }
    }
}

macro_rules! ints {
    ($t:ident, $u:ident, $bits:ident, $bits_ref:ident, $bin:ident, $bin_ref:ident, $sh:ident, $sh_ref:ident, $ad:ident, $ad_ref:ident, [$($un:ident),*], $un_k:ident, $un_ref:ident) => {
        per_element!($bits, $bits_ref, $t, u32, (a, _b, _c, _k), [count_ones(), count_zeros(), leading_zeros(), trailing_zeros()]);
        per_element!($bin, $bin_ref, $t, $t, (a, _b, _c, _k), [
            wrapping_add(_b), wrapping_sub(_b), wrapping_mul(_b), saturating_add(_b), saturating_sub(_b), min(_b), max(_b),
            div_euclid(_c), rem_euclid(_c),
        ]);
        per_element!($un_k, $un_ref, $t, $t, (a, _b, _c, _k), [reverse_bits(), swap_bytes(), wrapping_neg(), $($un()),*]);
        per_element!($ad, $ad_ref, $t, $u, (a, _b, _c, _k), [abs_diff(_b)]);
        /// Methods with a `u32` argument (`k` as `u32`).
        #[gpu_kernel]
        pub fn $sh(x: &[$t], n: &[u32], out: &mut [$t]) {
            let i = grid(1);
            if i < x.len() {
                let (a, k) = (x[i], n[i]);
                out[6 * i] = a.wrapping_pow(k);
                out[6 * i + 1] = a.pow(k % 5);
                out[6 * i + 2] = a.wrapping_shl(k);
                out[6 * i + 3] = a.wrapping_shr(k);
                out[6 * i + 4] = a.rotate_left(k);
                out[6 * i + 5] = $t::rotate_right(a, k);
            }
        }
        /// The host reference of the kernel of the same name.
        pub fn $sh_ref(a: $t, k: u32) -> Vec<$t> {
            vec![
                a.wrapping_pow(k),
                a.wrapping_pow(k % 5),
                a.wrapping_shl(k),
                a.wrapping_shr(k),
                a.rotate_left(k),
                a.rotate_right(k),
            ]
        }
    };
}
ints!(
    i32,
    u32,
    bits_i32,
    bits_i32_ref,
    bin_i32,
    bin_i32_ref,
    sh_i32,
    sh_i32_ref,
    ad_i32,
    ad_i32_ref,
    [signum, wrapping_abs],
    un_i32,
    un_i32_ref
);
ints!(
    i64,
    u64,
    bits_i64,
    bits_i64_ref,
    bin_i64,
    bin_i64_ref,
    sh_i64,
    sh_i64_ref,
    ad_i64,
    ad_i64_ref,
    [signum, wrapping_abs],
    un_i64,
    un_i64_ref
);
ints!(
    u32,
    u32,
    bits_u32,
    bits_u32_ref,
    bin_u32,
    bin_u32_ref,
    sh_u32,
    sh_u32_ref,
    ad_u32,
    ad_u32_ref,
    [],
    un_u32,
    un_u32_ref
);
ints!(
    u64,
    u64,
    bits_u64,
    bits_u64_ref,
    bin_u64,
    bin_u64_ref,
    sh_u64,
    sh_u64_ref,
    ad_u64,
    ad_u64_ref,
    [],
    un_u64,
    un_u64_ref
);
ints!(
    usize,
    usize,
    bits_usize,
    bits_usize_ref,
    bin_usize,
    bin_usize_ref,
    sh_usize,
    sh_usize_ref,
    ad_usize,
    ad_usize_ref,
    [],
    un_usize,
    un_usize_ref
);
ints!(
    u8,
    u8,
    bits_u8,
    bits_u8_ref,
    bin_u8,
    bin_u8_ref,
    sh_u8,
    sh_u8_ref,
    ad_u8,
    ad_u8_ref,
    [],
    un_u8,
    un_u8_ref
);

/// `is_power_of_two` and integer `clamp` (`lo <= hi`) on `u32`, and `abs`
/// on `i32` (`MIN` stays `MIN`).
#[gpu_kernel]
pub fn int_misc(x: &[u32], lo: &[u32], hi: &[u32], s: &[i32], out: &mut [u32], sout: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        out[2 * i] = x[i].is_power_of_two() as u32;
        out[2 * i + 1] = x[i].clamp(lo[i], hi[i]);
        sout[2 * i] = s[i].abs();
        sout[2 * i + 1] = i32::clamp(s[i], -5, 5);
    }
}

/// `clamp` with `lo > hi` (Rust panics): a fault on the CPU backend, and
/// Rust's body's value (`hi` for `x < lo`) on both backends.
#[gpu_kernel]
pub fn clamp_inverted(x: &[f32], out: &mut [f32], iout: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = x[i].clamp(1.0, -1.0);
        iout[i] = (i as i32).clamp(3, 1);
    }
}

/// `div_euclid`/`rem_euclid` by zero: the same fault as `/`.
#[gpu_kernel]
pub fn euclid_by_zero(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        out[2 * i] = a[i].div_euclid(b[i]);
        out[2 * i + 1] = a[i].rem_euclid(b[i]);
    }
}

/// Constant expressions the macro sees whole: body `const`s and literal
/// arithmetic, which must wrap in their operands' width as the same
/// operations do at run time (`x` holds the same operands).
#[gpu_kernel]
pub fn const_exprs(x: &[u32], out: &mut [u32], sout: &mut [i64], bout: &mut [u8]) {
    const WRAPPED: u32 = u32::MAX.wrapping_add(2);
    const SHIFTED: i64 = 1i64 << 63;
    const POW: u32 = 3u32.wrapping_pow(21);
    const BITS: u32 = 0x8000_0001u32.count_ones() + (-1i32).count_ones();
    const NEG: i64 = (-7i64).rem_euclid(3) + (-7i64).div_euclid(3);
    const ROT: u8 = 0x81u8.rotate_left(9);
    let s = shared_array::<[u32; 65536 * 65536 / 65536 / 65536 + 1]>();
    let i = grid(1);
    if i == 0 {
        s[0] = 7;
        s[1] = 8;
        out[0] = WRAPPED;
        out[1] = x[0].wrapping_add(2);
        out[2] = POW;
        out[3] = x[1].wrapping_pow(21);
        out[4] = BITS;
        out[5] = x[2].count_ones() + (x[3] as i32).count_ones();
        out[6] = s[0] + s[1];
        out[7] = (0xFFFF_FFFFu32 as u8) as u32;
        sout[0] = SHIFTED;
        sout[1] = 1i64 << (x[4] as i64);
        sout[2] = NEG;
        sout[3] = (x[5] as i64 - 7).rem_euclid(3) + (x[5] as i64 - 7).div_euclid(3);
        sout[4] = -(i64::MIN + 1) - 1;
        sout[5] = 5i64 - 7 * 3;
        bout[0] = ROT;
        bout[1] = (x[6] as u8).rotate_left(9);
        bout[2] = 200u8.wrapping_add(100);
        bout[3] = (-1i32) as u8;
    }
}

/// Every kernel of this module.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &unary_f32::KERNEL,
        &exact_f32::KERNEL,
        &binary_f32::KERNEL,
        &pred_f32::KERNEL,
        &unary_f64::KERNEL,
        &exact_f64::KERNEL,
        &binary_f64::KERNEL,
        &pred_f64::KERNEL,
        &min_max_clamp_f32::KERNEL,
        &min_max_clamp_f64::KERNEL,
        &zero_minus_int::KERNEL,
        &call_form::KERNEL,
        &float_consts::KERNEL,
        &bits_i32::KERNEL,
        &bin_i32::KERNEL,
        &sh_i32::KERNEL,
        &ad_i32::KERNEL,
        &un_i32::KERNEL,
        &bits_i64::KERNEL,
        &bin_i64::KERNEL,
        &sh_i64::KERNEL,
        &ad_i64::KERNEL,
        &un_i64::KERNEL,
        &bits_u32::KERNEL,
        &bin_u32::KERNEL,
        &sh_u32::KERNEL,
        &ad_u32::KERNEL,
        &un_u32::KERNEL,
        &bits_u64::KERNEL,
        &bin_u64::KERNEL,
        &sh_u64::KERNEL,
        &ad_u64::KERNEL,
        &un_u64::KERNEL,
        &bits_usize::KERNEL,
        &bin_usize::KERNEL,
        &sh_usize::KERNEL,
        &ad_usize::KERNEL,
        &un_usize::KERNEL,
        &bits_u8::KERNEL,
        &bin_u8::KERNEL,
        &sh_u8::KERNEL,
        &ad_u8::KERNEL,
        &un_u8::KERNEL,
        &int_misc::KERNEL,
        &clamp_inverted::KERNEL,
        &euclid_by_zero::KERNEL,
        &const_exprs::KERNEL,
    ]
}

// ---------------------------------------------------------------- inputs

/// Edge-case inputs of the integer method kernels (`bits_T`, `bin_T`, `un_T`,
/// `ad_T`, `sh_T`): zero, small values of both signs, the type's extremes
/// and bit patterns, shared by `tests/language/math.rs` and `tests/agree/math.rs`.
pub const EDGE_I32: [i32; 16] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    -7,
    7,
    100,
    -100,
    0x1234_5678,
    i32::MIN,
    i32::MAX,
    i32::MIN + 1,
    1 << 30,
    -(1 << 16),
];
pub const EDGE_I64: [i64; 16] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    -7,
    7,
    100,
    -100,
    0x1234_5678_9abc_def0,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    1 << 40,
    -(1 << 33),
];
pub const EDGE_U32: [u32; 12] = [
    0,
    1,
    2,
    3,
    7,
    100,
    0x1234_5678,
    u32::MAX,
    u32::MAX - 1,
    1 << 31,
    1 << 16,
    0xff00_00ff,
];
pub const EDGE_U64: [u64; 12] = [
    0,
    1,
    2,
    3,
    7,
    100,
    0x1234_5678_9abc_def0,
    u64::MAX,
    u64::MAX - 1,
    1 << 63,
    1 << 32,
    0xff00_00ff,
];
pub const EDGE_USIZE: [usize; 10] = [0, 1, 2, 3, 7, 100, 0x1234_5678_9abc_def0, usize::MAX, 1 << 63, 1 << 32];
pub const EDGE_U8: [u8; 12] = [0, 1, 2, 3, 7, 100, 0x81, 0xf0, 255, 254, 128, 64];
/// Shift amounts of the `sh_T` kernels: in range, at and past each width.
pub const SHIFTS: [u32; 14] = [0, 1, 3, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, u32::MAX];
