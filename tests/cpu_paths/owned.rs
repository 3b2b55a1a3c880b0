//! Own-index views and block spans on the CPU backend (issue #7): a
//! written array touched only at the thread's own index gets plain accesses
//! when the launch makes that index injective, and a barrier-free kernel's
//! blocks whose accesses are all in range run an unchecked thread loop.
//! Each kernel runs on the fast path (checked to be taken in the blocks it
//! should) and on the reference path (`with_forced_coroutines`: checked
//! accesses only), and both must equal a host reference, faults included.
//!
//! `forbid(unsafe_code)`: the generated code of every kernel here (which
//! takes the new paths) must not need `unsafe`.

#![forbid(unsafe_code)]

use gpujit::__private::{last_launch_inner_blocks, with_forced_coroutines};
use gpujit::ndarray::Array2;
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use crate::common;
use common::expected;
use common::Expect;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => saxpy_runs_interior_blocks_on_spans,
        cpu => compound_assignment_at_the_own_index,
        cpu => a_launch_with_two_rows_of_blocks_is_right_without_spans,
        cpu => a_2d_launch_with_two_layers_is_right_without_spans,
        cpu => out_of_bounds_own_index_is_the_same_fault,
        cpu => stencil_offsets_at_the_border,
        cpu => constant_third_index_like_grayscale,
        cpu => other_indices_stay_checked_in_span_blocks,
        cpu => edge_shapes_take_spans_only_where_they_fit,
        cpu => a_2d_read_past_the_edge_is_a_fault_with_its_coordinates,
        cpu => pixels_and_points_take_the_constant_stride_copy,
    ]
}

#[gpu_kernel]
fn saxpy_own(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn saxpy_runs_interior_blocks_on_spans() -> gpujit::Result<()> {
    // 5 blocks of 64; the last one is partly past the end (checked loop).
    let n = 300;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 1.5 * x + y).collect();
    let (a, _, b) = common::on_both_paths(Expect::spans(4), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = to_device(&y0)?;
        saxpy_own![5, 64](1.5, &dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

#[gpu_kernel]
fn accumulate(x: &[u32], y: &mut [u32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] += x[i];
        y[i] *= 3;
    }
}

fn compound_assignment_at_the_own_index() -> gpujit::Result<()> {
    let n = 256;
    let x: Vec<u32> = (0..n).collect();
    let want: Vec<u32> = x.iter().map(|x| (x + 1) * 3).collect();
    let (a, _, b) = common::on_both_paths(Expect::spans(4), || -> gpujit::Result<Vec<u32>> {
        let dx = to_device(&x)?;
        let mut dy = to_device(&vec![1u32; n as usize])?;
        accumulate![4, 64](&dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

#[gpu_kernel]
fn scale1(x: &[f32], y: &mut [f32], s: f32) {
    let i = grid(1);
    if i < y.len() {
        y[i] = s * x[i];
    }
}

/// `gridDim.y = 2`: two threads share each own index (`grid(1)` ignores y),
/// so the array is not accessed plainly and no block runs on spans. Both
/// threads write the same value: the result is still exact.
fn a_launch_with_two_rows_of_blocks_is_right_without_spans() -> gpujit::Result<()> {
    let n = 256;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let want: Vec<f32> = x.iter().map(|x| 2.0 * x).collect();
    let (a, _, b) = common::on_both_paths(Expect::spans(0), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<f32>(n)?;
        scale1![(4, 2), 64](&dx, &mut dy, 2.0)?;
        dy.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

#[gpu_kernel]
fn scale2(a: ArrayView2<f32>, mut out: ArrayViewMut2<f32>, s: f32) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        out[[y, x]] = s * a[[y, x]];
    }
}

/// `blockDim.z = 2`: two threads share each `(x, y)`, as above.
fn a_2d_launch_with_two_layers_is_right_without_spans() -> gpujit::Result<()> {
    let a = Array2::from_shape_fn((20, 24), |(r, c)| (r * 24 + c) as f32);
    let want = a.mapv(|v| v * 0.5);
    let (r, _, s) = common::on_both_paths(Expect::spans(0), || -> gpujit::Result<Array2<f32>> {
        let da = to_device(&a)?;
        let mut out = zeros::<f32>((20, 24))?;
        scale2![(3, 3), (8, 8, 2)](&da, &mut out, 0.5)?;
        out.copy_to_ndarray()
    });
    assert_eq!(r?, want);
    assert_eq!(s?, want);
    // One layer: 6 of the 9 blocks lie inside the 20 x 24 array.
    let (r, _, _) = common::on_both_paths(Expect::spans(6), || -> gpujit::Result<Array2<f32>> {
        let da = to_device(&a)?;
        let mut out = zeros::<f32>((20, 24))?;
        scale2![(3, 3), (8, 8)](&da, &mut out, 0.5)?;
        out.copy_to_ndarray()
    });
    assert_eq!(r?, want);
    Ok(())
}

#[gpu_kernel]
fn unguarded(y: &mut [f32]) {
    let i = grid(1);
    y[i] = 1.0;
}

/// No guard: threads past the end fault as with a checked view, with the
/// same message, and write nothing; the others write.
fn out_of_bounds_own_index_is_the_same_fault() {
    let (a, _, b) = common::on_both_paths(Expect::spans(3), || -> (String, [u32; 3], [u32; 3], usize, Vec<f32>) {
        let mut y = zeros::<f32>(1000).unwrap();
        let err = unguarded![4, 256](&mut y).unwrap_err();
        match err {
            Error::KernelFault {
                message,
                block,
                thread,
                faults,
                ..
            } => (message, block, thread, faults, y.copy_to_host().unwrap()),
            other => panic!("expected a kernel fault, got {other}"),
        }
    });
    assert_eq!(
        a.0,
        "index [1000] is out of bounds for global array `y` of shape [1000]"
    );
    assert_eq!((a.1, a.2, a.3), ([3, 0, 0], [232, 0, 0], 24));
    assert_eq!(a.4, vec![1.0; 1000]);
    assert_eq!(a, b);
}

#[gpu_kernel]
fn stencil(a: ArrayView2<f32>, mut out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            out[[y, x]] = 0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]]);
        } else {
            out[[y, x]] = a[[y, x]];
        }
    }
}

fn stencil_ref(a: &Array2<f32>) -> Array2<f32> {
    let (h, w) = a.dim();
    Array2::from_shape_fn((h, w), |(y, x)| {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]])
        } else {
            a[[y, x]]
        }
    })
}

/// Offsets of -1 and +1: blocks on the border (where `y - 1` would wrap or
/// `x + 1` leave the array) take the checked loop, the rest spans.
fn stencil_offsets_at_the_border() -> gpujit::Result<()> {
    // Spans where `1 <= base` and `base + 8 + 1 <= extent` on both axes.
    for ((h, w), spans) in [((40, 56), 15), ((37, 29), 6), ((8, 8), 0)] {
        let a = Array2::from_shape_fn((h, w), |(r, c)| ((r * 31 + c * 17) % 23) as f32 - 11.0);
        let want = stencil_ref(&a);
        let grid = (w.div_ceil(8), h.div_ceil(8));
        let (r, _, s) = common::on_both_paths(Expect::spans(spans), || -> gpujit::Result<Array2<f32>> {
            let da = to_device(&a)?;
            let mut out = zeros::<f32>((h, w))?;
            stencil![grid, (8, 8)](&da, &mut out)?;
            out.copy_to_ndarray()
        });
        assert_eq!(r?, want, "{h} x {w}");
        assert_eq!(s?, want, "{h} x {w}");
    }
    Ok(())
}

#[gpu_kernel]
fn weigh(rgb: ArrayView3<u8>, mut gray: ArrayViewMut2<u8>) {
    let (x, y) = grid(2);
    let (h, w) = gray.dim();
    if y < h && x < w {
        let v = 0.25 * rgb[[y, x, 0]] as f32 + 0.5 * rgb[[y, x, 1]] as f32 + 0.25 * rgb[[y, x, 2]] as f32;
        gray[[y, x]] = v as u8;
    }
}

/// A constant third index (grayscale's `rgb[[y, x, 0]]`): the span blocks
/// run the copy of the loop where the pixel's 3 bytes are a constant stride.
fn constant_third_index_like_grayscale() -> gpujit::Result<()> {
    let (h, w) = (33, 48);
    let rgb = gpujit::ndarray::Array3::from_shape_fn((h, w, 3), |(r, c, k)| ((r * 7 + c * 3 + k * 101) % 256) as u8);
    let want = Array2::from_shape_fn((h, w), |(r, c)| {
        (0.25 * rgb[[r, c, 0]] as f32 + 0.5 * rgb[[r, c, 1]] as f32 + 0.25 * rgb[[r, c, 2]] as f32) as u8
    });
    // 16 x 16 blocks: 3 x 3 of them, the bottom row partly outside.
    let (a, _, b) = common::on_both_paths(Expect::spans(6), || -> gpujit::Result<Array2<u8>> {
        let d = to_device(&rgb)?;
        let mut out = zeros::<u8>((h, w))?;
        weigh![(3, 3), (16, 16)](&d, &mut out)?;
        out.copy_to_ndarray()
    });
    with_forced_coroutines(|| weigh![(3, 3), (16, 16)](&to_device(&rgb)?, &mut zeros::<u8>((h, w))?))?;
    assert_eq!(
        last_launch_inner_blocks(),
        0,
        "the reference path ran the constant-stride copy"
    );
    weigh![(3, 3), (16, 16)](&to_device(&rgb)?, &mut zeros::<u8>((h, w))?)?;
    assert_eq!(
        last_launch_inner_blocks(),
        expected(6),
        "span blocks in the constant-stride copy"
    );
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

#[gpu_kernel]
fn mixed(x: &[i32], y: &mut [i32], z: &mut [i32]) {
    let i = grid(1);
    if i < y.len() {
        // `x[n - 1 - i]` is not own + constant: checked even in span blocks.
        y[i] = x[i] * 10 + x[x.len() - 1 - i];
        if i + 1 < z.len() {
            // `z` is not owned (another index): relaxed atomic, checked.
            z[i + 1] = x[i];
        }
    }
}

/// Accesses the spans do not cover keep their checks (and faults) in the
/// span blocks.
fn other_indices_stay_checked_in_span_blocks() -> gpujit::Result<()> {
    let n = 128;
    let x: Vec<i32> = (0..n).collect();
    let want_y: Vec<i32> = (0..n).map(|i| i * 10 + (n - 1 - i)).collect();
    let mut want_z = vec![-1; n as usize];
    for i in 0..n as usize - 1 {
        want_z[i + 1] = i as i32;
    }
    let (a, _, b) = common::on_both_paths(Expect::spans(2), || -> gpujit::Result<(Vec<i32>, Vec<i32>)> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<i32>(n as usize)?;
        let mut dz = to_device(&vec![-1; n as usize])?;
        mixed![2, 64](&dx, &mut dy, &mut dz)?;
        Ok((dy.copy_to_host()?, dz.copy_to_host()?))
    });
    assert_eq!(a?, (want_y.clone(), want_z.clone()));
    assert_eq!(b?, (want_y, want_z));
    Ok(())
}

/// Blocks of `n` threads along an axis of `extent` that lie inside it with
/// offsets `lo..=hi`: those that take spans.
fn fitting(extent: usize, n: usize, lo: usize, hi: usize) -> usize {
    (0..extent.div_ceil(n))
        .filter(|b| b * n >= lo && b * n + n + hi <= extent)
        .count()
}

/// Grayscale's and the stencil's shapes at the edges: sizes that are not
/// multiples of the block, one pixel wide or tall, empty. Every result
/// equals the host's on both paths, and exactly the blocks that fit run on
/// spans (the rest, checked).
fn edge_shapes_take_spans_only_where_they_fit() -> gpujit::Result<()> {
    for (h, w) in [(33, 47), (37, 1), (1, 53), (1, 1), (0, 0), (0, 16), (16, 16), (48, 17)] {
        let rgb =
            gpujit::ndarray::Array3::from_shape_fn((h, w, 3), |(r, c, k)| ((r * 13 + c * 5 + k * 97) % 256) as u8);
        let want = Array2::from_shape_fn((h, w), |(r, c)| {
            (0.25 * rgb[[r, c, 0]] as f32 + 0.5 * rgb[[r, c, 1]] as f32 + 0.25 * rgb[[r, c, 2]] as f32) as u8
        });
        let grid = (w.div_ceil(16).max(1), h.div_ceil(16).max(1));
        let spans = fitting(w, 16, 0, 0) * fitting(h, 16, 0, 0);
        let (a, _, b) = common::on_both_paths(Expect::spans(spans), || -> gpujit::Result<Array2<u8>> {
            let d = to_device(&rgb)?;
            let mut out = zeros::<u8>((h, w))?;
            weigh![grid, (16, 16)](&d, &mut out)?;
            out.copy_to_ndarray()
        });
        assert_eq!(a?, want, "grayscale {h} x {w}");
        assert_eq!(b?, want, "grayscale {h} x {w}");

        let src = Array2::from_shape_fn((h, w), |(r, c)| ((r * 29 + c * 11) % 19) as f32 - 9.5);
        let want = stencil_ref(&src);
        let grid = (w.div_ceil(8).max(1), h.div_ceil(8).max(1));
        let spans = fitting(w, 8, 1, 1) * fitting(h, 8, 1, 1);
        let (a, _, b) = common::on_both_paths(Expect::spans(spans), || -> gpujit::Result<Array2<f32>> {
            let d = to_device(&src)?;
            let mut out = zeros::<f32>((h, w))?;
            stencil![grid, (8, 8)](&d, &mut out)?;
            out.copy_to_ndarray()
        });
        assert_eq!(a?, want, "stencil {h} x {w}");
        assert_eq!(b?, want, "stencil {h} x {w}");
    }
    Ok(())
}

#[gpu_kernel]
fn from_the_right(a: ArrayView2<f32>, mut out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        out[[y, x]] = a[[y, x + 1]];
    }
}

/// `a[[y, x + 1]]` in the last column reads past the row: the blocks of
/// that column take the checked loop and fault there, with the coordinates
/// of the first faulting thread, on both paths; the other blocks run on
/// spans, and every in-range element is written.
fn a_2d_read_past_the_edge_is_a_fault_with_its_coordinates() {
    let (h, w) = (8, 40);
    let a = Array2::from_shape_fn((h, w), |(r, c)| (r * w + c) as f32);
    let (fast, _, reference) = common::on_both_paths(Expect::spans(4), || {
        let d = to_device(&a).unwrap();
        let mut out = zeros::<f32>((h, w)).unwrap();
        let err = from_the_right![(5, 1), (8, 8)](&d, &mut out).unwrap_err();
        let out = out.copy_to_ndarray().unwrap();
        match err {
            Error::KernelFault {
                message,
                block,
                thread,
                faults,
                ..
            } => (message, block, thread, faults, out),
            other => panic!("expected a kernel fault, got {other}"),
        }
    });
    assert_eq!(
        fast.0,
        "index [0, 40] is out of bounds for global array `a` of shape [8, 40]"
    );
    assert_eq!((fast.1, fast.2, fast.3), ([4, 0, 0], [7, 0, 0], 8));
    let want = Array2::from_shape_fn((h, w), |(r, c)| if c + 1 < w { a[[r, c + 1]] } else { 0.0 });
    assert_eq!(fast.4, want);
    assert_eq!(fast, reference);
}

#[gpu_kernel]
fn norm2(p: ArrayView2<f32>, out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = p[[i, 0]] * p[[i, 0]] + p[[i, 1]] * p[[i, 1]];
    }
}

/// The constant-stride copy of the span loop (`last_launch_inner_blocks`)
/// runs where an array's last axis is exactly as long as its constant
/// indices need: 3 of an RGB pixel's bytes, 2 of a point's coordinates
/// (a 1-D launch); with a longer last axis (RGBA read as RGB: a stride of 4,
/// not 3) the span blocks run the general copy. The same results either way.
fn pixels_and_points_take_the_constant_stride_copy() -> gpujit::Result<()> {
    let (h, w) = (32, 40);
    for channels in [3, 4] {
        let rgb = gpujit::ndarray::Array3::from_shape_fn((h, w, channels), |(r, c, k)| {
            ((r * 11 + c * 7 + k * 89) % 256) as u8
        });
        let want = Array2::from_shape_fn((h, w), |(r, c)| {
            (0.25 * rgb[[r, c, 0]] as f32 + 0.5 * rgb[[r, c, 1]] as f32 + 0.25 * rgb[[r, c, 2]] as f32) as u8
        });
        // 16 x 16 blocks: 3 x 2, the right column partly outside.
        let (a, _, b) = common::on_both_paths(Expect::spans(4), || -> gpujit::Result<(Array2<u8>, usize)> {
            let d = to_device(&rgb)?;
            let mut out = zeros::<u8>((h, w))?;
            weigh![(3, 2), (16, 16)](&d, &mut out)?;
            Ok((out.copy_to_ndarray()?, last_launch_inner_blocks()))
        });
        let inner = if channels == 3 { expected(4) } else { 0 };
        assert_eq!(a?, (want.clone(), inner), "{channels} channels");
        assert_eq!(b?, (want, 0), "{channels} channels");
    }
    let n = 1000;
    let p = Array2::from_shape_fn((n, 2), |(i, k)| (i as f32) * 0.5 - k as f32);
    let want: Vec<f32> = (0..n).map(|i| p[[i, 0]] * p[[i, 0]] + p[[i, 1]] * p[[i, 1]]).collect();
    // 4 blocks of 256: the last one partly past the end.
    let (a, _, b) = common::on_both_paths(Expect::spans(3), || -> gpujit::Result<(Vec<f32>, usize)> {
        let dp = to_device(&p)?;
        let mut out = zeros::<f32>(n)?;
        norm2![4, 256](&dp, &mut out)?;
        Ok((out.copy_to_host()?, last_launch_inner_blocks()))
    });
    assert_eq!(a?, (want.clone(), expected(3)));
    assert_eq!(b?, (want, 0));
    Ok(())
}
