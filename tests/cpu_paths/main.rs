//! Every fast path of the CPU backend gives the reference path's answers and
//! is taken where it is claimed: each file of this folder runs kernels once
//! by default and once on the reference path (coroutines, see
//! `common::on_both_paths`), checks both against the host, and reads the path
//! counters (`gpujit::__private::last_launch_*`).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
// Loaded once for every file that uses them.
#[path = "../../examples/histogram.rs"]
#[allow(dead_code)]
mod histogram;
#[path = "../../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;
#[path = "../common/reduction.rs"]
mod reduction;

mod barriers;
mod checked;
mod inline;
mod interchange;
mod interchange_split;
mod merged;
mod narrowed;
mod owned;
mod rounds;
mod spellings;
mod split_spans;
mod tile_spans;
mod warps;

fn main() -> std::process::ExitCode {
    let cases = [
        common::group("barriers", barriers::cases()),
        common::group("checked", checked::cases()),
        common::group("inline", inline::cases()),
        common::group("interchange", interchange::cases()),
        common::group("interchange_split", interchange_split::cases()),
        common::group("merged", merged::cases()),
        common::group("narrowed", narrowed::cases()),
        common::group("owned", owned::cases()),
        common::group("rounds", rounds::cases()),
        common::group("spellings", spellings::cases()),
        common::group("split_spans", split_spans::cases()),
        common::group("tile_spans", tile_spans::cases()),
        common::group("warps", warps::cases()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let sources = [
        include_str!("barriers.rs"),
        include_str!("checked.rs"),
        include_str!("inline.rs"),
        include_str!("interchange.rs"),
        include_str!("interchange_split.rs"),
        include_str!("merged.rs"),
        include_str!("narrowed.rs"),
        include_str!("owned.rs"),
        include_str!("rounds.rs"),
        include_str!("spellings.rs"),
        include_str!("split_spans.rs"),
        include_str!("tile_spans.rs"),
        include_str!("warps.rs"),
    ];
    common::run_tests(&sources, cases)
}
