//! Narrowed thread loops on the CPU backend: in a kernel split at its
//! barriers, a part that is one `if threadIdx.x < E { .. }` (or `<=`, `==`,
//! `>=`, `>`, either side, `&& rest`) with `E` the same in every thread runs
//! its body only for the threads in range. Each kernel here must take that
//! loop (`last_launch_narrowed_blocks`), and its results must equal a host
//! reference and the coroutine path (forced), exited threads included.

use gpujit::__private::last_launch_narrowed_blocks;
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use crate::common;
use crate::reduction;
use common::Expect;

use reduction::{block_sum_f32, tree_sums, RED_THREADS};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => reduction_with_a_uniform_let_stride,
        cpu => reduction_for_any_block_size_with_a_bound_past_the_block,
        cpu => a_negative_signed_bound_runs_no_thread,
        cpu => every_comparison_and_a_let_bound_thread_index,
        cpu => threads_that_returned_stay_out,
        cpu => a_thread_dependent_bound_is_not_narrowed,
    ]
}

fn reduction_with_a_uniform_let_stride() -> gpujit::Result<()> {
    // Not a multiple of the block: the last block sums zeros too.
    let n: usize = 256 * 37 + 101;
    let x: Vec<f32> = (0..n).map(|i| ((i * 29) % 101) as f32 * 0.25 - 12.0).collect();
    let blocks = n.div_ceil(RED_THREADS);
    let want = tree_sums(&x, RED_THREADS, RED_THREADS / 2);
    let (split, _, coro) = common::on_both_paths(Expect::narrowed(blocks), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dp = zeros::<f32>(blocks)?;
        block_sum_f32![blocks, RED_THREADS](&dx, &mut dp)?;
        dp.copy_to_host()
    });
    let bits = |v: Vec<f32>| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(split?), bits(want.clone()));
    assert_eq!(bits(coro?), bits(want));
    Ok(())
}

/// A tree sum for any block size up to 1024: strides from 512 down, so the
/// bound is past the block at first; the `&& rest` keeps the pairs inside.
#[gpu_kernel]
fn sum_any_block(x: &[f64], partial: &mut [f64]) {
    let cache = shared_array::<[f64; 1024]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    for level in 0..10 {
        let stride = 512 >> level;
        if stride > tid && tid + stride < block_dim().x {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
    }
    if 0 == tid {
        partial[block_idx().x] = cache[0];
    }
}

fn reduction_for_any_block_size_with_a_bound_past_the_block() -> gpujit::Result<()> {
    let n: usize = 5000;
    let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 113) as f64 - 50.5).collect();
    for block in [1, 37, 100, 256, 1000, 1024] {
        let blocks = n.div_ceil(block);
        let want = tree_sums(&x, block, 512);
        let (split, _, coro) = common::on_both_paths(Expect::narrowed(blocks), || -> gpujit::Result<Vec<f64>> {
            let dx = to_device(&x)?;
            let mut dp = zeros::<f64>(blocks)?;
            sum_any_block![blocks, block](&dx, &mut dp)?;
            dp.copy_to_host()
        });
        assert_eq!(split?, want, "block of {block}");
        assert_eq!(coro?, want, "block of {block}");
    }
    Ok(())
}

/// `count[g]` = how many `k` in 0..4 have `tx < n - k` (as `i32`): `n - k`
/// from a parameter and the split loop's variable, negative for small `n`
/// (and wrapped to `i32::MAX` for `n = i32::MIN`, `k > 0`), bound by a `let`
/// after a per-thread `let` in the same part.
#[gpu_kernel]
fn count_below_signed(n: i32, count: &mut [u32]) {
    let tx = thread_idx().x as i32;
    for k in 0..4 {
        let g = grid(1);
        let bound = n - k;
        if tx < bound {
            count[g] += 1;
        }
        syncthreads();
    }
}

fn a_negative_signed_bound_runs_no_thread() -> gpujit::Result<()> {
    let (blocks, block) = (3, 70);
    for n in [i32::MIN, -5, 0, 2, 69, 70, 72, i32::MAX] {
        let want: Vec<u32> = (0..blocks * block)
            .map(|g| (0..4).filter(|&k| ((g % block) as i32) < n.wrapping_sub(k)).count() as u32)
            .collect();
        let (split, _, coro) = common::on_both_paths(Expect::narrowed(blocks), || -> gpujit::Result<Vec<u32>> {
            let mut dc = zeros::<u32>(blocks * block)?;
            count_below_signed![blocks, block](n, &mut dc)?;
            dc.copy_to_host()
        });
        assert_eq!(split?, want, "n = {n}");
        assert_eq!(coro?, want, "n = {n}");
    }
    Ok(())
}

/// One bit per comparison form: the thread index through `let t =
/// thread_idx(); let tx = t.x;`, as `u16` in one test; `e` from a parameter
/// and `block_dim()`, a block-level loop variable in the last.
#[gpu_kernel]
fn comparisons(e: usize, bits: &mut [u32]) {
    let t = thread_idx();
    let tx = t.x;
    let (x, y) = grid(2);
    let g = x + y * gridsize(1);
    syncthreads();
    if tx <= e {
        bits[g] |= 1;
    }
    syncthreads();
    if e == tx {
        bits[g] |= 2;
    }
    syncthreads();
    if tx >= e {
        bits[g] |= 4;
    }
    syncthreads();
    if e < tx {
        bits[g] |= 8;
    }
    syncthreads();
    if (tx as u16) < (block_dim().x - e) as u16 {
        bits[g] |= 16;
    }
    syncthreads();
    for j in 0..2 {
        if tx > e + j && t.y == 1 {
            bits[g] += 32;
        }
        syncthreads();
    }
}

fn every_comparison_and_a_let_bound_thread_index() -> gpujit::Result<()> {
    let (gx, bx, by) = (2usize, 13usize, 3usize);
    for e in [0usize, 5, 12, 13, 40] {
        let want: Vec<u32> = (0..by)
            .flat_map(|y| (0..gx * bx).map(move |gxx| (y, gxx % bx)))
            .map(|(y, tx)| {
                let mut b = 0;
                b |= u32::from(tx <= e);
                b |= u32::from(e == tx) << 1;
                b |= u32::from(tx >= e) << 2;
                b |= u32::from(e < tx) << 3;
                b |= u32::from((tx as u16) < (bx.wrapping_sub(e)) as u16) << 4;
                b + 32 * (0..2).filter(|j| tx > e + j && y == 1).count() as u32
            })
            .collect();
        let (split, _, coro) = common::on_both_paths(Expect::narrowed(gx), || -> gpujit::Result<Vec<u32>> {
            let mut db = zeros::<u32>(gx * bx * by)?;
            comparisons![gx, (bx, by)](e, &mut db)?;
            db.copy_to_host()
        });
        assert_eq!(split?, want, "e = {e}");
        assert_eq!(coro?, want, "e = {e}");
    }
    Ok(())
}

/// Threads at and past `m` return first (a narrowed part itself); the
/// narrowed part after them must skip them (no barrier lies between: the
/// only one is never reached).
#[gpu_kernel]
fn after_returns(m: usize, e: usize, out: &mut [u32]) {
    let tid = thread_idx().x;
    if tid >= m {
        return;
    }
    for k in 0..3 {
        if tid < e + k {
            out[grid(1)] += 1;
        }
        if k == 100 {
            syncthreads();
        }
    }
}

fn threads_that_returned_stay_out() -> gpujit::Result<()> {
    let (blocks, block) = (4, 32);
    for (m, e) in [(10, 20), (20, 10), (0, 5), (32, 40)] {
        let want: Vec<u32> = (0..blocks * block)
            .map(|g| {
                let tid = g % block;
                if tid >= m {
                    0
                } else {
                    (0..3).filter(|k| tid < e + k).count() as u32
                }
            })
            .collect();
        // The first part, `if tid >= m { return; }`, is narrowed too (even
        // for m = 0, where every thread returns and no block gets further).
        let (split, _, coro) = common::on_both_paths(Expect::narrowed(blocks), || -> gpujit::Result<Vec<u32>> {
            let mut d = zeros::<u32>(blocks * block)?;
            after_returns![blocks, block](m, e, &mut d)?;
            d.copy_to_host()
        });
        assert_eq!(split?, want, "m = {m}, e = {e}");
        assert_eq!(coro?, want, "m = {m}, e = {e}");
    }
    Ok(())
}

/// Bounds that are not block-uniform or may fault: a thread's own index, a
/// local each thread may change, a division (a zero divisor is a fault of
/// every thread). None of these parts is narrowed; all still run right.
#[gpu_kernel]
fn not_narrowed(d: usize, out: &mut [u32]) {
    let tid = thread_idx().x;
    let mut s = block_dim().x;
    syncthreads();
    if tid < grid(1) / 2 {
        out[grid(1)] += 1;
    }
    syncthreads();
    // True in every thread, but per-thread: `s` is not block-level.
    if grid(1) % 3 != 5 {
        s /= 2;
    }
    syncthreads();
    if tid < s {
        out[grid(1)] += 10;
    }
    syncthreads();
    if tid < 8 / d {
        out[grid(1)] += 100;
    }
}

fn a_thread_dependent_bound_is_not_narrowed() -> gpujit::Result<()> {
    let (blocks, block) = (2, 16);
    let want: Vec<u32> = (0..blocks * block)
        .map(|g| {
            let tid = g % block;
            u32::from(tid < g / 2) + 10 * u32::from(tid < block / 2) + 100 * u32::from(tid < 4)
        })
        .collect();
    let mut d = zeros::<u32>(blocks * block)?;
    not_narrowed![blocks, block](2, &mut d)?;
    assert_eq!(last_launch_narrowed_blocks(), 0);
    assert_eq!(d.copy_to_host()?, want);
    // A zero divisor faults in every thread of both blocks, as before.
    let mut d = zeros::<u32>(blocks * block)?;
    match not_narrowed![blocks, block](0, &mut d) {
        Err(Error::KernelFault {
            faults, block, thread, ..
        }) => {
            assert_eq!((faults, block, thread), (32, [0, 0, 0], [0, 0, 0]));
        }
        other => panic!("expected a KernelFault, got {other:?}"),
    }
    Ok(())
}
