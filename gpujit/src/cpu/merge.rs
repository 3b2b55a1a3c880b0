//! Merged runs of blocks (`CpuLaunch::run_blocks_merged`, issue #7): how a
//! launch of a kernel whose threads cannot tell their block cuts each grid
//! row into runs of consecutive blocks, and how one run executes as one
//! `Block` that many blocks wide (`Block::dims`), so that a thread loop runs
//! over whole image rows. Which kernels merge is the macro's decision
//! (`gpujit-macros/src/cpu_span/merge.rs`); faults name their real block and
//! thread (`Block::record`).

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::cpu::block::Block;
use crate::cpu::ctx::{Batch, LaunchCtx};
use crate::cpu::warp::Meeting;

/// The fewest blocks a merged run has (`CpuLaunch::run_blocks_merged`):
/// fewer gain little over running them one by one.
const MERGE_MIN: usize = 4;

/// The most threads a merged run has, unless that leaves runs below
/// `MERGE_MIN` blocks: a row of a 4K image in 16×16 blocks is one run
/// (60,928 threads; blocks 960 pixels wide ran 13% slower than whole rows,
/// one core), and a 1-D grid (one grid row) is cut into many runs for
/// rayon to balance. A
/// constant, not a share of the cores, so that which blocks merge does not
/// depend on the machine.
const MERGE_MAX_THREADS: usize = 1 << 16;

/// The fewest merged runs a launch is cut into where its grid rows allow
/// (runs of at least `MERGE_MIN` blocks): a grid of few rows, each thread
/// with much work (the loop test: one row of 40 blocks, 10,000 steps per
/// thread), would otherwise be one run on one core. A constant, as above;
/// enough to share among the cores of a large host.
const MERGE_MIN_RUNS: usize = 64;

/// How a launch of merged runs cuts its grid: each grid row (one `(y, z)`)
/// is its first block, `pieces` runs of consecutive blocks (of at least
/// `MERGE_MIN`) in between, and its last block. The first and last blocks
/// run alone: they are where a kernel's arrays usually end (an image's width
/// that is not a multiple of the block's, a stencil's `x - 1` at 0), which
/// would make a merged run's range check fail for the whole row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Runs {
    /// `gridDim.x`.
    gx: usize,
    /// Grid rows: `gridDim.y * gridDim.z`.
    rows: usize,
    /// Merged runs per grid row.
    pieces: usize,
}

impl Runs {
    /// The cut for `grid` with blocks of `threads` threads, `None` when a
    /// grid row has too few blocks to merge.
    pub(super) fn new(grid: [usize; 3], threads: usize) -> Option<Runs> {
        let [gx, gy, gz] = grid;
        let inner = gx.checked_sub(2).filter(|&n| n >= MERGE_MIN)?;
        let rows = gy.checked_mul(gz)?;
        let want = inner
            .checked_mul(threads)?
            .div_ceil(MERGE_MAX_THREADS)
            .max(MERGE_MIN_RUNS.div_ceil(rows.max(1)));
        let pieces = want.clamp(1, (inner / MERGE_MIN).max(1));
        Some(Runs { gx, rows, pieces })
    }

    /// The items rayon hands out: per grid row, its merged runs, then its
    /// first and last blocks.
    pub(super) fn items(self) -> usize {
        self.rows * (self.pieces + 2)
    }
}

impl LaunchCtx {
    /// Runs item `item` of a launch of merged runs (see [`Runs`]): a merged
    /// run, or a row's first or last block alone. (Apart from `run_block`,
    /// whose code the empty launch's cost per block is sensitive to: with
    /// one function for both, that launch got a third slower.)
    #[inline(never)]
    pub(super) fn run_item(&self, batch: &mut Batch<'_>, runs: Runs, item: usize, body: &(dyn Fn(&Block<'_>) + Sync)) {
        let per_row = runs.pieces + 2;
        let (row, j) = (item / per_row, item % per_row);
        let (y, z) = (row % self.grid[1].max(1), row / self.grid[1].max(1));
        let (x, width) = if j < runs.pieces {
            // Columns `1..gx - 1` cut into `pieces` nearly equal runs.
            let inner = runs.gx - 2;
            let (x0, x1) = (1 + inner * j / runs.pieces, 1 + inner * (j + 1) / runs.pieces);
            (x0, x1 - x0)
        } else if j == runs.pieces {
            (0, 1)
        } else {
            (runs.gx - 1, 1)
        };
        let idx = [x, y, z];
        let (shared_ptr, shared_len) = batch.shared.zeroed_region(self.shared);
        // `width` blocks from `idx` as one `Block` (see `Block::dims`).
        let b = Block {
            launch: self,
            linear: row * runs.gx + x,
            idx,
            base: [idx[0] * self.block[0], idx[1] * self.block[1], idx[2] * self.block[2]],
            dims: [self.block[0] * width, self.block[1], self.block[2]],
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
            shadow: None,
        };
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&b))) {
            b.record_panic([0; 3], &*payload);
        }
        b.publish();
        // Counted per block of the grid: a merged run's paths are those of
        // each of its blocks.
        batch.lockstep += width * usize::from(b.lockstep.get());
        batch.narrowed += width * usize::from(b.narrowed.get() > 0);
        batch.narrowed_loops += width * b.narrowed.get();
        batch.span += width * usize::from(b.span.get() > 0);
        batch.span_loops += width * b.span.get();
        batch.rows += width * usize::from(b.rows.get());
        batch.inner += width * usize::from(b.inner.get());
        batch.merged += if width > 1 { width } else { 0 };
    }
}
