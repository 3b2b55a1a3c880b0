//! Nothing but a home for the `fuzz` test binary (`tests/fuzz.rs`) and the
//! build script that generates its kernels; see `fuzz/README.md`.
