//! Bounds-checked array views used by the CPU version of a kernel.
//!
//! A [`View`] is what an array parameter (`&[T]`, `&mut [T]`, `ArrayViewN`,
//! `ArrayViewMutN`) or a `shared_array` becomes in the native Rust code that
//! `#[gpu_kernel]` generates. Every access checks each index against its own
//! dimension (ndarray semantics); an out-of-bounds access records a fault on the
//! [`Thread`] and reads `T::default()` / drops the write. It is never undefined
//! behaviour and never a panic.

use std::fmt;
use std::marker::PhantomData;

use crate::cpu::Thread;
use crate::kernel_def::{ArgPtr, KernelArg};
use crate::scalar::DeviceScalar;

/// Where the elements of a [`View`] live, as in CUDA's memory spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// A kernel argument (a [`DeviceArray`](crate::DeviceArray)), CUDA global memory.
    Global,
    /// A `shared_array` of the block, CUDA `__shared__` memory.
    Shared,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Shared => "shared",
        })
    }
}

/// A 1-3-D, C-order (row-major) view of elements of type `T` for the CPU
/// backend: element `(i, j)` of a 2-D view of shape `[n, m]` is at flat offset
/// `i * m + j`, element `(i, j, k)` of shape `[n, m, p]` at `(i * m + j) * p + k`.
///
/// Copying a view copies the pointer, not the elements.
pub struct View<T> {
    ptr: *mut T,
    /// Shape; axes past `ndim` are 1 (all 0 for the empty view).
    dims: [usize; 3],
    ndim: u8,
    /// `dims[0] * dims[1] * dims[2]`.
    len: usize,
    space: Space,
    name: &'static str,
    /// Whether stores are allowed (read-only parameters reject them).
    writable: bool,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for View<T> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for View<T> {}

// SAFETY: a `View` is a raw pointer plus a shape. The CPU backend hands views
// of one launch to the worker threads that run its blocks. Accesses are always
// bounds-checked against an allocation that outlives the launch (a
// `DeviceArray` borrowed for the launch, or the block's shared-memory buffer
// that outlives every thread of the block), so no access leaves the allocation.
// Threads of different blocks touch the same global element only when the
// kernel itself races, exactly as it would on a GPU (where the result is
// equally unspecified); shared memory is only touched by the threads of one
// block, which run on one OS thread.
unsafe impl<T> Send for View<T> {}
// SAFETY: see `Send` above; a `View` has no interior state besides the pointee.
unsafe impl<T> Sync for View<T> {}

impl<T> fmt::Debug for View<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "View({} array `{}` of shape {})",
            self.space,
            self.name,
            ShapeFmt(self.shape_slice())
        )
    }
}

impl<T> View<T> {
    fn shape_slice(&self) -> &[usize] {
        &self.dims[..usize::from(self.ndim).min(3)]
    }
}

impl<T: DeviceScalar> View<T> {
    /// The view of an array argument named `name` (for fault messages).
    ///
    /// Valid for a [`KernelArg::Array`] whose pointer is [`ArgPtr::Host`], whose
    /// element type is `T` and whose shape has 1-3 dimensions. For anything else
    /// (which launch validation rules out) it returns an empty view: every
    /// access to it faults.
    #[inline]
    pub fn from_arg(arg: &KernelArg<'_>, name: &'static str) -> View<T> {
        if let KernelArg::Array(a) = arg {
            if let ArgPtr::Host(p) = a.ptr {
                let aligned = p.cast::<T>().is_aligned();
                if a.elem == T::TYPE && !p.is_null() && aligned {
                    if let Some(v) = Self::make(p.cast::<T>(), a.shape, Space::Global, name, a.mutable) {
                        return v;
                    }
                }
            }
        }
        Self::empty(Space::Global, name)
    }

    /// A shared-memory view of `dims` elements starting at `ptr`.
    ///
    /// The caller ([`Thread::shared`]) has checked that the elements lie in the
    /// block's shared buffer and that `ptr` is aligned for `T`. Invalid `dims`
    /// (0 or more than 3 dimensions, overflowing size) give an empty view.
    #[inline]
    pub(crate) fn shared(ptr: *mut T, dims: &[usize], name: &'static str) -> View<T> {
        Self::make(ptr, dims, Space::Shared, name, true).unwrap_or_else(|| Self::empty(Space::Shared, name))
    }

    /// A view with no elements; every access faults.
    #[inline]
    pub(crate) fn empty(space: Space, name: &'static str) -> View<T> {
        View {
            ptr: std::ptr::NonNull::<T>::dangling().as_ptr(),
            dims: [0; 3],
            ndim: 1,
            len: 0,
            space,
            name,
            writable: false,
            _t: PhantomData,
        }
    }

    fn make(ptr: *mut T, shape: &[usize], space: Space, name: &'static str, writable: bool) -> Option<View<T>> {
        if shape.is_empty() || shape.len() > 3 {
            return None;
        }
        let mut dims = [1usize; 3];
        dims[..shape.len()].copy_from_slice(shape);
        let len = dims[0].checked_mul(dims[1])?.checked_mul(dims[2])?;
        // `ndim` is 1..=3 here, so the cast is lossless.
        Some(View {
            ptr,
            dims,
            ndim: shape.len() as u8,
            len,
            space,
            name,
            writable,
            _t: PhantomData,
        })
    }

    /// Total number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of dimensions (1-3).
    #[inline]
    pub fn ndim(&self) -> usize {
        usize::from(self.ndim)
    }

    /// Length of axis `k` (0 = outermost) in elements; 0 if `k >= ndim`.
    #[inline]
    pub fn dim(&self, k: usize) -> usize {
        if k < usize::from(self.ndim) {
            self.dims[k]
        } else {
            0
        }
    }

    /// `(dim(0), dim(1))`, ndarray's `dim()` of a 2-D view.
    #[inline]
    pub fn dim2(&self) -> (usize, usize) {
        (self.dim(0), self.dim(1))
    }

    /// `(dim(0), dim(1), dim(2))`, ndarray's `dim()` of a 3-D view.
    #[inline]
    pub fn dim3(&self) -> (usize, usize, usize) {
        (self.dim(0), self.dim(1), self.dim(2))
    }

    /// Reads element `i` (flat index); faults and returns `T::default()` if
    /// `i >= len()`.
    #[inline]
    pub fn ld(&self, t: &Thread<'_>, i: usize) -> T {
        if i < self.len {
            // SAFETY: `i < len` and the view covers `len` elements of its allocation.
            unsafe { self.ptr.add(i).read() }
        } else {
            self.oob(t, &[i]);
            T::default()
        }
    }

    /// Writes element `i` (flat index); faults and drops the write if
    /// `i >= len()` or the view is read-only.
    #[inline]
    pub fn st(&self, t: &Thread<'_>, i: usize, v: T) {
        if i < self.len && self.writable {
            // SAFETY: `i < len` and the view covers `len` elements of its allocation.
            unsafe { self.ptr.add(i).write(v) }
        } else {
            self.bad_store(t, &[i]);
        }
    }

    /// Reads element `[i, j]`; faults and returns `T::default()` unless
    /// `i < dim(0)` and `j < dim(1)`.
    #[inline]
    pub fn ld2(&self, t: &Thread<'_>, i: usize, j: usize) -> T {
        if i < self.dims[0] && j < self.dims[1] {
            // SAFETY: i < d0 and j < d1, so i * d1 + j < d0 * d1 <= len.
            unsafe { self.ptr.add(i * self.dims[1] + j).read() }
        } else {
            self.oob(t, &[i, j]);
            T::default()
        }
    }

    /// Writes element `[i, j]`; faults and drops the write unless
    /// `i < dim(0)`, `j < dim(1)` and the view is writable.
    #[inline]
    pub fn st2(&self, t: &Thread<'_>, i: usize, j: usize, v: T) {
        if i < self.dims[0] && j < self.dims[1] && self.writable {
            // SAFETY: i < d0 and j < d1, so i * d1 + j < d0 * d1 <= len.
            unsafe { self.ptr.add(i * self.dims[1] + j).write(v) }
        } else {
            self.bad_store(t, &[i, j]);
        }
    }

    /// Reads element `[i, j, k]`; faults and returns `T::default()` unless each
    /// index is below its dimension.
    #[inline]
    pub fn ld3(&self, t: &Thread<'_>, i: usize, j: usize, k: usize) -> T {
        if i < self.dims[0] && j < self.dims[1] && k < self.dims[2] {
            // SAFETY: each index is below its dimension, so the offset is < len.
            unsafe { self.ptr.add((i * self.dims[1] + j) * self.dims[2] + k).read() }
        } else {
            self.oob(t, &[i, j, k]);
            T::default()
        }
    }

    /// Writes element `[i, j, k]`; faults and drops the write unless each index
    /// is below its dimension and the view is writable.
    #[inline]
    pub fn st3(&self, t: &Thread<'_>, i: usize, j: usize, k: usize, v: T) {
        if i < self.dims[0] && j < self.dims[1] && k < self.dims[2] && self.writable {
            // SAFETY: each index is below its dimension, so the offset is < len.
            unsafe { self.ptr.add((i * self.dims[1] + j) * self.dims[2] + k).write(v) }
        } else {
            self.bad_store(t, &[i, j, k]);
        }
    }

    #[cold]
    #[inline(never)]
    fn oob(&self, t: &Thread<'_>, index: &[usize]) {
        t.fault(OutOfBounds {
            index,
            space: self.space,
            name: self.name,
            shape: self.shape_slice(),
        });
    }

    #[cold]
    #[inline(never)]
    fn bad_store(&self, t: &Thread<'_>, index: &[usize]) {
        let in_bounds = match index {
            [i] => *i < self.len,
            [i, j] => *i < self.dims[0] && *j < self.dims[1],
            [i, j, k] => *i < self.dims[0] && *j < self.dims[1] && *k < self.dims[2],
            _ => false,
        };
        if in_bounds {
            t.fault(format_args!(
                "write to read-only {} array `{}`; declare the parameter as `&mut [T]` or `ArrayViewMutN` (gpujit bug if it is)",
                self.space, self.name
            ));
        } else {
            self.oob(t, index);
        }
    }
}

/// Formats `[a, b, c]`.
struct ShapeFmt<'a>(&'a [usize]);

impl fmt::Display for ShapeFmt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (n, v) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str("]")
    }
}

/// The message of an out-of-bounds fault, formatted only when it is kept.
struct OutOfBounds<'a> {
    index: &'a [usize],
    space: Space,
    name: &'static str,
    shape: &'a [usize],
}

impl fmt::Display for OutOfBounds<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "index {} is out of bounds for {} array `{}` of shape {}",
            ShapeFmt(self.index),
            self.space,
            self.name,
            ShapeFmt(self.shape)
        )
    }
}

/// Integer division and remainder with GPU-like, fault-reporting semantics:
/// division by zero records the fault "integer division by zero" and yields 0;
/// `MIN / -1` wraps to `MIN` (and `MIN % -1` is 0) instead of panicking.
///
/// The macro rewrites integer `/` and `%` in kernels to [`Thread::div`] and
/// [`Thread::rem`], which call these.
pub trait IntDiv: Copy {
    /// `self / rhs`, truncating toward zero; 0 and a fault if `rhs == 0`.
    fn div_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
    /// `self % rhs` (sign of `self`); 0 and a fault if `rhs == 0`.
    fn rem_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
}

macro_rules! int_div {
    ($($t:ty),*) => {$(
        impl IntDiv for $t {
            #[inline]
            fn div_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero");
                    0
                } else {
                    self.wrapping_div(rhs)
                }
            }
            #[inline]
            fn rem_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero");
                    0
                } else {
                    self.wrapping_rem(rhs)
                }
            }
        }
    )*};
}
int_div!(u8, i32, i64, u32, u64, usize);
