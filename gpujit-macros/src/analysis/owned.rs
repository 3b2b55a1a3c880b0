//! Which writable array parameters a kernel touches only at each thread's
//! own index (CPU backend, issue #7).
//!
//! A parameter `&mut [T]` / `ArrayViewMut1` is *owned* when every use of it
//! is a plain load or store (`=` or `op=`) at the thread's own 1-D index (a
//! local bound once, immutably, to `grid(1)` or the `x` of `grid(2)`/`grid(3)`,
//! or `grid(1)` itself), or `.len()`/`.dim()`/`.shape()`. An
//! `ArrayViewMut2` is owned when every element access is `a[[y, x]]` with
//! `(x, y)` from `let (x, y) = grid(2)` (row `y`, column `x`). A 1-D array
//! may also be indexed by the variable of a grid-stride loop that
//! partitions it (`partition_vars`). Anything else
//! (an atomic, another index, passing the array to a device function) keeps
//! the array on the general path.
//!
//! Owned arrays get the runtime's `OwnedArg`/`OwnedView`, which re-checks at
//! run time that each index is the calling thread's own index and uses plain
//! (vectorizable) accesses when the launch makes that index injective. The
//! analysis only decides the fast path: a wrong "owned" would be a fault at
//! run time, never a silent race.

use super::Bindings;
use crate::model::visit::{each_expr, each_stmt_in_block};
use crate::model::*;

/// Per parameter of `k`: whether it is owned. All false for a device
/// function (its arrays are its caller's views).
pub fn owned_params(k: &Kernel) -> Vec<bool> {
    if k.ret.is_some() {
        return vec![false; k.params.len()];
    }
    let own = own_locals(k);
    let mut owned: Vec<bool> = k
        .params
        .iter()
        .map(|p| {
            matches!(
                p.kind,
                ParamKind::Array {
                    mutable: true,
                    ndim: 1 | 2,
                    ..
                }
            )
        })
        .collect();
    let ndim = |p: usize| match k.params[p].kind {
        ParamKind::Array { ndim, .. } => ndim,
        ParamKind::Scalar(_) => 0,
    };
    let part = partition_vars(k);
    let own_at = |p: usize, idx: &[Expr]| match (ndim(p), idx) {
        (1, [i]) => is_own(&own, i, Axis::X) || matches!(i.kind, ExprKind::Local(id) if part[id]),
        (2, [y, x]) => is_own(&own, y, Axis::Y) && is_own(&own, x, Axis::X),
        _ => false,
    };
    each_stmt_in_block(&k.body, &mut |s| {
        if let Stmt::Assign {
            place: Place::Elem(ArrayRef::Param(p), idx),
            ..
        } = s
        {
            if !own_at(*p, idx) {
                owned[*p] = false;
            }
        }
        // Nested statements' expressions are seen again with them: marking
        // a parameter not owned twice is harmless.
        each_expr(s, &mut |e| match &e.kind {
            ExprKind::Load(ArrayRef::Param(p), idx) if !own_at(*p, idx) => owned[*p] = false,
            ExprKind::Atomic(_, ArrayRef::Param(p), ..) | ExprKind::ArrayArg(p) => owned[*p] = false,
            _ => {}
        });
    });
    owned
}

/// Per local: the variable of a grid-stride loop that partitions a 1-D
/// array among the launch's threads, `for i in (s..n).step_by(g)` with `s`
/// the thread's own index (`grid(1)`) and `g` `gridsize(1)` (or immutable
/// locals bound once to them): thread `t` gets elements `grid(1) + r *
/// gridsize(1)` only, its class (checked at run time, see the runtime's
/// `OwnedView::ld_class`).
pub fn partition_vars(k: &Kernel) -> Vec<bool> {
    let own = own_locals(k);
    let bindings = Bindings::new(k);
    let mut part = vec![false; k.locals.len()];
    each_stmt_in_block(&k.body, &mut |s| {
        if let Stmt::For {
            var,
            start,
            step: Some(step),
            rev: false,
            ..
        } = s
        {
            let own_start = is_own(&own, start, Axis::X);
            let grid_step = match &step.kind {
                ExprKind::GridSize(Axis::X) => true,
                ExprKind::Local(id) => {
                    matches!(
                        bindings.let_value(*id).map(|e| &e.kind),
                        Some(ExprKind::GridSize(Axis::X))
                    )
                }
                _ => false,
            };
            part[*var] = own_start && grid_step && bindings.is_loop_var(*var);
        }
    });
    part
}

/// Whether `e` is the thread's own index along `axis`: `grid(..)` of that
/// axis, or a local that `own` marks for it.
fn is_own(own: &[Option<Axis>], e: &Expr, axis: Axis) -> bool {
    match &e.kind {
        ExprKind::Grid(a) => *a == axis,
        ExprKind::Local(id) => own.get(*id).copied().flatten() == Some(axis),
        _ => false,
    }
}

/// Per local: the axis of `grid(..)` it holds for its whole life, if it is
/// immutable and bound exactly once, to `grid(..)`'s component on that axis.
pub fn own_locals(k: &Kernel) -> Vec<Option<Axis>> {
    let bindings = Bindings::new(k);
    (0..k.locals.len())
        .map(|id| match bindings.value(id)?.kind {
            ExprKind::Grid(a) => Some(a),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned_of(src: &str) -> Vec<bool> {
        let f: syn::ItemFn = syn::parse_str(src).expect("test kernel parses");
        let k = crate::lower::lower_kernel(&f, &mut Default::default()).expect("test kernel lowers");
        owned_params(&k)
    }

    #[test]
    fn grid1_via_let_is_owned() {
        let o = owned_of(
            "fn k(x: &[f32], y: &mut [f32], a: f32) { let i = grid(1); if i < y.len() { y[i] = a * x[i] + y[i]; y[i] += 1.0; } }",
        );
        assert_eq!(o, vec![false, true, false]);
    }

    #[test]
    fn grid2_row_col_is_owned() {
        let o = owned_of(
            "fn k(rgb: ArrayView3<u8>, gray: ArrayViewMut2<u8>) { let (x, y) = grid(2); let (h, w) = gray.dim(); if y < h && x < w { gray[[y, x]] = rgb[[y, x, 0]]; } }",
        );
        assert_eq!(o, vec![false, true]);
    }

    #[test]
    fn direct_grid_call_is_owned() {
        let o = owned_of("fn k(y: &mut [f32]) { if grid(1) < y.len() { y[grid(1)] = 1.0; } }");
        assert_eq!(o, vec![true]);
    }

    #[test]
    fn neighbour_index_is_not_owned() {
        let o = owned_of("fn k(y: &mut [f32]) { let i = grid(1); if i + 1 < y.len() { y[i + 1] = 1.0; } }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn mutable_index_is_not_owned() {
        let o = owned_of("fn k(y: &mut [f32]) { let mut j = grid(1); j = j / 2; if j < y.len() { y[j] = 1.0; } }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn shadowed_index_is_not_owned() {
        let o = owned_of("fn k(y: &mut [f32]) { let i = grid(1); let i = i / 2; if i < y.len() { y[i] = 1.0; } }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn one_other_access_is_enough() {
        let o =
            owned_of("fn k(y: &mut [f32]) { let i = grid(1); if i < y.len() { y[i] = 1.0; } let v = y[0]; y[0] = v; }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn atomics_are_not_owned() {
        let o = owned_of("fn k(y: &mut [u32]) { let i = grid(1); if i < y.len() { atomic_add(&mut y[i], 1u32); } }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn passed_to_a_device_function_is_not_owned() {
        let o = owned_of("fn k(y: &mut [f32]) { let i = grid(1); if i < y.len() { y[i] = 1.0; fill(y, i); } }");
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn swapped_2d_index_is_not_owned() {
        let o = owned_of(
            "fn k(a: ArrayViewMut2<f32>) { let (x, y) = grid(2); let (h, w) = a.dim(); if x < h && y < w { a[[x, y]] = 1.0; } }",
        );
        assert_eq!(o, vec![false]);
    }

    #[test]
    fn read_only_and_3d_are_not_owned() {
        let o = owned_of(
            "fn k(a: &[f32], b: ArrayViewMut3<f32>) { let (x, y, z) = grid(3); let i = grid(1); let v = a[i]; let (d, h, w) = b.dim(); if z < d && y < h && x < w { b[[z, y, x]] = v; } }",
        );
        assert_eq!(o, vec![false, false]);
    }
}
