//! Page-locked host arrays for asynchronous copies (Numba's
//! `cuda.pinned_array`).

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::PinnedHostSlice;

use crate::cuda::Device;
use crate::error::{Error, Result};
use crate::scalar::PodScalar;
use crate::stream::cuda_backend;

/// A zero-filled host array of `len` elements in page-locked memory, which
/// copies on a stream ([`DeviceArray::copy_to_pinned`](crate::DeviceArray::copy_to_pinned),
/// [`DeviceArray::copy_from_pinned`](crate::DeviceArray::copy_from_pinned))
/// use asynchronously. gpujit owns the memory: reading or writing it
/// ([`as_slice`](PinnedArray::as_slice), [`as_mut_slice`](PinnedArray::as_mut_slice))
/// and dropping it first wait for the copies queued on it. On the CPU backend
/// it is ordinary memory and copies are immediate.
///
/// # Errors
/// [`Error::InvalidShape`] if the size overflows; CUDA driver errors
/// (`CUDA_ERROR_OUT_OF_MEMORY` when page-locked memory runs out).
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let stream = gpujit::stream()?;
/// let d = gpujit::to_device(&[1u32, 2, 3])?;
/// let mut host = gpujit::pinned_array::<u32>(3)?;
/// d.copy_to_pinned(&mut host, &stream)?; // asynchronous on a GPU
/// assert_eq!(host.as_slice()?, [1, 2, 3]); // waits for the copy
/// # Ok(())
/// # }
/// ```
pub fn pinned_array<T: PodScalar>(len: usize) -> Result<PinnedArray<T>> {
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::InvalidShape(format!("a pinned array of {len} elements is too large")))?;
    let inner = match cuda_backend()? {
        None => Inner::Cpu(vec![T::default(); len]),
        Some(b) => {
            let device = b.current()?.clone();
            // SAFETY: the memory is zeroed right below, before any read.
            let mut slice = unsafe { device.ctx.alloc_pinned_with_flags::<u8>(bytes.max(1), 0) }
                .map_err(|e| device.err("cuMemHostAlloc", e))?;
            slice
                .as_mut_slice()
                .map_err(|e| device.err("cuEventSynchronize", e))?
                .fill(0);
            Inner::Cuda { device, slice, len }
        }
    };
    Ok(PinnedArray { inner, _t: PhantomData })
}

/// A host array of `T` in page-locked (pinned) memory, made by
/// [`pinned_array`] (Numba's `cuda.pinned_array`, CUDA's `cuMemHostAlloc`):
/// the source or target of copies on a [`Stream`](crate::Stream) that run
/// asynchronously on the CUDA backend. Length in elements. Reading or
/// writing its elements ([`as_slice`](PinnedArray::as_slice),
/// [`as_mut_slice`](PinnedArray::as_mut_slice)) and dropping it first wait
/// for the copies queued on it, so no copy can race with your code. On the
/// CPU backend it is an ordinary `Vec` and copies are immediate.
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let stream = gpujit::stream()?;
/// let mut host = gpujit::pinned_array::<f32>(4)?;
/// host.as_mut_slice()?.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// let mut d = gpujit::zeros::<f32>(4)?;
/// d.copy_from_pinned(&host, &stream)?;    // host to device, asynchronous on a GPU
/// let mut back = gpujit::pinned_array::<f32>(4)?;
/// d.copy_to_pinned(&mut back, &stream)?;  // device to host, queued after it
/// assert_eq!(back.as_slice()?, [1.0, 2.0, 3.0, 4.0]); // waits for the copy
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct PinnedArray<T: PodScalar> {
    pub(crate) inner: Inner<T>,
    _t: PhantomData<T>,
}

#[derive(Debug)]
pub(crate) enum Inner<T> {
    Cpu(Vec<T>),
    Cuda {
        device: Arc<Device>,
        /// At least one byte (a zero-length pinned allocation is refused);
        /// `len` elements of `T` are in use.
        slice: PinnedHostSlice<u8>,
        len: usize,
    },
}

impl<T: PodScalar> PinnedArray<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Cpu(v) => v.len(),
            Inner::Cuda { len, .. } => *len,
        }
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements, after the copies queued on the array have finished.
    ///
    /// # Errors
    /// CUDA driver errors (a failed copy).
    pub fn as_slice(&self) -> Result<&[T]> {
        match &self.inner {
            Inner::Cpu(v) => Ok(v),
            Inner::Cuda { device, slice, len } => {
                let bytes = slice.as_slice().map_err(|e| device.err("cuEventSynchronize", e))?;
                // SAFETY: the allocation is page-aligned (cuMemHostAlloc), so
                // aligned for `T`, and holds at least `len * size_of::<T>()`
                // initialised bytes (zeroed at allocation, then only written
                // with whole elements); every bit pattern is a valid `T`
                // (`PodScalar` is sealed to primitive numbers, any bit pattern valid). The borrow
                // of `self` keeps the memory alive and, being shared, rules
                // out a new asynchronous write (those take `&mut self`).
                Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), *len) })
            }
        }
    }

    /// The elements, writable, after the copies queued on the array have finished.
    ///
    /// # Errors
    /// CUDA driver errors.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        match &mut self.inner {
            Inner::Cpu(v) => Ok(v),
            Inner::Cuda { device, slice, len } => {
                let len = *len;
                let bytes = slice.as_mut_slice().map_err(|e| device.err("cuEventSynchronize", e))?;
                // SAFETY: as in `as_slice`; the `&mut self` borrow is exclusive.
                Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
            }
        }
    }
}
