//! The integer methods of issue #17 (`div_ceil`, `next_multiple_of`,
//! `next_power_of_two`, `isqrt`, `ilog`, `ilog2`, `ilog10`, `saturating_mul`,
//! `unsigned_abs`, `leading_ones`, `trailing_ones`, `wrapping_div`,
//! `wrapping_rem`) on the backend of the process, against Rust's own methods
//! on the same inputs: 0, 1, powers of two and ten and their neighbours,
//! perfect squares near `MAX`, `MIN` and `MAX`, for every integer type.
//! Where Rust's method would overflow (`next_multiple_of`,
//! `next_power_of_two`), the kernel wraps, as its arithmetic does; where it
//! would panic (a zero divisor, the logarithm of 0), the CPU backend reports
//! a `KernelFault`.
//!
//! Run on the CPU backend (its default paths and, with
//! `GPUJIT_CPU_EXEC=coroutines`, the reference path), on the driver double
//! (`GPUJIT_BACKEND=cuda`); `tests/agree/` runs the same kernels' C.

use crate::kernels::int_methods::*;

use crate::common;
use common::Tool;

use gpujit::{to_device, zeros, DeviceArray, DeviceScalar, Error};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, cpu) = (None, Some(Tool::CpuBackend));
    cases![
        any => unsigned_methods_match_std_for_every_width,
        any => signed_methods_match_std_for_every_width,
        any => call_form_literals_and_consts_match_std,
        cpu => zero_divisors_and_logarithms_of_zero_are_faults,
        any => kernel_variables_may_take_intrinsic_names,
    ]
}

fn dev<T: DeviceScalar>(v: &[T]) -> DeviceArray<T> {
    to_device(v).unwrap()
}

fn host<T: DeviceScalar>(d: &DeviceArray<T>) -> Vec<T> {
    d.copy_to_host().unwrap()
}

/// Edge values of an integer type of `bits` bits (`signed`: also their
/// negations and `MIN`), as `i128`, without duplicates.
fn edges(bits: u32, signed: bool) -> Vec<i128> {
    let max: i128 = if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    };
    let mut v: Vec<i128> = vec![
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 17, 24, 99, 100, 101, 255, 256, 257,
    ];
    for k in 0..bits {
        let p = 1i128 << k;
        v.extend([p - 1, p, p + 1]);
    }
    let mut t = 1i128;
    while t <= max {
        v.extend([t - 1, t, t + 1]);
        t *= 10;
    }
    // Perfect squares near MAX (isqrt's hardest inputs) and their neighbours.
    let r = (max as f64).sqrt() as i128;
    for s in [r - 1, r, r + 1] {
        v.extend([s * s - 1, s * s, s * s + 1]);
    }
    v.extend([max - 1, max, max / 2, max / 2 + 1, max / 3]);
    if signed {
        let neg: Vec<i128> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v.extend([-max - 1, -max]);
    }
    v.retain(|&x| x <= max && x >= if signed { -max - 1 } else { 0 });
    v.sort();
    v.dedup();
    v
}

/// Second operands: divisors and bases, including 0 (the kernels turn a
/// zero divisor into 1 and skip the logarithm to a base below 2).
fn operands(bits: u32, signed: bool) -> Vec<i128> {
    let max: i128 = if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    };
    let mut v = vec![
        0,
        1,
        2,
        3,
        7,
        10,
        16,
        100,
        max,
        max - 1,
        max / 2 + 1,
        1i128 << (bits / 2),
    ];
    if signed {
        v.extend([-1, -2, -3, -7, -max, -max - 1]);
    }
    v.retain(|&x| x <= max && x >= if signed { -max - 1 } else { 0 });
    v.sort();
    v.dedup();
    v
}

macro_rules! check_unsigned {
    ($kernel:ident, $t:ty) => {{
        let bits = <$t>::BITS;
        let (xs, ys) = (edges(bits, false), operands(bits, false));
        let mut a: Vec<$t> = Vec::new();
        let mut b: Vec<$t> = Vec::new();
        for &x in &xs {
            for &y in &ys {
                a.push(x as $t);
                b.push(y as $t);
            }
        }
        let n = a.len();
        let mut out = zeros::<$t>(n * UNSIGNED_OUT).unwrap();
        let mut out32 = zeros::<u32>(n * UNSIGNED_OUT32).unwrap();
        let mut flags = zeros::<bool>(n).unwrap();
        $kernel![n.div_ceil(128), 128](&dev(&a), &dev(&b), &mut out, &mut out32, &mut flags).unwrap();
        let (out, out32, flags) = (host(&out), host(&out32), host(&flags));
        let mut bad = Vec::new();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let d = if y == 0 { 1 } else { y };
            let want: [$t; UNSIGNED_OUT] = [
                x.div_ceil(d),
                match x % d {
                    0 => x,
                    r => x.wrapping_add(d - r),
                },
                x.checked_next_power_of_two().unwrap_or(0),
                x.isqrt(),
                x.saturating_mul(y),
                x.wrapping_div(d),
                x.wrapping_rem(d),
            ];
            let want32: [u32; UNSIGNED_OUT32] = [
                if x > 0 && y >= 2 { x.ilog(y) } else { 99 },
                if x > 0 { x.ilog2() } else { 99 },
                if x > 0 { x.ilog10() } else { 99 },
                x.leading_ones(),
                x.trailing_ones(),
            ];
            let names = [
                "div_ceil",
                "next_multiple_of",
                "next_power_of_two",
                "isqrt",
                "saturating_mul",
                "wrapping_div",
                "wrapping_rem",
            ];
            for (k, w) in want.iter().enumerate() {
                let got = out[i * UNSIGNED_OUT + k];
                if got != *w {
                    bad.push(format!("{x}.{}({y}) = {got}, Rust: {w}", names[k]));
                }
            }
            let names32 = ["ilog", "ilog2", "ilog10", "leading_ones", "trailing_ones"];
            for (k, w) in want32.iter().enumerate() {
                let got = out32[i * UNSIGNED_OUT32 + k];
                if got != *w {
                    bad.push(format!("{x}.{}({y}) = {got}, Rust: {w}", names32[k]));
                }
            }
            if flags[i] != x.is_power_of_two() {
                bad.push(format!("{x}.is_power_of_two() = {}", flags[i]));
            }
        }
        assert!(
            bad.is_empty(),
            "{}: {} of {} results differ from Rust's:\n{}",
            stringify!($t),
            bad.len(),
            n * (UNSIGNED_OUT + UNSIGNED_OUT32 + 1),
            bad[..bad.len().min(40)].join("\n")
        );
        eprintln!("{}: {n} input pairs agree", stringify!($t));
    }};
}

fn unsigned_methods_match_std_for_every_width() {
    check_unsigned!(int_methods_u8, u8);
    check_unsigned!(int_methods_u16, u16);
    check_unsigned!(int_methods_u32, u32);
    check_unsigned!(int_methods_u64, u64);
    check_unsigned!(int_methods_usize, usize);
}

macro_rules! check_signed {
    ($kernel:ident, $t:ty, $u:ty) => {{
        let bits = <$t>::BITS;
        let (xs, ys) = (edges(bits, true), operands(bits, true));
        let mut a: Vec<$t> = Vec::new();
        let mut b: Vec<$t> = Vec::new();
        for &x in &xs {
            for &y in &ys {
                a.push(x as $t);
                b.push(y as $t);
            }
        }
        let n = a.len();
        let mut out = zeros::<$t>(n * SIGNED_OUT).unwrap();
        let mut out_u = zeros::<$u>(n).unwrap();
        let mut out32 = zeros::<u32>(n * SIGNED_OUT32).unwrap();
        $kernel![n.div_ceil(128), 128](&dev(&a), &dev(&b), &mut out, &mut out_u, &mut out32).unwrap();
        let (out, out_u, out32) = (host(&out), host(&out_u), host(&out32));
        let mut bad = Vec::new();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let d = if y == 0 { 1 } else { y };
            let want: [$t; SIGNED_OUT] = [
                if x >= 0 { x.isqrt() } else { -1 },
                x.saturating_mul(y),
                x.wrapping_div(d),
                x.wrapping_rem(d),
            ];
            let names = ["isqrt", "saturating_mul", "wrapping_div", "wrapping_rem"];
            for (k, w) in want.iter().enumerate() {
                let got = out[i * SIGNED_OUT + k];
                if got != *w {
                    bad.push(format!("{x}.{}({y}) = {got}, Rust: {w}", names[k]));
                }
            }
            if out_u[i] != x.unsigned_abs() {
                bad.push(format!("{x}.unsigned_abs() = {}, Rust: {}", out_u[i], x.unsigned_abs()));
            }
            let want32: [u32; SIGNED_OUT32] = [
                if x > 0 && y >= 2 { x.ilog(y) } else { 99 },
                if x > 0 { x.ilog2() } else { 99 },
                if x > 0 { x.ilog10() } else { 99 },
                x.leading_ones(),
                x.trailing_ones(),
            ];
            let names32 = ["ilog", "ilog2", "ilog10", "leading_ones", "trailing_ones"];
            for (k, w) in want32.iter().enumerate() {
                let got = out32[i * SIGNED_OUT32 + k];
                if got != *w {
                    bad.push(format!("{x}.{}({y}) = {got}, Rust: {w}", names32[k]));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{}: {} of {} results differ from Rust's:\n{}",
            stringify!($t),
            bad.len(),
            n * (SIGNED_OUT + SIGNED_OUT32 + 1),
            bad[..bad.len().min(40)].join("\n")
        );
        eprintln!("{}: {n} input pairs agree", stringify!($t));
    }};
}

fn signed_methods_match_std_for_every_width() {
    check_signed!(int_methods_i8, i8, u8);
    check_signed!(int_methods_i16, i16, u16);
    check_signed!(int_methods_i32, i32, u32);
    check_signed!(int_methods_i64, i64, u64);
}

#[allow(clippy::manual_div_ceil)] // the kernel's expressions, on the host
fn call_form_literals_and_consts_match_std() {
    for n in [1u32, 255, 256, 257, 100_000, 4_000_000] {
        let (mut out, mut wide) = (zeros::<u32>(6).unwrap(), zeros::<u64>(3).unwrap());
        int_methods_forms![1, 1](n, &mut out, &mut wide).unwrap();
        let big = n as u64 * 1_000_000;
        assert_eq!(
            host(&out),
            [
                n.div_ceil(256),
                100_000u32.div_ceil(256),
                n.next_multiple_of(256) / 256,
                n.isqrt(),
                n.ilog2() + n.ilog10() + n.ilog(3),
                (n as i32 - 200_000).unsigned_abs(),
            ],
            "n = {n}"
        );
        assert_eq!(
            host(&wide),
            [
                big.checked_next_power_of_two().unwrap_or(0),
                big.saturating_mul(big),
                u64::MAX.div_ceil(big)
            ],
            "n = {n}"
        );
    }
}

fn zero_divisors_and_logarithms_of_zero_are_faults() {
    // Thread 0 divides by zero and takes logarithms of 0 (5 faults in `out`,
    // ilog2 of 0, isqrt of -4); thread 1 has a base of 1 (ilog faults) and
    // valid values otherwise; thread 2 is valid throughout.
    let a = [0u32, 7, 1000];
    let b = [0u32, 1, 10];
    let s = [-4i32, 0, 17];
    let (mut out, mut sout) = (zeros::<u32>(18).unwrap(), zeros::<i32>(3).unwrap());
    let r = int_methods_faults![1, 3](&dev(&a), &dev(&b), &dev(&s), &mut out, &mut sout);
    match r {
        Err(Error::KernelFault {
            thread,
            faults,
            message,
            ..
        }) => {
            assert_eq!(thread, [0, 0, 0], "the first faulting thread");
            // Thread 0: div_ceil, next_multiple_of, ilog2, ilog10, ilog (of 0
            // and to base 0), ilog2 of -4, isqrt of -4; thread 1: ilog to
            // base 1, ilog2 of 0.
            assert_eq!(faults, 7 + 2, "{message}");
            assert!(message.contains("division by zero"), "{message}");
        }
        other => panic!("expected a KernelFault, got {other:?}"),
    }
    let out = host(&out);
    assert_eq!(&out[..6], &[0, 0, 0, 0, 0, 0], "a faulting thread gets 0");
    assert_eq!(&out[6..12], &[7, 7, 2, 0, 0, 0]);
    assert_eq!(
        &out[12..],
        &[100, 1000, 1000u32.ilog2(), 3, 3, 17i32.ilog2()],
        "the other threads are unaffected"
    );
    assert_eq!(host(&sout), [0, 0, 4]);
}

/// (Not an integer method: the other half of issue #17's names.) A kernel's
/// variable named `warpSize`, `lane_id` or `activemask` is the kernel's.
fn kernel_variables_may_take_intrinsic_names() {
    let mut out = zeros::<u32>(40).unwrap();
    own_names_like_intrinsics![1, 40](&mut out, 32).unwrap();
    let want: Vec<u32> = (0..40u32).map(|i| (i % 32) * 10 + i % 32 + 1).collect();
    assert_eq!(host(&out), want);
}
