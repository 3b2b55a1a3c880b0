//! Compile-fail tests of `#[gpu_kernel]`: every rejected construct must give one
//! spanned error with a `= help:` line. Re-bless with
//! `TRYBUILD=overwrite cargo test --test compile_fail`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
