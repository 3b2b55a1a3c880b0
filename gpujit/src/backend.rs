//! What a backend implements: the [`Backend`] trait (the buffers of
//! [`crate::buffer`] are the other half).

use std::fmt;

use crate::buffer::sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::Result;
use crate::kernel_def::{KernelArg, KernelDef};
use crate::launch::LaunchConfig;
use crate::stream::Stream;

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
