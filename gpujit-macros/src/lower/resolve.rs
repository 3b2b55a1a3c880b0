//! Final type resolution: replaces every inference variable in the lowered
//! kernel by the type inference settled on.

use crate::infer::Infer;
use crate::model::*;

pub(super) fn resolve_kernel(inf: &Infer, k: &mut Kernel) {
    for l in &mut k.locals {
        l.ty = inf.resolve(l.ty);
    }
    for a in &mut k.local_arrays {
        a.elem = inf.resolve(a.elem);
    }
    for c in &mut k.body_consts {
        resolve_expr(inf, &mut c.value);
    }
    resolve_block(inf, &mut k.body);
}

fn resolve_block(inf: &Infer, b: &mut Block) {
    crate::stack::deep(|| resolve_block_at(inf, b))
}

fn resolve_block_at(inf: &Infer, b: &mut Block) {
    for s in &mut b.stmts {
        match s {
            Stmt::Let { init, .. } => {
                if let Some(e) = init {
                    resolve_expr(inf, e);
                }
            }
            Stmt::LetTuple { parts, .. } => parts.iter_mut().for_each(|e| resolve_expr(inf, e)),
            Stmt::LocalArray { init, .. } => match init {
                ArrayInit::Repeat(e) => resolve_expr(inf, e),
                ArrayInit::List(es) => es.iter_mut().for_each(|e| resolve_expr(inf, e)),
            },
            Stmt::Assign { place, value, .. } => {
                if let Place::Elem(_, idx) = place {
                    idx.iter_mut().for_each(|e| resolve_expr(inf, e));
                }
                resolve_expr(inf, value);
            }
            Stmt::Expr(e) | Stmt::ReturnValue(e) => resolve_expr(inf, e),
            Stmt::If { cond, then, els } => {
                resolve_expr(inf, cond);
                resolve_block(inf, then);
                if let Some(e) = els {
                    resolve_block(inf, e);
                }
            }
            Stmt::For {
                start, end, step, body, ..
            } => {
                resolve_expr(inf, start);
                resolve_expr(inf, end);
                if let Some(s) = step {
                    resolve_expr(inf, s);
                }
                resolve_block(inf, body);
            }
            Stmt::While { cond, body } => {
                resolve_expr(inf, cond);
                resolve_block(inf, body);
            }
            Stmt::Loop { body } | Stmt::Block(body) => resolve_block(inf, body),
            Stmt::Shared(_)
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return
            | Stmt::SyncThreads
            | Stmt::Fence(_)
            | Stmt::Line(_) => {}
        }
    }
    if let Some(t) = &mut b.tail {
        resolve_expr(inf, t);
    }
}

fn resolve_expr(inf: &Infer, e: &mut Expr) {
    crate::stack::deep(|| resolve_expr_at(inf, e))
}

fn resolve_expr_at(inf: &Infer, e: &mut Expr) {
    e.ty = inf.resolve(e.ty);
    match &mut e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::Cast(a, _)
        | ExprKind::Idx3Field(a, _)
        | ExprKind::Vote(_, a)
        | ExprKind::TupleField(a, _) => resolve_expr(inf, a),
        ExprKind::Binary(_, a, b) => {
            resolve_expr(inf, a);
            resolve_expr(inf, b);
        }
        ExprKind::Load(_, idx) | ExprKind::Math(_, idx) | ExprKind::Call(_, idx) | ExprKind::Tuple(idx) => {
            idx.iter_mut().for_each(|x| resolve_expr(inf, x))
        }
        ExprKind::Atomic(_, _, idx, vals) => {
            idx.iter_mut().chain(vals).for_each(|x| resolve_expr(inf, x));
        }
        ExprKind::If(c, a, b) => {
            resolve_expr(inf, c);
            resolve_block(inf, a);
            resolve_block(inf, b);
        }
        _ => {}
    }
}
