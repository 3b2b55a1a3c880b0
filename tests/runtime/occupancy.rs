//! The occupancy query (`name::occupancy`, `name::suggested_block_size`) and
//! the seed's low-occupancy warning in `loop_test`, on the CUDA driver double
//! (132 multiprocessors, like an H100/H200) and on the CPU backend; and the
//! CPU backend's performance note for a kernel left on coroutines.
//!
//! As in `tests/runtime/cuda_backend.rs`, the backend is chosen once per process, so
//! each case runs in a child process (this binary again, `GJ_OCC_CASE=<case>`)
//! with its own environment; the parent checks the child's exit status and,
//! for the example's own logger, its stderr.

use crate::common;

use std::process::{Command, ExitCode};
use std::sync::Arc;

use gpujit::prelude::*;
use gpujit::BackendKind;

#[path = "../../examples/loop_test.rs"]
#[allow(dead_code)]
mod loop_test;
use crate::matmul;

use loop_test::{loop_kernel, loop_total};

/// The text every low-occupancy warning carries (Numba's wording).
const WARNING: &str = "will likely result in GPU under-utilization due to low occupancy";

fn on_the_double() {
    let d = gpujit::detect();
    assert_eq!(d.kind, BackendKind::Cuda, "{d}");
    assert!(d.reason.contains("gpujit driver double"), "{d}");
}

// ------------------------------------------------------------------ cases (child side)

/// The double models sm_90: 2048 threads and 32 blocks per multiprocessor,
/// 228 KiB of shared memory with 1 KiB reserved per block.
fn occupancy_query_on_the_double() {
    on_the_double();
    let o = loop_kernel::occupancy(256).unwrap();
    assert_eq!(
        (
            o.block_size,
            o.active_blocks_per_multiprocessor,
            o.multiprocessors,
            o.max_threads_per_multiprocessor
        ),
        (256, 8, 132, 2048),
        "{o:?}"
    );
    assert_eq!(
        (o.fraction(), o.resident_blocks(), o.dynamic_shared_bytes),
        (1.0, 8 * 132, 0)
    );
    assert_eq!(
        loop_kernel::occupancy(1024).unwrap().active_blocks_per_multiprocessor,
        2
    );
    assert_eq!(loop_kernel::occupancy(32).unwrap().active_blocks_per_multiprocessor, 32);
    // 48 threads are 2 warps: 32 blocks of them fill 1536 of 2048 threads.
    let odd = loop_kernel::occupancy(48).unwrap();
    assert_eq!((odd.active_blocks_per_multiprocessor, odd.fraction()), (32, 0.75));
    // Dynamic shared memory reaches the driver: 100 KiB per block leaves room for 2.
    let shared = loop_kernel::occupancy_with_shared(256, 100 << 10).unwrap();
    assert_eq!(
        (shared.active_blocks_per_multiprocessor, shared.dynamic_shared_bytes),
        (2, 100 << 10)
    );
    // A 2-D block counts its volume; another kernel (with a barrier).
    let tiled = matmul::matmul_tiled::occupancy((16, 16)).unwrap();
    assert_eq!((tiled.block_size, tiled.active_blocks_per_multiprocessor), (256, 8));

    let s = loop_kernel::suggested_block_size().unwrap();
    assert_eq!((s.block_size, s.min_grid_size), (1024, 2 * 132), "{s:?}");
    assert_eq!(matmul::matmul_tiled::suggested_block_size().unwrap().block_size, 1024);
}

/// Blocks the GPU cannot run are errors, never a panic or a bogus 0.
fn occupancy_of_impossible_blocks_is_an_error() {
    on_the_double();
    for (block, want) in [
        ((2048, 1, 1), "block.x = 2048 exceeds the CUDA limit of 1024"),
        ((32, 32, 2), "2048 threads"),
        ((1, 1, 65), "block.z = 65 exceeds the CUDA limit of 64"),
        ((0, 1, 1), "block"),
    ] {
        let err = loop_kernel::occupancy(block).unwrap_err();
        assert!(matches!(err, gpujit::Error::InvalidLaunchConfig(_)), "{block:?}: {err}");
        assert!(err.to_string().contains(want), "{block:?}: {err}");
    }
}

/// On the CPU backend occupancy is a GPU notion: a clear `Err`.
fn occupancy_on_the_cpu_is_an_error() {
    assert_eq!(gpujit::detect().kind, BackendKind::Cpu);
    for err in [
        loop_kernel::occupancy(256).unwrap_err(),
        loop_kernel::occupancy_with_shared(64, 1024).unwrap_err(),
        loop_kernel::suggested_block_size().unwrap_err(),
    ] {
        let text = err.to_string();
        assert!(matches!(err, gpujit::Error::BackendUnavailable { .. }), "{text}");
        assert!(text.contains("GPU notion") && text.contains("CPU backend"), "{text}");
    }
}

/// The seed: 10000 threads at 64 per block (157 blocks) gives no warning, at
/// 256 per block (40 blocks) one, however often it is launched.
fn loop_test_warns_at_256_not_at_64() {
    on_the_double();
    let keep = common::KeepLog::install();
    let want = 249_950_002_500_000.0;
    let mut d_out = gpujit::device_array::<f64>(10_000).unwrap();
    for _ in 0..2 {
        assert_eq!(loop_total(&mut d_out, 64).unwrap(), want);
    }
    let after_64 = keep.messages().clone();
    assert!(after_64.is_empty(), "157 blocks warned: {after_64:?}");
    for _ in 0..2 {
        assert_eq!(loop_total(&mut d_out, 256).unwrap(), want);
    }
    let got = keep.messages().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].contains(&format!("grid size 40 {WARNING}")), "{got:?}");
    assert!(
        got[0].contains("`loop_kernel`") && got[0].contains("at least 128 blocks"),
        "{got:?}"
    );
}

/// A local array used on both sides of a barrier: the planner does not
/// split it, so coroutines.
#[gpu_kernel]
fn local_array_across(out: &mut [u32]) {
    let t = thread_idx().x;
    let mut a = [0u32; 4];
    a[t % 4] = t as u32;
    syncthreads();
    out[grid(1)] += a[t % 4] + 1;
}

/// A kernel with barriers the planner splits.
#[gpu_kernel]
fn split_rounds(out: &mut [u32]) {
    for r in 0..4u32 {
        out[grid(1)] += r;
        syncthreads();
    }
}

/// The note names the kernel once, at its first launch; a kernel that
/// splits gets none.
fn coroutines_are_noted_once_per_kernel() {
    assert_eq!(gpujit::detect().kind, BackendKind::Cpu);
    let keep = common::KeepLog::install();
    let mut out = gpujit::zeros::<u32>(64).unwrap();
    for _ in 0..2 {
        split_rounds![2, 32](&mut out).unwrap();
    }
    assert!(keep.messages().is_empty(), "{:?}", keep.messages());
    for _ in 0..3 {
        local_array_across![2, 32](&mut out).unwrap();
    }
    let got = keep.messages().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].contains("kernel `local_array_across` runs its threads as coroutines") && got[0].contains("local array"),
        "{got:?}"
    );
    // 2 launches of 0+1+2+3, and 3 of `t + 1`, per element.
    let want: Vec<u32> = (0..64).map(|g| 2 * 6 + 3 * (g % 32 + 1)).collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
}

/// The example itself, with the examples' logger (stderr); the parent reads it.
fn loop_test_example() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(loop_test::run());
}

// ------------------------------------------------------------------ runner (parent side)

/// What the parent checks in the child's stderr.
#[derive(Clone, Copy)]
enum Stderr {
    /// Nothing is checked.
    Any,
    /// Exactly one low-occupancy warning, for grid size 40.
    OneWarningAt40,
    /// No log line at all.
    Silent,
}

struct Case {
    name: &'static str,
    /// The test that runs in the child.
    child: &'static str,
    /// Needs the driver double (else it runs on the CPU backend).
    double: bool,
    env: &'static [(&'static str, &'static str)],
    stderr: Stderr,
    run: fn(),
}

fn child_cases() -> Vec<Case> {
    let case = |name, double, env, stderr, run| Case {
        name,
        child: name,
        double,
        env,
        stderr,
        run,
    };
    vec![
        case(
            "occupancy_query_on_the_double",
            true,
            &[],
            Stderr::Any,
            occupancy_query_on_the_double,
        ),
        case(
            "occupancy_of_impossible_blocks_is_an_error",
            true,
            &[],
            Stderr::Any,
            occupancy_of_impossible_blocks_is_an_error,
        ),
        case(
            "occupancy_on_the_cpu_is_an_error",
            false,
            &[("GPUJIT_BACKEND", "cpu")],
            Stderr::Any,
            occupancy_on_the_cpu_is_an_error,
        ),
        case(
            "coroutines_are_noted_once_per_kernel",
            false,
            &[("GPUJIT_BACKEND", "cpu")],
            Stderr::Any,
            coroutines_are_noted_once_per_kernel,
        ),
        case(
            "loop_test_warns_at_256_not_at_64",
            true,
            &[],
            Stderr::Any,
            loop_test_warns_at_256_not_at_64,
        ),
        Case {
            name: "loop_test_example_warns_once_on_the_double",
            child: "loop_test_example",
            double: true,
            env: &[],
            stderr: Stderr::OneWarningAt40,
            run: loop_test_example,
        },
        Case {
            name: "loop_test_example_is_silent_with_warnings_off",
            child: "loop_test_example",
            double: true,
            env: &[("GPUJIT_LOW_OCCUPANCY_WARNINGS", "0")],
            stderr: Stderr::Silent,
            run: loop_test_example,
        },
        Case {
            name: "loop_test_example_is_silent_on_the_cpu",
            child: "loop_test_example",
            double: false,
            env: &[("GPUJIT_BACKEND", "cpu")],
            stderr: Stderr::Silent,
            run: loop_test_example,
        },
    ]
}

fn check_stderr(name: &str, want: Stderr, stderr: &str) {
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains(WARNING)).collect();
    match want {
        Stderr::Any => {}
        Stderr::OneWarningAt40 => {
            assert_eq!(warnings.len(), 1, "{name}: stderr:\n{stderr}");
            assert!(
                warnings[0].starts_with("[WARN") && warnings[0].contains(&format!("grid size 40 {WARNING}")),
                "{name}: stderr:\n{stderr}"
            );
        }
        Stderr::Silent => assert!(stderr.trim().is_empty(), "{name}: stderr:\n{stderr}"),
    }
}

/// In a child process this file started (`GJ_OCC_CASE` set): runs that one
/// case and returns its exit code.
pub fn child() -> Option<ExitCode> {
    let name = std::env::var("GJ_OCC_CASE").ok()?;
    let case = child_cases().into_iter().find(|c| c.child == name).expect("known case");
    (case.run)();
    Some(ExitCode::SUCCESS)
}

/// The tests of this file, for the crate's harness: each runs its case in a
/// child process.
pub fn cases() -> Vec<common::Case> {
    let double = Arc::new(common::DriverDouble::find());
    let trials = child_cases()
        .into_iter()
        .map(|case| {
            let double = double.clone();
            common::Case {
                name: case.name,
                needs: case.double.then_some(common::Tool::DriverDouble),
                run: Box::new(move || {
                    let mut cmd = Command::new(std::env::current_exe().unwrap());
                    if case.double {
                        let dd = double.as_ref().as_ref().expect("probed by the harness");
                        dd.configure(&mut cmd);
                        cmd.env("GPUJIT_BACKEND", "cuda");
                    }
                    cmd.env("GJ_OCC_CASE", case.child).env_remove("RUST_LOG");
                    cmd.envs(case.env.iter().copied());
                    let out = cmd.output().expect("run the child");
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    assert!(
                        out.status.success(),
                        "child {} failed ({}):\n{stdout}{stderr}",
                        case.name,
                        out.status
                    );
                    check_stderr(case.name, case.stderr, &stderr);
                }),
            }
        })
        .collect();
    trials
}
