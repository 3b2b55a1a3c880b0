//! What the kernel language means, on the backend of the process (the CPU
//! backend, or CUDA under `GPUJIT_BACKEND=cuda`): each file of this folder
//! checks a part of it against independent host computations, and where the
//! point is the emitted C, on the text of `cuda_source()`.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../kernels/mod.rs"]
mod kernels;
// Loaded once for the files that use it.
#[path = "../../examples/lucas.rs"]
#[allow(dead_code)]
mod lucas;

mod arrays;
mod atomics;
mod collectives;
mod deep;
mod device_fns;
mod fixed_arrays;
mod int_methods;
mod math;
mod naming;
mod ndarray_reexport;
mod seeds;
mod semantics;
mod soundness;
mod warps;

fn main() -> std::process::ExitCode {
    let cases = [
        common::group("arrays", arrays::cases()),
        common::group("atomics", atomics::cases()),
        common::group("collectives", collectives::cases()),
        common::group("deep", deep::cases()),
        common::group("device_fns", device_fns::cases()),
        common::group("fixed_arrays", fixed_arrays::cases()),
        common::group("int_methods", int_methods::cases()),
        common::group("math", math::cases()),
        common::group("naming", naming::cases()),
        common::group("ndarray_reexport", ndarray_reexport::cases()),
        common::group("seeds", seeds::cases()),
        common::group("semantics", semantics::cases()),
        common::group("soundness", soundness::cases()),
        common::group("warps", warps::cases()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let sources = [
        include_str!("arrays.rs"),
        include_str!("atomics.rs"),
        include_str!("deep.rs"),
        include_str!("device_fns.rs"),
        include_str!("fixed_arrays.rs"),
        include_str!("int_methods.rs"),
        include_str!("math.rs"),
        include_str!("naming.rs"),
        include_str!("ndarray_reexport.rs"),
        include_str!("seeds.rs"),
        include_str!("semantics/casts.rs"),
        include_str!("semantics/control.rs"),
        include_str!("semantics/faults.rs"),
        include_str!("semantics/index.rs"),
        include_str!("semantics/ints.rs"),
        include_str!("semantics/launches.rs"),
        include_str!("semantics/math.rs"),
        include_str!("semantics/mod.rs"),
        include_str!("semantics/shared.rs"),
        include_str!("semantics/types.rs"),
        include_str!("soundness.rs"),
        include_str!("warps.rs"),
    ];
    common::run_tests(&sources, cases)
}
