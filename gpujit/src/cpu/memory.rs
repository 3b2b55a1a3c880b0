//! The CPU backend's memory: the host buffer behind a
//! [`DeviceArray`](crate::DeviceArray) (zero-filled, aligned to 16 bytes, so
//! that atomic views of any element type are aligned), and the ordinary
//! memory behind a [`PinnedArray`](crate::PinnedArray).

use std::fmt;

use crate::backend::PinnedBuffer;
use crate::buffer::sealed::Sealed;
use crate::buffer::{check_range, ArgPtr, DeviceBuffer};
use crate::detect::BackendKind;
use crate::error::{Error, Result};

/// Zero-filled host memory aligned to 16 bytes: the buffer of the CPU backend.
pub(crate) struct HostBuffer {
    /// Start of the allocation (dangling, but aligned, when `bytes == 0`).
    ptr: std::ptr::NonNull<u8>,
    bytes: usize,
}

// SAFETY: the buffer owns its allocation; all accesses go through the raw
// pointer with `&self`/`&mut self` discipline for host copies. Kernels access it
// through bounds-checked `View`s while the owning `DeviceArray` is borrowed.
unsafe impl Send for HostBuffer {}
// SAFETY: see `Send`; `&HostBuffer` only allows reads from the host.
unsafe impl Sync for HostBuffer {}

const HOST_ALIGN: usize = 16;

impl HostBuffer {
    /// Allocates `bytes` zeroed bytes, aligned to 16.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] if the size is too large for the host or the
    /// allocation fails.
    pub fn new_zeroed(bytes: usize) -> Result<HostBuffer> {
        if bytes == 0 {
            return Ok(HostBuffer {
                ptr: std::ptr::NonNull::<u128>::dangling().cast(),
                bytes,
            });
        }
        let layout = std::alloc::Layout::from_size_align(bytes, HOST_ALIGN).map_err(|_| {
            Error::OutOfRange(format!(
                "{bytes} bytes is more memory than this host can address; use a smaller array"
            ))
        })?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        match std::ptr::NonNull::new(ptr) {
            Some(ptr) => Ok(HostBuffer { ptr, bytes }),
            None => Err(Error::OutOfRange(format!(
                "cannot allocate {bytes} bytes of host memory for an array (out of memory); use a smaller array"
            ))),
        }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if self.bytes > 0 {
            // SAFETY: allocated in `new_zeroed` with exactly this layout (which was valid then).
            unsafe {
                std::alloc::dealloc(
                    self.ptr.as_ptr(),
                    std::alloc::Layout::from_size_align_unchecked(self.bytes, HOST_ALIGN),
                );
            }
        }
    }
}

impl fmt::Debug for HostBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HostBuffer({} bytes at {:p})", self.bytes, self.ptr)
    }
}

impl Sealed for HostBuffer {}

impl DeviceBuffer for HostBuffer {
    fn backend(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device(&self) -> Option<usize> {
        None
    }

    fn byte_len(&self) -> usize {
        self.bytes
    }

    fn arg_ptr(&self) -> ArgPtr {
        ArgPtr::Host(self.ptr.as_ptr())
    }

    fn read(&self, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        check_range(byte_offset, dst.len(), self.bytes, "a read")?;
        // SAFETY: the range lies in the allocation (checked above); `dst` is a
        // distinct Rust borrow, so the regions do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(byte_offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn write(&mut self, byte_offset: usize, src: &[u8]) -> Result<()> {
        check_range(byte_offset, src.len(), self.bytes, "a write")?;
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(byte_offset), src.len()) };
        Ok(())
    }

    fn copy_from(&mut self, src: &dyn DeviceBuffer) -> Result<()> {
        // Through the host, as any buffer reads: `src` may be any CPU buffer.
        let mut tmp = vec![0u8; self.bytes];
        src.read(0, &mut tmp)?;
        self.write(0, &tmp)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A pinned array's memory on the CPU backend: an ordinary `Vec`, of 16-byte
/// words so that it is aligned for every element type, zero-filled. Copies
/// to and from it happen during the call, so there is nothing to wait for.
#[derive(Debug)]
pub(crate) struct CpuPinned(Vec<u128>);

impl CpuPinned {
    /// At least `bytes` zeroed bytes.
    pub fn zeroed(bytes: usize) -> CpuPinned {
        CpuPinned(vec![0; bytes.div_ceil(16)])
    }
}

impl Sealed for CpuPinned {}

impl PinnedBuffer for CpuPinned {
    fn backend(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device(&self) -> Option<usize> {
        None
    }

    fn bytes(&self) -> Result<&[u8]> {
        let words = &self.0;
        // SAFETY: `u128` has no padding, so every byte of the words is
        // initialised; `u8` has alignment 1 and the length is the words'
        // size in bytes, so the slice views exactly their memory, borrowed
        // as `self` is.
        Ok(unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(&words[..])) })
    }

    fn bytes_mut(&mut self) -> Result<&mut [u8]> {
        let words = &mut self.0;
        let len = std::mem::size_of_val(&words[..]);
        // SAFETY: as in `bytes`; every bit pattern is a valid `u128`, so any
        // bytes written leave valid words; the borrow of `self` is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_buffer_bounds() {
        let mut b = HostBuffer::new_zeroed(10).unwrap();
        assert_eq!(b.byte_len(), 10);
        assert!(matches!(b.arg_ptr(), ArgPtr::Host(p) if p.cast::<u128>().is_aligned()));
        b.write(8, &[1, 2]).unwrap();
        let mut out = [9u8; 10];
        b.read(0, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
        assert!(matches!(b.write(9, &[1, 2]), Err(Error::OutOfRange(_))));
        assert!(matches!(b.read(11, &mut []), Err(Error::OutOfRange(_))));
        assert!(matches!(b.read(usize::MAX, &mut [0u8; 2]), Err(Error::OutOfRange(_))));
        assert!(matches!(b.write(usize::MAX, &[0u8; 1]), Err(Error::OutOfRange(_))));
        let empty = HostBuffer::new_zeroed(0).unwrap();
        empty.read(0, &mut []).unwrap();
        assert!(HostBuffer::new_zeroed(usize::MAX).is_err());
    }
}
