//! The numeric methods (`f32`/`f64` math, integer methods, constants) run
//! on the backend of the process and compared with Rust's own methods on the
//! same inputs, edge cases included (±0, NaN, ±inf, subnormals, negative
//! `cbrt`, `MIN`/`MAX`): bit for bit on the CPU backend, which calls Rust's
//! methods; within the CUDA Math API's documented ulp bounds on a GPU.

use crate::kernels;
use kernels::math::*;

use crate::common;
use common::Tool;

use gpujit::{to_device, zeros, BackendKind, DeviceArray, DeviceScalar, Error};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, cpu) = (None, Some(Tool::CpuBackend));
    cases![
        any => float_methods_match_rust,
        any => min_max_clamp_match_rust,
        any => zero_minus_an_integer_is_positive_zero,
        any => call_form_and_constants_match_rust,
        any => integer_methods_match_rust_for_every_type,
        any => constant_expressions_wrap_as_at_run_time,
        cpu => clamp_with_inverted_bounds_is_a_fault_with_rusts_value,
        cpu => euclid_by_zero_is_a_fault,
    ]
}

fn dev<T: DeviceScalar>(v: &[T]) -> DeviceArray<T> {
    to_device(v).unwrap()
}

fn host<T: DeviceScalar>(d: &DeviceArray<T>) -> Vec<T> {
    d.copy_to_host().unwrap()
}

/// Allowed ulps between backend and host: 0 on the CPU backend (Rust's own
/// methods), else the largest maximum error the CUDA Math API's tables list
/// for these functions (`tanf`, `acoshf`, `powf`: 4).
fn tolerance() -> u64 {
    if gpujit::detect().kind == BackendKind::Cpu {
        0
    } else {
        4
    }
}

trait Bits: Copy + std::fmt::Debug {
    fn ulps(self, other: Self) -> u64;
}
impl Bits for f32 {
    fn ulps(self, o: f32) -> u64 {
        match (self.is_nan(), o.is_nan()) {
            (true, true) => 0,
            (false, false) if self == o && self.is_sign_negative() == o.is_sign_negative() => 0,
            (false, false) if self.is_sign_negative() == o.is_sign_negative() => {
                self.to_bits().abs_diff(o.to_bits()) as u64
            }
            _ => u64::MAX,
        }
    }
}
impl Bits for f64 {
    fn ulps(self, o: f64) -> u64 {
        match (self.is_nan(), o.is_nan()) {
            (true, true) => 0,
            (false, false) if self == o && self.is_sign_negative() == o.is_sign_negative() => 0,
            (false, false) if self.is_sign_negative() == o.is_sign_negative() => self.to_bits().abs_diff(o.to_bits()),
            _ => u64::MAX,
        }
    }
}

/// Compares `got` (one row per input) with `reference(row)`.
fn check_rows<T: Bits>(what: &str, got: &[T], rows: usize, reference: impl Fn(usize) -> Vec<T>, ulps: u64) {
    let width = got.len() / rows;
    let mut bad = Vec::new();
    for r in 0..rows {
        let want = reference(r);
        assert_eq!(want.len(), width, "{what}: row width");
        for (c, (g, w)) in got[r * width..(r + 1) * width].iter().zip(&want).enumerate() {
            if g.ulps(*w) > ulps {
                bad.push(format!("row {r} col {c}: got {g:?}, want {w:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "{what}: {} differences:\n{}", bad.len(), bad.join("\n"));
}

macro_rules! float_case {
    ($t:ident, $xs:expr, $un:ident, $un_ref:ident, $exact:ident, $exact_ref:ident, $bin:ident, $bin_ref:ident, $pred:ident, $pred_ref:ident) => {{
        let x: Vec<$t> = $xs;
        let n = x.len();
        let y: Vec<$t> = x.iter().rev().cloned().collect();
        let z: Vec<$t> = x.iter().map(|v| v * 0.5 + 1.0).collect();
        let k: Vec<i32> = (0..n as i32).map(|i| i % 7 - 3).collect();
        let (dx, dy, dz, dk) = (dev(&x), dev(&y), dev(&z), dev(&k));
        let blocks = (n as u32).div_ceil(32);
        let run = |w: usize| zeros::<$t>(n * w).unwrap();
        let mut out = run(20);
        $un![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        check_rows(
            stringify!($un),
            &host(&out),
            n,
            |r| $un_ref(x[r], y[r], z[r], k[r]),
            tolerance(),
        );
        let mut out = run(14);
        $exact![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        // `mul_add` and the rest are exact in CUDA as well (fma, correctly rounded sqrt & co.).
        check_rows(
            stringify!($exact),
            &host(&out),
            n,
            |r| $exact_ref(x[r], y[r], z[r], k[r]),
            0,
        );
        let mut out = run(3);
        $bin![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        check_rows(
            stringify!($bin),
            &host(&out),
            n,
            |r| $bin_ref(x[r], y[r], z[r], k[r]),
            tolerance(),
        );
        let mut out = zeros::<u8>(n * 3).unwrap();
        $pred![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        let want: Vec<u8> = (0..n).flat_map(|r| $pred_ref(x[r], y[r], z[r], k[r])).collect();
        assert_eq!(host(&out), want, stringify!($pred));
    }};
}

fn float_inputs_f32() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        2.5,
        -2.5,
        3.7,
        -8.0,
        27.0,
        0.999,
        -0.999,
        1e-3,
        100.0,
        -100.0,
        1e30,
        -1e30,
        1e-40,
        -1e-45,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_4,
        12345.678,
        -0.1,
        2.0,
    ]
}

fn float_inputs_f64() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        1.5,
        2.5,
        -2.5,
        3.7,
        -8.0,
        27.0,
        0.999,
        -0.999,
        1e-3,
        100.0,
        -100.0,
        1e300,
        -1e300,
        1e-310,
        -5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_4,
        12345.678,
        -0.1,
        2.0,
    ]
}

fn float_methods_match_rust() {
    float_case!(
        f32,
        float_inputs_f32(),
        unary_f32,
        unary_f32_ref,
        exact_f32,
        exact_f32_ref,
        binary_f32,
        binary_f32_ref,
        pred_f32,
        pred_f32_ref
    );
    float_case!(
        f64,
        float_inputs_f64(),
        unary_f64,
        unary_f64_ref,
        exact_f64,
        exact_f64_ref,
        binary_f64,
        binary_f64_ref,
        pred_f64,
        pred_f64_ref
    );
    // The example, on its own.
    let mut out = zeros::<f64>(20).unwrap();
    let x = [-8.0f64];
    unary_f64![1, 1](&dev(&x), &dev(&x), &dev(&x), &dev(&[0i32]), &mut out).unwrap();
    assert_eq!(host(&out)[0], -2.0, "(-8.0f64).cbrt()");
}

/// `0.0 - x as f64` is +0.0 for x = 0 on every backend (g++ folded it to
/// `-(x as f64)`, -0.0, in the host C and on the driver double; seed 208).
fn zero_minus_an_integer_is_positive_zero() {
    let i = [0i32, 1, -1, 0, i32::MIN];
    let u = [0u8, 2, 0, 255, 0];
    let mut out64 = zeros::<f64>(20).unwrap();
    let mut out32 = zeros::<f32>(10).unwrap();
    zero_minus_int![1, 8](&dev(&i), &dev(&u), &mut out64, &mut out32).unwrap();
    let (got64, got32) = (host(&out64), host(&out32));
    for k in 0..i.len() {
        let (x, y) = (i[k] as f64, u[k] as f64);
        let want64 = [0.0 - x, 0.0 + -x, 0.0 - y, 0.0 - (x + 0.0)];
        let want32 = [0.0 - i[k] as f32, 0.0 - u[k] as f32];
        for (j, w) in want64.iter().enumerate() {
            assert_eq!(
                got64[4 * k + j].to_bits(),
                w.to_bits(),
                "f64 form {j} of {}, {}: {}",
                i[k],
                u[k],
                got64[4 * k + j]
            );
        }
        for (j, w) in want32.iter().enumerate() {
            assert_eq!(
                got32[2 * k + j].to_bits(),
                w.to_bits(),
                "f32 form {j} of {}, {}: {}",
                i[k],
                u[k],
                got32[2 * k + j]
            );
        }
    }
    assert_eq!(got64[0].to_bits(), 0, "0.0 - 0 as f64 is +0.0");
}

fn min_max_clamp_match_rust() {
    let x = [1.0f32, f32::NAN, 2.0, f32::NAN, -3.0, 5.0, -0.0, f32::INFINITY];
    let y = [2.0f32, 1.0, f32::NAN, f32::NAN, -4.0, 5.0, -1.0, 0.0];
    let lo = [0.0f32, -1.0, 3.0, 0.0, -3.5, 5.0, 0.0, -1.0];
    let hi = [0.5f32, 1.0, 4.0, 1.0, 0.0, 5.0, 0.0, 1.0];
    let mut out = zeros::<f32>(24).unwrap();
    min_max_clamp_f32![1, 8](&dev(&x), &dev(&y), &dev(&lo), &dev(&hi), &mut out).unwrap();
    check_rows(
        "min_max_clamp_f32",
        &host(&out),
        8,
        |r| vec![x[r].min(y[r]), x[r].max(y[r]), x[r].clamp(lo[r], hi[r])],
        0,
    );
    let f = |v: &[f32]| -> Vec<f64> { v.iter().map(|&a| a as f64).collect() };
    let (x, y, lo, hi) = (f(&x), f(&y), f(&lo), f(&hi));
    let mut out = zeros::<f64>(24).unwrap();
    min_max_clamp_f64![1, 8](&dev(&x), &dev(&y), &dev(&lo), &dev(&hi), &mut out).unwrap();
    check_rows(
        "min_max_clamp_f64",
        &host(&out),
        8,
        |r| vec![x[r].min(y[r]), x[r].max(y[r]), x[r].clamp(lo[r], hi[r])],
        0,
    );
    // Zeros of both signs: -0.0 is below +0.0 (IEEE 754-2019
    // minimumNumber/maximumNumber), where Rust's min/max and C's fmin/fmax
    // may return either; found by the fuzzer (seed 201) as a difference
    // between the CPU backend and the CUDA C.
    let x = [-0.0f32, 0.0, -0.0, 0.0, 0.0, -0.0, f32::NAN, 3.0];
    let y = [0.0f32, -0.0, -0.0, 0.0, f32::NAN, f32::NAN, -0.0, 3.0];
    let want_min = [-0.0f32, -0.0, -0.0, 0.0, 0.0, -0.0, -0.0, 3.0];
    let want_max = [0.0f32, 0.0, -0.0, 0.0, 0.0, -0.0, -0.0, 3.0];
    let (lo, hi) = ([-1.0f32; 8], [1.0f32; 8]);
    let mut out = zeros::<f32>(24).unwrap();
    min_max_clamp_f32![1, 8](&dev(&x), &dev(&y), &dev(&lo), &dev(&hi), &mut out).unwrap();
    let got = host(&out);
    let mut out64 = zeros::<f64>(24).unwrap();
    let w = |v: &[f32]| -> Vec<f64> { v.iter().map(|&a| a as f64).collect() };
    min_max_clamp_f64![1, 8](&dev(&w(&x)), &dev(&w(&y)), &dev(&w(&lo)), &dev(&w(&hi)), &mut out64).unwrap();
    let got64 = host(&out64);
    for r in 0..8 {
        let bits = |v: f32| v.to_bits();
        assert_eq!(
            bits(got[3 * r]),
            bits(want_min[r]),
            "f32 min of {:?} and {:?}",
            x[r],
            y[r]
        );
        assert_eq!(
            bits(got[3 * r + 1]),
            bits(want_max[r]),
            "f32 max of {:?} and {:?}",
            x[r],
            y[r]
        );
        let bits64 = |v: f64| v.to_bits();
        assert_eq!(
            bits64(got64[3 * r]),
            bits64(want_min[r] as f64),
            "f64 min of {:?} and {:?}",
            x[r],
            y[r]
        );
        assert_eq!(
            bits64(got64[3 * r + 1]),
            bits64(want_max[r] as f64),
            "f64 max of {:?} and {:?}",
            x[r],
            y[r]
        );
    }
    // Integer clamp, `is_power_of_two`, `abs` of MIN.
    let x = [0u32, 1, 2, 3, 64, u32::MAX, 1 << 31, 7];
    let lo = [1u32, 0, 5, 3, 0, 0, 0, 8];
    let hi = [2u32, 0, 9, 3, 10, u32::MAX, 5, 9];
    let s = [i32::MIN, -7, -1, 0, 1, 6, i32::MAX, -5];
    let (mut out, mut sout) = (zeros::<u32>(16).unwrap(), zeros::<i32>(16).unwrap());
    int_misc![1, 8](&dev(&x), &dev(&lo), &dev(&hi), &dev(&s), &mut out, &mut sout).unwrap();
    let want: Vec<u32> = (0..8)
        .flat_map(|r| [x[r].is_power_of_two() as u32, x[r].clamp(lo[r], hi[r])])
        .collect();
    assert_eq!(host(&out), want);
    let want: Vec<i32> = (0..8).flat_map(|r| [s[r].wrapping_abs(), s[r].clamp(-5, 5)]).collect();
    assert_eq!(host(&sout), want);
}

fn call_form_and_constants_match_rust() {
    let x = [0.5f32, -2.0, 3.0];
    let y = [1.0f64, -4.0, 0.0];
    let (mut o32, mut o64) = (zeros::<f32>(6).unwrap(), zeros::<f64>(6).unwrap());
    call_form![1, 3](&dev(&x), &dev(&y), &mut o32, &mut o64).unwrap();
    let t = tolerance();
    check_rows(
        "call_form f32",
        &host(&o32),
        3,
        |r| vec![x[r].tanh(), x[r].powi(3) + x[r].mul_add(2.0, 1.0)],
        t,
    );
    check_rows(
        "call_form f64",
        &host(&o64),
        3,
        |r| vec![y[r].atan2(0.5), y[r].abs().sqrt()],
        t,
    );
    let (mut o32, mut o64) = (zeros::<f32>(5).unwrap(), zeros::<f64>(5).unwrap());
    float_consts![1, 1](&mut o32, &mut o64).unwrap();
    use std::{f32::consts as c32, f64::consts as c64};
    assert_eq!(
        host(&o32),
        [c32::PI, c32::E, c32::TAU, c32::SQRT_2, c32::LN_2 + c32::FRAC_PI_2]
    );
    assert_eq!(
        host(&o64),
        [
            c64::PI,
            c64::LN_10,
            c64::FRAC_1_SQRT_2,
            c64::LOG2_E,
            c64::FRAC_2_SQRT_PI
        ]
    );
}

macro_rules! int_case {
    ($t:ident, $u:ident, $xs:expr, $bits:ident, $bits_ref:ident, $bin:ident, $bin_ref:ident, $sh:ident, $sh_ref:ident, $ad:ident, $ad_ref:ident, $un:ident, $un_ref:ident, $unw:expr) => {{
        let x: Vec<$t> = $xs;
        let n = x.len();
        let y: Vec<$t> = x.iter().rev().cloned().collect();
        // Divisors: never 0 (÷0 is its own test).
        let z: Vec<$t> = x.iter().map(|&v| if v == 0 { 3 as $t } else { v }).collect();
        let k: Vec<i32> = vec![0; n];
        let (dx, dy, dz, dk) = (dev(&x), dev(&y), dev(&z), dev(&k));
        let blocks = (n as u32).div_ceil(32);
        let mut out = zeros::<u32>(n * 4).unwrap();
        $bits![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        let want: Vec<u32> = (0..n).flat_map(|r| $bits_ref(x[r], y[r], z[r], 0)).collect();
        assert_eq!(host(&out), want, stringify!($bits));
        let mut out = zeros::<$t>(n * 9).unwrap();
        $bin![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        let want: Vec<$t> = (0..n).flat_map(|r| $bin_ref(x[r], y[r], z[r], 0)).collect();
        assert_eq!(host(&out), want, stringify!($bin));
        let mut out = zeros::<$t>(n * $unw).unwrap();
        $un![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        let want: Vec<$t> = (0..n).flat_map(|r| $un_ref(x[r], y[r], z[r], 0)).collect();
        assert_eq!(host(&out), want, stringify!($un));
        let mut out = zeros::<$u>(n).unwrap();
        $ad![blocks, 32](&dx, &dy, &dz, &dk, &mut out).unwrap();
        let want: Vec<$u> = (0..n).flat_map(|r| $ad_ref(x[r], y[r], z[r], 0)).collect();
        assert_eq!(host(&out), want, stringify!($ad));
        let shifts: Vec<u32> = (0..n as u32).map(|i| SHIFTS[i as usize % SHIFTS.len()]).collect();
        let mut out = zeros::<$t>(n * 6).unwrap();
        $sh![blocks, 32](&dx, &dev(&shifts), &mut out).unwrap();
        let want: Vec<$t> = (0..n).flat_map(|r| $sh_ref(x[r], shifts[r])).collect();
        assert_eq!(host(&out), want, stringify!($sh));
    }};
}

fn integer_methods_match_rust_for_every_type() {
    int_case!(
        i32,
        u32,
        EDGE_I32.to_vec(),
        bits_i32,
        bits_i32_ref,
        bin_i32,
        bin_i32_ref,
        sh_i32,
        sh_i32_ref,
        ad_i32,
        ad_i32_ref,
        un_i32,
        un_i32_ref,
        5
    );
    int_case!(
        i64,
        u64,
        EDGE_I64.to_vec(),
        bits_i64,
        bits_i64_ref,
        bin_i64,
        bin_i64_ref,
        sh_i64,
        sh_i64_ref,
        ad_i64,
        ad_i64_ref,
        un_i64,
        un_i64_ref,
        5
    );
    int_case!(
        u32,
        u32,
        EDGE_U32.to_vec(),
        bits_u32,
        bits_u32_ref,
        bin_u32,
        bin_u32_ref,
        sh_u32,
        sh_u32_ref,
        ad_u32,
        ad_u32_ref,
        un_u32,
        un_u32_ref,
        3
    );
    int_case!(
        u64,
        u64,
        EDGE_U64.to_vec(),
        bits_u64,
        bits_u64_ref,
        bin_u64,
        bin_u64_ref,
        sh_u64,
        sh_u64_ref,
        ad_u64,
        ad_u64_ref,
        un_u64,
        un_u64_ref,
        3
    );
    int_case!(
        usize,
        usize,
        EDGE_USIZE.to_vec(),
        bits_usize,
        bits_usize_ref,
        bin_usize,
        bin_usize_ref,
        sh_usize,
        sh_usize_ref,
        ad_usize,
        ad_usize_ref,
        un_usize,
        un_usize_ref,
        3
    );
    int_case!(
        u8,
        u8,
        EDGE_U8.to_vec(),
        bits_u8,
        bits_u8_ref,
        bin_u8,
        bin_u8_ref,
        sh_u8,
        sh_u8_ref,
        ad_u8,
        ad_u8_ref,
        un_u8,
        un_u8_ref,
        3
    );
    // The example, on its own: (-1i32).count_ones() is 32.
    let mut out = zeros::<u32>(4).unwrap();
    bits_i32![1, 1](&dev(&[-1i32]), &dev(&[0i32]), &dev(&[1i32]), &dev(&[0i32]), &mut out).unwrap();
    assert_eq!(host(&out), [32, 0, 0, 0]);
}

fn constant_expressions_wrap_as_at_run_time() {
    // The same operands at run time: u32::MAX, 3, 0x8000_0001, -1 (as u32), 63, 0, 0x81.
    let x = [u32::MAX, 3, 0x8000_0001, u32::MAX, 63, 0, 0x81];
    let (mut out, mut sout, mut bout) = (
        zeros::<u32>(8).unwrap(),
        zeros::<i64>(6).unwrap(),
        zeros::<u8>(4).unwrap(),
    );
    const_exprs![1, 1](&dev(&x), &mut out, &mut sout, &mut bout).unwrap();
    let out = host(&out);
    assert_eq!(out[0], 1, "u32::MAX.wrapping_add(2)");
    assert_eq!(out[0], out[1]);
    assert_eq!(out[2], 3u32.wrapping_pow(21));
    assert_eq!(out[2], out[3]);
    assert_eq!(out[4], 2 + 32);
    assert_eq!(out[4], out[5]);
    assert_eq!(
        out[6], 15,
        "a shared array of 65536 * 65536 / 65536 / 65536 + 1 = 2 elements"
    );
    assert_eq!(out[7], 255);
    let sout = host(&sout);
    assert_eq!(sout[0], i64::MIN, "1i64 << 63");
    assert_eq!(sout[0], sout[1]);
    assert_eq!(sout[2], 2 + -3);
    assert_eq!(sout[2], sout[3]);
    assert_eq!(sout[4], i64::MAX - 1);
    assert_eq!(sout[5], -16);
    assert_eq!(host(&bout), [0x03, 0x03, 44, 255]);
}

fn clamp_with_inverted_bounds_is_a_fault_with_rusts_value() {
    let x = [-2.0f32, 0.0, 2.0, f32::NAN];
    let (mut out, mut iout) = (zeros::<f32>(4).unwrap(), zeros::<i32>(4).unwrap());
    let r = clamp_inverted![1, 4](&dev(&x), &mut out, &mut iout);
    match r {
        Err(Error::KernelFault { faults, message, .. }) => {
            assert_eq!(faults, 8, "one per clamp per thread");
            assert!(message.contains("clamp"), "{message}");
        }
        other => panic!("expected a KernelFault, got {other:?}"),
    }
    // Rust's body: below lo (1.0) gives lo, then above hi (-1.0) gives hi.
    let got = host(&out);
    assert_eq!(&got[..3], &[-1.0, -1.0, -1.0]);
    assert!(got[3].is_nan());
    assert_eq!(host(&iout), [1, 1, 1, 1]);
}

fn euclid_by_zero_is_a_fault() {
    let (a, b) = ([7i32, -7, 5], [0i32, 2, 0]);
    let mut out = zeros::<i32>(6).unwrap();
    let r = euclid_by_zero![1, 3](&dev(&a), &dev(&b), &mut out);
    match r {
        Err(Error::KernelFault { faults, message, .. }) => {
            assert_eq!(faults, 4);
            assert!(message.contains("division by zero"), "{message}");
        }
        other => panic!("expected a KernelFault, got {other:?}"),
    }
    assert_eq!(host(&out), [0, 0, -4, 1, 0, 0]);
}
