//! Block spans: one range check per block, then unchecked accesses in the
//! thread loop, which LLVM can vectorize (issue #7).
//!
//! For a barrier-free kernel the macro emits the thread loop twice. Before
//! the fast one, each array whose accesses it could classify gets a
//! [`Span`]: [`View::span`] / [`OwnedView::span`] check once that, for every
//! thread of the block, every index the kernel forms from the thread's own
//! index (`grid(..)` plus a constant per axis) or a constant is inside the
//! array. A block where any check fails (an edge block) runs the checked
//! loop instead. Split kernels (with `syncthreads()`) do the same per
//! barrier-free part, with spans of shared arrays too, indexed by
//! `threadIdx` ([`TID_X`], ...) plus a constant. Each span access re-checks what is cheap and folds away
//! after inlining (the thread belongs to the span's block, the offsets are
//! within those checked), so the accessors are sound for any caller.

use std::marker::PhantomData;

use crate::cpu::block::{Block, XRange};
use crate::cpu::owned::OwnedView;
use crate::cpu::view::{GlobalMem, SharedMem, View};
use crate::cpu::Thread;
use crate::scalar::DeviceScalar;

/// The index at one position of an array access: [`OWN_X`], [`OWN_Y`] or
/// [`OWN_Z`] (the thread's global index on that axis, `grid(..)`) plus an
/// offset, or [`CONST`] (the offset itself).
pub type SpanAxis = u8;
/// `grid(..)`'s x (`blockIdx.x * blockDim.x + threadIdx.x`).
pub const OWN_X: SpanAxis = 0;
/// `grid(..)`'s y.
pub const OWN_Y: SpanAxis = 1;
/// `grid(..)`'s z.
pub const OWN_Z: SpanAxis = 2;
/// A constant index.
pub const CONST: SpanAxis = 3;
/// `threadIdx.x` (spans of shared arrays, whose threads index them by their
/// index in the block).
pub const TID_X: SpanAxis = 4;
/// `threadIdx.y`.
pub const TID_Y: SpanAxis = 5;
/// `threadIdx.z`.
pub const TID_Z: SpanAxis = 6;

/// What a span was checked for at one position: the axis and the least and
/// greatest offset used there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    axis: SpanAxis,
    lo: isize,
    hi: isize,
}

/// An array's elements that every thread of one block may reach at the
/// positions it was checked for (see the module docs). Neither `Send` nor
/// `Sync`: it stays on its block's OS thread.
#[derive(Clone, Copy)]
pub struct Span<'b, T> {
    ptr: *mut T,
    /// Extents of axes 1 and 2 (1 past the array's dimensions).
    d1: usize,
    d2: usize,
    pos: [Pos; 3],
    ndim: u8,
    /// Writes allowed (a span of an own-index view in plain mode, or of a
    /// shared array).
    writable: bool,
    /// For a narrowed loop's span: only threads with `x0 <= threadIdx.x <
    /// x1` may use it (`covers` checked those only).
    narrow: bool,
    x0: usize,
    x1: usize,
    block: &'b Block<'b>,
    _borrow: PhantomData<&'b T>,
}

impl<T> std::fmt::Debug for Span<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Span({:?})", &self.pos[..usize::from(self.ndim)])
    }
}

/// Whether, for every thread of `blk`, the index `(axis, lo..=hi)` at each
/// position is below that position's extent in `dims` (and not negative);
/// then the positions as the span keeps them (copied straight from `spec`,
/// so that after inlining they are constants the accessors' checks fold
/// against).
///
/// `x`: the range of `threadIdx.x` to check `TID_X` positions for (the
/// whole block when `None`).
#[inline(always)]
fn covers<const N: usize>(
    blk: &Block<'_>,
    dims: &[usize],
    x: Option<(usize, usize)>,
    spec: [(SpanAxis, isize, isize); N],
) -> Option<[Pos; 3]> {
    if N != dims.len() || N == 0 || N > 3 {
        return None;
    }
    let mut pos = [Pos {
        axis: CONST,
        lo: 0,
        hi: 0,
    }; 3];
    for (k, (&(axis, lo, hi), &d)) in spec.iter().zip(dims).enumerate() {
        match axis {
            OWN_X | OWN_Y | OWN_Z => {
                let a = usize::from(axis);
                if !axis_within(blk.base[a], blk.launch.block[a], lo, hi, d) {
                    return None;
                }
            }
            TID_X | TID_Y | TID_Z => {
                let a = usize::from(axis - TID_X);
                let (first, n) = match x {
                    Some((x0, x1)) if a == 0 => (x0, x1.saturating_sub(x0)),
                    _ => (0, blk.launch.block[a]),
                };
                if !axis_within(first, n, lo, hi, d) {
                    return None;
                }
            }
            CONST if lo >= 0 && lo <= hi && (hi as usize) < d => {}
            _ => return None,
        }
        pos[k] = Pos { axis, lo, hi };
    }
    Some(pos)
}

/// Whether global indices `base..base + n` (one block's threads on an axis),
/// offset by every value in `lo..=hi`, are all in `0..d`. (In the form LLVM
/// matches with the kernel's `i < d` when `hi` is 0.)
#[inline(always)]
fn axis_within(base: usize, n: usize, lo: isize, hi: isize, d: usize) -> bool {
    let end = own_end(base, n);
    let low = lo >= 0 || base >= lo.unsigned_abs();
    let high = if hi >= 0 {
        end.checked_add(hi.unsigned_abs()).is_some_and(|e| e <= d)
    } else {
        end <= d.saturating_add(hi.unsigned_abs())
    };
    n > 0 && lo <= hi && low && high
}

/// `base + n`: one past the global index of a block's last thread on an
/// axis, with `base` the block's `blockIdx * blockDim` and `n` its `blockDim`.
#[inline(always)]
fn own_end(base: usize, n: usize) -> usize {
    #[cfg(target_pointer_width = "64")]
    {
        // SAFETY: `base` and `n` come from a validated launch (only the
        // runtime makes blocks): `base < 2^31 * 1024` and `n <= 1024`, so the
        // sum is far below `usize::MAX`. An add LLVM knows does not wrap (see
        // `Thread::own`).
        unsafe { base.unchecked_add(n) }
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        base.saturating_add(n)
    }
}

impl<'a> Block<'a> {
    /// Whether every bound in `bounds` holds for this block: `(axis, lo, hi,
    /// d)` says that the global index of every thread of the block on own
    /// axis `axis`, offset by any value in `lo..=hi`, lies in `0..d`.
    #[inline(always)]
    pub fn within(&self, bounds: &[(SpanAxis, isize, isize, usize)]) -> bool {
        let n = self.launch.block;
        bounds
            .iter()
            .all(|&(a, lo, hi, d)| a < CONST && axis_within(self.base[usize::from(a)], n[usize::from(a)], lo, hi, d))
    }

    /// [`Block::threads`] for the fast loop of block spans: when
    /// [`Block::within`] holds for `bounds` (the generated code checks it
    /// first, so LLVM knows it here), each iteration tells the optimiser
    /// those bounds for its thread, so that LLVM drops the kernel's own
    /// `if i < n` (with `d` the `n` the kernel reads) and vectorizes.
    #[inline(always)]
    pub fn threads_within(&'a self, bounds: &[(SpanAxis, isize, isize, usize)], mut f: impl FnMut(&Thread<'a>)) {
        let [bx, by, bz] = self.launch.block;
        let base = self.base;
        let ok = self.within(bounds);
        let cancel = &self.launch.cancel;
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    let tid = [x, y, z];
                    for &(a, lo, hi, d) in bounds.iter().filter(|_| ok) {
                        let a = usize::from(a);
                        let own = own_end(base[a], tid[a]);
                        // SAFETY: `ok`: `tid[a] < blockDim[a]`, and `within` checked
                        // above that `base[a] + t + o` is in `0..d` for every
                        // `t < n[a]` and `o` in `lo..=hi` (`lo <= hi`).
                        unsafe {
                            std::hint::assert_unchecked(own.wrapping_add_signed(hi) < d);
                            if hi >= 0 {
                                std::hint::assert_unchecked(own < d);
                            }
                            if lo < 0 {
                                std::hint::assert_unchecked(own >= lo.unsigned_abs());
                            }
                        }
                    }
                    f(&Thread {
                        block: self,
                        tid,
                        base,
                        lin,
                        cancel,
                        yielder: None,
                    });
                    lin += 1;
                }
            }
        }
    }
}

impl<T: DeviceScalar> View<'_, T, GlobalMem> {
    /// The span of this read-only array for block `blk`, if every index
    /// `spec` describes (one `(axis, least offset, greatest offset)` per
    /// dimension) is inside the array for every thread of the block; `None`
    /// otherwise, and for a written array (its accesses stay atomic).
    #[inline(always)]
    pub fn span<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        Span::checked(self.ptr, (self.len, self.ndim, self.dims), blk, None, spec, false)
    }
}

impl<'b, T: DeviceScalar> View<'b, T, SharedMem> {
    /// The span of this shared array for block `blk` (the block it belongs
    /// to), if every index `spec` describes is inside the array for every
    /// thread of the block; `None` otherwise. Reads and writes through it are
    /// plain, as the view's are: a block's shared memory is touched only by
    /// the OS thread that runs the block (both types are `!Send`).
    #[inline(always)]
    pub fn span<const N: usize>(&self, blk: &'b Block<'b>, spec: [(SpanAxis, isize, isize); N]) -> Option<Span<'b, T>> {
        // Shared views are always writable (`Block::shared`); a constant
        // here lets LLVM drop the stores' test.
        Span::checked(self.ptr, (self.len, self.ndim, self.dims), blk, None, spec, true)
    }

    /// [`View::span`] for the threads of `x` only
    /// (a narrowed loop's, see [`Block::threads_x_range`]): only those
    /// threads may use the span (another's access is a fault).
    #[inline(always)]
    pub fn span_x<const N: usize>(
        &self,
        blk: &'b Block<'b>,
        x: XRange<'_>,
        spec: [(SpanAxis, isize, isize); N],
    ) -> Option<Span<'b, T>> {
        if !x.is_of(blk) {
            return None;
        }
        Span::checked(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Some((x.x0, x.x1)),
            spec,
            true,
        )
    }
}

impl<'b, T: DeviceScalar> OwnedView<'b, T> {
    /// The span of this own-index view, if it accesses plainly and the own
    /// index of every thread of its block is inside the array. Reads and
    /// writes through it are at the thread's own index only: `spec` must be
    /// `[(OWN_X, 0, 0)]` for a 1-D array, `[(OWN_Y, 0, 0), (OWN_X, 0, 0)]`
    /// for a 2-D one (else `None`).
    #[inline(always)]
    pub fn span<const N: usize>(&self, spec: [(SpanAxis, isize, isize); N]) -> Option<Span<'b, T>> {
        let own = match self.access {
            1 => N == 1 && spec.first() == Some(&(OWN_X, 0, 0)),
            2 => N == 2 && spec.first() == Some(&(OWN_Y, 0, 0)) && spec.get(1) == Some(&(OWN_X, 0, 0)),
            _ => false,
        };
        if !self.plain || !own {
            return None;
        }
        Span::checked(self.ptr, (self.len, self.ndim, self.dims), self.block, None, spec, true)
    }
}

impl<'b, T: DeviceScalar> Span<'b, T> {
    /// The span of an array at `ptr` of `shape` = `(len, ndim, dims)`: `len`
    /// elements, `ndim` dimensions `dims` (past `ndim`: 1), for block `blk`, if `covers` shows
    /// every position of `spec` inside the array for every thread of `blk`.
    /// `writable` only for an own-index view in plain mode at its own index,
    /// or a shared array (plain memory of the block's OS thread).
    #[inline(always)]
    fn checked<const N: usize>(
        ptr: *mut T,
        (len, ndim, dims): (usize, u8, [usize; 3]),
        blk: &'b Block<'b>,
        x: Option<(usize, usize)>,
        spec: [(SpanAxis, isize, isize); N],
        writable: bool,
    ) -> Option<Span<'b, T>> {
        // A 1-D array's extent as `len`, what the kernel's `a.len()` reads.
        let d1 = [len];
        let extents = if ndim == 1 { &d1[..] } else { &dims[..usize::from(ndim)] };
        let pos = covers(blk, extents, x, spec)?;
        let (x0, x1) = x.unwrap_or((0, 0));
        Some(Span {
            ptr,
            d1: dims[1],
            d2: dims[2],
            pos,
            // `covers` checked `N` is the array's number of dimensions.
            ndim: N as u8,
            writable,
            narrow: x.is_some(),
            x0,
            x1,
            block: blk,
            _borrow: PhantomData,
        })
    }

    /// The flat offset of the element at `idx` (one `(axis, offset)` per
    /// dimension) for thread `t`, if `t` is a thread of the span's block and
    /// each position is one the span was checked for.
    #[inline(always)]
    fn offset<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N]) -> Option<usize> {
        if !t.is_in(self.block) || N != usize::from(self.ndim) {
            return None;
        }
        if self.narrow && !(self.x0..self.x1).contains(&t.tid[0]) {
            return None;
        }
        let mut off = 0usize;
        let dims = [0, self.d1, self.d2];
        for (k, (axis, o)) in idx.into_iter().enumerate() {
            let p = self.pos[k];
            if axis != p.axis || o < p.lo || o > p.hi {
                return None;
            }
            let v = match axis {
                CONST => o as usize,
                // `t` is a thread of this block, so `t.base` is the block's
                // and `t.tid[a] < blockDim[a]` (only the runtime makes
                // threads): `covers` checked this sum is in range.
                OWN_X | OWN_Y | OWN_Z => t.own(usize::from(axis)).wrapping_add_signed(o),
                TID_X | TID_Y | TID_Z => t.tid[usize::from(axis - TID_X)].wrapping_add_signed(o),
                _ => return None,
            };
            off = if k == 0 { v } else { off * dims[k] + v };
        }
        Some(off)
    }

    /// Reads the element at `idx` (see [`Span`]); a position the span was not
    /// checked for, or a thread of another block, is a fault (a gpujit bug)
    /// that reads `T::default()`.
    #[inline(always)]
    pub fn ld<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N]) -> T {
        match self.offset(t, idx) {
            // SAFETY: `offset` checked that `t` is a thread of the span's
            // block and every position lies in the range `covers` checked
            // for every thread of that block, so each index is below its
            // extent and the flat offset is inside the array (borrowed for
            // the span's lifetime). A read-only array is never written while
            // its views live (see `View`'s `Send` impl); a writable span is
            // an own-index view's in plain mode, whose positions are the
            // thread's own index only (see `OwnedView::read_own`), or a
            // shared array's, which only this OS thread touches (the span
            // is `!Send`, as is the view it came from).
            Some(off) => unsafe { self.ptr.add(off).read() },
            None => {
                Self::refused(t);
                T::default()
            }
        }
    }

    /// Writes the element at `idx` of a writable span (an own-index view's):
    /// as [`Span::ld`]; on a read-only span a fault, nothing written.
    #[inline(always)]
    pub fn st<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N], v: T) {
        match self.offset(t, idx) {
            // SAFETY: as in `ld`; `writable` spans come only from
            // `OwnedView::span` in plain mode, at the thread's own index, and
            // from shared views (memory of the block's one OS thread, accessed
            // by raw pointers only, never through a reference).
            Some(off) if self.writable => unsafe { self.ptr.add(off).write(v) },
            _ => Self::refused(t),
        }
    }

    #[cold]
    #[inline(never)]
    // The thread by reference and no `self`: the span stays in registers.
    fn refused(t: &Thread<'_>) {
        t.fault("an access outside the block span it was checked for; nothing was accessed (gpujit bug)");
    }
}
