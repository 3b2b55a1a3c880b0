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
