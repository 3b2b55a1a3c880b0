//! Loop interchange on the CPU backend: a barrier-free kernel's `for` loop
//! that walks global memory runs in lockstep across the block's threads.
//! Each kernel here runs on that path and on the plain thread loop (forced),
//! and both must equal a host reference, faults and early exits included.

use gpujit::__private::last_launch_lockstep_blocks;
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
        cpu => grid_stride_loop_runs_in_lockstep,
        cpu => loop_inside_if_with_locals_before_and_after,
        cpu => break_continue_and_return_in_the_loop,
        cpu => faults_in_the_loop_are_counted_per_thread,
        cpu => loops_without_strided_access_are_left_alone,
        cpu => grid_stride_with_a_partial_last_round_and_idle_threads,
        cpu => grid_stride_with_a_thread_dependent_step_falls_back,
        cpu => strided_loops_near_the_top_of_their_type,
        cpu => matmul_k_loop_runs_as_one_block_counter,
        cpu => matmul_with_per_thread_k_falls_back_where_threads_disagree,
        cpu => early_return_before_the_loop_and_a_second_loop_after,
        cpu => one_d_walks_and_inclusive_ranges_are_interchanged,
        cpu => unit_stride_loops_that_can_leave_early_are_left_alone,
        cpu => register_loops_run_in_rounds,
    ]
}

#[gpu_kernel]
fn saxpy_stride(a: f32, x: &[f32], y: &mut [f32]) {
    let start = grid(1);
    let stride = gridsize(1);
    for i in (start..y.len()).step_by(stride) {
        y[i] = a * x[i] + y[i];
    }
}

fn grid_stride_loop_runs_in_lockstep() -> gpujit::Result<()> {
    let n = 100_003;
    let x: Vec<f32> = (0..n).map(|i| (i % 977) as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 13) as f32 - 6.0).collect();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 2.5 * x + y).collect();
    let (a, _, b) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = to_device(&y0)?;
        saxpy_stride![3, 96](2.5, &dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

/// The naive matmul's shape, with a strided `k` loop: the loop sits in an
/// `if`, with a local made before it, accumulated in it, and stored after it.
#[gpu_kernel]
fn matmul_naive(a: ArrayView2<f32>, b: ArrayView2<f32>, mut c: ArrayViewMut2<f32>, scale: f32) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let k = a.shape()[1];
        let mut acc = 0.0;
        for i in (0..k).step_by(1) {
            acc += a[[row, i]] * b[[i, col]];
        }
        c[[row, col]] = acc * scale;
    }
}

fn loop_inside_if_with_locals_before_and_after() -> gpujit::Result<()> {
    let (n, k, m) = (37, 29, 41);
    let a = Array2::from_shape_fn((n, k), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let b = Array2::from_shape_fn((k, m), |(i, j)| ((i * 5 + j) % 7) as f32 * 0.25);
    let mut want = Array2::<f32>::zeros((n, m));
    for r in 0..n {
        for c in 0..m {
            let mut acc = 0.0f32;
            for i in 0..k {
                acc += a[[r, i]] * b[[i, c]];
            }
            want[[r, c]] = acc * 2.0;
        }
    }
    let (x, _, y) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Array2<f32>> {
        let (da, db) = (to_device(&a)?, to_device(&b)?);
        let mut dc = zeros::<f32>((n, m))?;
        matmul_naive![(6, 5), (8, 8)](&da, &db, &mut dc, 2.0)?;
        dc.copy_to_ndarray()
    });
    assert_eq!(x?, want);
    assert_eq!(y?, want);
    Ok(())
}

/// Each thread sums `x[i]` over its stride until a negative element
/// (`break`), skipping multiples of 5 (`continue`); thread 3 of each block
/// returns from inside the loop and writes nothing.
#[gpu_kernel]
fn sum_until_negative(x: &[i64], out: &mut [i64], mut bias: i64) {
    let t = grid(1);
    bias += 1;
    let mut s = bias;
    for i in (t..x.len()).step_by(gridsize(1)) {
        if x[i] < 0 {
            break;
        }
        if x[i] % 5 == 0 {
            continue;
        }
        if thread_idx().x == 3 && s > 100 {
            return;
        }
        s += x[i];
    }
    out[t] = s;
}

fn host_sum_until_negative(x: &[i64], threads: usize, block: usize, bias: i64) -> Vec<i64> {
    (0..threads)
        .map(|t| {
            let mut s = bias + 1;
            for i in (t..x.len()).step_by(threads) {
                if x[i] < 0 {
                    break;
                }
                if x[i] % 5 == 0 {
                    continue;
                }
                if t % block == 3 && s > 100 {
                    return 0;
                }
                s += x[i];
            }
            s
        })
        .collect()
}

fn break_continue_and_return_in_the_loop() -> gpujit::Result<()> {
    let x: Vec<i64> = (0..5000).map(|i| if i % 997 == 996 { -1 } else { i % 23 }).collect();
    let (blocks, block) = (4, 32);
    let want = host_sum_until_negative(&x, blocks * block, block, 10);
    let (a, _, b) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Vec<i64>> {
        let dx = to_device(&x)?;
        let mut out = zeros::<i64>(blocks * block)?;
        sum_until_negative![blocks, block](&dx, &mut out, 10)?;
        out.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    Ok(())
}

/// Threads read one element past the end on their last iteration.
#[gpu_kernel]
fn off_by_one(x: &[u32], out: &mut [u32]) {
    let t = grid(1);
    let mut s = 0;
    for i in (t..x.len() + 1).step_by(gridsize(1)) {
        s += x[i];
    }
    out[t] = s;
}

fn faults_in_the_loop_are_counted_per_thread() {
    let x: Vec<u32> = (0..64).collect();
    let (a, _, b) = common::on_both_paths(Expect::lockstep(), || -> (String, usize, Vec<u32>) {
        let dx = to_device(&x).unwrap();
        let mut out = zeros::<u32>(32).unwrap();
        let err = off_by_one![2, 16](&dx, &mut out).unwrap_err();
        match err {
            Error::KernelFault { message, faults, .. } => (message, faults, out.copy_to_host().unwrap()),
            other => panic!("expected a kernel fault, got {other}"),
        }
    });
    // Only thread 0 reaches index 64 (64 = 0 + 2 * 32).
    assert_eq!(a.1, 1, "{}", a.0);
    assert!(a.0.contains("index [64]"), "{}", a.0);
    assert_eq!(a, b);
    let want: Vec<u32> = (0..32).map(|t| t + t + 32).collect();
    assert_eq!(a.2, want);
}

/// A strided loop over registers only (computing loops run in rounds when
/// unit-stride, see `register_loops_run_in_rounds`), and a unit-stride loop
/// over contiguous memory: no interchange.
#[gpu_kernel]
fn busy(out: &mut [f64]) {
    let i = grid(1);
    if i < out.len() {
        let mut s = 0.0;
        for j in (0..100).step_by(1) {
            s += (i * j) as f64 * 0.1;
        }
        for j in 0..1 {
            s += out[i + j];
        }
        out[i] = s;
    }
}

fn loops_without_strided_access_are_left_alone() -> gpujit::Result<()> {
    let mut out = zeros::<f64>(64)?;
    busy![2, 32](&mut out)?;
    assert_eq!(last_launch_lockstep_blocks(), 0);
    let host = out.copy_to_host()?;
    for (i, v) in host.iter().enumerate() {
        let want: f64 = (0..100).map(|j| (i * j) as f64 * 0.1).sum();
        assert_eq!(*v, want);
    }
    Ok(())
}

/// `out[i] += i` over a grid-stride loop: the grid covers `n` with a partial
/// last round, or is larger than `n` (threads with no iteration at all).
#[gpu_kernel]
fn stride_add(out: &mut [u64]) {
    for i in (grid(1)..out.len()).step_by(gridsize(1)) {
        out[i] += i as u64 * 3 + 1;
    }
}

fn grid_stride_with_a_partial_last_round_and_idle_threads() -> gpujit::Result<()> {
    // (elements, blocks, threads): 1001 = 3 rounds of 320 and 41 more; 50
    // elements for 128 threads (78 idle, block 1 entirely); 0 elements.
    for (n, blocks, threads) in [(1001usize, 5usize, 64usize), (50, 2, 64), (0, 3, 32), (4096, 4, 256)] {
        let want: Vec<u64> = (0..n as u64).map(|i| 7 + i * 3 + 1).collect();
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u64>> {
            let mut d = to_device(&vec![7u64; n])?;
            stride_add![blocks, threads](&mut d)?;
            d.copy_to_host()
        });
        assert_eq!(a?, want, "n = {n}");
        assert_eq!(b?, want, "n = {n}");
        // Blocks where some thread has a second element run in lockstep;
        // where every thread has one element at most, the plain loop.
        let grid = blocks * threads;
        let multi = (0..blocks).filter(|b| b * threads + grid < n).count();
        assert_eq!(
            lockstep,
            expected(multi),
            "every block has one step, gridsize(1) (n = {n})"
        );
    }
    Ok(())
}

/// A grid-stride loop whose step depends on the thread in block `odd` only
/// (thread 5 strides one further): that block runs each thread's own loop.
#[gpu_kernel]
fn uneven_stride(out: &mut [u32], odd: usize) {
    let t = grid(1);
    let extra = if block_idx().x == odd && thread_idx().x == 5 {
        1
    } else {
        0
    };
    for i in (t..out.len()).step_by(gridsize(1) + extra) {
        out[i] += 1 + t as u32;
    }
}

fn grid_stride_with_a_thread_dependent_step_falls_back() -> gpujit::Result<()> {
    let (n, blocks, threads) = (2000usize, 3usize, 32usize);
    let grid = blocks * threads;
    for odd in [1usize, 7] {
        let mut want = vec![0u32; n];
        for t in 0..grid {
            let step = grid + usize::from(t / threads == odd && t % threads == 5);
            for i in (t..n).step_by(step) {
                want[i] += 1 + t as u32;
            }
        }
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u32>> {
            let mut d = zeros::<u32>(n)?;
            uneven_stride![blocks, threads](&mut d, odd)?;
            d.copy_to_host()
        });
        assert_eq!(a?, want);
        assert_eq!(b?, want);
        let uneven = usize::from(odd < blocks);
        assert_eq!(
            lockstep,
            expected(blocks - uneven),
            "only the block with two steps falls back (odd = {odd})"
        );
    }
    Ok(())
}

/// Strided loops that end at the top of their type (`usize::MAX`,
/// inclusive and not), and one over negative `i64`s: trip counts and
/// elements must be Rust's, with no overflow past the end.
#[gpu_kernel]
fn near_top(hits: &mut [u64], step: usize) {
    let t = thread_idx().x;
    let base = usize::MAX - 63;
    for i in (base + t..=usize::MAX).step_by(step) {
        hits[i - base] += 1 + t as u64;
    }
    for i in (base + t * 2..usize::MAX).step_by(step + 1) {
        hits[64 + i - base] += 100 + t as u64;
    }
    for i in ((t as i64) - 30..21).step_by(step) {
        hits[128 + (i + 30) as usize] += 1000 * (1 + t as u64);
    }
}

fn strided_loops_near_the_top_of_their_type() -> gpujit::Result<()> {
    for step in [1usize, 3, 5, 64, 1 << 40, usize::MAX] {
        let mut want = vec![0u64; 192];
        let base = usize::MAX - 63;
        for t in 0..8usize {
            for i in (base + t..=usize::MAX).step_by(step) {
                want[i - base] += 1 + t as u64;
            }
            for i in (base + t * 2..usize::MAX).step_by(step.wrapping_add(1).max(1)) {
                want[i - base + 64] += 100 + t as u64;
            }
            for i in ((t as i64) - 30..21).step_by(step) {
                want[128 + (i + 30) as usize] += 1000 * (1 + t as u64);
            }
        }
        let step_plus = step.wrapping_add(1);
        let (
            a,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            b,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u64>> {
            let mut d = zeros::<u64>(192)?;
            near_top![1, 8](&mut d, step)?;
            d.copy_to_host()
        });
        if step_plus == 0 {
            // `step_by(usize::MAX + 1)` wraps to a zero step: a fault.
            let err = a.unwrap_err();
            assert!(err.to_string().contains("step"), "{err}");
            assert!(b.is_err());
            continue;
        }
        assert_eq!(a?, want, "step {step}");
        assert_eq!(b?, want, "step {step}");
        assert_eq!(lockstep, expected(1), "step {step}");
    }
    Ok(())
}

/// The naive matmul of the examples: a unit-stride `k` loop walking a
/// column of `b`, inside the guard `row < n && col < m`.
#[gpu_kernel]
fn matmul_unit(a: ArrayView2<f32>, b: ArrayView2<f32>, mut c: ArrayViewMut2<f32>) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let k = a.shape()[1];
        let mut acc = 0.0;
        for i in 0..k {
            acc += a[[row, i]] * b[[i, col]];
        }
        c[[row, col]] = acc;
    }
}

fn matmul_k_loop_runs_as_one_block_counter() -> gpujit::Result<()> {
    // Edge blocks where the guard fails for some threads; k not a multiple
    // of the chunk; k = 0 (an empty loop).
    for (n, k, m) in [(37usize, 29usize, 41usize), (16, 16, 16), (5, 0, 3), (20, 1, 9)] {
        let (a, b) = common::matmul_inputs(n, k, m);
        let want = common::host_matmul(&a, &b, |_, _| k);
        let blocks = (m.div_ceil(8), n.div_ceil(8));
        let (
            x,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            y,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Array2<f32>> {
            let (da, db) = (to_device(&a)?, to_device(&b)?);
            let mut dc = zeros::<f32>((n, m))?;
            matmul_unit![blocks, (8, 8)](&da, &db, &mut dc)?;
            dc.copy_to_ndarray()
        });
        assert_eq!(x?, want, "{n}x{k}x{m}");
        assert_eq!(y?, want, "{n}x{k}x{m}");
        assert_eq!(
            lockstep,
            expected(blocks.0 * blocks.1),
            "every block's threads share k ({n}x{k}x{m})"
        );
    }
    Ok(())
}

/// Each thread's `k` depends on its column in the blocks whose `x` index is
/// `odd` only: those blocks run each thread's own loop, the others the
/// block counter.
#[gpu_kernel]
fn matmul_ragged(a: ArrayView2<f32>, b: ArrayView2<f32>, mut c: ArrayViewMut2<f32>, odd: usize) {
    let (col, row) = grid(2);
    let (n, m) = c.dim();
    if row < n && col < m {
        let mut k = a.shape()[1];
        if block_idx().x == odd {
            k -= col % 3;
        }
        let mut acc = 0.0;
        for i in 0..k {
            acc += a[[row, i]] * b[[i, col]];
        }
        c[[row, col]] = acc;
    }
}

fn matmul_with_per_thread_k_falls_back_where_threads_disagree() -> gpujit::Result<()> {
    let (n, k, m) = (19usize, 23usize, 30usize);
    let (a, b) = common::matmul_inputs(n, k, m);
    let blocks = (m.div_ceil(8), n.div_ceil(8));
    for odd in [1usize, 99] {
        let want = common::host_matmul(&a, &b, |_, c| if c / 8 == odd { k - c % 3 } else { k });
        let (
            x,
            common::Paths {
                lockstep_blocks: lockstep,
                ..
            },
            y,
        ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Array2<f32>> {
            let (da, db) = (to_device(&a)?, to_device(&b)?);
            let mut dc = zeros::<f32>((n, m))?;
            matmul_ragged![blocks, (8, 8)](&da, &db, &mut dc, odd)?;
            dc.copy_to_ndarray()
        });
        assert_eq!(x?, want);
        assert_eq!(y?, want);
        let ragged = if odd < blocks.0 { blocks.1 } else { 0 };
        assert_eq!(lockstep, expected(blocks.0 * blocks.1 - ragged), "odd = {odd}");
    }
    Ok(())
}

/// Thread 3 of each block returns before the loop (top level of the
/// kernel); a second loop after the first runs in each thread.
#[gpu_kernel]
fn colsum_then_rowsum(a: ArrayView2<f32>, out: &mut [f32]) {
    let col = grid(1);
    if thread_idx().x == 3 || col >= out.len() {
        return;
    }
    let mut s = 0.0;
    for i in 0..a.shape()[0] {
        s += a[[i, col]] * 0.5;
    }
    let mut t = 0.0;
    for j in 0..a.shape()[1] {
        t += a[[col % a.shape()[0], j]];
    }
    out[col] = s + t;
}

fn early_return_before_the_loop_and_a_second_loop_after() -> gpujit::Result<()> {
    let (rows, cols) = (27usize, 45usize);
    let (a, _) = common::matmul_inputs(rows, cols, 1);
    let want: Vec<f32> = (0..cols)
        .map(|c| {
            if c % 16 == 3 {
                return -1.0;
            }
            let mut s = 0.0f32;
            for i in 0..rows {
                s += a[[i, c]] * 0.5;
            }
            let mut t = 0.0f32;
            for j in 0..cols {
                t += a[[c % rows, j]];
            }
            s + t
        })
        .collect();
    let (
        x,
        common::Paths {
            lockstep_blocks: lockstep,
            ..
        },
        y,
    ) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
        let da = to_device(&a)?;
        let mut out = to_device(&vec![-1.0f32; cols])?;
        colsum_then_rowsum![3, 16](&da, &mut out)?;
        out.copy_to_host()
    });
    assert_eq!(x?, want);
    assert_eq!(y?, want);
    assert_eq!(
        lockstep,
        expected(3),
        "the returned threads take no part; the rest share the range"
    );
    Ok(())
}

/// A 1-D walk (`x[i * m + col]`) over an inclusive range, with a local
/// assigned in the loop and a fault on the last row for one column.
#[gpu_kernel]
fn column_max(x: &[i32], m: usize, rows: usize, out: &mut [i32]) {
    let col = grid(1);
    if col < m {
        let mut best = i32::MIN;
        let last = if col == 5 { rows } else { rows - 1 };
        for i in 0..=last {
            best = best.max(x[i * m + col]);
        }
        out[col] = best;
    }
}

fn one_d_walks_and_inclusive_ranges_are_interchanged() -> gpujit::Result<()> {
    let (rows, m) = (33usize, 20usize);
    let x: Vec<i32> = (0..rows * m).map(|v| ((v * 37) % 101) as i32 - 50).collect();
    let host = |col: usize, last: usize| {
        (0..=last)
            .map(|i| x.get(i * m + col).copied().unwrap_or(0))
            .max()
            .unwrap()
    };
    // Column 5 reads one row past the end: a fault (the read yields 0), and
    // its block (0) falls back: its threads disagree on the range.
    let want: Vec<i32> = (0..m).map(|c| host(c, if c == 5 { rows } else { rows - 1 })).collect();
    let (
        a,
        common::Paths {
            lockstep_blocks: lockstep,
            ..
        },
        b,
    ) = common::on_both_paths(Expect::none(), || {
        let dx = to_device(&x).unwrap();
        let mut out = zeros::<i32>(m).unwrap();
        let err = column_max![2, 16](&dx, m, rows, &mut out).unwrap_err();
        match err {
            Error::KernelFault { faults, message, .. } => (faults, message, out.copy_to_host().unwrap()),
            other => panic!("expected a kernel fault, got {other}"),
        }
    });
    assert_eq!(a.0, 1, "{}", a.1);
    assert_eq!(a.2, want);
    assert_eq!(a, b);
    assert_eq!(lockstep, expected(1), "block 1 shares its range, block 0 does not");
    Ok(())
}

/// A unit-stride walk with a `break`: each thread must be able to leave
/// on its own, so the loop is not run on one block counter.
#[gpu_kernel]
fn first_negative_in_column(a: ArrayView2<i32>, out: &mut [i64]) {
    let col = grid(1);
    if col < out.len() {
        let mut found = -1;
        for i in 0..a.shape()[0] {
            if a[[i, col]] < 0 {
                found = i as i64;
                break;
            }
        }
        out[col] = found;
    }
}

fn unit_stride_loops_that_can_leave_early_are_left_alone() -> gpujit::Result<()> {
    let (rows, cols) = (40usize, 24usize);
    let a = Array2::from_shape_fn((rows, cols), |(i, j)| if i * 3 == j * 5 + 1 { -1 } else { 1 });
    let want: Vec<i64> = (0..cols)
        .map(|c| (0..rows).find(|&i| a[[i, c]] < 0).map_or(-1, |i| i as i64))
        .collect();
    let da = to_device(&a)?;
    let mut out = zeros::<i64>(cols)?;
    first_negative_in_column![2, 16](&da, &mut out)?;
    assert_eq!(last_launch_lockstep_blocks(), 0);
    assert_eq!(out.copy_to_host()?, want);
    Ok(())
}

/// The loop test's shape: a counted loop that only computes on locals
/// (`s += (i * j) as f64 * 0.1`), its bound the same in every thread.
#[gpu_kernel]
fn register_loop(out: &mut [f64], n: usize) {
    let i = grid(1);
    if i < out.len() {
        let mut s = 0.0;
        for j in 0..n {
            s += (i * j) as f64 * 0.1;
        }
        out[i] = s;
    }
}

/// Its siblings: an inclusive range with a `let` and an `if` in the body;
/// two carried locals; a bound that differs per thread; a division that may
/// fault (never interchanged: the faults' order would change).
#[gpu_kernel]
fn register_loop_if(out: &mut [u32], n: u32) {
    let i = grid(1);
    if i < out.len() {
        let mut h = i as u32;
        for j in 0..=n {
            let m = h ^ (j * 2654435761);
            if m % 3 == 0 {
                h = h.wrapping_add(m >> 3);
            } else {
                h = h.rotate_left(5) ^ j;
            }
        }
        out[i] = h;
    }
}

#[gpu_kernel]
fn register_loop_two(out: &mut [f32], n: usize) {
    let i = grid(1);
    if i < out.len() {
        let (mut a, mut b) = (i as f32, 1.0);
        for j in 0..n {
            a = a * 0.5 + j as f32;
            b += a;
        }
        out[i] = a + b;
    }
}

#[gpu_kernel]
fn register_loop_per_thread(out: &mut [u64]) {
    let i = grid(1);
    if i < out.len() {
        let mut s = 1u64;
        for j in 0..i % 7 {
            s = s * 3 + j as u64;
        }
        out[i] = s;
    }
}

#[gpu_kernel]
fn register_loop_divides(out: &mut [u32], d: u32) {
    let i = grid(1);
    if i < out.len() {
        let mut s = 0u32;
        for j in 0..4u32 {
            s += (i as u32 + j) / d;
        }
        out[i] = s;
    }
}

/// A loop that only computes on locals runs in rounds across the block's
/// threads (the thread loop innermost, which LLVM vectorizes): one round on
/// spans per value of the counter in every block whose threads all reach
/// it, chunks of each thread's iterations in the block whose last threads
/// stop at the guard. Its siblings take the rounds, chunks, each thread's
/// own loop or no interchange as stated, and all equal the host.
fn register_loops_run_in_rounds() -> gpujit::Result<()> {
    let (len, n) = (1000usize, 37usize);
    let want: Vec<f64> = (0..len)
        .map(|i| (0..n).fold(0.0, |s, j| s + (i * j) as f64 * 0.1))
        .collect();
    let (a, paths, b) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Vec<f64>> {
        let mut out = zeros::<f64>(len)?;
        register_loop![len.div_ceil(128), 128](&mut out, n)?;
        out.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    // 7 whole blocks of 128 (896 threads), each a round per `j`; block 8
    // has threads past the guard.
    assert_eq!(paths.span_loops, expected(7 * n), "rounds on spans");
    assert_eq!(paths.lockstep_blocks, expected(8));

    let n = 20u32;
    let want: Vec<u32> = (0..len)
        .map(|i| {
            let mut h = i as u32;
            for j in 0..=n {
                let m = h ^ j.wrapping_mul(2654435761);
                h = if m % 3 == 0 {
                    h.wrapping_add(m >> 3)
                } else {
                    h.rotate_left(5) ^ j
                };
            }
            h
        })
        .collect();
    let (a, paths, b) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Vec<u32>> {
        let mut out = zeros::<u32>(len)?;
        register_loop_if![len / 8, 8](&mut out, n)?;
        out.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    assert_eq!(
        paths.span_loops,
        expected(len / 8 * (n as usize + 1)),
        "rounds of `0..=n`"
    );

    let want: Vec<f32> = (0..len)
        .map(|i| {
            let (mut a, mut b) = (i as f32, 1.0f32);
            for j in 0..n as usize {
                a = a * 0.5 + j as f32;
                b += a;
            }
            a + b
        })
        .collect();
    let (a, paths, b) = common::on_both_paths(Expect::lockstep(), || -> gpujit::Result<Vec<f32>> {
        let mut out = zeros::<f32>(len)?;
        register_loop_two![len.div_ceil(64), 64](&mut out, n as usize)?;
        out.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    assert_eq!(paths.span_loops, 0, "two carried locals run in chunks");

    let want: Vec<u64> = (0..len)
        .map(|i| (0..i % 7).fold(1u64, |s, j| s * 3 + j as u64))
        .collect();
    let (a, paths, b) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u64>> {
        let mut out = zeros::<u64>(len)?;
        register_loop_per_thread![len.div_ceil(32), 32](&mut out)?;
        out.copy_to_host()
    });
    assert_eq!(a?, want);
    assert_eq!(b?, want);
    assert_eq!(paths.lockstep_blocks, 0, "bounds that differ per thread");

    let mut out = zeros::<u32>(64)?;
    let err = register_loop_divides![2, 32](&mut out, 0).expect_err("division by zero");
    assert_eq!(last_launch_lockstep_blocks(), 0, "a body that may fault");
    assert!(err.to_string().contains("divi"), "{err}");
    register_loop_divides![2, 32](&mut out, 3)?;
    let want: Vec<u32> = (0..64u32).map(|i| (0..4).map(|j| (i + j) / 3).sum()).collect();
    assert_eq!(out.copy_to_host()?, want);
    Ok(())
}
