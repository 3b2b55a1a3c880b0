//! Copies on a [`Stream`] and between arrays (Numba's `to_device(a,
//! stream=s)`, `copy_to_host(stream=s)`, `copy_to_device`).
//!
//! CPU backend: every copy happens during the call. CUDA backend: copies
//! queue on the stream after the work already there; see [`crate::stream`]
//! for when the host memory is used.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::array::{as_bytes, as_bytes_mut, DeviceArray, HostData};
use crate::cuda::{CudaBuffer, Device};
use crate::error::{Error, Result};
use crate::pinned::{Inner as PinnedInner, PinnedArray};
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
    let (shape, data) = crate::array::checked_c_order(host)?;
    let mut array = DeviceArray::<T>::zeros(shape)?;
    array.copy_from_host_on(&data, stream)?;
    Ok(array)
}

/// An array's GPU memory, its GPU and a stream of that GPU.
type OnStream<'a> = (&'a CudaBuffer, &'a Arc<Device>, &'a Arc<CudaStream>);

/// The CUDA buffer of an array and the stream, checked to be on one GPU;
/// `None` on the CPU backend.
fn on_stream<'a>(buf: &'a dyn crate::buffer::DeviceBuffer, stream: &'a Stream) -> Result<Option<OnStream<'a>>> {
    let Some(b) = buf.as_any().downcast_ref::<CudaBuffer>() else {
        return match stream.backend() {
            crate::BackendKind::Cpu => Ok(None),
            k => Err(Error::WrongBackend {
                array: buf.backend().to_string(),
                launch: k.to_string(),
            }),
        };
    };
    let (device, s) = stream.cuda()?;
    check_device("the array", device, &b.device)?;
    Ok(Some((b, device, s)))
}

fn check_device(what: &str, expected: &Device, found: &Device) -> Result<()> {
    if expected.ordinal == found.ordinal {
        Ok(())
    } else {
        Err(Error::WrongDevice {
            what: what.into(),
            expected: expected.ordinal,
            found: found.ordinal,
        })
    }
}

fn length_mismatch(what: &str, n: usize, shape: &[usize], len: usize) -> Error {
    Error::ShapeMismatch(format!(
        "cannot copy {what} of {n} elements to or from an array of shape {shape:?} ({len} elements)"
    ))
}

impl<T: DeviceScalar> DeviceArray<T> {
    /// Copies the elements to the host after the work queued on `stream`
    /// (Numba's `copy_to_host(stream=stream)`), waiting for the copy.
    ///
    /// # Errors
    /// Backend mismatch errors; CUDA driver errors and [`Error::DeviceFault`].
    pub fn copy_to_host_on(&self, stream: &Stream) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        match on_stream(self.buffer(), stream)? {
            None => self.copy_to_host_into(&mut out)?,
            Some((b, _, s)) => {
                // SAFETY: `make_valid` runs on the bytes right after the copy.
                let bytes = unsafe { as_bytes_mut(&mut out) };
                let read = b.read_on(s, 0, bytes);
                T::make_valid(bytes);
                read?
            }
        }
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
        match on_stream(self.buffer(), stream)? {
            None => self.copy_from_host(src),
            Some((_, _, s)) => {
                let s = s.clone();
                let b = self.cuda_buffer_mut().ok_or_else(internal)?;
                b.write_on(&s, 0, as_bytes(src))
            }
        }
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
        match (on_stream(self.buffer(), stream)?, &mut dst.inner) {
            (None, PinnedInner::Cpu(v)) => self.copy_to_host_into(v),
            (Some((b, device, s)), PinnedInner::Cuda { device: pd, slice, .. }) => {
                check_device("the pinned array", device, pd)?;
                let n = self.size_bytes();
                if n == 0 {
                    return Ok(());
                }
                let src = b.slice.slice(0..n);
                let mut dst_view = slice_prefix(slice, n);
                s.memcpy_dtoh(&src, &mut dst_view)
                    .map_err(|e| device.err("cuMemcpyDtoHAsync", e))
            }
            _ => Err(internal()),
        }
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
        let (device, s) = match (on_stream(self.buffer(), stream)?, &src.inner) {
            (None, PinnedInner::Cpu(v)) => return self.copy_from_host(v),
            (Some((_, device, s)), PinnedInner::Cuda { device: pd, .. }) => {
                check_device("the pinned array", device, pd)?;
                (device.clone(), s.clone())
            }
            _ => return Err(internal()),
        };
        let n = self.size_bytes();
        let PinnedInner::Cuda { slice, .. } = &src.inner else {
            return Err(internal());
        };
        if n == 0 {
            return Ok(());
        }
        let b = self.cuda_buffer_mut().ok_or_else(internal)?;
        let mut dst = b.slice.slice_mut(0..n);
        s.memcpy_htod(&PinnedPrefix(slice, n), &mut dst)
            .map_err(|e| device.err("cuMemcpyHtoDAsync", e))
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
        let n = self.size_bytes();
        let src_cuda = src.buffer().as_any().downcast_ref::<CudaBuffer>();
        match (src_cuda, self.cuda_buffer_mut()) {
            (Some(sb), Some(db)) => {
                check_device("the source array", &db.device, &sb.device)?;
                if n == 0 {
                    return Ok(());
                }
                let device = db.device.clone();
                let s = device.stream.clone();
                let mut dst = db.slice.slice_mut(0..n);
                s.memcpy_dtod(&sb.slice.slice(0..n), &mut dst)
                    .map_err(|e| device.err("cuMemcpyDtoDAsync", e))
            }
            (None, None) => {
                let mut tmp = vec![0u8; n];
                src.buffer().read(0, &mut tmp)?;
                self.buffer_mut().write(0, &tmp)
            }
            _ => Err(Error::WrongBackend {
                array: src.buffer().backend().to_string(),
                launch: self.buffer().backend().to_string(),
            }),
        }
    }

    fn cuda_buffer_mut(&mut self) -> Option<&mut CudaBuffer> {
        self.buffer_mut().as_any_mut().downcast_mut::<CudaBuffer>()
    }
}

fn internal() -> Error {
    Error::WrongBackend {
        array: "CPU".into(),
        launch: "CUDA".into(),
    }
}

/// The first `n` bytes of a pinned slice, as a cudarc host destination that
/// keeps the pinned slice's event protocol.
fn slice_prefix(slice: &mut cudarc::driver::PinnedHostSlice<u8>, n: usize) -> PinnedPrefixMut<'_> {
    PinnedPrefixMut(slice, n)
}

struct PinnedPrefix<'a>(&'a cudarc::driver::PinnedHostSlice<u8>, usize);
struct PinnedPrefixMut<'a>(&'a mut cudarc::driver::PinnedHostSlice<u8>, usize);

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
