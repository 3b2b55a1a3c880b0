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

use std::sync::Arc;

use crate::backend::{EventImpl, StreamImpl};
use crate::detect::BackendKind;
use crate::error::{Error, Result};
use crate::select::current_backend;

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
    /// The backend's stream (shared by the clones).
    inner: Arc<dyn StreamImpl>,
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
    let inner = current_backend()?.new_stream()?;
    Ok(Stream { inner: inner.into() })
}

impl Stream {
    /// Waits until every launch and copy queued on this stream has finished
    /// (Numba's `stream.synchronize()`).
    ///
    /// # Errors
    /// CUDA driver errors, and [`Error::DeviceFault`] if a kernel on this
    /// GPU faulted.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// The backend this stream belongs to.
    pub fn backend(&self) -> BackendKind {
        self.inner.backend()
    }

    /// The GPU this stream runs on (`None` on the CPU backend).
    pub fn device(&self) -> Option<usize> {
        self.inner.device()
    }

    /// The backend's stream, for launches and copies on it.
    pub(crate) fn handle(&self) -> &dyn StreamImpl {
        &*self.inner
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
    inner: Box<dyn EventImpl>,
    /// Set by [`Event::record`]: an event never recorded gets the same
    /// error on every backend (CUDA's own is a bare `CUDA_ERROR_INVALID_HANDLE`).
    recorded: std::sync::atomic::AtomicBool,
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
    let inner = current_backend()?.new_event()?;
    Ok(Event {
        inner,
        recorded: false.into(),
    })
}

impl Event {
    /// Records the event after the work queued so far on `stream` (CPU: now).
    ///
    /// # Errors
    /// [`Error::WrongBackend`] or [`Error::WrongDevice`] if the stream is of
    /// another backend or GPU; CUDA driver errors.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if self.inner.backend() != stream.backend() {
            return Err(Error::WrongBackend {
                array: "another backend (event or stream)".into(),
                launch: stream.backend().to_string(),
            });
        }
        if let (Some(expected), Some(found)) = (self.inner.device(), stream.device()) {
            if expected != found {
                return Err(Error::WrongDevice {
                    what: "the stream an event is recorded on".into(),
                    expected,
                    found,
                });
            }
        }
        self.inner.record(stream.handle())?;
        self.recorded.store(true, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Waits until the work before the event has finished.
    ///
    /// # Errors
    /// CUDA driver errors and [`Error::DeviceFault`].
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    /// Milliseconds from this event to `end`, both recorded and complete
    /// (Numba's `cuda.event_elapsed_time(self, end)`): GPU time on CUDA,
    /// wall time on the CPU backend.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if an event was never recorded (on every
    /// backend, with the same advice), CUDA driver errors
    /// (`CUDA_ERROR_NOT_READY`), [`Error::WrongBackend`]/[`Error::WrongDevice`].
    pub fn elapsed_time(&self, end: &Event) -> Result<f32> {
        if self.inner.backend() != end.inner.backend() {
            return Err(Error::WrongBackend {
                array: "another backend (event)".into(),
                launch: "this event's backend".into(),
            });
        }
        if let (Some(expected), Some(found)) = (self.inner.device(), end.inner.device()) {
            if expected != found {
                return Err(Error::WrongDevice {
                    what: "the end event".into(),
                    expected,
                    found,
                });
            }
        }
        let recorded = |e: &Event| e.recorded.load(std::sync::atomic::Ordering::Acquire);
        if !recorded(self) || !recorded(end) {
            return Err(Error::OutOfRange(crate::backend::NEVER_RECORDED.into()));
        }
        self.inner.elapsed_ms(&*end.inner)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn elapsed_time_of_an_unrecorded_event_says_what_to_do() {
        let (start, end) = (super::event().unwrap(), super::event().unwrap());
        let stream = super::stream().unwrap();
        for (a, b) in [(&start, &end), (&end, &start)] {
            let e = a.elapsed_time(b).unwrap_err().to_string();
            assert!(e.contains(crate::backend::NEVER_RECORDED), "{e}");
        }
        start.record(&stream).unwrap();
        let e = start.elapsed_time(&end).unwrap_err().to_string();
        assert!(e.contains(crate::backend::NEVER_RECORDED), "only one recorded: {e}");
        end.record(&stream).unwrap();
        assert!(start.elapsed_time(&end).unwrap() >= 0.0);
    }
}
