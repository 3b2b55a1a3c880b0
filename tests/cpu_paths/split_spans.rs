//! Block spans in kernels split at their barriers (issue #7): each
//! barrier-free part, narrowed or not, runs unchecked in the blocks where
//! one range check per array covers its accesses at the own index or at
//! `threadIdx` plus a literal (a shared array's, also plus a block-uniform
//! local: `cache[tid + stride]`), and checked elsewhere. Each kernel runs on
//! the split path (the number of thread loops on spans is checked, so the
//! fast path cannot silently stop being taken) and on the reference path
//! (`with_forced_coroutines`), and both must equal a host reference, faults
//! included.
//!
//! `forbid(unsafe_code)`: the generated code must not need `unsafe`.

#![forbid(unsafe_code)]

use gpujit::__private::last_launch_span_loops;
use gpujit::prelude::*;
use gpujit::{to_device, zeros, Error};

use crate::common;
use crate::reduction;
use common::expected;
use common::Expect;

use reduction::{block_sum_f32, tree_sums, RED_THREADS};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => reduction_with_a_partial_last_block,
        cpu => reduction_at_every_block_size,
        cpu => an_out_of_range_global_load_in_a_spanned_part_faults,
        cpu => an_out_of_range_uniform_shared_offset_faults,
        cpu => a_non_injective_launch_keeps_owned_stores_checked,
        cpu => unclassified_accesses_stay_checked,
        cpu => a_narrowed_part_from_thread_one_with_a_negative_offset,
    ]
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn reduction_with_a_partial_last_block() -> gpujit::Result<()> {
    // 37 full blocks and one of 101 elements: its first part (`x[i]` past
    // the end for most threads) runs checked, its other 9 parts on spans.
    let n: usize = RED_THREADS * 37 + 101;
    let x: Vec<f32> = (0..n).map(|i| ((i * 29) % 101) as f32 * 0.37 - 12.5).collect();
    let blocks = n.div_ceil(RED_THREADS);
    let want = tree_sums(&x, RED_THREADS, RED_THREADS / 2);
    let (fast, _, reference) =
        common::on_both_paths(Expect::span_loops(37 * 10 + 9), || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(&x)?;
            let mut dp = zeros::<f32>(blocks)?;
            block_sum_f32![blocks, RED_THREADS](&dx, &mut dp)?;
            dp.copy_to_host()
        });
    assert_eq!(bits(&fast?), bits(&want));
    assert_eq!(bits(&reference?), bits(&want));
    Ok(())
}

/// A tree sum for any block size up to 1024 (`&& rest` keeps the pairs in
/// the block; the first strides exceed small blocks).
#[gpu_kernel]
fn sum_any_block(x: &[f64], partial: &mut [f64]) {
    let cache = shared_array::<[f64; 1024]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    for level in 0..10 {
        let stride = 512 >> level;
        if tid < stride && tid + stride < block_dim().x {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

fn reduction_at_every_block_size() -> gpujit::Result<()> {
    let n: usize = 3000;
    let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 113) as f64 * 0.1 - 5.05).collect();
    for block in [1, 2, 37, 256, 1000, 1024] {
        let blocks = n.div_ceil(block);
        let full = n / block;
        // Per block: the first part (full blocks only), each halving step
        // whose stride leaves threads below it (all ten when the stride
        // reaches 0..block; `tid + stride` is within 1024 for those), and
        // the last part.
        let halving = (0..10).filter(|l| (512usize >> l) > 0).count();
        let want_loops = full + blocks * (halving + 1);
        let want = tree_sums(&x, block, 512);
        let (fast, _, reference) =
            common::on_both_paths(Expect::span_loops(want_loops), || -> gpujit::Result<Vec<f64>> {
                let dx = to_device(&x)?;
                let mut dp = zeros::<f64>(blocks)?;
                sum_any_block![blocks, block](&dx, &mut dp)?;
                dp.copy_to_host()
            });
        assert_eq!(fast?, want, "block of {block}");
        assert_eq!(reference?, want, "block of {block}");
    }
    Ok(())
}

/// `x[i + 1]` with no guard: the last thread of the grid reads one past the
/// end when the grid covers `x` exactly.
#[gpu_kernel]
fn shifted_sum(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; 64]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = x[i + 1];
    syncthreads();
    if tid == 0 {
        partial[block_idx().x] = cache[0] + cache[63];
    }
}

fn expect_fault<T: std::fmt::Debug>(r: gpujit::Result<T>, block: [u32; 3], thread: [u32; 3]) {
    match r {
        Err(Error::KernelFault {
            block: b,
            thread: t,
            message,
            ..
        }) => {
            assert_eq!((b, t), (block, thread), "{message}");
            assert!(message.contains("out of bounds"), "{message}");
        }
        other => panic!("expected a kernel fault, got {other:?}"),
    }
}

fn an_out_of_range_global_load_in_a_spanned_part_faults() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..64 * 5).map(|i| i as f32).collect();
    let run = || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dp = zeros::<f32>(5)?;
        shifted_sum![5, 64](&dx, &mut dp)?;
        dp.copy_to_host()
    };
    // 4 blocks run their first part on spans, the last one checked; every
    // block's second part runs on spans (it reads `cache[0]`, `cache[63]`).
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(4 + 5), run);
    expect_fault(fast, [4, 0, 0], [63, 0, 0]);
    expect_fault(reference, [4, 0, 0], [63, 0, 0]);
    // One element more: no fault, every part on spans.
    let x: Vec<f32> = (0..64 * 5 + 1).map(|i| i as f32).collect();
    let dx = to_device(&x)?;
    let mut dp = zeros::<f32>(5)?;
    shifted_sum![5, 64](&dx, &mut dp)?;
    assert_eq!(last_launch_span_loops(), expected(10));
    let want: Vec<f32> = (0..5).map(|b| x[64 * b + 1] + x[64 * b + 64]).collect();
    assert_eq!(dp.copy_to_host()?, want);
    Ok(())
}

/// A halving step with the stride from a parameter: `cache[tid + s]` is past
/// the 64-element array for `tid >= 64 - s`.
#[gpu_kernel]
fn fold_by(s: usize, x: &[f32], out: &mut [f32]) {
    let cache = shared_array::<[f32; 64]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = x[i];
    syncthreads();
    if tid < s {
        cache[tid] += cache[tid + s];
    }
    syncthreads();
    out[i] = cache[tid];
}

fn an_out_of_range_uniform_shared_offset_faults() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..64 * 3).map(|i| (i % 17) as f32 - 3.0).collect();
    let run = |s: usize| {
        let x = &x;
        move || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(x)?;
            let mut dout = zeros::<f32>(x.len())?;
            fold_by![3, 64](s, &dx, &mut dout)?;
            dout.copy_to_host()
        }
    };
    // In range: all three parts of all three blocks on spans (with `s = 0`
    // no thread runs the halving part: it has no span, and runs checked).
    for (s, loops) in [(0, 3 * 2), (1, 3 * 3), (17, 3 * 3), (32, 3 * 3)] {
        let want: Vec<f32> = (0..x.len())
            .map(|i| {
                let t = i % 64;
                if t < s {
                    x[i] + x[i + s]
                } else {
                    x[i]
                }
            })
            .collect();
        let (fast, _, reference) = common::on_both_paths(Expect::span_loops(loops), run(s));
        assert_eq!(bits(&fast?), bits(&want), "s = {s}");
        assert_eq!(bits(&reference?), bits(&want), "s = {s}");
    }
    // `s = 40`: thread 24 reads `cache[64]`. The halving part runs checked.
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(3 * 2), run(40));
    expect_fault(fast, [0, 0, 0], [24, 0, 0]);
    expect_fault(reference, [0, 0, 0], [24, 0, 0]);
    // A stride past `isize::MAX` gives no span either: thread 0 faults.
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(3 * 2), run(usize::MAX / 2 + 10));
    expect_fault(fast, [0, 0, 0], [0, 0, 0]);
    expect_fault(reference, [0, 0, 0], [0, 0, 0]);
    Ok(())
}

/// `out` is written at the own index only: plain (and spanned) when the
/// launch makes `grid(1)` injective; with two rows of threads per block,
/// both rows write each element, through checked atomic stores.
#[gpu_kernel]
fn doubled_through_shared(x: &[f32], out: &mut [f32]) {
    let cache = shared_array::<[f32; 128]>();
    let tid = thread_idx().x;
    let i = grid(1);
    if i < x.len() {
        cache[tid] = x[i] * (thread_idx().y + 1) as f32;
    }
    syncthreads();
    if i < out.len() {
        out[i] = cache[tid] * 2.0;
    }
}

fn a_non_injective_launch_keeps_owned_stores_checked() -> gpujit::Result<()> {
    let n = 128 * 4;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let run = |block: (usize, usize)| {
        let x = &x;
        move || -> gpujit::Result<Vec<f32>> {
            let dx = to_device(x)?;
            let mut dout = zeros::<f32>(n)?;
            doubled_through_shared![4, block](&dx, &mut dout)?;
            dout.copy_to_host()
        }
    };
    // Injective: both parts of every block on spans.
    let want: Vec<f32> = x.iter().map(|v| v * 2.0).collect();
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(4 * 2), run((128, 1)));
    assert_eq!(fast?, want);
    assert_eq!(reference?, want);
    // Two rows: row 1 runs after row 0 and overwrites `cache` with `2 * x`,
    // then both rows store `4 * x`. The first part still runs on spans (read-only
    // `x`, shared `cache`), the second, with `out` not own-index, checked.
    let want: Vec<f32> = x.iter().map(|v| v * 4.0).collect();
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(4), run((128, 2)));
    assert_eq!(fast?, want);
    assert_eq!(reference?, want);
    Ok(())
}

/// Accesses no span covers, next to ones it does: `x[2 * i]`, a reversed
/// shared index and a multiplied one stay checked. A part runs on spans only
/// when every access in it is on one, so the first two parts run checked and
/// the last two on spans.
#[gpu_kernel]
fn mixed_indices(x: &[f32], out: &mut [f32]) {
    let cache = shared_array::<[f32; 64]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if 2 * i < x.len() { x[2 * i] } else { x[i] };
    syncthreads();
    let r = cache[63 - tid] + cache[(tid * 5) % 64] + cache[tid];
    syncthreads();
    cache[tid] = r;
    syncthreads();
    out[i] = cache[tid];
}

fn unclassified_accesses_stay_checked() -> gpujit::Result<()> {
    let n = 64 * 6;
    let x: Vec<f32> = (0..n).map(|i| ((i * 13) % 31) as f32 - 7.0).collect();
    let first = |i: usize| if 2 * i < n { x[2 * i] } else { x[i] };
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (b, t) = (i / 64, i % 64);
            first(b * 64 + 63 - t) + first(b * 64 + (t * 5) % 64) + first(i)
        })
        .collect();
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(6 * 2), || -> gpujit::Result<Vec<f32>> {
        let dx = to_device(&x)?;
        let mut dout = zeros::<f32>(n)?;
        mixed_indices![6, 64](&dx, &mut dout)?;
        dout.copy_to_host()
    });
    assert_eq!(bits(&fast?), bits(&want));
    assert_eq!(bits(&reference?), bits(&want));
    Ok(())
}

/// A narrowed part from thread 1 (`tid > 0`), reading `cache[tid - 1]`.
#[gpu_kernel]
fn shift_right(x: &[i32], out: &mut [i32]) {
    let cache = shared_array::<[i32; 32]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = x[i];
    syncthreads();
    if tid > 0 {
        out[i] = cache[tid - 1];
    }
}

fn a_narrowed_part_from_thread_one_with_a_negative_offset() -> gpujit::Result<()> {
    let n = 32 * 5;
    let x: Vec<i32> = (0..n as i32).map(|i| i * 3 - 100).collect();
    let want: Vec<i32> = (0..n).map(|i| if i % 32 == 0 { 0 } else { x[i - 1] }).collect();
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(5 * 2), || -> gpujit::Result<Vec<i32>> {
        let dx = to_device(&x)?;
        let mut dout = zeros::<i32>(n)?;
        shift_right![5, 32](&dx, &mut dout)?;
        dout.copy_to_host()
    });
    assert_eq!(fast?, want);
    assert_eq!(reference?, want);
    Ok(())
}
