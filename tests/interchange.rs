//! Loop interchange on the CPU backend: a barrier-free kernel's `for` loop
//! that walks global memory runs in lockstep across the block's threads.
//! Each kernel here runs on that path and on the plain thread loop (forced),
//! and both must equal a host reference, faults and early exits included.

use gpujit::__private::{last_launch_lockstep_blocks, with_forced_coroutines};
use gpujit::ndarray::Array2;
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

#[macro_use]
mod common;

fn main() -> std::process::ExitCode {
    let cpu = Some(common::Tool::CpuBackend);
    common::run_tests(
        include_str!("interchange.rs"),
        cases![
            cpu => grid_stride_loop_runs_in_lockstep,
            cpu => loop_inside_if_with_locals_before_and_after,
            cpu => break_continue_and_return_in_the_loop,
            cpu => faults_in_the_loop_are_counted_per_thread,
            cpu => loops_without_strided_access_are_left_alone,
        ],
    )
}

/// Runs `f` (one launch) on the lockstep path, checking that it was taken,
/// and on the plain thread loop.
fn on_both_paths<T>(f: impl Fn() -> T) -> (T, T) {
    let lockstep = f();
    assert!(last_launch_lockstep_blocks() > 0, "the loop did not run in lockstep");
    let plain = with_forced_coroutines(&f);
    assert_eq!(last_launch_lockstep_blocks(), 0, "the forced path ran in lockstep");
    (lockstep, plain)
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
    let (a, b) = on_both_paths(|| -> gpujit::Result<Vec<f32>> {
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
    let (x, y) = on_both_paths(|| -> gpujit::Result<Array2<f32>> {
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
    let (a, b) = on_both_paths(|| -> gpujit::Result<Vec<i64>> {
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
    let (a, b) = on_both_paths(|| -> (String, usize, Vec<u32>) {
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

/// A per-thread loop over registers only, and a unit-stride loop over
/// memory: no interchange.
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
