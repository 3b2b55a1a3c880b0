//! Streams, events and whole-device synchronization, named after Numba's
//! `cuda.stream()`, `cuda.event()`, `event_elapsed_time` and
//! `cuda.synchronize()`.
//!
//! On the CUDA backend a [`Stream`] is a CUDA stream of its GPU: launches and
//! copies on it run in order, concurrently with other streams' work. On the
//! CPU backend every operation on a stream runs at once, in call order, so
//! [`Stream::synchronize`] has nothing to wait for and the results are the
//! same. An [`Event`] records a point in a stream (CPU: the time of the
//! call), so `elapsed_time` measures GPU time (CPU: wall time).
//!
//! Soundness rules (the same on both backends):
//! 1. Host memory you lend by reference (`&[T]`, `&mut [T]`) is used by the
//!    device only during the call: copies to the host wait for their data,
//!    copies from pageable host memory are staged before they return.
//! 2. Truly asynchronous copies use a [`PinnedArray`](crate::PinnedArray),
//!    which gpujit owns: reading or writing its elements, or dropping it,
//!    first waits for the queued copies that use it.
//! 3. A [`DeviceArray`](crate::DeviceArray) dropped while queued work still
//!    uses it is freed in stream order, after that work.
//!
//! ```
//! # fn main() -> gpujit::Result<()> {
//! let stream = gpujit::stream()?;                         // Numba: cuda.stream()
//! let d = gpujit::to_device_on(&[1.0f32, 2.0], &stream)?; // Numba: cuda.to_device(a, stream=s)
//! let mut host = gpujit::pinned_array::<f32>(2)?;
//! d.copy_to_pinned(&mut host, &stream)?;
//! stream.synchronize()?;                                  // Numba: s.synchronize()
//! assert_eq!(host.as_slice()?, [1.0, 2.0]);
//! # Ok(())
//! # }
//! ```

use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::cuda::{CudaBackend, Device};
use crate::detect::BackendKind;
use crate::error::{Error, Result};
use crate::select::current_backend;

/// The CUDA backend of this process, or `None` on the CPU backend.
pub(crate) fn cuda_backend() -> Result<Option<&'static CudaBackend>> {
    Ok(current_backend()?.as_any().downcast_ref::<CudaBackend>())
}

/// A queue of launches and copies that run in order (Numba's `cuda.stream()`).
/// Made by [`stream`]; pass it as a launch's third argument,
/// `kernel![grid, block, &stream](args)`, or to the `_on` copies.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn double(v: &mut [f32]) {
///     let i = grid(1);
///     if i < v.len() {
///         v[i] *= 2.0;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let stream = gpujit::stream()?;
/// let mut d = gpujit::to_device_on(&[1.0f32, 2.0, 3.0], &stream)?;
/// double![1, 32, &stream](&mut d)?;
/// let host = d.copy_to_host_on(&stream)?;
/// stream.synchronize()?;
/// assert_eq!(host, [2.0, 4.0, 6.0]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Stream {
    inner: StreamInner,
}

#[derive(Debug, Clone)]
enum StreamInner {
    Cpu,
    Cuda {
        device: Arc<Device>,
        stream: Arc<CudaStream>,
    },
}

/// A new stream on the current backend (and GPU), like Numba's `cuda.stream()`.
///
/// # Errors
/// [`Error::BackendUnavailable`]; CUDA driver errors ([`Error::Cuda`]).
///
/// ```
/// let s = gpujit::stream().unwrap();
/// s.synchronize().unwrap();
/// ```
pub fn stream() -> Result<Stream> {
    let inner = match cuda_backend()? {
        None => StreamInner::Cpu,
        Some(b) => {
            let device = b.current()?.clone();
            let stream = device.ctx.new_stream().map_err(|e| device.err("cuStreamCreate", e))?;
            StreamInner::Cuda { device, stream }
        }
    };
    Ok(Stream { inner })
}

impl Stream {
    /// Waits until every launch and copy queued on this stream has finished
    /// (Numba's `stream.synchronize()`).
    ///
    /// # Errors
    /// CUDA driver errors, and [`Error::DeviceFault`] if a kernel on this
    /// GPU faulted.
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            StreamInner::Cpu => Ok(()),
            StreamInner::Cuda { device, stream } => {
                stream.synchronize().map_err(|e| device.err("cuStreamSynchronize", e))?;
                device
                    .ctx
                    .check_err()
                    .map_err(|e| device.err("an earlier asynchronous operation", e))
            }
        }
    }

    /// The backend this stream belongs to.
    pub fn backend(&self) -> BackendKind {
        match self.inner {
            StreamInner::Cpu => BackendKind::Cpu,
            StreamInner::Cuda { .. } => BackendKind::Cuda,
        }
    }

    /// The GPU this stream runs on (`None` on the CPU backend).
    pub fn device(&self) -> Option<usize> {
        match &self.inner {
            StreamInner::Cpu => None,
            StreamInner::Cuda { device, .. } => Some(device.ordinal),
        }
    }

    /// The GPU and CUDA stream.
    ///
    /// # Errors
    /// [`Error::WrongBackend`] for a CPU stream.
    pub(crate) fn cuda(&self) -> Result<(&Arc<Device>, &Arc<CudaStream>)> {
        match &self.inner {
            StreamInner::Cuda { device, stream } => Ok((device, stream)),
            StreamInner::Cpu => Err(Error::WrongBackend {
                array: "CPU (a stream)".into(),
                launch: "CUDA".into(),
            }),
        }
    }
}

/// Waits for all work on every GPU in use (Numba's `cuda.synchronize()`);
/// on the CPU backend there is nothing to wait for.
///
/// # Errors
/// CUDA driver errors and [`Error::DeviceFault`], including errors of earlier
/// asynchronous work (e.g. freeing an array).
///
/// ```
/// gpujit::synchronize().unwrap();
/// ```
pub fn synchronize() -> Result<()> {
    current_backend()?.synchronize()
}

/// A point in a stream, for timing and waiting (Numba's `cuda.event()`).
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let stream = gpujit::stream()?;
/// let (start, end) = (gpujit::event()?, gpujit::event()?);
/// start.record(&stream)?;
/// let d = gpujit::zeros::<f32>(1 << 10)?;
/// end.record(&stream)?;
/// end.synchronize()?;
/// let ms = start.elapsed_time(&end)?; // Numba: cuda.event_elapsed_time(start, end)
/// assert!(ms >= 0.0);
/// # drop(d);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Event {
    inner: EventInner,
}

#[derive(Debug)]
enum EventInner {
    Cpu(Mutex<Option<Instant>>),
    Cuda { device: Arc<Device>, event: CudaEvent },
}

/// A new event (with timing) on the current backend and GPU (Numba's
/// `cuda.event()`, CUDA's `cuEventCreate`). It is unrecorded until
/// [`Event::record`]; [`Event::elapsed_time`] gives milliseconds between
/// two recorded events.
///
/// # Errors
/// [`Error::BackendUnavailable`]; CUDA driver errors.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn inc(v: &mut [u32]) {
///     let i = grid(1);
///     if i < v.len() {
///         v[i] += 1;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let stream = gpujit::stream()?;
/// let mut v = gpujit::zeros::<u32>(4096)?;
/// let (start, stop) = (gpujit::event()?, gpujit::event()?);
/// start.record(&stream)?;
/// inc![16, 256, &stream](&mut v)?;
/// stop.record(&stream)?;
/// stop.synchronize()?;
/// println!("kernel: {:.3} ms", start.elapsed_time(&stop)?);
/// # Ok(())
/// # }
/// ```
pub fn event() -> Result<Event> {
    let inner = match cuda_backend()? {
        None => EventInner::Cpu(Mutex::new(None)),
        Some(b) => {
            let device = b.current()?.clone();
            let event = device
                .ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| device.err("cuEventCreate", e))?;
            EventInner::Cuda { device, event }
        }
    };
    Ok(Event { inner })
}

impl Event {
    /// Records the event after the work queued so far on `stream` (CPU: now).
    ///
    /// # Errors
    /// [`Error::WrongBackend`] or [`Error::WrongDevice`] if the stream is of
    /// another backend or GPU; CUDA driver errors.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        match (&self.inner, &stream.inner) {
            (EventInner::Cpu(t), StreamInner::Cpu) => {
                *t.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                Ok(())
            }
            (EventInner::Cuda { device, event }, StreamInner::Cuda { device: sd, stream }) => {
                if device.ordinal != sd.ordinal {
                    return Err(Error::WrongDevice {
                        what: "the stream an event is recorded on".into(),
                        expected: device.ordinal,
                        found: sd.ordinal,
                    });
                }
                event.record(stream).map_err(|e| device.err("cuEventRecord", e))
            }
            _ => Err(Error::WrongBackend {
                array: "another backend (event or stream)".into(),
                launch: stream.backend().to_string(),
            }),
        }
    }

    /// Waits until the work before the event has finished.
    ///
    /// # Errors
    /// CUDA driver errors and [`Error::DeviceFault`].
    pub fn synchronize(&self) -> Result<()> {
        match &self.inner {
            EventInner::Cpu(_) => Ok(()),
            EventInner::Cuda { device, event } => event.synchronize().map_err(|e| device.err("cuEventSynchronize", e)),
        }
    }

    /// Milliseconds from this event to `end`, both recorded and complete
    /// (Numba's `cuda.event_elapsed_time(self, end)`): GPU time on CUDA,
    /// wall time on the CPU backend.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if an event was never recorded (CPU), CUDA
    /// driver errors (`CUDA_ERROR_NOT_READY`, `CUDA_ERROR_INVALID_HANDLE`
    /// for an event never recorded), [`Error::WrongBackend`]/[`Error::WrongDevice`].
    pub fn elapsed_time(&self, end: &Event) -> Result<f32> {
        match (&self.inner, &end.inner) {
            (EventInner::Cpu(a), EventInner::Cpu(b)) => {
                let a = *a.lock().unwrap_or_else(|p| p.into_inner());
                let b = *b.lock().unwrap_or_else(|p| p.into_inner());
                match (a, b) {
                    (Some(a), Some(b)) => Ok(if b >= a {
                        (b - a).as_secs_f32() * 1000.0
                    } else {
                        -((a - b).as_secs_f32() * 1000.0)
                    }),
                    _ => Err(Error::OutOfRange(
                        "an event was never recorded: call record(&stream) on both events first".into(),
                    )),
                }
            }
            (EventInner::Cuda { device, event }, EventInner::Cuda { device: d2, event: e2 }) => {
                if device.ordinal != d2.ordinal {
                    return Err(Error::WrongDevice {
                        what: "the end event".into(),
                        expected: device.ordinal,
                        found: d2.ordinal,
                    });
                }
                event.elapsed_ms(e2).map_err(|e| device.err("cuEventElapsedTime", e))
            }
            _ => Err(Error::WrongBackend {
                array: "another backend (event)".into(),
                launch: "this event's backend".into(),
            }),
        }
    }
}
