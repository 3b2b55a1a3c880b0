//! Small integer types, `bool` and tuples as parameters, arrays, shared
//! arrays and values, and scalar parameters of every type.

use super::*;

pub(crate) fn small_scalar_parameters() {
    let a: Vec<i32> = (0..70).collect();
    let mut out = zeros::<i32>(a.len()).unwrap();
    small_scalars![2, 64](-128i8, -32768i16, 65535u16, true, &dev(&a), &mut out).unwrap();
    let want: Vec<i32> = a.iter().map(|v| v - 128 - 32768 + 65535).collect();
    assert_eq!(host(&out), want);
    small_scalars![2, 64](127i8, 32767i16, 7u16, false, &dev(&a), &mut out).unwrap();
    let want: Vec<i32> = a.iter().map(|v| -(v + 127 + 32767 + 7)).collect();
    assert_eq!(host(&out), want);
}

pub(crate) fn bool_arrays_in_out_and_shared() {
    let n = 100;
    let a: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
    let b: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
    let (mut out, mut nb) = (zeros::<bool>(2 * n).unwrap(), zeros::<bool>(n).unwrap());
    bool_arrays![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out, &mut nb).unwrap();
    let (got, gn) = (host(&out), host(&nb));
    for i in 0..n {
        assert_eq!([got[2 * i], got[2 * i + 1]], [a[i] ^ b[i], a[i] && !b[i]], "i = {i}");
        // The neighbour in the block; threads past `n` leave their slot false.
        let j = i / 64 * 64 + (i % 64 + 1) % 64;
        assert_eq!(gn[i], j < n && a[j], "i = {i}");
    }
    // ndarray round trip of a `bool` array.
    let m = gpujit::ndarray::Array2::from_shape_fn((3, 4), |(r, c)| (r + c) % 2 == 1);
    let d = to_device(&m).unwrap();
    assert_eq!(d.copy_to_ndarray::<gpujit::ndarray::Ix2>().unwrap(), m);
}

pub(crate) fn small_shared_arrays_and_views() {
    let v: Vec<i16> = (0..128).map(|i| (i * 997 % 65536 - 32768) as i16).collect();
    let mut sums = zeros::<i16>(2).unwrap();
    let mut g2 = zeros::<u16>((9, 11)).unwrap();
    small_shared_and_views![2, 64](&dev(&v), &mut sums, &mut g2).unwrap();
    let want: Vec<i16> = v
        .chunks(64)
        .map(|c| c.iter().fold(0i16, |s, &x| s.wrapping_add(x)))
        .collect();
    assert_eq!(host(&sums), want);
    let g: Vec<u16> = host(&g2);
    for y in 0..9usize {
        for x in 0..11usize {
            assert_eq!(g[y * 11 + x], ((x * y) as u16).wrapping_mul(1000), "({y}, {x})");
        }
    }
}

pub(crate) fn tuple_locals_fields_and_destructuring() {
    let x: Vec<i32> = (-60..60).collect();
    let mut out = zeros::<i32>(3 * x.len()).unwrap();
    tuple_locals![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<i32> = x
        .iter()
        .flat_map(|&v| [v * 2 + (v - 1), v - 1 + v * 2 + 7, v * 2 + (v - 1) - v])
        .collect();
    assert_eq!(host(&out), want);
}

pub(crate) fn tuples_as_device_function_arguments() {
    let x: Vec<f32> = (-40..40).map(|v| v as f32).collect();
    let mut out = zeros::<f32>(2 * x.len()).unwrap();
    tuple_params![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<f32> = x.iter().flat_map(|&v| [v + 1.0, 3.0 * v * v + 12.0]).collect();
    assert_eq!(host(&out), want);
}

pub(crate) fn scalar_parameters_of_every_type() {
    let n = 10;
    for (flag, neg) in [(false, false), (true, false), (false, true), (true, true)] {
        let (a, b, c, d, e, f, g, h) = (
            -3_000_000_000i64,
            u64::MAX - 5,
            1usize << 35,
            4_000_000_000u32,
            -7i32,
            250u8,
            0.1f32,
            -2.75f64,
        );
        let mut oi = zeros::<i64>(n).unwrap();
        let mut ou = zeros::<u64>(n).unwrap();
        let mut of = zeros::<f64>(n).unwrap();
        scalars![1, 16](flag, neg, a, b, c, d, e, f, g, h, &mut oi, &mut ou, &mut of).unwrap();
        for i in 0..n {
            let k = i as i64;
            let mut v = a.wrapping_mul(k).wrapping_add(e as i64);
            if flag && !neg {
                v += 1;
            } else if flag || neg {
                v -= 1;
            }
            let v = if neg { v.wrapping_neg() } else { v };
            assert_eq!(host(&oi)[i], v, "flag {flag} neg {neg} i {i}");
            let u = b
                .wrapping_add(c.wrapping_mul(i) as u64)
                .wrapping_add(d as u64)
                .wrapping_add(f as u64);
            assert_eq!(host(&ou)[i], u);
            assert_eq!(host(&of)[i], g as f64 * k as f64 + h);
        }
    }
}

pub(crate) fn tuples_as_values() {
    let x: Vec<i32> = (-50..50).collect();
    let mut out = zeros::<i32>(x.len()).unwrap();
    tuple_values![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<i32> = x
        .iter()
        .map(|&v| {
            let (a, b) = (v * 2, v + 1);
            a * 1000 + b * 10 + (a - b)
        })
        .collect();
    assert_eq!(host(&out), want);
}

/// `early_returns`: each `#[gpu_device]` function that returns a value
/// early (from an `if`, a `for`, a `while`, `match` arms in a `loop`, a
/// nested block with a tuple, a recursion), against the same values
/// computed here without early returns. (These once failed to compile:
/// rustc's E0069 on gpujit's copy of the function.)
pub(crate) fn device_functions_return_values_early() {
    fn first_square_above(x: i32, n: i32) -> i32 {
        (0..n).find(|k| k * k > x).unwrap_or(-1)
    }
    fn collatz(x: i32) -> i32 {
        let (mut v, mut steps) = (x, 0);
        while v > 1 && steps < 50 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        if v > 1 {
            -50
        } else {
            steps
        }
    }
    fn loop_match(x: i32) -> i32 {
        let mut k = 0;
        loop {
            let r = (x + k) % 4;
            if r == 0 {
                break k;
            } else if r == 1 {
                k += 2;
            } else {
                k += 1;
                if k > 10 {
                    break 100;
                }
            }
        }
    }
    let x: Vec<i32> = (-50..50).collect();
    let mut out = zeros::<i32>(6 * x.len()).unwrap();
    early_returns![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<i32> = x
        .iter()
        .flat_map(|&v| {
            let abs_or_double = if v < 0 { -v } else { v * 2 };
            let digits: u32 = ((v + 100) as u32 * 37)
                .to_string()
                .bytes()
                .map(|b| (b - b'0') as u32)
                .sum();
            [
                abs_or_double,
                first_square_above(v, 6),
                collatz(abs_or_double + 1),
                loop_match(v),
                if v % 3 == 0 { v / 3 } else { -1000 - v },
                digits as i32,
            ]
        })
        .collect();
    assert_eq!(host(&out), want);
}
