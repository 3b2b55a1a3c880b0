//! Differential test of the emitted CUDA C without a GPU: every kernel of the
//! examples and `tests/kernels/` is compiled by the host C++ compiler against
//! `driver-double/shim.h` (threads of a block as OS threads, `__syncthreads`
//! as a barrier, the CUDA intrinsics written out as the PTX ISA documents
//! them), run on chosen inputs, and its outputs are compared with the CPU
//! backend's, bit for bit (within a few ulps for transcendental math).
//!
//! This checks what NVRTC cannot: that the C computes what the Rust kernel
//! computes (wrapping, casts, loop bounds, index math, shadowing, barriers).
//! Without `g++` the tests are reported as ignored, unless
//! `GPUJIT_REQUIRE_CXX=1` (set by `.ci/run`) makes that a failure.

use std::path::PathBuf;
use std::sync::OnceLock;

use gpujit::__private::KernelDef;

#[path = "../kernels/deep.rs"]
#[rustfmt::skip] // generated, and too deep for rustfmt to finish
#[allow(dead_code)]
mod deep;
#[path = "../../examples/grayscale.rs"]
#[allow(dead_code)]
mod grayscale;
#[path = "../kernels/mod.rs"]
mod kernels;
#[path = "../../examples/loop_test.rs"]
#[allow(dead_code)]
mod loop_test;
#[path = "../../examples/lucas.rs"]
#[allow(dead_code)]
mod lucas;
#[path = "../../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;
#[path = "../../examples/saxpy.rs"]
#[allow(dead_code)]
mod saxpy;

use kernels::*;

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/host.rs"]
mod host;

mod adversarial;
mod arith;
mod atomics;
mod control;
mod cuda_kernels;
mod cxx;
mod harness;
mod int_methods;
mod math;
mod memory;
mod programs;
mod warps;

use adversarial::*;
use arith::*;
use atomics::*;
use control::*;
use cxx::*;
use harness::*;
use host::*;
use int_methods::*;
use math::*;
use memory::*;
use programs::*;
use warps::*;

fn main() -> std::process::ExitCode {
    // The reference side is the CPU backend, whatever the environment asks
    // for (CI's second pass sets GPUJIT_BACKEND=cuda for every binary): set
    // before any gpujit call, while this process has a single thread.
    std::env::set_var("GPUJIT_BACKEND", "cpu");
    let cxx = Some(common::Tool::Cxx);
    common::run_tests(
        &[
            include_str!("main.rs"),
            include_str!("harness.rs"),
            include_str!("cxx.rs"),
            include_str!("../common/host.rs"),
            include_str!("arith.rs"),
            include_str!("control.rs"),
            include_str!("memory.rs"),
            include_str!("programs.rs"),
            include_str!("adversarial.rs"),
            include_str!("math.rs"),
            include_str!("atomics.rs"),
            include_str!("int_methods.rs"),
            include_str!("cuda_kernels.rs"),
            include_str!("warps.rs"),
        ],
        cases![
            cxx => integer_semantics_agree,
            cxx => float_semantics_agree,
            cxx => control_flow_and_indices_agree,
            cxx => shared_memory_and_barriers_agree,
            cxx => match_rev_and_tuple_kernels_agree,
            cxx => seed_kernels_agree,
            cxx => naming_kernels_agree,
            cxx => deep_kernels_agree,
            cxx => adversarial_kernels_agree,
            cxx => powi_matches_rust_for_any_exponent,
            cxx => math_library_agrees,
            cxx => int_methods_agree,
            cxx => a_zero_step_traps_where_the_cpu_backend_faults,
            cxx => atomics_and_fences_agree,
            cxx => local_and_const_arrays_agree,
            cxx => small_types_and_tuple_locals_agree,
            cxx => side_effects_run_left_to_right_in_c,
            cxx => assignments_evaluate_the_value_before_the_index_in_c,
            cxx => lanes_agree,
            cxx => warp_intrinsics_agree,
            cxx => collectives_agree,
        ]
        .into_iter()
        .chain(common::group("cuda_kernels", cuda_kernels::cases()))
        .collect(),
    )
}
