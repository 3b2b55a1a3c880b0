//! Which kernels may run a grid row's blocks as one wide thread loop on the
//! CPU backend (the runtime's `CpuLaunch::run_blocks_merged`, issue #7).
//!
//! A 16×16 block of an image is 16 rows of 16 pixels: its span loop runs 16
//! short loops with their setup, and walks 16 rows of the image at once.
//! Merged, the blocks of one grid row run as one block `k` times wider:
//! the loop runs over image rows as hand-written code does (grayscale
//! 3840×2160: 1.12–1.16 → about 1.0 of the rayon code, one core).
//!
//! That is only invisible to a kernel whose threads cannot tell which block
//! they are in, or in which order the threads of different blocks run: no
//! `threadIdx`/`blockIdx`/`blockDim`/`gridDim` (only `grid(..)` and
//! `gridsize(..)`, which merging keeps), no shared memory or barriers, no
//! atomics or votes, no device calls (whose bodies the macro does not see
//! here), and every written array an own-index one (`owned`): no two threads
//! of different blocks touch one element, so the order between blocks
//! cannot show. Faults still name their real block and thread (the runtime
//! translates). Only kernels on the span path merge: others gain little.

use crate::model::*;

/// Whether kernel `k`'s blocks may run merged (see the module docs).
pub fn mergeable(k: &Kernel) -> bool {
    if k.ret.is_some() || k.uses_barrier || !k.shared.is_empty() || !k.callees.is_empty() {
        return false;
    }
    let owned = crate::analysis::owned::owned_params(k);
    let written_owned = k
        .params
        .iter()
        .zip(&owned)
        .all(|(p, &own)| own || !matches!(p.kind, ParamKind::Array { mutable: true, .. }));
    if !written_owned {
        return false;
    }
    let sees = |p: &ExprProps| p.sees_block || p.sync != SyncScope::None;
    let blind = !k.body.stmts.iter().any(|s| any_expr_in_stmt(s, sees))
        && !k.body.tail.as_ref().is_some_and(|t| any_in_expr(t, sees));
    // The span path only (`cpu::plan` asks only there).
    blind && super::span::has_plan(k)
}
