//! The seed examples' kernels against their host references, at small and odd sizes.

use crate::common;

use crate::lucas;

#[path = "../../examples/loop_test.rs"]
#[allow(dead_code)]
mod loop_test;

#[path = "../../examples/grayscale.rs"]
#[allow(dead_code)]
mod grayscale;

#[path = "../../examples/streams.rs"]
#[allow(dead_code)]
mod streams;
// streams.rs holds the matmul example as a module: one copy of it here.
use streams::matmul;

use ndarray::{Array2, Array3};

// ---------------------------------------------------------------- lucas

fn lucas_up_to_40_matches_the_published_value() {
    let table = lucas::lucas_table(40).unwrap();
    assert_eq!(table.len(), 41);
    assert_eq!(table[40], 228_826_127);
    assert_eq!(&table[..6], &[2, 1, 3, 4, 7, 11]);
    assert_eq!(table, lucas::lucas_host(40));
}

fn lucas_up_to_90_matches_the_host_in_u64() {
    let table = lucas::lucas_table(90).unwrap();
    let host = lucas::lucas_host(90);
    assert_eq!(table, host);
    // Independent check of the recurrence over the whole table.
    for n in 2..=90 {
        assert_eq!(table[n], table[n - 1] + table[n - 2], "L({n})");
    }
    assert!(table[90] > u32::MAX as u64, "L(90) should need 64 bits");
}

fn lucas_small_and_odd_sizes() {
    for max_n in [0, 1, 2, 63, 64, 65] {
        assert_eq!(
            lucas::lucas_table(max_n).unwrap(),
            lucas::lucas_host(max_n),
            "max_n = {max_n}"
        );
    }
}

// ---------------------------------------------------------------- loop test

fn loop_kernel_matches_the_host_exactly() {
    for n in [1usize, 7, 300] {
        let want = loop_test::loop_host(n);
        for threads in [256usize, 64] {
            let mut d_out = gpujit::device_array::<f64>(n).unwrap();
            let total = loop_test::loop_total(&mut d_out, threads).unwrap();
            let got = d_out.copy_to_host().unwrap();
            assert_eq!(got, want, "n = {n}, {threads} threads per block");
            assert_eq!(total, want.iter().sum::<f64>(), "n = {n}, {threads} threads per block");
        }
    }
}

fn loop_host_is_the_documented_formula() {
    // sum_j i * j * 0.1 = 0.1 * i * INNER (INNER - 1) / 2, up to rounding.
    let host = loop_test::loop_host(20);
    let inner = loop_test::INNER as f64;
    for (i, &v) in host.iter().enumerate() {
        let exact = 0.1 * i as f64 * inner * (inner - 1.0) / 2.0;
        assert!(
            (v - exact).abs() <= 1e-9 * exact.abs().max(1.0),
            "i = {i}: {v} vs {exact}"
        );
    }
}

// ---------------------------------------------------------------- grayscale

fn synthetic_rgb(h: usize, w: usize) -> Array3<u8> {
    Array3::from_shape_fn((h, w, 3), |(y, x, c)| ((y * 37 + x * 11 + c * 101 + y * x) % 256) as u8)
}

fn gray_on_backend(rgb: &Array3<u8>) -> Array2<u8> {
    let (h, w, _) = rgb.dim();
    let d_rgb = gpujit::to_device(rgb).unwrap();
    let mut d_gray = gpujit::device_array::<u8>((h, w)).unwrap();
    grayscale::to_grayscale(&d_rgb, &mut d_gray).unwrap();
    d_gray.copy_to_ndarray().unwrap()
}

fn grayscale_synthetic_odd_sizes() {
    for (h, w) in [(23usize, 37usize), (1, 1), (17, 1), (1, 33), (16, 16)] {
        let rgb = synthetic_rgb(h, w);
        let got = gray_on_backend(&rgb);
        assert_eq!(got.dim(), (h, w));
        assert_eq!(got, grayscale::grayscale_host(&rgb), "{h} x {w}");
    }
}

fn grayscale_extremes() {
    // Pure white must stay 255 (0.299 + 0.587 + 0.114 rounds to just under or at 1 in f32).
    let mut rgb = Array3::<u8>::zeros((3, 5, 3));
    rgb.slice_mut(ndarray::s![1, .., ..]).fill(255);
    rgb[[2, 4, 0]] = 255;
    let got = gray_on_backend(&rgb);
    assert_eq!(got, grayscale::grayscale_host(&rgb));
    assert_eq!(got[[0, 0]], 0);
    let white = (0.299f32 * 255.0 + 0.587f32 * 255.0 + 0.114f32 * 255.0) as u8;
    assert_eq!(got[[1, 3]], white);
    assert_eq!(got[[2, 4]], (0.299f32 * 255.0) as u8);
}

fn grayscale_committed_photo() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/coffee.png");
    let rgb = grayscale::load_rgb(&path).unwrap();
    assert_eq!(rgb.dim(), (400, 600, 3));
    let got = gray_on_backend(&rgb);
    assert_eq!(got, grayscale::grayscale_host(&rgb));
}

fn grayscale_missing_file_is_an_error() {
    let err = grayscale::load_rgb(std::path::Path::new("no/such/file.png")).unwrap_err();
    assert!(err.to_string().contains("no/such/file.png"), "{err}");
}

// ---------------------------------------------------------------- matmul

fn check_matmul(n: usize, k: usize, m: usize) {
    let a = matmul::test_matrix(n, k, 1 + n as u64);
    let b = matmul::test_matrix(k, m, 2 + m as u64);
    // Host f64 reference, written out (not ndarray's dot).
    let mut want = Array2::<f64>::zeros((n, m));
    for i in 0..n {
        for j in 0..m {
            want[[i, j]] = (0..k).map(|p| a[[i, p]] as f64 * b[[p, j]] as f64).sum();
        }
    }
    let d_a = gpujit::to_device(&a).unwrap();
    let d_b = gpujit::to_device(&b).unwrap();
    for variant in [matmul::Variant::Naive, matmul::Variant::Tiled] {
        // Pre-fill C with garbage: every element must be written.
        let mut d_c = gpujit::to_device(&Array2::<f32>::from_elem((n, m), f32::NAN)).unwrap();
        matmul::matmul(variant, &d_a, &d_b, &mut d_c).unwrap();
        let c: Array2<f32> = d_c.copy_to_ndarray().unwrap();
        assert_eq!(c.dim(), (n, m));
        let err = matmul::max_rel_error(&c, &want);
        assert!(err < 1e-5, "{variant:?} {n}x{k} · {k}x{m}: max rel error {err}");
        assert!(
            c.iter().all(|v| v.is_finite()),
            "{variant:?} {n}x{k} · {k}x{m}: unwritten elements"
        );
    }
}

fn matmul_square() {
    for n in [1, 16, 17, 33] {
        check_matmul(n, n, n);
    }
}

fn matmul_non_square() {
    for (n, k, m) in [(20, 37, 5), (1, 64, 3), (65, 1, 70), (3, 17, 1)] {
        check_matmul(n, k, m);
    }
}

fn max_rel_error_detects_a_wrong_element() {
    let want = Array2::<f64>::from_elem((2, 2), 1.0);
    let mut got = Array2::<f32>::from_elem((2, 2), 1.0);
    assert_eq!(matmul::max_rel_error(&got, &want), 0.0);
    got[[1, 0]] = 1.5;
    assert!(matmul::max_rel_error(&got, &want) > 0.2);
}

// ---------------------------------------------------------------- streams

/// The stream pipeline (uploads, tiled kernel, pinned download, events) gives
/// the host product at odd shapes and times every step.
fn streams_matmul_matches_the_host_at_odd_shapes() {
    for (n, k, m) in [(1, 1, 1), (20, 37, 5), (33, 16, 47)] {
        let a = matmul::test_matrix(n, k, 7);
        let b = matmul::test_matrix(k, m, 8);
        let (c, t) = streams::matmul_on_stream(&a, &b).unwrap();
        assert_eq!(c.dim(), (n, m));
        let want = a.mapv(f64::from).dot(&b.mapv(f64::from));
        let err = matmul::max_rel_error(&c, &want);
        assert!(err < 1e-5, "{n}x{k}x{m}: max rel. error {err}");
        for ms in [t.to_device_ms, t.kernel_ms, t.to_host_ms] {
            assert!(ms.is_finite() && ms >= 0.0, "{t:?}");
        }
    }
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => lucas_up_to_40_matches_the_published_value,
        None => lucas_up_to_90_matches_the_host_in_u64,
        None => lucas_small_and_odd_sizes,
        None => loop_kernel_matches_the_host_exactly,
        None => loop_host_is_the_documented_formula,
        None => grayscale_synthetic_odd_sizes,
        None => grayscale_extremes,
        None => grayscale_committed_photo,
        None => grayscale_missing_file_is_an_error,
        None => matmul_square,
        None => matmul_non_square,
        None => max_rel_error_detects_a_wrong_element,
        None => streams_matmul_matches_the_host_at_odd_shapes,
    ]
}
