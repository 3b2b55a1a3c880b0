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
/// The block-uniform value the span was made for ([`View::span_at`]): the
/// counter of a loop that the block runs in lockstep, in one round.
pub const UNIFORM: SpanAxis = 7;
/// `threadIdx.x` plus the block-uniform value the span was checked for (its
/// least and greatest offset, which must be equal): a split part's tile
/// load, `a[[row, t * TILE + tx]]`, with `t * TILE` the value. An access
/// passes offset 0 and the span adds its own value, so that no per-access
/// test compares two run-time values (in a block function as large as a
/// split kernel's, LLVM could not tell them equal and kept a branch per
/// access, which stopped the loop from vectorizing).
pub const TID_UNI_X: SpanAxis = 8;
/// [`TID_UNI_X`] on `threadIdx.y`.
pub const TID_UNI_Y: SpanAxis = 9;
/// [`TID_UNI_X`] on `threadIdx.z`.
pub const TID_UNI_Z: SpanAxis = 10;

/// What a span was checked for at one position: the axis and the least and
/// greatest offset used there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    axis: SpanAxis,
    lo: isize,
    hi: isize,
}

/// What a span is checked for besides the block and the array: the threads
/// it serves, the value of [`UNIFORM`] positions and a shift of own ones.
#[derive(Debug, Clone, Copy)]
struct Scope {
    /// Only the threads with `threadIdx.x` in `x0..x1` (a narrowed loop's);
    /// `None`: all of the block's.
    x: Option<(usize, usize)>,
    /// The value of [`UNIFORM`] positions (a lockstep loop's counter).
    uniform: usize,
    /// Added to the own index of every own position (a grid-stride round).
    shift: usize,
}

impl Scope {
    /// Every thread of the block, nothing uniform, no shift.
    const BLOCK: Scope = Scope {
        x: None,
        uniform: 0,
        shift: 0,
    };
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
    /// The value of [`UNIFORM`] positions (checked against their extents).
    uniform: usize,
    /// Added to the own index of every own position: a round of a
    /// grid-stride loop, `r * step` past the thread's own index.
    shift: usize,
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
/// `scope.x`: the range of `threadIdx.x` to check `TID_X` positions for (the
/// whole block when `None`). `SHARED`: a shared array's span, whose
/// positions are `threadIdx` ones ([`TID_X`], ...), never own ones; a global
/// array's has own ones only, and with `TIDS` [`TID_UNI_X`] (...) ones too
/// (the tile loads of a split part, `a[[row, t * TILE + tx]]`). (Constants, so
/// that each span's `covers` has only its arms: with the `threadIdx` arm in
/// every one, LLVM stopped folding the fast loop's range checks of global
/// spans.)
#[inline(always)]
fn covers<const N: usize, const SHARED: bool, const TIDS: bool>(
    blk: &Block<'_>,
    dims: &[usize],
    scope: Scope,
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
            OWN_X | OWN_Y | OWN_Z if !SHARED => {
                let (a, n) = (usize::from(axis), blk.dims[usize::from(axis)]);
                // A grid-stride round's shift can carry the block's indices
                // to the top of `usize` (`..=usize::MAX`): `axis_within`
                // needs `base + n` to fit.
                let base = blk.base[a].checked_add(scope.shift)?;
                if scope.shift != 0 && base.checked_add(n).is_none() {
                    return None;
                }
                if !axis_within(base, n, lo, hi, d) {
                    return None;
                }
            }
            TID_X | TID_Y | TID_Z if SHARED => {
                let a = usize::from(axis - TID_X);
                let (first, n) = match scope.x {
                    Some((x0, x1)) if a == 0 => (x0, x1.saturating_sub(x0)),
                    // Every thread the block runs (`Block::dims`: wider
                    // than `blockDim` in a merged run, which has no shared
                    // memory today; checked all the same).
                    _ => (0, blk.dims[a]),
                };
                if !axis_within(first, n, lo, hi, d) {
                    return None;
                }
            }
            TID_UNI_X | TID_UNI_Y | TID_UNI_Z if TIDS && lo == hi => {
                // Every thread the block runs, as above.
                let n = blk.dims[usize::from(axis - TID_UNI_X)];
                if !axis_within(0, n, lo, hi, d) {
                    return None;
                }
            }
            CONST if lo >= 0 && lo <= hi && (hi as usize) < d => {}
            UNIFORM if lo == 0 && hi == 0 && scope.uniform < d => {}
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
/// axis, with `base` the block's `blockIdx * blockDim` and `n` its extent
/// (`Block::dims`: its `blockDim`, wider for a merged run of blocks).
#[inline(always)]
fn own_end(base: usize, n: usize) -> usize {
    #[cfg(target_pointer_width = "64")]
    {
        // SAFETY: `n` is a block's extent (`Block::dims`: a `blockDim`, or
        // a merged run's `k * blockDim.x`) and `base` its first thread's
        // index from a validated launch (only the runtime makes blocks):
        // `base + n <= gridDim * blockDim <= 2^31 * 1024`, far below
        // `usize::MAX`. The one caller that adds a grid-stride
        // round's shift to `base` (`covers`) checks first that `base + n`
        // fits. An add LLVM knows does not wrap (see
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
        let n = self.dims;
        bounds
            .iter()
            .all(|&(a, lo, hi, d)| a < CONST && axis_within(self.base[usize::from(a)], n[usize::from(a)], lo, hi, d))
    }

    /// A fast block whose bounds do not hold (a gpujit bug): every thread
    /// faults, none runs. Out of line and cold: it is never taken, and
    /// inlined into every fast loop's caller it cost the tiled matmul a
    /// quarter of its speed (code layout).
    #[cold]
    #[inline(never)]
    fn bounds_fault(&self) {
        self.threads(|t| t.fault("a fast block whose bounds do not hold (gpujit bug)"));
    }

    /// [`Block::threads`] for the fast loop of block spans, in a block where
    /// [`Block::within`] holds for `bounds` (the generated code checks it
    /// first; a block where it does not is a fault, a gpujit bug, and no
    /// thread runs). Each iteration tells the optimiser those bounds for its
    /// thread, so that LLVM drops the kernel's own `if i < n` (with `d` the
    /// `n` the kernel reads) and vectorizes.
    #[inline(always)]
    pub fn threads_within(&'a self, bounds: &[(SpanAxis, isize, isize, usize)], mut f: impl FnMut(&Thread<'a>)) {
        // Checked here, outside the loop, rather than passed in: the loop's
        // hints then hold on every path, whether or not LLVM connects this
        // test with the caller's (when it did not, the kernel's guard stayed
        // in the loop and saxpy stopped vectorizing).
        if !self.within(bounds) {
            self.bounds_fault();
            return;
        }
        let [bx, by, bz] = self.dims;
        // Read once: a store in `f` may alias the block (it has cells).
        let (base, cancel) = (self.base, &self.launch.cancel);
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    // SAFETY: `x < bx`, `y < by`, `z < bz`; `within(bounds)`
                    // holds (checked above).
                    f(&unsafe { self.thread_within(bounds, base, cancel, [x, y, z], lin) });
                    lin += 1;
                }
            }
        }
    }

    /// [`Block::threads`] for the rounds of a lockstep loop on spans, with
    /// one slot per thread: `f` gets thread `t`'s element `slots[t.lin()]`
    /// (a per-thread local of the loop), without an index check per thread,
    /// so that the round can vectorize. Fewer slots than threads is a gpujit
    /// bug: a fault, no thread runs.
    #[inline(always)]
    pub fn threads_slots<S>(&'a self, slots: &mut [S], mut f: impl FnMut(&Thread<'a>, &mut S)) {
        let [bx, by, bz] = self.launch.block;
        let (base, cancel) = (self.base, &self.launch.cancel);
        let Some(slots) = slots.get_mut(..self.thread_count()) else {
            self.threads(|t| t.fault("fewer per-thread slots than threads (gpujit bug)"));
            return;
        };
        // Rows of `bx` slots, one per `(y, z)`, in `lin` order.
        let mut rows = slots.chunks_exact_mut(bx.max(1));
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                let Some(row) = rows.next() else { return };
                for (x, slot) in row.iter_mut().enumerate() {
                    // SAFETY: `x < bx` (a row has `bx` slots), `y < by`,
                    // `z < bz`; no bounds (a branch on them here would keep
                    // LLVM from vectorizing).
                    f(&unsafe { self.thread_within(&[], base, cancel, [x, y, z], lin) }, slot);
                    lin += 1;
                }
            }
        }
    }

    /// A copy of `slots` (one per thread of the block) on the stack, for
    /// the rounds of a lockstep loop (see [`StackSlots`]).
    #[inline(always)]
    pub fn stack_slots<S: Copy + Default>(&self, slots: &[S]) -> StackSlots<S> {
        let mut buf = [S::default(); MAX_SLOTS];
        let n = slots.len().min(MAX_SLOTS);
        buf[..n].copy_from_slice(&slots[..n]);
        StackSlots { buf, n }
    }

    /// Thread `tid` (number `lin`) of this block, with `bounds` told to the
    /// optimiser for its own index.
    ///
    /// # Safety
    /// `tid[a] < self.dims[a]` on every axis, `base` and `cancel` are this
    /// block's (`self.base`, `&self.launch.cancel`), and
    /// `self.within(bounds)` holds.
    #[inline(always)]
    unsafe fn thread_within(
        &'a self,
        bounds: &[(SpanAxis, isize, isize, usize)],
        base: [usize; 3],
        cancel: &'a std::sync::atomic::AtomicBool,
        tid: [usize; 3],
        lin: usize,
    ) -> Thread<'a> {
        for &(a, lo, hi, d) in bounds {
            let a = usize::from(a);
            let own = own_end(base[a], tid[a]);
            // SAFETY: the caller's contract: `tid[a] < dims[a]`, and
            // `within` checked that `base[a] + t + o` is in `0..d` for every
            // `t < dims[a]` and `o` in `lo..=hi` (`lo <= hi`).
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
        Thread {
            block: self,
            tid,
            base,
            lin,
            cancel,
            yielder: None,
        }
    }
}

/// The most threads a block has (`MAX_THREADS_PER_BLOCK`).
const MAX_SLOTS: usize = crate::launch::MAX_THREADS_PER_BLOCK as usize;

/// A lockstep loop's per-thread local, copied from its per-thread array to
/// the stack for the loop's rounds ([`Block::stack_slots`]), then copied
/// back ([`StackSlots::store`]). A stack array that nothing else points to
/// cannot alias the arrays the rounds read, so that LLVM vectorizes them
/// without run-time alias checks.
#[derive(Debug)]
pub struct StackSlots<S> {
    buf: [S; MAX_SLOTS],
    n: usize,
}

impl<S: Copy> StackSlots<S> {
    /// The slots (as many as the array had, at most one per possible thread).
    #[inline(always)]
    pub fn get(&mut self) -> &mut [S] {
        let n = self.n.min(MAX_SLOTS);
        &mut self.buf[..n]
    }

    /// Copies the slots back to the per-thread array they came from.
    #[inline(always)]
    pub fn store(&self, slots: &mut [S]) {
        let n = self.n.min(MAX_SLOTS).min(slots.len());
        slots[..n].copy_from_slice(&self.buf[..n]);
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
        self.read_only_span::<N, false>(blk, spec)
    }

    /// [`View::span`] where positions may also be [`TID_UNI_X`],
    /// [`TID_UNI_Y`] or [`TID_UNI_Z`] (`threadIdx` plus a block-uniform
    /// value, `lo = hi`): a split part's tile load, `a[[row, t * TILE +
    /// tx]]`, checked once each time the block runs the part.
    #[inline(always)]
    pub fn span_tid<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        self.read_only_span::<N, true>(blk, spec)
    }

    /// [`View::span`] (`TIDS` false) or [`View::span_tid`] (`TIDS` true): a
    /// constant, so that each span's `covers` keeps only its own arms.
    #[inline(always)]
    fn read_only_span<'b, const N: usize, const TIDS: bool>(
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
        Span::checked::<N, false, TIDS>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope::BLOCK,
            spec,
            false,
        )
    }

    /// [`View::span`] for round `r` of a grid-stride loop with step `step`
    /// that block `blk` runs in lockstep: own positions stand for the
    /// thread's own index plus `r * step`.
    #[inline(always)]
    pub fn span_round<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
        r: usize,
        step: usize,
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        let scope = Scope {
            shift: r.checked_mul(step)?,
            ..Scope::BLOCK
        };
        Span::checked::<N, false, false>(self.ptr, (self.len, self.ndim, self.dims), blk, scope, spec, false)
    }

    /// [`View::span`] for one round of a loop that block `blk` runs in
    /// lockstep: positions [`UNIFORM`] (offsets 0 only) stand for `uniform`,
    /// the loop counter's value in this round, which must be below that
    /// position's extent (else `None`: the round runs checked).
    #[inline(always)]
    pub fn span_at<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
        uniform: usize,
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        let scope = Scope {
            uniform,
            ..Scope::BLOCK
        };
        Span::checked::<N, false, false>(self.ptr, (self.len, self.ndim, self.dims), blk, scope, spec, false)
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
        Span::checked::<N, true, true>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope::BLOCK,
            spec,
            true,
        )
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
        Span::checked::<N, true, true>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope {
                x: Some((x.x0, x.x1)),
                ..Scope::BLOCK
            },
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
        Span::checked::<N, false, false>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            self.block,
            Scope::BLOCK,
            spec,
            true,
        )
    }

    /// The span of this own-index view of a 1-D array for round `r` of a
    /// grid-stride loop with step `step` that partitions it: each thread's
    /// element is its own index plus `r * step`, and `step` must be a
    /// multiple of the launch's `gridsize(1)`, so that every element stays
    /// in its thread's class (see [`OwnedView::ld_class`]); `spec` must be
    /// `[(OWN_X, 0, 0)]`. `None` unless the view accesses plainly and the
    /// round's elements of every thread of the block are inside the array.
    #[inline(always)]
    pub fn span_round<const N: usize>(
        &self,
        spec: [(SpanAxis, isize, isize); N],
        r: usize,
        step: usize,
    ) -> Option<Span<'b, T>> {
        let own = self.access == 1 && N == 1 && spec.first() == Some(&(OWN_X, 0, 0));
        // The same test every round: LLVM computes it once.
        if !self.plain || !own || self.class == 0 || !step.is_multiple_of(self.class) {
            return None;
        }
        let scope = Scope {
            shift: r.checked_mul(step)?,
            ..Scope::BLOCK
        };
        Span::checked::<N, false, false>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            self.block,
            scope,
            spec,
            true,
        )
    }
}

impl<'b, T: DeviceScalar> Span<'b, T> {
    /// The span of an array at `ptr` of `shape` = `(len, ndim, dims)`: `len`
    /// elements, `ndim` dimensions `dims` (past `ndim`: 1), for block `blk`, if `covers` shows
    /// every position of `spec` inside the array for every thread of `blk`.
    /// `writable` only for an own-index view in plain mode at its own index
    /// (plus a multiple of `gridsize(1)` in a round), or a shared array
    /// (plain memory of the block's OS thread); `scope` says what else the
    /// span is checked for.
    #[inline(always)]
    fn checked<const N: usize, const SHARED: bool, const TIDS: bool>(
        ptr: *mut T,
        (len, ndim, dims): (usize, u8, [usize; 3]),
        blk: &'b Block<'b>,
        scope: Scope,
        spec: [(SpanAxis, isize, isize); N],
        writable: bool,
    ) -> Option<Span<'b, T>> {
        // A 1-D array's extent as `len`, what the kernel's `a.len()` reads.
        let d1 = [len];
        let extents = if ndim == 1 { &d1[..] } else { &dims[..usize::from(ndim)] };
        let pos = covers::<N, SHARED, TIDS>(blk, extents, scope, spec)?;
        let (x0, x1) = scope.x.unwrap_or((0, 0));
        Some(Span {
            ptr,
            d1: dims[1],
            d2: dims[2],
            pos,
            uniform: scope.uniform,
            shift: scope.shift,
            // `covers` checked `N` is the array's number of dimensions.
            ndim: N as u8,
            writable,
            narrow: scope.x.is_some(),
            x0,
            x1,
            block: blk,
            _borrow: PhantomData,
        })
    }

    /// Whether the array has 2 or 3 dimensions and its last axis has `n`
    /// elements: then [`Span::ld_inner`] with `n` reads what [`Span::ld`]
    /// reads.
    #[inline(always)]
    pub fn inner_is(&self, n: usize) -> bool {
        match self.ndim {
            2 => self.d1 == n,
            3 => self.d2 == n,
            _ => false,
        }
    }

    /// The flat offset of the element at `idx` (one `(axis, offset)` per
    /// dimension) for thread `t`, if `t` is a thread of the span's block and
    /// each position is one the span was checked for. `inner`, if not 0, is
    /// the length of the last axis (refused unless it is), used as a
    /// constant: the stride between threads that LLVM sees.
    #[inline(always)]
    fn offset<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N], inner: usize) -> Option<usize> {
        if !t.is_in(self.block) || N != usize::from(self.ndim) {
            return None;
        }
        if self.narrow && !(self.x0..self.x1).contains(&t.tid[0]) {
            return None;
        }
        let mut off = 0usize;
        let mut dims = [0, self.d1, self.d2];
        if inner != 0 {
            if !self.inner_is(inner) {
                return None;
            }
            // Equal to the stored extent (just checked), as a constant.
            dims[usize::from(self.ndim) - 1] = inner;
        }
        for (k, (axis, o)) in idx.into_iter().enumerate() {
            let p = self.pos[k];
            // `TID_UNI_*` positions add the span's own value (offset 0).
            let uni = matches!(axis, TID_UNI_X | TID_UNI_Y | TID_UNI_Z);
            if axis != p.axis || (uni && o != 0) || (!uni && (o < p.lo || o > p.hi)) {
                return None;
            }
            let v = match axis {
                CONST => o as usize,
                // `covers` checked `uniform` against this extent (offset 0).
                UNIFORM => self.uniform,
                // `t` is a thread of this block, so `t.base` is the block's
                // and `t.tid[a] < dims[a]`, the block's extent (only the runtime makes
                // threads): `covers` checked this sum is in range.
                OWN_X | OWN_Y | OWN_Z => t.own(usize::from(axis)).wrapping_add(self.shift).wrapping_add_signed(o),
                TID_X | TID_Y | TID_Z => t.tid[usize::from(axis - TID_X)].wrapping_add_signed(o),
                // `covers` checked `tid + lo` (`lo == hi`) for every thread
                // of the block.
                TID_UNI_X | TID_UNI_Y | TID_UNI_Z => t.tid[usize::from(axis - TID_UNI_X)].wrapping_add_signed(p.lo),
                _ => return None,
            };
            off = if k == 0 {
                v
            } else {
                // SAFETY: `covers` checked every index of the checked
                // positions against its extent, so `v < dims[k]` and `off` is
                // below the product of the extents before `k`: the result is
                // below the array's length, which fits in `isize`. (Adds
                // that LLVM knows do not wrap: it can then compute the
                // access's stride across threads and vectorize.)
                unsafe { off.unchecked_mul(dims[k]).unchecked_add(v) }
            };
        }
        Some(off)
    }

    /// Reads the element at `idx` (see [`Span`]); a position the span was not
    /// checked for, or a thread of another block, is a fault (a gpujit bug)
    /// that reads `T::default()`.
    #[inline(always)]
    pub fn ld<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N]) -> T {
        self.ld_inner(t, idx, 0)
    }

    /// [`Span::ld`] where the array's last axis has `inner` elements (see
    /// [`Span::inner_is`], which the generated code checks first; if it
    /// does not hold, a fault, as for any refused access). `inner` 0 is
    /// [`Span::ld`].
    #[inline(always)]
    pub fn ld_inner<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N], inner: usize) -> T {
        match self.offset(t, idx, inner) {
            // SAFETY: `offset` checked that `t` is a thread of the span's
            // block and every position lies in the range `covers` checked
            // for every thread of that block, so each index is below its
            // extent and the flat offset is inside the array (borrowed for
            // the span's lifetime; a nonzero `inner` replaced an extent
            // only where equal to it). A read-only array is never written while
            // its views live (see `View`'s `Send` impl); a writable span is
            // an own-index view's in plain mode, whose positions are the
            // thread's own index only, plus a shift that `span_round` checked
            // is a multiple of `gridsize(1)` (the thread's class): see
            // `OwnedView::read_own`; or a shared array's, which only this OS
            // thread touches (the span is `!Send`, as is the view it came
            // from).
            Some(off) => unsafe { self.ptr.add(off).read() },
            None => {
                Self::refused(*t);
                T::default()
            }
        }
    }

    /// Writes the element at `idx` of a writable span (an own-index view's):
    /// as [`Span::ld`]; on a read-only span a fault, nothing written.
    #[inline(always)]
    pub fn st<const N: usize>(&self, t: &Thread<'_>, idx: [(SpanAxis, isize); N], v: T) {
        match self.offset(t, idx, 0) {
            // SAFETY: as in `ld_inner`; `writable` spans come only from
            // `OwnedView::span`/`span_round` in plain mode, at the thread's
            // own index (plus a multiple of `gridsize(1)`), and from shared
            // views (memory of the block's one OS thread, accessed by raw
            // pointers only, never through a reference).
            Some(off) if self.writable => unsafe { self.ptr.add(off).write(v) },
            _ => Self::refused(*t),
        }
    }

    // The thread by value, as every fault path on a fast loop takes it: a
    // reference would let the `Thread` the loop builds for each iteration
    // escape, so LLVM would keep it in a stack slot written per thread and
    // not vectorize (naive matmul and grid-stride rounds lost their `mulps`).
    // Nor the span (it is not needed).
    #[cold]
    #[inline(never)]
    fn refused(t: Thread<'_>) {
        t.fault("an access outside the block span it was checked for; nothing was accessed (gpujit bug)");
    }
}
