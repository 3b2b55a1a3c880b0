//! What a backend implements: the [`Backend`] trait and the objects a backend
//! hands out (streams, events, pinned buffers: [`handles`]), with
//! [`DeviceBuffer`] (in [`crate::buffer`]) the storage of arrays.
//!
//! Every operation the front files offer (arrays, streams, events, copies,
//! pinned memory, occupancy, GPU selection, launches) is a method here or on
//! one of those objects, so the front names no backend's own type and never
//! downcasts; a backend downcasts only its own objects (a CUDA stream hands
//! the CUDA buffer its `CudaStream`). The front checks that the objects of
//! one operation belong together (one backend, one GPU) before it calls
//! them, and a launch is checked once, by [`PreparedLaunch::prepare`], before
//! any backend sees it.

mod handles;
mod prepare;

use std::fmt;

pub use handles::{EventImpl, PinnedBuffer, StreamImpl, NEVER_RECORDED};
pub use prepare::PreparedLaunch;

use crate::buffer::sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::Result;
use crate::kernel_def::{KernelArg, KernelDef};
use crate::launch::LaunchConfig;
use crate::occupancy::{Occupancy, SuggestedBlockSize};

/// One GPU, as [`gpus`] lists it (Numba: an entry of `cuda.gpus`; the
/// fields are `cuDeviceGetName` and `cuDeviceGetAttribute`'s compute
/// capability and multiprocessor count).
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// // The GPU with the most multiprocessors, if any (none on the CPU backend).
/// let biggest = gpujit::gpus()?.into_iter().max_by_key(|g| g.multiprocessors);
/// if let Some(g) = biggest {
///     gpujit::select_device(g.id)?;
///     println!("{} (compute capability {}.{})", g.name, g.compute_capability.0, g.compute_capability.1);
/// }
/// # Ok(())
/// # }
/// ```
///
/// [`gpus`]: crate::gpus
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// Its number (CUDA ordinal), for [`select_device`].
    ///
    /// [`select_device`]: crate::select_device
    pub id: usize,
    /// The product name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
}

/// A place where kernels run and arrays live. Sealed; not a user API (generated
/// code reaches it through `gpujit::__private`).
///
/// What each method does on the CPU backend is documented with the public
/// function that calls it (streams run their work at once, events record
/// wall time, pinned arrays are ordinary memory, occupancy is an error).
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
    ///
    /// [`Error::OutOfRange`]: crate::Error::OutOfRange
    /// [`Error::Cuda`]: crate::Error::Cuda
    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn DeviceBuffer>>;

    /// Checks the launch ([`PreparedLaunch::prepare`]) and runs it
    /// ([`Backend::run`]): `kernel` on the grid `cfg` with `args`, on
    /// `stream` or the current device's default stream; the CPU backend
    /// waits for it, CUDA queues it. (No backend overrides it.)
    ///
    /// # Errors
    /// [`Error::InvalidLaunchConfig`], [`Error::ArgumentMismatch`],
    /// [`Error::WrongBackend`] if an array or the stream belongs to another
    /// backend, [`Error::WrongDevice`] if to another GPU, and what
    /// [`Backend::run`] returns.
    ///
    /// [`Error::InvalidLaunchConfig`]: crate::Error::InvalidLaunchConfig
    /// [`Error::ArgumentMismatch`]: crate::Error::ArgumentMismatch
    /// [`Error::WrongBackend`]: crate::Error::WrongBackend
    /// [`Error::WrongDevice`]: crate::Error::WrongDevice
    fn launch(
        &self,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        args: &mut [KernelArg<'_>],
        stream: Option<&dyn StreamImpl>,
    ) -> Result<()> {
        let (backend, launch) = PreparedLaunch::prepare(|| Ok(self), kernel, cfg, args, stream)?;
        backend.run(launch)
    }

    /// Runs a launch that [`PreparedLaunch::prepare`] checked: only this
    /// backend's own work is left (the GPU's limits, loading the kernel).
    ///
    /// # Errors
    /// [`Error::InvalidLaunchConfig`] for a block the GPU or the kernel
    /// cannot run (CUDA), [`Error::KernelFault`] if a thread faulted and
    /// [`Error::LaunchTimeout`] if the launch ran past its time limit (CPU
    /// backend); driver errors.
    ///
    /// [`Error::InvalidLaunchConfig`]: crate::Error::InvalidLaunchConfig
    /// [`Error::KernelFault`]: crate::Error::KernelFault
    /// [`Error::LaunchTimeout`]: crate::Error::LaunchTimeout
    fn run(&self, launch: PreparedLaunch<'_, '_>) -> Result<()>;

    /// The GPU that new arrays, streams and launches without a stream use
    /// (`None` on the CPU backend).
    ///
    /// # Errors
    /// Driver errors opening it.
    fn current_device(&self) -> Result<Option<usize>>;

    /// Waits for every launch issued so far (a no-op on the CPU).
    ///
    /// # Errors
    /// Errors of earlier asynchronous launches (CUDA).
    fn synchronize(&self) -> Result<()>;

    /// A new stream on the current GPU ([`crate::stream()`]).
    ///
    /// # Errors
    /// Driver errors.
    fn new_stream(&self) -> Result<Box<dyn StreamImpl>>;

    /// A new, unrecorded event on the current GPU ([`crate::event`]).
    ///
    /// # Errors
    /// Driver errors.
    fn new_event(&self) -> Result<Box<dyn EventImpl>>;

    /// `bytes` zero-filled bytes of page-locked host memory
    /// ([`crate::pinned_array`]).
    ///
    /// # Errors
    /// Driver errors (`CUDA_ERROR_OUT_OF_MEMORY` when page-locked memory runs out).
    fn alloc_pinned(&self, bytes: usize) -> Result<Box<dyn PinnedBuffer>>;

    /// `kernel`'s occupancy at `cfg`'s block (checked against CUDA's limits)
    /// and `dynamic_shared_bytes` on the current GPU ([`crate::occupancy`]).
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] on the CPU backend; the GPU's and the
    /// kernel's limits; NVRTC and driver errors.
    ///
    /// [`Error::BackendUnavailable`]: crate::Error::BackendUnavailable
    fn occupancy(
        &self,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        dynamic_shared_bytes: usize,
    ) -> Result<Occupancy>;

    /// The block size of highest occupancy for `kernel` on the current GPU.
    ///
    /// # Errors
    /// As [`Backend::occupancy`].
    fn suggested_block_size(&self, kernel: &'static KernelDef) -> Result<SuggestedBlockSize>;

    /// The GPUs ([`crate::gpus`]; none on the CPU backend).
    ///
    /// # Errors
    /// Driver errors.
    fn gpus(&self) -> Result<Vec<GpuInfo>>;

    /// Makes GPU `id` the current one ([`crate::select_device`]).
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a GPU that does not exist (always on the
    /// CPU backend); driver errors.
    ///
    /// [`Error::OutOfRange`]: crate::Error::OutOfRange
    fn select_device(&self, id: usize) -> Result<()>;
}
