//! Soundness of the CPU backend under races: kernels whose blocks race on a
//! global element (as CUDA allows) must behave as relaxed atomics, never as a
//! Rust data race the optimiser may exploit. (CPU-backend tests: on CUDA a
//! plain load in a polling loop may be hoisted too, as with nvcc; the CPU
//! backend promises more.)

use gpujit::prelude::*;
use gpujit::zeros;

use crate::common;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => a_polled_flag_sees_another_blocks_store,
        cpu => a_polled_f64_flag_sees_another_blocks_store,
        cpu => a_polled_u8_flag_in_an_array_view_sees_another_blocks_store,
    ]
}

/// More iterations than a poll that sees the other block's store needs.
const LIMIT: u64 = 1_000_000_000;

/// Block 1 raises `flag[0]`; block 0 polls it, at most `LIMIT` times, and
/// records how many polls it made.
#[gpu_kernel]
fn flag_poll(flag: &mut [u32], polls: &mut [u64]) {
    if block_idx().x == 1 {
        flag[0] = 1;
    } else {
        let mut n: u64 = 0;
        while flag[0] == 0 && n < 1_000_000_000 {
            n += 1;
        }
        polls[0] = n;
    }
}

/// As `flag_poll`, with an `f64` flag (another element size, a float
/// compared by value).
#[gpu_kernel]
fn flag_poll_f64(flag: &mut [f64], polls: &mut [u64]) {
    if block_idx().x == 1 {
        flag[1] = 2.5;
    } else {
        let mut n: u64 = 0;
        while flag[1] != 2.5 && n < 1_000_000_000 {
            n += 1;
        }
        polls[0] = n;
    }
}

/// As `flag_poll` with a `u8` flag in an `ArrayViewMut1`.
#[gpu_kernel]
fn flag_poll_u8(flag: ArrayViewMut1<u8>, polls: &mut [u64]) {
    if block_idx().x == 1 {
        flag[2] = 7;
    } else {
        let mut n: u64 = 0;
        while flag[2] == 0 && n < 1_000_000_000 {
            n += 1;
        }
        polls[0] = n;
    }
}

/// Runs `f` in a pool of two workers, so that the two blocks of a launch run
/// at the same time (the CPU backend uses the current rayon pool).
fn with_two_workers<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a rayon pool of 2 threads")
        .install(f)
}

/// Block 0 must see block 1's store while it polls: with plain (non-atomic)
/// accesses the optimiser hoists the load out of the loop and the poller
/// spins `LIMIT` times.
fn a_polled_flag_sees_another_blocks_store() {
    let polls = with_two_workers(|| {
        let mut flag = zeros::<u32>(1).unwrap();
        let mut polls = zeros::<u64>(1).unwrap();
        flag_poll![2, 1](&mut flag, &mut polls).unwrap();
        assert_eq!(flag.copy_to_host().unwrap(), [1]);
        polls.copy_to_host().unwrap()[0]
    });
    assert!(polls < LIMIT, "block 0 never saw block 1's store ({polls} polls)");
}

fn a_polled_f64_flag_sees_another_blocks_store() {
    let polls = with_two_workers(|| {
        let mut flag = zeros::<f64>(2).unwrap();
        let mut polls = zeros::<u64>(1).unwrap();
        flag_poll_f64![2, 1](&mut flag, &mut polls).unwrap();
        assert_eq!(flag.copy_to_host().unwrap(), [0.0, 2.5]);
        polls.copy_to_host().unwrap()[0]
    });
    assert!(polls < LIMIT, "block 0 never saw block 1's store ({polls} polls)");
}

fn a_polled_u8_flag_in_an_array_view_sees_another_blocks_store() {
    let polls = with_two_workers(|| {
        let mut flag = zeros::<u8>(3).unwrap();
        let mut polls = zeros::<u64>(1).unwrap();
        flag_poll_u8![2, 1](&mut flag, &mut polls).unwrap();
        assert_eq!(flag.copy_to_host().unwrap(), [0, 0, 7]);
        polls.copy_to_host().unwrap()[0]
    });
    assert!(polls < LIMIT, "block 0 never saw block 1's store ({polls} polls)");
}
