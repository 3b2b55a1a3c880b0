//! Differential fuzzing (issue #19): the random kernels that `build.rs`
//! generated run on every path that can run them, and must agree bit for
//! bit (any NaN matches any NaN across the C boundary):
//! - the CPU backend's default choice, the same with each of its strategies
//!   kept off in turn (spans, lockstep, split, merged rows:
//!   `with_cpu_strategies_off`), and its reference path (coroutines,
//!   forced) — faults included: the same report on all; and the checked
//!   mode (`GPUJIT_CHECK=race,init`), which must find nothing to report;
//! - the emitted CUDA C on the host (g++ against `driver-double/shim.h`);
//! - the CUDA backend on the driver double (NVRTC, cudarc, the C on the host),
//!   in child processes;
//! - NVRTC compiles every kernel for compute_90 and compute_75.
//!
//! A kernel that faults on the CPU backend (an index out of range, a
//! division by zero, which the generator makes on purpose) is compared
//! between the CPU paths only: on a GPU its result is undefined.
//!
//! A mismatch is shrunk (`GPUJIT_FUZZ_SHRINK`, default 1: the generator's
//! choices edited and the fuzzer rebuilt in `target/fuzz-shrink`) and the
//! smallest kernel that still disagrees is written to `fuzz/regressions/`,
//! which every later run includes. The last line of the output is
//! `fuzz: N kernels, M runs, K mismatches`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gpujit::__private::{KernelDef, ScalarValue};
use gpujit::ScalarType;

#[macro_use]
#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/common/host.rs"]
mod host;

use host::{build_library, bytes_of, compare, run_cxx, try_run_cpu, Arg, Ulps};

/// One generated kernel's launch (built by the generated `case()`).
pub struct FuzzCase {
    pub name: &'static str,
    pub kernel: &'static KernelDef,
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    /// The tolerance of float outputs in ulps: 0 (bit for bit) unless the
    /// kernel calls a transcendental function.
    pub ulps: u64,
    /// Where the CPU backend reports an index out of bounds, the double must
    /// report an illegal address (false when the kernel may also divide by
    /// zero, which the host cannot survive, or read past an end into a value
    /// a compiler may drop).
    pub faults_on_double: bool,
    pub args: Vec<ArgSpec>,
}

/// A launch argument: a scalar, or an array filled from a seed.
pub enum ArgSpec {
    Scalar(ScalarValue),
    Array {
        elem: ScalarType,
        shape: Vec<usize>,
        seed: u64,
    },
}

mod generated {
    pub use super::{ArgSpec, FuzzCase as Case};
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

/// The environment variable that makes this binary a child running the
/// kernels it names on the CUDA backend.
const CHILD: &str = "GPUJIT_FUZZ_CHILD";
/// A child's result line: `RESULT <kernel> ok <hex>,<hex>..` or `RESULT <kernel> err <message>`.
const RESULT: &str = "RESULT ";

fn main() -> std::process::ExitCode {
    if let Ok(names) = std::env::var(CHILD) {
        return child(&names);
    }
    // The harness's tool probe decides whether the case runs: a debug build
    // is too slow for the CPU paths, under GPUJIT_BACKEND=cuda (CI's second
    // pass) the release pass has already run it, and it needs the double.
    let needs = if cfg!(debug_assertions) {
        common::Tool::Release
    } else if on_gpu() {
        common::Tool::Nvrtc
    } else if std::env::var("GPUJIT_BACKEND").is_ok_and(|b| b.trim() == "cuda") {
        common::Tool::CpuBackend
    } else if !chosen_paths().contains(&DOUBLE) {
        // `GPUJIT_FUZZ_PATHS` without the double: NVRTC is what it needs.
        common::Tool::Nvrtc
    } else {
        common::Tool::DriverDouble
    };
    common::run_tests(
        &[include_str!("fuzz.rs")],
        vec![common::Case {
            name: "fuzz",
            needs: Some(needs),
            run: Box::new(fuzz),
        }],
    )
}

/// What one path gave: every array's bytes, or the launch's error.
type Outcome = Result<Vec<Vec<u8>>, String>;

/// The arguments of `case`, arrays filled from their seeds.
fn materialize(case: &FuzzCase) -> Vec<Arg> {
    case.args
        .iter()
        .map(|a| match a {
            ArgSpec::Scalar(v) => Arg::Scalar(*v),
            ArgSpec::Array { elem, shape, seed } => Arg::Array {
                elem: *elem,
                shape: shape.clone(),
                bytes: fill(*elem, shape.iter().product(), *seed),
            },
        })
        .collect()
}

/// `n` values of `elem`, edge values often (0, ±1, MIN, MAX, NaN, ±inf,
/// -0.0, subnormals), the bytes of each as the device holds them.
fn fill(elem: ScalarType, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    macro_rules! ints {
        ($t:ty) => {
            bytes_of(
                &(0..n)
                    .map(|_| match rng.u32(..10) {
                        0 => 0,
                        1 => 1,
                        2 => <$t>::MAX,
                        3 => <$t>::MIN,
                        4 => (0 as $t).wrapping_sub(1),
                        5 | 6 => rng.u64(..16) as $t,
                        _ => rng.u64(..) as $t,
                    })
                    .collect::<Vec<$t>>(),
            )
        };
    }
    macro_rules! floats {
        ($t:ty, $bits:ty, $tiny:expr) => {
            bytes_of(
                &(0..n)
                    .map(|_| match rng.u32(..16) {
                        0 => 0.0,
                        1 => -0.0,
                        2 => 1.0,
                        3 => -1.0,
                        4 => <$t>::NAN,
                        5 => <$t>::INFINITY,
                        6 => <$t>::NEG_INFINITY,
                        7 => $tiny,
                        8 => <$t>::MAX,
                        9 => <$t>::from_bits(rng.u64(..) as $bits),
                        10 | 11 => rng.i32(-20..20) as $t * 0.25,
                        _ => (rng.f64() * 200.0 - 100.0) as $t,
                    })
                    .collect::<Vec<$t>>(),
            )
        };
    }
    match elem {
        ScalarType::U8 => ints!(u8),
        ScalarType::I8 => ints!(i8),
        ScalarType::I16 => ints!(i16),
        ScalarType::U16 => ints!(u16),
        ScalarType::I32 => ints!(i32),
        ScalarType::I64 => ints!(i64),
        ScalarType::U32 => ints!(u32),
        ScalarType::U64 => ints!(u64),
        ScalarType::Usize => ints!(usize),
        ScalarType::F32 => floats!(f32, u32, 1e-40),
        ScalarType::F64 => floats!(f64, u64, 1e-310),
        ScalarType::Bool => (0..n).map(|_| rng.bool() as u8).collect(),
    }
}

/// Runs `case` on the current backend (the CPU backend unless this is a
/// child), with a time limit, as a CPU launch: the arrays' bytes or the error.
fn run(case: &FuzzCase, args: &[Arg]) -> Outcome {
    let (out, r) = gpujit::with_cpu_time_limit(Duration::from_secs(30), || {
        try_run_cpu(case.kernel, case.grid, case.block, args)
    });
    r.map(|()| out).map_err(|e| e.to_string())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

/// The child: runs each named kernel on this process's backend (the CUDA
/// backend on the double) and prints one [`RESULT`] line each.
fn child(names: &str) -> std::process::ExitCode {
    let wanted: Vec<&str> = names.split(',').collect();
    for case in generated::cases().iter().filter(|c| wanted.contains(&c.name)) {
        let args = materialize(case);
        match run(case, &args) {
            Ok(out) => {
                let arrays: Vec<String> = out.iter().map(|a| hex(a)).collect();
                println!("{RESULT}{} ok {}", case.name, arrays.join(","));
            }
            Err(e) => println!("{RESULT}{} err {}", case.name, e.replace('\n', " | ")),
        }
    }
    std::process::ExitCode::SUCCESS
}

/// The paths, as mismatches name them and `GPUJIT_FUZZ_PATHS` chooses them.
const DEFAULT_PATH: &str = "cpu-default";
const CHECKED: &str = "cpu-checked";
/// The CPU backend with one strategy kept off (`GPUJIT_CPU_EXEC=no-..`).
const FORCED_OFF: [(&str, gpujit::__private::Strategies); 5] = {
    use gpujit::__private::Strategies as S;
    [
        ("cpu-no-spans", S::SPANS),
        ("cpu-no-lockstep", S::LOCKSTEP),
        ("cpu-no-split", S::SPLIT),
        ("cpu-no-merge", S::MERGE),
        ("cpu-no-inline", S::INLINE),
    ]
};
const NVRTC: &str = "nvrtc";
const HOST_C: &str = "host-c";
const DOUBLE: &str = "double";
/// The children's path with `GPUJIT_FUZZ_GPU=1`.
const GPU: &str = "gpu";

/// `GPUJIT_FUZZ_GPU=1` (`scripts/gpu-check.sh` on a machine with a GPU):
/// the children run on the real GPU instead of the driver double.
fn on_gpu() -> bool {
    std::env::var("GPUJIT_FUZZ_GPU").is_ok_and(|v| v.trim() == "1")
}

/// The paths besides the CPU backend's two that this run takes:
/// `GPUJIT_FUZZ_PATHS` (a comma list of `nvrtc`, `host-c`, `double`), else all.
fn chosen_paths() -> Vec<&'static str> {
    let all = [NVRTC, HOST_C, DOUBLE];
    match std::env::var("GPUJIT_FUZZ_PATHS") {
        Err(_) => all.to_vec(),
        Ok(v) => {
            let wanted: Vec<&str> = v.split(',').map(str::trim).collect();
            for w in &wanted {
                assert!(
                    w.is_empty() || all.contains(w),
                    "GPUJIT_FUZZ_PATHS: `{w}` is not one of {all:?}"
                );
            }
            all.into_iter().filter(|p| wanted.contains(p)).collect()
        }
    }
}

/// A disagreement: the kernel, the path that disagrees with the reference,
/// and what differed.
struct Mismatch {
    kernel: String,
    path: &'static str,
    detail: String,
}

fn fuzz() {
    let cases = generated::cases();
    let report = check(&cases);
    for m in &report.mismatches {
        eprintln!("MISMATCH {} [{}]: {}", m.kernel, m.path, m.detail);
    }
    if let Ok(file) = std::env::var("GPUJIT_FUZZ_REPORT") {
        // For the shrinker's parent: one `kernel path` line per mismatch.
        let lines: Vec<String> = report
            .mismatches
            .iter()
            .map(|m| format!("{} {}\n", m.kernel, m.path))
            .collect();
        std::fs::write(&file, lines.concat()).expect("write the report");
    }
    // Shrinking rebuilds the fuzzer (minutes): by default not on CI, where
    // the regression file it writes would be lost.
    let default_shrink = std::env::var("CI").map_or(true, |v| v.trim().is_empty() || v.trim() == "false");
    let shrink = std::env::var("GPUJIT_FUZZ_SHRINK").map_or(default_shrink, |v| v.trim() != "0");
    if shrink && std::env::var_os("GPUJIT_FUZZ_REPORT").is_none() {
        let deadline = Instant::now() + SHRINK_TIME;
        let mut done = Vec::new();
        for m in &report.mismatches {
            if done.contains(&m.kernel) || done.len() >= 3 || Instant::now() > deadline {
                continue;
            }
            done.push(m.kernel.clone());
            shrink_and_record(&m.kernel, m.path, deadline);
        }
    } else if !report.mismatches.is_empty() {
        eprintln!(
            "fuzz: not shrunk (GPUJIT_FUZZ_SHRINK=0, or CI); to shrink and write the regressions, run \
             GPUJIT_FUZZ_SEED={} GPUJIT_FUZZ_KERNELS={} cargo test --workspace --release --test fuzz",
            generated::SEED,
            generated::CHOICES.len()
        );
    }
    println!("{}", report.paths);
    println!(
        "fuzz: {} kernels, {} runs, {} mismatches (GPUJIT_FUZZ_SEED={}, {:.0} s)",
        cases.len(),
        report.runs,
        report.mismatches.len(),
        generated::SEED,
        report.seconds
    );
    assert!(
        report.mismatches.is_empty(),
        "{} mismatches (listed above as MISMATCH lines)",
        report.mismatches.len()
    );
}

struct Report {
    mismatches: Vec<Mismatch>,
    runs: usize,
    /// The share of kernels per path of the CPU backend's default choice.
    paths: String,
    seconds: f64,
}

fn check(cases: &[FuzzCase]) -> Report {
    let start = Instant::now();
    let mut mismatches = Vec::new();
    let mut runs = 0;
    let mut reference: BTreeMap<&str, Outcome> = BTreeMap::new();
    let mut args_of = BTreeMap::new();
    let mut path_counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for case in cases {
        let args = materialize(case);
        let reference_run = gpujit::__private::with_forced_coroutines(|| run(case, &args));
        let default_run = run(case, &args);
        *path_counts.entry(default_path()).or_default() += 1;
        // Each strategy forced off: the kernel runs its fallback there.
        for (path, off) in FORCED_OFF {
            runs += 1;
            let forced = gpujit::__private::with_cpu_strategies_off(off, || run(case, &args));
            if let Some(detail) = differ(case, &args, &reference_run, &forced) {
                mismatches.push(Mismatch {
                    kernel: case.name.to_string(),
                    path,
                    detail,
                });
            }
        }
        // The checked mode (racecheck, initcheck) must be silent on these
        // race-free kernels and change nothing.
        let checked_run = gpujit::with_checks(gpujit::Checks::ALL, || run(case, &args));
        runs += 3;
        if let Some(detail) = differ(case, &args, &reference_run, &checked_run) {
            mismatches.push(Mismatch {
                kernel: case.name.to_string(),
                path: CHECKED,
                detail,
            });
        }
        if let Some(detail) = differ(case, &args, &reference_run, &injected(case, default_run)) {
            mismatches.push(Mismatch {
                kernel: case.name.to_string(),
                path: DEFAULT_PATH,
                detail,
            });
        }
        reference.insert(case.name, reference_run);
        args_of.insert(case.name, args);
    }
    let mut phases = vec![("CPU paths", start.elapsed())];
    // The host C and the double run the kernels that do not fault.
    let clean: Vec<&FuzzCase> = cases.iter().filter(|c| reference[c.name].is_ok()).collect();
    let paths = chosen_paths();
    for case in clean.iter().filter(|_| paths.contains(&NVRTC)) {
        for arch in [gpujit::nvrtc::TARGET_ARCH, gpujit::nvrtc::OLDEST_ARCH] {
            runs += 1;
            if let Err(e) = gpujit::nvrtc::compile_ptx((case.kernel.nvrtc_source)(), case.kernel.entry, arch) {
                mismatches.push(Mismatch {
                    kernel: case.name.to_string(),
                    path: NVRTC,
                    detail: format!("{arch}: {e}"),
                });
            }
        }
    }
    phases.push(("NVRTC", start.elapsed()));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-host-c-{}", std::process::id()));
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../driver-double");
    let kernels: Vec<&KernelDef> = clean.iter().map(|c| c.kernel).collect();
    // A GPU machine may have no g++.
    let cxx = !on_gpu()
        || Command::new("g++")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    let host_c = if paths.contains(&HOST_C) && cxx {
        Some(build_library(&kernels, &dir, &shim))
    } else {
        None
    };
    match host_c {
        None => {}
        Some(Err(e)) => mismatches.push(Mismatch {
            kernel: "(all)".into(),
            path: HOST_C,
            detail: e,
        }),
        Some(Ok(lib)) => {
            for case in &clean {
                let args = &args_of[case.name];
                let (out, trapped) = run_cxx(&lib, case.kernel, case.grid, case.block, args);
                runs += 1;
                let c = if trapped {
                    Err("the C called __trap()".to_string())
                } else {
                    Ok(out)
                };
                if let Some(detail) = differ(case, args, &reference[case.name], &c) {
                    mismatches.push(Mismatch {
                        kernel: case.name.to_string(),
                        path: HOST_C,
                        detail,
                    });
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    phases.push(("host C", start.elapsed()));
    // The driver double (or the GPU): two children, half of the kernels each
    // (the double compiles each kernel with g++: two cores).
    let double = if on_gpu() || !paths.contains(&DOUBLE) {
        None
    } else {
        Some(common::DriverDouble::find().expect("probed by the harness"))
    };
    let child_path = if on_gpu() { GPU } else { DOUBLE };
    // Kernels that fault on the CPU with an index past an array's end (by a
    // store, see `faults_on_double`) must fault on the double too, as an
    // illegal address: each in a child of its own, as the error is sticky. (A GPU need not fault on a small overrun: not
    // there.)
    let oob: Vec<&FuzzCase> = cases
        .iter()
        .filter(|c| {
            !on_gpu()
                && c.faults_on_double
                && reference[c.name]
                    .as_ref()
                    .is_err_and(|e| e.contains("is out of bounds for"))
        })
        .collect();
    let on_child: Vec<&&FuzzCase> = clean.iter().filter(|_| paths.contains(&DOUBLE)).collect();
    let mut jobs: Vec<Vec<&str>> = (0..2)
        .map(|h| on_child.iter().skip(h).step_by(2).map(|c| c.name).collect())
        .collect();
    if paths.contains(&DOUBLE) {
        jobs.extend(oob.iter().map(|c| vec![c.name]));
    }
    jobs.retain(|names| !names.is_empty());
    // Two at a time (the double compiles with g++: two cores).
    for pair in jobs.chunks(2) {
        let children: Vec<_> = pair
            .iter()
            .map(|names| {
                let mut cmd = Command::new(std::env::current_exe().expect("this binary"));
                if let Some(d) = &double {
                    d.configure(&mut cmd);
                }
                cmd.env("GPUJIT_BACKEND", "cuda").env(CHILD, names.join(","));
                cmd.stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                (names, cmd.spawn().expect("start a child on the driver double"))
            })
            .collect();
        for (names, child) in children {
            let out = child.wait_with_output().expect("the child's output");
            let text = String::from_utf8_lossy(&out.stdout);
            let mut seen = Vec::new();
            for line in text.lines().filter_map(|l| l.strip_prefix(RESULT)) {
                let mut parts = line.splitn(3, ' ');
                let (Some(name), Some(kind), rest) = (parts.next(), parts.next(), parts.next().unwrap_or("")) else {
                    continue;
                };
                let Some(case) = cases.iter().find(|c| c.name == name) else {
                    continue;
                };
                seen.push(name.to_string());
                runs += 1;
                let got: Outcome = match kind {
                    "ok" if rest.is_empty() => Ok(Vec::new()),
                    "ok" => Ok(rest.split(',').map(unhex).collect()),
                    _ => Err(rest.to_string()),
                };
                let problem = match &reference[name] {
                    Ok(_) => differ(case, &args_of[name], &reference[name], &got),
                    Err(_) if got.as_ref().is_err_and(|e| e.contains("CUDA_ERROR_ILLEGAL_ADDRESS")) => None,
                    Err(e) => Some(format!(
                        "the CPU backend faulted ({e}); the double did not report an illegal address: {}",
                        match &got {
                            Ok(_) => "it ran".to_string(),
                            Err(g) => g.clone(),
                        }
                    )),
                };
                if let Some(detail) = problem {
                    mismatches.push(Mismatch {
                        kernel: name.to_string(),
                        path: child_path,
                        detail,
                    });
                }
            }
            // A child that dies (a crash in the double) leaves the rest of
            // its list without results: the first is the kernel it died on.
            let missing: Vec<&&str> = names.iter().filter(|n| !seen.iter().any(|s| s == **n)).collect();
            if let Some(name) = missing.first() {
                mismatches.push(Mismatch {
                    kernel: name.to_string(),
                    path: child_path,
                    detail: format!(
                        "no result: the child ended ({}) at it, {} more kernels not run:\n{}",
                        out.status,
                        missing.len() - 1,
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .take(20)
                            .collect::<Vec<_>>()
                            .join("\n")
                    ),
                });
            }
        }
    }
    phases.push((child_path, start.elapsed()));
    let mut last = Duration::ZERO;
    let times: Vec<String> = phases
        .iter()
        .map(|(p, t)| {
            let s = format!("{p} {:.1} s", (*t - last).as_secs_f64());
            last = *t;
            s
        })
        .collect();
    println!(
        "fuzz: {} of {} kernels fault on the CPU backend ({} of them checked on the double: an illegal address); time: {}",
        cases.len() - clean.len(),
        cases.len(),
        if paths.contains(&DOUBLE) { oob.len() } else { 0 },
        times.join(", ")
    );
    let total = cases.len().max(1);
    let shares: Vec<String> = path_counts
        .iter()
        .map(|(p, n)| format!("{p} {n} ({:.0}%)", 100.0 * *n as f64 / total as f64))
        .collect();
    Report {
        mismatches,
        runs,
        paths: format!(
            "fuzz: the CPU backend's default path, per kernel: {}",
            shares.join(", ")
        ),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// The fuzzer's own test: with `GPUJIT_FUZZ_INJECT=<text>`, the default
/// path's first output byte is flipped in every kernel whose CUDA C contains
/// `text`, so that a run shows the mismatch report and the shrinker at work
/// (it should end at a small kernel that still contains `text`).
fn injected(case: &FuzzCase, run: Outcome) -> Outcome {
    let Ok(text) = std::env::var("GPUJIT_FUZZ_INJECT") else {
        return run;
    };
    run.map(|mut arrays| {
        if (case.kernel.cuda_source)().contains(&text) {
            if let Some(b) = arrays.iter_mut().find(|a| !a.is_empty()) {
                b[0] ^= 0x40;
            }
        }
        arrays
    })
}

/// The path the last CPU launch on this thread took, by its block counts.
fn default_path() -> &'static str {
    use gpujit::__private as p;
    if p::last_launch_coroutine_blocks() > 0 {
        "coroutines"
    } else if p::last_launch_merged_blocks() > 0 {
        "merged rows"
    } else if p::last_launch_lockstep_blocks() > 0 {
        "lockstep"
    } else if p::last_launch_row_blocks() > 0 || p::last_launch_inner_blocks() > 0 {
        "rows/interchange"
    } else if p::last_launch_narrowed_blocks() > 0 {
        "narrowed"
    } else if p::last_launch_span_blocks() > 0 {
        "spans"
    } else {
        "thread loops"
    }
}

/// Why `got` differs from the reference `want`, if it does: bit for bit
/// (within `case.ulps` for floats), except that any NaN matches any NaN (the sign and payload of a NaN an
/// operation makes are unspecified, in Rust as on a GPU; a constant the
/// compiler folded can differ from the same operation at run time).
fn differ(case: &FuzzCase, args: &[Arg], want: &Outcome, got: &Outcome) -> Option<String> {
    match (want, got) {
        (Err(a), Err(b)) if a == b => None,
        (Err(a), Err(b)) => Some(format!("different faults:\n  reference: {a}\n  this path: {b}")),
        (Err(a), Ok(_)) => Some(format!("the reference faulted ({a}), this path did not")),
        (Ok(_), Err(b)) => Some(format!("this path failed: {b}")),
        (Ok(a), Ok(b)) => {
            let problems = compare(case.kernel, args, a, b, Ulps(case.ulps));
            (!problems.is_empty()).then(|| problems.join("; "))
        }
    }
}

// ------------------------------------------------------------ shrinking

/// Rounds of candidates the shrinker tries at most, and candidates per round.
const SHRINK_ROUNDS: usize = 12;
const SHRINK_BATCH: usize = 48;
/// The shrinker's time for all mismatches of a run together.
const SHRINK_TIME: Duration = Duration::from_secs(900);

/// Shrinks the generated kernel `name`, whose `path` disagreed, and writes
/// the smallest one that still disagrees there to `fuzz/regressions/`.
fn shrink_and_record(name: &str, path: &'static str, deadline: Instant) {
    let Some((_, choices)) = generated::CHOICES.iter().find(|(n, _)| *n == name) else {
        eprintln!("fuzz: `{name}` is a regression already: nothing to shrink");
        return;
    };
    let mut best = choices.to_vec();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../fuzz-shrink");
    std::fs::create_dir_all(&work).expect("the shrinker's folder");
    eprintln!(
        "fuzz: shrinking `{name}` ({} choices; builds in {})",
        best.len(),
        work.display()
    );
    let cargo = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(args)
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .env("CARGO_TARGET_DIR", work.join("target"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd
    };
    // The candidates' runs need the double beside their binary.
    let _ = cargo(&["build", "--release", "-p", "gpujit-driver-double"]).status();
    for round in 0..SHRINK_ROUNDS {
        if Instant::now() > deadline {
            eprintln!("fuzz: the shrinker's time is up");
            break;
        }
        let mut seen = std::collections::HashSet::new();
        let candidates: Vec<Vec<u64>> = gpujit_fuzz_gen::shrink(&best)
            .into_iter()
            .filter(|c| {
                let src = gpujit_fuzz_gen::generate("x", &mut gpujit_fuzz_gen::Choices::replay(c.clone())).source;
                seen.insert(src)
            })
            .take(SHRINK_BATCH)
            .collect();
        if candidates.is_empty() {
            break;
        }
        let replay: String = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "sh{i}: {}\n",
                    c.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
                )
            })
            .collect();
        let replay_file = work.join("replay.txt");
        let report_file = work.join("report.txt");
        std::fs::write(&replay_file, replay).expect("write the replay file");
        let _ = std::fs::remove_file(&report_file);
        let status = cargo(&["test", "--release", "-p", "gpujit-fuzz", "--test", "fuzz"])
            .env("GPUJIT_FUZZ_REPLAY", &replay_file)
            .env("GPUJIT_FUZZ_REPORT", &report_file)
            .env("GPUJIT_FUZZ_SHRINK", "0")
            .env("GPUJIT_FUZZ_PATHS", if path.starts_with("cpu-") { "" } else { path })
            .status();
        let Ok(report) = std::fs::read_to_string(&report_file) else {
            eprintln!("fuzz: the shrinker's build or run failed ({status:?}); stopping at round {round}");
            break;
        };
        let still: Vec<usize> = report
            .lines()
            .filter(|l| l.ends_with(path))
            .filter_map(|l| l.strip_prefix("sh")?.split(' ').next()?.parse().ok())
            .collect();
        // Candidates come simplest first: take the first that still disagrees.
        match still.iter().min() {
            Some(&i) => best = candidates[i].clone(),
            None => break,
        }
        eprintln!("fuzz: round {round}: {} choices", best.len());
    }
    let file_name = format!("seed{}_{name}", generated::SEED);
    let kernel = gpujit_fuzz_gen::generate(&file_name, &mut gpujit_fuzz_gen::Choices::replay(best.clone()));
    let text = format!(
        "// Found by the fuzzer: GPUJIT_FUZZ_SEED={} kernel `{name}`, shrunk; the path that disagreed with\n\
         // the CPU backend's reference path: {path}. Every run includes it: it must agree on every path.\n\
         // choices: {}\n{}",
        generated::SEED,
        best.iter().map(u64::to_string).collect::<Vec<_>>().join(" "),
        kernel.source
    );
    let dest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(format!("{file_name}.rs"));
    match std::fs::write(&dest, &text) {
        Ok(()) => eprintln!("fuzz: wrote {}:\n{text}", dest.display()),
        Err(e) => eprintln!("fuzz: cannot write {} ({e}):\n{text}", dest.display()),
    }
}
