//! The CPU backend: runs a kernel's native Rust version on all cores with CUDA
//! semantics for blocks, threads, shared memory and `syncthreads()`.
//!
//! CONTRACT (used by macro-generated code; keep these names and signatures):
//! - `CpuLaunch::run_blocks(&self, shared: SharedLayout, block_fn: &(dyn Fn(&Block<'_>) + Sync), checked_fn: &(dyn Fn(&Block<'_>) + Sync)) -> Result<()>`
//!   (and `run_blocks_merged`, the same): one call of the kernel's block function per block (the executor is not
//!   generic); `checked_fn`, the kernel's checked copy, in place of `block_fn` in a checked launch.
//! - `Block`: `threads(|t| ..)` (the thread loop), `live_threads(&exited, |t| ..)`, `exit_flags()`,
//!   `per_thread(init)` (locals across barriers, indexed by `t.lin()`), `uniform(exited, what, |t| v)`
//!   (`None`: end the block), `barrier(&exited)`, `step_by`/`step_by_inclusive` (block-level loops),
//!   `shared::<T>(byte_offset, dims, name)`, `cancelled()`, `strategy_off(Strategies::SPANS | LOCKSTEP | SPLIT)`, `coroutines(&|t| ..)`,
//!   `pass_barrier()` (the checked copy's split loops, at each barrier; that copy's accesses call the views'
//!   `ld_at(t, [i, ..], at)`, `st_at(t, [i, ..], v, at)`, `atomic_at(t, [i, ..], op, at)`, `at` the access's
//!   `Location`),
//!   `uniform_value(|t| v)` / `uniform_once(exited, |t| v)` (a value the macro proved block-uniform and
//!   fault-free, evaluated once), `threads_x_in(exited, lo, hi, |t| ..)` (the threads with `lo <= x < hi`),
//!   `lockstep()` (counts a block whose loop ran in lockstep), `fits(ok, fit, len)` /
//!   `threads_fit(exited, fit, len, |t| ..)` (a split part's copy for blocks that fit its shared arrays),
//!   `lockstep_rows(fit, len, &mut slots, range, |t, j, slot| ..)` (a lockstep loop row by row, its carried
//!   local in registers).
//! - Lockstep loops: `StrideIndex::stride_trips/stride_at`, `LoopState` (per thread), `common_step(&state)`,
//!   `common_range(&state)` (see `lockstep.rs`).
//! - `Thread` methods: `grid1/2/3`, `gridsize1/2/3`, `thread_idx`, `block_idx`, `block_dim`, `grid_dim`
//!   (all `usize` / tuples of `usize` / `Idx3`), `lin()`, `syncthreads(site)` (coroutine path only),
//!   `fault(msg)`, `div(a, b)`, `rem(a, b)` (integer; ÷0 is a fault that yields 0),
//!   `arith_add/sub/mul/div/rem/neg/abs/shl/shr` (the same for types only rustc knows),
//!   `step_by(a, b, s)` / `step_by_inclusive(a, b, s)` / `check_step(s)` (`s == 0` is a fault, the loop runs
//!   no iterations), `cancelled()` (polled at every loop iteration; true: return from the thread).
//! - `View<'a, T>`: `View::from_arg(&KernelArg<'a>, name)` (a view lives as long as the array borrow), `len()`, `dim(k)`, `dim2()`, `dim3()`,
//!   `ld(t, i)`, `st(t, i, v)`, `ld2(t, i, j)`, `st2(t, i, j, v)`, `ld3(t, i, j, k)`, `st3(t, i, j, k, v)`.
//!   Out-of-bounds is a fault (read yields `T::default()`, write is dropped), never UB.
//!   `atomic(t, [i, j, ..], AtomicOp::Add(v))` (1-3 indices): CUDA's atomics, returning the old value
//!   (a fault returns `T::default()` and writes nothing).
//! - `OwnedArg::<T>::from_arg(&KernelArg, name)` and `.block(blk) -> OwnedView` (per block): a written
//!   array accessed only at the thread's own index: `len()`, `dim(k)`, `ld_own(t, i)`, `st_own(t, i, v)`,
//!   `ld2_own(t, y, x)`, `st2_own(t, y, x, v)` (another index is a fault, never an access).
//! - Block spans (barrier-free kernels): `view.span(blk, [(axis, lo, hi); N])` / `owned.span([..])`
//!   (`Option<Span>`), `blk.within(&[(axis, lo, hi, extent)])`, `blk.threads_within(&bounds, |t| ..)`,
//!   `span.ld(t, [(axis, offset); N])`, `span.st(t, [..], v)`, `blk.span_block()` (counts the block);
//!   where the last axis's length is a constant `n` in the common case: `span.inner_is(n)`,
//!   `span.ld_inner(t, [..], n)` (the stride between threads as a constant), `blk.inner_block()`.
//! - `threadfence()`, `threadfence_block()` (free functions): CUDA's fences.

mod atomics;
mod backend;
mod block;
mod check;
mod coro;
mod ctx;
mod exec;
mod fixed;
mod lockstep;
mod math;
mod memory;
mod merge;
mod ops;
mod owned;
mod paths;
mod span;
mod strategy;
mod stream;
mod thread;
mod view;
mod warp;

#[cfg(test)]
mod tests;

pub use atomics::{threadfence, threadfence_block, AtomicOp, AtomicScalar};
pub use backend::CpuBackend;
pub use block::{Block, XRange};
pub use check::{with_checks, Checks};
pub use coro::stack_check;
pub use ctx::SharedLayout;
pub use exec::with_cpu_time_limit;
pub(crate) use exec::MAX_SHARED_BYTES;
pub use fixed::{fixed_ld, fixed_st, FixedArray};
pub use lockstep::{common_range, common_step, full_rounds, LoopState, StrideIndex};
pub use math::{IntEuclid, IntRoot, IntRound, KernelMinMax};
pub use ops::{IntDiv, KernelArith, KernelShift};
pub use owned::{OwnedArg, OwnedView};
pub use paths::{
    last_launch_coroutine_blocks, last_launch_inline_blocks, last_launch_inner_blocks, last_launch_lockstep_blocks,
    last_launch_merged_blocks, last_launch_narrowed_blocks, last_launch_narrowed_loops, last_launch_row_blocks,
    last_launch_span_blocks, last_launch_span_loops,
};
pub use span::{Span, SpanAxis, StackSlots, CONST, OWN_X, OWN_Y, OWN_Z, TID_X, TID_Y, TID_Z, UNIFORM};
pub use strategy::{note_coroutines, with_cpu_strategies_off, with_forced_coroutines, Strategies};
pub use thread::Thread;
pub use view::{GlobalMem, Mem, SharedMem, Space, View};
pub use warp::{Shuffle, WarpValue};

/// A `threadIdx`/`blockIdx`/`blockDim`/`gridDim` value with `usize`
/// components: what [`thread_idx`](crate::kernel::thread_idx) and its
/// siblings return in a kernel (see there for an example).
///
/// ```
/// let i = gpujit::Idx3 { x: 3, y: 1, z: 0 };
/// assert_eq!((i.x, i.y, i.z), (3, 1, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Idx3 {
    /// `.x`, fastest-varying.
    pub x: usize,
    /// `.y`.
    pub y: usize,
    /// `.z`, slowest-varying.
    pub z: usize,
}
