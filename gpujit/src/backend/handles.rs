//! The objects a backend hands out besides buffers: what a
//! [`Stream`](crate::Stream), an [`Event`](crate::Event) and a
//! [`PinnedArray`](crate::PinnedArray) hold. Each says which backend and GPU
//! it belongs to, so the front can check that the objects of one operation
//! belong together before it calls them; the backend then downcasts the
//! other objects (its own types) without a second check of its own.
//!
//! All are `Send + Sync + UnwindSafe + RefUnwindSafe`, as the public types
//! that hold them were before they did.

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};

use crate::buffer::sealed::Sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::Result;

/// A queue of work on one GPU (CPU backend: work runs at once, in call order).
/// The copies take buffers the front checked to be of this stream's
/// backend and GPU, with lengths that match.
pub trait StreamImpl: Send + Sync + UnwindSafe + RefUnwindSafe + fmt::Debug + Sealed {
    /// The backend this stream belongs to.
    fn backend(&self) -> BackendKind;

    /// Its GPU (`None` on the CPU backend).
    fn device(&self) -> Option<usize>;

    /// Waits for the work queued so far.
    ///
    /// # Errors
    /// Driver errors, including those of earlier asynchronous work.
    fn synchronize(&self) -> Result<()>;

    /// Copies `buf`'s first `dst.len()` bytes into `dst` after the work queued
    /// so far, and waits for the copy.
    ///
    /// # Errors
    /// Driver errors.
    fn read(&self, buf: &dyn DeviceBuffer, dst: &mut [u8]) -> Result<()>;

    /// Copies `src` to the start of `buf` after the work queued so far;
    /// returns once `src` may be reused.
    ///
    /// # Errors
    /// Driver errors.
    fn write(&self, buf: &mut dyn DeviceBuffer, src: &[u8]) -> Result<()>;

    /// Copies `buf`'s first `bytes` bytes into `dst`, asynchronously on a GPU
    /// (`dst`'s [`bytes`](PinnedBuffer::bytes) waits for it).
    ///
    /// # Errors
    /// Driver errors.
    fn read_to_pinned(&self, buf: &dyn DeviceBuffer, dst: &mut dyn PinnedBuffer, bytes: usize) -> Result<()>;

    /// Copies `src`'s first `bytes` bytes to the start of `buf`,
    /// asynchronously on a GPU (`src`'s [`bytes_mut`](PinnedBuffer::bytes_mut)
    /// waits for it).
    ///
    /// # Errors
    /// Driver errors.
    fn write_from_pinned(&self, buf: &mut dyn DeviceBuffer, src: &dyn PinnedBuffer, bytes: usize) -> Result<()>;

    /// For downcasting by its own backend.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A point in a stream, for timing and waiting (CPU backend: the time of the
/// call). The front checks that a stream or end event is of the same
/// backend and GPU.
pub trait EventImpl: Send + Sync + UnwindSafe + RefUnwindSafe + fmt::Debug + Sealed {
    /// The backend this event belongs to.
    fn backend(&self) -> BackendKind;

    /// Its GPU (`None` on the CPU backend).
    fn device(&self) -> Option<usize>;

    /// Records the event after the work queued so far on `stream`.
    ///
    /// # Errors
    /// Driver errors.
    fn record(&self, stream: &dyn StreamImpl) -> Result<()>;

    /// Waits until the work before the event has finished.
    ///
    /// # Errors
    /// Driver errors.
    fn synchronize(&self) -> Result<()>;

    /// Milliseconds from this event to `end` (`Event::elapsed_time` has
    /// checked that both were recorded).
    ///
    /// # Errors
    /// Driver errors.
    fn elapsed_ms(&self, end: &dyn EventImpl) -> Result<f32>;

    /// For downcasting by its own backend.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// What `Event::elapsed_time` says of an event never recorded, on every
/// backend (CUDA's own error is a bare `CUDA_ERROR_INVALID_HANDLE`).
pub const NEVER_RECORDED: &str = "an event was never recorded: call record(&stream) on both events first";

/// Page-locked host memory (CPU backend: ordinary memory): zero-filled when
/// made, at least as many bytes as were asked for, aligned to at least 16
/// bytes. Reading or writing it first waits for the copies queued on it.
pub trait PinnedBuffer: Send + Sync + UnwindSafe + RefUnwindSafe + fmt::Debug + Sealed {
    /// The backend that owns the memory.
    fn backend(&self) -> BackendKind;

    /// The GPU whose copies use it (`None` on the CPU backend).
    fn device(&self) -> Option<usize>;

    /// The bytes, after the copies queued on the buffer have finished.
    ///
    /// # Errors
    /// Driver errors (a failed copy).
    fn bytes(&self) -> Result<&[u8]>;

    /// The bytes, writable, after the copies queued on the buffer have finished.
    ///
    /// # Errors
    /// Driver errors.
    fn bytes_mut(&mut self) -> Result<&mut [u8]>;

    /// For downcasting by its own backend.
    fn as_any(&self) -> &dyn std::any::Any;

    /// For downcasting by its own backend, writable.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}
