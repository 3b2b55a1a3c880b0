//! GPU memory of a `DeviceArray`: a cudarc slice (whose read and write
//! events order every use across streams, and whose drop frees the memory in
//! stream order after the work that uses it).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::device::Device;
use crate::buffer::sealed::Sealed;
use crate::buffer::{check_range, ArgPtr, DeviceBuffer};
use crate::detect::BackendKind;
use crate::error::{Error, Result};

/// Bytes on one GPU.
#[derive(Debug)]
pub(crate) struct CudaBuffer {
    pub device: Arc<Device>,
    pub slice: CudaSlice<u8>,
}

/// The error of a CUDA operation handed an object of another backend: the
/// front checks that the objects of one operation belong together, so only
/// a gpujit bug reaches it.
pub(crate) fn not_cuda(found: BackendKind) -> Error {
    Error::WrongBackend {
        array: found.to_string(),
        launch: BackendKind::Cuda.to_string(),
    }
}

impl CudaBuffer {
    /// `buf` as the CUDA buffer it is (the front checked its backend).
    pub fn of(buf: &dyn DeviceBuffer) -> Result<&CudaBuffer> {
        buf.as_any()
            .downcast_ref::<CudaBuffer>()
            .ok_or_else(|| not_cuda(buf.backend()))
    }

    /// `buf` as the CUDA buffer it is, writable.
    pub fn of_mut(buf: &mut dyn DeviceBuffer) -> Result<&mut CudaBuffer> {
        let found = buf.backend();
        buf.as_any_mut()
            .downcast_mut::<CudaBuffer>()
            .ok_or_else(|| not_cuda(found))
    }

    /// `bytes` zeroed bytes on `device`, allocated (and zeroed) on its default stream.
    pub fn new_zeroed(device: &Arc<Device>, bytes: usize) -> Result<CudaBuffer> {
        let s = &device.stream;
        let slice = if bytes == 0 {
            s.null::<u8>()
        } else {
            s.alloc_zeros::<u8>(bytes)
        };
        Ok(CudaBuffer {
            device: device.clone(),
            slice: slice.map_err(|e| device.err("cuMemAlloc", e))?,
        })
    }

    /// Copies `[offset, offset + dst.len())` to the host on `stream` and
    /// waits for it (the copy follows the work queued on `stream`).
    pub fn read_on(&self, stream: &Arc<CudaStream>, offset: usize, dst: &mut [u8]) -> Result<()> {
        check_range(offset, dst.len(), self.slice.len(), "a read")?;
        if dst.is_empty() {
            return Ok(());
        }
        let view = self.slice.slice(offset..offset + dst.len());
        stream
            .memcpy_dtoh(&view, dst)
            .map_err(|e| self.device.err("cuMemcpyDtoHAsync", e))?;
        // The host slice is borrowed only for this call: wait for the copy.
        stream
            .synchronize()
            .map_err(|e| self.device.err("cuStreamSynchronize", e))
    }

    /// Copies `src` to `[offset, ..)` on `stream`. Returns once `src` may be
    /// reused: a copy from pageable memory is staged by the driver before
    /// `cuMemcpyHtoDAsync` returns (CUDA's documented behaviour).
    pub fn write_on(&mut self, stream: &Arc<CudaStream>, offset: usize, src: &[u8]) -> Result<()> {
        check_range(offset, src.len(), self.slice.len(), "a write")?;
        if src.is_empty() {
            return Ok(());
        }
        let mut view = self.slice.slice_mut(offset..offset + src.len());
        stream
            .memcpy_htod(src, &mut view)
            .map_err(|e| self.device.err("cuMemcpyHtoDAsync", e))
    }
}

impl Sealed for CudaBuffer {}

impl DeviceBuffer for CudaBuffer {
    fn backend(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> Option<usize> {
        Some(self.device.ordinal)
    }

    fn byte_len(&self) -> usize {
        self.slice.len()
    }

    fn arg_ptr(&self) -> ArgPtr {
        ArgPtr::Device
    }

    fn read(&self, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.read_on(&self.device.stream, byte_offset, dst)
    }

    fn write(&mut self, byte_offset: usize, src: &[u8]) -> Result<()> {
        let stream = self.device.stream.clone();
        self.write_on(&stream, byte_offset, src)
    }

    fn copy_from(&mut self, src: &dyn DeviceBuffer) -> Result<()> {
        let src = CudaBuffer::of(src)?;
        let n = self.slice.len();
        if n == 0 {
            return Ok(());
        }
        let device = self.device.clone();
        let mut dst = self.slice.slice_mut(0..n);
        device
            .stream
            .memcpy_dtod(&src.slice.slice(0..n), &mut dst)
            .map_err(|e| device.err("cuMemcpyDtoDAsync", e))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
