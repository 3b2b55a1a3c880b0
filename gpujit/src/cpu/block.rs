//! One block of a launch on the CPU backend, and what the generated code
//! does with it: run the block's threads as a loop (`threads`), check that a
//! value deciding the control flow around a barrier is the same in every
//! thread (`uniform`, `barrier`), keep per-thread values that live across a
//! barrier (`per_thread`), and hand out its shared memory (`shared`).
//!
//! A kernel without `syncthreads()` runs each block as one loop over its
//! threads. A kernel with barriers is split by the macro at every barrier
//! into such loops ("loop fission", as MCUDA, PoCL and CuPBoP do), with the
//! control flow around the barriers run once per block after `uniform`
//! checked that every thread agrees. Kernels the macro cannot split run on
//! the coroutine path (`coro.rs`).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::atomic::Ordering;

use crate::cpu::check::Shadow;
use crate::cpu::ctx::{panic_message, Fault, LaunchCtx};
use crate::cpu::strategy::Strategies;
use crate::cpu::thread::Thread;
use crate::cpu::view::{RecordsFaults, SharedMem, View};
use crate::cpu::warp::{self, Arrival, Meeting, Wait, WarpValue};
use crate::scalar::DeviceScalar;

/// One block of a running launch, owned by the OS thread that runs it. The
/// generated CPU code of a kernel gets one per block (see the module docs).
pub struct Block<'a> {
    pub(super) launch: &'a LaunchCtx,
    pub(super) linear: usize,
    pub(super) idx: [usize; 3],
    /// `blockIdx * blockDim` per axis.
    pub(super) base: [usize; 3],
    /// The threads this `Block` runs per axis: `blockDim`, or for a run of
    /// `k` consecutive blocks of one grid row merged into one
    /// (`CpuLaunch::run_blocks_merged`), `k * blockDim.x` along x. Thread
    /// `tid` of a merged run is thread `tid.x % blockDim.x` of block
    /// `idx.x + tid.x / blockDim.x` (see `record`).
    pub(super) dims: [usize; 3],
    pub(super) shared_ptr: *mut u8,
    pub(super) shared_len: usize,
    pub(super) fault_count: Cell<usize>,
    pub(super) first: RefCell<Option<Fault>>,
    /// How many narrowed thread loops ran ([`Block::threads_x_in`]; for
    /// tests, see `last_launch_narrowed_blocks`), and whether a loop in
    /// lockstep did (counted per rayon job, not per block: no shared atomic
    /// per block).
    pub(super) narrowed: Cell<usize>,
    pub(super) lockstep: Cell<bool>,
    /// How many thread loops of the block ran on block spans (`span.rs`):
    /// the whole block of a barrier-free kernel, or parts of a split one.
    pub(super) span: Cell<usize>,
    /// Whether the block ran a lockstep loop row by row (`Block::lockstep_rows`).
    pub(super) rows: Cell<bool>,
    /// Whether the block ran on block spans in the copy for constant
    /// last-axis lengths.
    pub(super) inner: Cell<bool>,
    /// How many barriers the block's threads passed on the coroutine path
    /// (the epoch of an access in checked mode, `check.rs`).
    pub(super) epoch: Cell<u32>,
    /// A checked launch's shadow memory (`check.rs`); `None` otherwise.
    pub(super) shadow: Option<&'a RefCell<Shadow>>,
    /// The warp intrinsic the block's threads meet at on the split path.
    pub(super) meeting: RefCell<Meeting>,
}

impl fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Block({:?})", self.idx)
    }
}

/// A range of `threadIdx.x` in one block, `x0 <= x1 <= blockDim.x`, made by
/// [`Block::x_range`] only: the threads of a narrowed loop with block spans.
/// It cannot outlive its block (so no later block can reuse its address).
#[derive(Debug, Clone, Copy)]
pub struct XRange<'b> {
    pub(super) x0: usize,
    pub(super) x1: usize,
    /// The block it was made for (compared, never dereferenced).
    block: *const (),
    _block: std::marker::PhantomData<&'b ()>,
}

impl XRange<'_> {
    /// Whether this range was made by block `b`.
    #[inline(always)]
    pub(super) fn is_of(&self, b: &Block<'_>) -> bool {
        std::ptr::eq(self.block, std::ptr::from_ref(b).cast())
    }
}

/// Converts a coordinate triple for a fault report (saturating).
pub(super) fn to_u32x3(v: [usize; 3]) -> [u32; 3] {
    v.map(|c| u32::try_from(c).unwrap_or(u32::MAX))
}

impl<'a> Block<'a> {
    /// Threads per block (`blockDim.x * blockDim.y * blockDim.z`).
    #[inline(always)]
    pub fn thread_count(&self) -> usize {
        self.launch.threads_per_block
    }

    /// The coordinates of the thread with linear index `lin` (`x` fastest).
    pub(super) fn tid_of(&self, lin: usize) -> [usize; 3] {
        let [bx, by, _] = self.launch.block;
        [lin % bx, (lin / bx) % by, lin / (bx * by)]
    }

    /// True once the launch's time limit has passed: the generated code then
    /// leaves the block (and every thread its loops).
    #[inline(always)]
    pub fn cancelled(&self) -> bool {
        self.launch.cancel.load(Ordering::Relaxed)
    }

    /// Whether the launch may not take strategy `s` (`GPUJIT_CPU_EXEC`,
    /// `with_cpu_strategies_off`, for tests and the fuzzer that compare the
    /// paths): the block function then runs its fallback (see
    /// `strategy.rs`; all of them off is the coroutine reference path).
    #[inline(always)]
    pub fn strategy_off(&self, s: Strategies) -> bool {
        self.launch.off.contains(s)
    }

    /// Every live thread of the block passed a barrier: the checked copy's
    /// split thread loops call it at each barrier, as the coroutine
    /// scheduler does (the epoch of later accesses, `check.rs`).
    #[inline]
    pub fn pass_barrier(&self) {
        self.epoch.set(self.epoch.get().wrapping_add(1));
    }

    /// The coordinates of block `linear` of the launch (`x` fastest).
    pub(super) fn block_of(&self, linear: usize) -> [usize; 3] {
        let [gx, gy, _] = self.launch.grid;
        let (gx, gy) = (gx.max(1), gy.max(1));
        [linear % gx, (linear / gx) % gy, linear / (gx * gy)]
    }

    /// Counts this block as one that runs a loop in lockstep across its
    /// threads (for tests; see `last_launch_lockstep_blocks`).
    #[inline]
    pub fn lockstep(&self) {
        self.lockstep.set(true);
    }

    /// Counts a thread loop of this block that ran on block spans (for
    /// tests; see `last_launch_span_blocks` and `last_launch_span_loops`).
    #[inline]
    pub fn span_block(&self) {
        self.span.set(self.span.get() + 1);
    }

    /// Counts this block as one whose span loop ran in its copy for arrays
    /// whose last axis has the length their constant indices need (for
    /// tests; see `last_launch_inner_blocks`).
    #[inline]
    pub fn inner_block(&self) {
        self.inner.set(true);
    }

    /// Runs `f` for every thread of the block, `threadIdx.x` fastest, then
    /// y, then z: the whole block of a kernel without barriers, or one
    /// barrier-free part of a split kernel. After inlining this is a plain
    /// counted loop around the kernel body.
    ///
    /// A panic in `f` (never from generated code) unwinds to the executor,
    /// which records it as a fault of the block and skips the block's rest.
    #[inline(always)]
    pub fn threads(&'a self, mut f: impl FnMut(&Thread<'a>)) {
        let [bx, by, bz] = self.dims;
        let base = self.base;
        let cancel = &self.launch.cancel;
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    f(&Thread {
                        block: self,
                        tid: [x, y, z],
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

    /// [`Block::threads`] for the threads that have not returned
    /// (`exited[lin]` false).
    #[inline(always)]
    pub fn live_threads(&'a self, exited: &[Cell<bool>], mut f: impl FnMut(&Thread<'a>)) {
        self.threads(|t| {
            if !exited.get(t.lin).is_some_and(Cell::get) {
                f(t)
            }
        })
    }

    /// Evaluates `f` once for thread (0, 0, 0): a value the macro proved
    /// the same in every thread and unable to fault (it uses no thread
    /// coordinate, load, division or call), such as the bound of
    /// [`Block::threads_x_in`].
    #[inline(always)]
    pub fn uniform_value<T>(&'a self, f: impl FnOnce(&Thread<'a>) -> T) -> T {
        f(&Thread {
            block: self,
            tid: [0; 3],
            base: self.base,
            lin: 0,
            cancel: &self.launch.cancel,
            yielder: None,
        })
    }

    /// [`Block::uniform`] for a value the macro proved the same in every
    /// thread and unable to fault (see [`Block::uniform_value`]): evaluated
    /// once, and `None` only if every thread returned (`exited`).
    #[inline(always)]
    pub fn uniform_once<T>(&'a self, exited: Option<&[Cell<bool>]>, f: impl FnOnce(&Thread<'a>) -> T) -> Option<T> {
        if exited.is_some_and(|e| e.iter().all(Cell::get)) {
            return None;
        }
        Some(self.uniform_value(f))
    }

    /// [`Block::threads`] (or [`Block::live_threads`] with `exited`) for the
    /// threads with `lo <= threadIdx.x < hi` only, `x` fastest: a part that
    /// is one `if threadIdx.x < E { .. }` (or `==`, `>=`, ...) with `E` the
    /// same in every thread (a block reduction's halving step) runs its body
    /// for those threads without visiting the others. The range is clamped
    /// to the block (a negative `hi` runs no thread).
    #[inline(always)]
    pub fn threads_x_in(&'a self, exited: Option<&[Cell<bool>]>, lo: i128, hi: i128, mut f: impl FnMut(&Thread<'a>)) {
        let [bx, by, bz] = self.launch.block;
        // Both in `0..=bx` (at most 1024), so the conversions cannot fail.
        let clamp = |v: i128| usize::try_from(v.clamp(0, bx as i128)).unwrap_or(0);
        let (x0, x1) = (clamp(lo), clamp(hi));
        self.narrowed.set(self.narrowed.get() + 1);
        let base = self.base;
        let cancel = &self.launch.cancel;
        let mut row = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in x0..x1 {
                    let lin = row + x;
                    if exited.is_some_and(|e| e.get(lin).is_some_and(Cell::get)) {
                        continue;
                    }
                    f(&Thread {
                        block: self,
                        tid: [x, y, z],
                        base,
                        lin,
                        cancel,
                        yielder: None,
                    });
                }
                row += bx;
            }
        }
    }

    /// Whether [`Block::threads_fit`] may run this block: `ok`, `blockDim`
    /// at most `fit` on every axis and at most `len` threads in the block.
    /// The generated code of a split kernel passes the extents of the shared
    /// arrays that a part indexes with `threadIdx` on each axis, `ok`
    /// comparing an interchanged loop's range with the extents it indexes
    /// with the loop variable, and the length of the per-thread arrays; it
    /// emits each such part twice, this test choosing the copy.
    #[inline(always)]
    pub fn fits(&self, ok: bool, fit: [usize; 3], len: usize) -> bool {
        let [bx, by, bz] = self.launch.block;
        let threads = bx.checked_mul(by).and_then(|v| v.checked_mul(bz));
        ok && bx <= fit[0] && by <= fit[1] && bz <= fit[2] && threads.is_some_and(|n| n <= len)
    }

    /// [`Block::threads`] (or [`Block::live_threads`] with `exited`) where
    /// LLVM knows that `threadIdx < fit` on every axis and that the thread's
    /// linear index is below `len`, so it can drop the matching range checks
    /// of the (still checked) accesses and vectorize. Checks that
    /// [`Block::fits`] holds (LLVM folds this against the caller's test); if
    /// not (a gpujit bug) it records a fault and runs no thread.
    #[inline(always)]
    pub fn threads_fit(
        &'a self,
        exited: Option<&[Cell<bool>]>,
        fit: [usize; 3],
        len: usize,
        mut f: impl FnMut(&Thread<'a>),
    ) {
        if !self.fits(true, fit, len) {
            self.record([0; 3], "a fitted thread loop in a block that does not fit (gpujit bug)");
            return;
        }
        let [bx, by, bz] = self.launch.block;
        let base = self.base;
        let cancel = &self.launch.cancel;
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    // SAFETY: `fits` checked above `bx <= fit[0]` (and so
                    // on), and `x < bx`; `lin` counts the iterations of
                    // these loops, below `bx * by * bz`, which `fits`
                    // checked is at most `len`. Said here so that LLVM sees
                    // it at each access of `f`.
                    unsafe {
                        std::hint::assert_unchecked(x < fit[0] && y < fit[1] && z < fit[2] && lin < len);
                    }
                    if !exited.is_some_and(|e| e.get(lin).is_some_and(Cell::get)) {
                        f(&Thread {
                            block: self,
                            tid: [x, y, z],
                            base,
                            lin,
                            cancel,
                            yielder: None,
                        });
                    }
                    lin += 1;
                }
            }
        }
    }

    /// The range of `threadIdx.x` that [`Block::threads_x_in`] runs for
    /// `lo..hi`, clamped to the block.
    #[inline(always)]
    pub fn x_range(&self, lo: i128, hi: i128) -> XRange<'_> {
        let bx = self.launch.block[0];
        // Both in `0..=bx` (at most 1024), so the conversions cannot fail.
        let clamp = |v: i128| usize::try_from(v.clamp(0, bx as i128)).unwrap_or(0);
        let x1 = clamp(hi);
        XRange {
            x0: clamp(lo).min(x1),
            x1,
            block: std::ptr::from_ref(self).cast(),
            _block: std::marker::PhantomData,
        }
    }

    /// [`Block::threads_x_in`] for a range from [`Block::x_range`], with no
    /// thread returned: the narrowed loop of block spans (`span.rs`), whose
    /// spans were checked for the threads of `x`. A range made for another
    /// block runs no thread.
    #[inline(always)]
    pub fn threads_x_range(&'a self, x: XRange<'_>, mut f: impl FnMut(&Thread<'a>)) {
        if !x.is_of(self) {
            return;
        }
        let [bx, by, bz] = self.launch.block;
        self.narrowed.set(self.narrowed.get() + 1);
        let base = self.base;
        let cancel = &self.launch.cancel;
        let mut row = 0;
        for z in 0..bz {
            for y in 0..by {
                // `x_range` of this block: `x.x0 <= x.x1 <= blockDim.x`.
                for tx in x.x0..x.x1 {
                    f(&Thread {
                        block: self,
                        tid: [tx, y, z],
                        base,
                        lin: row + tx,
                        cancel,
                        yielder: None,
                    });
                }
                row += bx;
            }
        }
    }

    /// One flag per thread, all false: set by a thread's `return` in a kernel
    /// split at its barriers, read by [`Block::barrier`] and the loops.
    pub fn exit_flags(&self) -> Vec<Cell<bool>> {
        vec![Cell::new(false); self.thread_count()]
    }

    /// One `T` per thread, each `init`: a local of a split kernel that lives
    /// across a barrier, indexed by [`Thread::lin`].
    pub fn per_thread<T: Clone>(&self, init: T) -> Vec<T> {
        vec![init; self.thread_count()]
    }

    /// Evaluates `f` in every live thread and returns its value if all of
    /// them agree: the condition of an `if` or `while`, or the bounds of a
    /// `for`, around a barrier, which CUDA requires to be the same for the
    /// whole block. `None` ends the block: no thread is live (every thread
    /// returned), or two threads disagreed, which is recorded as a divergent
    /// barrier fault naming both threads and `what`.
    #[inline(always)]
    pub fn uniform<T: PartialEq + fmt::Debug>(
        &'a self,
        exited: Option<&[Cell<bool>]>,
        what: &'static str,
        mut f: impl FnMut(&Thread<'a>) -> T,
    ) -> Option<T> {
        let mut first: Option<(usize, T)> = None;
        let mut disagree: Option<(usize, T)> = None;
        self.threads(|t| {
            if disagree.is_some() || exited.is_some_and(|e| e.get(t.lin).is_some_and(Cell::get)) {
                return;
            }
            let v = f(t);
            match &first {
                None => first = Some((t.lin, v)),
                Some((_, w)) if *w == v => {}
                Some(_) => disagree = Some((t.lin, v)),
            }
        });
        match (first, disagree) {
            (Some((_, v)), None) => Some(v),
            (Some((a, va)), Some((b, vb))) => {
                self.divergent(
                    b,
                    format_args!(
                        "divergent barrier: {what} has the value {va:?} in thread {:?} but {vb:?} in thread {:?} of the same block; CUDA requires the control flow around syncthreads() to be the same for every thread of a block",
                        self.tid_of(a),
                        self.tid_of(b)
                    ),
                );
                None
            }
            (None, _) => None,
        }
    }

    /// A `syncthreads()` of a split kernel whose threads may have returned:
    /// true if every thread is still live (the kernel goes on), false if
    /// every thread returned (the block is done) or only some did, which is a
    /// divergent barrier fault (the block ends).
    pub fn barrier(&self, exited: &[Cell<bool>]) -> bool {
        let gone = exited.iter().position(Cell::get);
        let live = exited.iter().position(|e| !e.get());
        match (gone, live) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(g), Some(l)) => {
                self.divergent(
                    g,
                    format_args!(
                        "divergent barrier: thread {:?} finished without reaching a syncthreads() that thread {:?} of the same block reached (it returned, or skipped the branch or loop around that barrier); on a GPU this hangs or corrupts",
                        self.tid_of(g),
                        self.tid_of(l)
                    ),
                );
                false
            }
        }
    }

    /// Opens a meeting of the block's threads at one warp intrinsic, on the
    /// split path: the macro puts a warp intrinsic there only where every
    /// live thread reaches it (block-uniform control flow), as one
    /// statement whose other operands are pure. Each live thread then
    /// evaluates the call (its arrival is recorded, [`Thread::shfl_sync`]
    /// & co. give 0), [`Block::warp_exchange`] completes it for every warp
    /// at once, and each thread runs the statement again, the call now
    /// giving its result. So the lanes of each warp exchange their values
    /// in lockstep, as on the coroutine path, with no switch per thread.
    pub fn warp_gather(&self) {
        let mut m = self.meeting.borrow_mut();
        m.gathering = true;
        m.wait.clear();
        m.wait.resize(self.thread_count(), Wait::Done);
    }

    /// Completes the meeting [`Block::warp_gather`] opened: every warp's
    /// lanes exchange values as `warp::complete` rules (the threads that
    /// returned count as exited). False after recording the fault of a
    /// broken warp rule (the block ends), as the coroutine path reports it.
    pub fn warp_exchange(&self) -> bool {
        let mut m = self.meeting.borrow_mut();
        m.gathering = false;
        let fault = match warp::complete(&mut m.wait) {
            Ok(_) => warp::stuck(&m.wait),
            Err(f) => Some(f),
        };
        drop(m);
        match fault {
            None => true,
            Some((lin, message)) => {
                if !self.cancelled() {
                    self.divergent(lin, format_args!("{message}"));
                }
                false
            }
        }
    }

    /// The exchange of shuffle `op` (warp intrinsic number `site + 1`) on
    /// the split path, from typed per-thread arrays the caller's thread loop
    /// filled for each live thread (not `exited`): `masks`, `args` (source
    /// lane, delta or lane mask) and `vals`, which each live thread's result
    /// then replaces. Where every warp of the block is whole, no thread has
    /// returned and every mask is full, each lane reads its source lane's
    /// value at once; otherwise the lanes meet as at [`Block::warp_gather`]
    /// and the same rules apply. False after recording the fault of a broken
    /// rule (the block ends), as [`Block::warp_exchange`].
    pub fn shuffle_exchange<T: WarpValue>(
        &self,
        site: u32,
        op: warp::Shuffle,
        exited: Option<&[Cell<bool>]>,
        masks: &[u32],
        args: &[u32],
        vals: &mut [T],
    ) -> bool {
        let whole = vals.len().is_multiple_of(warp::LANES)
            && exited.is_none_or(|ex| ex.iter().all(|e| !e.get()))
            && masks.iter().all(|&m| m == u32::MAX);
        if whole {
            warp::shuffle_whole(op, args, vals);
            return true;
        }
        let live = |lin: usize| exited.is_none_or(|ex| !ex[lin].get());
        let mut wait: Vec<Wait> = (0..vals.len())
            .map(|lin| match live(lin) {
                true => Wait::Warp(Arrival {
                    site,
                    op: op.into(),
                    mask: masks[lin],
                    value: vals[lin].warp_bits(),
                    arg: args[lin],
                }),
                false => Wait::Done,
            })
            .collect();
        let fault = match warp::complete(&mut wait) {
            Ok(_) => warp::stuck(&wait),
            Err(f) => Some(f),
        };
        if let Some((lin, message)) = fault {
            if !self.cancelled() {
                self.divergent(lin, format_args!("{message}"));
            }
            return false;
        }
        for (v, w) in vals.iter_mut().zip(&wait) {
            if let Wait::Ready(r) = *w {
                *v = T::from_warp_bits(r);
            }
        }
        true
    }

    /// Thread `lin` at the open meeting's warp intrinsic: records its
    /// arrival `a` while gathering (giving 0), else gives its result.
    /// `None` where no meeting is open (a gpujit bug).
    #[inline]
    pub(super) fn meet(&self, lin: usize, a: Arrival) -> Option<u64> {
        let mut m = self.meeting.borrow_mut();
        let gathering = m.gathering;
        let slot = m.wait.get_mut(lin)?;
        match *slot {
            _ if gathering => {
                *slot = Wait::Warp(a);
                Some(0)
            }
            Wait::Ready(r) => Some(r),
            _ => None,
        }
    }

    /// Records a divergent-barrier fault of the thread with linear index `lin`.
    #[cold]
    pub(super) fn divergent(&self, lin: usize, message: fmt::Arguments<'_>) {
        self.record(self.tid_of(lin), message);
    }

    /// `(start..end).step_by(step)` for a `for` loop run once per block; a
    /// zero step (already a fault of every thread, see
    /// [`Thread::check_step`]) runs no iterations.
    #[inline]
    pub fn step_by<T: Copy>(&self, start: T, end: T, step: usize) -> std::iter::StepBy<std::ops::Range<T>>
    where
        std::ops::Range<T>: Iterator,
    {
        if step == 0 {
            return (end..end).step_by(1);
        }
        (start..end).step_by(step)
    }

    /// `(start..=end).step_by(step)`, as [`Block::step_by`].
    #[inline]
    pub fn step_by_inclusive<T: Copy>(
        &self,
        start: T,
        end: T,
        step: usize,
    ) -> std::iter::StepBy<std::ops::RangeInclusive<T>>
    where
        std::ops::RangeInclusive<T>: Iterator,
    {
        if step == 0 {
            // A one-element range, exhausted: empty, whatever `T` is.
            let mut empty = end..=end;
            empty.next();
            return empty.step_by(1);
        }
        (start..=end).step_by(step)
    }

    /// The block's shared array at `byte_offset` (bytes from the start of the
    /// block's shared memory) with shape `dims` (1-3 dimensions, C order) and
    /// elements of type `T`; `name` is used in fault messages.
    ///
    /// The view borrows this `Block`, so it cannot outlive the block (nor its
    /// buffer), and it is neither `Send` nor `Sync`.
    ///
    /// If the array does not fit the kernel's [`SharedLayout`](super::SharedLayout) or is
    /// misaligned (a gpujit bug), records a fault of thread (0, 0, 0) and
    /// returns an empty view.
    #[inline]
    pub fn shared<T: DeviceScalar>(
        &self,
        byte_offset: usize,
        dims: &[usize],
        name: &'static str,
    ) -> View<'_, T, SharedMem> {
        let size = std::mem::size_of::<T>();
        let fits = (1..=3).contains(&dims.len())
            && byte_offset & (std::mem::align_of::<T>() - 1) == 0
            && dims
                .iter()
                .try_fold(size, |acc, &d| acc.checked_mul(d))
                .and_then(|bytes| byte_offset.checked_add(bytes))
                .is_some_and(|end| end <= self.shared_len);
        if !fits {
            self.record(
                [0; 3],
                format_args!(
                    "shared array `{name}` of shape {dims:?} at byte offset {byte_offset} does not fit the block's {} bytes of shared memory (gpujit bug)",
                    self.shared_len
                ),
            );
            return View::empty(name);
        }
        // SAFETY: `byte_offset + size_of::<T>() * product(dims) <= shared_len`,
        // so the elements lie inside the block's shared buffer; the buffer is
        // 16-byte aligned (or more) and `byte_offset` is a multiple of
        // `align_of::<T>()` (at most 8). The buffer (the rayon job's, see
        // `ctx::Batch`) stays allocated, and is neither zeroed again nor
        // resized for the job's next block, until `run_block` (or `run_item`) returns, after
        // every borrow of this `Block` ended, and
        // the block (all of its threads, coroutines included) runs on one OS
        // thread; the view is `!Send + !Sync`, so it cannot be used from another.
        unsafe { View::shared(self.shared_ptr.add(byte_offset).cast::<T>(), dims, name) }
    }

    /// Records a fault of thread `tid` of this block (no locking: a block runs
    /// on one OS thread).
    #[cold]
    pub(super) fn record(&self, tid: [usize; 3], message: impl fmt::Display) {
        self.fault_count.set(self.fault_count.get() + 1);
        let [bx, by, _] = self.launch.block;
        // The block of a merged run the thread belongs to (0 unless merged),
        // and its index in that block: faults name real blocks and threads.
        let (run, x) = (tid[0] / bx.max(1), tid[0] % bx.max(1));
        let tid = [x, tid[1], tid[2]];
        let block_key = self.linear + run;
        let key = (tid[2] * by + tid[1]) * bx + tid[0];
        let keep = self.first.try_borrow().is_ok_and(|f| {
            f.as_ref()
                .is_none_or(|f| (block_key, key) < (f.block_key, f.thread_key))
        });
        if keep {
            // Formatted outside any borrow: the message's `Display` may fault again.
            let message = message.to_string();
            if let Ok(mut first) = self.first.try_borrow_mut() {
                *first = Some(Fault {
                    block_key,
                    thread_key: key,
                    block: to_u32x3([self.idx[0] + run, self.idx[1], self.idx[2]]),
                    thread: to_u32x3(tid),
                    message,
                });
            }
        }
    }

    /// Records a panic of thread `tid` as a fault.
    #[cold]
    pub(super) fn record_panic(&self, tid: [usize; 3], payload: &(dyn Any + Send)) {
        let message = panic_message(payload).unwrap_or("(non-string panic payload)");
        self.record(tid, format_args!("kernel panicked: {message}"));
    }

    /// Merges this block's faults into the launch's. (Inlined: a block
    /// without faults, the common case, pays one test, which is part of
    /// the cost per block that launches of many tiny blocks see.)
    #[inline]
    pub(super) fn publish(&self) {
        let count = self.fault_count.get();
        if count == 0 {
            return;
        }
        self.publish_faults(count);
    }

    #[cold]
    #[inline(never)]
    fn publish_faults(&self, count: usize) {
        self.launch.faults.fetch_add(count, Ordering::Relaxed);
        if let Some(f) = self.first.take() {
            let mut first = self.launch.first.lock().unwrap_or_else(|e| e.into_inner());
            if first.as_ref().is_none_or(|g| f.block_key < g.block_key) {
                *first = Some(f);
            }
        }
    }
}

impl RecordsFaults for Block<'_> {
    fn record_fault(&self, tid: [usize; 3], message: &dyn fmt::Display) {
        self.record(tid, message);
    }
}
