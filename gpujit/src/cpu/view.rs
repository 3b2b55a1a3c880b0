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

use crate::buffer::ArgPtr;
use crate::cpu::atomics::{AtomicOp, AtomicScalar};
use crate::cpu::check::Kind;
use crate::cpu::Thread;
use crate::kernel_def::KernelArg;
use crate::scalar::DeviceScalar;

/// Where the elements of a [`View`] live, as in CUDA's memory spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// A kernel argument (a [`DeviceArray`](crate::DeviceArray)), CUDA global memory.
    Global,
    /// A `shared_array` of the block, CUDA `__shared__` memory.
    Shared,
    /// A thread's local array (`let a = [0.0f32; N];`), CUDA local memory.
    Local,
    /// A module `const` array, CUDA `__constant__` memory.
    Constant,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Constant => "constant",
        })
    }
}

/// The memory space of a [`View`] as a type: [`GlobalMem`] or [`SharedMem`].
///
/// Sealed: the CPU backend's soundness argument depends on which spaces exist.
pub trait Mem: sealed::Sealed {
    /// The space, for fault messages.
    const SPACE: Space;
}

/// Marker of views of kernel arguments (CUDA global memory). Such views are
/// `Send + Sync`: the blocks of a launch run on several OS threads.
#[derive(Debug, Clone, Copy)]
pub struct GlobalMem;

/// Marker of views of a block's `shared_array` (CUDA `__shared__` memory).
/// Such views are neither `Send` nor `Sync`: all threads of one block run on
/// one OS thread, which is what makes plain accesses to them sound.
#[derive(Debug, Clone, Copy)]
pub struct SharedMem;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::GlobalMem {}
    impl Sealed for super::SharedMem {}
}

impl Mem for GlobalMem {
    const SPACE: Space = Space::Global;
}

impl Mem for SharedMem {
    const SPACE: Space = Space::Shared;
}

/// What records a view's fault for one of its threads (the running block
/// does, see `Block`), so that views need nothing above them. The cold paths
/// take it with the thread's coordinates rather than a `Thread` copy.
pub(super) trait RecordsFaults {
    /// Records `message` as the fault of the block's thread `tid`.
    fn record_fault(&self, tid: [usize; 3], message: &dyn fmt::Display);
}

/// A 1-3-D, C-order (row-major) view of elements of type `T` for the CPU
/// backend: element `(i, j)` of a 2-D view of shape `[n, m]` is at flat offset
/// `i * m + j`, element `(i, j, k)` of shape `[n, m, p]` at `(i * m + j) * p + k`.
///
/// `'a` is the borrow the view was made from: the [`DeviceArray`](crate::DeviceArray)
/// borrow of its [`KernelArg`], or the [`Block`](crate::cpu::Block) of a shared array. The view
/// cannot outlive it. Copying a view copies the pointer, not the elements.
///
/// Accesses through a writable global view are relaxed atomic loads and
/// stores of the element's bits, so that threads of different blocks that race
/// on an element (as a kernel may, e.g. a flag one block polls) are not a data
/// race in Rust's sense: each read sees some value that was written. Read-only
/// global views and shared views use plain accesses (see the `Send`/`Sync`
/// impls for why no one writes those concurrently).
pub struct View<'a, T, M: Mem = GlobalMem> {
    pub(super) ptr: *mut T,
    /// Shape; axes past `ndim` are 1 (all 0 for the empty view).
    pub(super) dims: [usize; 3],
    pub(super) ndim: u8,
    /// `dims[0] * dims[1] * dims[2]`.
    pub(super) len: usize,
    pub(super) name: &'static str,
    /// Whether stores are allowed (read-only parameters reject them).
    pub(super) writable: bool,
    /// Borrows the elements for `'a`; `*mut T` makes the view `!Send + !Sync`
    /// unless an impl below says otherwise.
    _borrow: PhantomData<(&'a T, *mut T, M)>,
}

impl<T, M: Mem> Clone for View<'_, T, M> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, M: Mem> Copy for View<'_, T, M> {}

// SAFETY: a global view is a pointer into a `DeviceArray` borrowed for `'a`
// (`from_arg` is its only constructor, and a `KernelArg<'a>` can only be made
// from such a borrow), so the memory outlives every use of the view, on any
// thread. Every access is bounds-checked against that allocation. Concurrent
// accesses from several OS threads are sound:
// - a writable view comes from `KernelArg::array_mut(&'a mut DeviceArray)`, so
//   for `'a` every access to those elements goes through views of that same
//   argument, all of which (being writable) use relaxed atomic loads and
//   stores: racing threads are not a data race. The one other kind of access,
//   an own-index view's plain one (`owned.rs`), never meets them: the
//   argument's `ArgClaim` gives either atomic views (and then own-index views
//   use atomics too) or one launch's own-index views (and then `from_arg`
//   returns an empty view, whose every access faults);
// - a read-only view comes from `KernelArg::array(&'a DeviceArray)`: for `'a`
//   no `&mut` to the array, hence no writable view of its buffer, can exist
//   (two `DeviceArray`s never share a buffer: `reshape` consumes the array and
//   buffers are never cloned), so plain concurrent reads never meet a write.
// Element types are `DeviceScalar`s (plain integers, floats and `bool`, `Send + Sync`).
unsafe impl<T: Sync> Send for View<'_, T, GlobalMem> {}
// SAFETY: see `Send` above; a `View` has no interior state besides the pointee.
unsafe impl<T: Sync> Sync for View<'_, T, GlobalMem> {}

impl<T, M: Mem> fmt::Debug for View<'_, T, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "View({} array `{}` of shape {})",
            M::SPACE,
            self.name,
            ShapeFmt(self.shape_slice())
        )
    }
}

impl<T, M: Mem> View<'_, T, M> {
    fn shape_slice(&self) -> &[usize] {
        &self.dims[..usize::from(self.ndim).min(3)]
    }
}

impl<'a, T: DeviceScalar> View<'a, T, GlobalMem> {
    /// The view of an array argument named `name` (for fault messages), valid
    /// for as long as the array borrow that `arg` was made from.
    ///
    /// Valid for a [`KernelArg::Array`] whose pointer is [`ArgPtr::Host`], whose
    /// element type is `T` and whose shape has 1-3 dimensions. For anything else
    /// (which launch validation rules out) it returns an empty view: every
    /// access to it faults.
    #[inline]
    pub fn from_arg(arg: &KernelArg<'a>, name: &'static str) -> View<'a, T, GlobalMem> {
        Self::from_arg_as(arg, name, true)
    }

    /// [`View::from_arg`]; `as_shared`: the view is one of the relaxed atomic
    /// views of a written array (false only for `OwnedArg`, which claims it).
    #[inline]
    pub(super) fn from_arg_as(arg: &KernelArg<'a>, name: &'static str, as_shared: bool) -> View<'a, T, GlobalMem> {
        if let KernelArg::Array(a) = arg {
            if let ArgPtr::Host(p) = a.ptr() {
                // Atomic accesses need the element's size as alignment
                // (`HostBuffer` is 16-byte aligned, so this always holds).
                let aligned = p.cast::<T>().is_aligned() && p.addr() % std::mem::size_of::<T>() == 0;
                // A written array's views are relaxed atomic: none while one
                // launch accesses it plainly through its own-index views.
                let allowed = !as_shared || !a.mutable || a.claim.share();
                if a.elem == T::TYPE && !p.is_null() && aligned && allowed {
                    if let Some(v) = Self::make(p.cast::<T>(), a.shape, name, a.mutable) {
                        return v;
                    }
                }
            }
        }
        Self::empty(name)
    }
}

impl<'a, T: DeviceScalar> View<'a, T, SharedMem> {
    /// A shared-memory view of `dims` elements starting at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be aligned for `T` and the `product(dims)` elements from
    /// `ptr` must lie in the block's shared buffer, which must stay allocated
    /// for `'a` and be accessed only from the OS thread that runs the block.
    /// ([`Block::shared`](crate::cpu::Block::shared) checks all this.) Invalid `dims` (0 or more than 3
    /// dimensions, overflowing size) give an empty view.
    #[inline]
    pub(crate) unsafe fn shared(ptr: *mut T, dims: &[usize], name: &'static str) -> View<'a, T, SharedMem> {
        Self::make(ptr, dims, name, true).unwrap_or_else(|| Self::empty(name))
    }
}

impl<'a, T: DeviceScalar, M: Mem> View<'a, T, M> {
    /// A view with no elements; every access faults.
    #[inline]
    pub(crate) fn empty(name: &'static str) -> View<'a, T, M> {
        View {
            ptr: std::ptr::NonNull::<T>::dangling().as_ptr(),
            dims: [0; 3],
            ndim: 1,
            len: 0,
            name,
            writable: false,
            _borrow: PhantomData,
        }
    }

    fn make(ptr: *mut T, shape: &[usize], name: &'static str, writable: bool) -> Option<View<'a, T, M>> {
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
            name,
            writable,
            _borrow: PhantomData,
        })
    }

    /// Reads element `off` (in bounds).
    ///
    /// # Safety
    /// `off < self.len`.
    #[inline(always)]
    unsafe fn read_at(&self, off: usize) -> T {
        // SAFETY: the caller checked `off < len`; the view covers `len`
        // elements of its allocation, aligned for `T` and for its size.
        unsafe {
            let p = self.ptr.add(off);
            if M::SPACE == Space::Global && self.writable {
                atomic::load_relaxed(p)
            } else {
                p.read()
            }
        }
    }

    /// Writes element `off` (in bounds) of a writable view.
    ///
    /// # Safety
    /// `off < self.len` and `self.can_write()`.
    #[inline(always)]
    unsafe fn write_at(&self, off: usize, v: T) {
        // SAFETY: as in `read_at`.
        unsafe {
            let p = self.ptr.add(off);
            if M::SPACE == Space::Global {
                atomic::store_relaxed(p, v);
            } else {
                p.write(v);
            }
        }
    }

    /// Whether stores are allowed. Shared arrays always are, and saying so
    /// as a constant lets LLVM drop the test (a field it would reload after
    /// every store through the view's own pointer).
    #[inline(always)]
    fn can_write(&self) -> bool {
        M::SPACE == Space::Shared || self.writable
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

    /// Length of axis `k` as stored (1 past `ndim`, 0 for every axis of an
    /// empty view; `k` above 2 reads axis 2): what the range checks compare
    /// against, for the checks once per block of interchanged loops.
    #[doc(hidden)]
    #[inline(always)]
    pub fn extent(&self, k: usize) -> usize {
        self.dims[k.min(2)]
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
            // SAFETY: `i < len`.
            unsafe { self.read_at(i) }
        } else {
            self.oob(t.block, t.tid[0], t.tid[1], t.tid[2], &[i]);
            T::default()
        }
    }

    /// Writes element `i` (flat index); faults and drops the write if
    /// `i >= len()` or the view is read-only.
    #[inline]
    pub fn st(&self, t: &Thread<'_>, i: usize, v: T) {
        if i < self.len && self.can_write() {
            // SAFETY: `i < len` and the view is writable.
            unsafe { self.write_at(i, v) }
        } else {
            self.bad_store(t.block, t.tid[0], t.tid[1], t.tid[2], &[i]);
        }
    }

    /// Reads element `[i, j]`; faults and returns `T::default()` unless
    /// `i < dim(0)` and `j < dim(1)`.
    #[inline]
    pub fn ld2(&self, t: &Thread<'_>, i: usize, j: usize) -> T {
        if i < self.dims[0] && j < self.dims[1] {
            // SAFETY: i < d0 and j < d1, so i * d1 + j < d0 * d1 <= len.
            unsafe { self.read_at(i * self.dims[1] + j) }
        } else {
            self.oob(t.block, t.tid[0], t.tid[1], t.tid[2], &[i, j]);
            T::default()
        }
    }

    /// Writes element `[i, j]`; faults and drops the write unless
    /// `i < dim(0)`, `j < dim(1)` and the view is writable.
    #[inline]
    pub fn st2(&self, t: &Thread<'_>, i: usize, j: usize, v: T) {
        if i < self.dims[0] && j < self.dims[1] && self.can_write() {
            // SAFETY: i < d0 and j < d1, so i * d1 + j < d0 * d1 <= len; writable.
            unsafe { self.write_at(i * self.dims[1] + j, v) }
        } else {
            self.bad_store(t.block, t.tid[0], t.tid[1], t.tid[2], &[i, j]);
        }
    }

    /// Reads element `[i, j, k]`; faults and returns `T::default()` unless each
    /// index is below its dimension.
    #[inline]
    pub fn ld3(&self, t: &Thread<'_>, i: usize, j: usize, k: usize) -> T {
        if i < self.dims[0] && j < self.dims[1] && k < self.dims[2] {
            // SAFETY: each index is below its dimension, so the offset is < len.
            unsafe { self.read_at((i * self.dims[1] + j) * self.dims[2] + k) }
        } else {
            self.oob(t.block, t.tid[0], t.tid[1], t.tid[2], &[i, j, k]);
            T::default()
        }
    }

    /// Writes element `[i, j, k]`; faults and drops the write unless each index
    /// is below its dimension and the view is writable.
    #[inline]
    pub fn st3(&self, t: &Thread<'_>, i: usize, j: usize, k: usize, v: T) {
        if i < self.dims[0] && j < self.dims[1] && k < self.dims[2] && self.can_write() {
            // SAFETY: each index is below its dimension, so the offset is < len; writable.
            unsafe { self.write_at((i * self.dims[1] + j) * self.dims[2] + k, v) }
        } else {
            self.bad_store(t.block, t.tid[0], t.tid[1], t.tid[2], &[i, j, k]);
        }
    }

    // The cold paths take the view by value and the thread as its block and
    // coordinates, so that the hot path never takes an address: a `Thread`
    // passed by value (five words, so by a pointer to a copy) had LLVM build
    // that copy in the hot loop of some kernels (BENCHMARKS.md, 2026-12-05).
    #[cold]
    #[inline(never)]
    fn oob(self, block: &dyn RecordsFaults, x: usize, y: usize, z: usize, index: &[usize]) {
        block.record_fault(
            [x, y, z],
            &OutOfBounds {
                index,
                space: M::SPACE,
                name: self.name,
                shape: self.shape_slice(),
            },
        );
    }

    #[cold]
    #[inline(never)]
    fn bad_store(self, block: &dyn RecordsFaults, x: usize, y: usize, z: usize, index: &[usize]) {
        let in_bounds = match index {
            [i] => *i < self.len,
            [i, j] => *i < self.dims[0] && *j < self.dims[1],
            [i, j, k] => *i < self.dims[0] && *j < self.dims[1] && *k < self.dims[2],
            _ => false,
        };
        if in_bounds {
            block.record_fault(
                [x, y, z],
                &format_args!(
                    "write to read-only {} array `{}`; declare the parameter as `&mut [T]` or `ArrayViewMutN` (gpujit bug if it is)",
                    M::SPACE,
                    self.name
                ),
            );
        } else {
            self.oob(block, x, y, z, index);
        }
    }
}

/// Checked mode (`GPUJIT_CHECK`, `with_checks`): the accessors of the
/// macro's checked copy of a kernel, which tell the shadow memory about every
/// access before making it as [`View::ld`] & co. do. `at` is the access's
/// line in the kernel (the macro writes `Location::caller()` at the user's
/// span). Not used by any other path.
impl<T: DeviceScalar, M: Mem> View<'_, T, M> {
    /// The flat offset of `idx` (1-3 indices), if it is in bounds.
    #[inline]
    fn offset(&self, idx: &[usize]) -> Option<usize> {
        match idx {
            [i] if *i < self.len => Some(*i),
            [i, j] if *i < self.dims[0] && *j < self.dims[1] => Some(i * self.dims[1] + j),
            [i, j, k] if *i < self.dims[0] && *j < self.dims[1] && *k < self.dims[2] => {
                Some((i * self.dims[1] + j) * self.dims[2] + k)
            }
            _ => None,
        }
    }

    /// Tells the shadow memory about an access of `kind` at `idx` (nothing
    /// out of bounds, which faults as usual, or for a read-only argument,
    /// which no thread of the launch can write).
    #[inline]
    fn check(&self, t: &Thread<'_>, idx: &[usize], kind: Kind, at: &'static std::panic::Location<'static>) {
        if M::SPACE == Space::Global && !self.writable {
            return;
        }
        if let Some(off) = self.offset(idx) {
            let addr = self.ptr.wrapping_add(off) as usize;
            let size = std::mem::size_of::<T>();
            if let Some(found) = t.check_access(M::SPACE == Space::Shared, addr, size, kind, at) {
                t.report_check(found, (&M::SPACE, self.name, idx));
            }
        }
    }

    /// [`View::ld`], [`View::ld2`] or [`View::ld3`] of a checked launch.
    #[doc(hidden)]
    #[inline]
    pub fn ld_at<const N: usize>(
        &self,
        t: &Thread<'_>,
        idx: [usize; N],
        at: &'static std::panic::Location<'static>,
    ) -> T {
        self.check(t, &idx, Kind::Read, at);
        match idx.as_slice() {
            [i] => self.ld(t, *i),
            [i, j] => self.ld2(t, *i, *j),
            [i, j, k] => self.ld3(t, *i, *j, *k),
            _ => {
                self.oob(t.block, t.tid[0], t.tid[1], t.tid[2], &idx);
                T::default()
            }
        }
    }

    /// [`View::st`], [`View::st2`] or [`View::st3`] of a checked launch.
    #[doc(hidden)]
    #[inline]
    pub fn st_at<const N: usize>(
        &self,
        t: &Thread<'_>,
        idx: [usize; N],
        v: T,
        at: &'static std::panic::Location<'static>,
    ) {
        if self.can_write() {
            self.check(t, &idx, Kind::Write, at);
        }
        match idx.as_slice() {
            [i] => self.st(t, *i, v),
            [i, j] => self.st2(t, *i, *j, v),
            [i, j, k] => self.st3(t, *i, *j, *k, v),
            _ => self.bad_store(t.block, t.tid[0], t.tid[1], t.tid[2], &idx),
        }
    }
}

impl<T: AtomicScalar, M: Mem> View<'_, T, M> {
    /// [`View::atomic`] of a checked launch.
    #[doc(hidden)]
    #[inline]
    pub fn atomic_at<const N: usize>(
        &self,
        t: &Thread<'_>,
        idx: [usize; N],
        op: AtomicOp<T>,
        at: &'static std::panic::Location<'static>,
    ) -> T {
        if self.can_write() {
            self.check(t, &idx, Kind::Atomic, at);
        }
        self.atomic(t, idx, op)
    }
}

impl<T: AtomicScalar, M: Mem> View<'_, T, M> {
    /// CUDA's `atomicAdd` & co. on element `idx` (1-3 indices, checked like
    /// `ld`/`ld2`/`ld3`): applies `op` and returns the old value. Out of
    /// bounds or on a read-only view it is a fault: nothing is written and it
    /// returns `T::default()`.
    ///
    /// On a global view this is one relaxed atomic operation (other blocks
    /// run on other OS threads); on a shared view a plain read and write,
    /// which no other thread can interleave (see [`SharedMem`]).
    #[inline]
    pub fn atomic<const N: usize>(&self, t: &Thread<'_>, idx: [usize; N], op: AtomicOp<T>) -> T {
        let off = match idx.as_slice() {
            [i] if *i < self.len => Some(*i),
            [i, j] if *i < self.dims[0] && *j < self.dims[1] => Some(i * self.dims[1] + j),
            [i, j, k] if *i < self.dims[0] && *j < self.dims[1] && *k < self.dims[2] => {
                Some((i * self.dims[1] + j) * self.dims[2] + k)
            }
            _ => None,
        };
        match off {
            Some(off) if self.can_write() => {
                // SAFETY: each index is below its dimension (or the flat
                // index below `len`), so `off < len` and `ptr + off` is an
                // element of the view's allocation, aligned for `T` (a global
                // view also to `T`'s size, which atomics need: `from_arg`
                // checks it). Global: every
                // access to a writable global view is atomic (see the
                // `Send`/`Sync` impls), so an atomic RMW never races a plain
                // access. Shared: the view is `!Send + !Sync` and only the
                // block's OS thread touches the buffer, one CUDA thread at a
                // time (they switch only at `syncthreads()`), so the read and
                // the write below cannot be interleaved with another access.
                unsafe {
                    let p = self.ptr.add(off);
                    if M::SPACE == Space::Global {
                        T::atomic_rmw(p, op)
                    } else {
                        let old = p.read();
                        p.write(T::apply(op, old));
                        old
                    }
                }
            }
            _ => {
                self.bad_store(t.block, t.tid[0], t.tid[1], t.tid[2], &idx);
                T::default()
            }
        }
    }
}

/// Relaxed atomic loads and stores of a `DeviceScalar`'s bits (plain `mov`s
/// on x86-64 and AArch64, but the optimiser may not assume that no other
/// thread writes the element, e.g. hoist a polled load out of a loop).
pub(super) mod atomic {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

    use crate::scalar::DeviceScalar;

    /// Every `DeviceScalar` is 1, 2, 4 or 8 bytes (`usize` is 8 on 64-bit hosts).
    const fn check_size<T>() {
        assert!(matches!(std::mem::size_of::<T>(), 1 | 2 | 4 | 8));
    }

    /// Reads `*p` with a relaxed atomic load.
    ///
    /// # Safety
    /// `p` is valid for reads, aligned to `size_of::<T>()`, and every access
    /// to `*p` that may run concurrently is atomic.
    #[inline(always)]
    pub(in crate::cpu) unsafe fn load_relaxed<T: DeviceScalar>(p: *mut T) -> T {
        const { check_size::<T>() };
        // SAFETY: the caller's contract gives validity, alignment and
        // atomic-only concurrency; the atomic type has the size of `T`. The
        // bits are a valid `T`: any bit pattern is for the numeric
        // `DeviceScalar`s, and a `bool` element only ever holds 0 or 1 (its
        // buffer starts zeroed or copied from valid `bool`s, and every store
        // to it, racing ones included, writes a whole valid `bool`).
        unsafe {
            match std::mem::size_of::<T>() {
                1 => std::mem::transmute_copy(&AtomicU8::from_ptr(p.cast()).load(Ordering::Relaxed)),
                2 => std::mem::transmute_copy(&AtomicU16::from_ptr(p.cast()).load(Ordering::Relaxed)),
                4 => std::mem::transmute_copy(&AtomicU32::from_ptr(p.cast()).load(Ordering::Relaxed)),
                _ => std::mem::transmute_copy(&AtomicU64::from_ptr(p.cast()).load(Ordering::Relaxed)),
            }
        }
    }

    /// Writes `*p = v` with a relaxed atomic store.
    ///
    /// # Safety
    /// As [`load_relaxed`], and `p` is valid for writes.
    #[inline(always)]
    pub(in crate::cpu) unsafe fn store_relaxed<T: DeviceScalar>(p: *mut T, v: T) {
        const { check_size::<T>() };
        // SAFETY: as in `load_relaxed`; `T` has the size of the atomic's integer.
        unsafe {
            match std::mem::size_of::<T>() {
                1 => AtomicU8::from_ptr(p.cast()).store(std::mem::transmute_copy(&v), Ordering::Relaxed),
                2 => AtomicU16::from_ptr(p.cast()).store(std::mem::transmute_copy(&v), Ordering::Relaxed),
                4 => AtomicU32::from_ptr(p.cast()).store(std::mem::transmute_copy(&v), Ordering::Relaxed),
                _ => AtomicU64::from_ptr(p.cast()).store(std::mem::transmute_copy(&v), Ordering::Relaxed),
            }
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
pub(crate) struct OutOfBounds<'a> {
    pub index: &'a [usize],
    pub space: Space,
    pub name: &'static str,
    pub shape: &'a [usize],
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
