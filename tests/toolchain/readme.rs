//! README.md stays true: its minimal `main.rs` is `examples/minimal.rs`
//! (which `cargo test` builds and `.ci/run` runs), the ndarray version it
//! names is the one gpujit depends on, its first two commands are the
//! newcomer's (the grayscale example of the root package, the workspace's
//! tests), the dependency it gives names the folder of the `gpujit` package,
//! and its status line names the newest H200 run that BENCHMARKS.md records.

use crate::common;

const README: &str = include_str!("../../README.md");
const BENCHMARKS: &str = include_str!("../../BENCHMARKS.md");

/// The repository's root (this package is its folder `tests/`).
fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of README.md's section `## {title}`, up to the next `## `.
fn section(title: &str) -> &'static str {
    let head = format!("\n## {title}\n");
    let start = README
        .find(&head)
        .unwrap_or_else(|| panic!("README.md has no `## {title}`"))
        + head.len();
    let rest = &README[start..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

fn readme_first_commands_are_the_newcomers() {
    let block = README
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("README.md opens with a ```sh block");
    let commands: Vec<&str> = block
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(
        commands.get(..2),
        Some(
            &[
                "cargo run --release --example grayscale",
                "cargo test --workspace --release"
            ][..]
        ),
        "README.md's first two commands changed:\n{block}"
    );
    // The example is the root package's (what `cargo run` at the root finds),
    // and the root is the workspace whose tests the second command runs.
    assert!(
        root().join("examples/grayscale.rs").is_file(),
        "no examples/grayscale.rs at the root"
    );
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("the root Cargo.toml");
    assert!(
        manifest.contains("[workspace]") && manifest.contains("[package]"),
        "{manifest}"
    );
    assert!(
        !manifest.contains("autoexamples = false"),
        "the root package must keep its examples"
    );
}

fn readme_dependency_names_the_folder_of_the_gpujit_package() {
    let text = section("Use it in your crate");
    let line = text
        .lines()
        .find(|l| l.starts_with("gpujit = { path = \""))
        .expect("a `gpujit = { path = \"...\" }` line");
    let path = line.split('"').nth(1).expect("a quoted path");
    let folder = path
        .strip_prefix("<your checkout>/")
        .unwrap_or_else(|| panic!("the path should read `<your checkout>/FOLDER`: {path}"));
    let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml"))
        .unwrap_or_else(|e| panic!("README.md's dependency names `{folder}/`, which holds no Cargo.toml: {e}"));
    assert!(
        manifest.lines().any(|l| l.trim() == "name = \"gpujit\""),
        "`{folder}/Cargo.toml` is not the package gpujit"
    );
    assert!(
        text.contains(&format!("\"../gpujit/{folder}\"")),
        "the worked example of the path should end in `{folder}`"
    );
    assert!(
        text.contains("git = \"<URL of this repository>\"") && text.contains("not published"),
        "README.md should give the git form, with no made-up URL, and say gpujit is not published"
    );
}

fn readme_status_names_the_newest_h200_run() {
    let status = README
        .split("\n\n")
        .find(|p| p.contains("**Status:**"))
        .expect("README.md has a **Status:** paragraph");
    assert!(!status.contains("not yet run on a real GPU"), "{status}");
    // Dates (YYYY-MM-DD) on BENCHMARKS.md's lines about the H200.
    let date = |l: &str| -> Vec<String> {
        l.as_bytes()
            .windows(10)
            .filter(|w| {
                w.iter().enumerate().all(|(i, c)| {
                    if i == 4 || i == 7 {
                        *c == b'-'
                    } else {
                        c.is_ascii_digit()
                    }
                })
            })
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect()
    };
    let newest = BENCHMARKS
        .lines()
        .filter(|l| l.contains("H200"))
        .flat_map(date)
        .max()
        .expect("BENCHMARKS.md records an H200 run with its date");
    assert!(
        status.contains(&format!("H200, {newest}")),
        "README.md's status should name the newest H200 run, `H200, {newest}`:\n{status}"
    );
}

fn readme_minimal_main_is_the_minimal_example() {
    let minimal = include_str!("../../examples/minimal.rs");
    let block = format!("```rust\n{minimal}```");
    assert!(
        README.contains(&block),
        "README.md's `src/main.rs` block differs from examples/minimal.rs; copy the file into README.md"
    );
}

fn readme_names_the_ndarray_version_gpujit_uses() {
    let manifest = include_str!("../../gpujit/Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("ndarray"))
        .expect("gpujit/Cargo.toml depends on ndarray");
    let version = line.split('"').nth(1).expect("ndarray = \"x.y\"");
    let wanted = format!("ndarray = \"{version}\"");
    assert!(
        README.contains(&wanted),
        "README.md should say `{wanted}` (the version in gpujit/Cargo.toml)"
    );
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => readme_minimal_main_is_the_minimal_example,
        None => readme_names_the_ndarray_version_gpujit_uses,
        None => readme_first_commands_are_the_newcomers,
        None => readme_dependency_names_the_folder_of_the_gpujit_package,
        None => readme_status_names_the_newest_h200_run,
    ]
}
