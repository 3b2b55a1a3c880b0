//! The integer methods of issue #17 (`tests/kernels/int_methods.rs`) on edge
//! values of every integer type: the C helpers (`gj_div_ceil`, `gj_isqrt`,
//! `gj_ilog10`, ...) against the CPU backend, which calls Rust's methods.

use super::*;

/// 0, 1, powers of two and ten with their neighbours, squares near `MAX`,
/// `MAX` (and for signed types their negations and `MIN`), as `i128`.
fn edges(bits: u32, signed: bool) -> Vec<i128> {
    let max: i128 = if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    };
    let mut v: Vec<i128> = vec![0, 1, 2, 3, 5, 7, 9, 10, 11, 99, 100, 101];
    for k in 0..bits {
        v.extend([(1i128 << k) - 1, 1i128 << k, (1i128 << k) + 1]);
    }
    let mut t = 10i128;
    while t <= max {
        v.extend([t - 1, t + 1]);
        t *= 10;
    }
    let r = (max as f64).sqrt() as i128;
    for s in [r - 1, r, r + 1] {
        v.extend([s * s - 1, s * s, s * s + 1]);
    }
    v.extend([max - 1, max, max / 2 + 1]);
    if signed {
        let neg: Vec<i128> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v.push(-max - 1);
    }
    let min = if signed { -max - 1 } else { 0 };
    v.retain(|&x| (min..=max).contains(&x));
    v.sort();
    v.dedup();
    v
}

pub(crate) fn int_methods_agree() {
    use kernels::int_methods::*;
    let mut cases: Vec<Case> = Vec::new();
    // Each value against a few second operands: the same values reversed,
    // rotated and a small constant (zero divisors are replaced by 1 in the
    // kernels, logarithms to a base below 2 are skipped).
    let pairs = |bits: u32, signed: bool| -> (Vec<i128>, Vec<i128>) {
        let x = edges(bits, signed);
        let n = x.len();
        let mut a = Vec::new();
        let mut b = Vec::new();
        for (i, &xi) in x.iter().enumerate() {
            for y in [x[n - 1 - i], x[(i * 7 + 3) % n], 10, 3] {
                a.push(xi);
                b.push(y);
            }
        }
        (a, b)
    };
    macro_rules! unsigned {
        ($k:ident, $t:ty) => {{
            let (a, b) = pairs(<$t>::BITS, false);
            let n = a.len();
            let a: Vec<$t> = a.iter().map(|&x| x as $t).collect();
            let b: Vec<$t> = b.iter().map(|&x| x as $t).collect();
            cases.push((
                &$k::KERNEL,
                lin((n as u32).div_ceil(64)),
                (64, 1, 1),
                vec![
                    v(&a),
                    v(&b),
                    z::<$t>(&[n * UNSIGNED_OUT]),
                    z::<u32>(&[n * UNSIGNED_OUT32]),
                    z::<bool>(&[n]),
                ],
                EXACT,
            ));
        }};
    }
    unsigned!(int_methods_u8, u8);
    unsigned!(int_methods_u16, u16);
    unsigned!(int_methods_u32, u32);
    unsigned!(int_methods_u64, u64);
    unsigned!(int_methods_usize, usize);
    macro_rules! signed {
        ($k:ident, $t:ty, $u:ty) => {{
            let (a, b) = pairs(<$t>::BITS, true);
            let n = a.len();
            let a: Vec<$t> = a.iter().map(|&x| x as $t).collect();
            let b: Vec<$t> = b.iter().map(|&x| x as $t).collect();
            cases.push((
                &$k::KERNEL,
                lin((n as u32).div_ceil(64)),
                (64, 1, 1),
                vec![
                    v(&a),
                    v(&b),
                    z::<$t>(&[n * SIGNED_OUT]),
                    z::<$u>(&[n]),
                    z::<u32>(&[n * SIGNED_OUT32]),
                ],
                EXACT,
            ));
        }};
    }
    signed!(int_methods_i8, i8, u8);
    signed!(int_methods_i16, i16, u16);
    signed!(int_methods_i32, i32, u32);
    signed!(int_methods_i64, i64, u64);
    macro_rules! negate {
        ($k:ident, $t:ty, $signed:expr) => {{
            let x: Vec<$t> = edges(<$t>::BITS, $signed).iter().map(|&x| x as $t).collect();
            let n = x.len();
            cases.push((
                &$k::KERNEL,
                lin((n as u32).div_ceil(64)),
                (64, 1, 1),
                vec![v(&x), z::<$t>(&[n]), z::<i64>(&[n])],
                EXACT,
            ));
        }};
    }
    negate!(negate_u8, u8, false);
    negate!(negate_u16, u16, false);
    negate!(negate_u32, u32, false);
    negate!(negate_u64, u64, false);
    negate!(negate_usize, usize, false);
    negate!(negate_i8, i8, true);
    negate!(negate_i16, i16, true);
    negate!(negate_i32, i32, true);
    negate!(negate_i64, i64, true);
    for n in [1u32, 256, 257, 100_000, 4_000_000] {
        cases.push((
            &int_methods_forms::KERNEL,
            ONE,
            ONE,
            vec![s(n), z::<u32>(&[6]), z::<u64>(&[3])],
            EXACT,
        ));
    }
    cases.push((
        &own_names_like_intrinsics::KERNEL,
        ONE,
        (40, 1, 1),
        vec![z::<u32>(&[40]), s(32u32)],
        EXACT,
    ));
    check(cases);
}
