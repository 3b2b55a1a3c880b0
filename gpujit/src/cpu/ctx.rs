//! What a CPU launch's blocks share and what one rayon job keeps: the state
//! the executor (`exec.rs`) makes, a [`Block`](super::Block) points at and
//! the merged runs (`merge.rs`) use. Types only, and the few lines that fill
//! and drain them: running blocks is `exec.rs`'s and `merge.rs`'s, so that
//! this file, imported by the block and the thread, imports neither.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use strength_reduce::StrengthReducedUsize;

use crate::cpu::check::{Checks, Shadow};
use crate::cpu::strategy::Strategies;

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

/// The first fault of a block (or of the launch).
pub(super) struct Fault {
    /// Linear block index.
    pub(super) block_key: usize,
    /// Linear thread index in the block.
    pub(super) thread_key: usize,
    pub(super) block: [u32; 3],
    pub(super) thread: [u32; 3],
    pub(super) message: String,
}

/// What every block of a launch shares.
pub(super) struct LaunchCtx {
    pub(super) grid: [usize; 3],
    pub(super) block: [usize; 3],
    pub(super) gridsize: [usize; 3],
    /// `gridsize(1)` as a divisor that takes a few multiplications instead
    /// of a division: the class test of every grid-stride access off the
    /// fast rounds (`OwnedView::in_class`).
    pub(super) grid1_divisor: StrengthReducedUsize,
    pub(super) threads_per_block: usize,
    pub(super) shared: SharedLayout,
    /// Coroutine stack size in bytes (0 if the kernel has no barrier).
    pub(super) stack_bytes: usize,
    /// The strategies the launch may not take (`GPUJIT_CPU_EXEC`,
    /// `with_cpu_strategies_off`).
    pub(super) off: Strategies,
    /// The checks of a checked launch (`GPUJIT_CHECK`, `with_checks`);
    /// `None` for every other launch.
    pub(super) check: Option<Checks>,
    pub(super) faults: AtomicUsize,
    pub(super) first: Mutex<Option<Fault>>,
    /// Set by the watchdog at the deadline; polled by every loop iteration of
    /// the generated code and before each block starts.
    pub(super) cancel: AtomicBool,
    /// Blocks that ran on the coroutine path.
    pub(super) coroutine_blocks: AtomicUsize,
    /// Blocks that ran a loop in lockstep across threads.
    pub(super) lockstep_blocks: AtomicUsize,
    /// Blocks that ran a narrowed thread loop (`Block::threads_x_in`).
    pub(super) narrowed_blocks: AtomicUsize,
    /// Narrowed thread loops run, over all blocks.
    pub(super) narrowed_loops: AtomicUsize,
    /// Blocks that ran the unchecked thread loop of block spans (`span.rs`).
    pub(super) span_blocks: AtomicUsize,
    /// Thread loops run on block spans, over all blocks.
    pub(super) span_loops: AtomicUsize,
    /// Blocks that ran a lockstep loop row by row (`Block::lockstep_rows`).
    pub(super) row_blocks: AtomicUsize,
    /// Of the span blocks, those that ran the copy for constant last-axis
    /// lengths.
    pub(super) inner_blocks: AtomicUsize,
    /// Blocks that ran in a merged run (`CpuLaunch::run_blocks_merged`).
    pub(super) merged_blocks: AtomicUsize,
}

/// What one rayon job keeps across its run of blocks: the shared-memory
/// buffer, the last block's coordinates (the next block's follow without
/// divisions), and its counts of blocks per path (added to the launch's
/// once, at the end of the job).
pub(super) struct Batch<'c> {
    ctx: &'c LaunchCtx,
    pub(super) shared: SharedBuf,
    /// The last block run (linear index, coordinates).
    pub(super) last: Option<(usize, [usize; 3])>,
    pub(super) lockstep: usize,
    pub(super) narrowed: usize,
    pub(super) narrowed_loops: usize,
    pub(super) span: usize,
    pub(super) span_loops: usize,
    pub(super) rows: usize,
    pub(super) inner: usize,
    pub(super) merged: usize,
    /// A checked launch's shadow memory (its one batch runs every block).
    pub(super) shadow: Option<RefCell<Shadow>>,
}

impl<'c> Batch<'c> {
    pub(super) fn new(ctx: &'c LaunchCtx) -> Batch<'c> {
        Batch {
            ctx,
            shared: SharedBuf::take(ctx.shared),
            last: None,
            lockstep: 0,
            narrowed: 0,
            narrowed_loops: 0,
            span: 0,
            span_loops: 0,
            rows: 0,
            inner: 0,
            merged: 0,
            shadow: ctx.check.map(|c| RefCell::new(Shadow::new(c, ctx.shared.bytes))),
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        std::mem::take(&mut self.shared).give_back();
        if self.lockstep > 0 {
            self.ctx.lockstep_blocks.fetch_add(self.lockstep, Ordering::Relaxed);
        }
        if self.narrowed > 0 {
            self.ctx.narrowed_blocks.fetch_add(self.narrowed, Ordering::Relaxed);
            self.ctx
                .narrowed_loops
                .fetch_add(self.narrowed_loops, Ordering::Relaxed);
        }
        if self.span > 0 {
            self.ctx.span_blocks.fetch_add(self.span, Ordering::Relaxed);
            self.ctx.span_loops.fetch_add(self.span_loops, Ordering::Relaxed);
        }
        if self.rows > 0 {
            self.ctx.row_blocks.fetch_add(self.rows, Ordering::Relaxed);
        }
        if self.inner > 0 {
            self.ctx.inner_blocks.fetch_add(self.inner, Ordering::Relaxed);
        }
        if self.merged > 0 {
            self.ctx.merged_blocks.fetch_add(self.merged, Ordering::Relaxed);
        }
    }
}

thread_local! {
    static SHARED: Cell<Vec<u128>> = const { Cell::new(Vec::new()) };
}

/// The shared-memory buffer of the blocks of one rayon job, taken from (and
/// given back to) a per-OS-thread cache.
#[derive(Default)]
pub(super) struct SharedBuf {
    words: Vec<u128>,
}

impl SharedBuf {
    pub(super) fn take(layout: SharedLayout) -> SharedBuf {
        if layout.bytes == 0 {
            return SharedBuf { words: Vec::new() };
        }
        SharedBuf {
            words: SHARED.try_with(Cell::take).unwrap_or_default(),
        }
    }

    /// Zeroes and returns `layout.bytes` bytes aligned to `max(layout.align, 16)`.
    pub(super) fn zeroed_region(&mut self, layout: SharedLayout) -> (*mut u8, usize) {
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

    pub(super) fn give_back(self) {
        if self.words.capacity() > 0 {
            let words = self.words;
            let _ = SHARED.try_with(move |s| s.set(words));
        }
    }
}

/// The message of a caught panic, if it is a string.
pub(super) fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}
