//! Shared by the integration tests (each folder of `tests/` is one test
//! binary, and `bench/tests/cpu_bench.rs` one more): compiling kernels' CUDA C
//! with NVRTC, the harness every binary runs under (a test that needs a tool,
//! NVRTC, g++, objdump or the driver double, shows as ignored with one line
//! saying what to run where the tool is missing), and the helpers several
//! binaries use. (Each test binary uses part of it.)
#![allow(dead_code)]

use gpujit::__private::KernelDef;
use gpujit::ndarray::Array2;
use gpujit::nvrtc::{self, OLDEST_ARCH, TARGET_ARCH};

/// Compiles every kernel's CUDA C, as handed to NVRTC (`nvrtc_source`, with
/// `#line` directives), to PTX for compute_90 and the oldest supported
/// architecture and panics on any error or warning. (Run it in a [`Case`]
/// that needs [`Tool::Nvrtc`].)
pub fn assert_compiles_with_nvrtc(test: &str, kernels: &[&KernelDef]) {
    if let Err(e) = nvrtc::load() {
        // One line, not one failure per kernel (the harness normally reports
        // this case as ignored before it runs).
        panic!("{test}: NVRTC is not available ({e}): run `bash scripts/install-nvrtc.sh`");
    }
    let mut failed = Vec::new();
    let mut failures = Vec::new();
    for k in kernels {
        for arch in [TARGET_ARCH, OLDEST_ARCH] {
            let problem = match nvrtc::compile_ptx((k.nvrtc_source)(), k.entry, arch) {
                Ok(ptx) if ptx.has_warnings() => Some(format!("warnings:\n{}", ptx.log)),
                Ok(ptx) if !ptx.text.contains(&format!(".entry {}", k.entry)) => {
                    Some(format!("no `.entry {}` in the PTX", k.entry))
                }
                Ok(_) => None,
                Err(e) => Some(e.to_string()),
            };
            if let Some(p) = problem {
                if !failed.contains(&k.name) {
                    failed.push(k.name);
                }
                failures.push(format!("{} ({arch}): {}", k.name, clip(&p, 40)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{test}: {} of {} kernels failed to compile ({} of {} compiles; the source of one: \
         `<kernel>::nvrtc_source()`):\n{}",
        failed.len(),
        kernels.len(),
        failures.len(),
        2 * kernels.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "{test}: {} kernels compiled for {TARGET_ARCH} and {OLDEST_ARCH}",
        kernels.len()
    );
}

/// The first `lines` lines of `text`, and how many more there were.
fn clip(text: &str, lines: usize) -> String {
    let total = text.lines().count();
    if total <= lines {
        return text.to_string();
    }
    let head: Vec<&str> = text.lines().take(lines).collect();
    format!("{}\n... ({} more lines)", head.join("\n"), total - lines)
}

/// A tool some tests need and CI installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// NVRTC (`bash scripts/install-nvrtc.sh`); `GPUJIT_REQUIRE_NVRTC=1` makes its absence a failure.
    Nvrtc,
    /// The host C++ compiler `g++`; `GPUJIT_REQUIRE_CXX=1` makes its absence a failure.
    Cxx,
    /// A release build (`cargo test --release`), for tests too slow without optimisation.
    Release,
    /// The CUDA driver double (`libgpujit_driver_double.so`, built with the
    /// workspace), with NVRTC and g++ that it needs;
    /// `GPUJIT_REQUIRE_DRIVER_DOUBLE=1` makes its absence a failure.
    DriverDouble,
    /// The CPU backend as the backend of this process: for tests of what only
    /// it does (per-thread `KernelFault` reports, the CPU time limit, its block
    /// scheduling). Under `GPUJIT_BACKEND=cuda` (CI's second pass) such a test
    /// is reported as ignored; nothing makes that a failure.
    CpuBackend,
    /// An optimised x86-64 build and `objdump` (binutils), to read the
    /// machine code of this test binary; `GPUJIT_REQUIRE_OBJDUMP=1` makes
    /// their absence a failure.
    Objdump,
}

impl Tool {
    /// `Err(one line saying what to run)` when the tool is missing.
    fn probe(self) -> Result<(), String> {
        match self {
            Tool::Nvrtc => nvrtc::load().map_err(|e| {
                let why = match e {
                    gpujit::Error::NvrtcUnavailable { reason, .. } => reason,
                    other => other.to_string(),
                };
                format!("NVRTC not found ({why}): run `bash scripts/install-nvrtc.sh` (no GPU needed)")
            }),
            Tool::Cxx => match std::process::Command::new("g++").arg("--version").output() {
                Ok(out) if out.status.success() => Ok(()),
                _ => Err("g++ not found: install it (Debian: `apt-get install g++`)".to_string()),
            },
            Tool::Release if cfg!(debug_assertions) => {
                Err("too slow without optimisation: run `cargo test --release`".to_string())
            }
            Tool::Release => Ok(()),
            Tool::DriverDouble => DriverDouble::find()
                .and_then(|_| Tool::Nvrtc.probe())
                .and_then(|_| Tool::Cxx.probe())
                .map(drop),
            Tool::Objdump if cfg!(debug_assertions) || !cfg!(target_arch = "x86_64") => {
                Err("reads x86-64 machine code of an optimised build: run `cargo test --release` on x86-64".to_string())
            }
            Tool::Objdump => match std::process::Command::new("objdump").arg("--version").output() {
                Ok(out) if out.status.success() => Ok(()),
                _ => Err("objdump not found: install binutils (Debian: `apt-get install binutils`)".to_string()),
            },
            Tool::CpuBackend => match gpujit::detect() {
                d if d.kind == gpujit::BackendKind::Cpu => Ok(()),
                d => Err(format!(
                    "checks CPU-backend behaviour; the backend here is {} (GPUJIT_BACKEND={})",
                    d.kind, d.requested
                )),
            },
        }
    }

    /// The variable that makes the tool's absence a failure.
    fn require_var(self) -> Option<&'static str> {
        match self {
            Tool::Nvrtc => Some("GPUJIT_REQUIRE_NVRTC"),
            Tool::Cxx => Some("GPUJIT_REQUIRE_CXX"),
            Tool::Release => None,
            Tool::DriverDouble => Some("GPUJIT_REQUIRE_DRIVER_DOUBLE"),
            Tool::CpuBackend => None,
            Tool::Objdump => Some("GPUJIT_REQUIRE_OBJDUMP"),
        }
    }

    fn required(self) -> bool {
        self.require_var()
            .is_some_and(|var| std::env::var(var).as_deref() == Ok("1"))
    }
}

/// One test of a binary that runs under [`run_tests`].
pub struct Case {
    /// The test's name, as `cargo test NAME` filters it.
    pub name: &'static str,
    /// The tool it needs, if any.
    pub needs: Option<Tool>,
    /// The test; it fails by panicking, as a `#[test]` does.
    pub run: Box<dyn FnOnce() + Send>,
}

/// The `main` of a test binary with `harness = false`: runs `cases` as
/// `cargo test` runs `#[test]`s (same arguments, same summary line), but a
/// case whose tool is missing is reported as **ignored** in that summary,
/// with one line saying what to install. With `GPUJIT_REQUIRE_NVRTC=1` or
/// `GPUJIT_REQUIRE_CXX=1` (as `.ci/run` sets) such a case fails instead.
///
/// `sources` are the binary's own files (`include_str!` of each): a
/// `#[test]` left in one would silently never run, so it is refused.
pub fn run_tests(sources: &[&str], cases: Vec<Case>) -> std::process::ExitCode {
    let stray: Vec<&str> = sources
        .iter()
        .flat_map(|s| s.lines())
        .filter(|l| l.trim() == "#[test]")
        .collect();
    assert!(
        stray.is_empty(),
        "this test binary has `harness = false`: list its tests in `main` as `Case`s instead of `#[test]` ({} found)",
        stray.len()
    );
    let args = libtest_mimic::Arguments::from_args();
    // Each tool is probed once; the count is of the cases it leaves ignored.
    let mut missing: Vec<(Tool, String, usize)> = Vec::new();
    let mut trials = Vec::new();
    for case in cases {
        let problem = case.needs.and_then(|tool| {
            if !missing.iter().any(|(t, _, _)| *t == tool) {
                match tool.probe() {
                    Ok(()) => return None,
                    Err(why) => missing.push((tool, why, 0)),
                }
            }
            let entry = missing.iter_mut().find(|(t, _, _)| *t == tool)?;
            entry.2 += 1;
            Some((tool, entry.1.clone()))
        });
        let run = case.run;
        let trial = match problem {
            Some((tool, why)) if tool.required() => libtest_mimic::Trial::test(case.name, move || {
                Err(format!("{why} ({}=1 requires it)", tool.require_var().unwrap_or_default()).into())
            }),
            Some(_) => libtest_mimic::Trial::test(case.name, || Ok(())).with_ignored_flag(true),
            None => libtest_mimic::Trial::test(case.name, move || {
                run();
                Ok(())
            }),
        };
        trials.push(trial);
    }
    for (tool, why, count) in &missing {
        if !tool.required() {
            println!("note: {why}; the {count} test(s) of this binary that need it are ignored");
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// `cases` with their names prefixed by `module::`, as the test binaries that
/// fold several files into one name them (`cargo test barriers::` runs one
/// file's tests).
pub fn group(module: &str, cases: Vec<Case>) -> Vec<Case> {
    cases
        .into_iter()
        .map(|c| Case {
            name: Box::leak(format!("{module}::{}", c.name).into_boxed_str()),
            ..c
        })
        .collect()
}

/// What a test function returns: `()` or a `Result` whose `Err` fails it.
pub trait Outcome {
    /// Panics (fails the test) on an error.
    fn check(self);
}

impl Outcome for () {
    fn check(self) {}
}

impl<E: std::fmt::Debug> Outcome for Result<(), E> {
    fn check(self) {
        if let Err(e) = self {
            panic!("the test returned Err({e:?})");
        }
    }
}

/// `cases![None => test_a, Some(Tool::Nvrtc) => test_b]`: the [`Case`]s of
/// test functions named by their identifiers.
#[allow(unused_macros)]
macro_rules! cases {
    ($($needs:expr => $test:ident),* $(,)?) => {
        vec![$($crate::common::Case {
            name: stringify!($test),
            needs: $needs,
            run: Box::new(|| $crate::common::Outcome::check($test())),
        }),*]
    };
}

/// The built CUDA driver double and the real NVRTC it forwards to: what a
/// child process needs in its environment to use the double as `libcuda.so`.
pub struct DriverDouble {
    dir: std::path::PathBuf,
    real_nvrtc: std::path::PathBuf,
}

impl DriverDouble {
    /// Finds `libgpujit_driver_double.so` next to this test binary (or one
    /// folder up) and makes a folder of `libcuda.so`/`libcuda.so.1`/
    /// `libnvrtc.so` links to it, with the real NVRTC's builtins beside them.
    pub fn find() -> Result<DriverDouble, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let deps = exe.parent().ok_or("no folder")?;
        let so = [deps, deps.parent().unwrap_or(deps)]
            .iter()
            .map(|d| d.join("libgpujit_driver_double.so"))
            .find(|p| p.is_file())
            .ok_or("the driver double is not built: run `cargo build --release -p gpujit-driver-double`")?;
        let real_nvrtc = match std::env::var_os("GPUJIT_DOUBLE_REAL_NVRTC") {
            Some(p) => std::path::PathBuf::from(p),
            None => nvrtc::library_path().map_err(|e| e.to_string())?,
        };
        let real_nvrtc = std::fs::canonicalize(&real_nvrtc).unwrap_or(real_nvrtc);
        let dir = so.with_file_name(format!("cuda-double-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for name in ["libcuda.so", "libcuda.so.1", "libnvrtc.so"] {
            std::os::unix::fs::symlink(&so, dir.join(name)).map_err(|e| e.to_string())?;
        }
        if let Some(folder) = real_nvrtc.parent() {
            for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
                if entry.file_name().to_string_lossy().starts_with("libnvrtc-builtins") {
                    let _ = std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name()));
                }
            }
        }
        Ok(DriverDouble { dir, real_nvrtc })
    }

    /// Points `cmd` at the double, with none of its fault switches set.
    pub fn configure(&self, cmd: &mut std::process::Command) {
        cmd.env("LD_LIBRARY_PATH", &self.dir)
            .env("GPUJIT_NVRTC_PATH", self.dir.join("libnvrtc.so"))
            .env("GPUJIT_DOUBLE_REAL_NVRTC", &self.real_nvrtc)
            .env_remove("GPUJIT_DOUBLE_FAIL")
            .env_remove("GPUJIT_DOUBLE_DEFER")
            .env_remove("GPUJIT_DOUBLE_DEVICES")
            .env_remove("GPUJIT_LOW_OCCUPANCY_WARNINGS");
    }
}

/// Deterministic `f32` inputs of a matmul: `a` is (n, k), `b` is (k, m).
pub fn matmul_inputs(n: usize, k: usize, m: usize) -> (Array2<f32>, Array2<f32>) {
    let a = Array2::from_shape_fn((n, k), |(i, j)| ((i * 7 + j * 3) % 11) as f32 * 0.37 - 1.5);
    let b = Array2::from_shape_fn((k, m), |(i, j)| ((i * 5 + j) % 13) as f32 * 0.21 - 0.8);
    (a, b)
}

/// Entries with many significant bits, so that any change of the order of
/// the additions shows.
pub fn matrix(rows: usize, cols: usize, seed: u32) -> Array2<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    Array2::from_shape_simple_fn((rows, cols), || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (s >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    })
}

/// `a · b` on the host in `f32`, summing in the kernels' order, element
/// `(r, c)` over the first `k_of(r, c)` terms only.
pub fn host_matmul(a: &Array2<f32>, b: &Array2<f32>, k_of: impl Fn(usize, usize) -> usize) -> Array2<f32> {
    let (n, m) = (a.shape()[0], b.shape()[1]);
    Array2::from_shape_fn((n, m), |(r, c)| {
        let mut acc = 0.0f32;
        for i in 0..k_of(r, c) {
            acc += a[[r, i]] * b[[i, c]];
        }
        acc
    })
}

/// Whether this run forces the reference path (`GPUJIT_CPU_EXEC=coroutines`,
/// as `.ci/run`'s second CPU pass does): no kernel is split, no loop runs in
/// lockstep and no span is taken, so the path counters read 0 (the results
/// are checked all the same).
pub fn coroutines_forced() -> bool {
    std::env::var("GPUJIT_CPU_EXEC").as_deref() == Ok("coroutines")
}

/// How many blocks (or thread loops) a path counter must show when `n` would
/// take the fast path by default: `n`, or 0 where [`coroutines_forced`].
pub fn expected(n: usize) -> usize {
    if coroutines_forced() {
        0
    } else {
        n
    }
}

/// `(block, thread, faults, message)` of a `KernelFault` from `kernel`, or a
/// panic naming what came back.
pub fn fault_of(r: gpujit::Result<()>, kernel: &str) -> ([u32; 3], [u32; 3], usize, String) {
    match r {
        Err(gpujit::Error::KernelFault {
            kernel: k,
            block,
            thread,
            message,
            faults,
        }) => {
            assert_eq!(k, kernel);
            (block, thread, faults, message)
        }
        other => panic!("expected Err(KernelFault) from `{kernel}`, got {other:?}"),
    }
}

/// A logger that keeps every message (for the occupancy warning): install
/// it with [`KeepLog::install`], once per process.
pub struct KeepLog(std::sync::Mutex<Vec<String>>);

impl KeepLog {
    /// Installs a new `KeepLog` as the `log` crate's logger at level `Warn`.
    pub fn install() -> &'static KeepLog {
        let keep: &'static KeepLog = Box::leak(Box::new(KeepLog(std::sync::Mutex::new(Vec::new()))));
        log::set_logger(keep).unwrap();
        log::set_max_level(log::LevelFilter::Warn);
        keep
    }

    /// The messages logged so far.
    pub fn messages(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.0.lock().unwrap()
    }
}

impl log::Log for KeepLog {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        self.0.lock().unwrap().push(r.args().to_string());
    }
    fn flush(&self) {}
}

/// The path counters of the last CPU launch on this OS thread
/// (`gpujit::__private::last_launch_*`): how many of its blocks (or thread
/// loops) took each fast path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paths {
    /// Blocks that ran their threads as coroutines.
    pub coroutine_blocks: usize,
    /// Blocks that ran a loop in lockstep across their threads.
    pub lockstep_blocks: usize,
    /// Blocks that ran merged with their neighbours.
    pub merged_blocks: usize,
    /// Blocks that ran a narrowed thread loop.
    pub narrowed_blocks: usize,
    /// Narrowed thread loops, over all blocks.
    pub narrowed_loops: usize,
    /// Blocks that ran on spans.
    pub span_blocks: usize,
    /// Thread loops that ran on spans.
    pub span_loops: usize,
}

impl Paths {
    /// The counters of the last CPU launch on this thread.
    pub fn last() -> Paths {
        use gpujit::__private as p;
        Paths {
            coroutine_blocks: p::last_launch_coroutine_blocks(),
            lockstep_blocks: p::last_launch_lockstep_blocks(),
            merged_blocks: p::last_launch_merged_blocks(),
            narrowed_blocks: p::last_launch_narrowed_blocks(),
            narrowed_loops: p::last_launch_narrowed_loops(),
            span_blocks: p::last_launch_span_blocks(),
            span_loops: p::last_launch_span_loops(),
        }
    }
}

/// What [`on_both_paths`] checks of the default path's counters ([`Paths`]);
/// a count is compared with [`expected`] of it (0 where the reference path
/// is forced for the whole process).
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// Thread loops on spans.
    pub span_loops: Option<usize>,
    /// Blocks on spans.
    pub span_blocks: Option<usize>,
    /// Blocks merged.
    pub merged_blocks: Option<usize>,
    /// Blocks that ran a narrowed loop; also: no block ran coroutines.
    pub narrowed_blocks: Option<usize>,
    /// Some block ran a loop in lockstep.
    pub lockstep: bool,
    /// No block ran coroutines (the kernel is split), and on the reference
    /// path some did.
    pub split: bool,
    /// Named in the messages.
    pub what: String,
}

impl Expect {
    /// Nothing of the default path (the caller reads its [`Paths`]).
    pub fn none() -> Expect {
        Expect::default()
    }
    /// `n` thread loops ran on spans.
    pub fn span_loops(n: usize) -> Expect {
        Expect {
            span_loops: Some(n),
            ..Expect::default()
        }
    }
    /// `n` blocks ran on spans.
    pub fn spans(n: usize) -> Expect {
        Expect {
            span_blocks: Some(n),
            ..Expect::default()
        }
    }
    /// `merged` blocks ran merged and `spans` on spans.
    pub fn merged(merged: usize, spans: usize) -> Expect {
        Expect {
            merged_blocks: Some(merged),
            span_blocks: Some(spans),
            ..Expect::default()
        }
    }
    /// The kernel is split and each of its `blocks` blocks ran a narrowed loop.
    pub fn narrowed(blocks: usize) -> Expect {
        Expect {
            narrowed_blocks: Some(blocks),
            split: true,
            ..Expect::default()
        }
    }
    /// The kernel is split into thread loops (no coroutines).
    pub fn split() -> Expect {
        Expect {
            split: true,
            ..Expect::default()
        }
    }
    /// A loop ran in lockstep.
    pub fn lockstep() -> Expect {
        Expect {
            lockstep: true,
            ..Expect::default()
        }
    }
    /// The same, with `what` in every message.
    pub fn named(self, what: &str) -> Expect {
        Expect {
            what: what.to_string(),
            ..self
        }
    }
}

/// The promise of the CPU backend's fast paths: runs `f` (one launch) on the
/// default path, checks its counters against `expect`, then again on the
/// reference path (`with_forced_coroutines`), which must take no fast path
/// (no lockstep, merged, narrowed or span block, no span loop), and with
/// spans, merged rows and (for a split kernel) the split kept off in turn,
/// which must take none of that strategy. Returns
/// both results, for the caller to compare with each other and with the
/// host, and the default path's counters.
pub fn on_both_paths<T>(expect: Expect, f: impl Fn() -> T) -> (T, Paths, T) {
    let what = if expect.what.is_empty() {
        String::new()
    } else {
        format!("{}: ", expect.what)
    };
    let fast = f();
    let paths = Paths::last();
    if let Some(n) = expect.span_loops {
        assert_eq!(paths.span_loops, expected(n), "{what}thread loops that ran on spans");
    }
    if let Some(n) = expect.span_blocks {
        assert_eq!(paths.span_blocks, expected(n), "{what}blocks that ran on spans");
    }
    if let Some(n) = expect.merged_blocks {
        assert_eq!(paths.merged_blocks, expected(n), "{what}blocks that ran merged");
    }
    if let Some(n) = expect.narrowed_blocks {
        assert_eq!(
            paths.narrowed_blocks,
            expected(n),
            "{what}not every block ran a narrowed loop"
        );
    }
    if expect.split && !coroutines_forced() {
        assert_eq!(paths.coroutine_blocks, 0, "{what}the split path ran coroutines");
    }
    if expect.lockstep {
        assert!(
            paths.lockstep_blocks > 0 || coroutines_forced(),
            "{what}the loop did not run in lockstep"
        );
    }
    let reference = gpujit::__private::with_forced_coroutines(&f);
    let r = Paths::last();
    assert_eq!(r.lockstep_blocks, 0, "{what}the reference path ran in lockstep");
    assert_eq!(r.merged_blocks, 0, "{what}the reference path merged blocks");
    assert_eq!(r.narrowed_blocks, 0, "{what}the reference path ran a narrowed loop");
    assert_eq!(r.span_blocks, 0, "{what}the reference path ran on spans");
    assert_eq!(r.span_loops, 0, "{what}the reference path ran on spans");
    if expect.split {
        assert!(r.coroutine_blocks > 0, "{what}the reference path ran no coroutines");
    }
    // Each strategy kept off in turn takes none of it (the fuzzer compares
    // those runs' results with the reference path's, `fuzz/tests/fuzz.rs`).
    use gpujit::__private::{with_cpu_strategies_off, Strategies as S};
    let _ = with_cpu_strategies_off(S::SPANS, &f);
    let p = Paths::last();
    assert_eq!(
        p.span_blocks + p.span_loops,
        0,
        "{what}with spans off, the launch ran on spans"
    );
    let _ = with_cpu_strategies_off(S::MERGE, &f);
    assert_eq!(
        Paths::last().merged_blocks,
        0,
        "{what}with merged rows off, the launch merged blocks"
    );
    if expect.split {
        let _ = with_cpu_strategies_off(S::SPLIT, &f);
        assert!(
            Paths::last().coroutine_blocks > 0,
            "{what}with the split off, no coroutines ran"
        );
    }
    (fast, paths, reference)
}
