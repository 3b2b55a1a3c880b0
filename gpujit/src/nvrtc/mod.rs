//! NVRTC, the CUDA runtime compiler: find `libnvrtc`, load it once, and
//! compile CUDA C to PTX.
//!
//! gpujit calls the NVRTC C API itself through [`libloading`] rather than
//! through `cudarc::nvrtc`, because cudarc 0.19 can only `dlopen` NVRTC by
//! bare file name (`libnvrtc.so`, `libnvrtc.so.13`, ...), so it only finds a
//! library on the loader path, and it panics when there is none. Here the
//! library is opened by the absolute path that [`find_nvrtc`] found, so the
//! pip wheel `nvidia-cuda-nvrtc` works without `LD_LIBRARY_PATH`, and every
//! failure is an [`Error`].
//!
//! Loading, in [`load`]:
//! 1. `dlopen(<found path>, RTLD_NOW | RTLD_GLOBAL)`.
//! 2. `nvrtcVersion` gives `M.m`; then `libnvrtc-builtins.so.M.m` is opened by
//!    absolute path from the folder of the library (or of its symlink target).
//!    libnvrtc opens the builtins library itself by bare name only when it
//!    compiles, and the wheel's libnvrtc has no RUNPATH, so without this step
//!    every compile fails with `NVRTC_ERROR_BUILTIN_OPERATION_FAILURE`. Because
//!    the loader matches a bare-name `dlopen` against the SONAMEs of libraries
//!    already loaded, libnvrtc then finds the preloaded one. The same holds
//!    for cudarc: once [`load`] succeeded, `cudarc::nvrtc` finds this
//!    library under its SONAME (unless a different `libnvrtc.so` is on the
//!    loader path, which cudarc tries first).
//!
//! NVRTC 13.0 has no `-Wall`/`-Werror` option (both are rejected as
//! `NVRTC_ERROR_INVALID_OPTION`): warnings such as `#177-D: variable "x" was
//! declared but never referenced` or `#2361-D: invalid narrowing conversion`
//! are on by default and land in the program log, which [`compile_ptx`]
//! returns in [`Ptx::log`] (see [`Ptx::has_warnings`]). `-w` would silence
//! them; `--diag-error=<n>,...` would turn chosen ones into errors.
//!
//! ```no_run
//! use gpujit::prelude::*;
//!
//! #[gpu_kernel]
//! fn add_one(v: &mut [f32]) {
//!     let i = grid(1);
//!     if i < v.len() {
//!         v[i] += 1.0;
//!     }
//! }
//!
//! # fn main() -> gpujit::Result<()> {
//! println!("NVRTC {:?} at {}", gpujit::nvrtc::version()?, gpujit::nvrtc::library_path()?.display());
//! let ptx = gpujit::nvrtc::compile_ptx(add_one::cuda_source(), "add_one", gpujit::nvrtc::TARGET_ARCH)?;
//! assert!(ptx.text.contains(".entry add_one"));
//! # Ok(())
//! # }
//! ```

mod find;
mod sys;

use std::ffi::{c_char, c_int, CString};

pub use find::{find_nvrtc, ENV_NVRTC_DIR, ENV_NVRTC_PATH};
use sys::{api, Api, NvrtcResult, Program, NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, NVRTC_SUCCESS};
pub use sys::{library_path, load};

use crate::{Error, Result};

/// The virtual architecture gpujit compiles for by default: `compute_90`
/// (Hopper, e.g. H200). Pass it as the `arch` of [`compile_ptx`].
pub const TARGET_ARCH: &str = "compute_90";

/// The oldest virtual architecture NVRTC 13.0 accepts: `compute_75` (Turing).
/// `nvrtcGetSupportedArchs` of 13.0 reports
/// `[75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]`; `compute_70` is
/// rejected with "invalid value for --gpu-architecture".
pub const OLDEST_ARCH: &str = "compute_75";

/// PTX text produced by [`compile_ptx`], with NVRTC's program log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptx {
    /// The PTX assembly (`nvrtcGetPTX`), without the trailing NUL.
    pub text: String,
    /// The program log (`nvrtcGetProgramLog`) of the successful compile:
    /// warnings, or empty. Lines look like
    /// `kernel.cu(3): warning #177-D: variable "x" was declared but never referenced`.
    pub log: String,
}

impl Ptx {
    /// Whether NVRTC reported any warning (the log contains `warning`).
    pub fn has_warnings(&self) -> bool {
        self.log.contains("warning")
    }
}

/// The NVRTC version as `(major, minor)`, e.g. `(13, 0)`, from
/// `nvrtcVersion`. Loads NVRTC first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`].
pub fn version() -> Result<(i32, i32)> {
    api().map(|a| a.version)
}

/// The SM numbers NVRTC can compile for (`nvrtcGetNumSupportedArchs` +
/// `nvrtcGetSupportedArchs`), ascending, e.g. `[75, 80, 86, 87, 88, 89, 90,
/// 100, 103, 110, 120, 121]` for 13.0. Loads NVRTC first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`], or when either call fails.
pub fn supported_archs() -> Result<Vec<i32>> {
    let api = api()?;
    let fail = |what: &str, r| Error::NvrtcUnavailable {
        reason: format!("{what} failed: {}", api.error_string(r)),
        searched: vec![api.path.clone()],
    };
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer; then a buffer of exactly `n` ints.
    unsafe {
        let r = (api.get_num_supported_archs)(&mut n);
        if r != NVRTC_SUCCESS {
            return Err(fail("nvrtcGetNumSupportedArchs", r));
        }
        let mut archs = vec![0 as c_int; n.max(0) as usize];
        if !archs.is_empty() {
            let r = (api.get_supported_archs)(archs.as_mut_ptr());
            if r != NVRTC_SUCCESS {
                return Err(fail("nvrtcGetSupportedArchs", r));
            }
        }
        Ok(archs)
    }
}

/// Destroys the program when dropped.
struct ProgramGuard<'a> {
    api: &'a Api,
    prog: Program,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: `prog` came from a successful nvrtcCreateProgram.
        unsafe {
            (self.api.destroy_program)(&mut self.prog);
        }
    }
}

impl ProgramGuard<'_> {
    /// `nvrtcGetProgramLog`, without the trailing NUL.
    fn log(&self) -> String {
        self.read(self.api.get_program_log_size, self.api.get_program_log)
            .unwrap_or_default()
    }

    fn read(
        &self,
        size_fn: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
        get_fn: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    ) -> std::result::Result<String, NvrtcResult> {
        let mut size = 0usize;
        // SAFETY: the buffer is `size` bytes as NVRTC asked (it includes the NUL).
        unsafe {
            let r = size_fn(self.prog, &mut size);
            if r != NVRTC_SUCCESS {
                return Err(r);
            }
            let mut buf = vec![0u8; size.max(1)];
            let r = get_fn(self.prog, buf.as_mut_ptr().cast());
            if r != NVRTC_SUCCESS {
                return Err(r);
            }
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            buf.truncate(end);
            Ok(String::from_utf8_lossy(&buf).into_owned())
        }
    }
}

/// Compiles CUDA C++ `source` to PTX for the virtual architecture `arch`
/// (`"compute_90"`, see [`TARGET_ARCH`], [`OLDEST_ARCH`],
/// [`supported_archs`]). Mirrors `nvrtcCreateProgram` (program name
/// `<kernel_name>.cu`, no headers) + `nvrtcCompileProgram` with the options
/// `--gpu-architecture=<arch> -default-device --std=c++17` + `nvrtcGetPTX` +
/// `nvrtcGetProgramLog`. `kernel_name` names the program in messages only;
/// the source should declare its kernels `extern "C" __global__` so that
/// their PTX `.entry` names are unmangled. Warnings do not fail the compile:
/// they are in [`Ptx::log`] (NVRTC reports them without any flag).
/// Loads NVRTC first ([`load`]). Thread-safe.
///
/// # Errors
/// * [`Error::NvrtcUnavailable`] as for [`load`], or when NVRTC cannot use
///   its builtins library (`NVRTC_ERROR_BUILTIN_OPERATION_FAILURE`).
/// * [`Error::NvrtcCompile`] with NVRTC's log when the source does not
///   compile (`kernel.cu(1): error: expected a ";"`), when `arch` is invalid
///   or unsupported (`invalid value for --gpu-architecture`), when `source`
///   or `kernel_name` contains a NUL byte, or when another NVRTC call fails.
pub fn compile_ptx(source: &str, kernel_name: &str, arch: &str) -> Result<Ptx> {
    let api = api()?;
    let compile_err = |log: String| Error::NvrtcCompile {
        kernel: kernel_name.to_string(),
        log,
    };
    let c_source = CString::new(source).map_err(|_| compile_err("the CUDA source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{kernel_name}.cu"))
        .map_err(|_| compile_err("the kernel name contains a NUL byte".into()))?;
    let options = [
        format!("--gpu-architecture={arch}"),
        "-default-device".into(),
        "--std=c++17".into(),
    ];
    let c_options = options
        .iter()
        .map(|o| CString::new(o.as_str()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| compile_err(format!("the architecture {arch:?} contains a NUL byte")))?;
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();

    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: all strings are NUL-terminated and outlive the calls; no headers.
    let r = unsafe {
        (api.create_program)(
            &mut prog,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != NVRTC_SUCCESS {
        return Err(compile_err(format!(
            "nvrtcCreateProgram failed: {}",
            api.error_string(r)
        )));
    }
    let guard = ProgramGuard { api, prog };

    // SAFETY: `prog` is valid; `option_ptrs` holds `options.len()` C strings.
    let r = unsafe { (api.compile_program)(guard.prog, option_ptrs.len() as c_int, option_ptrs.as_ptr()) };
    let log = guard.log();
    if r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE {
        return Err(Error::NvrtcUnavailable {
            reason: format!("{} cannot use its builtins library: {}", api.path.display(), log.trim()),
            searched: vec![api.path.clone()],
        });
    }
    if r != NVRTC_SUCCESS {
        let log = if log.trim().is_empty() {
            api.error_string(r)
        } else {
            log
        };
        return Err(compile_err(log));
    }
    let text = guard
        .read(api.get_ptx_size, api.get_ptx)
        .map_err(|r| compile_err(format!("nvrtcGetPTX failed: {}\n{log}", api.error_string(r))))?;
    Ok(Ptx { text, log })
}
