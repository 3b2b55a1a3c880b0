//! Merged runs of blocks on the CPU backend (issue #7): a kernel whose
//! threads cannot tell their block runs the blocks of one grid row (all but
//! its first and last) as one block that many times wider, so that its
//! span loop runs over whole image rows. Each kernel runs on the fast path
//! (checked to merge the blocks it should) and on the reference path
//! (`with_forced_coroutines`: one block at a time, checked accesses), and
//! both must equal a host reference, faults and their coordinates included.
//!
//! `forbid(unsafe_code)`: the generated code of every kernel here must not
//! need `unsafe`.

#![forbid(unsafe_code)]

use gpujit::__private::last_launch_merged_blocks;
use gpujit::ndarray::{Array2, Array3};
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use crate::common;
use common::Expect;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => grayscale_merges_the_inner_blocks_of_each_row,
        cpu => saxpy_merges_a_1d_grid,
        cpu => a_fault_in_a_merged_run_names_its_own_block_and_thread,
        cpu => a_read_past_the_array_in_a_merged_run_is_a_fault_with_its_coordinates,
        cpu => two_layers_of_threads_on_one_element_merge_without_spans,
        cpu => kernels_that_can_tell_their_block_do_not_merge,
    ]
}

/// The blocks of a grid `gx` blocks wide with `rows` rows that run merged:
/// all but the first and last of each row, when at least 4 remain.
fn merged(gx: usize, rows: usize) -> usize {
    if gx >= 6 {
        (gx - 2) * rows
    } else {
        0
    }
}

/// examples/grayscale.rs's kernel.
#[gpu_kernel]
fn grayscale(rgb: ArrayView3<u8>, gray: ArrayViewMut2<u8>) {
    let (x, y) = grid(2);
    let (height, width) = gray.dim();
    if y < height && x < width {
        let r = rgb[[y, x, 0]] as f32;
        let g = rgb[[y, x, 1]] as f32;
        let b = rgb[[y, x, 2]] as f32;
        gray[[y, x]] = (0.299 * r + 0.587 * g + 0.114 * b) as u8;
    }
}

/// Blocks of `n` threads along an axis of `extent` that lie inside it: those
/// that take spans.
fn fitting(extent: usize, n: usize) -> usize {
    (0..extent.div_ceil(n)).filter(|b| b * n + n <= extent).count()
}

/// Image sizes that are and are not multiples of the 16×16 block, one pixel
/// wide, one row tall, empty, and wide enough to merge: every result equals
/// the host's on both paths, the inner blocks of each row run merged, and
/// exactly the blocks that fit run on spans, as without merging (a merged
/// run of rows that end below the image's last row runs checked, as each of
/// its blocks would).
fn grayscale_merges_the_inner_blocks_of_each_row() -> gpujit::Result<()> {
    for (h, w) in [
        (33, 200),
        (1, 200),
        (16, 256),
        (37, 1),
        (1, 1),
        (0, 0),
        (48, 97),
        (20, 95),
    ] {
        let rgb = Array3::from_shape_fn((h, w, 3), |(r, c, k)| ((r * 13 + c * 5 + k * 97 + r * c) % 256) as u8);
        let want = Array2::from_shape_fn((h, w), |(r, c)| {
            let [a, b, d] = [0, 1, 2].map(|k| rgb[[r, c, k]] as f32);
            (0.299f32 * a + 0.587f32 * b + 0.114f32 * d) as u8
        });
        let grid = (w.div_ceil(16).max(1), h.div_ceil(16).max(1));
        let spans = fitting(w, 16) * fitting(h, 16);
        let (a, _, b) = common::on_both_paths(
            Expect::merged(merged(grid.0, grid.1), spans),
            || -> gpujit::Result<Array2<u8>> {
                let d = to_device(&rgb)?;
                let mut out = zeros::<u8>((h, w))?;
                grayscale![grid, (16, 16)](&d, &mut out)?;
                out.copy_to_ndarray()
            },
        );
        assert_eq!(a?, want, "grayscale {h} x {w}");
        assert_eq!(b?, want, "grayscale {h} x {w}");
    }
    Ok(())
}

/// bench/workloads' one-element saxpy.
#[gpu_kernel]
fn saxpy_one(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// A 1-D grid of many blocks (one grid row) is cut into merged runs (16 of
/// 244 blocks for a million elements); the last block is the partial one,
/// and only it runs checked.
fn saxpy_merges_a_1d_grid() -> gpujit::Result<()> {
    for n in [1_000_003usize, 100_003, 256 * 7, 256 * 6 - 1] {
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
        let y0: Vec<f32> = (0..n).map(|i| (i % 77) as f32).collect();
        let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 3.0f32 * x + y).collect();
        let blocks = n.div_ceil(256);
        let (a, _, b) = common::on_both_paths(
            Expect::merged(merged(blocks, 1), n / 256),
            || -> gpujit::Result<Vec<f32>> {
                let mut y = to_device(&y0)?;
                saxpy_one![blocks, 256](3.0, &to_device(&x)?, &mut y)?;
                y.copy_to_host()
            },
        );
        assert_eq!(a?, want, "saxpy n = {n}");
        assert_eq!(b?, want, "saxpy n = {n}");
    }
    Ok(())
}

/// Integer division: a zero divisor is a fault of the dividing thread.
#[gpu_kernel]
fn divide(a: ArrayView2<i32>, d: ArrayView2<i32>, mut out: ArrayViewMut2<i32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        out[[y, x]] = a[[y, x]] / d[[y, x]];
    }
}

/// The error of a launch that must fault, as its parts.
fn fault_of(r: gpujit::Result<()>) -> (String, [u32; 3], [u32; 3], usize) {
    match r {
        Err(Error::KernelFault {
            message,
            block,
            thread,
            faults,
            ..
        }) => (message, block, thread, faults),
        other => panic!("expected a kernel fault, got {other:?}"),
    }
}

/// Zero divisors at `(x, y)` = (90, 0) and (37, 3), both inside the merged
/// run of the first grid row (8×8 blocks): the run meets (90, 0), thread
/// (2, 0) of block (11, 0), first, row by row; but the first fault is the
/// reference path's, the lowest block's: thread (5, 3) of block (4, 0). The
/// other threads divide.
fn a_fault_in_a_merged_run_names_its_own_block_and_thread() {
    let (h, w) = (16, 128);
    let a = Array2::from_shape_fn((h, w), |(r, c)| (r * w + c) as i32 - 700);
    let d = Array2::from_shape_fn((h, w), |(r, c)| match (c, r) {
        (90, 0) | (37, 3) => 0,
        _ => (c % 7) as i32 + 1,
    });
    let want = Array2::from_shape_fn((h, w), |(r, c)| if d[[r, c]] == 0 { 0 } else { a[[r, c]] / d[[r, c]] });
    let (fast, _, reference) = common::on_both_paths(Expect::merged(merged(16, 2), 32), || {
        let da = to_device(&a).unwrap();
        let dd = to_device(&d).unwrap();
        let mut out = zeros::<i32>((h, w)).unwrap();
        let err = fault_of(divide![(16, 2), (8, 8)](&da, &dd, &mut out));
        (err, out.copy_to_ndarray().unwrap())
    });
    let (message, block, thread, faults) = &fast.0;
    assert!(message.contains("division by zero"), "{message}");
    assert_eq!((*block, *thread, *faults), ([4, 0, 0], [5, 3, 0], 2));
    assert_eq!(fast.1, want);
    assert_eq!(fast, reference);
}

/// `out[[y, x]] = a[[y, x]]` with `a` narrower than `out`: the merged runs
/// that reach past `a`'s 60 columns run checked (every block of such a
/// run, not only those past the edge) and fault at each read past it, with
/// the first faulting thread's coordinates, as on the reference path.
#[gpu_kernel]
fn copy(a: ArrayView2<f32>, mut out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        out[[y, x]] = a[[y, x]];
    }
}

fn a_read_past_the_array_in_a_merged_run_is_a_fault_with_its_coordinates() {
    let (h, w, narrow) = (8, 128, 60);
    let a = Array2::from_shape_fn((h, narrow), |(r, c)| (r * narrow + c) as f32);
    // The row's 14 inner blocks are cut into 3 runs (at least 64 runs per
    // launch where runs of 4 blocks allow): blocks 1-4, 5-9 and 10-14. Only
    // the first block (alone) and the first run (columns 8..40) fit `a`.
    let (fast, _, reference) = common::on_both_paths(Expect::merged(merged(16, 1), 1 + 4), || {
        let da = to_device(&a).unwrap();
        let mut out = zeros::<f32>((h, w)).unwrap();
        let err = fault_of(copy![(16, 1), (8, 8)](&da, &mut out));
        (err, out.copy_to_ndarray().unwrap())
    });
    let (message, block, thread, faults) = &fast.0;
    assert_eq!(
        message,
        "index [0, 60] is out of bounds for global array `a` of shape [8, 60]"
    );
    // Column 60 is thread 4 of block 7; rows 0..8 × columns 60..128 fault.
    assert_eq!((*block, *thread, *faults), ([7, 0, 0], [4, 0, 0], 8 * 68));
    let want = Array2::from_shape_fn((h, w), |(r, c)| if c < narrow { a[[r, c]] } else { 0.0 });
    assert_eq!(fast.1, want);
    assert_eq!(fast, reference);
}

/// Adds 1 at the thread's own `[y, x]`.
#[gpu_kernel]
fn bump(mut out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        out[[y, x]] += 1.0;
    }
}

/// Blocks two threads deep along z: both threads of a `(x, y)` add to one
/// element, so the own index is not injective and no access is plain (no
/// spans); the runs still merge along x, and each element counts both.
fn two_layers_of_threads_on_one_element_merge_without_spans() -> gpujit::Result<()> {
    let (h, w) = (8, 96);
    let (a, _, b) = common::on_both_paths(Expect::merged(merged(12, 2), 0), || -> gpujit::Result<Array2<f32>> {
        let mut out = to_device(&Array2::<f32>::from_elem((h, w), 0.5))?;
        bump![(12, 2), (8, 4, 2)](&mut out)?;
        out.copy_to_ndarray()
    });
    let want = Array2::from_elem((h, w), 2.5f32);
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

/// `blockIdx.x` and `threadIdx.x` of each thread, at its own index.
#[gpu_kernel]
fn coords(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = (block_idx().x * 1000 + thread_idx().x) as u32;
    }
}

/// Counts every thread into one element (an atomic: the order between
/// blocks could show in the old values).
#[gpu_kernel]
fn count(x: &[f32], total: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        atomic_add(&mut total[0], 1u32);
    }
}

/// A kernel that reads `blockIdx`/`threadIdx`, or uses an atomic, runs one
/// block at a time: merged, its threads would see the run's coordinates.
fn kernels_that_can_tell_their_block_do_not_merge() -> gpujit::Result<()> {
    let n: usize = 64 * 20 + 5;
    let blocks = n.div_ceil(64);
    let mut out = zeros::<u32>(n)?;
    coords![blocks, 64](&mut out)?;
    assert_eq!(last_launch_merged_blocks(), 0);
    let want: Vec<u32> = (0..n).map(|i| (i / 64 * 1000 + i % 64) as u32).collect();
    assert_eq!(out.copy_to_host()?, want);

    let mut total = zeros::<u32>(1)?;
    count![blocks, 64](&to_device(&vec![1.0f32; n])?, &mut total)?;
    assert_eq!(last_launch_merged_blocks(), 0);
    assert_eq!(total.copy_to_host()?, vec![n as u32]);
    Ok(())
}
