//! Page-locked host memory of the CUDA backend: what a
//! [`PinnedArray`](crate::PinnedArray) holds there. Copies on a stream use it
//! asynchronously; cudarc's pinned slice records them, and reading, writing
//! or dropping the memory first waits for them.

use std::sync::Arc;

use cudarc::driver::{CudaStream, PinnedHostSlice};

use super::device::Device;
use crate::backend::PinnedBuffer;
use crate::buffer::sealed::Sealed;
use crate::detect::BackendKind;
use crate::error::Result;

/// Page-locked bytes for copies on `device`'s streams.
#[derive(Debug)]
pub(crate) struct PinnedHost {
    device: Arc<Device>,
    /// At least one byte (a zero-length pinned allocation is refused).
    pub slice: PinnedHostSlice<u8>,
}

impl PinnedHost {
    /// `bytes` zero-filled bytes (at least one) on `device` (`cuMemHostAlloc`).
    pub fn zeroed(device: &Arc<Device>, bytes: usize) -> Result<PinnedHost> {
        // SAFETY: the memory is zeroed right below, before any read.
        let mut slice = unsafe { device.ctx.alloc_pinned_with_flags::<u8>(bytes.max(1), 0) }
            .map_err(|e| device.err("cuMemHostAlloc", e))?;
        slice
            .as_mut_slice()
            .map_err(|e| device.err("cuEventSynchronize", e))?
            .fill(0);
        Ok(PinnedHost {
            device: device.clone(),
            slice,
        })
    }
}

impl Sealed for PinnedHost {}

impl PinnedBuffer for PinnedHost {
    fn backend(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> Option<usize> {
        Some(self.device.ordinal)
    }

    fn bytes(&self) -> Result<&[u8]> {
        self.slice
            .as_slice()
            .map_err(|e| self.device.err("cuEventSynchronize", e))
    }

    fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        let device = &self.device;
        self.slice
            .as_mut_slice()
            .map_err(|e| device.err("cuEventSynchronize", e))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The first `.1` bytes of a pinned slice, as a cudarc host source that
/// keeps the pinned slice's event protocol.
pub(crate) struct PinnedPrefix<'a>(pub &'a PinnedHostSlice<u8>, pub usize);

/// The first `.1` bytes of a pinned slice, as a cudarc host destination that
/// keeps the pinned slice's event protocol.
pub(crate) struct PinnedPrefixMut<'a>(pub &'a mut PinnedHostSlice<u8>, pub usize);

impl cudarc::driver::HostSlice<u8> for PinnedPrefix<'_> {
    fn len(&self) -> usize {
        self.1
    }
    unsafe fn stream_synced_slice<'b>(&'b self, stream: &'b CudaStream) -> (&'b [u8], cudarc::driver::SyncOnDrop<'b>) {
        // SAFETY: forwarded to the pinned slice (same contract); `1 <= len`.
        let (s, sync) = unsafe { self.0.stream_synced_slice(stream) };
        (&s[..self.1], sync)
    }
    unsafe fn stream_synced_mut_slice<'b>(
        &'b mut self,
        _stream: &'b CudaStream,
    ) -> (&'b mut [u8], cudarc::driver::SyncOnDrop<'b>) {
        unreachable!("a read-only prefix is never a copy destination")
    }
}

impl cudarc::driver::HostSlice<u8> for PinnedPrefixMut<'_> {
    fn len(&self) -> usize {
        self.1
    }
    unsafe fn stream_synced_slice<'b>(&'b self, stream: &'b CudaStream) -> (&'b [u8], cudarc::driver::SyncOnDrop<'b>) {
        // SAFETY: forwarded to the pinned slice (same contract).
        let (s, sync) = unsafe { self.0.stream_synced_slice(stream) };
        (&s[..self.1], sync)
    }
    unsafe fn stream_synced_mut_slice<'b>(
        &'b mut self,
        stream: &'b CudaStream,
    ) -> (&'b mut [u8], cudarc::driver::SyncOnDrop<'b>) {
        // SAFETY: forwarded to the pinned slice (same contract).
        let (s, sync) = unsafe { self.0.stream_synced_mut_slice(stream) };
        (&mut s[..self.1], sync)
    }
}
