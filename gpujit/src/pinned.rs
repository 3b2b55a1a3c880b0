//! Page-locked host arrays for asynchronous copies (Numba's
//! `cuda.pinned_array`).

use std::marker::PhantomData;

use crate::backend::PinnedBuffer;
use crate::error::{Error, Result};
use crate::scalar::PodScalar;
use crate::select::current_backend;

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
    let buf = current_backend()?.alloc_pinned(bytes)?;
    Ok(PinnedArray {
        buf,
        len,
        _t: PhantomData,
    })
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
    /// The backend's memory: at least `len` elements' bytes, aligned to 16.
    pub(crate) buf: Box<dyn PinnedBuffer>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: PodScalar> PinnedArray<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
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
        let bytes = self.buf.bytes()?;
        // SAFETY: a `PinnedBuffer` is aligned to at least 16 bytes (CUDA:
        // page-aligned by cuMemHostAlloc; CPU: 16-byte words), so aligned for
        // `T`, and holds at least `len * size_of::<T>()` initialised bytes
        // (zeroed at allocation, then only written with whole elements);
        // every bit pattern is a valid `T` (`PodScalar` is sealed to
        // primitive numbers, any bit pattern valid). The borrow of `self`
        // keeps the memory alive and, being shared, rules out a new
        // asynchronous write (those take `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), self.len) })
    }

    /// The elements, writable, after the copies queued on the array have finished.
    ///
    /// # Errors
    /// CUDA driver errors.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        let len = self.len;
        let bytes = self.buf.bytes_mut()?;
        // SAFETY: as in `as_slice`; the `&mut self` borrow is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
    }
}
