//! Spans inside lockstep loops on the CPU backend (issue #7): each round of
//! the naive matmul's interchanged `k` loop checks its arrays once
//! (`b[[i, col]]`: uniform row `i`, own column) and runs its threads
//! unchecked; a grid-stride loop where every thread of a block has one
//! element at most runs the plain thread loop, not lockstep rounds; each
//! full round of a grid-stride loop `(grid(1)..n).step_by(gridsize(1))`
//! checks its arrays once (own index + `r * step`) and stores plainly to the
//! arrays the loop partitions among the threads. Each kernel runs on the default path and on the plain thread
//! loop (forced); both must equal a host reference, faults included, and
//! `last_launch_span_blocks` shows the fast path ran where it should.

use gpujit::ndarray::Array2;
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

/// The naive matmul of the examples (examples/matmul.rs).
use crate::matmul;
use matmul::matmul_naive;

use crate::common;
use common::expected;
use common::Expect;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => matmul_rounds_run_on_spans_in_interior_blocks,
        cpu => matmul_rounds_past_the_end_of_b_fault_in_a_checked_round,
        cpu => rounds_with_other_indices_keep_those_accesses_checked,
        cpu => rounds_with_two_carried_locals_stay_in_chunks,
        cpu => grid_stride_with_one_element_per_thread_runs_plain,
        cpu => inclusive_grid_stride_runs_plain_only_where_each_thread_has_one_element,
        cpu => huge_and_zero_steps_pick_a_path_without_overflow,
        cpu => grid_stride_rounds_run_on_spans_with_a_partial_last_round,
        cpu => grid_stride_loops_that_do_not_partition_keep_atomic_stores,
        cpu => a_store_next_to_the_loop_index_stays_checked,
        cpu => a_launch_with_two_rows_of_threads_is_right_without_spans,
        cpu => out_of_range_in_the_last_round_is_a_fault_with_coordinates,
        cpu => a_round_at_the_top_of_usize_is_a_fault_not_a_wild_read,
    ]
}

fn matmul_rounds_run_on_spans_in_interior_blocks() -> gpujit::Result<()> {
    // Non-square, k not a multiple of 8, edge blocks where the guard fails
    // for some threads (those run the checked chunks), k = 0 (no round).
    for (n, k, m) in [
        (37usize, 29usize, 41usize),
        (16, 16, 16),
        (5, 0, 3),
        (20, 1, 9),
        (24, 13, 8),
    ] {
        let (a, b) = common::matmul_inputs(n, k, m);
        let want = common::host_matmul(&a, &b, |_, _| k);
        let blocks = (m.div_ceil(8), n.div_ceil(8));
        let (
            x,
            common::Paths {
                lockstep_blocks: lockstep,
                span_blocks: spans,
                ..
            },
            y,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Array2<f32>> {
            let (da, db) = (to_device(&a)?, to_device(&b)?);
            let mut dc = zeros::<f32>((n, m))?;
            matmul_naive![blocks, (8, 8)](&da, &db, &mut dc)?;
            dc.copy_to_ndarray()
        });
        assert_eq!(x?, want, "{n}x{k}x{m}");
        assert_eq!(y?, want, "{n}x{k}x{m}");
        assert_eq!(lockstep, expected(blocks.0 * blocks.1), "{n}x{k}x{m}");
        // Interior blocks: every thread passes the guard.
        let interior = if k == 0 { 0 } else { (m / 8) * (n / 8) };
        assert_eq!(spans, expected(interior), "blocks on spans ({n}x{k}x{m})");
    }
    Ok(())
}

/// `k` from `a`, but `b` has fewer rows: rounds past `b`'s last row fault.
fn matmul_rounds_past_the_end_of_b_fault_in_a_checked_round() {
    let (n, k, m) = (16usize, 12usize, 16usize);
    let (a, _) = common::matmul_inputs(n, k, m);
    let (_, b) = common::matmul_inputs(n, k - 3, m);
    let (
        x,
        common::Paths {
            lockstep_blocks: lockstep,
            span_blocks: spans,
            ..
        },
        y,
    ) = common::on_both_paths(Expect::none(), || -> (String, usize, Vec<f32>) {
        let (da, db) = (to_device(&a).unwrap(), to_device(&b).unwrap());
        let mut dc = zeros::<f32>((n, m)).unwrap();
        let err = matmul_naive![(2, 2), (8, 8)](&da, &db, &mut dc).unwrap_err();
        match err {
            Error::KernelFault { message, faults, .. } => (message, faults, dc.copy_to_host().unwrap()),
            other => panic!("expected a kernel fault, got {other}"),
        }
    });
    assert_eq!(lockstep, expected(4));
    assert_eq!(spans, expected(4), "rounds 0..9 ran on spans");
    assert!(x.0.contains("index [9, "), "{}", x.0);
    assert!(x.0.contains("shape [9, 16]"), "{}", x.0);
    // The same first fault, fault count and results on both paths.
    assert!(x.1 > 0);
    assert_eq!(x, y);
}

/// Besides the uniform row, `b` is read one row further (`i + 1`, not a
/// span position: checked) and `a` at a column from a parameter.
#[gpu_kernel]
fn matmul_shifted(a: ArrayView2<f32>, b: ArrayView2<f32>, mut c: ArrayViewMut2<f32>, j: usize) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let k = b.shape()[0] - 1;
        let mut acc = 0.0;
        for i in 0..k {
            acc += a[[row, j]] * b[[i, col]] - b[[i + 1, col]];
        }
        c[[row, col]] = acc;
    }
}

fn rounds_with_other_indices_keep_those_accesses_checked() -> gpujit::Result<()> {
    let (n, k, m) = (16usize, 10usize, 24usize);
    let (a, b) = common::matmul_inputs(n, k, m);
    for j in [3usize, 10] {
        let want = Array2::from_shape_fn((n, m), |(r, c)| {
            let mut acc = 0.0f32;
            for i in 0..k - 1 {
                acc += a[[r, j.min(k - 1)]] * b[[i, c]] - b[[i + 1, c]];
            }
            acc
        });
        let (x, common::Paths { span_blocks: spans, .. }, y) =
            common::on_both_paths(Expect::none(), || -> gpujit::Result<Array2<f32>> {
                let (da, db) = (to_device(&a)?, to_device(&b)?);
                let mut dc = zeros::<f32>((n, m))?;
                matmul_shifted![(3, 2), (8, 8)](&da, &db, &mut dc, j)?;
                dc.copy_to_ndarray()
            });
        if j < k {
            assert_eq!(x?, want);
            assert_eq!(y?, want);
            assert_eq!(spans, expected(6));
        } else {
            // `a[[row, 10]]` is out of range: a fault in a span round.
            let (x, y) = (x.unwrap_err().to_string(), y.unwrap_err().to_string());
            assert!(x.contains("index [0, 10]"), "{x}");
            assert_eq!(x, y);
        }
    }
    Ok(())
}

/// Two locals carried through the loop (`acc` and `sq`): the rounds keep
/// one per-thread slot only, so this loop runs in checked chunks.
#[gpu_kernel]
fn matmul_two_sums(a: ArrayView2<f32>, b: ArrayView2<f32>, mut c: ArrayViewMut2<f32>) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let k = a.shape()[1];
        let mut acc = 0.0;
        let mut sq = 0.0;
        for i in 0..k {
            acc += a[[row, i]] * b[[i, col]];
            sq += b[[i, col]] * b[[i, col]];
        }
        c[[row, col]] = acc + sq;
    }
}

fn rounds_with_two_carried_locals_stay_in_chunks() -> gpujit::Result<()> {
    let (n, k, m) = (16usize, 11usize, 16usize);
    let (a, b) = common::matmul_inputs(n, k, m);
    let want = Array2::from_shape_fn((n, m), |(r, c)| {
        let (mut acc, mut sq) = (0.0f32, 0.0f32);
        for i in 0..k {
            acc += a[[r, i]] * b[[i, c]];
            sq += b[[i, c]] * b[[i, c]];
        }
        acc + sq
    });
    let (
        x,
        common::Paths {
            lockstep_blocks: lockstep,
            span_blocks: spans,
            ..
        },
        y,
    ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Array2<f32>> {
        let (da, db) = (to_device(&a)?, to_device(&b)?);
        let mut dc = zeros::<f32>((n, m))?;
        matmul_two_sums![(2, 2), (8, 8)](&da, &db, &mut dc)?;
        dc.copy_to_ndarray()
    });
    assert_eq!(x?, want);
    assert_eq!(y?, want);
    assert_eq!(lockstep, expected(4));
    assert_eq!(spans, 0);
    Ok(())
}

/// saxpy as the examples write it (the step from a `let`).
#[gpu_kernel]
fn saxpy_lets(a: f32, x: &[f32], y: &mut [f32]) {
    let start = grid(1);
    let stride = gridsize(1);
    for i in (start..y.len()).step_by(stride) {
        y[i] = a * x[i] + y[i];
    }
}

fn grid_stride_with_one_element_per_thread_runs_plain() -> gpujit::Result<()> {
    // (elements, blocks, threads, blocks with a thread of two elements):
    // one element per thread, a partial last block, and 100 elements past
    // the grid (blocks 0 and 1 hold their second elements: 256 + 64 < 356).
    for (n, blocks, threads, multi) in [
        (256usize, 4usize, 64usize, 0usize),
        (219, 4, 64, 0),
        (356, 4, 64, 2),
        (4096, 4, 64, 4),
    ] {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25).collect();
        let y0: Vec<f32> = (0..n).map(|i| (i % 5) as f32 - 2.0).collect();
        let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 1.5 * x + y).collect();
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(&x)?;
            let mut dy = to_device(&y0)?;
            saxpy_lets![blocks, threads](1.5, &dx, &mut dy)?;
            dy.copy_to_host()
        });
        assert_eq!(a?, want, "n = {n}");
        assert_eq!(b?, want, "n = {n}");
        assert_eq!(lockstep, expected(multi), "blocks in lockstep (n = {n})");
    }
    Ok(())
}

/// An inclusive grid-stride range up to `last`.
#[gpu_kernel]
fn count_to(out: &mut [u32], last: usize) {
    for i in (grid(1)..=last).step_by(gridsize(1)) {
        out[i] += 1;
    }
}

fn inclusive_grid_stride_runs_plain_only_where_each_thread_has_one_element() -> gpujit::Result<()> {
    // 2 blocks of 32: with `last` = 63 each thread has one element; with
    // `last` = 64 thread 0 also has element 64 (block 0 in lockstep).
    for (last, multi) in [(63usize, 0usize), (64, 1), (100, 2)] {
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u32>> {
            let mut d = zeros::<u32>(last + 1)?;
            count_to![2, 32](&mut d, last)?;
            d.copy_to_host()
        });
        assert_eq!(a?, vec![1; last + 1], "last = {last}");
        assert_eq!(b?, vec![1; last + 1], "last = {last}");
        assert_eq!(lockstep, expected(multi), "last = {last}");
    }
    Ok(())
}

/// A grid-stride loop with the step from a parameter.
#[gpu_kernel]
fn stepped(out: &mut [u64], step: usize) {
    for i in (grid(1)..out.len()).step_by(step) {
        out[i] += i as u64 + 1;
    }
}

fn huge_and_zero_steps_pick_a_path_without_overflow() -> gpujit::Result<()> {
    // `blockIdx.x * blockDim.x + step` overflows: one element per thread.
    for step in [usize::MAX, usize::MAX - 40, usize::MAX / 2] {
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u64>> {
            let mut d = zeros::<u64>(100)?;
            stepped![4, 32](&mut d, step)?;
            d.copy_to_host()
        });
        let want: Vec<u64> = (1..=100).collect();
        assert_eq!(a?, want, "step {step}");
        assert_eq!(b?, want, "step {step}");
        assert_eq!(lockstep, 0, "step {step}");
    }
    // Step 0 faults (as `step_by(0)` panics) on both paths alike.
    let (a, _, b) = common::on_both_paths(Expect::none(), || -> String {
        let mut d = zeros::<u64>(100).unwrap();
        stepped![4, 32](&mut d, 0).unwrap_err().to_string()
    });
    assert!(a.contains("step"), "{a}");
    assert_eq!(a, b);
    Ok(())
}

fn saxpy_host(x: &[f32], y: &[f32], a: f32) -> Vec<f32> {
    x.iter().zip(y).map(|(x, y)| a * x + y).collect()
}

fn saxpy_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..n).map(|i| (i % 977) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
    (x, y)
}

fn grid_stride_rounds_run_on_spans_with_a_partial_last_round() -> gpujit::Result<()> {
    // (elements, blocks, threads, blocks with a full round): 3 blocks of 64
    // (192 threads): 1000 = 5 full rounds and 40 more (a partial round);
    // 192 * 3 exactly; 100 (no thread has two elements: the plain loop);
    // 250 (block 0 has a partial second round, no full one past round 0).
    for (n, blocks, threads, spans) in [
        (1000usize, 3usize, 64usize, 3usize),
        (576, 3, 64, 3),
        (100, 3, 64, 0),
        (250, 3, 64, 3),
    ] {
        let (x, y0) = saxpy_inputs(n);
        let want = saxpy_host(&x, &y0, 2.5);
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                span_blocks,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(&x)?;
            let mut dy = to_device(&y0)?;
            saxpy_lets![blocks, threads](2.5, &dx, &mut dy)?;
            dy.copy_to_host()
        });
        assert_eq!(a?, want, "n = {n}");
        assert_eq!(b?, want, "n = {n}");
        let multi = (0..blocks).filter(|b| b * threads + blocks * threads < n).count();
        assert_eq!(lockstep, expected(multi), "n = {n}");
        assert_eq!(
            span_blocks,
            expected(spans.min(multi)),
            "blocks with a round on spans (n = {n})"
        );
    }
    Ok(())
}

/// `y[i] = 3 x[i]` over a grid-stride loop whose step is a parameter: with
/// `gridsize(1) / 2` or 1 the threads' elements overlap (several threads
/// write one element, the same value), so `y` is not partitioned.
#[gpu_kernel]
fn triple_stepped(x: &[u32], y: &mut [u32], step: usize) {
    for i in (grid(1)..y.len()).step_by(step) {
        y[i] = x[i] * 3;
    }
}

/// The same with the step `gridsize(1) / 2` written in the kernel.
#[gpu_kernel]
fn triple_half(x: &[u32], y: &mut [u32]) {
    let half = gridsize(1) / 2;
    for i in (grid(1)..y.len()).step_by(half) {
        y[i] = x[i] * 3;
    }
}

fn grid_stride_loops_that_do_not_partition_keep_atomic_stores() -> gpujit::Result<()> {
    let n = 1000;
    let x: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    let want: Vec<u32> = x.iter().map(|v| v * 3).collect();
    for step in [64usize, 1, 3] {
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                span_blocks: spans,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u32>> {
            let dx = to_device(&x)?;
            let mut dy = zeros::<u32>(n)?;
            triple_stepped![2, 64](&dx, &mut dy, step)?;
            dy.copy_to_host()
        });
        assert_eq!(a?, want, "step {step}");
        assert_eq!(b?, want, "step {step}");
        assert_eq!(lockstep, expected(2), "step {step}");
        // `x` on spans in full rounds; `y` stays atomic (checked).
        assert_eq!(spans, expected(2), "step {step}");
    }
    let (a, common::Paths { span_blocks: spans, .. }, b) =
        common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u32>> {
            let dx = to_device(&x)?;
            let mut dy = zeros::<u32>(n)?;
            triple_half![2, 64](&dx, &mut dy)?;
            dy.copy_to_host()
        });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    assert_eq!(spans, expected(2));
    Ok(())
}

/// Writes next to the loop's element: `y` is not partitioned.
#[gpu_kernel]
fn shift_right(x: &[i64], y: &mut [i64]) {
    for i in (grid(1)..x.len()).step_by(gridsize(1)) {
        if i + 1 < y.len() {
            y[i + 1] = x[i] - x[i + 1] * 2;
        }
    }
}

fn a_store_next_to_the_loop_index_stays_checked() -> gpujit::Result<()> {
    // `x[i + 1]` runs past the end in the last round of the last threads:
    // those rounds are checked (and the guard keeps them in bounds).
    for n in [700usize, 768, 769] {
        let x: Vec<i64> = (0..n as i64 + 1).map(|i| i * i - 40).collect();
        let mut want = vec![0i64; n];
        for i in 0..n - 1 {
            want[i + 1] = x[i] - x[i + 1] * 2;
        }
        let (a, common::Paths { span_blocks: spans, .. }, b) =
            common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<i64>> {
                let dx = to_device(&x[..n])?;
                let mut dy = zeros::<i64>(n)?;
                shift_right![3, 64](&dx, &mut dy)?;
                dy.copy_to_host()
            });
        assert_eq!(a?, want, "n = {n}");
        assert_eq!(b?, want, "n = {n}");
        assert_eq!(spans, expected(3), "n = {n}");
    }
    Ok(())
}

fn a_launch_with_two_rows_of_threads_is_right_without_spans() -> gpujit::Result<()> {
    // blockDim.y = 2: two threads share each `grid(1)`, so `y` is not
    // partitioned among threads: class-checked atomic accesses, no spans.
    // Each block's two rows run one after the other: `y` gets `a x` twice.
    let n = 1000;
    let (x, y0) = saxpy_inputs(n);
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 2.0 * x + (2.0 * x + y)).collect();
    let (
        a,
        common::Paths {
            lockstep_blocks: lockstep,
            span_blocks: spans,
            ..
        },
        b,
    ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = to_device(&y0)?;
        saxpy_lets![3, (64, 2)](2.0, &dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    assert_eq!(lockstep, expected(3));
    assert_eq!(spans, 0);
    Ok(())
}

/// Copies `x` into `y` up to `n`, which may exceed both.
#[gpu_kernel]
fn copy_to(x: &[u16], y: &mut [u16], n: usize) {
    for i in (grid(1)..n).step_by(gridsize(1)) {
        y[i] = x[i] + 1;
    }
}

fn out_of_range_in_the_last_round_is_a_fault_with_coordinates() {
    // 2 blocks of 32 (64 threads), 200 elements, n = 203: round 3 holds
    // elements 192..203 and 200 is past the end: thread 8 of block 0.
    let x: Vec<u16> = (0..200).collect();
    let (
        a,
        common::Paths {
            lockstep_blocks: lockstep,
            span_blocks: spans,
            ..
        },
        b,
    ) = common::on_both_paths(Expect::none(), || -> (String, Vec<u16>) {
        let dx = to_device(&x).unwrap();
        let mut dy = zeros::<u16>(200).unwrap();
        let err = copy_to![2, 32](&dx, &mut dy, 203).unwrap_err();
        (err.to_string(), dy.copy_to_host().unwrap())
    });
    assert!(a.0.contains("index [200]"), "{}", a.0);
    assert!(a.0.contains("block (0, 0, 0) thread (8, 0, 0)"), "{}", a.0);
    assert_eq!(a, b);
    assert_eq!(lockstep, expected(2));
    assert_eq!(spans, expected(2), "rounds 0..3 are full and in bounds");
    let want: Vec<u16> = (1..=200).collect();
    assert_eq!(a.1, want);
}

/// Sums `x` over an inclusive grid-stride loop.
#[gpu_kernel]
fn sum_inclusive(x: &[u32], y: &mut [u32], n: usize, step: usize) {
    let mut acc = 0u32;
    for i in (grid(1)..=n).step_by(step) {
        acc = acc.wrapping_add(x[i]);
    }
    let g = grid(1);
    if g < y.len() {
        y[g] = acc;
    }
}

/// [`sum_inclusive`] read 2^20 elements back (the widest offset a span takes).
#[gpu_kernel]
fn sum_inclusive_back(x: &[u32], y: &mut [u32], n: usize, step: usize) {
    let mut acc = 0u32;
    for i in (grid(1)..=n).step_by(step) {
        acc = acc.wrapping_add(x[i - 1048576]);
    }
    let g = grid(1);
    if g < y.len() {
        y[g] = acc;
    }
}

fn a_round_at_the_top_of_usize_is_a_fault_not_a_wild_read() {
    // With `..=usize::MAX` and a step of `usize::MAX - (threads - 1)`, round
    // 1 is full and its last element is `usize::MAX` itself: the round's
    // span must not be taken (its end, one past `usize::MAX`, does not fit),
    // and every thread's second read is out of range (with the offset: far
    // before the array, so a wild read would crash).
    for (threads, back) in [(64usize, false), (1024, false), (1024, true), (64, true)] {
        let x: Vec<u32> = (0..1000).collect();
        let step = usize::MAX - (threads - 1);
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> (String, Vec<u32>) {
            let dx = to_device(&x).unwrap();
            let mut dy = zeros::<u32>(threads).unwrap();
            let run = if back {
                sum_inclusive_back![1, threads](&dx, &mut dy, usize::MAX, step)
            } else {
                sum_inclusive![1, threads](&dx, &mut dy, usize::MAX, step)
            };
            (run.unwrap_err().to_string(), dy.copy_to_host().unwrap())
        });
        assert!(a.0.contains("out of bounds for global array `x`"), "{}", a.0);
        assert_eq!(a, b, "threads {threads}, back {back}");
        assert_eq!(lockstep, expected(1), "the loop ran in rounds");
    }
}
