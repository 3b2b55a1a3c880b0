//! NVRTC smoke test: a hand-written CUDA C kernel compiles to PTX for the
//! target and the oldest architecture without warnings, and a syntax error
//! comes back as `Error::NvrtcCompile` with NVRTC's log.
//!
//! Without NVRTC the tests are reported as ignored, with one line saying how
//! to install it (`bash scripts/install-nvrtc.sh`, no GPU needed); with
//! `GPUJIT_REQUIRE_NVRTC=1` (as `.ci/run` sets) they fail instead.

use gpujit::nvrtc::{self, compile_ptx, library_path, supported_archs, version, OLDEST_ARCH, TARGET_ARCH};
use gpujit::Error;

use crate::common;
use common::Tool;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let nvrtc = Some(Tool::Nvrtc);
    cases![
        nvrtc => compiles_shared_memory_kernel_for_target_and_oldest_arch,
        nvrtc => syntax_error_is_nvrtc_compile_with_log,
        nvrtc => version_and_archs,
        nvrtc => compiles_saxpy_without_warnings,
        nvrtc => warnings_are_in_the_log,
        nvrtc => errors_are_reported,
        nvrtc => compiles_from_many_threads,
        None => a_missing_nvrtc_is_reported_as_ignored_or_required,
    ]
}

/// Block-wide sum with shared memory: one partial sum per block.
const BLOCK_SUM: &str = r#"
extern "C" __global__ void block_sum(const float* __restrict__ input, float* __restrict__ partial, int n) {
    __shared__ float cache[256];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    cache[tid] = (i < n) ? input[i] * 0.5f : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride) {
            cache[tid] += cache[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partial[blockIdx.x] = cache[0] + 1.0e-7f;
    }
}
"#;

fn compiles_shared_memory_kernel_for_target_and_oldest_arch() {
    for arch in [TARGET_ARCH, OLDEST_ARCH] {
        let start = std::time::Instant::now();
        let ptx = nvrtc::compile_ptx(BLOCK_SUM, "block_sum", arch).unwrap_or_else(|e| panic!("{arch}: {e}"));
        eprintln!("compiled block_sum for {arch} in {:?}", start.elapsed());
        assert!(
            ptx.text.contains(".entry block_sum"),
            "{arch}: no `.entry block_sum` in\n{}",
            ptx.text
        );
        let sm = arch.replace("compute_", "sm_");
        assert!(
            ptx.text.contains(&format!(".target {sm}")),
            "{arch}: no `.target {sm}` in\n{}",
            ptx.text
        );
        assert!(
            ptx.text.contains(".shared"),
            "{arch}: no shared memory in\n{}",
            ptx.text
        );
        assert!(ptx.text.contains("bar.sync"), "{arch}: no barrier in\n{}", ptx.text);
        assert!(!ptx.log.contains("warning"), "{arch}: NVRTC warned:\n{}", ptx.log);
    }
}

fn syntax_error_is_nvrtc_compile_with_log() {
    let broken = "extern \"C\" __global__ void broken(float* out) {\n    out[0] = 1.0f\n}\n";
    match nvrtc::compile_ptx(broken, "broken", TARGET_ARCH) {
        Err(Error::NvrtcCompile { kernel, log }) => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("error"), "log: {log}");
            assert!(log.contains("expected a \";\""), "log: {log}");
            assert!(
                log.contains("broken.cu(3): error"),
                "log does not name the file and line: {log}"
            );
            let message = Error::NvrtcCompile { kernel, log }.to_string();
            assert!(message.contains("`broken`"), "{message}");
        }
        other => panic!("expected Err(NvrtcCompile), got {other:?}"),
    }
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = a * x[i] + y[i]; }
}
"#;

fn version_and_archs() {
    let (major, minor) = version().unwrap();
    assert!(major >= 12, "NVRTC {major}.{minor} is too old");
    let archs = supported_archs().unwrap();
    assert!(archs.contains(&90), "{archs:?}");
    let oldest: i32 = OLDEST_ARCH.trim_start_matches("compute_").parse().unwrap();
    if (major, minor) == (13, 0) {
        assert_eq!(archs.first(), Some(&oldest), "{archs:?}");
    }
    assert!(library_path().unwrap().is_absolute());
}

fn compiles_saxpy_without_warnings() {
    let ptx = compile_ptx(SAXPY, "saxpy", TARGET_ARCH).unwrap();
    assert!(ptx.text.contains(".entry saxpy"), "{}", ptx.text);
    assert!(ptx.text.contains(".target sm_90"), "{}", ptx.text);
    assert!(!ptx.has_warnings(), "{}", ptx.log);
}

fn warnings_are_in_the_log() {
    let src = r#"extern "C" __global__ void w(float* o, double d) { int unused = 1; float f{d}; o[0] = f; }"#;
    let ptx = compile_ptx(src, "w", TARGET_ARCH).unwrap();
    assert!(ptx.has_warnings(), "{}", ptx.log);
    assert!(ptx.log.contains("#177-D"), "{}", ptx.log); // unused variable
    assert!(ptx.log.contains("#2361-D"), "{}", ptx.log); // narrowing
}

fn errors_are_reported() {
    match compile_ptx(
        "extern \"C\" __global__ void bad(float* o) { o[0] = 1.0f }",
        "bad",
        TARGET_ARCH,
    ) {
        Err(Error::NvrtcCompile { kernel, log }) => {
            assert_eq!(kernel, "bad");
            assert!(log.contains("bad.cu(1): error"), "{log}");
        }
        other => panic!("expected NvrtcCompile, got {other:?}"),
    }
    match compile_ptx(SAXPY, "saxpy", "compute_10") {
        Err(Error::NvrtcCompile { log, .. }) => {
            assert!(log.contains("gpu-architecture"), "{log}")
        }
        other => panic!("expected NvrtcCompile, got {other:?}"),
    }
    assert!(matches!(
        compile_ptx("a\0b", "nul", TARGET_ARCH),
        Err(Error::NvrtcCompile { .. })
    ));
}

fn compiles_from_many_threads() {
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let ptx = compile_ptx(SAXPY, "saxpy", OLDEST_ARCH).unwrap();
                assert!(ptx.text.contains(".entry saxpy"));
            });
        }
    });
}

/// This binary again, in a child process where NVRTC cannot be found
/// (`GPUJIT_NVRTC_PATH` names a missing file, and then nothing else is
/// searched): its NVRTC tests must show as ignored in the summary, after one
/// line naming the install script, and fail when `GPUJIT_REQUIRE_NVRTC=1`.
fn a_missing_nvrtc_is_reported_as_ignored_or_required() {
    let run = |require: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "nvrtc_smoke::version_and_archs"])
            .env("GPUJIT_NVRTC_PATH", "/nonexistent/gpujit-test/libnvrtc.so")
            .env("GPUJIT_REQUIRE_NVRTC", require)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (ok, text) = run("0");
    assert!(ok, "{text}");
    assert!(text.contains("0 passed; 0 failed; 1 ignored"), "{text}");
    // One note for NVRTC (the binary's other tools, such as the driver
    // double, have notes of their own).
    let note: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("note: NVRTC not found"))
        .collect();
    assert_eq!(note.len(), 1, "{text}");
    assert!(
        note[0].contains("test(s) of this binary that need it are ignored")
            && note[0].contains("bash scripts/install-nvrtc.sh"),
        "{text}"
    );
    let (ok, text) = run("1");
    assert!(!ok, "GPUJIT_REQUIRE_NVRTC=1 must fail without NVRTC:\n{text}");
    assert!(text.contains("0 passed; 1 failed"), "{text}");
    assert!(text.contains("GPUJIT_REQUIRE_NVRTC=1 requires it"), "{text}");
}
