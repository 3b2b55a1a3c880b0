//! Which loop of a kernel runs in lockstep: the first `for` of the kernel
//! body, or of the `then` block of an `if` there, that walks global memory
//! with a stride, or that only computes on locals (see the module docs of
//! `cpu::lockstep`).

use crate::model::visit::{each_expr, each_expr_in_expr, each_stmt};
use crate::model::*;

/// Where the chosen loop sits.
pub(super) struct Target<'k> {
    /// Index of the kernel body's statement that is (or holds) the loop.
    pub(super) top: usize,
    /// The `if` holding the loop, and the loop's index in its `then` block.
    pub(super) inner: Option<(&'k Expr, &'k Block, Option<&'k Block>, usize)>,
    pub(super) l: &'k Stmt,
}

/// Whether `e` reads one of `vars`.
fn mentions(e: &Expr, vars: &[LocalId]) -> bool {
    let mut found = false;
    each_expr_in_expr(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::Local(id) if vars.contains(&id))
    });
    found
}

/// The loop variable `var` and the locals of `body` bound to values that
/// read it (`let k = i as usize;`), however indirectly.
fn derived(body: &Block, var: LocalId) -> Vec<LocalId> {
    let mut vars = vec![var];
    for s in &body.stmts {
        each_stmt(s, &mut |s| {
            if let Stmt::Let { local, init: Some(e) } = s {
                if mentions(e, &vars) {
                    vars.push(*local);
                }
            }
        });
    }
    vars
}

/// Whether the index `idx` of a global array depends on the loop variable
/// (`any`; `var` holds it and the locals derived from it), or walks memory
/// with a stride as it counts up: in a leading index of a 2-D/3-D access,
/// or multiplied in a 1-D one.
fn walks(idx: &[Expr], var: &[LocalId], any: bool) -> bool {
    if any {
        return idx.iter().any(|e| mentions(e, var));
    }
    match idx {
        [one] => {
            let mut scaled = false;
            each_expr_in_expr(one, &mut |x| {
                if let ExprKind::Binary(BinOp::Mul, a, b) = &x.kind {
                    scaled |= mentions(a, var) || mentions(b, var);
                }
            });
            scaled
        }
        [lead @ .., _] => lead.iter().any(|e| mentions(e, var)),
        [] => false,
    }
}

/// Whether the statements `stmts` only compute on locals: no memory (no
/// array, atomic or device function call), no vote or warp intrinsic, no
/// early exit and nothing that may fault (so no thread's faults can come in
/// another order). Rounds of a loop with such a body need no spans; each
/// round runs the block's threads side by side, which LLVM vectorizes, where
/// each thread's own loop waits on its carried local at every iteration.
pub(super) fn computes_only<'a>(stmts: impl IntoIterator<Item = &'a Stmt>) -> bool {
    let mut only = true;
    for s in stmts {
        each_stmt(s, &mut |s| {
            only &= match s {
                Stmt::Let { .. }
                | Stmt::LetTuple { .. }
                | Stmt::Assign {
                    place: Place::Local(_), ..
                }
                | Stmt::Expr(_)
                | Stmt::If { .. }
                | Stmt::Block(_)
                | Stmt::Line(_) => true,
                // Memory, loops, barriers, fences and exits: not a
                // computation on locals alone.
                Stmt::Assign {
                    place: Place::Elem(..), ..
                }
                | Stmt::Shared(_)
                | Stmt::LocalArray { .. }
                | Stmt::For { .. }
                | Stmt::While { .. }
                | Stmt::Loop { .. }
                | Stmt::Break
                | Stmt::Continue
                | Stmt::Return
                | Stmt::ReturnValue(_)
                | Stmt::SyncThreads
                | Stmt::Fence(_) => false,
            } && stmt_props(s).control == Control::Next;
        });
        each_expr(s, &mut |e| {
            let p = expr_props(e);
            only &= p.sync == SyncScope::None
                && !p.effects
                && !p.reads_memory
                && !p.may_fault
                && !matches!(
                    e.kind,
                    ExprKind::Load(..) | ExprKind::Atomic(..) | ExprKind::Call(..) | ExprKind::ArrayArg(_)
                );
        });
    }
    only
}

/// Whether `s` is a `for` loop worth interchanging (see the module docs):
/// a strided loop whose body indexes global memory with the loop variable,
/// or a unit-stride one whose body walks global memory with a stride or
/// only computes on locals (`computes_only`). A unit-stride loop over
/// contiguous elements is left to each thread: its own walk is already
/// contiguous.
fn candidate(k: &Kernel, s: &Stmt) -> bool {
    let Stmt::For {
        var,
        body,
        step,
        rev: false,
        ..
    } = s
    else {
        return false;
    };
    if k.locals[*var].mutable || body.tail.is_some() {
        return false;
    }
    let strided = step.is_some();
    let vars = derived(body, *var);
    let mut nested = false;
    let mut exits = false;
    let mut walk = false;
    for s in &body.stmts {
        each_stmt(s, &mut |s| {
            nested |= matches!(
                s,
                Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } | Stmt::SyncThreads
            );
            exits |= stmt_props(s).control != Control::Next;
            if let Stmt::Assign {
                place: Place::Elem(ArrayRef::Param(_), idx),
                ..
            } = s
            {
                walk |= walks(idx, &vars, strided);
            }
        });
        each_expr(s, &mut |e| {
            if let ExprKind::Load(ArrayRef::Param(_), idx) = &e.kind {
                walk |= walks(idx, &vars, strided);
            }
        });
    }
    // A unit-stride loop runs as one block-level counter: no thread may
    // leave it early.
    let computes = !strided && computes_only(&body.stmts);
    !nested && (walk || computes) && (strided || !exits)
}

pub(super) fn find(k: &Kernel) -> Option<Target<'_>> {
    for (top, s) in k.body.stmts.iter().enumerate() {
        if candidate(k, s) {
            return Some(Target { top, inner: None, l: s });
        }
        if let Stmt::If { cond, then, els } = s {
            if then.tail.is_some() {
                continue;
            }
            if let Some(j) = then.stmts.iter().position(|s| candidate(k, s)) {
                return Some(Target {
                    top,
                    inner: Some((cond, then, els.as_ref(), j)),
                    l: &then.stmts[j],
                });
            }
        }
    }
    None
}
