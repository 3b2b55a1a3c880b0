//! The host C++ side of this binary: every kernel's CUDA C compiled once
//! into one shared library (`tests/common/host.rs` builds and launches it).

use super::*;

pub(crate) fn all_kernels() -> Vec<&'static KernelDef> {
    let mut all: Vec<&'static KernelDef> = vec![
        &loop_test::loop_kernel::KERNEL,
        &lucas::lucas::KERNEL,
        &lucas::lucas_recursive::KERNEL,
        &grayscale::rgb_to_grayscale::KERNEL,
        &matmul::matmul_naive::KERNEL,
        &matmul::matmul_tiled::KERNEL,
        &saxpy::saxpy::KERNEL,
    ];
    all.extend(kernels::all());
    all.extend(deep::all());
    all
}

/// Compiles every kernel with its launcher into one shared library, once.
/// (Runs in a case that needs [`common::Tool::Cxx`]: a failure here is a bug.)
pub(crate) fn library() -> &'static libloading::Library {
    static LIB: OnceLock<Result<libloading::Library, String>> = OnceLock::new();
    let lib = LIB.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cuda_on_host");
        // The driver double owns the shim; this test compiles against the same file.
        let shim_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../driver-double");
        build_library(&all_kernels(), &dir, &shim_dir)
    });
    match lib {
        Ok(lib) => lib,
        Err(e) => panic!("the host C++ build of the emitted CUDA C failed: {e}"),
    }
}
