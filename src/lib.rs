//! Shared helpers for gpujit's examples and tests (not part of the library).

use std::time::Instant;

pub mod output;

/// Runs `f` once to warm up (first-launch costs such as NVRTC compiles or
/// thread-pool start-up), then `runs` more times, and returns the median wall
/// time of those runs in seconds. Stops at the first error.
pub fn median_secs(runs: usize, mut f: impl FnMut() -> gpujit::Result<()>) -> gpujit::Result<f64> {
    f()?;
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Shows gpujit's `log` messages (the low-occupancy warning) on stderr, as
/// Numba shows its `NumbaPerformanceWarning`s: level `warn` unless `RUST_LOG`
/// says otherwise (`RUST_LOG=off` hides them, `RUST_LOG=debug` shows more).
/// The CPU backend logs nothing, so examples print no extra line there.
/// Call it first in `main`; a second call does nothing.
pub fn init_logging() {
    let env = env_logger::Env::default().default_filter_or("warn");
    let _ = env_logger::Builder::from_env(env).format_timestamp(None).try_init();
}

/// Formats seconds as `12.345 ms`, or as `4.567 µs` below a millisecond.
pub fn human_time(secs: f64) -> String {
    if secs < 1e-3 {
        format!("{:.3} µs", secs * 1e6)
    } else {
        format!("{:.3} ms", secs * 1e3)
    }
}

/// Ends an example: prints `error: ...` with the error's message (not its
/// `Debug` form) and exits with status 1 when `result` is an error.
pub fn exit_on_error<E: std::fmt::Display>(result: Result<(), E>) {
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// The size `N` given as the first command-line argument, or `default`.
///
/// # Errors
/// A message naming the argument when it is not a positive integer.
pub fn size_arg(default: usize) -> Result<usize, String> {
    match std::env::args().nth(1) {
        Some(arg) => match arg.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("N must be a positive integer, got {arg:?}")),
        },
        None => Ok(default),
    }
}

/// `"yes"`/`"NO"` for a match column.
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "NO"
    }
}

/// Kernels exported for other crates (see `tests/toolchain/cross_crate.rs`).
pub mod kernels {
    use gpujit::prelude::*;

    /// `y[i] = factor * x[i]`, one thread per element.
    #[gpu_kernel]
    pub fn scale(factor: f32, x: &[f32], y: &mut [f32]) {
        let i = grid(1);
        if i < y.len() {
            y[i] = factor * x[i];
        }
    }
}

/// Device functions for the cross-crate tests (`tests/language/device_fns.rs`):
/// kernels in other crates call them after `use gpujit_examples::device_fns::...`.
pub mod device_fns {
    use gpujit::prelude::*;

    /// `x` limited to `lo..=hi` (`hi` wins if `lo > hi`, as a GPU's `fminf(fmaxf(..))`).
    #[gpu_device]
    pub fn clamp_to(x: f32, lo: f32, hi: f32) -> f32 {
        x.max(lo).min(hi)
    }

    /// The sum of `a[from..to]` (bounds-checked on the CPU backend).
    #[gpu_device]
    pub fn range_sum(a: &[i32], from: usize, to: usize) -> i32 {
        let mut s = 0;
        for i in from..to {
            s += a[i];
        }
        s
    }
}
