//! Kernels with `syncthreads()` on the CPU backend: which execution path
//! each takes (split into thread loops, or coroutines), that both paths give
//! the same answers, and that a divergent barrier is a `KernelFault` on both.

use gpujit::__private::{last_launch_coroutine_blocks, with_forced_coroutines};
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use crate::common;
use common::Expect;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => block_sum_is_split_and_agrees_with_coroutines,
        cpu => locals_live_across_barriers_in_loops,
        cpu => a_break_out_of_a_thread_loop_splits_only_where_uniform,
        cpu => a_barrier_in_a_thread_dependent_if_is_divergent,
        cpu => a_return_before_a_barrier_is_divergent,
        cpu => a_loop_with_thread_dependent_trip_count_is_divergent,
        cpu => a_never_taken_return_before_a_barrier_is_fine,
        cpu => every_thread_returning_before_a_barrier_is_fine,
        cpu => votes_count_and_or_per_block,
        cpu => a_voting_loop_with_continue_terminates_with_the_right_count,
    ]
}

/// The tree sum of each block's 256 elements of `x` (the classic shared
/// memory reduction): `s` halves in a `while` around a barrier.
#[gpu_kernel]
fn block_sum(x: &[f32], sums: &mut [f32]) {
    let cache = shared_array::<[f32; 256]>();
    let t = thread_idx().x;
    let i = grid(1);
    cache[t] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            cache[t] += cache[t + s];
        }
        syncthreads();
        s /= 2;
    }
    if t == 0 {
        sums[block_idx().x] = cache[0];
    }
}

/// The host's version of `block_sum`, in the same order of additions.
fn host_block_sums(x: &[f32], block: usize) -> Vec<f32> {
    x.chunks(block)
        .map(|c| {
            let mut v = c.to_vec();
            v.resize(block, 0.0);
            let mut s = block / 2;
            while s > 0 {
                for t in 0..s {
                    v[t] += v[t + s];
                }
                s /= 2;
            }
            v[0]
        })
        .collect()
}

fn block_sum_is_split_and_agrees_with_coroutines() -> gpujit::Result<()> {
    let n: usize = 256 * 40 + 17;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.25 - 60.0).collect();
    let blocks = n.div_ceil(256);
    let want = host_block_sums(&x, 256);
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<f32>> {
        let d = to_device(&x)?;
        let mut sums = zeros::<f32>(blocks)?;
        block_sum![blocks, 256](&d, &mut sums)?;
        sums.copy_to_host()
    });
    let (split, coro) = (split?, coro?);
    assert_eq!(
        split.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(
        split.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        coro.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    Ok(())
}

/// Each thread keeps a running value across barriers inside a `for` loop,
/// reads its neighbour's through shared memory, and returns early only
/// after the last barrier.
#[gpu_kernel]
fn rotate_rounds(out: &mut [i64], rounds: u32) {
    let ring = shared_array::<[i64; 64]>();
    let t = thread_idx().x;
    let n = block_dim().x;
    let mut v = (block_idx().x * 1000 + t) as i64;
    for r in 0..rounds {
        ring[t] = v;
        syncthreads();
        v = ring[(t + 1) % n] * 3 + r as i64;
        syncthreads();
    }
    if t % 2 == 1 {
        return;
    }
    out[grid(1)] = v;
}

fn locals_live_across_barriers_in_loops() -> gpujit::Result<()> {
    let (blocks, n, rounds) = (3usize, 64usize, 5u32);
    let mut want = vec![0i64; blocks * n];
    for b in 0..blocks {
        let mut v: Vec<i64> = (0..n).map(|t| (b * 1000 + t) as i64).collect();
        for r in 0..rounds {
            v = (0..n).map(|t| v[(t + 1) % n].wrapping_mul(3) + r as i64).collect();
        }
        for t in (0..n).step_by(2) {
            want[b * n + t] = v[t];
        }
    }
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<i64>> {
        let mut out = zeros::<i64>(blocks * n)?;
        rotate_rounds![blocks, n](&mut out, rounds)?;
        out.copy_to_host()
    });
    assert_eq!(split?, want);
    assert_eq!(coro?, want);
    Ok(())
}

/// A `break` inside a barrier-free `if` leaves a loop that holds a barrier.
/// Its condition is block-uniform (`k` is a block-level local), so every
/// thread leaves together and the kernel is split.
#[gpu_kernel]
fn count_rounds(out: &mut [u32], rounds: u32) {
    let mut k: u32 = 0;
    loop {
        syncthreads();
        if k == rounds {
            break;
        }
        k += 1;
    }
    out[grid(1)] = k;
}

/// As `count_rounds`, the condition read from memory (the same in every
/// thread, but the macro cannot know): a thread might leave alone, so the
/// kernel runs as coroutines.
#[gpu_kernel]
fn count_rounds_loaded(out: &mut [u32], rounds: u32) {
    let mut k: u32 = 0;
    loop {
        syncthreads();
        if k == rounds + out[grid(1)] {
            break;
        }
        k += 1;
    }
    out[grid(1)] = k;
}

fn a_break_out_of_a_thread_loop_splits_only_where_uniform() -> gpujit::Result<()> {
    let mut out = zeros::<u32>(64)?;
    count_rounds![2, 32](&mut out, 7)?;
    if !common::coroutines_forced() {
        assert_eq!(last_launch_coroutine_blocks(), 0);
    }
    assert_eq!(out.copy_to_host()?, vec![7; 64]);
    let mut out = zeros::<u32>(64)?;
    count_rounds_loaded![2, 32](&mut out, 7)?;
    assert_eq!(last_launch_coroutine_blocks(), 2);
    assert_eq!(out.copy_to_host()?, vec![7; 64]);
    Ok(())
}

/// Expects a divergent-barrier fault in block 0 from each path (split, then
/// coroutines), at the given thread and with a message that contains the
/// given words.
fn expect_divergent(r: (gpujit::Result<()>, gpujit::Result<()>), want: [(&str, [u32; 3]); 2]) {
    for (r, (says, thread)) in [r.0, r.1].into_iter().zip(want) {
        match r {
            Err(Error::KernelFault {
                message,
                block,
                thread: t,
                faults,
                ..
            }) => {
                assert!(
                    message.contains("divergent barrier") && message.contains(says),
                    "{message}"
                );
                assert_eq!(block, [0, 0, 0]);
                assert_eq!(t, thread, "{message}");
                assert_eq!(faults, 2, "one fault per block: {message}");
            }
            other => panic!("expected a divergent-barrier fault, got {other:?}"),
        }
    }
}

#[gpu_kernel]
fn barrier_in_if(out: &mut [u32]) {
    let t = thread_idx().x;
    if t < 16 {
        syncthreads();
    }
    out[grid(1)] = 1;
}

fn a_barrier_in_a_thread_dependent_if_is_divergent() {
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<()> {
        let mut out = zeros::<u32>(64)?;
        barrier_in_if![2, 32](&mut out)
    });
    expect_divergent(
        (split, coro),
        [("`if`", [16, 0, 0]), ("finished without reaching", [16, 0, 0])],
    );
}

#[gpu_kernel]
fn return_then_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    if t < 4 {
        return;
    }
    syncthreads();
    out[grid(1)] = 1;
}

fn a_return_before_a_barrier_is_divergent() {
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<()> {
        let mut out = zeros::<u32>(64)?;
        return_then_barrier![2, 32](&mut out)
    });
    expect_divergent((split, coro), [("returned", [0, 0, 0]), ("returned", [0, 0, 0])]);
}

#[gpu_kernel]
fn barrier_per_thread_index(out: &mut [u32]) {
    let t = thread_idx().x;
    for _ in 0..t % 3 {
        syncthreads();
    }
    out[grid(1)] = 1;
}

fn a_loop_with_thread_dependent_trip_count_is_divergent() {
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<()> {
        let mut out = zeros::<u32>(64)?;
        barrier_per_thread_index![2, 32](&mut out)
    });
    expect_divergent(
        (split, coro),
        [("`for` loop", [1, 0, 0]), ("finished without reaching", [0, 0, 0])],
    );
}

#[gpu_kernel]
fn guarded_barrier(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x;
    if t >= x.len() + 1000 {
        return;
    }
    let v = x[grid(1)];
    syncthreads();
    out[grid(1)] = v + 1;
}

fn a_never_taken_return_before_a_barrier_is_fine() -> gpujit::Result<()> {
    let x: Vec<u32> = (0..64).collect();
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<u32>> {
        let d = to_device(&x)?;
        let mut out = zeros::<u32>(64)?;
        guarded_barrier![2, 32](&d, &mut out)?;
        out.copy_to_host()
    });
    let want: Vec<u32> = (1..65).collect();
    assert_eq!(split?, want);
    assert_eq!(coro?, want);
    Ok(())
}

#[gpu_kernel]
fn all_return(out: &mut [u32]) {
    out[grid(1)] = 5;
    if out.len() > 0 {
        return;
    }
    syncthreads();
    out[grid(1)] = 6;
}

fn every_thread_returning_before_a_barrier_is_fine() -> gpujit::Result<()> {
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<u32>> {
        let mut out = zeros::<u32>(64)?;
        all_return![2, 32](&mut out)?;
        out.copy_to_host()
    });
    assert_eq!(split?, vec![5; 64]);
    assert_eq!(coro?, vec![5; 64]);
    Ok(())
}

/// Per block: how many values are positive, whether all are even, whether
/// any is above 50 (votes in `let`s and an `if`: the split path).
#[gpu_kernel]
fn block_votes(x: &[i32], out: &mut [u32]) {
    let v = x[grid(1)];
    let positive = syncthreads_count(v > 0);
    let even = syncthreads_and(v % 2 == 0);
    let mut any_big = 0;
    if syncthreads_or(v > 50) {
        any_big = 1;
    }
    if thread_idx().x == 0 {
        out[block_idx().x] = positive * 100 + (even as u32) * 10 + any_big;
    }
}

fn votes_count_and_or_per_block() -> gpujit::Result<()> {
    let x: Vec<i32> = (0..4 * 48)
        .map(|i| if i / 48 == 2 { 2 * (i % 7) } else { (i * 29 % 101) - 40 })
        .collect();
    let want: Vec<u32> = x
        .chunks(48)
        .map(|b| {
            let positive = b.iter().filter(|v| **v > 0).count() as u32;
            let even = b.iter().all(|v| v % 2 == 0) as u32;
            let big = b.iter().any(|v| *v > 50) as u32;
            positive * 100 + even * 10 + big
        })
        .collect();
    let (split, _, coro) = common::on_both_paths(Expect::split(), || -> gpujit::Result<Vec<u32>> {
        let d = to_device(&x)?;
        let mut out = zeros::<u32>(4)?;
        block_votes![4, 48](&d, &mut out)?;
        out.copy_to_host()
    });
    assert_eq!(split?, want);
    assert_eq!(coro?, want);
    Ok(())
}

/// The case: a `syncthreads_or` loop whose threads finish at
/// different rounds and `continue` until every thread is done; then a
/// count of the threads that did more than one step.
#[gpu_kernel]
fn vote_rounds(x: &[i32], out: &mut [u32]) {
    let i = grid(1);
    let mut rounds: u32 = 0;
    let mut k: i32 = 0;
    while syncthreads_or(k < x[i]) {
        rounds += 1;
        if k >= x[i] {
            continue;
        }
        k += 1;
    }
    let many = syncthreads_count(k > 1);
    out[i] = many * 1000 + rounds * 10 + k as u32;
}

fn a_voting_loop_with_continue_terminates_with_the_right_count() -> gpujit::Result<()> {
    let x: Vec<i32> = (0..3 * 40).map(|i| (i * 7 % 11) - 3).collect();
    let mut want = vec![0u32; x.len()];
    for (b, chunk) in x.chunks(40).enumerate() {
        let rounds = chunk.iter().map(|v| (*v).max(0) as u32).max().unwrap_or(0);
        let many = chunk.iter().filter(|v| **v > 1).count() as u32;
        for (t, v) in chunk.iter().enumerate() {
            want[b * 40 + t] = many * 1000 + rounds * 10 + (*v).max(0) as u32;
        }
    }
    let run = || -> gpujit::Result<Vec<u32>> {
        let d = to_device(&x)?;
        let mut out = zeros::<u32>(x.len())?;
        gpujit::with_cpu_time_limit(std::time::Duration::from_secs(20), || vote_rounds![3, 40](&d, &mut out))?;
        out.copy_to_host()
    };
    // The `continue` leaves a loop around a barrier from inside a thread's
    // `if`: the kernel runs as coroutines on both paths.
    assert_eq!(run()?, want);
    assert_eq!(last_launch_coroutine_blocks(), 3);
    assert_eq!(with_forced_coroutines(run)?, want);
    Ok(())
}
