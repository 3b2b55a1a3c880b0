//! `lane_id()` and `warp_size()` on each CPU path: a barrier-free kernel,
//! one split at a barrier (the lane lives across it), a narrowed loop
//! (`thread_idx().x < warp_size()`), a grid-stride loop in lockstep; each
//! against the host and the reference path (coroutines). And the warp
//! intrinsics on the split path (its meetings), where every thread of the
//! block reaches them, else on coroutines.

use gpujit::{to_device, zeros};

use crate::common;
use common::Expect;

#[path = "../kernels/warps.rs"]
#[allow(dead_code)] // `all` is for the crates that compile every kernel
mod warp_kernels;
use warp_kernels::*;

#[path = "../kernels/collectives.rs"]
#[allow(dead_code)] // `all` is for the crates that compile every kernel
mod collective_kernels;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => lanes_agree_on_the_thread_loop_and_across_a_barrier,
        cpu => the_first_warp_runs_narrowed_and_the_strided_loop_in_lockstep,
        cpu => warp_intrinsics_meet_on_the_split_path,
        cpu => warp_intrinsics_under_a_warp_uniform_branch_stay_on_coroutines,
        cpu => the_collectives_run_on_the_split_path_with_the_same_bits,
    ]
}

fn lanes_agree_on_the_thread_loop_and_across_a_barrier() {
    let grid = (2, 3, 1);
    for block in SHAPES {
        let shape = (grid.2 * block.2, grid.1 * block.1, grid.0 * block.0);
        let want = want_lanes(grid, block);
        let (fast, _, reference) = common::on_both_paths(Expect::none().named("lanes_plain"), || {
            let mut out = zeros::<u32>(shape).unwrap();
            lanes_plain![grid, block](&mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, want, "lanes_plain, block {block:?}");
        assert_eq!(reference, want, "lanes_plain on the reference path, block {block:?}");
        let (fast, _, reference) = common::on_both_paths(Expect::split().named("lanes_split"), || {
            let mut out = zeros::<u32>(shape).unwrap();
            lanes_split![grid, block](&mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, want, "lanes_split, block {block:?}");
        assert_eq!(reference, want, "lanes_split on the reference path, block {block:?}");
    }
}

fn the_first_warp_runs_narrowed_and_the_strided_loop_in_lockstep() {
    for threads in [48, 100, 256] {
        let n = 3 * threads - 5;
        let (fast, _, reference) = common::on_both_paths(Expect::narrowed(3).named("first_warp"), || {
            let mut out = zeros::<u32>(n).unwrap();
            first_warp![3, threads](&mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, want_first_warp(n, threads), "{threads} threads");
        assert_eq!(
            reference,
            want_first_warp(n, threads),
            "{threads} threads, reference path"
        );
        let n = 7 * threads + 3;
        let (fast, _, reference) = common::on_both_paths(Expect::lockstep().named("lanes_strided"), || {
            let mut out = zeros::<u32>(n).unwrap();
            lanes_strided![2, threads](&mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, want_strided(n, 2, threads), "{threads} threads");
        assert_eq!(
            reference,
            want_strided(n, 2, threads),
            "{threads} threads, reference path"
        );
    }
}

fn warp_intrinsics_meet_on_the_split_path() {
    for (blocks, threads, rounds) in [(2, 64, 3), (3, 96, 0), (1, 1024, 5)] {
        let n = blocks * threads;
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 37) % 101 - 50).collect();
        let arg: Vec<u32> = (0..n).map(|i| ((i * 13) % 41) as u32).collect();
        let (d_x, d_arg) = (to_device(&x).unwrap(), to_device(&arg).unwrap());
        let what = format!("meetings, {blocks} blocks of {threads}");
        let (fast, _, reference) = common::on_both_paths(Expect::split().named(&what), || {
            let mut out = zeros::<i64>((9, n)).unwrap();
            meetings![blocks, threads](&d_x, &d_arg, rounds, &mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, reference, "{what}");
        // Two rows against the rules: lane `a % 32`'s value, and the ballot
        // of the lanes that did not return.
        for i in 0..n {
            let w0 = i / 32 * 32;
            assert_eq!(fast[i], x[w0 + arg[i] as usize % 32], "{what}: shfl_sync of thread {i}");
            if x[i] % 7 != 0 {
                let ballot = (0..32)
                    .filter(|l| x[w0 + l] % 7 != 0 && x[w0 + l] % 3 == 0)
                    .fold(0, |b, l| b | 1 << l);
                assert_eq!(fast[6 * n + i], ballot, "{what}: ballot_sync of thread {i}");
            }
            assert_eq!(fast[8 * n + i], 0xffff_ffff, "{what}: match_all_sync of thread {i}");
        }
    }

    // Shuffles after returns, in whole and partial warps: the typed
    // exchange's general rules (`Block::shuffle_exchange`).
    for (blocks, threads) in [(2, 64), (2, 48), (3, 100)] {
        let n = blocks * threads;
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 29) % 43 - 20).collect();
        let what = format!("shuffles_after_returns, {blocks} blocks of {threads}");
        let (fast, _, reference) = common::on_both_paths(Expect::split().named(&what), || {
            let mut out = zeros::<i64>((2, n)).unwrap();
            shuffles_after_returns![blocks, threads](&to_device(&x).unwrap(), &mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, reference, "{what}");
        for i in (0..n).filter(|&i| x[i] % 7 != 0) {
            let (b0, lin) = (i / threads * threads, i % threads);
            let w0 = b0 + lin / 32 * 32;
            let first = (w0..(w0 + 32).min(b0 + threads)).find(|&j| x[j] % 7 != 0).unwrap();
            assert_eq!(fast[i], x[first], "{what}: shfl_sync of thread {i}");
            assert_eq!(fast[n + i], x[i] + 1, "{what}: shfl_xor_sync of thread {i}");
        }
    }

    // The suite's kernels whose intrinsics every thread reaches.
    let x: Vec<f64> = (0..64).map(|i| [0.0, -0.0, 1.5][i % 3]).collect();
    let (fast, _, reference) = common::on_both_paths(Expect::split().named("match_f64"), || {
        let mut out = zeros::<u32>(64).unwrap();
        match_f64![1, 64](&to_device(&x).unwrap(), &mut out).unwrap();
        out.copy_to_host().unwrap()
    });
    assert_eq!(fast, reference, "match_f64");
    assert_eq!(fast[0], 0x4924_9249, "match_f64: the lanes holding +0.0");
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let (fast, _, reference) = common::on_both_paths(Expect::split().named("shfl_in_a_partial_warp"), || {
        let mut out = zeros::<f32>(64).unwrap();
        shfl_in_a_partial_warp![1, 64](&to_device(&x).unwrap(), &mut out).unwrap();
        out.copy_to_host().unwrap()
    });
    assert_eq!(fast, reference, "shfl_in_a_partial_warp");
    assert_eq!((fast[0], fast[32]), (496.0, 1520.0), "the warps' sums in their lane 0");
    for mode in [0, 1] {
        let (fast, _, reference) = common::on_both_paths(Expect::split().named("numba_useless_syncwarp"), || {
            let mut out = zeros::<i32>(10).unwrap();
            numba_useless_syncwarp![1, 10](&mut out, mode).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, reference, "numba_useless_syncwarp, mode {mode}");
        assert_eq!(
            fast,
            (0..10).collect::<Vec<i32>>(),
            "numba_useless_syncwarp, mode {mode}"
        );
    }
}

fn warp_intrinsics_under_a_warp_uniform_branch_stay_on_coroutines() {
    // `if warp == 0 { shuffles }`: legal (a whole warp takes the branch),
    // but not the same in every thread of the block.
    let x: Vec<f32> = (0..256).map(|i| (i % 9) as f32).collect();
    let mut out = zeros::<f32>(2).unwrap();
    block_sum_shfl![2, 128](&to_device(&x).unwrap(), &mut out).unwrap();
    assert_eq!(common::Paths::last().coroutine_blocks, 2, "block_sum_shfl");
    let want: Vec<f32> = x.chunks(128).map(|c| c.iter().sum()).collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
}

/// The warp- and block-wide reductions and scans: on the split path (their
/// shuffles and barriers in block-uniform flow), with the same bits as on
/// the coroutine path for float sums whose order matters, and against the
/// host model on integers.
fn the_collectives_run_on_the_split_path_with_the_same_bits() {
    use collective_kernels::*;
    for block in SHAPES {
        let threads = (block.0 * block.1 * block.2) as usize;
        let n = 2 * threads;
        let what = format!("collectives_f32, blocks of {block:?}");
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1013) as f32 / 97.0 - 5.0).collect();
        let d_x = to_device(&x).unwrap();
        let (fast, _, reference) = common::on_both_paths(Expect::split().named(&what), || {
            let mut out = zeros::<f32>((ROWS.len(), n)).unwrap();
            collectives_f32![2, block](&d_x, &mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&fast), bits(&reference), "{what}");
        let what = format!("collectives_i64, blocks of {block:?}");
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1013 - 500).collect();
        let d_x = to_device(&x).unwrap();
        let (fast, _, reference) = common::on_both_paths(Expect::split().named(&what), || {
            let mut out = zeros::<i64>((ROWS.len(), n)).unwrap();
            collectives_i64![2, block](&d_x, &mut out).unwrap();
            out.copy_to_host().unwrap()
        });
        assert_eq!(fast, reference, "{what}");
        assert_eq!(fast, want_collectives(&x, threads), "{what}: against the host model");
    }
}
