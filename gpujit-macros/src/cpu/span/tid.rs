//! Tile loads: indices that are `threadIdx` on one axis plus a value the
//! same in every thread of the block (`a[[row, t * TILE + tx]]` with `t` the
//! variable of a loop around the part, directly or through `let ka = t *
//! TILE + tx;`). The block evaluates the value once each time it runs the
//! part, and the span of the array is checked for it (the runtime's
//! `TID_UNI_X`, ...).

use crate::model::visit::{each_expr, each_stmt_in_block};
use crate::model::*;

use super::plan::{axis_code, thread_axis, tid_locals, Off, SpanPlan, TidLet, TID_UNI};

/// The `TidLet`s of part `stmts`, and the part's block-uniform `let`s they
/// may use (`let base = t * TILE;`), in order. A local counts only when it
/// is an immutable `usize` that the kernel binds once, with a `let` at the
/// part's top level, and that lives in this part alone (`spilled` false):
/// it then holds its initial value wherever the part reads it. `uniform(e,
/// extra)`: whether `e` is block-uniform and cannot fault, with `extra`
/// further uniform locals (see `analysis::Uniform`).
pub fn tid_lets(
    k: &Kernel,
    stmts: &[&Stmt],
    spilled: &[bool],
    uniform: &dyn Fn(&Expr, &[LocalId]) -> bool,
) -> (Vec<LocalId>, Vec<TidLet>) {
    let usize_ty = Ty::Scalar(Scalar::Usize);
    let mut binds = vec![0usize; k.locals.len()];
    each_stmt_in_block(&k.body, &mut |s| match s {
        Stmt::Let { local, .. } => binds[*local] += 1,
        Stmt::LetTuple { locals, .. } => locals.iter().flatten().for_each(|l| binds[*l] += 2),
        Stmt::For { var, .. } => binds[*var] += 2,
        _ => {}
    });
    let tid = tid_locals(k);
    // `threadIdx` plus a uniform `usize` value: the axis and the value.
    let split = |e: &Expr, hoisted: &[LocalId]| -> Option<(u8, Expr)> {
        let ExprKind::Binary(BinOp::Add, a, b) = &e.kind else {
            return None;
        };
        [(a, b), (b, a)].into_iter().find_map(|(x, v)| {
            let axis = tid_axis(&tid, x)?;
            (e.ty == usize_ty && v.ty == usize_ty && uniform(v, hoisted)).then(|| (TID_UNI + axis, (**v).clone()))
        })
    };
    let (mut hoisted, mut lets) = (Vec::new(), Vec::new());
    for s in stmts {
        let Stmt::Let { local, init: Some(e) } = s else {
            continue;
        };
        let l = &k.locals[*local];
        if l.mutable || binds[*local] != 1 || spilled.get(*local) != Some(&false) || l.ty != usize_ty {
            continue;
        }
        if uniform(e, &hoisted) {
            hoisted.push(*local);
        } else if let Some((axis, value)) = split(e, &hoisted) {
            lets.push(TidLet {
                key: *local,
                local: Some(*local),
                axis,
                value,
            });
        }
    }
    // The same sums inline, one binding per distinct value and axis.
    for s in stmts {
        each_expr(s, &mut |e| {
            let Some((axis, value)) = split(e, &hoisted) else {
                return;
            };
            let known = lets
                .iter()
                .any(|l| l.local.is_none() && l.axis == axis && same(&l.value, &value));
            if !known {
                let key = k.locals.len() + lets.len();
                lets.push(TidLet {
                    key,
                    local: None,
                    axis,
                    value,
                });
            }
        });
    }
    (hoisted, lets)
}

/// `TID` axis code (0-2) of `x`: `threadIdx`, or a local bound to it.
fn tid_axis(tid: &[Option<Axis>], x: &Expr) -> Option<u8> {
    match &x.kind {
        ExprKind::Local(id) => tid.get(*id).copied().flatten(),
        _ => thread_axis(x),
    }
    .map(axis_code)
}

/// Whether `a` and `b` are the same expression (of the forms a uniform
/// value takes: literals, locals, constants, extents, builtins, arithmetic).
fn same(a: &Expr, b: &Expr) -> bool {
    use ExprKind as K;
    a.ty == b.ty
        && crate::stack::deep(|| match (&a.kind, &b.kind) {
            (K::Lit(Lit::Int(x)), K::Lit(Lit::Int(y))) => x == y,
            (K::Local(x), K::Local(y)) | (K::ExternConst(x), K::ExternConst(y)) => x == y,
            (K::BodyConst(x), K::BodyConst(y)) | (K::Len(x), K::Len(y)) => x == y,
            (K::Dim(p, d), K::Dim(q, e)) => (p, d) == (q, e),
            (K::GridSize(x), K::GridSize(y)) => x == y,
            (K::Builtin(x), K::Builtin(y)) => x == y,
            (K::BuiltinAxis(x, i), K::BuiltinAxis(y, j)) => (x, i) == (y, j),
            (K::Unary(o, x), K::Unary(p, y)) => o == p && same(x, y),
            (K::Cast(x, s), K::Cast(y, t)) => s == t && same(x, y),
            (K::Idx3Field(x, i), K::Idx3Field(y, j)) => i == j && same(x, y),
            (K::Binary(o, x1, x2), K::Binary(p, y1, y2)) => o == p && same(x1, y1) && same(x2, y2),
            (K::Math(f, xs), K::Math(g, ys)) => {
                f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
            }
            _ => false,
        })
}

impl SpanPlan {
    /// `e` as a `TidLet`'s position: the local itself, or its sum inline.
    pub(super) fn tid_match(&self, e: &Expr) -> Option<(u8, Off)> {
        let hit = |l: &TidLet| Some((l.axis, Off::Uni(l.key)));
        match &e.kind {
            ExprKind::Local(id) => self.tid_uni.iter().find(|l| l.local == Some(*id)).and_then(hit),
            ExprKind::Binary(BinOp::Add, a, b) => [(a, b), (b, a)].into_iter().find_map(|(x, v)| {
                let axis = TID_UNI + tid_axis(&self.tid, x)?;
                let l = self
                    .tid_uni
                    .iter()
                    .find(|l| l.local.is_none() && l.axis == axis && same(&l.value, v))?;
                hit(l)
            }),
            _ => None,
        }
    }
}
