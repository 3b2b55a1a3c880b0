//! One algorithm, the spellings users write: each must take the same CPU
//! path as the benchmark's spelling and give the host's answer bit for bit,
//! as the coroutine path (forced) does.
//!
//! The block reduction as `while stride > 0 { ..; stride /= 2 }` (CUDA's
//! samples, Numba's docs), with `>>= 1`, as `loop` with a uniform `break`,
//! and with the stride from `block_dim()`: the stride is a mutable local
//! that holds the same value in every thread (`split::block_locals`), so
//! the halving step runs narrowed, as the `for level in ..` spelling does.
//! Beside them, the mutable locals that are not block-level (assigned in a
//! thread-dependent `if`, or read between two of their assignments in one
//! part) keep their per-thread values.
//!
//! The grid-stride loop as `while i < n { ..; i += s }` and as `loop` with
//! a `break` (`cpu::canonical`): it runs in lockstep as the `for ..
//! step_by` spelling does, counter for counter, except where the step could
//! overflow the loop variable or is not uniform, or the loop is not a
//! counted one (a `continue`, the variable read after the loop), where the
//! `while` runs as written.

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
        cpu => every_reduction_spelling_runs_narrowed,
        cpu => a_mutable_local_assigned_per_thread_keeps_its_value,
        cpu => a_local_read_between_two_assignments_in_one_part_keeps_its_value,
        cpu => every_grid_stride_spelling_runs_in_lockstep,
        cpu => a_step_that_could_wrap_keeps_the_while,
        cpu => loops_that_are_not_counted_keep_the_while,
    ]
}

/// CUDA's samples: `while` over a halving `stride`, `/= 2`.
#[gpu_kernel]
fn sum_while(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; RED_THREADS]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut stride = RED_THREADS / 2;
    while stride > 0 {
        if tid < stride {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
        stride /= 2;
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

/// The stride from `block_dim()`, declared before the load, halved by a
/// shift.
#[gpu_kernel]
fn sum_while_block_dim(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; RED_THREADS]>();
    let mut s = block_dim().x >> 1;
    let tid = thread_idx().x;
    cache[tid] = if grid(1) < x.len() { x[grid(1)] } else { 0.0 };
    syncthreads();
    while s > 0 {
        if tid < s {
            cache[tid] += cache[tid + s];
        }
        syncthreads();
        s >>= 1;
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

/// `loop` with a uniform `break`, `s = s / 2`.
#[gpu_kernel]
fn sum_loop_break(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; RED_THREADS]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut s = RED_THREADS / 2;
    loop {
        if s == 0 {
            break;
        }
        if tid < s {
            cache[tid] += cache[tid + s];
        }
        syncthreads();
        s = s / 2;
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

fn every_reduction_spelling_runs_narrowed() -> gpujit::Result<()> {
    // Not a multiple of the block: the last block sums zeros too.
    let n: usize = RED_THREADS * 21 + 77;
    let x: Vec<f32> = (0..n).map(|i| ((i * 29) % 101) as f32 * 0.25 - 12.0).collect();
    let blocks = n.div_ceil(RED_THREADS);
    let want = tree_sums(&x, RED_THREADS, RED_THREADS / 2);
    let bits = |v: Vec<f32>| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    type Launch = fn(&DeviceArray<f32>, &mut DeviceArray<f32>, usize) -> gpujit::Result<()>;
    let spellings: [(&str, Launch); 4] = [
        ("block_sum_f32", |x, p, b| block_sum_f32![b, RED_THREADS](x, p)),
        ("sum_while", |x, p, b| sum_while![b, RED_THREADS](x, p)),
        ("sum_while_block_dim", |x, p, b| {
            sum_while_block_dim![b, RED_THREADS](x, p)
        }),
        ("sum_loop_break", |x, p, b| sum_loop_break![b, RED_THREADS](x, p)),
    ];
    let mut first: Option<common::Paths> = None;
    for (name, launch) in spellings {
        let expect = Expect::narrowed(blocks).named(name);
        let (fast, paths, coro) = common::on_both_paths(expect, || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(&x)?;
            let mut dp = zeros::<f32>(blocks)?;
            launch(&dx, &mut dp, blocks)?;
            dp.copy_to_host()
        });
        assert_eq!(bits(fast?), bits(want.clone()), "{name}");
        assert_eq!(bits(coro?), bits(want.clone()), "{name}");
        // Eight halving steps and the `tid == 0` store, in every block.
        assert_eq!(
            paths.narrowed_loops,
            common::expected(9 * blocks),
            "{name}: narrowed loops"
        );
        // The paths of the benchmark's `for` spelling, counter for counter.
        let first = *first.get_or_insert(paths);
        assert_eq!(paths, first, "{name}: paths unlike block_sum_f32's");
    }
    Ok(())
}

/// `acc` starts uniform but odd threads add to it in their own `if`: it is
/// per-thread, and so is the `while` bound it feeds (each thread counts its
/// own steps, no barrier inside).
#[gpu_kernel]
fn per_thread_mutable(out: &mut [u32]) {
    let tid = thread_idx().x;
    let mut acc = 3u32;
    if tid % 2 == 1 {
        acc += tid as u32;
    }
    syncthreads();
    let mut steps = 0u32;
    while steps < acc % 7 {
        steps += 1;
    }
    syncthreads();
    acc = acc * 2 + steps;
    out[grid(1)] = acc;
}

fn a_mutable_local_assigned_per_thread_keeps_its_value() -> gpujit::Result<()> {
    let (blocks, block) = (3, 50);
    let want: Vec<u32> = (0..blocks * block)
        .map(|g| {
            let tid = (g % block) as u32;
            let acc = if tid % 2 == 1 { 3 + tid } else { 3 };
            acc * 2 + acc % 7
        })
        .collect();
    let (fast, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<u32>> {
        let mut d = zeros::<u32>(blocks * block)?;
        per_thread_mutable![blocks, block](&mut d)?;
        d.copy_to_host()
    });
    assert_eq!(fast?, want);
    assert_eq!(coro?, want);
    Ok(())
}

/// `s` is uniform, but one part reads it between two of its assignments
/// (`s += 1; out = s; s *= 3;`), so its statements cannot all leave the
/// part: it stays per-thread, as does `k`, whose assignment shares that
/// part.
#[gpu_kernel]
fn read_between_assignments(out: &mut [u64]) {
    let g = grid(1);
    let mut s = 2u64;
    let mut k = 1u64;
    for round in 0..3u64 {
        out[g] += s * 10 + k + round;
        s += 1;
        out[g] += s;
        s *= 3;
        k = k * 2 + round;
        syncthreads();
    }
    out[g] += s + k;
}

fn a_local_read_between_two_assignments_in_one_part_keeps_its_value() -> gpujit::Result<()> {
    let (blocks, block) = (2, 33);
    let mut v = 0u64;
    let (mut s, mut k) = (2u64, 1u64);
    for round in 0..3u64 {
        v += s * 10 + k + round;
        s += 1;
        v += s;
        s *= 3;
        k = k * 2 + round;
    }
    v += s + k;
    let want = vec![v; blocks * block];
    let (fast, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<u64>> {
        let mut d = zeros::<u64>(blocks * block)?;
        read_between_assignments![blocks, block](&mut d)?;
        d.copy_to_host()
    });
    assert_eq!(fast?, want);
    assert_eq!(coro?, want);
    Ok(())
}

/// saxpy as `examples/saxpy.rs` writes it.
#[gpu_kernel]
fn saxpy_for(a: f32, x: &[f32], y: &mut [f32]) {
    let start = grid(1);
    let stride = gridsize(1);
    for i in (start..y.len()).step_by(stride) {
        y[i] = a * x[i] + y[i];
    }
}

/// CUDA's samples: `while`, the step read in the increment.
#[gpu_kernel]
fn saxpy_while(a: f32, x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    while i < y.len() {
        y[i] = a * x[i] + y[i];
        i += gridsize(1);
    }
}

/// A hand-computed index and stride, `n > i`, `i = i + stride`.
#[gpu_kernel]
fn saxpy_while_hand(a: f32, x: &[f32], y: &mut [f32]) {
    let n = y.len();
    let stride = block_dim().x * grid_dim().x;
    let mut i = block_idx().x * block_dim().x + thread_idx().x;
    while n > i {
        y[i] = a * x[i] + y[i];
        i = i + stride;
    }
}

/// As `saxpy_while_hand` in `u32` with `n` a parameter: `i += stride`
/// could wrap, so the `for` runs behind a test per block, and the index is
/// not `grid(1)`'s `usize` (no own-index views: lockstep rounds, checked).
#[gpu_kernel]
fn saxpy_while_u32(a: f32, x: &[f32], y: &mut [f32], n: u32) {
    let stride = block_dim().x as u32 * grid_dim().x as u32;
    let mut i = (block_idx().x * block_dim().x + thread_idx().x) as u32;
    while n > i {
        let k = i as usize;
        y[k] = a * x[k] + y[k];
        i = i + stride;
    }
}

/// `loop` with a `break` at the top.
#[gpu_kernel]
fn saxpy_loop(a: f32, x: &[f32], y: &mut [f32]) {
    let n = y.len();
    let mut i = grid(1);
    loop {
        if i >= n {
            break;
        }
        y[i] = a * x[i] + y[i];
        i += gridsize(1);
    }
}

fn every_grid_stride_spelling_runs_in_lockstep() -> gpujit::Result<()> {
    // 3 blocks of 64 threads over more elements than threads, not a
    // multiple of the grid: full rounds and a partial last one.
    let (n, blocks, threads) = (192 * 7 + 50, 3, 64);
    let x: Vec<f32> = (0..n).map(|i| (i % 37) as f32 * 0.5 - 3.0).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 11) as f32 * 0.25).collect();
    let a = 1.5f32;
    let want: Vec<u32> = (0..n).map(|i| (a * x[i] + y0[i]).to_bits()).collect();
    type Launch = fn(f32, &DeviceArray<f32>, &mut DeviceArray<f32>, (usize, usize)) -> gpujit::Result<()>;
    // (name, launch, whether it takes saxpy_for's paths counter for counter)
    let spellings: [(&str, Launch, bool); 5] = [
        ("saxpy_for", |a, x, y, (b, t)| saxpy_for![b, t](a, x, y), true),
        ("saxpy_while", |a, x, y, (b, t)| saxpy_while![b, t](a, x, y), true),
        (
            "saxpy_while_hand",
            |a, x, y, (b, t)| saxpy_while_hand![b, t](a, x, y),
            true,
        ),
        ("saxpy_loop", |a, x, y, (b, t)| saxpy_loop![b, t](a, x, y), true),
        (
            "saxpy_while_u32",
            |a, x, y, (b, t)| {
                let n = y.len() as u32;
                saxpy_while_u32![b, t](a, x, y, n)
            },
            false,
        ),
    ];
    let mut first: Option<common::Paths> = None;
    for (name, launch, same) in spellings {
        let (fast, paths, coro) =
            common::on_both_paths(Expect::lockstep().named(name), || -> gpujit::Result<Vec<u32>> {
                let dx = to_device(&x)?;
                let mut dy = to_device(&y0)?;
                launch(a, &dx, &mut dy, (blocks, threads))?;
                Ok(dy.copy_to_host()?.iter().map(|f| f.to_bits()).collect())
            });
        assert_eq!(fast?, want, "{name}");
        assert_eq!(coro?, want, "{name}");
        assert_eq!(
            paths.lockstep_blocks,
            common::expected(blocks),
            "{name}: lockstep blocks"
        );
        let first = *first.get_or_insert(paths);
        if same {
            assert_eq!(paths, first, "{name}: paths unlike saxpy_for's");
        }
    }
    Ok(())
}

/// Counts each thread's visits of `i` in its own 256 counters, twice (two
/// loops, so two tests per block): `i += s` wraps in `u8` where `n > 255 -
/// s`.
#[gpu_kernel]
fn count_u8(out: &mut [u32], n: u8, s: u8) {
    let base = grid(1) * 256;
    let mut i = thread_idx().x as u8;
    while i < n {
        out[base + i as usize] += 1;
        i += s;
    }
    let mut j = thread_idx().x as u8;
    loop {
        if j >= n {
            break;
        }
        out[base + j as usize] += 1;
        j = j + s;
    }
}

fn a_step_that_could_wrap_keeps_the_while() -> gpujit::Result<()> {
    let (blocks, threads) = (2usize, 8usize);
    // (n, s, whether the `for` may run): 250 > 255 - 100, so `i` wraps
    // (0, 100, 200, 44, ..., 24 visits for thread 0 before it reaches 252).
    for (n, s, counted) in [(150u8, 100u8, true), (250, 100, false), (255, 1, false), (254, 1, true)] {
        let mut want = vec![0u32; blocks * threads * 256];
        for g in 0..blocks * threads {
            let mut i = (g % threads) as u8;
            while i < n {
                want[g * 256 + usize::from(i)] += 2;
                i = i.wrapping_add(s);
            }
        }
        let (fast, paths, coro) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<u32>> {
            let mut d = zeros::<u32>(blocks * threads * 256)?;
            count_u8![blocks, threads](&mut d, n, s)?;
            d.copy_to_host()
        });
        assert_eq!(fast?, want, "n {n}, s {s}");
        assert_eq!(coro?, want, "n {n}, s {s}");
        let lockstep = if counted { common::expected(blocks) } else { 0 };
        assert_eq!(paths.lockstep_blocks, lockstep, "n {n}, s {s}: lockstep blocks");
    }
    Ok(())
}

/// The loop variable read after the loop: the `while` is not a `for`.
#[gpu_kernel]
fn stride_then_read(x: &[f32], y: &mut [f32], last: &mut [usize]) {
    let mut i = grid(1);
    while i < y.len() {
        y[i] += x[i];
        i += gridsize(1);
    }
    last[grid(1)] = i;
}

/// A `continue` would skip the increment, so the `continue` moves `i`
/// itself: not the `for`'s meaning, not rewritten.
#[gpu_kernel]
fn stride_with_continue(x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    while i < y.len() {
        if x[i] == 0.0 {
            i += gridsize(1);
            continue;
        }
        y[i] += x[i];
        i += gridsize(1);
    }
}

/// A thread-dependent step: each thread its own stride (threads may meet
/// at an element: they store the same value).
#[gpu_kernel]
fn stride_per_thread(x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    while i < y.len() {
        y[i] = x[i] * 2.0;
        i += gridsize(1) + thread_idx().x % 2;
    }
}

fn loops_that_are_not_counted_keep_the_while() -> gpujit::Result<()> {
    let (n, blocks, threads) = (200usize, 2usize, 16usize);
    let g = blocks * threads;
    let x: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
    // `stride_then_read`: each element once; `last` = the first index past
    // the end in each thread's walk.
    let want_y: Vec<f32> = x.clone();
    let want_last: Vec<usize> = (0..g).map(|t| t + (n - t).div_ceil(g) * g).collect();
    let (fast, paths, coro) = common::on_both_paths(Expect::none(), || -> gpujit::Result<(Vec<f32>, Vec<usize>)> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<f32>(n)?;
        let mut dl = zeros::<usize>(g)?;
        stride_then_read![blocks, threads](&dx, &mut dy, &mut dl)?;
        Ok((dy.copy_to_host()?, dl.copy_to_host()?))
    });
    assert_eq!(fast?, (want_y.clone(), want_last.clone()));
    assert_eq!(coro?, (want_y.clone(), want_last));
    assert_eq!(paths.lockstep_blocks, 0, "stride_then_read ran in lockstep");
    // `stride_with_continue`: the zeros are skipped (adding them changes
    // nothing either), the result is `x`.
    let (fast, paths, coro) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<f32>(n)?;
        stride_with_continue![blocks, threads](&dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(fast?, want_y);
    assert_eq!(coro?, want_y);
    assert_eq!(paths.lockstep_blocks, 0, "stride_with_continue ran in lockstep");
    // `stride_per_thread`: odd threads step one further.
    let mut want = vec![0.0f32; n];
    for t in 0..g {
        let mut i = t;
        while i < n {
            want[i] = x[i] * 2.0;
            i += g + (t % threads) % 2;
        }
    }
    let (fast, paths, coro) = common::on_both_paths(Expect::none(), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dy = zeros::<f32>(n)?;
        stride_per_thread![blocks, threads](&dx, &mut dy)?;
        dy.copy_to_host()
    });
    assert_eq!(fast?, want);
    assert_eq!(coro?, want);
    assert_eq!(paths.lockstep_blocks, 0, "stride_per_thread ran in lockstep");
    Ok(())
}
