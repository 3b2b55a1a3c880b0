//! Memory a backend owns, as the launch ABI sees it: the [`DeviceBuffer`]
//! trait behind every [`DeviceArray`](crate::DeviceArray), where a buffer's
//! elements live for a kernel ([`ArgPtr`]), and the seal that keeps the
//! ABI's and the backends' traits to gpujit's own types.
//!
//! Below the kernel description (`kernel_def.rs`), whose array arguments
//! borrow a `DeviceBuffer`, and below the backends, which implement it.

use std::fmt;

use crate::detect::BackendKind;
use crate::error::{Error, Result};

/// Only gpujit's own backends, buffers, streams, events and pinned buffers
/// implement the traits of this file and of `backend/`: the launch code
/// trusts their pointers and sizes. Each implementing file says
/// `impl Sealed for ...` beside its type.
pub(crate) mod sealed {
    /// The seal (public in a private module: nameable in gpujit only).
    pub trait Sealed {}
}

/// Where an array argument's elements live, as the CPU backend reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgPtr {
    /// Host memory (CPU backend).
    Host(*mut u8),
    /// GPU memory: the CUDA backend takes the memory from the buffer itself
    /// (a cudarc slice, whose events order the launch), never from an address.
    Device,
}

/// Memory owned by a backend: the storage of a [`DeviceArray`](crate::DeviceArray).
/// Sealed; each buffer is owned by exactly one `DeviceArray` (never shared or
/// cloned), which the CPU backend's soundness relies on.
pub trait DeviceBuffer: Send + Sync + fmt::Debug + sealed::Sealed {
    /// The backend that owns the memory.
    fn backend(&self) -> BackendKind;

    /// The GPU the memory is on (`None` for the CPU backend's host memory).
    fn device(&self) -> Option<usize>;

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

    /// Overwrites the whole buffer with `src`, a buffer of the same backend,
    /// GPU and length (the caller, `DeviceArray::copy_from_device`, checked
    /// that): on a GPU a device-to-device copy on its default stream.
    ///
    /// # Errors
    /// Backend errors (CUDA); [`Error::WrongBackend`] for a buffer of
    /// another backend.
    fn copy_from(&mut self, src: &dyn DeviceBuffer) -> Result<()>;

    /// For downcasting to the concrete buffer (by its own backend).
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
