//! CUDA streams and events of one GPU, and the copies a stream queues: what
//! a [`Stream`](crate::Stream) and an [`Event`](crate::Event) hold on the
//! CUDA backend. The front checked that the buffers, pinned buffers, streams
//! and events handed in are of this backend and GPU, so the downcasts below
//! only find gpujit's own CUDA types.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use super::buffer::{not_cuda, CudaBuffer};
use super::device::Device;
use super::pinned::{PinnedHost, PinnedPrefix, PinnedPrefixMut};
use crate::backend::{EventImpl, PinnedBuffer, StreamImpl};
use crate::buffer::sealed::Sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::{Error, Result};

/// A stream of one GPU.
#[derive(Debug)]
pub(crate) struct DeviceStream {
    pub device: Arc<Device>,
    pub stream: Arc<CudaStream>,
}

impl DeviceStream {
    /// `stream` as the CUDA stream it is (the front checked its backend).
    pub fn of(stream: &dyn StreamImpl) -> Result<&DeviceStream> {
        stream
            .as_any()
            .downcast_ref::<DeviceStream>()
            .ok_or_else(|| Error::WrongBackend {
                array: format!("{} (the stream)", stream.backend()),
                launch: BackendKind::Cuda.to_string(),
            })
    }

    /// A new stream on `device`.
    pub fn new(device: &Arc<Device>) -> Result<DeviceStream> {
        let stream = device.ctx.new_stream().map_err(|e| device.err("cuStreamCreate", e))?;
        Ok(DeviceStream {
            device: device.clone(),
            stream,
        })
    }
}

impl Sealed for DeviceStream {}

impl StreamImpl for DeviceStream {
    fn backend(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> Option<usize> {
        Some(self.device.ordinal)
    }

    fn synchronize(&self) -> Result<()> {
        let device = &self.device;
        self.stream
            .synchronize()
            .map_err(|e| device.err("cuStreamSynchronize", e))?;
        device
            .ctx
            .check_err()
            .map_err(|e| device.err("an earlier asynchronous operation", e))
    }

    fn read(&self, buf: &dyn DeviceBuffer, dst: &mut [u8]) -> Result<()> {
        CudaBuffer::of(buf)?.read_on(&self.stream, 0, dst)
    }

    fn write(&self, buf: &mut dyn DeviceBuffer, src: &[u8]) -> Result<()> {
        CudaBuffer::of_mut(buf)?.write_on(&self.stream, 0, src)
    }

    fn read_to_pinned(&self, buf: &dyn DeviceBuffer, dst: &mut dyn PinnedBuffer, bytes: usize) -> Result<()> {
        let b = CudaBuffer::of(buf)?;
        let kind = dst.backend();
        let pinned = dst
            .as_any_mut()
            .downcast_mut::<PinnedHost>()
            .ok_or_else(|| not_cuda(kind))?;
        if bytes == 0 {
            return Ok(());
        }
        let src = b.slice.slice(0..bytes);
        let mut dst_view = PinnedPrefixMut(&mut pinned.slice, bytes);
        self.stream
            .memcpy_dtoh(&src, &mut dst_view)
            .map_err(|e| self.device.err("cuMemcpyDtoHAsync", e))
    }

    fn write_from_pinned(&self, buf: &mut dyn DeviceBuffer, src: &dyn PinnedBuffer, bytes: usize) -> Result<()> {
        let pinned = src
            .as_any()
            .downcast_ref::<PinnedHost>()
            .ok_or_else(|| not_cuda(src.backend()))?;
        let b = CudaBuffer::of_mut(buf)?;
        if bytes == 0 {
            return Ok(());
        }
        let mut dst = b.slice.slice_mut(0..bytes);
        self.stream
            .memcpy_htod(&PinnedPrefix(&pinned.slice, bytes), &mut dst)
            .map_err(|e| self.device.err("cuMemcpyHtoDAsync", e))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// An event (with timing) of one GPU.
#[derive(Debug)]
pub(crate) struct DeviceEvent {
    device: Arc<Device>,
    event: CudaEvent,
}

impl DeviceEvent {
    /// A new, unrecorded event on `device` (`cuEventCreate`).
    pub fn new(device: &Arc<Device>) -> Result<DeviceEvent> {
        let event = device
            .ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| device.err("cuEventCreate", e))?;
        Ok(DeviceEvent {
            device: device.clone(),
            event,
        })
    }
}

impl Sealed for DeviceEvent {}

impl EventImpl for DeviceEvent {
    fn backend(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device(&self) -> Option<usize> {
        Some(self.device.ordinal)
    }

    fn record(&self, stream: &dyn StreamImpl) -> Result<()> {
        let Some(q) = stream.as_any().downcast_ref::<DeviceStream>() else {
            return Err(Error::WrongBackend {
                array: "another backend (event or stream)".into(),
                launch: stream.backend().to_string(),
            });
        };
        self.event
            .record(&q.stream)
            .map_err(|e| self.device.err("cuEventRecord", e))
    }

    fn synchronize(&self) -> Result<()> {
        self.event
            .synchronize()
            .map_err(|e| self.device.err("cuEventSynchronize", e))
    }

    fn elapsed_ms(&self, end: &dyn EventImpl) -> Result<f32> {
        let Some(end) = end.as_any().downcast_ref::<DeviceEvent>() else {
            return Err(Error::WrongBackend {
                array: "another backend (event)".into(),
                launch: "this event's backend".into(),
            });
        };
        self.event
            .elapsed_ms(&end.event)
            .map_err(|e| self.device.err("cuEventElapsedTime", e))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
