//! Block spans for the CPU backend (issue #7): a barrier-free kernel's
//! thread loop, or one barrier-free part of a split kernel (narrowed or
//! not), emitted a second time with unchecked accesses, taken by the blocks
//! where one range check per array shows every classified access in bounds
//! for every thread the loop runs (`gpujit/src/cpu/span.rs`). Edge blocks,
//! and every block under `GPUJIT_CPU_EXEC=coroutines`, run the checked loop.
//!
//! Shared arrays take spans too, indexed by `threadIdx` plus or minus a
//! literal, or plus a block-uniform `usize` local in a narrowed part
//! (`cache[tid + stride]`), whose value the block binds before the loop.
//! In a part that is not narrowed, read-only global arrays take spans at
//! `threadIdx` plus a block-uniform value (tile loads, see `tid`), and the
//! kernel's guards the spans prove fold to `true` in the fast loop
//! (`Emitter::span_proves_below`).
//!
//! An access is classified when each index is the thread's own index on an
//! axis plus or minus an integer literal (`x`, `y - 1`, with `x` a local
//! bound once to `grid(..)`'s component, see `owned`), or an integer
//! literal, on a read-only array parameter (any offset) or an owned one (its
//! own index only). The indices are then not evaluated at all: the runtime
//! forms them from the thread's coordinates, so LLVM sees unit-stride
//! accesses and can vectorize the loop.
//!
//! `plan` decides which accesses of a kernel or part take spans (`tid`
//! finds a part's tile-load indices); `emit`
//! writes the span version of its thread loop and the choice between it and
//! the checked one.

mod emit;
mod plan;
mod shifted;
mod tid;

pub use emit::{round_versioned, versioned, versioned_narrowed, versioned_part};
pub use plan::{loop_plan, no_array_plan, round_plan, uni_ident};
pub use shifted::shifted_round;

/// Whether kernel `k`'s thread loop has a plan of block spans.
pub fn has_plan(k: &crate::model::Kernel) -> bool {
    plan::plan(k).is_some()
}
