//! The documents and the tools around the library: README.md and the
//! reference page say what the code does, the examples print what they
//! claim, kernels launch from other crates, C's reserved names are escaped
//! (NVRTC), and the CPU backend's fast loops are vectorised (objdump).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod cross_crate;
mod example_output;
mod readme;
mod reference_page;
mod reserved_names;
mod vectorized;

fn main() -> std::process::ExitCode {
    let cases = [
        common::group("cross_crate", cross_crate::cases()),
        common::group("example_output", example_output::cases()),
        common::group("readme", readme::cases()),
        common::group("reference_page", reference_page::cases()),
        common::group("reserved_names", reserved_names::cases()),
        common::group("vectorized", vectorized::cases()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let sources = [
        include_str!("cross_crate.rs"),
        include_str!("example_output.rs"),
        include_str!("readme.rs"),
        include_str!("reference_page.rs"),
        include_str!("reserved_names.rs"),
        include_str!("vectorized.rs"),
    ];
    common::run_tests(&sources, cases)
}
