//! Which loop of a kernel runs in lockstep: the first `for` of the kernel
//! body, or of the `then` block of an `if` there, that walks global memory
//! with a stride (see the module docs of `cpu::lockstep`).

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

/// Whether `s` is a `for` loop worth interchanging (see the module docs):
/// a strided loop whose body indexes global memory with the loop variable,
/// or a unit-stride one whose body walks global memory with a stride. A
/// unit-stride loop over contiguous elements is left to each thread: its
/// own walk is already contiguous.
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
    !nested && walk && (strided || !exits)
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
