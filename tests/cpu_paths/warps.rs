//! `lane_id()` and `warp_size()` on each CPU path: a barrier-free kernel,
//! one split at a barrier (the lane lives across it), a narrowed loop
//! (`thread_idx().x < warp_size()`), a grid-stride loop in lockstep; each
//! against the host and the reference path (coroutines).

use gpujit::zeros;

use crate::common;
use common::Expect;

#[path = "../kernels/warps.rs"]
#[allow(dead_code)] // `all` is for the crates that compile every kernel
mod warp_kernels;
use warp_kernels::*;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => lanes_agree_on_the_thread_loop_and_across_a_barrier,
        cpu => the_first_warp_runs_narrowed_and_the_strided_loop_in_lockstep,
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
