//! One kernel thread on the CPU backend: its coordinates and the intrinsics
//! the generated code calls on it (`grid`, `thread_idx`, faults, wrapping
//! arithmetic for types only rustc knows, ...).

use std::fmt;

use corosensei::Yielder;

use crate::cpu::block::Block;
use crate::cpu::check::{Access, Finding, Kind, Place, Report, Who};
use crate::cpu::ops::{Faults, IntDiv};
use crate::cpu::warp::{Arrival, Suspend, WarpOp, WarpValue};
use crate::cpu::{Idx3, KernelArith, KernelShift};

/// The context of one kernel thread on the CPU backend: its coordinates, the
/// intrinsics (`grid`, `thread_idx`, `syncthreads`, shared memory, ...) and
/// fault reporting. The generated CPU code receives one per thread.
#[derive(Clone, Copy)]
pub struct Thread<'a> {
    pub(super) block: &'a Block<'a>,
    pub(super) tid: [usize; 3],
    /// `blockIdx * blockDim` per axis, copied from the block so that the
    /// thread's global index is register arithmetic in the thread loop.
    pub(super) base: [usize; 3],
    /// Linear index in the block (`x` fastest): the slot of this thread in
    /// the per-thread arrays of split kernels.
    pub(super) lin: usize,
    /// The launch's cancel flag, here so that polling it is one load.
    pub(super) cancel: &'a std::sync::atomic::AtomicBool,
    /// Only on the coroutine path: suspends at a barrier (see `coro.rs` for
    /// what goes in and out).
    pub(super) yielder: Option<&'a Yielder<u64, Suspend>>,
}

impl fmt::Debug for Thread<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Thread(block {:?}, thread {:?})", self.block.idx, self.tid)
    }
}

/// The threads of a warp, on every NVIDIA GPU so far (CUDA's `warpSize`).
pub const WARP_SIZE: usize = 32;

impl<'a> Thread<'a> {
    /// The global index on axis `a` (0-2): `blockIdx * blockDim + threadIdx`.
    ///
    /// An add LLVM knows does not wrap, so that a block's range check (see
    /// `span.rs`) lets it drop the kernel's own `if i < n`.
    #[inline(always)]
    pub(super) fn own(&self, a: usize) -> usize {
        #[cfg(target_pointer_width = "64")]
        {
            // SAFETY: only the runtime makes threads, with `base` = `blockIdx
            // * blockDim` and `tid` below the block's extent per axis
            // (`blockDim`, or a merged run's `k * blockDim.x`, with
            // `base + extent <= gridDim * blockDim`); a validated launch
            // has `gridDim < 2^31` and `blockDim <= 1024`, so the sum is
            // below 2^41, far from overflowing a 64-bit `usize`.
            unsafe { self.base[a].unchecked_add(self.tid[a]) }
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            self.base[a].wrapping_add(self.tid[a])
        }
    }

    /// Whether this is a thread of block `b` (the views and spans made for
    /// one block check it; after inlining it folds away).
    #[inline(always)]
    pub(super) fn is_in(&self, b: &Block<'_>) -> bool {
        std::ptr::eq(
            std::ptr::from_ref(self.block).cast::<()>(),
            std::ptr::from_ref(b).cast::<()>(),
        )
    }

    /// `grid(1)`: `blockIdx.x * blockDim.x + threadIdx.x`.
    #[inline]
    pub fn grid1(&self) -> usize {
        self.own(0)
    }

    /// `grid(2)`: the global `(x, y)` index.
    #[inline]
    pub fn grid2(&self) -> (usize, usize) {
        (self.own(0), self.own(1))
    }

    /// `grid(3)`: the global `(x, y, z)` index.
    #[inline]
    pub fn grid3(&self) -> (usize, usize, usize) {
        (self.own(0), self.own(1), self.own(2))
    }

    /// `gridsize(1)`: `gridDim.x * blockDim.x`, threads along x.
    #[inline]
    pub fn gridsize1(&self) -> usize {
        self.block.launch.gridsize[0]
    }

    /// `gridsize(2)`: threads along `(x, y)`.
    #[inline]
    pub fn gridsize2(&self) -> (usize, usize) {
        let g = &self.block.launch.gridsize;
        (g[0], g[1])
    }

    /// `gridsize(3)`: threads along `(x, y, z)`.
    #[inline]
    pub fn gridsize3(&self) -> (usize, usize, usize) {
        let g = &self.block.launch.gridsize;
        (g[0], g[1], g[2])
    }

    /// `lane_id()`: the linear index in the block modulo the warp size, as
    /// CUDA forms warps.
    #[inline(always)]
    pub fn lane_id(&self) -> usize {
        self.lin % WARP_SIZE
    }

    /// `warp_size()`: 32.
    #[inline(always)]
    pub fn warp_size(&self) -> usize {
        WARP_SIZE
    }

    /// `threadIdx`.
    #[inline]
    pub fn thread_idx(&self) -> Idx3 {
        Idx3 {
            x: self.tid[0],
            y: self.tid[1],
            z: self.tid[2],
        }
    }

    /// `blockIdx`.
    #[inline]
    pub fn block_idx(&self) -> Idx3 {
        let b = &self.block.idx;
        Idx3 {
            x: b[0],
            y: b[1],
            z: b[2],
        }
    }

    /// `blockDim`.
    #[inline]
    pub fn block_dim(&self) -> Idx3 {
        let b = &self.block.launch.block;
        Idx3 {
            x: b[0],
            y: b[1],
            z: b[2],
        }
    }

    /// `gridDim`.
    #[inline]
    pub fn grid_dim(&self) -> Idx3 {
        let g = &self.block.launch.grid;
        Idx3 {
            x: g[0],
            y: g[1],
            z: g[2],
        }
    }

    /// `__syncthreads()` on the coroutine path: suspends until every thread
    /// of the block that has not finished reaches a barrier. `site` numbers
    /// the `syncthreads()` in the kernel: threads waiting at different sites,
    /// or some waiting while others finished, is a divergent barrier, which
    /// the scheduler reports as a fault. Records a fault (a gpujit bug) on the
    /// loop path, where the macro splits the kernel at its barriers instead.
    #[inline]
    pub fn syncthreads(&self, site: u32) {
        self.barrier(site, false);
    }

    /// Waits at barrier `site` with this thread's vote `pred`; returns the
    /// number of threads that waited there and how many voted true.
    fn barrier(&self, site: u32, pred: bool) -> (u32, u32) {
        match self.yielder {
            Some(y) => {
                let r = y.suspend(Suspend::Barrier { site, vote: pred });
                ((r >> 32) as u32, r as u32)
            }
            None => {
                self.fault("syncthreads() reached outside the coroutine path (gpujit bug)");
                (1, u32::from(pred))
            }
        }
    }

    /// `__syncthreads_count(pred)` on the coroutine path: a barrier that
    /// returns how many threads of the block passed a true `pred`.
    #[inline]
    pub fn syncthreads_count(&self, site: u32, pred: bool) -> u32 {
        self.barrier(site, pred).1
    }

    /// `__syncthreads_and(pred)`: a barrier; true if `pred` is true in every
    /// thread of the block.
    #[inline]
    pub fn syncthreads_and(&self, site: u32, pred: bool) -> bool {
        let (n, yes) = self.barrier(site, pred);
        yes == n
    }

    /// `__syncthreads_or(pred)`: a barrier; true if `pred` is true in any
    /// thread of the block.
    #[inline]
    pub fn syncthreads_or(&self, site: u32, pred: bool) -> bool {
        self.barrier(site, pred).1 > 0
    }

    /// Suspends at warp intrinsic `op` (call number `site + 1` of the
    /// kernel) until the lanes of its mask are there; its result's bits
    /// (see `warp.rs`). Off the coroutine path, the split path's meeting
    /// (`Block::warp_gather`) records the arrival, then gives the result.
    /// Records a fault (a gpujit bug) anywhere else, and gives `value`.
    #[inline]
    fn warp(&self, site: u32, op: WarpOp, mask: u32, value: u64, arg: u32) -> u64 {
        let a = Arrival {
            site,
            op,
            mask,
            value,
            arg,
        };
        match self.yielder {
            Some(y) => suspend_at_warp(y, a),
            // Inlined into the split path's thread loops, one per meeting.
            None => match self.block.meet(self.lin, a) {
                Some(r) => r,
                None => {
                    self.fault("a warp intrinsic reached outside a warp meeting (gpujit bug)");
                    value
                }
            },
        }
    }

    /// `__shfl_sync(mask, value, src_lane)`: `value` of lane `src_lane % 32`.
    #[inline]
    pub fn shfl_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T, src_lane: u32) -> T {
        T::from_warp_bits(self.warp(site, WarpOp::Shfl, mask, value.warp_bits(), src_lane))
    }

    /// `__shfl_up_sync(mask, value, delta)`: `value` of lane `lane - delta %
    /// 32`, or this lane's own below lane `delta % 32`.
    #[inline]
    pub fn shfl_up_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T, delta: u32) -> T {
        T::from_warp_bits(self.warp(site, WarpOp::ShflUp, mask, value.warp_bits(), delta))
    }

    /// `__shfl_down_sync(mask, value, delta)`: `value` of lane `lane + delta
    /// % 32`, or this lane's own past lane 31.
    #[inline]
    pub fn shfl_down_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T, delta: u32) -> T {
        T::from_warp_bits(self.warp(site, WarpOp::ShflDown, mask, value.warp_bits(), delta))
    }

    /// `__shfl_xor_sync(mask, value, lane_mask)`: `value` of lane `lane ^
    /// (lane_mask % 32)`.
    #[inline]
    pub fn shfl_xor_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T, lane_mask: u32) -> T {
        T::from_warp_bits(self.warp(site, WarpOp::ShflXor, mask, value.warp_bits(), lane_mask))
    }

    /// `__ballot_sync(mask, pred)`: bit `l` set where lane `l` of the mask
    /// passed a true `pred`.
    #[inline]
    pub fn ballot_sync(&self, site: u32, mask: u32, pred: bool) -> u32 {
        self.warp(site, WarpOp::Ballot, mask, u64::from(pred), 0) as u32
    }

    /// `__all_sync(mask, pred)`: `pred` is true in every lane of the mask.
    #[inline]
    pub fn all_sync(&self, site: u32, mask: u32, pred: bool) -> bool {
        self.warp(site, WarpOp::All, mask, u64::from(pred), 0) != 0
    }

    /// `__any_sync(mask, pred)`: `pred` is true in some lane of the mask.
    #[inline]
    pub fn any_sync(&self, site: u32, mask: u32, pred: bool) -> bool {
        self.warp(site, WarpOp::Any, mask, u64::from(pred), 0) != 0
    }

    /// `__uni_sync(mask, pred)` (Numba's `eq_sync`): `pred` is the same in
    /// every lane of the mask.
    #[inline]
    pub fn eq_sync(&self, site: u32, mask: u32, pred: bool) -> bool {
        self.warp(site, WarpOp::Eq, mask, u64::from(pred), 0) != 0
    }

    /// `__match_any_sync(mask, value)`: the lanes of the mask whose `value`
    /// has the same bits as this lane's.
    #[inline]
    pub fn match_any_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T) -> u32 {
        self.warp(site, WarpOp::MatchAny, mask, value.warp_bits(), 0) as u32
    }

    /// `__match_all_sync(mask, value, &pred)`'s result: the lanes of `mask`
    /// that take part if they all have the same bits, else 0 (the predicate
    /// is `result != 0`: the calling lane takes part).
    #[inline]
    pub fn match_all_sync<T: WarpValue>(&self, site: u32, mask: u32, value: T) -> u32 {
        self.warp(site, WarpOp::MatchAll, mask, value.warp_bits(), 0) as u32
    }

    /// `__activemask()`: the lanes of this warp at this call together.
    #[inline]
    pub fn activemask(&self, site: u32) -> u32 {
        self.warp(site, WarpOp::ActiveMask, 0, 0, 0) as u32
    }

    /// `__syncwarp(mask)`: waits for the lanes of the mask.
    #[inline]
    pub fn syncwarp(&self, site: u32, mask: u32) {
        self.warp(site, WarpOp::SyncWarp, mask, 0, 0);
    }

    /// `lanemask_lt()` (PTX `%lanemask_lt`): the bits of the lanes below
    /// this one.
    #[inline(always)]
    pub fn lanemask_lt(&self) -> u32 {
        (1u32 << (self.lin % WARP_SIZE)) - 1
    }

    /// This thread's linear index in its block (`threadIdx.x` fastest):
    /// its slot in [`Block::per_thread`] arrays.
    #[inline(always)]
    pub fn lin(&self) -> usize {
        self.lin
    }

    /// The block this thread belongs to.
    #[inline(always)]
    pub fn block(&self) -> &'a Block<'a> {
        self.block
    }

    /// Checked mode (`check.rs`): records this thread's access `kind` at `at`
    /// to the element at `addr` (of shared memory if `shared`, an element of
    /// `size` bytes), and returns what it found: a race or an uninitialised
    /// read, for [`Thread::report_check`]. Nothing outside a checked launch.
    #[inline]
    pub(super) fn check_access(
        &self,
        shared: bool,
        addr: usize,
        size: usize,
        kind: Kind,
        at: &'static std::panic::Location<'static>,
    ) -> Option<(Finding, Access)> {
        let shadow = self.block.shadow?;
        let place = if shared {
            Place::Shared {
                offset: addr.wrapping_sub(self.block.shared_ptr as usize),
                size,
            }
        } else {
            Place::Global(addr)
        };
        let now = Access {
            block: self.block.linear,
            thread: self.lin,
            epoch: self.block.epoch.get(),
            kind,
            at,
        };
        // (Never borrowed elsewhere while an access runs: `access` calls out to nothing.)
        let finding = shadow.try_borrow_mut().ok()?.access(place, now)?;
        Some((finding, now))
    }

    /// The fault of a finding of [`Thread::check_access`], for `index` in
    /// array `name` of `space`. Out of line: the message is made only here.
    #[cold]
    #[inline(never)]
    pub(super) fn report_check(
        self,
        (finding, now): (Finding, Access),
        (space, name, index): (&dyn fmt::Display, &'static str, &[usize]),
    ) {
        let other = match finding {
            Finding::Race(a) => Who {
                block: self.block.block_of(a.block),
                thread: self.block.tid_of(a.thread),
            },
            Finding::Uninit => Who {
                block: self.block.idx,
                thread: self.tid,
            },
        };
        Thread::fault(
            self,
            Report {
                finding,
                space,
                name,
                index,
                now,
                who: Who {
                    block: self.block.idx,
                    thread: self.tid,
                },
                other,
            },
        );
    }

    /// Records a fault of this thread: the launch then returns
    /// [`Error::KernelFault`]. The thread goes on running.
    ///
    /// Takes the thread by value: a reference to it passed to this
    /// out-of-line call would make the thread loop keep every thread's
    /// coordinates in memory.
    #[cold]
    #[inline(never)]
    pub fn fault(self, message: impl fmt::Display) {
        self.block.record(self.tid, message);
    }

    /// True once the launch's time limit has passed: the generated code then
    /// returns from the thread at the next loop iteration. One relaxed atomic
    /// load.
    #[inline(always)]
    pub fn cancelled(&self) -> bool {
        self.cancel.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The step of a `for` loop that a split kernel runs once per block: a
    /// `step` of 0 is a fault of this thread (as in [`Thread::step_by`]).
    #[inline]
    pub fn check_step(&self, step: usize) -> usize {
        if step == 0 {
            self.fault(STEP_ZERO);
        }
        step
    }

    /// `(start..end).step_by(step)`, except that a `step` of 0 (a panic in
    /// Rust) records a fault and yields an empty range: the loop runs no
    /// iterations and the thread goes on.
    #[inline]
    pub fn step_by<T: Copy>(&self, start: T, end: T, step: usize) -> std::iter::StepBy<std::ops::Range<T>>
    where
        std::ops::Range<T>: Iterator,
    {
        self.block.step_by(start, end, self.check_step(step))
    }

    /// `(start..=end).step_by(step)`, with a `step` of 0 as in [`Thread::step_by`].
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
        self.block.step_by_inclusive(start, end, self.check_step(step))
    }

    /// `a + b` for a type only rustc knows: wraps ([`KernelArith`]).
    #[inline]
    pub fn arith_add<T: KernelArith>(&self, a: T, b: T) -> T {
        a.k_add(b)
    }

    /// `a - b` for a type only rustc knows: wraps.
    #[inline]
    pub fn arith_sub<T: KernelArith>(&self, a: T, b: T) -> T {
        a.k_sub(b)
    }

    /// `a * b` for a type only rustc knows: wraps.
    #[inline]
    pub fn arith_mul<T: KernelArith>(&self, a: T, b: T) -> T {
        a.k_mul(b)
    }

    /// `a / b` for a type only rustc knows: an integer ÷0 is a fault (0).
    #[inline]
    pub fn arith_div<T: KernelArith>(&self, a: T, b: T) -> T {
        a.k_div(b, self)
    }

    /// `a % b` for a type only rustc knows: an integer ÷0 is a fault (0).
    #[inline]
    pub fn arith_rem<T: KernelArith>(&self, a: T, b: T) -> T {
        a.k_rem(b, self)
    }

    /// `-a` for a type only rustc knows: wraps.
    #[inline]
    pub fn arith_neg<T: KernelArith>(&self, a: T) -> T {
        a.k_neg()
    }

    /// `a.abs()` for a type only rustc knows: wraps (`i32::MIN` stays).
    #[inline]
    pub fn arith_abs<T: KernelArith>(&self, a: T) -> T {
        a.k_abs()
    }

    /// `a << b` for an integer type only rustc knows (`wrapping_shl`).
    #[inline]
    pub fn arith_shl<T: KernelShift>(&self, a: T, b: u32) -> T {
        a.k_shl(b)
    }

    /// `a >> b` for an integer type only rustc knows (`wrapping_shr`).
    #[inline]
    pub fn arith_shr<T: KernelShift>(&self, a: T, b: u32) -> T {
        a.k_shr(b)
    }

    /// Integer `a / b` as [`IntDiv::div_or_fault`]: 0 and a fault if `b == 0`.
    #[inline]
    pub fn div<T: IntDiv>(&self, a: T, b: T) -> T {
        a.div_or_fault(b, self)
    }

    /// Integer `a % b` as [`IntDiv::rem_or_fault`]: 0 and a fault if `b == 0`.
    #[inline]
    pub fn rem<T: IntDiv>(&self, a: T, b: T) -> T {
        a.rem_or_fault(b, self)
    }
}

/// The fault message of a `step_by(0)` loop.
pub(super) const STEP_ZERO: &str = "the step of a `for` loop (`step_by`) is zero; the loop ran no iterations";

impl Faults for Thread<'_> {
    #[inline]
    fn fault(&self, message: &'static str) {
        Thread::fault(*self, message)
    }
}

/// A thread on the coroutine path suspends at a warp intrinsic (kept out of
/// the split path's inlined thread loops).
#[inline(never)]
fn suspend_at_warp(y: &Yielder<u64, Suspend>, a: Arrival) -> u64 {
    y.suspend(Suspend::Warp(a))
}
