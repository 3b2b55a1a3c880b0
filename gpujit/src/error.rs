//! The one error type of gpujit, [`Error`], and [`Result`]. Every fallible
//! function returns it; nothing in gpujit panics on bad input.
//!
//! ```
//! let err = gpujit::zeros::<f32>((usize::MAX, 2)).unwrap_err();
//! assert!(matches!(err, gpujit::Error::InvalidShape(_)));
//! println!("{err}"); // says what was wrong
//! ```

use std::path::PathBuf;

/// `Result<T, gpujit::Error>`.
///
/// ```
/// fn upload(v: &[f32]) -> gpujit::Result<gpujit::DeviceArray<f32>> {
///     gpujit::to_device(v)
/// }
/// assert_eq!(upload(&[1.0]).unwrap().len(), 1);
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every failure gpujit reports. Each message says what was wrong and what to do.
///
/// Launch configurations and arguments are checked on the host, the same way
/// on every backend:
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn scale(a: &[f32], out: &mut [f32]) {
///     let i = grid(1);
///     if i < out.len() {
///         out[i] = 2.0 * a[i];
///     }
/// }
///
/// let a = gpujit::to_device(&[1.0f32; 4]).unwrap();
/// let mut out = gpujit::zeros::<f32>(4).unwrap();
/// // 2048 threads per block break CUDA's limit of 1024: an error, not a panic.
/// let err = scale![1, 2048](&a, &mut out).unwrap_err();
/// assert!(matches!(err, Error::InvalidLaunchConfig(_)), "{err}");
/// println!("{err}"); // invalid launch configuration: ...
///
/// // Copying 4 elements into a buffer of 3.
/// scale![1, 4](&a, &mut out).unwrap();
/// let err = out.copy_to_host_into(&mut [0.0f32; 3]).unwrap_err();
/// assert!(matches!(err, Error::ShapeMismatch(_)), "{err}");
/// ```
///
/// What a kernel does wrong while it runs depends on the backend: on the CPU
/// backend an out-of-bounds index, an integer `/` or `%` by zero and
/// `step_by(0)` are [`Error::KernelFault`] naming the first faulting block and
/// thread. On CUDA an out-of-bounds access is undefined behaviour (at best an
/// illegal-address [`Error::DeviceFault`]), a division by zero gives an
/// unspecified value, and `step_by(0)` traps: a `DeviceFault` that is sticky
/// for the rest of the process.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A grid or block dimension breaks a CUDA limit (checked on every backend,
    /// exactly as `cuLaunchKernel` checks it).
    #[error("invalid launch configuration: {0}")]
    InvalidLaunchConfig(String),

    /// A launch argument does not fit the kernel's parameter (e.g. a 1-D array
    /// passed where the kernel takes `ArrayView2`).
    #[error("kernel `{kernel}`, parameter `{param}`: {message}")]
    ArgumentMismatch {
        /// The kernel's name.
        kernel: String,
        /// The parameter's name, or `(all)` for a wrong argument count.
        param: String,
        /// What does not fit.
        message: String,
    },

    /// Host data and device array shapes or lengths disagree.
    #[error("shape mismatch: {0}")]
    ShapeMismatch(String),

    /// A shape with no dimensions, more than 3, or whose size in bytes overflows `usize`.
    #[error("invalid shape: {0}")]
    InvalidShape(String),

    /// A host offset or size computation would overflow or run past an allocation.
    #[error("out of range: {0}")]
    OutOfRange(String),

    /// The requested backend cannot run here.
    #[error("backend `{requested}` is not available: {reason}")]
    BackendUnavailable {
        /// The value of `GPUJIT_BACKEND` (`auto`, `cpu`, `cuda`, or what was set).
        requested: String,
        /// Why it cannot run, with what to do.
        reason: String,
    },

    /// An array belongs to another backend than the one launching the kernel.
    #[error("array was allocated on the {array} backend but the kernel runs on the {launch} backend; allocate it with the current backend (gpujit::to_device)")]
    WrongBackend {
        /// The backend that owns the array.
        array: String,
        /// The backend that runs the kernel.
        launch: String,
    },

    /// A kernel thread did something invalid on the CPU backend (out-of-bounds
    /// access, integer division by zero, a `step_by(0)` loop, ...). The first
    /// fault (lowest block, then lowest thread) is reported with its block and
    /// thread coordinates; `faults` counts every faulting operation exactly.
    /// Faults never change what the other threads do.
    #[error("kernel `{kernel}` faulted in block ({}, {}, {}) thread ({}, {}, {}): {message}{}", block[0], block[1], block[2], thread[0], thread[1], thread[2], if *faults > 1 { format!(" ({} faults in all)", faults) } else { String::new() })]
    KernelFault {
        /// The kernel's name.
        kernel: String,
        /// `blockIdx` (x, y, z) of the first faulting thread.
        block: [u32; 3],
        /// `threadIdx` (x, y, z) of the first faulting thread.
        thread: [u32; 3],
        /// What the first faulting thread did.
        message: String,
        /// Faulting operations in the whole launch.
        faults: usize,
    },

    /// A launch on the CPU backend ran past its time limit
    /// ([`crate::with_cpu_time_limit`] or `GPUJIT_CPU_TIME_LIMIT_MS`) and was
    /// cancelled; what it wrote is unspecified.
    #[error("kernel `{kernel}` was still running after the CPU time limit of {limit_ms} ms and was cancelled; look for a loop that never ends (a `while` whose condition never changes, a `loop` without `break`), or raise the limit (gpujit::with_cpu_time_limit, GPUJIT_CPU_TIME_LIMIT_MS)")]
    LaunchTimeout {
        /// The kernel's name.
        kernel: String,
        /// The limit, in milliseconds.
        limit_ms: u64,
    },

    /// NVRTC (`libnvrtc.so`) could not be found or loaded.
    #[error("NVRTC is not available: {reason}. Install it with `bash scripts/install-nvrtc.sh` (in gpujit's repository), `pip install nvidia-cuda-nvrtc==13.0.88` or a CUDA toolkit, or set GPUJIT_NVRTC_PATH to the library; searched {}", fmt_paths(searched))]
    NvrtcUnavailable {
        /// Why it could not be used.
        reason: String,
        /// Every file or folder looked at.
        searched: Vec<PathBuf>,
    },

    /// NVRTC rejected the generated CUDA C (this is a gpujit bug: please report it with the log).
    #[error("NVRTC failed to compile kernel `{kernel}`:\n{log}")]
    NvrtcCompile {
        /// The kernel's name.
        kernel: String,
        /// NVRTC's program log.
        log: String,
    },

    /// A CUDA driver call failed. `name` and `code` are the driver's
    /// `CUresult` (e.g. `CUDA_ERROR_OUT_OF_MEMORY`, 2), so callers can match
    /// on them.
    #[error("CUDA driver call `{op}` failed with {name} ({code}): {advice}")]
    Cuda {
        /// What gpujit was doing (e.g. `cuMemAlloc`, `load module of kernel `saxpy``).
        op: String,
        /// The `CUresult` name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The numeric `CUresult`.
        code: u32,
        /// What the error means and what to do.
        advice: String,
    },

    /// A kernel faulted on the GPU (illegal address, trap, misaligned
    /// access, ...). CUDA reports such a fault at the next synchronizing call
    /// after the launch, so `kernel` is the kernel last launched on that
    /// device. The fault is sticky: the device's context cannot run anything
    /// more in this process (every later call returns this error again), as
    /// on every CUDA GPU; restart the process.
    #[error("kernel `{kernel}` faulted on the GPU with {name} ({code}); the CUDA context is now unusable in this process (sticky error): fix the kernel (on the CPU backend, GPUJIT_BACKEND=cpu, the same fault is reported with its block and thread) and restart")]
    DeviceFault {
        /// The kernel last launched on the device.
        kernel: String,
        /// The `CUresult` name, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
        /// The numeric `CUresult`.
        code: u32,
    },

    /// Arrays (or an array and a stream) of one launch or copy live on
    /// different GPUs.
    #[error("{what} is on GPU {found} but the operation runs on GPU {expected}; copy it to that GPU first (select_device, then to_device), or launch on its GPU")]
    WrongDevice {
        /// The argument that is elsewhere (e.g. `parameter `x``).
        what: String,
        /// The GPU the operation runs on.
        expected: usize,
        /// The GPU the argument lives on.
        found: usize,
    },
}

/// The first few of `paths`, then how many more (the full list stays in the
/// error's field: one line of advice beats a page of folders).
fn fmt_paths(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 4;
    if paths.is_empty() {
        return "nothing".into();
    }
    let mut text = paths
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more places", paths.len() - SHOWN));
    }
    text
}
