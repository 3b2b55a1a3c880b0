//! Backends (where kernels run and arrays live) and how one is chosen.
//!
//! The backend is chosen once per process from the environment variable
//! `GPUJIT_BACKEND` (like Numba's `NUMBA_ENABLE_CUDASIM`):
//!
//! | value | backend |
//! |---|---|
//! | `auto` (default, also when unset or empty) | CUDA if it can run here, else the CPU |
//! | `cpu` | the CPU backend: every core, CUDA semantics |
//! | `cuda` | CUDA, or an error if it cannot run |
//!
//! `auto` selects CUDA when the driver loads and reports a device, else the
//! CPU (and says why); `cuda` makes [`current_backend`] fail, with the reason
//! and advice to use `GPUJIT_BACKEND=cpu`, when CUDA cannot run.

use std::fmt;
use std::sync::OnceLock;

use crate::cpu::CpuBackend;
use crate::cuda::{CudaBackend, Found};
use crate::error::{Error, Result};
use crate::kernel_def::{ArgPtr, KernelArg, KernelDef};
use crate::launch::LaunchConfig;
use crate::stream::Stream;

/// The kinds of backend (see [`detect`]).
///
/// ```
/// let kind = gpujit::detect().kind;
/// println!("kernels run on the {kind} backend"); // "CPU" or "CUDA"
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// Native Rust on all CPU cores (rayon), with CUDA's block/thread semantics.
    Cpu,
    /// An NVIDIA GPU through the CUDA driver and NVRTC.
    Cuda,
}

impl fmt::Display for BackendKind {
    /// `CPU` or `CUDA`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "CPU",
            BackendKind::Cuda => "CUDA",
        })
    }
}

/// Only gpujit's own backends and buffers implement [`Backend`] and
/// [`DeviceBuffer`]: the launch code trusts their pointers and sizes.
mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::cpu::CpuBackend {}
    impl Sealed for super::HostBuffer {}
    impl Sealed for crate::cuda::CudaBackend {}
    impl Sealed for crate::cuda::CudaBuffer {}
}

/// A place where kernels run and arrays live. Sealed; not a user API (generated
/// code reaches it through `gpujit::__private`).
pub trait Backend: Send + Sync + fmt::Debug + sealed::Sealed {
    /// Which kind of backend this is.
    fn kind(&self) -> BackendKind;

    /// A one-line description for logs, e.g. `"CPU (2 worker threads, rayon)"`.
    fn description(&self) -> String;

    /// Allocates `bytes` bytes of zero-filled memory on this backend, aligned to
    /// at least 16 bytes.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if the memory cannot be allocated; backend-specific
    /// errors ([`Error::Cuda`]) otherwise.
    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn DeviceBuffer>>;

    /// Runs `kernel` on the grid `cfg` with `args`, on `stream` or the
    /// current device's default stream; the CPU backend waits for it, CUDA
    /// queues it.
    ///
    /// # Errors
    /// [`Error::InvalidLaunchConfig`], [`Error::ArgumentMismatch`],
    /// [`Error::WrongBackend`] if an array lives on another backend,
    /// [`Error::WrongDevice`] if on another GPU, and
    /// [`Error::KernelFault`] if a thread faulted and [`Error::LaunchTimeout`] if
    /// the launch ran past its time limit (CPU backend).
    fn launch(
        &self,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        args: &mut [KernelArg<'_>],
        stream: Option<&Stream>,
    ) -> Result<()>;

    /// Waits for every launch issued so far (a no-op on the CPU).
    ///
    /// # Errors
    /// Errors of earlier asynchronous launches (CUDA).
    fn synchronize(&self) -> Result<()>;

    /// For downcasting to the concrete backend.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Memory owned by a backend: the storage of a [`DeviceArray`](crate::DeviceArray).
/// Sealed; each buffer is owned by exactly one `DeviceArray` (never shared or
/// cloned), which the CPU backend's soundness relies on.
pub trait DeviceBuffer: Send + Sync + fmt::Debug + sealed::Sealed {
    /// The backend that owns the memory.
    fn backend(&self) -> BackendKind;

    /// Size in bytes.
    fn byte_len(&self) -> usize;

    /// The pointer handed to kernels. Stable for the life of the buffer.
    fn arg_ptr(&self) -> ArgPtr;

    /// Copies `dst.len()` bytes starting at `byte_offset` into `dst`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if `byte_offset + dst.len()` overflows or exceeds
    /// [`byte_len`](DeviceBuffer::byte_len).
    fn read(&self, byte_offset: usize, dst: &mut [u8]) -> Result<()>;

    /// Copies `src` into the buffer starting at `byte_offset`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if `byte_offset + src.len()` overflows or exceeds
    /// [`byte_len`](DeviceBuffer::byte_len).
    fn write(&mut self, byte_offset: usize, src: &[u8]) -> Result<()>;

    /// For downcasting to the concrete buffer.
    fn as_any(&self) -> &dyn std::any::Any;

    /// For downcasting to the concrete buffer, writable.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// Checks that `[offset, offset + len)` lies in a buffer of `byte_len` bytes.
pub(crate) fn check_range(offset: usize, len: usize, byte_len: usize, what: &str) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= byte_len => Ok(()),
        _ => Err(Error::OutOfRange(format!(
            "{what} of {len} bytes at byte offset {offset} runs past the end of a {byte_len}-byte buffer; copy fewer elements or use a larger array"
        ))),
    }
}

/// Zero-filled host memory aligned to 16 bytes: the buffer of the CPU backend.
pub(crate) struct HostBuffer {
    /// Start of the allocation (dangling, but aligned, when `bytes == 0`).
    ptr: std::ptr::NonNull<u8>,
    bytes: usize,
}

// SAFETY: the buffer owns its allocation; all accesses go through the raw
// pointer with `&self`/`&mut self` discipline for host copies. Kernels access it
// through bounds-checked `View`s while the owning `DeviceArray` is borrowed.
unsafe impl Send for HostBuffer {}
// SAFETY: see `Send`; `&HostBuffer` only allows reads from the host.
unsafe impl Sync for HostBuffer {}

const HOST_ALIGN: usize = 16;

impl HostBuffer {
    /// Allocates `bytes` zeroed bytes, aligned to 16.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if the size is too large for the host or the
    /// allocation fails.
    pub fn new_zeroed(bytes: usize) -> Result<HostBuffer> {
        if bytes == 0 {
            return Ok(HostBuffer {
                ptr: std::ptr::NonNull::<u128>::dangling().cast(),
                bytes,
            });
        }
        let layout = std::alloc::Layout::from_size_align(bytes, HOST_ALIGN).map_err(|_| {
            Error::OutOfRange(format!(
                "{bytes} bytes is more memory than this host can address; use a smaller array"
            ))
        })?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        match std::ptr::NonNull::new(ptr) {
            Some(ptr) => Ok(HostBuffer { ptr, bytes }),
            None => Err(Error::OutOfRange(format!(
                "cannot allocate {bytes} bytes of host memory for an array (out of memory); use a smaller array"
            ))),
        }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if self.bytes > 0 {
            // SAFETY: allocated in `new_zeroed` with exactly this layout (which was valid then).
            unsafe {
                std::alloc::dealloc(
                    self.ptr.as_ptr(),
                    std::alloc::Layout::from_size_align_unchecked(self.bytes, HOST_ALIGN),
                );
            }
        }
    }
}

impl fmt::Debug for HostBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HostBuffer({} bytes at {:p})", self.bytes, self.ptr)
    }
}

impl DeviceBuffer for HostBuffer {
    fn backend(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn byte_len(&self) -> usize {
        self.bytes
    }

    fn arg_ptr(&self) -> ArgPtr {
        ArgPtr::Host(self.ptr.as_ptr())
    }

    fn read(&self, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        check_range(byte_offset, dst.len(), self.bytes, "a read")?;
        // SAFETY: the range lies in the allocation (checked above); `dst` is a
        // distinct Rust borrow, so the regions do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(byte_offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn write(&mut self, byte_offset: usize, src: &[u8]) -> Result<()> {
        check_range(byte_offset, src.len(), self.bytes, "a write")?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(byte_offset), src.len()) };
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The value of `GPUJIT_BACKEND`, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Requested {
    /// `auto`, empty or unset: CUDA when it can run, else the CPU.
    Auto,
    /// `cpu`.
    Cpu,
    /// `cuda`.
    Cuda,
}

impl Requested {
    /// Parses a `GPUJIT_BACKEND` value (`None` = unset). Case and surrounding
    /// whitespace are ignored; empty means `auto`.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] naming the accepted values.
    pub fn parse(value: Option<&str>) -> Result<Requested> {
        let Some(raw) = value else {
            return Ok(Requested::Auto);
        };
        match raw.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(Requested::Auto),
            "cpu" => Ok(Requested::Cpu),
            "cuda" => Ok(Requested::Cuda),
            _ => Err(Error::BackendUnavailable {
                requested: raw.to_string(),
                reason: format!("GPUJIT_BACKEND=`{raw}` is not one of `auto`, `cpu`, `cuda`"),
            }),
        }
    }

    /// `"auto"`, `"cpu"` or `"cuda"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Requested::Auto => "auto",
            Requested::Cpu => "cpu",
            Requested::Cuda => "cuda",
        }
    }
}

/// Which backend gpujit chose, what was asked for, and why: the result of
/// [`detect`]. Its `Display` is one line for logs.
///
/// ```
/// let d = gpujit::detect();
/// println!("kind {}, GPUJIT_BACKEND={}, because {}", d.kind, d.requested, d.reason);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The backend selected (for `GPUJIT_BACKEND=cuda` this is CUDA even when it
    /// cannot run; [`current_backend`] then fails).
    pub kind: BackendKind,
    /// The value of `GPUJIT_BACKEND`: `"auto"`, `"cpu"`, `"cuda"` (or the
    /// invalid value that was found).
    pub requested: String,
    /// Why this backend was selected, or why it cannot run.
    pub reason: String,
    outcome: Outcome,
}

/// What [`current_backend`] returns for a [`Detection`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Cpu,
    /// CUDA with this many devices.
    Cuda(usize),
    Unavailable,
}

static CPU_BACKEND: CpuBackend = CpuBackend;
static CUDA_BACKEND: OnceLock<CudaBackend> = OnceLock::new();

impl Detection {
    /// Detection for a `GPUJIT_BACKEND` value (`None` = unset); `probe_cuda`
    /// (what CUDA device was found, or why CUDA cannot run) is asked only
    /// when CUDA is a candidate.
    pub(crate) fn from_request(
        value: Option<&str>,
        probe_cuda: impl FnOnce() -> std::result::Result<Found, String>,
    ) -> Detection {
        let requested = match Requested::parse(value) {
            Ok(r) => r,
            Err(e) => {
                let reason = match e {
                    Error::BackendUnavailable { reason, .. } => reason,
                    other => other.to_string(),
                };
                return Detection {
                    kind: BackendKind::Cpu,
                    requested: value.unwrap_or_default().to_string(),
                    reason,
                    outcome: Outcome::Unavailable,
                };
            }
        };
        let (kind, reason, outcome) = match requested {
            Requested::Cpu => (
                BackendKind::Cpu,
                "requested with GPUJIT_BACKEND=cpu".to_string(),
                Outcome::Cpu,
            ),
            Requested::Auto | Requested::Cuda => match probe_cuda() {
                Ok(found) => (BackendKind::Cuda, found.describe(), Outcome::Cuda(found.devices)),
                Err(why) if requested == Requested::Auto => (BackendKind::Cpu, why, Outcome::Cpu),
                Err(why) => (BackendKind::Cuda, why, Outcome::Unavailable),
            },
        };
        Detection {
            kind,
            requested: requested.as_str().to_string(),
            reason,
            outcome,
        }
    }

    /// The backend this detection selects.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] with the reason and the advice to set
    /// `GPUJIT_BACKEND=cpu`, if the requested backend cannot run or the
    /// value of `GPUJIT_BACKEND` is invalid.
    pub(crate) fn backend(&self) -> Result<&'static dyn Backend> {
        match self.outcome {
            Outcome::Cpu => Ok(&CPU_BACKEND),
            Outcome::Cuda(devices) => Ok(CUDA_BACKEND.get_or_init(|| CudaBackend::new(devices))),
            Outcome::Unavailable => Err(Error::BackendUnavailable {
                requested: self.requested.clone(),
                reason: format!("{}; set GPUJIT_BACKEND=cpu to run kernels on the CPU", self.reason),
            }),
        }
    }
}

impl fmt::Display for Detection {
    /// E.g. `CPU backend (GPUJIT_BACKEND=auto: no CUDA driver (libcuda.so) was found)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Unavailable => {
                write!(
                    f,
                    "no usable backend (GPUJIT_BACKEND={}: {})",
                    self.requested, self.reason
                )
            }
            Outcome::Cpu | Outcome::Cuda(_) => write!(
                f,
                "{} backend (GPUJIT_BACKEND={}: {})",
                self.kind, self.requested, self.reason
            ),
        }
    }
}

/// Reads the environment variable `GPUJIT_BACKEND` and says which backend
/// gpujit would use and why (probing for the CUDA driver when CUDA is a
/// candidate), like checking Numba's `NUMBA_ENABLE_CUDASIM`:
///
/// | value | backend |
/// |---|---|
/// | `auto` (default, also when unset or empty) | CUDA if it can run here, else the CPU |
/// | `cpu` | the CPU backend: every core, CUDA semantics |
/// | `cuda` | CUDA, or an error if it cannot run |
///
/// CUDA can run when the driver (`libcuda.so`) loads, has every entry point
/// gpujit uses, initialises, and reports a device; the reason then names the
/// first GPU, its compute capability and the driver version. Otherwise
/// `auto` selects the CPU and the reason says why CUDA cannot run; with
/// `cuda`, allocations and launches fail with [`Error::BackendUnavailable`]
/// advising `GPUJIT_BACKEND=cpu`. Probing never panics.
///
/// Not cached: arrays and launches use the backend detected at their first
/// use in the process. Never fails; an invalid value is reported in the
/// returned [`Detection`] (and makes allocations fail).
///
/// ```
/// let d = gpujit::detect();
/// println!("{d}"); // e.g. "CPU backend (GPUJIT_BACKEND=auto: no CUDA driver (libcuda.so) was found)"
/// if d.kind == gpujit::BackendKind::Cpu {
///     assert!(!d.reason.is_empty());
/// }
/// ```
pub fn detect() -> Detection {
    let value = std::env::var("GPUJIT_BACKEND").map_err(|e| match e {
        std::env::VarError::NotPresent => None,
        std::env::VarError::NotUnicode(v) => Some(v.to_string_lossy().into_owned()),
    });
    match value {
        Ok(v) => Detection::from_request(Some(&v), crate::cuda::probe),
        Err(None) => Detection::from_request(None, crate::cuda::probe),
        Err(Some(v)) => Detection::from_request(Some(&v), crate::cuda::probe),
    }
}

static DETECTION: OnceLock<Detection> = OnceLock::new();

/// The detection [`current_backend`] uses: [`detect`], run once per process.
pub(crate) fn current_detection() -> &'static Detection {
    DETECTION.get_or_init(detect)
}

/// The backend that arrays are allocated on and kernels run on, chosen once per
/// process (see [`detect`]).
///
/// # Errors
/// [`Error::BackendUnavailable`] if `GPUJIT_BACKEND` is invalid, or asks for a
/// backend that cannot run here (the message says to set `GPUJIT_BACKEND=cpu`).
pub fn current_backend() -> Result<&'static dyn Backend> {
    current_detection().backend()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_backend_values() {
        assert_eq!(Requested::parse(None).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some("")).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some(" AUTO ")).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some("cpu")).unwrap(), Requested::Cpu);
        assert_eq!(Requested::parse(Some("Cuda")).unwrap(), Requested::Cuda);
        let err = Requested::parse(Some("gpu")).unwrap_err().to_string();
        assert!(err.contains("`auto`, `cpu`, `cuda`"), "{err}");
        assert!(err.contains("gpu"), "{err}");
    }

    fn h200() -> std::result::Result<Found, String> {
        Ok(Found {
            devices: 2,
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            driver_version: 13000,
        })
    }

    #[test]
    fn detection_outcomes() {
        let d = Detection::from_request(None, || Err("no CUDA driver (libcuda.so) was found".into()));
        assert_eq!((d.kind, d.requested.as_str()), (BackendKind::Cpu, "auto"));
        assert!(d.reason.contains("no CUDA driver"), "{d}");
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);

        let d = Detection::from_request(Some("auto"), h200);
        assert_eq!((d.kind, d.outcome), (BackendKind::Cuda, Outcome::Cuda(2)));
        assert!(
            d.reason
                .contains("NVIDIA H200 (compute capability 9.0), driver CUDA 13.0, 2 devices"),
            "{d}"
        );

        let d = Detection::from_request(Some("auto"), || Err("cuInit failed with CUDA_ERROR_UNKNOWN".into()));
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);
        assert!(d.to_string().contains("cuInit failed"), "{d}");

        let d = Detection::from_request(Some("cpu"), || panic!("must not probe for CUDA when cpu is requested"));
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);

        let d = Detection::from_request(Some("cuda"), || Err("the CUDA driver reports no device".into()));
        assert_eq!(d.kind, BackendKind::Cuda);
        let err = d.backend().unwrap_err();
        assert!(
            matches!(&err, Error::BackendUnavailable { requested, .. } if requested == "cuda"),
            "{err}"
        );
        assert!(err.to_string().contains("GPUJIT_BACKEND=cpu"), "{err}");
        assert!(err.to_string().contains("reports no device"), "{err}");

        let d = Detection::from_request(Some("tpu"), || Err(String::new()));
        let err = d.backend().unwrap_err().to_string();
        assert!(err.contains("`auto`, `cpu`, `cuda`"), "{err}");
    }

    #[test]
    fn host_buffer_bounds() {
        let mut b = HostBuffer::new_zeroed(10).unwrap();
        assert_eq!(b.byte_len(), 10);
        assert!(matches!(b.arg_ptr(), ArgPtr::Host(p) if p.cast::<u128>().is_aligned()));
        b.write(8, &[1, 2]).unwrap();
        let mut out = [9u8; 10];
        b.read(0, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
        assert!(matches!(b.write(9, &[1, 2]), Err(Error::OutOfRange(_))));
        assert!(matches!(b.read(11, &mut []), Err(Error::OutOfRange(_))));
        assert!(matches!(b.read(usize::MAX, &mut [0u8; 2]), Err(Error::OutOfRange(_))));
        assert!(matches!(b.write(usize::MAX, &[0u8; 1]), Err(Error::OutOfRange(_))));
        let empty = HostBuffer::new_zeroed(0).unwrap();
        empty.read(0, &mut []).unwrap();
        assert!(HostBuffer::new_zeroed(usize::MAX).is_err());
    }
}
