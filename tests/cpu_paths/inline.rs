//! Small launches on the calling thread (issue #20): a launch of a kernel
//! without loops or device function calls whose estimated work is below
//! the thread pool's hand-off runs its blocks one after another on the
//! calling thread (`last_launch_inline_blocks`); anything else, and the
//! same launch with `Strategies::INLINE` off, runs on the pool. Both must
//! give the same results and the same first fault.

use gpujit::__private::{last_launch_inline_blocks, with_cpu_strategies_off, Strategies};
use gpujit::prelude::*;
use gpujit::{to_device, zeros, Error};

use crate::common;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => a_small_launch_without_loops_runs_on_the_calling_thread,
        cpu => loops_calls_and_large_launches_run_on_the_pool,
        cpu => faults_on_the_calling_thread_are_the_pools,
    ]
}

#[gpu_kernel]
fn nothing() {}

/// One element per thread, no loop: bounded work.
#[gpu_kernel]
fn scaled(x: &[f32], y: &mut [f32], a: f32) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + 1.0;
    }
}

/// The same element, through a loop of one step.
#[gpu_kernel]
fn scaled_loop(x: &[f32], y: &mut [f32], a: f32) {
    for i in (grid(1)..y.len()).step_by(gridsize(1)) {
        y[i] = a * x[i] + 1.0;
    }
}

#[gpu_device]
fn affine(a: f32, v: f32) -> f32 {
    a * v + 1.0
}

/// The same element, through a device function.
#[gpu_kernel]
fn scaled_call(x: &[f32], y: &mut [f32], a: f32) {
    let i = grid(1);
    if i < y.len() {
        y[i] = affine(a, x[i]);
    }
}

/// Runs `f` on the default path and with the calling thread's path off,
/// returning both results and the inline blocks of each launch.
fn both<T>(f: impl Fn() -> T) -> ((T, usize), (T, usize)) {
    let default = (f(), last_launch_inline_blocks());
    let pool = with_cpu_strategies_off(Strategies::INLINE, || (f(), last_launch_inline_blocks()));
    (default, pool)
}

fn a_small_launch_without_loops_runs_on_the_calling_thread() -> gpujit::Result<()> {
    // cpu_bench's empty launch.
    let ((r, inline), (p, pool)) = both(|| nothing![1000, 1]());
    r?;
    p?;
    assert_eq!(inline, common::expected(1000), "empty launch");
    assert_eq!(pool, 0, "empty launch with no-inline");
    let x: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v + 1.0).collect();
    let ((r, inline), (p, pool)) = both(|| -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<f32>(x.len())?;
        scaled![3, 128](&dx, &mut dy, 3.0)?;
        dy.copy_to_host()
    });
    assert_eq!(r?, want);
    assert_eq!(p?, want);
    assert_eq!(inline, common::expected(3), "scaled, 3 blocks");
    assert_eq!(pool, 0, "scaled with no-inline");
    Ok(())
}

fn loops_calls_and_large_launches_run_on_the_pool() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v + 1.0).collect();
    let dx = to_device(&x)?;
    let mut dy = zeros::<f32>(x.len())?;
    scaled_loop![3, 128](&dx, &mut dy, 3.0)?;
    assert_eq!(last_launch_inline_blocks(), 0, "a loop");
    assert_eq!(dy.copy_to_host()?, want);
    let mut dy = zeros::<f32>(x.len())?;
    scaled_call![3, 128](&dx, &mut dy, 3.0)?;
    assert_eq!(last_launch_inline_blocks(), 0, "a device function call");
    assert_eq!(dy.copy_to_host()?, want);
    // 2^20 threads of the same kernel: too much work for one thread.
    let n = 1 << 20;
    let big: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let (dx, mut dy) = (to_device(&big)?, zeros::<f32>(n)?);
    scaled![n / 256, 256](&dx, &mut dy, 2.0)?;
    assert_eq!(last_launch_inline_blocks(), 0, "2^20 threads");
    let got = dy.copy_to_host()?;
    assert!(got.iter().zip(&big).all(|(g, v)| *g == 2.0 * v + 1.0));
    Ok(())
}

/// `y` shorter than the grid and `x` shorter still: reads past `x` fault in
/// several blocks; the first fault (lowest block, then thread) and the
/// count are the same on the calling thread and on the pool.
#[gpu_kernel]
fn past_the_end(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i] * 2.0;
    }
}

fn faults_on_the_calling_thread_are_the_pools() {
    let x: Vec<f32> = (0..70).map(|i| i as f32).collect();
    let ((r, inline), (p, pool)) = both(|| {
        let dx = to_device(&x).unwrap();
        let mut dy = zeros::<f32>(200).unwrap();
        let err = past_the_end![7, 32](&dx, &mut dy).unwrap_err();
        (err.to_string(), dy.copy_to_host().unwrap(), err)
    });
    assert_eq!(inline, common::expected(7));
    assert_eq!(pool, 0);
    match (&r.2, &p.2) {
        (
            Error::KernelFault {
                block, thread, faults, ..
            },
            Error::KernelFault {
                block: b2,
                thread: t2,
                faults: f2,
                ..
            },
        ) => {
            assert_eq!((block, thread), (&[2, 0, 0], &[6, 0, 0]), "{}", r.0);
            assert_eq!((block, thread, faults), (b2, t2, f2));
            assert_eq!(*faults, 130);
        }
        other => panic!("expected two kernel faults, got {other:?}"),
    }
    assert_eq!(r.0, p.0);
    assert_eq!(r.1, p.1);
    let mut want = vec![0.0f32; 200];
    for (i, w) in want.iter_mut().enumerate().take(70) {
        *w = i as f32 * 2.0;
    }
    assert_eq!(r.1, want);
}
