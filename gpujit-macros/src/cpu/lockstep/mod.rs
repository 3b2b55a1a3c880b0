//! Loop interchange for the CPU backend: one `for` loop of a barrier-free
//! kernel runs in lockstep across the block's threads (iteration 1 of every
//! thread, then iteration 2, ...), as a warp would, where that turns each
//! thread's strided walk through global memory into contiguous runs:
//!
//! - a **strided loop** (`(a..b).step_by(s)`, a grid-stride loop): each
//!   thread records its start, end, step and trip count; when every thread
//!   that iterates has the same step (checked once per block), round `r`
//!   gives thread `t` the element `start_t + r * step` while `r` is below
//!   its trip count: no iterator objects, the offset `r * step` computed
//!   once per round;
//! - a **unit-stride loop** (`a..b`, `a..=b`) whose body walks an array
//!   with a stride (the loop variable in a leading index of a 2-D/3-D
//!   access, as the naive matmul's `b[[i, col]]`, or multiplied in a 1-D
//!   one), or only computes on locals (`s += (i * j) as f64 * 0.1`: no
//!   memory, no intrinsic that meets, nothing that may fault;
//!   `find::computes_only`), and holds no `break`/`continue`/`return`: when
//!   every thread that reaches it has the same bounds (checked once per
//!   block), the block runs `for i in a..b { for each thread { body } }`
//!   with one counter for the block. A computing loop's own thread runs a
//!   chain of dependent operations per iteration; in rounds the block's
//!   threads run side by side, as SIMD lanes.
//!
//! **Rounds on spans** (`cpu::span::loop_plan`, `round_plan`): a unit-stride
//! loop whose every thread reached it runs one round per counter value with
//! the thread loop innermost; an array indexed by the counter and own
//! indices (`b[[i, col]]`) is checked once per round and read unchecked, so
//! the round vectorizes across threads (one local carried through the loop,
//! as the matmul's `acc`, lives in a per-thread slot on the stack); a
//! computing loop's rounds have no array to check
//! (`cpu::span::no_array_plan`). A grid-stride loop starting at `grid(1)`
//! with a shared step runs each round that every thread takes
//! (`full_rounds`) on spans shifted by `r * step`;
//! arrays that the loop partitions (step `gridsize(1)`) get plain stores there
//! in injective launches (the runtime checks the step is a multiple of
//! `gridsize(1)`). Other rounds run checked. A grid-stride loop where every
//! thread of a block has one element at most runs the plain thread loop
//! (`one_trip_each`): rounds cannot pay for their per-thread state there.
//!
//! A block whose threads disagree (a thread-dependent step, or per-thread
//! bounds of a unit-stride loop) runs each thread's own loop from the
//! recorded state instead: same results, no interchange, no fault (there is
//! no barrier to diverge at). `Block::lockstep` counts the blocks that ran
//! in lockstep, so tests see which path ran.
//!
//! **Why this is a valid CUDA execution.** Without a barrier, CUDA promises
//! no order between the threads of a block: a thread's effects become
//! visible to the others in an unspecified order, and any interleaving of
//! the threads' steps that keeps each thread's own program order is an
//! execution a GPU may produce (warps of one block are scheduled
//! independently). Lockstep runs every thread's statements before the
//! loop, then the loop's iterations interleaved round by round, each
//! thread's in its own order, then every thread's statements after the
//! loop: one such interleaving. Bounds, steps and trip counts are each
//! thread's own values, evaluated once in its own order, as its loop would.
//!
//! Per-thread state that lives across the three parts (locals made before
//! the loop and used in it, as the matmul's `acc`) moves into per-thread
//! arrays, as in `cpu::split`. Only simple shapes are taken: the loop is a
//! statement of the kernel body, or of the `then` block of an `if` there
//! (`if row < n && col < m { .. for .. }`: threads failing the guard take
//! no part), and holds no other loop.

use proc_macro2::{Ident, Span};

mod body;
mod find;
mod one_trip;
mod rounds;

pub use body::block_body;
pub use one_trip::one_trip_each;

/// A name of the generated code (`gj_state`, `gj_r`, ...), mixed-site so
/// that it cannot clash with the kernel's own names.
fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}
