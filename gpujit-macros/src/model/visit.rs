//! Walks over the kernel model, for analyses that need every statement or
//! expression (the CPU emitter's split at barriers): read-only ones, and
//! one that rewrites expressions in place (`each_expr_mut`). The
//! matches are exhaustive on purpose: a new statement or expression kind
//! must say here what it contains.

use crate::model::*;

/// A direct sub-part of a statement or expression.
pub enum Child<'a> {
    Expr(&'a Expr),
    Block(&'a Block),
}

/// Calls `f` on each direct sub-expression and sub-block of `s`.
pub fn stmt_children<'a>(s: &'a Stmt, f: &mut dyn FnMut(Child<'a>)) {
    match s {
        Stmt::Let { init, .. } => init.iter().for_each(|e| f(Child::Expr(e))),
        Stmt::LetTuple { parts, .. } => parts.iter().for_each(|e| f(Child::Expr(e))),
        Stmt::LocalArray { init, .. } => match init {
            ArrayInit::Repeat(e) => f(Child::Expr(e)),
            ArrayInit::List(es) => es.iter().for_each(|e| f(Child::Expr(e))),
        },
        Stmt::Assign { place, value, .. } => {
            if let Place::Elem(_, idx) = place {
                idx.iter().for_each(|e| f(Child::Expr(e)));
            }
            f(Child::Expr(value));
        }
        Stmt::Expr(e) | Stmt::ReturnValue(e) => f(Child::Expr(e)),
        Stmt::If { cond, then, els } => {
            f(Child::Expr(cond));
            f(Child::Block(then));
            if let Some(b) = els {
                f(Child::Block(b));
            }
        }
        Stmt::For {
            start, end, step, body, ..
        } => {
            f(Child::Expr(start));
            f(Child::Expr(end));
            if let Some(s) = step {
                f(Child::Expr(s));
            }
            f(Child::Block(body));
        }
        Stmt::While { cond, body } => {
            f(Child::Expr(cond));
            f(Child::Block(body));
        }
        Stmt::Loop { body } | Stmt::Block(body) => f(Child::Block(body)),
        Stmt::Shared(_)
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Return
        | Stmt::SyncThreads
        | Stmt::Fence(_)
        | Stmt::Line(_) => {}
    }
}

/// Calls `f` on each direct sub-expression and sub-block of `e`.
pub fn expr_children<'a>(e: &'a Expr, f: &mut dyn FnMut(Child<'a>)) {
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::Idx3Field(a, _) | ExprKind::Vote(_, a) => {
            f(Child::Expr(a))
        }
        ExprKind::Binary(_, a, b) => {
            f(Child::Expr(a));
            f(Child::Expr(b));
        }
        ExprKind::Load(_, args)
        | ExprKind::Math(_, args)
        | ExprKind::Call(_, args)
        | ExprKind::Tuple(args)
        | ExprKind::Warp(_, args) => args.iter().for_each(|x| f(Child::Expr(x))),
        ExprKind::TupleField(a, _) => f(Child::Expr(a)),
        ExprKind::Atomic(_, _, idx, operands) => idx.iter().chain(operands).for_each(|x| f(Child::Expr(x))),
        ExprKind::If(c, a, b) => {
            f(Child::Expr(c));
            f(Child::Block(a));
            f(Child::Block(b));
        }
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::ExternConst(_)
        | ExprKind::BodyConst(_)
        | ExprKind::Len(_)
        | ExprKind::ArrayArg(_)
        | ExprKind::Dim(..)
        | ExprKind::Grid(_)
        | ExprKind::GridSize(_)
        | ExprKind::Builtin(_)
        | ExprKind::BuiltinAxis(..)
        | ExprKind::Intrinsic(_) => {}
    }
}

/// Calls `f` on every statement inside `b`, however deep (inside `if`
/// expressions too), outermost first.
pub fn each_stmt_in_block<'a>(b: &'a Block, f: &mut dyn FnMut(&'a Stmt)) {
    for s in &b.stmts {
        each_stmt(s, f);
    }
    if let Some(t) = &b.tail {
        each_stmt_in_expr(t, f);
    }
}

/// `s` and every statement inside it, as [`each_stmt_in_block`].
pub fn each_stmt<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Stmt)) {
    crate::stack::deep(|| {
        f(s);
        stmt_children(s, &mut |c| match c {
            Child::Expr(e) => each_stmt_in_expr(e, f),
            Child::Block(b) => each_stmt_in_block(b, f),
        });
    })
}

fn each_stmt_in_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Stmt)) {
    crate::stack::deep(|| {
        expr_children(e, &mut |c| match c {
            Child::Expr(e) => each_stmt_in_expr(e, f),
            Child::Block(b) => each_stmt_in_block(b, f),
        });
    })
}

/// Calls `f` on every expression inside `s`, however deep.
pub fn each_expr<'a>(s: &'a Stmt, f: &mut dyn FnMut(&'a Expr)) {
    crate::stack::deep(|| {
        stmt_children(s, &mut |c| match c {
            Child::Expr(e) => each_expr_in_expr(e, f),
            Child::Block(b) => each_expr_in_block(b, f),
        });
    })
}

/// Calls `f` on every expression inside `b`, however deep.
pub fn each_expr_in_block<'a>(b: &'a Block, f: &mut dyn FnMut(&'a Expr)) {
    b.stmts.iter().for_each(|s| each_expr(s, f));
    if let Some(t) = &b.tail {
        each_expr_in_expr(t, f);
    }
}

/// `e` and every expression inside it.
pub fn each_expr_in_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    crate::stack::deep(|| {
        f(e);
        expr_children(e, &mut |c| match c {
            Child::Expr(x) => each_expr_in_expr(x, f),
            Child::Block(b) => each_expr_in_block(b, f),
        });
    })
}

/// The locals that `s` declares, reads or writes, however deep.
pub fn locals_used(s: &Stmt, out: &mut Vec<LocalId>) {
    each_stmt(s, &mut |s| match s {
        Stmt::Let { local, .. } => out.push(*local),
        Stmt::LetTuple { locals, .. } => out.extend(locals.iter().flatten()),
        Stmt::Assign {
            place: Place::Local(id),
            ..
        } => out.push(*id),
        Stmt::For { var, .. } => out.push(*var),
        _ => {}
    });
    each_expr(s, &mut |e| {
        if let ExprKind::Local(id) = e.kind {
            out.push(id);
        }
    });
}

/// The local arrays that `s` declares, reads or writes, however deep.
pub fn local_arrays_used(s: &Stmt, out: &mut Vec<usize>) {
    each_stmt(s, &mut |s| match s {
        Stmt::LocalArray { id, .. }
        | Stmt::Assign {
            place: Place::Elem(ArrayRef::Local(id), _),
            ..
        } => out.push(*id),
        _ => {}
    });
    each_expr(s, &mut |e| {
        if let ExprKind::Load(ArrayRef::Local(id), _) | ExprKind::Atomic(_, ArrayRef::Local(id), _, _) = e.kind {
            out.push(id);
        }
    });
}

/// Calls `f` on every expression inside `b`, however deep, innermost first
/// (a parent after its children), so that `f` may replace each one: the one
/// rewriting walk, for planners that rewrite a copy of the kernel into an
/// equivalent form (`cpu::canonical`) and for the lowering's final type
/// resolution (`lower::resolve`).
pub fn each_expr_mut(b: &mut Block, f: &mut dyn FnMut(&mut Expr)) {
    crate::stack::deep(|| {
        for s in &mut b.stmts {
            stmt_exprs_mut(s, f);
        }
        if let Some(t) = &mut b.tail {
            expr_mut(t, f);
        }
    })
}

fn stmt_exprs_mut(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    match s {
        Stmt::Let { init, .. } => init.iter_mut().for_each(|e| expr_mut(e, f)),
        Stmt::LetTuple { parts, .. } => parts.iter_mut().for_each(|e| expr_mut(e, f)),
        Stmt::LocalArray { init, .. } => match init {
            ArrayInit::Repeat(e) => expr_mut(e, f),
            ArrayInit::List(es) => es.iter_mut().for_each(|e| expr_mut(e, f)),
        },
        Stmt::Assign { place, value, .. } => {
            if let Place::Elem(_, idx) = place {
                idx.iter_mut().for_each(|e| expr_mut(e, f));
            }
            expr_mut(value, f);
        }
        Stmt::Expr(e) | Stmt::ReturnValue(e) => expr_mut(e, f),
        Stmt::If { cond, then, els } => {
            expr_mut(cond, f);
            each_expr_mut(then, f);
            if let Some(b) = els {
                each_expr_mut(b, f);
            }
        }
        Stmt::For {
            start, end, step, body, ..
        } => {
            expr_mut(start, f);
            expr_mut(end, f);
            if let Some(s) = step {
                expr_mut(s, f);
            }
            each_expr_mut(body, f);
        }
        Stmt::While { cond, body } => {
            expr_mut(cond, f);
            each_expr_mut(body, f);
        }
        Stmt::Loop { body } | Stmt::Block(body) => each_expr_mut(body, f),
        Stmt::Shared(_)
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Return
        | Stmt::SyncThreads
        | Stmt::Fence(_)
        | Stmt::Line(_) => {}
    }
}

/// [`each_expr_mut`] inside the one expression `e` (and `e` itself, last).
pub fn each_expr_mut_in_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    expr_mut(e, f)
}

fn expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    crate::stack::deep(|| {
        match &mut e.kind {
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a, _)
            | ExprKind::Idx3Field(a, _)
            | ExprKind::Vote(_, a)
            | ExprKind::TupleField(a, _) => expr_mut(a, f),
            ExprKind::Binary(_, a, b) => {
                expr_mut(a, f);
                expr_mut(b, f);
            }
            ExprKind::Load(_, args)
            | ExprKind::Math(_, args)
            | ExprKind::Call(_, args)
            | ExprKind::Tuple(args)
            | ExprKind::Warp(_, args) => args.iter_mut().for_each(|x| expr_mut(x, f)),
            ExprKind::Atomic(_, _, idx, operands) => idx.iter_mut().chain(operands).for_each(|x| expr_mut(x, f)),
            ExprKind::If(c, a, b) => {
                expr_mut(c, f);
                each_expr_mut(a, f);
                each_expr_mut(b, f);
            }
            ExprKind::Lit(_)
            | ExprKind::Local(_)
            | ExprKind::ExternConst(_)
            | ExprKind::BodyConst(_)
            | ExprKind::Len(_)
            | ExprKind::ArrayArg(_)
            | ExprKind::Dim(..)
            | ExprKind::Grid(_)
            | ExprKind::GridSize(_)
            | ExprKind::Builtin(_)
            | ExprKind::BuiltinAxis(..)
            | ExprKind::Intrinsic(_) => {}
        }
        f(e);
    })
}
