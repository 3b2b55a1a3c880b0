//! README.md stays true: its minimal `main.rs` is `examples/minimal.rs`
//! (which `cargo test` builds and `.ci/run` runs), and the ndarray version it
//! names is the one gpujit depends on.

const README: &str = include_str!("../README.md");

#[test]
fn readme_minimal_main_is_the_minimal_example() {
    let minimal = include_str!("../examples/minimal.rs");
    let block = format!("```rust\n{minimal}```");
    assert!(
        README.contains(&block),
        "README.md's `src/main.rs` block differs from examples/minimal.rs; copy the file into README.md"
    );
}

#[test]
fn readme_names_the_ndarray_version_gpujit_uses() {
    let manifest = include_str!("../gpujit/Cargo.toml");
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
