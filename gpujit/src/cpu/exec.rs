//! The CPU executor: runs every thread of a grid with CUDA semantics.
//!
//! Blocks run in parallel on all cores (rayon, one task per block, `blockIdx.x`
//! fastest). Inside a block, a kernel without `syncthreads()` runs its threads
//! one after another (`threadIdx.x` fastest, then y, then z); a kernel with
//! barriers runs every thread as a stackful coroutine (corosensei) and a
//! `syncthreads()` suspends it until every live thread of the block has reached
//! the barrier or finished.
//!
//! Faults are counted per operation and never stop other threads. An optional
//! time limit ([`with_cpu_time_limit`], `GPUJIT_CPU_TIME_LIMIT_MS`) cancels a
//! run-away launch: a watchdog thread sets a flag that the generated code
//! polls at every loop iteration, and blocks not yet started are skipped.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use rayon::prelude::*;

use crate::backend::{Backend, BackendKind, DeviceBuffer, HostBuffer};
use crate::cpu::view::{IntDiv, SharedMem, View};
use crate::cpu::{Idx3, KernelArith, KernelShift};
use crate::error::{Error, Result};
use crate::kernel_def::{check_args, ArgPtr, KernelArg, KernelDef};
use crate::launch::LaunchConfig;
use crate::scalar::DeviceScalar;
use crate::stream::Stream;

/// Static shared memory of one kernel (all its `shared_array`s), laid out by
/// the macro: total size in bytes and the largest element alignment in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SharedLayout {
    /// Bytes of shared memory per block.
    pub bytes: usize,
    /// Required alignment of the buffer in bytes (a power of two; the buffer is
    /// always aligned to at least 16).
    pub align: usize,
}

/// CUDA's limit on static `__shared__` memory per block (48 KiB), enforced on
/// the CPU too so that a kernel that runs here also compiles for a GPU.
pub const MAX_SHARED_BYTES: usize = 48 * 1024;

/// Default stack size of a coroutine thread (kernels with barriers), in bytes.
pub const DEFAULT_STACK_BYTES: usize = 256 * 1024;

/// One launch of a kernel on the CPU backend, handed to the kernel's generated
/// CPU entry ([`KernelDef::cpu`]), which unpacks its arguments and calls
/// [`CpuLaunch::run`].
#[derive(Debug)]
pub struct CpuLaunch<'a> {
    kernel: &'a KernelDef,
    cfg: LaunchConfig,
}

impl<'a> CpuLaunch<'a> {
    /// A launch of `kernel` with the (already validated) configuration `cfg`.
    pub fn new(kernel: &'a KernelDef, cfg: LaunchConfig) -> Self {
        CpuLaunch { kernel, cfg }
    }

    /// The kernel being launched.
    pub fn kernel(&self) -> &'a KernelDef {
        self.kernel
    }

    /// The grid and block size.
    pub fn config(&self) -> &LaunchConfig {
        &self.cfg
    }

    /// Runs `body` once per thread of the grid and waits for all of them.
    ///
    /// `shared` is the kernel's static shared memory (zeroed at the start of
    /// every block); `uses_barrier` must be true if `body` calls
    /// [`Thread::syncthreads`].
    ///
    /// A fault (out-of-bounds access, integer division by zero, a `step_by(0)`
    /// loop, or a panic in `body`, which generated code never does) is recorded
    /// and the faulting thread goes on (a faulting read yields 0, a faulting
    /// write is skipped, a `step_by(0)` loop runs no iterations) or, after a
    /// panic, ends; it never changes what the other threads do. A caught
    /// panic is still printed by the process's panic hook, which gpujit
    /// leaves alone.
    ///
    /// With a time limit ([`with_cpu_time_limit`] or `GPUJIT_CPU_TIME_LIMIT_MS`)
    /// a watchdog thread cancels the launch at the deadline: every thread
    /// returns at its next loop iteration and blocks not yet started are
    /// skipped. Without one, a kernel that never ends blocks this call forever,
    /// as it would on a GPU without a display watchdog.
    ///
    /// # Errors
    /// - [`Error::LaunchTimeout`] if the time limit passed before every thread
    ///   finished.
    /// - [`Error::KernelFault`] if any thread faulted: the first fault (lowest
    ///   block, then lowest thread of that block) with its coordinates, and the
    ///   exact number of faulting operations in the launch. The other threads
    ///   still ran to completion.
    /// - [`Error::InvalidLaunchConfig`] if the configuration breaks a CUDA
    ///   limit (`LaunchConfig`'s fields are public, so it may not have been
    ///   validated), `shared` exceeds the CUDA limit of 48 KiB per block,
    ///   `GPUJIT_CPU_STACK_BYTES` or `GPUJIT_CPU_TIME_LIMIT_MS` is not a valid
    ///   number, or the watchdog thread cannot be started.
    pub fn run<F: Fn(&Thread<'_>) + Sync>(&self, shared: SharedLayout, uses_barrier: bool, body: &F) -> Result<()> {
        self.cfg.validate()?;
        if shared.bytes > MAX_SHARED_BYTES {
            return Err(Error::InvalidLaunchConfig(format!(
                "kernel `{}` uses {} bytes of shared memory per block, more than the CUDA limit of {MAX_SHARED_BYTES} bytes; use smaller shared arrays",
                self.kernel.name, shared.bytes
            )));
        }
        let stack_bytes = if uses_barrier { stack_size()? } else { 0 };
        let limit = time_limit()?;
        let grid = [
            self.cfg.grid.x as usize,
            self.cfg.grid.y as usize,
            self.cfg.grid.z as usize,
        ];
        let block = [
            self.cfg.block.x as usize,
            self.cfg.block.y as usize,
            self.cfg.block.z as usize,
        ];
        let blocks = usize::try_from(self.cfg.grid.volume()).map_err(|_| {
            Error::InvalidLaunchConfig(format!(
                "{} blocks do not fit this host's usize",
                self.cfg.grid.volume()
            ))
        })?;
        let ctx = LaunchCtx {
            grid,
            block,
            gridsize: [grid[0] * block[0], grid[1] * block[1], grid[2] * block[2]],
            shared,
            uses_barrier,
            stack_bytes,
            faults: AtomicUsize::new(0),
            first: Mutex::new(None),
            cancel: AtomicBool::new(false),
        };
        // `try_for_each` stops handing out blocks once one returns `Err`, so a
        // cancelled launch of 2^31 blocks ends at once instead of visiting
        // every remaining block index.
        let run_all = || {
            let _ = (0..blocks).into_par_iter().try_for_each(|b| {
                if ctx.cancel.load(Ordering::Relaxed) {
                    return Err(());
                }
                ctx.run_block(b, body);
                Ok(())
            });
        };
        match limit {
            None => run_all(),
            Some(limit) => std::thread::scope(|s| -> Result<()> {
                // The watchdog sleeps until the deadline or until the launch
                // ends (the sender is dropped), whichever comes first.
                let (done, wait) = mpsc::channel::<()>();
                let cancel = &ctx.cancel;
                std::thread::Builder::new()
                    .name("gpujit-watchdog".into())
                    .spawn_scoped(s, move || {
                        if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                            cancel.store(true, Ordering::Relaxed);
                        }
                    })
                    .map_err(|e| {
                        Error::InvalidLaunchConfig(format!(
                            "cannot start the watchdog thread of the CPU time limit: {e}; unset GPUJIT_CPU_TIME_LIMIT_MS"
                        ))
                    })?;
                run_all();
                drop(done);
                Ok(())
            })?,
        }
        if ctx.cancel.load(Ordering::Relaxed) {
            let limit_ms = limit.map_or(0, |l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX));
            return Err(Error::LaunchTimeout {
                kernel: self.kernel.name.to_string(),
                limit_ms,
            });
        }

        let faults = ctx.faults.load(Ordering::Relaxed);
        if faults == 0 {
            return Ok(());
        }
        let first = ctx.first.into_inner().unwrap_or_else(|e| e.into_inner());
        let (block, thread, message) = match first {
            Some(f) => (f.block, f.thread, f.message),
            None => ([0; 3], [0; 3], "unknown fault".to_string()),
        };
        Err(Error::KernelFault {
            kernel: self.kernel.name.to_string(),
            block,
            thread,
            message,
            faults,
        })
    }
}

/// The first fault of a block (or of the launch).
struct Fault {
    /// Linear block index.
    block_key: usize,
    /// Linear thread index in the block.
    thread_key: usize,
    block: [u32; 3],
    thread: [u32; 3],
    message: String,
}

/// What every block of a launch shares.
struct LaunchCtx {
    grid: [usize; 3],
    block: [usize; 3],
    gridsize: [usize; 3],
    shared: SharedLayout,
    uses_barrier: bool,
    stack_bytes: usize,
    faults: AtomicUsize,
    first: Mutex<Option<Fault>>,
    /// Set by the watchdog at the deadline; polled by every loop iteration of
    /// the generated code and before each block and thread starts.
    cancel: AtomicBool,
}

/// Per-block state, owned by the OS thread that runs the block.
struct BlockCtx<'a> {
    launch: &'a LaunchCtx,
    linear: usize,
    idx: [usize; 3],
    /// `blockIdx * blockDim` per axis.
    base: [usize; 3],
    shared_ptr: *mut u8,
    shared_len: usize,
    fault_count: Cell<usize>,
    first: RefCell<Option<Fault>>,
}

fn to_u32x3(v: [usize; 3]) -> [u32; 3] {
    v.map(|c| u32::try_from(c).unwrap_or(u32::MAX))
}

impl LaunchCtx {
    /// Runs one block; generic over the kernel body so that the per-thread
    /// call is inlined into the thread loop.
    fn run_block<F: Fn(&Thread<'_>) + Sync>(&self, linear: usize, body: &F) {
        if self.cancel.load(Ordering::Relaxed) {
            return;
        }
        let idx = [
            linear % self.grid[0],
            (linear / self.grid[0]) % self.grid[1],
            linear / (self.grid[0] * self.grid[1]),
        ];
        let mut shared = SharedBuf::take(self.shared);
        let (shared_ptr, shared_len) = shared.zeroed_region(self.shared);
        let b = BlockCtx {
            launch: self,
            linear,
            idx,
            base: [idx[0] * self.block[0], idx[1] * self.block[1], idx[2] * self.block[2]],
            shared_ptr,
            shared_len,
            fault_count: Cell::new(0),
            first: RefCell::new(None),
        };
        let mut current = [0usize; 3];
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if self.uses_barrier {
                b.run_coroutines(&mut current, body);
            } else {
                b.run_sequential(&mut current, body);
            }
        }));
        if let Err(payload) = outcome {
            // Only the coroutine path gets here (a panic the coroutine did not
            // catch); the sequential path catches per thread.
            b.record_panic(current, &*payload);
        }
        shared.give_back();
        b.publish();
    }
}

impl BlockCtx<'_> {
    /// Fast path: threads one after another, x fastest. A panic ends only
    /// the thread that panicked (one fault), never the rest of the block.
    fn run_sequential<F: Fn(&Thread<'_>)>(&self, current: &mut [usize; 3], body: &F) {
        let [bx, by, bz] = self.launch.block;
        let cancel = &self.launch.cancel;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    if cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    *current = [x, y, z];
                    let t = Thread {
                        block: self,
                        tid: [x, y, z],
                        yielder: None,
                        cancel,
                    };
                    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&t))) {
                        self.record_panic([x, y, z], &*payload);
                    }
                }
            }
        }
    }

    /// Barrier path: one coroutine per thread, resumed round after round.
    fn run_coroutines<F: Fn(&Thread<'_>)>(&self, current: &mut [usize; 3], body: &F) {
        let [bx, by, _] = self.launch.block;
        let n = self.launch.block.iter().product::<usize>();
        let tid_of = |i: usize| [i % bx, (i / bx) % by, i / (bx * by)];
        let mut coros: Vec<Option<Coro>> = Vec::with_capacity(n);
        for i in 0..n {
            let tid = tid_of(i);
            let stack = match StackPool::take(self.launch.stack_bytes) {
                Ok(s) => s,
                Err(e) => {
                    self.record(
                        tid,
                        format!(
                            "cannot allocate a {}-byte coroutine stack for a thread of a kernel with syncthreads(): {e}; set GPUJIT_CPU_STACK_BYTES lower or use smaller blocks",
                            self.launch.stack_bytes
                        ),
                    );
                    // The coroutines made so far never started: dropping them
                    // just drops their closures.
                    return;
                }
            };
            // SAFETY: the closure borrows `self` and `body`, which outlive every
            // coroutine: all of them live in `coros`, which is dropped (after
            // each coroutine completed, or on unwinding, which force-unwinds
            // the suspended ones) before this function returns.
            let coro = unsafe {
                Coro::with_stack_unchecked(stack, move |y: &Yielder<(), ()>, ()| {
                    let t = Thread {
                        block: self,
                        tid,
                        yielder: Some(y),
                        cancel: &self.launch.cancel,
                    };
                    let run = || with_stack_colour(i, || body(&t));
                    if let Err(payload) = catch_unwind(AssertUnwindSafe(run)) {
                        match panic_message(&*payload) {
                            Some(m) => t.fault(format_args!("kernel panicked: {m}")),
                            // Not a panic of the kernel body (e.g. corosensei's
                            // forced unwind): let it go on.
                            None => resume_unwind(payload),
                        }
                    }
                })
            };
            coros.push(Some(coro));
        }
        let mut live = n;
        while live > 0 {
            for (i, slot) in coros.iter_mut().enumerate() {
                let Some(coro) = slot else { continue };
                *current = tid_of(i);
                if let CoroutineResult::Return(()) = coro.resume(()) {
                    if let Some(done) = slot.take() {
                        StackPool::give_back(done.into_stack());
                    }
                    live -= 1;
                }
            }
        }
    }

    /// Records a fault of thread `tid` of this block (no locking: a block runs
    /// on one OS thread).
    #[cold]
    fn record(&self, tid: [usize; 3], message: impl fmt::Display) {
        self.fault_count.set(self.fault_count.get() + 1);
        let [bx, by, _] = self.launch.block;
        let key = (tid[2] * by + tid[1]) * bx + tid[0];
        let keep = self
            .first
            .try_borrow()
            .is_ok_and(|f| f.as_ref().is_none_or(|f| key < f.thread_key));
        if keep {
            // Formatted outside any borrow: the message's `Display` may fault again.
            let message = message.to_string();
            if let Ok(mut first) = self.first.try_borrow_mut() {
                *first = Some(Fault {
                    block_key: self.linear,
                    thread_key: key,
                    block: to_u32x3(self.idx),
                    thread: to_u32x3(tid),
                    message,
                });
            }
        }
    }

    /// Records a panic of thread `tid` as a fault.
    #[cold]
    fn record_panic(&self, tid: [usize; 3], payload: &(dyn Any + Send)) {
        let message = panic_message(payload).unwrap_or("(non-string panic payload)");
        self.record(tid, format_args!("kernel panicked: {message}"));
    }

    /// Merges this block's faults into the launch's.
    fn publish(self) {
        let count = self.fault_count.get();
        if count == 0 {
            return;
        }
        self.launch.faults.fetch_add(count, Ordering::Relaxed);
        if let Some(f) = self.first.into_inner() {
            let mut first = self.launch.first.lock().unwrap_or_else(|e| e.into_inner());
            if first.as_ref().is_none_or(|g| f.block_key < g.block_key) {
                *first = Some(f);
            }
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

type Coro = Coroutine<(), (), (), DefaultStack>;

/// Runs `f` below a padding of `(i % 8) * 512` bytes on the current stack.
///
/// Every coroutine stack starts page-aligned, so without padding the hot
/// frames of all threads of a block sit at the same offsets within a page and
/// compete for the same few L1 cache sets on every switch.
#[inline(never)]
fn with_stack_colour(i: usize, f: impl FnOnce()) {
    #[inline(never)]
    fn pad<const N: usize>(f: impl FnOnce()) {
        let padding = [0u8; N];
        std::hint::black_box(&padding);
        f();
    }
    match i % 8 {
        0 => f(),
        1 => pad::<512>(f),
        2 => pad::<1024>(f),
        3 => pad::<1536>(f),
        4 => pad::<2048>(f),
        5 => pad::<2560>(f),
        6 => pad::<3072>(f),
        _ => pad::<3584>(f),
    }
}

/// The context of one kernel thread on the CPU backend: its coordinates, the
/// intrinsics (`grid`, `thread_idx`, `syncthreads`, shared memory, ...) and
/// fault reporting. The generated CPU code receives one per thread.
pub struct Thread<'a> {
    block: &'a BlockCtx<'a>,
    tid: [usize; 3],
    yielder: Option<&'a Yielder<(), ()>>,
    /// The launch's cancel flag, here so that polling it is one load.
    cancel: &'a AtomicBool,
}

impl fmt::Debug for Thread<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Thread(block {:?}, thread {:?})", self.block.idx, self.tid)
    }
}

impl Thread<'_> {
    /// `grid(1)`: `blockIdx.x * blockDim.x + threadIdx.x`.
    #[inline]
    pub fn grid1(&self) -> usize {
        self.block.base[0] + self.tid[0]
    }

    /// `grid(2)`: the global `(x, y)` index.
    #[inline]
    pub fn grid2(&self) -> (usize, usize) {
        (self.block.base[0] + self.tid[0], self.block.base[1] + self.tid[1])
    }

    /// `grid(3)`: the global `(x, y, z)` index.
    #[inline]
    pub fn grid3(&self) -> (usize, usize, usize) {
        (
            self.block.base[0] + self.tid[0],
            self.block.base[1] + self.tid[1],
            self.block.base[2] + self.tid[2],
        )
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

    /// `__syncthreads()`: waits until every thread of the block that has not
    /// finished reaches a barrier. Records a fault (a gpujit bug) if the kernel
    /// was launched without barrier support.
    #[inline]
    pub fn syncthreads(&self) {
        match self.yielder {
            Some(y) => y.suspend(()),
            None => self.fault("syncthreads() called in a kernel compiled without barriers (gpujit bug)"),
        }
    }

    /// The block's shared array at `byte_offset` (bytes from the start of the
    /// block's shared memory) with shape `dims` (1-3 dimensions, C order) and
    /// elements of type `T`; `name` is used in fault messages.
    ///
    /// The view borrows this `Thread`, so it cannot outlive the thread's body
    /// (nor the block's buffer), and it is neither `Send` nor `Sync`.
    ///
    /// If the array does not fit the kernel's [`SharedLayout`] or is misaligned
    /// (a gpujit bug), records a fault and returns an empty view.
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
                .is_some_and(|end| end <= self.block.shared_len);
        if !fits {
            self.fault(format_args!(
                "shared array `{name}` of shape {dims:?} at byte offset {byte_offset} does not fit the block's {} bytes of shared memory (gpujit bug)",
                self.block.shared_len
            ));
            return View::empty(name);
        }
        // SAFETY: `byte_offset + size_of::<T>() * product(dims) <= shared_len`,
        // so the elements lie inside the block's shared buffer; the buffer is
        // 16-byte aligned (or more) and `byte_offset` is a multiple of
        // `align_of::<T>()` (at most 8). The buffer stays allocated until the
        // block has finished, which is after every borrow of a `Thread` of the
        // block ended, and the block (all of its threads, coroutines included)
        // runs on one OS thread; the view is `!Send + !Sync`, so it cannot be
        // used from another.
        unsafe { View::shared(self.block.shared_ptr.add(byte_offset).cast::<T>(), dims, name) }
    }

    /// Records a fault of this thread: the launch then returns
    /// [`Error::KernelFault`]. The thread goes on running.
    #[cold]
    #[inline(never)]
    pub fn fault(&self, message: impl fmt::Display) {
        self.block.record(self.tid, message);
    }

    /// True once the launch's time limit has passed: the generated code then
    /// returns from the thread at the next loop iteration. One relaxed atomic
    /// load.
    #[inline(always)]
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `(start..end).step_by(step)`, except that a `step` of 0 (a panic in
    /// Rust) records a fault and yields an empty range: the loop runs no
    /// iterations and the thread goes on.
    #[inline]
    pub fn step_by<T: Copy>(&self, start: T, end: T, step: usize) -> std::iter::StepBy<std::ops::Range<T>>
    where
        std::ops::Range<T>: Iterator,
    {
        if step == 0 {
            self.fault(STEP_ZERO);
            return (end..end).step_by(1);
        }
        (start..end).step_by(step)
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
        if step == 0 {
            self.fault(STEP_ZERO);
            // A one-element range, exhausted: empty, whatever `T` is.
            let mut empty = end..=end;
            empty.next();
            return empty.step_by(1);
        }
        (start..=end).step_by(step)
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
const STEP_ZERO: &str = "the step of a `for` loop (`step_by`) is zero; the loop ran no iterations";

/// The environment variable that sets a time limit for every CPU launch.
pub const TIME_LIMIT_ENV: &str = "GPUJIT_CPU_TIME_LIMIT_MS";

thread_local! {
    /// The limit set by [`with_cpu_time_limit`] on this OS thread, if any.
    static SCOPED_LIMIT: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Runs `f` with a time limit for every CPU-backend launch that `f` makes on
/// the calling OS thread; it takes precedence over `GPUJIT_CPU_TIME_LIMIT_MS`.
///
/// A launch still running when `limit` has passed (measured from its start)
/// is cancelled: every kernel thread returns at its next loop iteration
/// (`for`, `while`, `loop`), blocks not yet started are skipped, and the
/// launch returns [`Error::LaunchTimeout`] naming the kernel. What the
/// cancelled launch wrote is unspecified. Each launch with a limit starts one
/// watchdog thread that sleeps until the deadline or the end of the launch.
/// Without a limit a kernel that never ends blocks the launch forever, as on a
/// GPU without a display watchdog. The CUDA backend has no such limit.
///
/// ```
/// use gpujit::prelude::*;
/// use std::time::Duration;
///
/// #[gpu_kernel]
/// fn spin(out: &mut [u32]) {
///     loop {
///         out[0] += 1;
///     }
/// }
///
/// // (On the CUDA backend, which has no time limit, this kernel never ends.)
/// if gpujit::detect().kind == gpujit::BackendKind::Cpu {
///     let mut out = gpujit::zeros::<u32>(1)?;
///     let r = gpujit::with_cpu_time_limit(Duration::from_millis(100), || spin![1, 1](&mut out));
///     assert!(matches!(r, Err(Error::LaunchTimeout { .. })));
/// }
/// # Ok::<(), gpujit::Error>(())
/// ```
pub fn with_cpu_time_limit<R>(limit: Duration, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Duration>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED_LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(SCOPED_LIMIT.with(|l| l.replace(Some(limit))));
    f()
}

/// The time limit of a launch: [`with_cpu_time_limit`]'s, else
/// `GPUJIT_CPU_TIME_LIMIT_MS` (read once), else none.
fn time_limit() -> Result<Option<Duration>> {
    if let Some(l) = SCOPED_LIMIT.with(Cell::get) {
        return Ok(Some(l));
    }
    static ENV: OnceLock<std::result::Result<Option<Duration>, String>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var(TIME_LIMIT_ENV) {
        Err(_) => Ok(None),
        Ok(v) => parse_time_limit(&v).map(Some),
    })
    .clone()
    .map_err(Error::InvalidLaunchConfig)
}

/// Parses a `GPUJIT_CPU_TIME_LIMIT_MS` value: whole milliseconds, at least 1.
fn parse_time_limit(v: &str) -> std::result::Result<Duration, String> {
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "{TIME_LIMIT_ENV}=`{v}` is not a time limit in whole milliseconds (1 or more); unset it for no limit"
        )),
    }
}

/// Stack size of a coroutine thread: `GPUJIT_CPU_STACK_BYTES` or 256 KiB.
fn stack_size() -> Result<usize> {
    static SIZE: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    SIZE.get_or_init(|| match std::env::var("GPUJIT_CPU_STACK_BYTES") {
        Err(_) => Ok(DEFAULT_STACK_BYTES),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (16 * 1024..=1 << 30).contains(&n) => Ok(n),
            _ => Err(format!(
                "GPUJIT_CPU_STACK_BYTES=`{v}` is not a stack size in bytes between 16384 and 1073741824; unset it for the default of {DEFAULT_STACK_BYTES}"
            )),
        },
    })
    .clone()
    .map_err(Error::InvalidLaunchConfig)
}

thread_local! {
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    static SHARED: Cell<Vec<u128>> = const { Cell::new(Vec::new()) };
}

/// Coroutine stacks reused across blocks on the same OS thread (an `mmap` per
/// coroutine would dominate the cost of small blocks).
struct StackPool;

impl StackPool {
    fn take(bytes: usize) -> std::io::Result<DefaultStack> {
        let pooled = STACKS
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
            .ok()
            .flatten();
        match pooled {
            Some(s) => Ok(s),
            None => DefaultStack::new(bytes),
        }
    }

    fn give_back(stack: DefaultStack) {
        let mut stack = Some(stack);
        let _ = STACKS.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                // At most one stack per thread of the largest block.
                if s.len() < crate::launch::MAX_THREADS_PER_BLOCK as usize {
                    s.extend(stack.take());
                }
            }
        });
    }
}

/// The shared-memory buffer of a block, taken from (and given back to) a
/// per-OS-thread cache.
struct SharedBuf {
    words: Vec<u128>,
}

impl SharedBuf {
    fn take(layout: SharedLayout) -> SharedBuf {
        if layout.bytes == 0 {
            return SharedBuf { words: Vec::new() };
        }
        SharedBuf {
            words: SHARED.try_with(Cell::take).unwrap_or_default(),
        }
    }

    /// Zeroes and returns `layout.bytes` bytes aligned to `max(layout.align, 16)`.
    fn zeroed_region(&mut self, layout: SharedLayout) -> (*mut u8, usize) {
        if layout.bytes == 0 {
            return (std::ptr::NonNull::<u128>::dangling().as_ptr().cast(), 0);
        }
        // `layout.bytes <= MAX_SHARED_BYTES`, so none of this overflows.
        let align = layout.align.max(16).checked_next_power_of_two().unwrap_or(16).min(4096);
        let words = (layout.bytes + align).div_ceil(16);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
        let base = self.words.as_mut_ptr().cast::<u8>();
        let pad = base.align_offset(align).min(align - 16);
        // SAFETY: the buffer has `bytes + align` bytes, `pad < align`, so
        // `[pad, pad + bytes)` lies inside it.
        unsafe {
            let start = base.add(pad);
            start.write_bytes(0, layout.bytes);
            (start, layout.bytes)
        }
    }

    fn give_back(self) {
        if self.words.capacity() > 0 {
            let words = self.words;
            let _ = SHARED.try_with(move |s| s.set(words));
        }
    }
}

/// The CPU backend: host memory and the executor above. Launches are
/// synchronous (they return when every thread has finished).
#[derive(Debug, Default, Clone, Copy)]
pub struct CpuBackend;

impl Backend for CpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn description(&self) -> String {
        format!("CPU ({} worker threads, rayon)", rayon::current_num_threads())
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn DeviceBuffer>> {
        Ok(Box::new(HostBuffer::new_zeroed(bytes)?))
    }

    fn launch(
        &self,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        args: &mut [KernelArg<'_>],
        stream: Option<&Stream>,
    ) -> Result<()> {
        // A CPU stream runs its work at once: nothing to queue behind.
        if let Some(s) = stream {
            if s.backend() != BackendKind::Cpu {
                return Err(Error::WrongBackend {
                    array: format!("{} (the stream)", s.backend()),
                    launch: BackendKind::Cpu.to_string(),
                });
            }
        }
        let args = &*args;
        cfg.validate()?;
        check_args(kernel, args)?;
        for arg in args {
            if let KernelArg::Array(a) = arg {
                if a.backend != BackendKind::Cpu || !matches!(a.ptr(), ArgPtr::Host(_)) {
                    return Err(Error::WrongBackend {
                        array: a.backend.to_string(),
                        launch: BackendKind::Cpu.to_string(),
                    });
                }
            }
        }
        let launch = CpuLaunch::new(kernel, *cfg);
        (kernel.cpu)(&launch, args)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_def::{ParamDef, ParamKind};
    use crate::scalar::ScalarType;
    use crate::DeviceArray;

    /// Arrays in the CPU backend's host memory whatever `GPUJIT_BACKEND`
    /// says: these tests run the CPU executor directly.
    fn cpu_zeros<T: crate::DeviceScalar>(shape: impl Into<crate::array::Shape>) -> Result<DeviceArray<T>> {
        DeviceArray::zeros_on(&CpuBackend, shape)
    }

    fn cpu_filled<T: crate::DeviceScalar>(data: &[T]) -> DeviceArray<T> {
        let mut a = cpu_zeros::<T>(data.len()).unwrap();
        a.copy_from_host(data).unwrap();
        a
    }

    fn no_source() -> &'static str {
        ""
    }

    const fn kernel(
        name: &'static str,
        params: &'static [ParamDef],
        cpu: crate::kernel_def::CpuEntry,
        uses_barrier: bool,
    ) -> KernelDef {
        KernelDef {
            name,
            entry: name,
            params,
            cuda_source: no_source,
            nvrtc_source: no_source,
            cpu,
            uses_barrier,
        }
    }

    const fn array(name: &'static str, elem: ScalarType, ndim: usize, mutable: bool) -> ParamDef {
        ParamDef {
            name,
            kind: ParamKind::Array { elem, ndim, mutable },
        }
    }

    fn cfg(grid: impl crate::IntoDim3, block: impl crate::IntoDim3) -> LaunchConfig {
        LaunchConfig::new(grid, block).unwrap()
    }

    // (a) every thread of a 2-D grid writes its grid2 index.
    fn write_grid2_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let out = View::<u64>::from_arg(&args[0], "out");
        l.run(SharedLayout::default(), false, &|t| {
            let (x, y) = t.grid2();
            let (ny, nx) = out.dim2();
            if y < ny && x < nx {
                let (tid, bid, bdim) = (t.thread_idx(), t.block_idx(), t.block_dim());
                assert_eq!(x, bid.x * bdim.x + tid.x);
                assert_eq!(y, bid.y * bdim.y + tid.y);
                out.st2(t, y, x, (x as u64) | ((y as u64) << 32));
            }
        })
    }
    static WRITE_GRID2: KernelDef = kernel(
        "write_grid2",
        &[array("out", ScalarType::U64, 2, true)],
        write_grid2_cpu,
        false,
    );

    #[test]
    fn grid2_indices() {
        let (ny, nx) = (37, 50);
        let mut out = cpu_zeros::<u64>((ny, nx)).unwrap();
        let c = cfg(
            (crate::launch::blocks_for(nx, 16), crate::launch::blocks_for(ny, 8)),
            (16, 8),
        );
        CpuBackend
            .launch(&WRITE_GRID2, &c, &mut [KernelArg::array_mut(&mut out)], None)
            .unwrap();
        let host = out.copy_to_host().unwrap();
        for y in 0..ny {
            for x in 0..nx {
                assert_eq!(host[y * nx + x], (x as u64) | ((y as u64) << 32), "element [{y}, {x}]");
            }
        }
    }

    #[test]
    fn launch_checks_arguments() {
        let out = cpu_zeros::<u64>((2, 2)).unwrap();
        let err = CpuBackend
            .launch(&WRITE_GRID2, &cfg(1, 1), &mut [KernelArg::array(&out)], None)
            .unwrap_err();
        assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
        let mut flat = cpu_zeros::<u64>(4).unwrap();
        let err = CpuBackend
            .launch(&WRITE_GRID2, &cfg(1, 1), &mut [KernelArg::array_mut(&mut flat)], None)
            .unwrap_err();
        assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    }

    // (b) neighbour exchange through shared memory, correct only with a barrier.
    fn neighbour_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let out = View::<u32>::from_arg(&args[0], "out");
        l.run(
            SharedLayout {
                bytes: 256 * 4,
                align: 4,
            },
            true,
            &|t| {
                let s = t.shared::<u32>(0, &[256], "s");
                let tid = t.thread_idx().x;
                let blk = t.block_idx().x as u32;
                s.st(t, tid, blk * 1000 + tid as u32);
                t.syncthreads();
                out.st(t, t.grid1(), s.ld(t, (tid + 1) % 256));
            },
        )
    }
    static NEIGHBOUR: KernelDef = kernel(
        "neighbour",
        &[array("out", ScalarType::U32, 1, true)],
        neighbour_cpu,
        true,
    );

    #[test]
    fn barrier_neighbour_exchange() {
        let blocks = 8;
        let mut out = cpu_zeros::<u32>(blocks * 256).unwrap();
        CpuBackend
            .launch(
                &NEIGHBOUR,
                &cfg(blocks, 256),
                &mut [KernelArg::array_mut(&mut out)],
                None,
            )
            .unwrap();
        let host = out.copy_to_host().unwrap();
        for b in 0..blocks {
            for tid in 0..256 {
                assert_eq!(
                    host[b * 256 + tid],
                    (b * 1000 + (tid + 1) % 256) as u32,
                    "block {b} thread {tid}"
                );
            }
        }
    }

    // (c) barriers in a loop, a 2-D block, and threads that finish early.
    const ROUNDS: usize = 5;
    fn rotate_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let out = View::<i64>::from_arg(&args[0], "out");
        l.run(
            SharedLayout {
                bytes: 64 * 8,
                align: 8,
            },
            true,
            &|t| {
                let s = t.shared::<i64>(0, &[4, 16], "s");
                let (x, y) = (t.thread_idx().x, t.thread_idx().y);
                let n = 64;
                let tid = y * 16 + x;
                let blk = t.block_idx().x as i64;
                let mut v = blk * 100 + tid as i64;
                for _ in 0..ROUNDS {
                    s.st2(t, y, x, v);
                    t.syncthreads();
                    let next = (tid + 1) % n;
                    v = s.ld2(t, next / 16, next % 16) + 1000;
                    t.syncthreads();
                }
                out.st(t, t.block_idx().x * n + tid, v);
                if x == 0 {
                    // These threads finish now; the others still meet at barriers.
                    return;
                }
                s.st(t, tid, 7);
                t.syncthreads();
                t.syncthreads();
            },
        )
    }
    static ROTATE: KernelDef = kernel("rotate", &[array("out", ScalarType::I64, 1, true)], rotate_cpu, true);

    #[test]
    fn barrier_in_loop() {
        let blocks = 3;
        let mut out = cpu_zeros::<i64>(blocks * 64).unwrap();
        CpuBackend
            .launch(
                &ROTATE,
                &cfg(blocks, (16, 4)),
                &mut [KernelArg::array_mut(&mut out)],
                None,
            )
            .unwrap();
        let host = out.copy_to_host().unwrap();
        for b in 0..blocks {
            for tid in 0..64 {
                let expect = (b * 100 + (tid + ROUNDS) % 64) as i64 + 1000 * ROUNDS as i64;
                assert_eq!(host[b * 64 + tid], expect, "block {b} thread {tid}");
            }
        }
    }

    // (d) out-of-bounds reads.
    fn copy_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let src = View::<f32>::from_arg(&args[0], "src");
        let dst = View::<f32>::from_arg(&args[1], "dst");
        l.run(SharedLayout::default(), false, &|t| {
            let i = t.grid1();
            let v = src.ld(t, i);
            if i < dst.len() {
                dst.st(t, i, v + 1.0);
            }
        })
    }
    static COPY: KernelDef = kernel(
        "copy",
        &[
            array("src", ScalarType::F32, 1, false),
            array("dst", ScalarType::F32, 1, true),
        ],
        copy_cpu,
        false,
    );

    #[test]
    fn out_of_bounds_read_faults() {
        let src = cpu_filled(&[1.0f32; 10]);
        let mut dst = cpu_zeros::<f32>(16).unwrap();
        let err = CpuBackend
            .launch(
                &COPY,
                &cfg(2, 8),
                &mut [KernelArg::array(&src), KernelArg::array_mut(&mut dst)],
                None,
            )
            .unwrap_err();
        match &err {
            Error::KernelFault {
                kernel,
                block,
                thread,
                message,
                faults,
            } => {
                assert_eq!(kernel, "copy");
                assert_eq!(*block, [1, 0, 0]);
                assert_eq!(*thread, [2, 0, 0]);
                assert_eq!(*faults, 6);
                assert_eq!(
                    message,
                    "index [10] is out of bounds for global array `src` of shape [10]"
                );
            }
            other => panic!("expected a kernel fault, got {other}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("block (1, 0, 0) thread (2, 0, 0)") && text.contains("6 faults in all"),
            "{text}"
        );
        // The other threads ran; faulting reads yielded 0.
        let host = dst.copy_to_host().unwrap();
        assert_eq!(&host[..10], &[2.0; 10]);
        assert_eq!(&host[10..], &[1.0; 6]);
    }

    fn oob2_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let a = View::<f32>::from_arg(&args[0], "a");
        l.run(SharedLayout::default(), false, &|t| {
            // Column 3 is out of bounds even though the flat offset 1 * 3 + 3 = 6 < 9 is not.
            let _ = a.ld2(t, t.grid1(), 3);
        })
    }
    static OOB2: KernelDef = kernel("oob2", &[array("a", ScalarType::F32, 2, false)], oob2_cpu, false);

    #[test]
    fn every_index_is_checked_against_its_dimension() {
        let a = cpu_zeros::<f32>((3, 3)).unwrap();
        let err = CpuBackend
            .launch(&OOB2, &cfg(3, 1), &mut [KernelArg::array(&a)], None)
            .unwrap_err();
        match err {
            Error::KernelFault {
                block, message, faults, ..
            } => {
                // The first fault is the lowest block, whatever the scheduling.
                assert_eq!(block, [0, 0, 0]);
                assert_eq!(faults, 3);
                assert_eq!(
                    message,
                    "index [0, 3] is out of bounds for global array `a` of shape [3, 3]"
                );
            }
            other => panic!("expected a kernel fault, got {other}"),
        }
    }

    // (e) integer division by zero.
    fn div_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let out = View::<i32>::from_arg(&args[0], "out");
        let d = args[1].get_scalar::<i32>();
        l.run(SharedLayout::default(), false, &|t| {
            let i = t.grid1();
            let q = t.div(100, d - i as i32);
            let r = t.rem(100, d - i as i32);
            out.st(t, i, q * 1000 + r);
        })
    }
    static DIV: KernelDef = kernel(
        "div",
        &[
            array("out", ScalarType::I32, 1, true),
            ParamDef {
                name: "d",
                kind: ParamKind::Scalar(ScalarType::I32),
            },
        ],
        div_cpu,
        false,
    );

    #[test]
    fn division_by_zero_faults() {
        let mut out = cpu_zeros::<i32>(4).unwrap();
        let err = CpuBackend
            .launch(
                &DIV,
                &cfg(1, 4),
                &mut [KernelArg::array_mut(&mut out), KernelArg::scalar(2i32)],
                None,
            )
            .unwrap_err();
        match err {
            Error::KernelFault {
                thread,
                message,
                faults,
                ..
            } => {
                assert_eq!(thread, [2, 0, 0]);
                assert_eq!(message, "integer division by zero");
                assert_eq!(faults, 2, "div and rem both fault");
            }
            other => panic!("expected a kernel fault, got {other}"),
        }
        assert_eq!(out.copy_to_host().unwrap(), vec![50_000, 100_000, 0, -100_000]);
    }

    fn scalar_cpu(l: &CpuLaunch<'_>, _args: &[KernelArg<'_>]) -> Result<()> {
        l.run(SharedLayout::default(), false, &|t| {
            assert_eq!(t.div(i32::MIN, -1), i32::MIN);
            assert_eq!(t.rem(i32::MIN, -1), 0);
            assert_eq!(t.div(-7i64, 2), -3);
            assert_eq!(t.rem(-7i64, 2), -1);
            assert_eq!(t.div(7usize, 2), 3);
            assert_eq!(t.rem(250u8, 7), 5);
            assert_eq!(t.gridsize1(), 6);
            assert_eq!(t.gridsize3(), (6, 1, 1));
            assert_eq!(t.grid_dim(), Idx3 { x: 2, y: 1, z: 1 });
        })
    }
    static SCALAR: KernelDef = kernel("scalar", &[], scalar_cpu, false);

    #[test]
    fn integer_semantics_and_sizes() {
        CpuBackend.launch(&SCALAR, &cfg(2, 3), &mut [], None).unwrap();
    }

    fn panics_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
        let barrier = args[0].get_scalar::<bool>();
        l.run(SharedLayout::default(), barrier, &|t| {
            if barrier {
                t.syncthreads();
            }
            if t.grid1() == 5 {
                panic!("boom at {}", t.grid1());
            }
        })
    }
    static PANICS: KernelDef = kernel(
        "panics",
        &[ParamDef {
            name: "barrier",
            kind: ParamKind::Scalar(ScalarType::Bool),
        }],
        panics_cpu,
        false,
    );

    #[test]
    fn panics_become_faults() {
        for barrier in [false, true] {
            let err = CpuBackend
                .launch(&PANICS, &cfg(2, 4), &mut [KernelArg::scalar(barrier)], None)
                .unwrap_err();
            match err {
                Error::KernelFault {
                    block, thread, message, ..
                } => {
                    assert_eq!((block, thread), ([1, 0, 0], [1, 0, 0]), "barrier: {barrier}");
                    assert_eq!(message, "kernel panicked: boom at 5");
                }
                other => panic!("expected a kernel fault, got {other}"),
            }
        }
    }

    #[test]
    fn a_panic_ends_only_its_own_thread() {
        // Threads with an even x panic (a gpujit bug would be the only cause in
        // generated code); the odd ones still write, and each panic counts once.
        for barrier in [false, true] {
            let k = kernel("half_panic", &[], |_, _| Ok(()), barrier);
            let mut out = cpu_zeros::<u32>(8).unwrap();
            let arg = KernelArg::array_mut(&mut out);
            let v = View::<u32>::from_arg(&arg, "out");
            let err = CpuLaunch::new(&k, cfg(2, 4))
                .run(SharedLayout::default(), barrier, &|t| {
                    if barrier {
                        t.syncthreads();
                    }
                    if t.thread_idx().x % 2 == 0 {
                        panic!("even");
                    }
                    v.st(t, t.grid1(), 7);
                })
                .unwrap_err();
            match err {
                Error::KernelFault {
                    block,
                    thread,
                    message,
                    faults,
                    ..
                } => {
                    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 4), "barrier: {barrier}");
                    assert_eq!(message, "kernel panicked: even");
                }
                other => panic!("expected a kernel fault, got {other}"),
            }
            assert_eq!(
                out.copy_to_host().unwrap(),
                [0, 7, 0, 7, 0, 7, 0, 7],
                "barrier: {barrier}"
            );
        }
    }

    #[test]
    fn time_limit_values() {
        assert_eq!(parse_time_limit("250"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_time_limit(" 1 "), Ok(Duration::from_millis(1)));
        for bad in ["0", "", "-5", "1.5", "ten", "1ms"] {
            let e = parse_time_limit(bad).unwrap_err();
            assert!(e.contains(TIME_LIMIT_ENV) && e.contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn the_time_limit_is_scoped_to_its_closure_and_thread() {
        assert_eq!(SCOPED_LIMIT.with(Cell::get), None);
        let l = Duration::from_millis(5);
        with_cpu_time_limit(l, || {
            assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(l));
            with_cpu_time_limit(2 * l, || assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(2 * l)));
            assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(l));
            std::thread::spawn(|| assert_eq!(SCOPED_LIMIT.with(Cell::get), None))
                .join()
                .unwrap();
        });
        assert_eq!(SCOPED_LIMIT.with(Cell::get), None);
    }

    #[test]
    fn syncthreads_without_barrier_support_faults() {
        let k = kernel("no_barrier", &[], |_, _| Ok(()), false);
        let l = CpuLaunch::new(&k, cfg(1, 2));
        let err = l.run(SharedLayout::default(), false, &|t| t.syncthreads()).unwrap_err();
        assert!(err.to_string().contains("compiled without barriers"), "{err}");
    }

    #[test]
    fn shared_memory_is_checked_and_zeroed_per_block() {
        let k = kernel("shared", &[], |_, _| Ok(()), false);
        let l = CpuLaunch::new(&k, cfg(4, 2));
        // Every block sees zeroed shared memory, even after a previous block wrote it.
        l.run(SharedLayout { bytes: 24, align: 8 }, false, &|t| {
            let s = t.shared::<u64>(8, &[2], "s");
            assert_eq!(s.ld(t, t.thread_idx().x), 0);
            s.st(t, t.thread_idx().x, 99);
        })
        .unwrap();
        let err = l.run(SharedLayout { bytes: 16, align: 8 }, false, &|t| {
            let s = t.shared::<u64>(8, &[2], "s");
            assert!(s.is_empty());
        });
        assert!(err.unwrap_err().to_string().contains("does not fit"));
        let err = l.run(
            SharedLayout {
                bytes: MAX_SHARED_BYTES + 1,
                align: 8,
            },
            false,
            &|_| {},
        );
        assert!(matches!(err, Err(Error::InvalidLaunchConfig(_))));
    }

    #[test]
    fn run_validates_a_hand_made_config() {
        let k = kernel("unvalidated", &[], |_, _| Ok(()), true);
        let huge = LaunchConfig {
            grid: crate::Dim3::new(1, 1, 1),
            block: crate::Dim3::new(1 << 20, 1 << 10, 1),
        };
        let ran = AtomicUsize::new(0);
        let err = CpuLaunch::new(&k, huge)
            .run(SharedLayout::default(), true, &|_| {
                ran.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap_err();
        assert!(matches!(err, Error::InvalidLaunchConfig(_)), "{err}");
        assert_eq!(ran.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn many_threads_fast_path() {
        let k = kernel("trivial", &[], |_, _| Ok(()), false);
        let mut out = cpu_zeros::<u32>(1024 * 1024).unwrap();
        let arg = KernelArg::array_mut(&mut out);
        let v = View::<u32>::from_arg(&arg, "out");
        let l = CpuLaunch::new(&k, cfg(4096, 256));
        let start = std::time::Instant::now();
        l.run(SharedLayout::default(), false, &|t| {
            let i = t.grid1();
            v.st(t, i, i as u32);
        })
        .unwrap();
        let took = start.elapsed();
        eprintln!("1024x1024 threads: {took:?}");
        if !cfg!(debug_assertions) {
            assert!(took < std::time::Duration::from_millis(100), "{took:?}");
        }
        let host = out.copy_to_host().unwrap();
        assert!(host.iter().enumerate().all(|(i, &x)| x == i as u32));
    }

    #[test]
    fn many_threads_barrier_path() {
        let k = kernel("trivial_sync", &[], |_, _| Ok(()), true);
        let l = CpuLaunch::new(&k, cfg(256, 1024));
        let start = std::time::Instant::now();
        l.run(SharedLayout::default(), true, &|t| {
            t.syncthreads();
        })
        .unwrap();
        eprintln!("256x1024 threads with a barrier: {:?}", start.elapsed());
    }
}
