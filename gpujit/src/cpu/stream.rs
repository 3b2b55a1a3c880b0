//! The CPU backend's streams and events. Every operation on a stream runs
//! during the call, in call order, so a stream has nothing to queue or wait
//! for and its copies are the buffers' own; an event records the wall time
//! of its `record`.

use std::sync::Mutex;
use std::time::Instant;

use crate::backend::{EventImpl, PinnedBuffer, StreamImpl};
use crate::buffer::sealed::Sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::{Error, Result};

/// A stream of the CPU backend.
#[derive(Debug)]
pub(crate) struct CpuStream;

impl Sealed for CpuStream {}

impl StreamImpl for CpuStream {
    fn backend(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device(&self) -> Option<usize> {
        None
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn read(&self, buf: &dyn DeviceBuffer, dst: &mut [u8]) -> Result<()> {
        buf.read(0, dst)
    }

    fn write(&self, buf: &mut dyn DeviceBuffer, src: &[u8]) -> Result<()> {
        buf.write(0, src)
    }

    fn read_to_pinned(&self, buf: &dyn DeviceBuffer, dst: &mut dyn PinnedBuffer, bytes: usize) -> Result<()> {
        buf.read(0, &mut dst.bytes_mut()?[..bytes])
    }

    fn write_from_pinned(&self, buf: &mut dyn DeviceBuffer, src: &dyn PinnedBuffer, bytes: usize) -> Result<()> {
        buf.write(0, &src.bytes()?[..bytes])
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// An event of the CPU backend: when it was recorded (`None`: never).
#[derive(Debug, Default)]
pub(crate) struct CpuEvent(Mutex<Option<Instant>>);

impl Sealed for CpuEvent {}

impl CpuEvent {
    fn at(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl EventImpl for CpuEvent {
    fn backend(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device(&self) -> Option<usize> {
        None
    }

    fn record(&self, _stream: &dyn StreamImpl) -> Result<()> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
        Ok(())
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn elapsed_ms(&self, end: &dyn EventImpl) -> Result<f32> {
        let Some(end) = end.as_any().downcast_ref::<CpuEvent>() else {
            return Err(Error::WrongBackend {
                array: "another backend (event)".into(),
                launch: "this event's backend".into(),
            });
        };
        match (self.at(), end.at()) {
            (Some(a), Some(b)) => Ok(if b >= a {
                (b - a).as_secs_f32() * 1000.0
            } else {
                -((a - b).as_secs_f32() * 1000.0)
            }),
            _ => Err(Error::OutOfRange(crate::backend::NEVER_RECORDED.into())),
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
