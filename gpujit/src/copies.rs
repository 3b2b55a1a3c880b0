//! Copies on a [`Stream`] and between arrays (Numba's `to_device(a,
//! stream=s)`, `copy_to_host(stream=s)`, `copy_to_device`).
//!
//! CPU backend: every copy happens during the call. CUDA backend: copies
//! queue on the stream after the work already there; see [`crate::stream`]
//! for when the host memory is used.
//!
//! Each copy checks here that its array, pinned array and stream belong to
//! one backend and GPU, then hands the bytes to the stream
//! (`StreamImpl`) or the buffer (`DeviceBuffer::copy_from`), which do the
//! backend's work.

use crate::array::{as_bytes, as_bytes_mut, checked_c_order, DeviceArray, HostData};
use crate::detect::BackendKind;
use crate::error::{Error, Result};
use crate::pinned::PinnedArray;
use crate::scalar::{DeviceScalar, PodScalar};
use crate::stream::Stream;

/// Copies host data to a new array, queued on `stream`, like Numba's
/// `cuda.to_device(a, stream=stream)`. `host` may be reused as soon as this
/// returns.
///
/// # Errors
/// As [`crate::to_device`]; [`Error::WrongBackend`]/[`Error::WrongDevice`]
/// for a stream of another backend or GPU.
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let s = gpujit::stream()?;
/// let d = gpujit::to_device_on(&vec![1i64, 2, 3], &s)?;
/// assert_eq!(d.copy_to_host_on(&s)?, [1, 2, 3]);
/// # Ok(())
/// # }
/// ```
pub fn to_device_on<T: DeviceScalar, H: HostData<T> + ?Sized>(host: &H, stream: &Stream) -> Result<DeviceArray<T>> {
    let (shape, data) = checked_c_order(host)?;
    let mut array = DeviceArray::<T>::zeros(shape)?;
    array.copy_from_host_on(&data, stream)?;
    Ok(array)
}

/// Checks that `what`, memory of `backend` on GPU `device`, can be used by
/// a copy on `stream`: the same backend and GPU.
fn check_on(what: &str, backend: BackendKind, device: Option<usize>, stream: &Stream) -> Result<()> {
    if backend != stream.backend() {
        return Err(Error::WrongBackend {
            array: backend.to_string(),
            launch: stream.backend().to_string(),
        });
    }
    check_device(what, stream.device(), device)
}

fn check_device(what: &str, expected: Option<usize>, found: Option<usize>) -> Result<()> {
    match (expected, found) {
        (Some(expected), Some(found)) if expected != found => Err(Error::WrongDevice {
            what: what.into(),
            expected,
            found,
        }),
        _ => Ok(()),
    }
}

fn length_mismatch(what: &str, n: usize, shape: &[usize], len: usize) -> Error {
    Error::ShapeMismatch(format!(
        "cannot copy {what} of {n} elements to or from an array of shape {shape:?} ({len} elements)"
    ))
}

impl<T: DeviceScalar> DeviceArray<T> {
    /// The array's memory, checked to be usable by a copy on `stream`.
    fn on(&self, stream: &Stream) -> Result<()> {
        let buf = self.buffer();
        check_on("the array", buf.backend(), buf.device(), stream)
    }

    /// Copies the elements to the host after the work queued on `stream`
    /// (Numba's `copy_to_host(stream=stream)`), waiting for the copy.
    ///
    /// # Errors
    /// Backend mismatch errors; CUDA driver errors and [`Error::DeviceFault`].
    pub fn copy_to_host_on(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        self.on(stream)?;
        // SAFETY: `make_valid` runs on the bytes right after the copy.
        let bytes = unsafe { as_bytes_mut(&mut out) };
        let read = stream.handle().read(self.buffer(), bytes);
        T::make_valid(bytes);
        read?;
        Ok(out)
    }

    /// Overwrites the elements with `src`, queued on `stream`; `src` may be
    /// reused as soon as this returns.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the lengths differ; backend mismatch and
    /// CUDA driver errors.
    pub fn copy_from_host_on(&mut self, src: &[T], stream: &Stream) -> Result<()> {
        if src.len() != self.len() {
            return Err(length_mismatch("a host slice", src.len(), self.shape(), self.len()));
        }
        self.on(stream)?;
        stream.handle().write(self.buffer_mut(), as_bytes(src))
    }

    /// Copies the elements into `dst` asynchronously on `stream`: the call
    /// returns at once on a GPU, and `dst`'s [`as_slice`](PinnedArray::as_slice)
    /// waits for the copy.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the lengths differ; backend mismatch and
    /// CUDA driver errors.
    pub fn copy_to_pinned(&self, dst: &mut PinnedArray<T>, stream: &Stream) -> Result<()>
    where
        T: PodScalar,
    {
        if dst.len() != self.len() {
            return Err(length_mismatch("a pinned array", dst.len(), self.shape(), self.len()));
        }
        self.on(stream)?;
        check_on("the pinned array", dst.buf.backend(), dst.buf.device(), stream)?;
        stream
            .handle()
            .read_to_pinned(self.buffer(), &mut *dst.buf, self.size_bytes())
    }

    /// Overwrites the elements with `src` asynchronously on `stream`; writing
    /// to `src` ([`as_mut_slice`](PinnedArray::as_mut_slice)) waits for the copy.
    ///
    /// # Errors
    /// As [`copy_to_pinned`](DeviceArray::copy_to_pinned).
    pub fn copy_from_pinned(&mut self, src: &PinnedArray<T>, stream: &Stream) -> Result<()>
    where
        T: PodScalar,
    {
        if src.len() != self.len() {
            return Err(length_mismatch("a pinned array", src.len(), self.shape(), self.len()));
        }
        self.on(stream)?;
        check_on("the pinned array", src.buf.backend(), src.buf.device(), stream)?;
        let bytes = self.size_bytes();
        stream.handle().write_from_pinned(self.buffer_mut(), &*src.buf, bytes)
    }

    /// Overwrites the elements with those of `src`, an array of the same
    /// length on the same GPU (Numba's `copy_to_device(ary)`), on the
    /// default stream.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`]; [`Error::WrongDevice`]; CUDA driver errors.
    ///
    /// ```
    /// # fn main() -> gpujit::Result<()> {
    /// let a = gpujit::to_device(&[1.5f64, 2.5])?;
    /// let mut b = gpujit::zeros::<f64>(2)?;
    /// b.copy_from_device(&a)?;
    /// assert_eq!(b.copy_to_host()?, [1.5, 2.5]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn copy_from_device(&mut self, src: &DeviceArray<T>) -> Result<()> {
        if src.len() != self.len() {
            return Err(length_mismatch("a device array", src.len(), self.shape(), self.len()));
        }
        let (from, to) = (src.buffer(), self.buffer());
        if from.backend() != to.backend() {
            return Err(Error::WrongBackend {
                array: from.backend().to_string(),
                launch: to.backend().to_string(),
            });
        }
        check_device("the source array", to.device(), from.device())?;
        self.buffer_mut().copy_from(src.buffer())
    }
}
