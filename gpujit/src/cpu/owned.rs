//! Own-index views: plain (non-atomic) accesses to a written array that a
//! kernel only touches at each thread's own index (issue #7).
//!
//! The macro gives a `&mut [T]` / `ArrayViewMut1` / `ArrayViewMut2`
//! parameter an [`OwnedArg`] instead of a [`View`] when every access to it is
//! `a[i]` with `let i = grid(1)` (or `a[[y, x]]` with `let (x, y) = grid(2)`).
//! Each block makes an [`OwnedView`] of it, whose only element accessors
//! check at run time that the index IS the calling thread's own index. When
//! the launch makes that index injective (no two threads of the launch share
//! it), two threads never touch one element, so the accesses are plain
//! loads and stores, which LLVM can vectorize; otherwise they are relaxed
//! atomics, as [`View`]'s are.
//!
//! A 1-D array that a grid-stride loop `for i in (grid(1)..n).step_by(
//! gridsize(1))` partitions among the threads is accessed at `i` through
//! [`OwnedView::ld_class`]/[`OwnedView::st_class`], which accept the
//! thread's *class* (its own index plus a multiple of `gridsize(1)`): in an
//! injective launch no two threads share a class either, and own indices
//! stay in their class, so the argument below holds for classes.
//!
//! Soundness does not rest on the macro's analysis: an index that is not the
//! thread's own (or in its class) is a fault (nothing is accessed), and the array's
//! [`ArgClaim`] keeps atomic views and other launches away while one launch
//! accesses it plainly.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;

use crate::cpu::block::Block;
use crate::cpu::ctx::LaunchCtx;
use crate::cpu::view::{atomic, OutOfBounds, Space, View};
use crate::cpu::Thread;
use crate::kernel_def::{ArgClaim, KernelArg};
use crate::scalar::DeviceScalar;

// The states of an [`ArgClaim`] (which kind of view a written array argument
// hands out): `FRESH`, `SHARED` (relaxed atomic [`View`]s), or own-index
// views for one launch (the address of its `LaunchCtx`, never 0 or 1),
// decided by the first view made. Never goes back, so plain and atomic
// accesses to one array never meet.

/// No view of the array was made yet.
const FRESH: usize = 0;
/// [`View`]s (relaxed atomic) of the array exist: own-index views use
/// atomics too.
const SHARED: usize = 1;

/// What a block may do with an own-index view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bind {
    /// The array belongs to this launch: plain accesses if its geometry is injective.
    Own,
    /// Atomic views exist: atomics only.
    Shared,
    /// Another launch owns the array (only reachable by misusing `__private`): no access.
    Dead,
}

impl ArgClaim {
    /// Whether a relaxed atomic [`View`] of the array may be made: false once
    /// a launch claimed it for own-index views.
    pub(crate) fn share(&self) -> bool {
        match self
            .0
            .compare_exchange(FRESH, SHARED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(state) => state == SHARED,
        }
    }

    /// Claims the array for the launch at address `launch` (or finds it
    /// claimed by it already).
    ///
    /// Every block of a launch asks, so the common answer (claimed by this
    /// launch already) comes from a plain load: a compare-exchange per block
    /// takes the claim's cache line exclusive and bounced it between the
    /// cores running blocks (11% of grayscale's kernel time). Out of line,
    /// as before: inlined, it moved the tiled matmul's code (see
    /// BENCHMARKS.md on code layout).
    #[inline(never)]
    fn bind(&self, launch: usize) -> Bind {
        match self.0.load(Ordering::Acquire) {
            // Only this launch's own compare-exchange below stores `launch`
            // (the address of its live `LaunchCtx`, unique while it runs).
            state if state == launch => return Bind::Own,
            SHARED => return Bind::Shared,
            _ => {}
        }
        match self
            .0
            .compare_exchange(FRESH, launch, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Bind::Own,
            Err(SHARED) => Bind::Shared,
            Err(state) if state == launch => Bind::Own,
            Err(_) => Bind::Dead,
        }
    }
}

/// A written array argument whose every access is at the thread's own
/// index, for one launch (see the module docs). Made once per launch;
/// [`OwnedArg::block`] makes each block's [`OwnedView`].
#[derive(Clone, Copy)]
pub struct OwnedArg<'a, T> {
    view: View<'a, T>,
    /// `None` for an argument that is not a written array (a view that
    /// faults on every access).
    claim: Option<&'a ArgClaim>,
}

impl<T> fmt::Debug for OwnedArg<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OwnedArg(`{}`)", self.view.name)
    }
}

impl<'a, T: DeviceScalar> OwnedArg<'a, T> {
    /// The own-index argument for array argument `arg` named `name` (for
    /// fault messages). Anything but a written array of `T` with 1-3
    /// dimensions gives an argument whose every access faults.
    #[inline]
    pub fn from_arg(arg: &'a KernelArg<'_>, name: &'static str) -> OwnedArg<'a, T> {
        let claim = match arg {
            KernelArg::Array(a) if a.mutable => Some(&a.claim),
            _ => None,
        };
        OwnedArg {
            view: View::from_arg_as(arg, name, false),
            claim,
        }
    }

    /// The view block `blk` accesses the array through. Plain accesses when
    /// this launch owns the array and its geometry makes the own index
    /// injective (1-D: `blockDim.y = blockDim.z = gridDim.y = gridDim.z = 1`;
    /// 2-D: `blockDim.z = gridDim.z = 1`), relaxed atomics otherwise.
    #[inline]
    pub fn block<'b>(&self, blk: &'b Block<'b>) -> OwnedView<'b, T>
    where
        'a: 'b,
    {
        let launch: &LaunchCtx = blk.launch;
        let bind = match self.claim {
            Some(c) => c.bind(std::ptr::from_ref(launch).addr()),
            None => Bind::Dead,
        };
        let [_, gy, gz] = launch.grid;
        let [_, by, bz] = launch.block;
        let v = &self.view;
        let injective = match v.ndim {
            1 => gy == 1 && gz == 1 && by == 1 && bz == 1,
            2 => gz == 1 && bz == 1,
            _ => false,
        };
        OwnedView {
            ptr: v.ptr,
            dims: v.dims,
            len: v.len,
            ndim: v.ndim,
            // 0: no access (see `bad`); views of 3 dimensions have no accessor.
            access: if bind == Bind::Dead { 0 } else { v.ndim },
            name: v.name,
            plain: bind == Bind::Own && injective,
            class: launch.grid[0].checked_mul(launch.block[0]).unwrap_or(0),
            block: blk,
            _borrow: PhantomData,
        }
    }
}

/// One block's view of an [`OwnedArg`]: its only element accessors are at
/// the calling thread's own index. Neither `Send` nor `Sync` (it stays on
/// the OS thread that runs its block).
#[derive(Clone, Copy)]
pub struct OwnedView<'b, T> {
    pub(super) ptr: *mut T,
    pub(super) dims: [usize; 3],
    pub(super) len: usize,
    /// Number of dimensions (1-3).
    pub(super) ndim: u8,
    /// The dimensions the accessors serve (1 or 2); 0 when every access
    /// must fault.
    pub(super) access: u8,
    pub(super) name: &'static str,
    /// Plain accesses (else relaxed atomics).
    pub(super) plain: bool,
    /// The launch's `gridsize(1)` (`gridDim.x * blockDim.x`; 0 if that
    /// overflows): a thread's class is its own index modulo this.
    pub(super) class: usize,
    pub(super) block: &'b Block<'b>,
    _borrow: PhantomData<&'b T>,
}

impl<T> fmt::Debug for OwnedView<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OwnedView(`{}`, plain: {})", self.name, self.plain)
    }
}

impl<T: DeviceScalar> OwnedView<'_, T> {
    /// Total number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Length of axis `k` (0 = outermost); 0 if `k` is past the last axis.
    #[inline]
    pub fn dim(&self, k: usize) -> usize {
        if k < usize::from(self.ndim) {
            self.dims[k]
        } else {
            0
        }
    }

    /// Whether this view accesses elements plainly (for tests).
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// Reads element `off`, which the caller checked is thread `t`'s own.
    ///
    /// # Safety
    /// `off < self.len`, `t` is a thread of `self.block`, and `off` is the
    /// element of `t`'s own index (`grid(1)`, or `[y, x]` of `grid(2)`), or
    /// of a 1-D array in `t`'s class (`in_class`).
    #[inline(always)]
    unsafe fn read_own(&self, off: usize) -> T {
        // SAFETY: `off < len`: inside the array (borrowed for the view's
        // lifetime, aligned for `T` and its size, see `View::from_arg`).
        // When `plain`: this launch claimed the array (`ArgClaim::bind`), so
        // no atomic `View` of it exists and no other launch accesses it
        // while this one runs (another launch's views are dead); every access
        // of this launch goes through own-index views, each checked to be at
        // its thread's own index (or, 1-D, in its class: own index plus a
        // multiple of `gridsize(1)`) by a thread of the view's block; and the
        // launch's geometry makes own indices injective, so (own indices
        // being below `gridsize(1)`) classes are disjoint too and this element
        // is only ever accessed by thread `t`, whose accesses all run on one OS
        // thread (its block's: `Thread` and `OwnedView` are `!Send`), in
        // order. A racing kernel included, no other access can be concurrent.
        // Otherwise every access to the array is relaxed atomic.
        unsafe {
            let p = self.ptr.add(off);
            if self.plain {
                p.read()
            } else {
                atomic::load_relaxed(p)
            }
        }
    }

    /// Writes element `off`: as [`OwnedView::read_own`].
    ///
    /// # Safety
    /// As `read_own`.
    #[inline(always)]
    unsafe fn write_own(&self, off: usize, v: T) {
        // SAFETY: as in `read_own`; the claim exists only for written arrays.
        unsafe {
            let p = self.ptr.add(off);
            if self.plain {
                p.write(v);
            } else {
                atomic::store_relaxed(p, v);
            }
        }
    }

    /// Reads element `i` of a 1-D array, which must be thread `t`'s own
    /// index (`grid(1)`): out of bounds is a fault (as [`View::ld`]), another
    /// index a fault (a gpujit bug); both read `T::default()`.
    #[inline(always)]
    pub fn ld_own(&self, t: &Thread<'_>, i: usize) -> T {
        if self.access == 1 && i < self.len && i == t.grid1() && t.is_in(self.block) {
            // SAFETY: checked just above.
            unsafe { self.read_own(i) }
        } else {
            self.bad(*t, &[i]);
            T::default()
        }
    }

    /// Writes element `i` of a 1-D array, which must be thread `t`'s own
    /// index; faults (nothing written) as [`OwnedView::ld_own`].
    #[inline(always)]
    pub fn st_own(&self, t: &Thread<'_>, i: usize, v: T) {
        if self.access == 1 && i < self.len && i == t.grid1() && t.is_in(self.block) {
            // SAFETY: checked just above.
            unsafe { self.write_own(i, v) }
        } else {
            self.bad(*t, &[i]);
        }
    }

    /// Whether element `i` of a 1-D array is in thread `t`'s class: its own
    /// index plus a multiple of the launch's `gridsize(1)` (the elements a
    /// grid-stride loop `(grid(1)..n).step_by(gridsize(1))` gives it). With
    /// an injective launch no two threads share a class.
    #[inline(always)]
    fn in_class(&self, t: &Thread<'_>, i: usize) -> bool {
        let own = t.grid1();
        // The own index first: nothing more for a loop's first element.
        // `grid1_divisor` is `class` whenever `class > 0`.
        i == own || (self.class > 0 && i >= own && (i - own) % self.block.launch.grid1_divisor == 0)
    }

    /// Reads element `i` of a 1-D array, which must be in thread `t`'s class
    /// (see `in_class`): a grid-stride loop's element. Out of bounds is a
    /// fault (as [`View::ld`]), another element a fault (a gpujit bug); both
    /// read `T::default()`.
    #[inline(always)]
    pub fn ld_class(&self, t: &Thread<'_>, i: usize) -> T {
        if self.access == 1 && i < self.len && t.is_in(self.block) && self.in_class(t, i) {
            // SAFETY: checked just above: see `read_own`, with "own index"
            // widened to the thread's class, which no other thread shares
            // when the launch is injective (`plain`), and which own-index
            // accesses stay in.
            unsafe { self.read_own(i) }
        } else {
            self.bad(*t, &[i]);
            T::default()
        }
    }

    /// Writes element `i` of a 1-D array in thread `t`'s class; faults
    /// (nothing written) as [`OwnedView::ld_class`].
    #[inline(always)]
    pub fn st_class(&self, t: &Thread<'_>, i: usize, v: T) {
        if self.access == 1 && i < self.len && t.is_in(self.block) && self.in_class(t, i) {
            // SAFETY: as in `ld_class`.
            unsafe { self.write_own(i, v) }
        } else {
            self.bad(*t, &[i]);
        }
    }

    /// Reads element `[y, x]` of a 2-D array, which must be thread `t`'s own
    /// index (`let (x, y) = grid(2)`); faults as [`OwnedView::ld_own`].
    #[inline(always)]
    pub fn ld2_own(&self, t: &Thread<'_>, y: usize, x: usize) -> T {
        if self.access == 2 && y < self.dims[0] && x < self.dims[1] && (x, y) == t.grid2() && t.is_in(self.block) {
            // SAFETY: checked just above; y < d0 and x < d1, so the offset is < len.
            unsafe { self.read_own(y * self.dims[1] + x) }
        } else {
            self.bad(*t, &[y, x]);
            T::default()
        }
    }

    /// Writes element `[y, x]` of a 2-D array, which must be thread `t`'s
    /// own index; faults (nothing written) as [`OwnedView::ld_own`].
    #[inline(always)]
    pub fn st2_own(&self, t: &Thread<'_>, y: usize, x: usize, v: T) {
        if self.access == 2 && y < self.dims[0] && x < self.dims[1] && (x, y) == t.grid2() && t.is_in(self.block) {
            // SAFETY: checked just above; y < d0 and x < d1, so the offset is < len.
            unsafe { self.write_own(y * self.dims[1] + x, v) }
        } else {
            self.bad(*t, &[y, x]);
        }
    }

    /// The fault of a refused access (by value: see `View::oob`).
    #[cold]
    #[inline(never)]
    fn bad(self, t: Thread<'_>, index: &[usize]) {
        let shape = &self.dims[..usize::from(self.ndim).min(3)];
        let in_bounds = index.len() == shape.len() && index.iter().zip(shape).all(|(i, d)| i < d);
        if self.access == 0 {
            t.fault(format_args!(
                "written array `{}` is used by another launch at the same time; nothing was accessed (gpujit bug)",
                self.name
            ));
        } else if !in_bounds && index.len() == shape.len() {
            t.fault(OutOfBounds {
                index,
                space: Space::Global,
                name: self.name,
                shape,
            });
        } else {
            t.fault(format_args!(
                "index {index:?} of array `{}` is not the own index of thread {:?} of block {:?}; nothing was accessed (gpujit bug)",
                self.name,
                t.tid,
                t.block.idx
            ));
        }
    }
}
