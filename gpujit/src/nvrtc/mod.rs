//! NVRTC, the CUDA runtime compiler: find `libnvrtc`, load it once, and
//! compile CUDA C to a CUBIN for a device's real architecture
//! ([`compile_cubin`], what a launch loads) or to PTX ([`compile_ptx`]),
//! through an on-disk [`Cache`]; and what ptxas says about a kernel
//! ([`Resources`]). No GPU is needed for any of it.
//!
//! Every `#[gpu_kernel]` module has `ptx()` / `ptx_for(arch)` (its PTX, as
//! Numba's `inspect_asm()`), `resources()` / `resources_for(arch)` (its
//! registers, spills, shared and local memory) and `nvrtc_source()` (the
//! CUDA C handed to NVRTC: `cuda_source()` plus `#line` directives, so that
//! an NVRTC message names the kernel's Rust file and line).
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
//! println!("{}", add_one::ptx()?); // the same, through the cache
//! let r = add_one::resources_for((8, 0))?; // sm_80 (A100)
//! println!("{} registers, {} shared bytes", r.registers, r.shared_bytes);
//! let cubin = gpujit::nvrtc::compile_cubin(add_one::nvrtc_source(), "add_one", (9, 0))?;
//! println!("{} bytes of sm_90 code, from the cache: {}", cubin.image.len(), cubin.from_cache);
//! # Ok(())
//! # }
//! ```

mod cache;
mod find;
mod inspect;
mod resources;
mod sys;

use std::ffi::{c_char, c_int, CString};

pub use cache::{Cache, ENV_CACHE, ENV_CACHE_DIR};
pub use find::{find_nvrtc, ENV_NVRTC_DIR, ENV_NVRTC_PATH};
pub use resources::Resources;
use sys::{api, Api, NvrtcResult, Program, NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, NVRTC_SUCCESS};
pub use sys::{library_path, load};

use crate::{Error, Result};

/// The virtual architecture gpujit compiles PTX for by default: `compute_90`
/// (Hopper, e.g. H200), [`compute_name`] of [`DEFAULT_ARCH`]. Pass it as the
/// `arch` of [`compile_ptx`] (nvcc's `-arch=compute_90`).
///
/// ```
/// use gpujit::nvrtc::{compute_name, DEFAULT_ARCH, TARGET_ARCH};
///
/// assert_eq!(TARGET_ARCH, compute_name(DEFAULT_ARCH));
/// ```
pub const TARGET_ARCH: &str = "compute_90";

/// The oldest virtual architecture NVRTC 13.0 accepts: `compute_75` (Turing).
/// `nvrtcGetSupportedArchs` of 13.0 reports
/// `[75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]`; `compute_70` is
/// rejected with "invalid value for --gpu-architecture". (NVRTC 12 goes down
/// to `compute_50`; [`supported_archs`] asks the loaded library.)
///
/// ```
/// use gpujit::nvrtc::{compute_name, OLDEST_ARCH};
///
/// // A V100 (compute capability 7.0) is older than what NVRTC 13 compiles for.
/// assert!(compute_name((7, 0)).as_str() < OLDEST_ARCH);
/// assert!(compute_name((8, 0)).as_str() > OLDEST_ARCH);
/// ```
pub const OLDEST_ARCH: &str = "compute_75";

/// The compute capability a kernel's `ptx()` and `resources()` use by
/// default: `(9, 0)`, Hopper (`sm_90`, e.g. H100, H200). A launch on the
/// CUDA backend compiles for the device's own capability instead.
///
/// ```
/// use gpujit::nvrtc::{sm_name, DEFAULT_ARCH};
///
/// assert_eq!(sm_name(DEFAULT_ARCH), "sm_90");
/// ```
pub const DEFAULT_ARCH: (u32, u32) = (9, 0);

/// PTX text produced by [`compile_ptx`] (or a kernel's `ptx()`), with
/// NVRTC's program log: what Numba's `kernel.inspect_asm()` returns, and what
/// `nvcc -ptx` writes. `Display` prints the text.
///
/// ```no_run
/// // no_run: needs NVRTC (`bash scripts/install-nvrtc.sh`); no GPU.
/// let source = r#"extern "C" __global__ void fill(float* v) { v[threadIdx.x] = 1.0f; }"#;
/// let ptx = gpujit::nvrtc::compile_ptx(source, "fill", "compute_90")?;
/// assert!(ptx.text.contains(".visible .entry fill"));
/// assert!(!ptx.has_warnings());
/// println!("{ptx}"); // the PTX assembly
/// # Ok::<(), gpujit::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptx {
    /// The PTX assembly (`nvrtcGetPTX`), without the trailing NUL.
    pub text: String,
    /// The program log (`nvrtcGetProgramLog`) of the successful compile:
    /// warnings, or empty. Lines look like
    /// `kernel.cu(3): warning #177-D: variable "x" was declared but never referenced`.
    pub log: String,
    /// Whether the text was read from the on-disk [`Cache`] rather than
    /// compiled now.
    pub from_cache: bool,
}

impl std::fmt::Display for Ptx {
    /// The PTX text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Ptx {
    /// Whether NVRTC reported any warning (the log contains `warning`).
    pub fn has_warnings(&self) -> bool {
        self.log.contains("warning")
    }
}

/// The NVRTC version as `(major, minor)`, e.g. `(13, 0)`, from
/// `nvrtcVersion` (the CUDA toolkit version it shipped with). Loads NVRTC
/// first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`].
///
/// ```
/// match gpujit::nvrtc::version() {
///     Ok((major, minor)) => assert!(major >= 12, "NVRTC {major}.{minor}"),
///     Err(e) => println!("no NVRTC: {e}"), // Error::NvrtcUnavailable, with every folder searched
/// }
/// ```
pub fn version() -> Result<(i32, i32)> {
    api().map(|a| a.version)
}

/// The SM numbers NVRTC can compile for (`nvrtcGetNumSupportedArchs` +
/// `nvrtcGetSupportedArchs`), ascending, e.g. `[75, 80, 86, 87, 88, 89, 90,
/// 100, 103, 110, 120, 121]` for 13.0. Loads NVRTC first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`], or when either call fails.
///
/// ```
/// match gpujit::nvrtc::supported_archs() {
///     // Can this NVRTC make code for an A100 (compute capability 8.0)?
///     Ok(archs) => println!("sm_80: {}", archs.contains(&80)),
///     Err(e) => println!("no NVRTC: {e}"),
/// }
/// ```
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

/// A CUBIN produced by [`compile_cubin`]: machine code for one real
/// architecture, ready for `cuModuleLoadData`, with NVRTC's program log
/// (what `nvcc -cubin -arch=sm_90 -Xptxas -v` makes). The CUDA backend
/// compiles and loads one per kernel and GPU architecture.
///
/// ```no_run
/// // no_run: needs NVRTC (`bash scripts/install-nvrtc.sh`); no GPU.
/// let source = r#"extern "C" __global__ void fill(float* v) { v[threadIdx.x] = 1.0f; }"#;
/// let cubin = gpujit::nvrtc::compile_cubin(source, "fill", (8, 6))?;
/// assert!(cubin.image.starts_with(b"\x7fELF"));
/// assert_eq!((cubin.arch, cubin.entry.as_str()), ((8, 6), "fill"));
/// println!("{} bytes, {} registers", cubin.image.len(), cubin.resources()?.registers);
/// # Ok::<(), gpujit::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The ELF image (`nvrtcGetCUBIN`), starting with `\x7fELF`.
    pub image: Vec<u8>,
    /// The program log: warnings, and ptxas's resource report
    /// (`ptxas info    : Used 32 registers, ...`, see [`Cubin::resources`]).
    pub log: String,
    /// The compute capability it was compiled for: `(9, 0)` is `sm_90`.
    pub arch: (u32, u32),
    /// The kernel it was compiled for (its `extern "C"` entry name).
    pub entry: String,
    /// Whether it was read from the on-disk [`Cache`] rather than compiled now.
    pub from_cache: bool,
}

impl Cubin {
    /// Whether NVRTC or ptxas reported any warning (the log contains `warning`).
    pub fn has_warnings(&self) -> bool {
        self.log.contains("warning")
    }

    /// The entry's registers, spills and shared, local and constant memory,
    /// as ptxas reported them in [`Cubin::log`].
    ///
    /// # Errors
    /// [`Error::NvrtcCompile`] when the log holds no report for the entry
    /// (a log that is not from [`compile_cubin`]).
    pub fn resources(&self) -> Result<Resources> {
        Resources::parse(&self.log, &self.entry).ok_or_else(|| Error::NvrtcCompile {
            kernel: self.entry.clone(),
            log: format!(
                "no ptxas resource report for `{}` in the log:\n{}",
                self.entry, self.log
            ),
        })
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
            .map(|bytes| text_before_nul(&bytes))
            .unwrap_or_default()
    }

    /// One of NVRTC's outputs, as many bytes as its `...Size` call says
    /// (text outputs include their NUL; a CUBIN is binary and may hold NULs).
    fn read(
        &self,
        size_fn: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
        get_fn: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    ) -> std::result::Result<Vec<u8>, NvrtcResult> {
        let mut size = 0usize;
        // SAFETY: `prog` is valid; the buffer is `size` bytes, as NVRTC asked.
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
            buf.truncate(size);
            Ok(buf)
        }
    }
}

/// The text up to the first NUL.
fn text_before_nul(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Which of NVRTC's outputs a compile returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// PTX text (`nvrtcGetPTX`), without the NUL.
    Ptx,
    /// The CUBIN (`nvrtcGetCUBIN`): needs a real `sm_XY` architecture.
    Cubin,
}

/// The options of every compile: `--gpu-architecture=<arch> -default-device
/// --std=c++17 --fmad=false`, for a CUBIN `--ptxas-options=-v` (ptxas then
/// writes its resource usage into the log, see [`Resources`]), and
/// `--no-cache` for NVRTC 12.9 and newer.
///
/// `--fmad=false`: a multiply and an add stay two roundings, as in Rust (which
/// never contracts), so a kernel gives the CPU backend's results bit for
/// bit (Numba leaves libNVVM's contraction on, `fastmath` or not);
/// `f32::mul_add` is the explicit FMA.
/// On an H200, NVRTC's default contraction changed 32 of 240,000 grayscale
/// pixels and the last bits of the seed loop kernel.
pub(crate) fn options(arch: &str, output: Output) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        "-default-device".into(),
        "--std=c++17".into(),
        "--fmad=false".into(),
    ];
    if output == Output::Cubin {
        options.push("--ptxas-options=-v".into());
    }
    // NVRTC 12.9 and newer keep a cache of their own; a hit there skips
    // ptxas, so the log has no resource report (seen on an H200 machine:
    // empty logs for whichever test compiled a kernel second). gpujit's
    // [`Cache`] already keeps compiles, logs included.
    if version().is_ok_and(|v| v >= (12, 9)) {
        options.push("--no-cache".into());
    }
    options
}

/// Stack for NVRTC's compile: its parser recurses once per `else if` arm
/// and `?:` of a chain, and a 1500-arm chain (which rustc accepts) overflows
/// a 2 MiB thread (rayon's, a test's). Only the pages touched are committed.
const NVRTC_STACK_BYTES: usize = 64 << 20;

/// Compiles `source` with `options` and returns the chosen output and the
/// program log, on a thread with [`NVRTC_STACK_BYTES`] of stack (on the
/// caller's own if no thread can be started). See [`compile_ptx`] for the
/// errors.
pub(crate) fn compile(
    source: &str,
    kernel_name: &str,
    options: &[String],
    output: Output,
) -> Result<(Vec<u8>, String)> {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("gpujit-nvrtc".into())
            .stack_size(NVRTC_STACK_BYTES)
            .spawn_scoped(s, || compile_here(source, kernel_name, options, output));
        match worker {
            Ok(w) => w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => compile_here(source, kernel_name, options, output),
        }
    })
}

fn compile_here(source: &str, kernel_name: &str, options: &[String], output: Output) -> Result<(Vec<u8>, String)> {
    let api = api()?;
    let compile_err = |log: String| Error::NvrtcCompile {
        kernel: kernel_name.to_string(),
        log,
    };
    let c_source = CString::new(source).map_err(|_| compile_err("the CUDA source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{kernel_name}.cu"))
        .map_err(|_| compile_err("the kernel name contains a NUL byte".into()))?;
    let c_options = options
        .iter()
        .map(|o| CString::new(o.as_str()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| compile_err(format!("an option contains a NUL byte: {options:?}")))?;
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
    let (name, size_fn, get_fn) = match output {
        Output::Ptx => ("nvrtcGetPTX", api.get_ptx_size, api.get_ptx),
        Output::Cubin => ("nvrtcGetCUBIN", api.get_cubin_size, api.get_cubin),
    };
    let mut bytes = guard
        .read(size_fn, get_fn)
        .map_err(|r| compile_err(format!("{name} failed: {}\n{log}", api.error_string(r))))?;
    if output == Output::Ptx {
        bytes = text_before_nul(&bytes).into_bytes();
    }
    Ok((bytes, log))
}

/// Compiles CUDA C++ `source` to PTX for the virtual architecture `arch`
/// (`"compute_90"`, see [`TARGET_ARCH`], [`OLDEST_ARCH`],
/// [`supported_archs`]), without the on-disk cache ([`Cache::compile_ptx`]
/// is the cached form). Mirrors `nvrtcCreateProgram` (program name
/// `<kernel_name>.cu`, no headers) + `nvrtcCompileProgram` with the options
/// `--gpu-architecture=<arch> -default-device --std=c++17 --fmad=false` (and
/// `--no-cache` for NVRTC 12.9 and newer) + `nvrtcGetPTX` +
/// `nvrtcGetProgramLog`. `kernel_name` names the program in messages only;
/// the source should declare its kernels `extern "C" __global__` so that
/// their PTX `.entry` names are unmangled. Warnings do not fail the compile:
/// they are in [`Ptx::log`] (NVRTC reports them without any flag).
/// Loads NVRTC first ([`load`]). Thread-safe.
///
/// ```no_run
/// // no_run: needs NVRTC (`bash scripts/install-nvrtc.sh`); no GPU.
/// let source = r#"extern "C" __global__ void k(float* v) { int unused = 0; v[0] = 1.0f; }"#;
/// let ptx = gpujit::nvrtc::compile_ptx(source, "k", gpujit::nvrtc::TARGET_ARCH)?;
/// assert!(ptx.text.contains(".target sm_90"));
/// assert!(ptx.has_warnings()); // #177-D: variable "unused" was declared but never referenced
/// let err = gpujit::nvrtc::compile_ptx("not C", "k", "compute_90").unwrap_err();
/// assert!(matches!(err, gpujit::Error::NvrtcCompile { .. }));
/// # Ok::<(), gpujit::Error>(())
/// ```
///
/// # Errors
/// * [`Error::NvrtcUnavailable`] as for [`load`], or when NVRTC cannot use
///   its builtins library (`NVRTC_ERROR_BUILTIN_OPERATION_FAILURE`).
/// * [`Error::NvrtcCompile`] with NVRTC's log when the source does not
///   compile (`kernel.cu(1): error: expected a ";"`), when `arch` is invalid
///   or unsupported (`invalid value for --gpu-architecture`), when `source`
///   or `kernel_name` contains a NUL byte, or when another NVRTC call fails.
pub fn compile_ptx(source: &str, kernel_name: &str, arch: &str) -> Result<Ptx> {
    let (text, log) = compile(source, kernel_name, &options(arch, Output::Ptx), Output::Ptx)?;
    Ok(Ptx {
        text: String::from_utf8_lossy(&text).into_owned(),
        log,
        from_cache: false,
    })
}

/// Compiles CUDA C++ `source` to a CUBIN, the machine code of the real
/// architecture `arch` (a compute capability: `(9, 0)` is `sm_90`, an H100 or
/// H200), through the on-disk cache ([`Cache::from_env`]: a repeated compile
/// of the same source, entry, architecture, NVRTC and options is read back
/// from disk; [`Cubin::from_cache`] says which). The options are
/// `--gpu-architecture=sm_XY -default-device --std=c++17 --fmad=false
/// --ptxas-options=-v` (and `--no-cache` for NVRTC 12.9 and newer); the log holds ptxas's resource report
/// ([`Cubin::resources`]). `entry` names the program and the kernel whose
/// resources are reported; declare it `extern "C" __global__`.
///
/// A CUBIN is what a launch should load: the driver runs it as is, while
/// PTX is compiled again by the driver, which refuses PTX from an NVRTC newer
/// than itself (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`). Which go together:
///
/// | NVRTC | architectures (`supported_archs`) | its CUBIN loads on drivers | its PTX loads on drivers |
/// |---|---|---|---|
/// | 13.x | `sm_75` ... `sm_121` | 13.x (R580 and newer), by CUDA's minor-version compatibility | the same 13.x minor or newer |
/// | 12.x | `sm_50` ... `sm_90` (12.0), ... `sm_120` (12.8) | 12.x and 13.x | the same 12.x minor or newer |
///
/// A CUBIN runs only on its own architecture's major version and the minors
/// above it (`sm_80` code runs on `sm_86`, not on `sm_90`): compile for the
/// device's own compute capability.
///
/// # Errors
/// As [`compile_ptx`]; an architecture NVRTC does not support (`(7, 0)` with
/// NVRTC 13) is [`Error::NvrtcCompile`] with `invalid value for
/// --gpu-architecture` in its log. A cache that cannot be read or written is
/// not an error: the compile then simply runs.
///
/// ```no_run
/// let source = r#"extern "C" __global__ void fill(float* v) { v[threadIdx.x] = 1.0f; }"#;
/// let cubin = gpujit::nvrtc::compile_cubin(source, "fill", (9, 0))?;
/// assert!(cubin.image.starts_with(b"\x7fELF"));
/// println!("{:?}, from the cache: {}", cubin.resources()?, cubin.from_cache);
/// # Ok::<(), gpujit::Error>(())
/// ```
pub fn compile_cubin(source: &str, entry: &str, arch: (u32, u32)) -> Result<Cubin> {
    Cache::from_env().compile_cubin(source, entry, arch)
}

/// `sm_XY` for the compute capability `(X, Y)`: `(9, 0)` is `sm_90`,
/// `(12, 1)` is `sm_121`. The name of a real architecture (nvcc's
/// `-arch=sm_XY`), as a CUBIN and ptxas use it.
///
/// ```
/// assert_eq!(gpujit::nvrtc::sm_name((8, 6)), "sm_86");
/// assert_eq!(gpujit::nvrtc::sm_name((12, 1)), "sm_121");
/// ```
pub fn sm_name(arch: (u32, u32)) -> String {
    format!("sm_{}{}", arch.0, arch.1)
}

/// `compute_XY` for the compute capability `(X, Y)`: the name of a virtual
/// architecture (nvcc's `-arch=compute_XY`), as PTX uses it; the `arch` of
/// [`compile_ptx`].
///
/// ```
/// assert_eq!(gpujit::nvrtc::compute_name((8, 0)), "compute_80");
/// ```
pub fn compute_name(arch: (u32, u32)) -> String {
    format!("compute_{}{}", arch.0, arch.1)
}
