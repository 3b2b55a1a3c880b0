//! Blocks and statements: `let` (names, tuples, shared arrays), assignments,
//! `if`, the loops, `break`/`continue`/`return` and `syncthreads()`. This
//! module owns blocks, statement dispatch, assignments and `if`; `bind` the
//! `let`s, `loops` the `for` loops.

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{call_name, err, label_error, macro_error, strip, with_help, with_help_spanned, Lower};
use crate::infer::VarKind;
use crate::model::*;

mod bind;
mod loops;

impl Lower {
    pub(super) fn block(&mut self, block: &syn::Block, value: bool) -> Block {
        crate::stack::deep(|| self.block_at(block, value))
    }

    fn block_at(&mut self, block: &syn::Block, value: bool) -> Block {
        self.scopes.push(HashMap::new());
        // `const` items are visible in the whole block, as in Rust.
        for stmt in &block.stmts {
            if let syn::Stmt::Item(syn::Item::Const(c)) = stmt {
                self.body_const(c);
            }
        }
        let mut stmts = Vec::new();
        let mut tail = None;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Expr(e, None) if i + 1 == n && value => tail = Some(self.expr(e)),
                _ => {
                    let before = stmts.len();
                    self.stmt(stmt, &mut stmts);
                    let line = stmt.span().start().line;
                    if stmts.len() > before && line > 0 {
                        stmts.insert(before, Stmt::Line(line as u32));
                    }
                }
            }
        }
        self.scopes.pop();
        Block { stmts, tail }
    }

    pub(super) fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        crate::stack::deep(|| self.hoisting(out, |lw, out| lw.stmt_at(stmt, out)))
    }

    fn stmt_at(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        match stmt {
            syn::Stmt::Local(local) => self.let_stmt(local, out),
            syn::Stmt::Item(syn::Item::Const(_)) => {}
            syn::Stmt::Item(syn::Item::Static(s)) => self.errors.push(with_help(
                s.static_token.span(),
                "`static` items are not allowed in kernels",
                "use `const`: its value is frozen at build time on every backend",
            )),
            syn::Stmt::Item(syn::Item::Fn(f)) => self.errors.push(with_help(
                f.sig.ident.span(),
                "functions inside a kernel are not supported",
                "compute the value inline; device functions are not supported yet",
            )),
            syn::Stmt::Item(item) => self.errors.push(err(
                item.span(),
                "items other than `const` are not allowed inside a kernel",
            )),
            syn::Stmt::Macro(m) => self.errors.push(macro_error(&m.mac)),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        crate::stack::deep(|| self.hoisting(out, |lw, out| lw.expr_stmt_at(e, out)))
    }

    fn expr_stmt_at(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        match strip(e) {
            SExpr::Assign(a) => {
                let (place, ty) = self.place(&a.left);
                if place.is_none() && self.is_poisoned(&a.left) {
                    return; // its declaration was reported; `x = [..]` would repeat it
                }
                let value = self.expr(&a.right);
                self.expect(&a.right, &value, ty);
                if let Some(place) = place {
                    out.push(Stmt::Assign { place, op: None, value });
                }
            }
            SExpr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).unwrap_or(BinOp::Add);
                let (place, ty) = self.place(&b.left);
                let value = self.expr(&b.right);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let int = self.infer.fresh(VarKind::Int);
                    self.expect(&b.right, &value, int);
                } else {
                    self.expect(&b.right, &value, ty);
                }
                if let Some(place) = place {
                    out.push(Stmt::Assign {
                        place,
                        op: Some(op),
                        value,
                    });
                }
            }
            SExpr::If(i) => {
                let s = self.if_stmt(i);
                out.push(s);
            }
            SExpr::ForLoop(f) => self.for_loop(f, out),
            SExpr::While(w) => {
                if let Some(label) = &w.label {
                    self.errors.push(label_error(label.span()));
                }
                if let SExpr::Let(l) = &*w.cond {
                    self.errors.push(with_help_spanned(
                        l,
                        "`while let` is not supported in kernels",
                        "kernels have no Option values: use `while cond { ... }`, or `loop` with `if ... { break; }`",
                    ));
                    return;
                }
                // Evaluated before each iteration: nothing can be hoisted.
                let cond = self.lazily(|lw| lw.expr(&w.cond));
                self.expect(&w.cond, &cond, Ty::Scalar(Scalar::Bool));
                self.loop_depth += 1;
                let body = self.block(&w.body, false);
                self.loop_depth -= 1;
                out.push(Stmt::While { cond, body });
            }
            SExpr::Loop(l) => {
                if let Some(label) = &l.label {
                    self.errors.push(label_error(label.span()));
                }
                self.loop_depth += 1;
                let body = self.block(&l.body, false);
                self.loop_depth -= 1;
                out.push(Stmt::Loop { body });
            }
            SExpr::Break(b) => {
                // A label is reported at its loop (or by rustc, if no loop has it).
                if let Some(v) = &b.expr {
                    self.errors
                        .push(err(v.span(), "`break` with a value is not supported in kernels"));
                }
                if self.loop_depth == 0 {
                    self.errors.push(err(b.span(), "`break` outside a loop"));
                }
                out.push(Stmt::Break);
            }
            SExpr::Match(m) => self.match_stmt(m, out),
            SExpr::Continue(_) => {
                out.push(Stmt::Continue);
            }
            SExpr::Return(r) if self.ret.is_some() => self.return_value(r, out),
            SExpr::Return(r) => {
                if let Some(v) = &r.expr {
                    self.errors.push(with_help(
                        v.span(),
                        "a kernel cannot return a value",
                        "write the result into a `&mut [T]` parameter and use a plain `return;`",
                    ));
                }
                out.push(Stmt::Return);
            }
            SExpr::Block(b) if b.label.is_none() => {
                let blk = self.block(&b.block, false);
                out.push(Stmt::Block(blk));
            }
            SExpr::Call(call) if call_name(call).as_deref() == Some("syncthreads") => {
                if !call.args.is_empty() {
                    self.errors
                        .push(err(call.args.span(), "`syncthreads()` takes no arguments"));
                }
                self.uses_barrier = true;
                out.push(Stmt::SyncThreads);
            }
            SExpr::Call(call) if call_name(call).as_deref() == Some(WarpFn::SyncWarp.spec().name) => {
                let e = self.warp_call(e, call, WarpFn::SyncWarp);
                out.push(Stmt::Expr(e));
            }
            SExpr::Call(call) if super::atomics::fence_scope(call).is_some() => {
                if let Some(scope) = self.fence(call) {
                    out.push(Stmt::Fence(scope));
                }
            }
            _ => {
                let e = self.expr(e);
                out.push(Stmt::Expr(e));
            }
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Stmt {
        if let SExpr::Let(l) = &*i.cond {
            self.errors.push(with_help_spanned(
                l,
                "`if let` is not supported in kernels",
                "kernels have no Option values: use `if cond { ... }`",
            ));
        }
        let cond = self.expr(&i.cond);
        self.expect(&i.cond, &cond, Ty::Scalar(Scalar::Bool));
        let then = self.block(&i.then_branch, false);
        let els = i.else_branch.as_ref().map(|(_, e)| match strip(e) {
            // An `else if` condition runs only when the first one fails.
            SExpr::If(inner) => {
                let s = self.lazily(|lw| lw.if_stmt(inner));
                Block {
                    stmts: vec![s],
                    tail: None,
                }
            }
            SExpr::Block(b) => self.block(&b.block, false),
            other => {
                self.errors.push(err(other.span(), "unsupported `else` branch"));
                Block {
                    stmts: vec![],
                    tail: None,
                }
            }
        });
        Stmt::If { cond, then, els }
    }
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}
