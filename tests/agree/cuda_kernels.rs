//! The emitted CUDA C of every kernel in the examples and tests:
//! - compiles to PTX with NVRTC for the target (compute_90) and the oldest
//!   supported architecture, with no error and no warning;
//! - matches its snapshot in `tests/snapshots/` for the seed kernels
//!   (`GPUJIT_BLESS=1 cargo test -p gpujit-tests --test agree cuda_kernels::` rewrites them).
//!
//! Without NVRTC the compile test is reported as ignored, with one line saying
//! how to install it; with `GPUJIT_REQUIRE_NVRTC=1` (as `.ci/run` sets) it fails.

use std::path::PathBuf;

use gpujit::__private::KernelDef;

use crate::common;
use crate::kernels;

#[path = "../../examples/conv1d.rs"]
#[allow(dead_code)]
mod conv1d;
// The examples `agree` loads for its own tests come from the crate root.
use crate::{grayscale, loop_test, lucas, matmul, saxpy};

#[path = "../../examples/histogram.rs"]
#[allow(dead_code)]
mod histogram;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        Some(common::Tool::Nvrtc) => every_kernel_compiles_to_ptx_without_warnings,
        None => seed_kernels_match_their_snapshots,
    ]
}

/// The seed kernels, which have snapshots.
fn seed_kernels() -> Vec<&'static KernelDef> {
    vec![
        &loop_test::loop_kernel::KERNEL,
        &lucas::lucas::KERNEL,
        &grayscale::rgb_to_grayscale::KERNEL,
        &matmul::matmul_naive::KERNEL,
        &matmul::matmul_tiled::KERNEL,
    ]
}

/// Every kernel of the examples, the library crate and `tests/kernels/`
/// (kernels defined in other test files are checked there).
fn all_kernels() -> Vec<&'static KernelDef> {
    let mut all = seed_kernels();
    all.push(&saxpy::saxpy::KERNEL);
    all.push(&histogram::histogram_256::KERNEL);
    all.push(&conv1d::conv1d::KERNEL);
    all.push(&gpujit_examples::kernels::scale::KERNEL);
    all.extend(kernels::all());
    all
}

fn every_kernel_compiles_to_ptx_without_warnings() {
    common::assert_compiles_with_nvrtc("every_kernel_compiles_to_ptx_without_warnings", &all_kernels());
}

fn seed_kernels_match_their_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let bless = std::env::var("GPUJIT_BLESS").as_deref() == Ok("1");
    let mut stale = Vec::new();
    for k in seed_kernels() {
        let path = dir.join(format!("{}.cu", k.name));
        let source = (k.cuda_source)();
        if bless {
            std::fs::create_dir_all(&dir).expect("create tests/snapshots");
            std::fs::write(&path, source).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == source => {}
            Ok(expected) => stale.push(format!(
                "{}: emitted CUDA C differs\n--- snapshot\n{expected}\n--- emitted\n{source}",
                path.display()
            )),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nIf the change is intended, run `GPUJIT_BLESS=1 cargo test -p gpujit-tests --test agree cuda_kernels::` and review the diff.",
        stale.join("\n")
    );
}
