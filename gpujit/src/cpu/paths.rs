//! Which execution paths the last CPU launch on this OS thread took: counts
//! of blocks (and of span loops) per path, for tests that check a kernel
//! takes the path it should (see README, "The CPU backend's execution
//! model").

use std::cell::Cell;

/// The counts of one launch (see the `last_launch_*` functions).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PathCounts {
    pub(super) coroutine_blocks: usize,
    pub(super) lockstep_blocks: usize,
    pub(super) narrowed_blocks: usize,
    pub(super) narrowed_loops: usize,
    pub(super) span_blocks: usize,
    pub(super) span_loops: usize,
    pub(super) row_blocks: usize,
    pub(super) inner_blocks: usize,
    pub(super) merged_blocks: usize,
    pub(super) inline_blocks: usize,
}

thread_local! {
    /// The counts of the last launch made on this OS thread.
    static LAST: Cell<PathCounts> = const {
        Cell::new(PathCounts {
            coroutine_blocks: 0,
            lockstep_blocks: 0,
            narrowed_blocks: 0,
            narrowed_loops: 0,
            span_blocks: 0,
            span_loops: 0,
            row_blocks: 0,
            inner_blocks: 0,
            merged_blocks: 0,
            inline_blocks: 0,
        })
    };
}

/// Records the counts of a launch that ran (on this OS thread).
pub(super) fn record(counts: PathCounts) {
    LAST.with(|c| c.set(counts));
}

/// How many blocks of the last CPU launch that ran on this OS thread (a launch
/// refused before it ran, e.g. for a wrong argument shape, changes none of
/// the `last_launch_*` counts) ran on the
/// coroutine path (for tests that check which path a kernel takes).
pub fn last_launch_coroutine_blocks() -> usize {
    LAST.with(Cell::get).coroutine_blocks
}

/// How many blocks of the last CPU launch that ran on this OS thread ran a loop
/// in lockstep across their threads (loop interchange).
pub fn last_launch_lockstep_blocks() -> usize {
    LAST.with(Cell::get).lockstep_blocks
}

/// How many blocks of the last CPU launch that ran on this OS thread ran a part
/// `if threadIdx.x < E { .. }` (with `E` block-uniform) as a loop over the
/// threads below `E` only (for tests that check the narrowed loop is used).
pub fn last_launch_narrowed_blocks() -> usize {
    LAST.with(Cell::get).narrowed_blocks
}

/// How many narrowed thread loops (see [`last_launch_narrowed_blocks`]) the
/// last CPU launch that ran on this OS thread ran, over all its blocks: a
/// block reduction's halving steps count one each.
pub fn last_launch_narrowed_loops() -> usize {
    LAST.with(Cell::get).narrowed_loops
}

/// How many blocks of the last CPU launch that ran on this OS thread ran a
/// thread loop with one range check per block (block spans) instead of a
/// check per access: a barrier-free kernel's block loop, or at least one
/// part of a kernel split at its barriers.
pub fn last_launch_span_blocks() -> usize {
    LAST.with(Cell::get).span_blocks
}

/// How many thread loops the last CPU launch that ran on this OS thread ran
/// on block spans, over all its blocks: one per block of a barrier-free
/// kernel, one per barrier-free part (narrowed or not) and block of a split
/// kernel.
pub fn last_launch_span_loops() -> usize {
    LAST.with(Cell::get).span_loops
}

/// How many blocks of the last CPU launch that ran on this OS thread ran a
/// lockstep loop between barriers row by row, with the local it carries in
/// registers (`Block::lockstep_rows`).
pub fn last_launch_row_blocks() -> usize {
    LAST.with(Cell::get).row_blocks
}

/// How many blocks of the last CPU launch that ran on this OS thread ran on
/// block spans in the copy of the thread loop for arrays whose last axis is
/// as long as their constant indices need (`rgb[[y, x, 0..=2]]` of an
/// `(h, w, 3)` array), where the stride between threads is a constant.
pub fn last_launch_inner_blocks() -> usize {
    LAST.with(Cell::get).inner_blocks
}

/// How many blocks of the last CPU launch that ran on this OS thread ran as
/// part of a merged run: consecutive blocks of one grid row run as one wide
/// thread loop (`CpuLaunch::run_blocks_merged`, for kernels whose threads
/// cannot tell their block).
pub fn last_launch_merged_blocks() -> usize {
    LAST.with(Cell::get).merged_blocks
}

/// How many blocks of the last CPU launch that ran on this OS thread ran on
/// the calling thread, one after another, rather than on the thread pool
/// (all of them, or none): a small launch of a kernel without loops or device function calls
/// (`CpuLaunch::with_thread_work`), or a checked one.
pub fn last_launch_inline_blocks() -> usize {
    LAST.with(Cell::get).inline_blocks
}
