//! The CPU executor: runs every thread of a grid with CUDA semantics.
//!
//! Blocks run in parallel on all cores (rayon, `blockIdx.x` fastest; a rayon
//! job runs a batch of consecutive blocks when they are small, see
//! `batch_len`, sharing one shared-memory buffer; for kernels whose threads
//! cannot tell their block, the inner blocks of a grid row run as one wide
//! block, see `CpuLaunch::run_blocks_merged`). Each block calls the kernel's generated block function once
//! (through `dyn`, so the executor is compiled once, not per kernel), which
//! runs the block's threads as loops (see `block.rs`) or, for kernels the
//! macro cannot split at their barriers, as coroutines (`coro.rs`).
//!
//! Faults are counted per operation and never stop other threads. An optional
//! time limit ([`with_cpu_time_limit`], `GPUJIT_CPU_TIME_LIMIT_MS`) cancels a
//! run-away launch: a watchdog thread sets a flag that the generated code
//! polls at every loop iteration, and blocks not yet started are skipped.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use rayon::prelude::*;
use strength_reduce::StrengthReducedUsize;

use crate::cpu::block::Block;
use crate::cpu::check;
use crate::cpu::coro::stack_size;
use crate::cpu::ctx::{Batch, LaunchCtx, SharedLayout};
use crate::cpu::merge::Runs;
use crate::cpu::paths::{self, PathCounts};
use crate::cpu::strategy::{strategies_off, Strategies};
use crate::cpu::thread::Thread;
use crate::cpu::warp::Meeting;
use crate::error::{Error, Result};
use crate::kernel_def::CpuLaunch;

/// CUDA's limit on static `__shared__` memory per block (48 KiB), enforced on
/// the CPU too so that a kernel that runs here also compiles for a GPU.
pub const MAX_SHARED_BYTES: usize = 48 * 1024;

impl CpuLaunch<'_> {
    /// Runs `body` once per thread of the grid and waits for all of them:
    /// [`CpuLaunch::run_blocks`] with each block's threads run one after
    /// another, or as coroutines if `uses_barrier` (`body` calls
    /// [`Thread::syncthreads`]). For gpujit's own tests of the executor.
    ///
    /// # Errors
    /// As [`CpuLaunch::run_blocks`].
    pub fn run<F: Fn(&Thread<'_>) + Sync>(&self, shared: SharedLayout, uses_barrier: bool, body: &F) -> Result<()> {
        let block_fn = |b: &Block<'_>| {
            if uses_barrier {
                b.coroutines(body)
            } else {
                // One `catch_unwind` per thread: a panic ends only its thread.
                b.threads(|t| {
                    if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(t))) {
                        b.record_panic(t.tid, &*payload);
                    }
                })
            }
        };
        self.launch_blocks(shared, uses_barrier, false, &block_fn, &block_fn)
    }

    /// Runs `block_fn` once per block of the grid, in parallel, and waits for
    /// all of them; `block_fn` runs the block's threads (see [`Block`]).
    ///
    /// `shared` is the kernel's static shared memory (zeroed at the start of
    /// every block).
    ///
    /// A fault (out-of-bounds access, integer division by zero, a `step_by(0)`
    /// loop, a divergent barrier, or a panic, which generated code never
    /// does) is recorded. The faulting thread goes on (a faulting read yields
    /// 0, a faulting write is skipped, a `step_by(0)` loop runs no
    /// iterations); a divergent barrier ends its block, and so does a panic,
    /// which is recorded as a fault of the block's thread (0, 0, 0) (the
    /// thread loops do not pay for a `catch_unwind` per thread). A caught
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
    ///   `GPUJIT_CPU_STACK_BYTES`, `GPUJIT_CPU_EXEC` or
    ///   `GPUJIT_CPU_TIME_LIMIT_MS` is not valid, or the watchdog thread
    ///   cannot be started.
    ///
    /// `checked_fn` is the kernel's checked copy, which a checked launch
    /// ([`with_checks`](crate::with_checks), `GPUJIT_CHECK`) runs in place of
    /// `block_fn`: picked once per launch, so that `block_fn`, the fast
    /// paths' code, is the same with or without checked mode.
    pub fn run_blocks(
        &self,
        shared: SharedLayout,
        block_fn: &(dyn Fn(&Block<'_>) + Sync),
        checked_fn: &(dyn Fn(&Block<'_>) + Sync),
    ) -> Result<()> {
        self.launch_blocks(shared, false, false, block_fn, checked_fn)
    }

    /// [`CpuLaunch::run_blocks`] for a kernel whose threads cannot tell
    /// which block they belong to or in which order blocks run: the blocks
    /// of one grid row but its first and last (`blockIdx.x` in
    /// `1..gridDim.x - 1`, at least 4 of them, cut into runs of at most
    /// 65,536 threads where that leaves runs of 4 blocks or more) run as one
    /// `Block` that is `k` blocks wide,
    /// so that a thread loop runs over whole image rows. The macro uses it
    /// for kernels without barriers, shared memory, atomics, device calls or
    /// reads of `threadIdx`/`blockIdx`/`blockDim`/`gridDim`, whose written
    /// arrays are all own-index ones: each thread's accesses and its own
    /// operations are those of the reference path, in the same order. Faults
    /// name the block and thread they happened in, and the first fault is
    /// the reference path's (lowest block, then lowest thread). Under
    /// `GPUJIT_CPU_EXEC=coroutines`, or with shared memory (`shared.bytes >
    /// 0`), nothing is merged.
    ///
    /// # Errors
    /// As [`CpuLaunch::run_blocks`].
    pub fn run_blocks_merged(
        &self,
        shared: SharedLayout,
        block_fn: &(dyn Fn(&Block<'_>) + Sync),
        checked_fn: &(dyn Fn(&Block<'_>) + Sync),
    ) -> Result<()> {
        self.launch_blocks(shared, false, true, block_fn, checked_fn)
    }

    fn launch_blocks(
        &self,
        shared: SharedLayout,
        coroutines: bool,
        merge: bool,
        fast: &(dyn Fn(&Block<'_>) + Sync),
        checked: &(dyn Fn(&Block<'_>) + Sync),
    ) -> Result<()> {
        if !self.checked {
            self.cfg.validate()?;
        }
        if shared.bytes > MAX_SHARED_BYTES {
            return Err(Error::InvalidLaunchConfig(format!(
                "kernel `{}` uses {} bytes of shared memory per block, more than the CUDA limit of {MAX_SHARED_BYTES} bytes; use smaller shared arrays",
                self.kernel.name, shared.bytes
            )));
        }
        let stack_bytes = if coroutines || self.kernel.uses_barrier {
            stack_size()?
        } else {
            0
        };
        let off = strategies_off()?;
        let checks = check::checks()?;
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
            // `max(1)`: 0 (an overflowing `gridsize(1)`) puts no element in a
            // class (`OwnedView::in_class`), and a divisor cannot be 0.
            grid1_divisor: StrengthReducedUsize::new(grid[0].checked_mul(block[0]).unwrap_or(0).max(1)),
            threads_per_block: block[0] * block[1] * block[2],
            shared,
            stack_bytes,
            off,
            check: (!checks.is_empty()).then_some(checks),
            faults: AtomicUsize::new(0),
            first: Mutex::new(None),
            cancel: AtomicBool::new(false),
            coroutine_blocks: AtomicUsize::new(0),
            lockstep_blocks: AtomicUsize::new(0),
            narrowed_blocks: AtomicUsize::new(0),
            narrowed_loops: AtomicUsize::new(0),
            span_blocks: AtomicUsize::new(0),
            span_loops: AtomicUsize::new(0),
            row_blocks: AtomicUsize::new(0),
            inner_blocks: AtomicUsize::new(0),
            merged_blocks: AtomicUsize::new(0),
        };
        // `try_for_each` stops handing out blocks once one returns `Err`, so a
        // cancelled launch of 2^31 blocks ends at once instead of visiting
        // every remaining block index.
        //
        // Small blocks run in batches (see `batch_len`): each rayon job takes
        // the shared buffer once and walks its run of consecutive blocks.
        let body = if ctx.check.is_some() { checked } else { fast };
        let min_len = batch_len(blocks, ctx.threads_per_block, rayon::current_num_threads());
        // Never with shared memory: shared spans are checked for
        // `blockDim` threads (`span.rs`), not a merged run's.
        let runs = (merge && !off.contains(Strategies::MERGE) && shared.bytes == 0 && ctx.check.is_none())
            .then(|| Runs::new(grid, ctx.threads_per_block))
            .flatten();
        // The blocks one after another on this thread: a checked launch
        // (one shadow memory, each block's shared shadow cleared at its
        // start), and a small one, to which the pool would only add its
        // hand-off (`runs_inline`).
        let inline = !off.contains(Strategies::INLINE)
            && runs_inline(
                self.thread_work,
                blocks,
                ctx.threads_per_block,
                shared,
                rayon::current_num_threads(),
            );
        let serial = ctx.check.is_some() || inline;
        let run_all = || match runs {
            None if serial => {
                let mut batch = Batch::new(&ctx);
                for b in 0..blocks {
                    if ctx.cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    ctx.run_block(&mut batch, b, body);
                }
            }
            Some(runs) if serial => {
                let mut batch = Batch::new(&ctx);
                for item in 0..runs.items() {
                    if ctx.cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    ctx.run_item(&mut batch, runs, item, body);
                }
            }
            None => {
                let _ = (0..blocks).into_par_iter().with_min_len(min_len).try_for_each_init(
                    || Batch::new(&ctx),
                    |batch, b| {
                        if ctx.cancel.load(Ordering::Relaxed) {
                            return Err(());
                        }
                        ctx.run_block(batch, b, body);
                        Ok(())
                    },
                );
            }
            Some(runs) => {
                let _ = (0..runs.items()).into_par_iter().try_for_each_init(
                    || Batch::new(&ctx),
                    |batch, item| {
                        if ctx.cancel.load(Ordering::Relaxed) {
                            return Err(());
                        }
                        ctx.run_item(batch, runs, item, body);
                        Ok(())
                    },
                );
            }
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
        paths::record(PathCounts {
            coroutine_blocks: ctx.coroutine_blocks.load(Ordering::Relaxed),
            lockstep_blocks: ctx.lockstep_blocks.load(Ordering::Relaxed),
            narrowed_blocks: ctx.narrowed_blocks.load(Ordering::Relaxed),
            narrowed_loops: ctx.narrowed_loops.load(Ordering::Relaxed),
            span_blocks: ctx.span_blocks.load(Ordering::Relaxed),
            span_loops: ctx.span_loops.load(Ordering::Relaxed),
            row_blocks: ctx.row_blocks.load(Ordering::Relaxed),
            inner_blocks: ctx.inner_blocks.load(Ordering::Relaxed),
            merged_blocks: ctx.merged_blocks.load(Ordering::Relaxed),
            inline_blocks: if serial { blocks } else { 0 },
        });
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

/// Whether a launch of `blocks` blocks of `threads` threads, each doing at
/// most `thread_work` units of work (`CpuLaunch::with_thread_work`; `None`:
/// unbounded), takes less time on the calling thread than on the `workers`
/// threads of the pool: its estimated work `w`, a block's setup and shared
/// memory included, against the pool's hand-off `h` (waking the workers and
/// waiting for them) plus its share `w / workers`, that is, while `w <= h *
/// workers / (workers - 1)`.
pub(super) fn runs_inline(
    thread_work: Option<u32>,
    blocks: usize,
    threads: usize,
    shared: SharedLayout,
    workers: usize,
) -> bool {
    /// The pool's hand-off in units of about a nanosecond of one core: rayon's
    /// loop over 1000 empty items took 14-28 µs on the 2-core machine of
    /// BENCHMARKS.md, gpujit's 1000 empty blocks on the calling thread 11-18 µs.
    const HAND_OFF: usize = 16_384;
    /// A block's setup (its `Block`, the call of its block function):
    /// 11-16 ns measured.
    const BLOCK_UNITS: usize = 16;
    let Some(work) = thread_work else {
        return false;
    };
    if workers <= 1 {
        return true;
    }
    // One unit per thread for its thread-loop step; zeroing shared memory
    // is about 16 bytes a unit.
    let per_block = threads
        .saturating_mul(work as usize + 1)
        .saturating_add(BLOCK_UNITS + shared.bytes / 16);
    blocks.saturating_mul(per_block) <= HAND_OFF * workers / (workers - 1)
}

/// The fewest consecutive blocks a rayon job runs: enough for about
/// `BATCH_THREADS` threads, so that launching many tiny blocks costs little
/// more than a rayon loop over as many items, but never so many that fewer
/// than `4 * workers` jobs remain for balancing blocks of unequal work.
pub(super) fn batch_len(blocks: usize, threads_per_block: usize, workers: usize) -> usize {
    const BATCH_THREADS: usize = 4096;
    let fill = BATCH_THREADS / threads_per_block.max(1);
    let spread = blocks / (4 * workers.max(1));
    fill.min(spread).max(1)
}

impl LaunchCtx {
    /// The coordinates of block `linear` (`x` fastest), from `last`'s when
    /// it is the block before.
    fn block_idx(&self, linear: usize, last: Option<(usize, [usize; 3])>) -> [usize; 3] {
        let g = self.grid;
        match last {
            Some((l, [x, y, z])) if l + 1 == linear => {
                if x + 1 < g[0] {
                    [x + 1, y, z]
                } else if y + 1 < g[1] {
                    [0, y + 1, z]
                } else {
                    [0, 0, z + 1]
                }
            }
            _ => [linear % g[0], (linear / g[0]) % g[1], linear / (g[0] * g[1])],
        }
    }

    /// Runs one block: its shared memory (from the job's `batch`), the
    /// kernel's block function, and the merge of its faults into the
    /// launch's.
    /// (The caller has checked the cancel flag.)
    fn run_block(&self, batch: &mut Batch<'_>, linear: usize, body: &(dyn Fn(&Block<'_>) + Sync)) {
        let idx = self.block_idx(linear, batch.last);
        batch.last = Some((linear, idx));
        let (shared_ptr, shared_len) = batch.shared.zeroed_region(self.shared);
        if let Some(shadow) = &batch.shadow {
            shadow.borrow_mut().begin_block();
        }
        let b = Block {
            launch: self,
            linear,
            idx,
            base: [idx[0] * self.block[0], idx[1] * self.block[1], idx[2] * self.block[2]],
            dims: self.block,
            shared_ptr,
            shared_len,
            fault_count: Cell::new(0),
            first: RefCell::new(None),
            narrowed: Cell::new(0),
            lockstep: Cell::new(false),
            span: Cell::new(0),
            rows: Cell::new(false),
            inner: Cell::new(false),
            epoch: Cell::new(0),
            meeting: RefCell::new(Meeting::default()),
            shadow: batch.shadow.as_ref(),
        };
        // The thread loops and coroutines catch their threads' panics; this
        // catches one of the block function itself (a gpujit bug).
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&b))) {
            b.record_panic([0; 3], &*payload);
        }
        b.publish();
        batch.lockstep += usize::from(b.lockstep.get());
        batch.narrowed += usize::from(b.narrowed.get() > 0);
        batch.narrowed_loops += b.narrowed.get();
        batch.span += usize::from(b.span.get() > 0);
        batch.span_loops += b.span.get();
        batch.rows += usize::from(b.rows.get());
        batch.inner += usize::from(b.inner.get());
    }
}

/// The environment variable that sets a time limit for every CPU launch.
pub const TIME_LIMIT_ENV: &str = "GPUJIT_CPU_TIME_LIMIT_MS";

thread_local! {
    /// The limit set by [`with_cpu_time_limit`] on this OS thread, if any.
    pub(super) static SCOPED_LIMIT: Cell<Option<Duration>> = const { Cell::new(None) };
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
pub(super) fn parse_time_limit(v: &str) -> std::result::Result<Duration, String> {
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "{TIME_LIMIT_ENV}=`{v}` is not a time limit in whole milliseconds (1 or more); unset it for no limit"
        )),
    }
}
