//! The math methods match the host within a few ulps.

use super::*;

pub(crate) fn math_methods_match_the_host_within_a_few_ulps() {
    let xs = [
        0.0,
        0.3,
        -0.3,
        1.0,
        -1.0,
        2.5,
        -2.5,
        3.7,
        -7.25,
        10.0,
        100.5,
        1e-3,
        -1e5,
        6.0,
        f64::NAN,
    ];
    let ys = [
        1.0,
        2.0,
        -0.5,
        0.5,
        3.0,
        -3.0,
        2.5,
        0.0,
        7.0,
        -10.0,
        1.5,
        2.0,
        0.1,
        f64::NAN,
        1.0,
    ];
    let n = xs.len();
    let mut out = zeros::<f64>(n * 13).unwrap();
    math_f64![1, 32](&dev(&xs), &dev(&ys), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (a, b) = (xs[i], ys[i]);
        let want = [
            a.abs().sqrt(),
            a.abs(),
            a.min(b),
            a.max(b),
            a.mul_add(b, 0.25),
            a.floor(),
            a.ceil(),
            (a / 4.0).exp(),
            a.abs().ln(),
            a.sin(),
            a.cos(),
            a.abs().powf(b),
            a.powi(3),
        ];
        for (m, (&g, &w)) in got[i * 13..i * 13 + 13].iter().zip(&want).enumerate() {
            assert!(ulps64(g, w) <= 4, "f64 method {m} of ({a}, {b}): got {g}, want {w}");
        }
    }

    let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let ys32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
    let mut out = zeros::<f32>(n * 13).unwrap();
    math_f32![1, 32](&dev(&xs32), &dev(&ys32), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (a, b) = (xs32[i], ys32[i]);
        let want = [
            a.abs().sqrt(),
            a.abs(),
            a.min(b),
            a.max(b),
            a.mul_add(b, 0.25),
            a.floor(),
            a.ceil(),
            (a / 4.0).exp(),
            a.abs().ln(),
            a.sin(),
            a.cos(),
            a.abs().powf(b),
            a.powi(3),
        ];
        for (m, (&g, &w)) in got[i * 13..i * 13 + 13].iter().zip(&want).enumerate() {
            assert!(ulps32(g, w) <= 4, "f32 method {m} of ({a}, {b}): got {g}, want {w}");
        }
    }
    // f32 kernels call the float versions of the C math functions.
    let src = math_f32::cuda_source();
    for f in ["sqrtf(", "fminf(", "fmaf(", "expf(", "logf(", "sinf(", "powf("] {
        assert!(src.contains(f), "no {f} in\n{src}");
    }
}
