//! Compile-fail tests of `#[gpu_kernel]`: every rejected construct must give one
//! spanned error with a `= help:` line. Re-bless with
//! `TRYBUILD=overwrite cargo test -p gpujit-tests --test diagnostics`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}

/// Compile-fail tests of the runtime's soundness: what safe code must not be
/// able to do with the items generated code uses (`gpujit::__private`).
#[test]
fn soundness() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui_sound/*.rs");
}
