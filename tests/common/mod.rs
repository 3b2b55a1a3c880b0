//! Shared by the integration tests: compiling kernels' CUDA C with NVRTC.
//! (Each test binary uses part of it.)
#![allow(dead_code)]

use gpujit::__private::KernelDef;
use gpujit::nvrtc::{self, OLDEST_ARCH, TARGET_ARCH};

/// `true` when NVRTC can be used. Otherwise prints a loud `SKIPPED` line and
/// returns `false`, or panics when `GPUJIT_REQUIRE_NVRTC=1` (as `.ci/run` sets).
pub fn nvrtc_or_skip(test: &str) -> bool {
    match nvrtc::load() {
        Ok(()) => true,
        Err(e) => {
            if std::env::var("GPUJIT_REQUIRE_NVRTC").as_deref() == Ok("1") {
                panic!("{test}: GPUJIT_REQUIRE_NVRTC=1 but NVRTC not found: {e}");
            }
            eprintln!("SKIPPED: NVRTC not found: {test}: {e}");
            false
        }
    }
}

/// Compiles every kernel's CUDA C to PTX for compute_90 and the oldest
/// supported architecture and panics on any error or warning.
///
/// Without NVRTC this prints `SKIPPED: ...` and returns, unless
/// `GPUJIT_REQUIRE_NVRTC=1` (set by `.ci/run`): then it panics.
pub fn assert_compiles_with_nvrtc(test: &str, kernels: &[&KernelDef]) {
    if !nvrtc_or_skip(test) {
        return;
    }
    let mut failures = Vec::new();
    for k in kernels {
        for arch in [TARGET_ARCH, OLDEST_ARCH] {
            match nvrtc::compile_ptx((k.cuda_source)(), k.entry, arch) {
                Ok(ptx) if ptx.has_warnings() => failures.push(format!("{} ({arch}): warnings:\n{}", k.name, ptx.log)),
                Ok(ptx) if !ptx.text.contains(&format!(".entry {}", k.entry)) => {
                    failures.push(format!("{} ({arch}): no `.entry {}` in the PTX", k.name, k.entry))
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{} ({arch}): {e}\n--- source\n{}", k.name, (k.cuda_source)())),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{test}: {} of {} kernels failed:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "{test}: {} kernels compiled for {TARGET_ARCH} and {OLDEST_ARCH}",
        kernels.len()
    );
}
