//! The CPU backend's checked mode (`gpujit::with_checks`, `GPUJIT_CHECK`):
//! racecheck and initcheck find the classic bugs (a tiled matmul missing a
//! barrier, a reduction reading before the write, a histogram without
//! atomics, a shared flag, a shared read before any write), each fault
//! naming the array, the element, both threads and both source lines; and
//! they stay silent on correct kernels, whose results they do not change.

use gpujit::prelude::*;
use gpujit::{to_device, with_checks, zeros, Checks};

use crate::common;
use crate::histogram::{histogram, histogram_host, BINS};
use crate::matmul::{matmul_naive, matmul_tiled, TILE};
use crate::reduction::{block_sum_f32, tree_sums, RED_THREADS};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => a_tiled_matmul_without_its_second_barrier_races,
        cpu => a_reduction_reading_before_the_write_races_and_reads_uninitialised_memory,
        cpu => a_global_histogram_without_atomics_races_in_a_block_and_across_blocks,
        cpu => a_shared_histogram_without_atomics_races,
        cpu => a_shared_flag_without_a_barrier_races,
        cpu => a_shared_read_before_any_write_is_uninitialised,
        cpu => correct_kernels_are_silent_and_give_the_same_results,
        cpu => the_checks_are_off_by_default_and_with_none,
        cpu => gpujit_check_turns_them_on_and_a_bad_word_is_an_error,
    ]
}

/// The line of this file that contains `marker` (1-based).
fn line_of(marker: &str) -> usize {
    let src = include_str!("checked.rs");
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_end().ends_with(marker))
        .map(|(n, _)| n + 1)
        .collect();
    assert_eq!(hits.len(), 1, "marker {marker} must be on one line");
    hits[0]
}

/// `file:line:` of `marker`'s line, as the checks print it.
fn at(marker: &str) -> String {
    format!("checked.rs:{}:", line_of(marker))
}

/// Whether `GPUJIT_CPU_EXEC=coroutines` forces every launch onto the
/// coroutine path (CI's coroutine pass).
fn coroutines_forced() -> bool {
    std::env::var("GPUJIT_CPU_EXEC").is_ok_and(|v| v.trim() == "coroutines")
}

/// The fault message of `r`, which must be a `KernelFault` of `kernel`.
fn fault_of(r: gpujit::Result<()>, kernel: &str) -> String {
    match r {
        Err(Error::KernelFault { kernel: k, message, .. }) => {
            assert_eq!(k, kernel, "{message}");
            message
        }
        other => panic!("expected a KernelFault of `{kernel}`, got {other:?}"),
    }
}

/// `text` contains every one of `parts`.
fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "missing {p:?} in:\n{text}");
    }
}

/// `matmul_tiled` without the barrier after the inner product: the next
/// tile's stores race with the other threads' reads of this one.
#[gpu_kernel]
fn matmul_no_second_barrier(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; TILE]; TILE]>();
    let sb = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + TILE - 1) / TILE {
        let ka = t * TILE + tx;
        let kb = t * TILE + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 }; // MM_STORE
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..TILE {
            acc += sa[ty][j] * sb[j][tx]; // MM_READ
        }
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

fn a_tiled_matmul_without_its_second_barrier_races() {
    let (n, k, m) = (20, 40, 18);
    let a = to_device(&ndarray::Array2::<f32>::from_elem((n, k), 1.0)).unwrap();
    let b = to_device(&ndarray::Array2::<f32>::from_elem((k, m), 2.0)).unwrap();
    let mut c = zeros::<f32>((n, m)).unwrap();
    let (grid, block) = ((m.div_ceil(TILE), n.div_ceil(TILE)), (TILE, TILE));
    // Unchecked, the CPU backend's order of threads hides the bug.
    with_checks(Checks::NONE, || matmul_no_second_barrier![grid, block](&a, &b, &mut c)).unwrap();
    // On the split thread loops (the default) and on coroutines: thread 0
    // stores the second tile's element [0, 0] with no barrier after the other
    // threads' reads of the first tile's (split: its store is the second
    // access, racing with the last reader; coroutines: thread 0 runs ahead
    // to the next barrier, and thread 1's read is the second).
    for forced in [false, true] {
        let launch = || matmul_no_second_barrier![grid, block](&a, &b, &mut c);
        let r = if forced {
            with_checks(Checks::RACE, || gpujit::__private::with_forced_coroutines(launch))
        } else {
            with_checks(Checks::RACE, launch)
        };
        let m = fault_of(r, "matmul_no_second_barrier");
        assert_has(
            &m,
            &[
                "racecheck: shared array `sa` element [0, 0]: ",
                "write by block (0, 0, 0) thread (0, 0, 0) at ",
                &at("// MM_STORE"),
                "read by block (0, 0, 0) thread (",
                &at("// MM_READ"),
                "with no syncthreads() between them",
            ],
        );
        let (store, read) = (m.find(&at("// MM_STORE")), m.find(&at("// MM_READ")));
        assert!(store.is_some() && read.is_some(), "{m}");
        // The first access named is the second one made.
        let expect_store_first = !(forced || coroutines_forced());
        assert_eq!(store < read, expect_store_first, "forced coroutines: {forced}: {m}");
        assert!(m.contains("tests/cpu_paths/checked.rs:"), "{m}");
    }
}

/// `block_sum_f32` without the barrier after the first store: thread 0 adds
/// `cache[128]` before thread 128 wrote it.
#[gpu_kernel]
fn sum_no_first_barrier(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; RED_THREADS]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 }; // SUM_STORE
    for level in 1..9 {
        let stride = RED_THREADS >> level;
        if tid < stride {
            cache[tid] += cache[tid + stride]; // SUM_ADD
        }
        syncthreads();
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

fn a_reduction_reading_before_the_write_races_and_reads_uninitialised_memory() {
    let x = to_device(&vec![1.0f32; 3 * RED_THREADS]).unwrap();
    let mut partial = zeros::<f32>(3).unwrap();
    // Split (the default): every thread stores, then thread 0's read is the
    // second access; coroutines: thread 0 reads first, thread 128's store
    // is the second. Both name the same pair.
    for forced in [false, true] {
        let mut run = |checks| {
            let launch = || sum_no_first_barrier![3, RED_THREADS](&x, &mut partial);
            if forced {
                with_checks(checks, || gpujit::__private::with_forced_coroutines(launch))
            } else {
                with_checks(checks, launch)
            }
        };
        let m = fault_of(run(Checks::RACE), "sum_no_first_barrier");
        let (write, read) = (
            "write by block (0, 0, 0) thread (128, 0, 0) at ",
            "read by block (0, 0, 0) thread (0, 0, 0) at ",
        );
        assert_has(
            &m,
            &[
                "racecheck: shared array `cache` element [128]: ",
                write,
                &at("// SUM_STORE"),
                read,
                &at("// SUM_ADD"),
            ],
        );
        let coroutines = forced || coroutines_forced();
        assert_eq!(
            m.find(write) < m.find(read),
            coroutines,
            "coroutines: {coroutines}: {m}"
        );
        // Thread 128's store is not ordered before thread 0's read, whichever
        // ran first: initcheck alone finds the read, and with racecheck
        // too, thread 0's read is the first fault.
        for checks in [Checks::INIT, Checks::RACE | Checks::INIT] {
            let m = fault_of(run(checks), "sum_no_first_barrier");
            assert_has(
                &m,
                &[
                    "initcheck: shared array `cache` element [128]: read by block (0, 0, 0) thread (0, 0, 0) at ",
                    &at("// SUM_ADD"),
                    "which no thread of the block wrote before",
                ],
            );
        }
    }
}

/// A 4-bin histogram with a plain `+=` on global memory.
#[gpu_kernel]
fn histogram_plain(values: &[u32], hist: &mut [u32]) {
    let mut i = grid(1);
    while i < values.len() {
        hist[values[i] as usize % 4] += 1; // HIST_GLOBAL
        i += gridsize(1);
    }
}

fn a_global_histogram_without_atomics_races_in_a_block_and_across_blocks() {
    let values = to_device(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut hist = zeros::<u32>(4).unwrap();
    // One block of 8 threads: thread 0 counts bin 0, then thread 4 reads it.
    let r = with_checks(Checks::RACE, || histogram_plain![1, 8](&values, &mut hist));
    let m = fault_of(r, "histogram_plain");
    assert_has(
        &m,
        &[
            "racecheck: global array `hist` element [0]: read by block (0, 0, 0) thread (4, 0, 0) at ",
            "races with the write by block (0, 0, 0) thread (0, 0, 0) at ",
            "with no syncthreads() between them",
        ],
    );
    assert_eq!(m.matches(&at("// HIST_GLOBAL")).count(), 2, "{m}");
    // One thread per block: blocks race.
    let r = with_checks(Checks::RACE, || histogram_plain![8, 1](&values, &mut hist));
    let m = fault_of(r, "histogram_plain");
    assert_has(
        &m,
        &[
            "racecheck: global array `hist` element [0]: read by block (4, 0, 0) thread (0, 0, 0) at ",
            "races with the write by block (0, 0, 0) thread (0, 0, 0) at ",
            "threads of different blocks",
        ],
    );
}

/// `histogram_256` of the examples with `bins[v] += 1` for its shared atomic.
#[gpu_kernel]
fn shared_histogram_plain(pixels: &[u8], hist: &mut [u32]) {
    let bins = shared_array::<[u32; 256]>();
    let t = thread_idx().x;
    bins[t] = 0;
    syncthreads();
    let mut i = grid(1);
    while i < pixels.len() {
        bins[pixels[i] as usize] += 1; // SHIST_ADD
        i += gridsize(1);
    }
    syncthreads();
    atomic_add(&mut hist[t], bins[t]);
}

fn a_shared_histogram_without_atomics_races() {
    let pixels = to_device(&vec![7u8; 1024]).unwrap();
    let mut hist = zeros::<u32>(256).unwrap();
    let r = with_checks(Checks::ALL, || shared_histogram_plain![2, 256](&pixels, &mut hist));
    let m = fault_of(r, "shared_histogram_plain");
    assert_has(
        &m,
        &[
            "racecheck: shared array `bins` element [7]: read by block (0, 0, 0) thread (1, 0, 0) at ",
            "races with the write by block (0, 0, 0) thread (0, 0, 0) at ",
        ],
    );
    assert_eq!(m.matches(&at("// SHIST_ADD")).count(), 2, "{m}");
}

/// Thread 0 sets a shared flag that the others read with no barrier between.
#[gpu_kernel]
fn shared_flag(out: &mut [u32]) {
    let flag = shared_array::<[u32; 1]>();
    let t = thread_idx().x;
    if t == 0 {
        flag[0] = 1; // FLAG_SET
    }
    out[t] = flag[0]; // FLAG_READ
}

fn a_shared_flag_without_a_barrier_races() {
    let mut out = zeros::<u32>(32).unwrap();
    let r = with_checks(Checks::RACE, || shared_flag![1, 32](&mut out));
    let m = fault_of(r, "shared_flag");
    assert_has(
        &m,
        &[
            "racecheck: shared array `flag` element [0]: read by block (0, 0, 0) thread (1, 0, 0) at ",
            &at("// FLAG_READ"),
            "races with the write by block (0, 0, 0) thread (0, 0, 0) at ",
            &at("// FLAG_SET"),
        ],
    );
}

/// Reads a shared array nothing wrote (the CPU backend zeroes it; a GPU does not).
#[gpu_kernel]
fn shared_unwritten(out: &mut [f32]) {
    let s = shared_array::<[[f32; 8]; 4]>();
    let (x, y) = (thread_idx().x, thread_idx().y);
    if x == 0 {
        s[y][x] = 1.0;
    }
    syncthreads();
    out[y * 8 + x] = s[y][x]; // UNINIT_READ
}

fn a_shared_read_before_any_write_is_uninitialised() {
    let mut out = zeros::<f32>(32).unwrap();
    // Unchecked: zeroes, no fault.
    with_checks(Checks::NONE, || shared_unwritten![1, (8, 4)](&mut out)).unwrap();
    // Racecheck alone finds nothing: the reads come after the barrier.
    with_checks(Checks::RACE, || shared_unwritten![1, (8, 4)](&mut out)).unwrap();
    let r = with_checks(Checks::INIT, || shared_unwritten![2, (8, 4)](&mut out));
    let (m, faults) = match r {
        Err(Error::KernelFault { message, faults, .. }) => (message, faults),
        other => panic!("expected a KernelFault, got {other:?}"),
    };
    assert_has(
        &m,
        &[
            "initcheck: shared array `s` element [0, 1]: read by block (0, 0, 0) thread (1, 0, 0) at ",
            &at("// UNINIT_READ"),
        ],
    );
    // Each block's 28 unwritten elements, read once each.
    assert_eq!(faults, 2 * 28);
}

/// A barrier-free kernel with a grid-stride loop, correct.
#[gpu_kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let mut i = grid(1);
    while i < y.len() {
        y[i] = a * x[i] + y[i];
        i += gridsize(1);
    }
}

fn correct_kernels_are_silent_and_give_the_same_results() {
    // The examples' tiled matmul, in odd shapes.
    let (n, k, m) = (37, 45, 21);
    let ha = ndarray::Array2::from_shape_fn((n, k), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let hb = ndarray::Array2::from_shape_fn((k, m), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.5);
    let (a, b) = (to_device(&ha).unwrap(), to_device(&hb).unwrap());
    let mut c = zeros::<f32>((n, m)).unwrap();
    let (grid, block) = ((m.div_ceil(TILE), n.div_ceil(TILE)), (TILE, TILE));
    matmul_tiled![grid, block](&a, &b, &mut c).unwrap();
    let fast = c.copy_to_host().unwrap();
    let mut c2 = zeros::<f32>((n, m)).unwrap();
    with_checks(Checks::ALL, || matmul_tiled![grid, block](&a, &b, &mut c2)).unwrap();
    assert_eq!(c2.copy_to_host().unwrap(), fast);
    // Checked, a kernel with barriers that splits runs as thread loops, not
    // coroutines (unless they are forced).
    let coroutine_blocks = gpujit::__private::last_launch_coroutine_blocks();
    if coroutines_forced() {
        assert_eq!(coroutine_blocks, grid.0 * grid.1);
    } else {
        assert_eq!(coroutine_blocks, 0);
    }
    let mut c3 = zeros::<f32>((n, m)).unwrap();
    with_checks(Checks::ALL, || {
        gpujit::__private::with_forced_coroutines(|| matmul_tiled![grid, block](&a, &b, &mut c3))
    })
    .unwrap();
    assert_eq!(gpujit::__private::last_launch_coroutine_blocks(), grid.0 * grid.1);
    assert_eq!(c3.copy_to_host().unwrap(), fast);
    with_checks(Checks::ALL, || matmul_naive![grid, block](&a, &b, &mut c2)).unwrap();
    assert_eq!(c2.copy_to_host().unwrap(), fast);

    // The reduction of tests/common, past the end of its input.
    let hx: Vec<f32> = (0..1000).map(|i| (i % 17) as f32).collect();
    let x = to_device(&hx).unwrap();
    let blocks = hx.len().div_ceil(RED_THREADS);
    let mut partial = zeros::<f32>(blocks).unwrap();
    with_checks(Checks::ALL, || block_sum_f32![blocks, RED_THREADS](&x, &mut partial)).unwrap();
    assert_eq!(
        partial.copy_to_host().unwrap(),
        tree_sums(&hx, RED_THREADS, RED_THREADS / 2)
    );

    // The examples' histogram: shared and global atomics.
    let hp: Vec<u8> = (0..20_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let pixels = to_device(&hp).unwrap();
    let mut hist = zeros::<u32>(BINS).unwrap();
    with_checks(Checks::ALL, || histogram(&pixels, &mut hist)).unwrap();
    assert_eq!(hist.copy_to_host().unwrap(), histogram_host(&hp));

    // A barrier-free grid-stride loop.
    let hx: Vec<f32> = (0..777).map(|i| i as f32).collect();
    let x = to_device(&hx).unwrap();
    let mut y = to_device(&vec![1.0f32; 777]).unwrap();
    with_checks(Checks::ALL, || saxpy![3, 64](2.0, &x, &mut y)).unwrap();
    let want: Vec<f32> = hx.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(y.copy_to_host().unwrap(), want);
}

fn the_checks_are_off_by_default_and_with_none() {
    let mut out = zeros::<u32>(32).unwrap();
    if std::env::var_os("GPUJIT_CHECK").is_none() {
        shared_flag![1, 32](&mut out).unwrap();
    }
    with_checks(Checks::NONE, || shared_flag![1, 32](&mut out)).unwrap();
    // Out-of-bounds faults are reported as without checks.
    let x = to_device(&vec![1.0f32; 40]).unwrap();
    let mut y = zeros::<f32>(64).unwrap();
    let r = with_checks(Checks::ALL, || saxpy![1, 64](2.0, &x, &mut y));
    let m = fault_of(r, "saxpy");
    assert!(m.contains("index [40] is out of bounds for global array `x`"), "{m}");
}

const ENV_TEST: &str = "checked::gpujit_check_turns_them_on_and_a_bad_word_is_an_error";

fn gpujit_check_turns_them_on_and_a_bad_word_is_an_error() {
    match std::env::var("GPUJIT_CHECK").as_deref() {
        // In the child processes below.
        Ok("race,bogus") => {
            let mut out = zeros::<u32>(32).unwrap();
            match shared_flag![1, 32](&mut out) {
                Err(Error::InvalidLaunchConfig(m)) => {
                    assert!(m.contains("GPUJIT_CHECK=`race,bogus`") && m.contains("`bogus`"), "{m}");
                }
                other => panic!("expected Err(InvalidLaunchConfig), got {other:?}"),
            }
        }
        Ok(v) if v.contains("race") => {
            let mut out = zeros::<u32>(32).unwrap();
            let m = fault_of(shared_flag![1, 32](&mut out), "shared_flag");
            // Thread 1's read of the flag races with thread 0's store, which
            // no barrier orders before it: with initcheck on, the read is
            // also uninitialised, which is reported first.
            let check = if v.contains("init") { "initcheck:" } else { "racecheck:" };
            assert!(m.starts_with(check), "{m}");
        }
        Ok(_) => {}
        Err(_) => {
            for value in ["race,bogus", " init , race ", "race"] {
                let child = std::process::Command::new(std::env::current_exe().unwrap())
                    .args(["--exact", ENV_TEST])
                    .env("GPUJIT_CHECK", value)
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&child.stdout);
                assert!(
                    child.status.success(),
                    "{text}{}",
                    String::from_utf8_lossy(&child.stderr)
                );
                assert!(text.contains("1 passed"), "{text}");
            }
        }
    }
}
