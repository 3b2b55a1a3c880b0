//! `GPUJIT_CPU_TIME_LIMIT_MS`: a process-wide CPU time limit, read once. In a
//! binary of its own because environment variables are process-wide; the bad
//! value is checked in a child process: the same test, started again with
//! `GPUJIT_CPU_TIME_LIMIT_MS=2s`.

use std::time::{Duration, Instant};

use gpujit::prelude::*;

#[macro_use]
mod common;

fn main() -> std::process::ExitCode {
    common::run_tests(
        &[include_str!("time_limit_env.rs")],
        cases![Some(common::Tool::CpuBackend) => the_environment_sets_a_limit_that_a_scoped_one_overrides],
    )
}

/// Never ends.
#[gpu_kernel]
fn spin(out: &mut [u32]) {
    loop {
        out[0] += 1;
    }
}

/// Ends at once.
#[gpu_kernel]
fn once(out: &mut [u32]) {
    out[0] = 1;
}

fn limit_ms_of(r: gpujit::Result<()>) -> u64 {
    match r {
        Err(Error::LaunchTimeout { kernel, limit_ms }) => {
            assert_eq!(kernel, "spin");
            limit_ms
        }
        other => panic!("expected Err(LaunchTimeout) from `spin`, got {other:?}"),
    }
}

const TEST: &str = "the_environment_sets_a_limit_that_a_scoped_one_overrides";

fn the_environment_sets_a_limit_that_a_scoped_one_overrides() {
    if std::env::var("GPUJIT_CPU_TIME_LIMIT_MS").as_deref() == Ok("2s") {
        return bad_value_is_an_error();
    }
    // The only test of this binary: nothing else reads the environment
    // concurrently.
    std::env::set_var("GPUJIT_CPU_TIME_LIMIT_MS", "150");
    let mut out = gpujit::zeros::<u32>(1).unwrap();
    let start = Instant::now();
    assert_eq!(limit_ms_of(spin![4, 64](&mut out)), 150);
    assert!(start.elapsed() >= Duration::from_millis(150));
    let scoped = gpujit::with_cpu_time_limit(Duration::from_millis(250), || spin![1, 1](&mut out));
    assert_eq!(limit_ms_of(scoped), 250);

    // A value that is not a number of milliseconds is an error, not a panic
    // and not "no limit".
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST])
        .env("GPUJIT_CPU_TIME_LIMIT_MS", "2s")
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

/// The test above, in a child process with `GPUJIT_CPU_TIME_LIMIT_MS=2s`.
fn bad_value_is_an_error() {
    let mut out = gpujit::zeros::<u32>(1).unwrap();
    // (A kernel that ends: were the value taken as "no limit", this must not hang.)
    match once![1, 1](&mut out) {
        Err(Error::InvalidLaunchConfig(m)) => {
            assert!(m.contains("GPUJIT_CPU_TIME_LIMIT_MS=`2s`"), "{m}");
        }
        other => panic!("expected Err(InvalidLaunchConfig), got {other:?}"),
    }
}
