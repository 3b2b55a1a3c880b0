//! The runtime API: launch configurations, the CUDA backend on the driver
//! double, grids past `i32::MAX`, occupancy, NVRTC and its compile cache.
//! (The CPU time limit set by the environment is `tests/time_limit_env.rs`,
//! a binary of its own: it sets the process's environment.)

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../kernels/mod.rs"]
mod kernels;
// Loaded once for every file that uses it.
#[path = "../../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;

mod big_grid;
mod cuda_backend;
mod launch_config;
mod nvrtc_inspect;
mod nvrtc_smoke;
mod occupancy;

fn main() -> std::process::ExitCode {
    // Children that the tests of cuda_backend, occupancy and nvrtc_inspect
    // start (this binary again, with a variable naming the case).
    if let Some(code) = cuda_backend::child()
        .or_else(occupancy::child)
        .or_else(nvrtc_inspect::child)
    {
        return code;
    }
    // Before any thread exists (it sets the environment).
    let scratch = nvrtc_inspect::scratch_cache();
    let cases = [
        common::group("big_grid", big_grid::cases()),
        common::group("cuda_backend", cuda_backend::cases()),
        common::group("launch_config", launch_config::cases()),
        common::group("nvrtc_inspect", nvrtc_inspect::cases()),
        common::group("nvrtc_smoke", nvrtc_smoke::cases()),
        common::group("occupancy", occupancy::cases()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let sources = [
        include_str!("big_grid.rs"),
        include_str!("cuda_backend.rs"),
        include_str!("launch_config.rs"),
        include_str!("nvrtc_inspect.rs"),
        include_str!("nvrtc_smoke.rs"),
        include_str!("occupancy.rs"),
    ];
    let code = common::run_tests(&sources, cases);
    drop(scratch);
    code
}
