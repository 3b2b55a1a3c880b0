//! Blocks and statements: `let` (names, tuples, shared arrays), assignments,
//! `if`, the loops, `break`/`continue`/`return` and `syncthreads()`.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat, Type};

use super::{
    call_name, err, heap_or, label_error, macro_error, scalar_of, strip, with_help, with_help_spanned, Binding, Lower,
};
use crate::infer::VarKind;
use crate::model::*;
use crate::names::{self, suffixed};

impl Lower {
    pub(super) fn block(&mut self, block: &syn::Block, value: bool) -> Block {
        crate::deep(|| self.block_at(block, value))
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

    fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        crate::deep(|| self.hoisting(out, |lw, out| lw.stmt_at(stmt, out)))
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

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let errors_before = self.errors.len();
        self.let_stmt_inner(local, out);
        if self.errors.len() > errors_before {
            // Later uses of what this `let` declares would only repeat the error.
            let mut names = Vec::new();
            pattern_names(&local.pat, &mut names);
            for n in names {
                self.bind(&n, Binding::Poisoned);
            }
        }
    }

    fn let_stmt_inner(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let init = match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.errors
                        .push(err(diverge.span(), "`let ... else` is not supported in kernels"));
                    return;
                }
                Some(&*init.expr)
            }
            None => None,
        };
        // Split `pat: Type`.
        let (pat, annotated) = match &local.pat {
            Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        // `let s = shared_array::<[[T; N]; M]>();`
        if let (Some(init), Pat::Ident(pi)) = (init, pat) {
            if let Some(turbofish) = shared_array_call(init) {
                self.shared_decl(&pi.ident, turbofish, init.span(), out);
                return;
            }
        }
        // `let a = [0.0f32; 8];`, `let w: [f32; 3] = [1.0, 2.0, 3.0];`
        if let Pat::Ident(pi) = pat {
            let array_value = init.is_some_and(|e| matches!(strip(e), SExpr::Repeat(_) | SExpr::Array(_)));
            if array_value || matches!(annotated, Some(Type::Array(_))) {
                match init {
                    Some(e) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                        self.local_array_decl(pi, annotated, e, out)
                    }
                    _ => self.errors.push(with_help(
                        pi.span(),
                        "a local array needs its value where it is declared",
                        "write `let mut a = [0.0f32; N];` (or list every element: `[a, b, c]`)",
                    )),
                }
                return;
            }
        }
        match pat {
            Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && init.is_some_and(|i| self.is_tuple_value(i)) =>
            {
                let Some(init) = init else { return };
                let n = match strip(init) {
                    SExpr::Tuple(t) => t.elems.len(),
                    other => self.tuple_local_of(other).map_or(0, |(_, len)| len),
                };
                let Some(parts) = self.tuple_parts(init, n) else { return };
                let first = self.locals.len();
                let mut locals = Vec::new();
                for (k, part) in parts.iter().enumerate() {
                    let name = self.fresh_name(&format!("{}_{k}", names::key(&pi.ident)));
                    self.locals.push(Local {
                        name,
                        ty: part.ty,
                        mutable: false,
                    });
                    locals.push(Some(first + k));
                }
                out.push(Stmt::LetTuple { locals, parts });
                self.bind(&names::key(&pi.ident), Binding::Tuple { first, len: n });
            }
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let declared = annotated.and_then(|t| self.local_type(t));
                if annotated.is_some() && declared.is_none() {
                    return; // the type was reported; its value would repeat it
                }
                let init = init.map(|e| self.expr(e));
                let ty = match (&init, declared) {
                    (Some(e), Some(d)) => {
                        self.unify_at(e.span, Ty::Scalar(d), e.ty);
                        Ty::Scalar(d)
                    }
                    (Some(e), None) => e.ty,
                    (None, Some(d)) => Ty::Scalar(d),
                    (None, None) => self.infer.fresh(VarKind::Any),
                };
                // `let x;` is assigned later (rustc checks it is assigned once).
                let local = self.new_local(&pi.ident, ty, pi.mutability.is_some() || init.is_none());
                out.push(Stmt::Let { local, init });
            }
            Pat::Wild(_) => {
                if let Some(e) = init {
                    let e = self.expr(e);
                    out.push(Stmt::Expr(e));
                }
            }
            Pat::Tuple(tuple) => {
                let Some(init) = init else {
                    self.errors.push(err(tuple.span(), "a tuple `let` needs a value"));
                    return;
                };
                let parts = match self.device_tuple(init, tuple.elems.len(), out) {
                    Some(parts) => Some(parts),
                    None => self.tuple_parts(init, tuple.elems.len()),
                };
                let Some(parts) = parts else { return };
                let mut locals = Vec::new();
                for (p, part) in tuple.elems.iter().zip(&parts) {
                    match p {
                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            locals.push(Some(self.new_local(&pi.ident, part.ty, pi.mutability.is_some())))
                        }
                        Pat::Wild(_) => locals.push(None),
                        other => {
                            self.errors.push(err(
                                other.span(),
                                "only names and `_` are supported inside a tuple pattern",
                            ));
                            locals.push(None);
                        }
                    }
                }
                out.push(Stmt::LetTuple { locals, parts });
            }
            other => self.errors.push(err(
                other.span(),
                "unsupported pattern: write `let name = ...` or `let (a, b) = ...`",
            )),
        }
    }

    /// Whether `init` is a tuple kept as one local per component: a tuple
    /// literal of 2 to 4 values, or another such local.
    fn is_tuple_value(&self, init: &SExpr) -> bool {
        match strip(init) {
            SExpr::Tuple(t) => (2..=4).contains(&t.elems.len()),
            other => self.tuple_local_of(other).is_some(),
        }
    }

    /// The components of tuple local `e` (a name bound by `let t = (a, b);`).
    pub(super) fn tuple_local_of(&self, e: &SExpr) -> Option<(LocalId, usize)> {
        let SExpr::Path(p) = strip(e) else { return None };
        match self.lookup(&names::key(p.path.get_ident()?))? {
            Binding::Tuple { first, len } => Some((first, len)),
            _ => None,
        }
    }

    /// A read of local `id`.
    pub(super) fn local_expr(&self, id: LocalId, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Local(id),
            ty: self.locals[id].ty,
            span,
        }
    }

    /// The components of a tuple-valued expression: `grid(2)`, `gridsize(3)`,
    /// `a.dim()`, a tuple literal or a tuple local.
    fn tuple_parts(&mut self, init: &SExpr, n: usize) -> Option<Vec<Expr>> {
        let span = init.span();
        let usize_expr = |kind: ExprKind| Expr {
            kind,
            ty: Ty::Scalar(Scalar::Usize),
            span,
        };
        match strip(init) {
            SExpr::Call(call) => {
                let name = call_name(call)?;
                if name == "grid" || name == "gridsize" {
                    let ndim = self.grid_arg(call)?;
                    if ndim != n {
                        self.errors.push(err(
                            span,
                            format!("`{name}({ndim})` has {ndim} components but the pattern has {n}"),
                        ));
                        return None;
                    }
                    return Some(
                        Axis::all(ndim)
                            .iter()
                            .map(|&a| {
                                usize_expr(if name == "grid" {
                                    ExprKind::Grid(a)
                                } else {
                                    ExprKind::GridSize(a)
                                })
                            })
                            .collect(),
                    );
                }
                self.errors.push(err(
                    span,
                    "only `grid(n)`, `gridsize(n)`, `a.dim()` and tuple literals can be destructured",
                ));
                None
            }
            SExpr::MethodCall(mc) if mc.method == "dim" && mc.args.is_empty() => {
                let p = self.array_param_of(&mc.receiver)?;
                let ndim = match self.params[p].kind {
                    ParamKind::Array { ndim, .. } => ndim,
                    ParamKind::Scalar(_) => 0,
                };
                if ndim != n {
                    self.errors.push(err(
                        span,
                        format!("`dim()` of a {ndim}-D array has {ndim} components but the pattern has {n}"),
                    ));
                    return None;
                }
                Some((0..ndim).map(|k| usize_expr(ExprKind::Dim(p, k))).collect())
            }
            SExpr::Tuple(t) if t.elems.len() == n => Some(t.elems.iter().map(|e| self.expr(e)).collect()),
            other if self.tuple_local_of(other).is_some_and(|(_, len)| len == n) => {
                let (first, _) = self.tuple_local_of(other)?;
                Some((first..first + n).map(|id| self.local_expr(id, span)).collect())
            }
            _ => {
                self.errors.push(err(
                    span,
                    "only `grid(n)`, `gridsize(n)`, `a.dim()` and tuple literals can be destructured",
                ));
                None
            }
        }
    }

    fn local_type(&mut self, ty: &Type) -> Option<Scalar> {
        match scalar_of(ty) {
            Some(s) => Some(s),
            None => {
                self.errors.push(heap_or(
                    ty,
                    "locals are scalars (i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64 bool) or arrays of them (`[0.0f32; N]`)",
                ));
                None
            }
        }
    }

    pub(super) fn expr_stmt(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        crate::deep(|| self.hoisting(out, |lw, out| lw.expr_stmt_at(e, out)))
    }

    fn expr_stmt_at(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        match strip(e) {
            SExpr::Assign(a) => {
                let (place, ty) = self.place(&a.left);
                if place.is_none() && self.is_poisoned(&a.left) {
                    return; // its declaration was reported; `x = [..]` would repeat it
                }
                let value = self.expr(&a.right);
                self.unify_at(a.right.span(), ty, value.ty);
                if let Some(place) = place {
                    out.push(Stmt::Assign { place, op: None, value });
                }
            }
            SExpr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).unwrap_or(BinOp::Add);
                let (place, ty) = self.place(&b.left);
                let value = self.expr(&b.right);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let _ = self.infer.require_kind(value.ty, VarKind::Int);
                } else {
                    self.unify_at(b.right.span(), ty, value.ty);
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
                self.unify_at(cond.span, cond.ty, Ty::Scalar(Scalar::Bool));
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
        self.unify_at(cond.span, cond.ty, Ty::Scalar(Scalar::Bool));
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

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        if let Some(label) = &f.label {
            self.errors.push(label_error(label.span()));
        }
        if let SExpr::MethodCall(mc) = strip(&f.expr) {
            if mc.method == "rev"
                && matches!(strip(&mc.receiver), SExpr::MethodCall(inner) if inner.method == "step_by")
            {
                self.errors.push(with_help(
                    mc.method.span(),
                    "`.step_by(s).rev()` is not supported in kernels",
                    "write `(a..b).rev().step_by(s)` (it counts down from the last element of `a..b`, not of the stepped range)",
                ));
                return;
            }
        }
        let Some((r, step_arg, rev)) = loop_range(&f.expr) else {
            self.errors.push(with_help_spanned(
                &f.expr,
                "kernels can only loop over integer ranges",
                "write `for i in a..b`, `a..=b`, `(a..b).step_by(s)`, `(a..b).rev()` or `(a..b).rev().step_by(s)`",
            ));
            return;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors
                .push(err(r.span(), "a kernel loop range needs both ends (`a..b`)"));
            return;
        };
        let start = self.expr(start);
        let end = self.expr(end);
        self.unify_at(end.span, start.ty, end.ty);
        // Rust evaluates the range before the step.
        let step = step_arg.map(|a| {
            let step = self.expr(a);
            self.unify_at(step.span, step.ty, Ty::Scalar(Scalar::Usize));
            step
        });
        if let Err(m) = self.infer.require_kind(start.ty, VarKind::Int) {
            self.errors.push(err(start.span, m));
        }
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        self.scopes.push(HashMap::new());
        let var = match &*f.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() => {
                self.new_local(&pi.ident, start.ty, false)
            }
            Pat::Wild(_) => {
                let id = syn::Ident::new("iteration", Span::call_site());
                self.new_local(&id, start.ty, false)
            }
            other => {
                self.errors
                    .push(err(other.span(), "the loop variable must be a plain name"));
                self.scopes.pop();
                return;
            }
        };
        let var_name = self.locals[var].name.clone();
        let aux = ["end", "step", "done"].map(|what| self.fresh_name(&suffixed(&var_name, what)));
        self.loop_depth += 1;
        let body = self.block(&f.body, false);
        self.loop_depth -= 1;
        self.scopes.pop();
        out.push(Stmt::For {
            var,
            start,
            end,
            inclusive,
            step,
            rev,
            body,
            aux,
        });
    }
}

/// A `for` loop's range, its `step_by` argument and whether it runs in
/// reverse: `a..b`, `(a..b).step_by(s)`, `(a..b).rev()`,
/// `(a..b).rev().step_by(s)` (and `..=`).
fn loop_range(e: &SExpr) -> Option<(&syn::ExprRange, Option<&SExpr>, bool)> {
    let (inner, step) = match strip(e) {
        SExpr::MethodCall(mc) if mc.method == "step_by" && mc.args.len() == 1 => {
            (strip(&mc.receiver), Some(&mc.args[0]))
        }
        other => (other, None),
    };
    let (range, rev) = match inner {
        SExpr::MethodCall(mc) if mc.method == "rev" && mc.args.is_empty() => (strip(&mc.receiver), true),
        other => (other, false),
    };
    match range {
        SExpr::Range(r) => Some((r, step, rev)),
        _ => None,
    }
}

/// The names a `let` pattern binds.
fn pattern_names(p: &Pat, out: &mut Vec<String>) {
    crate::deep(|| pattern_names_at(p, out))
}

fn pattern_names_at(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(pi) => out.push(names::key(&pi.ident)),
        Pat::Type(pt) => pattern_names(&pt.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pattern_names(e, out)),
        _ => {}
    }
}

/// `shared_array::<T>()` → `T`.
fn shared_array_call(e: &SExpr) -> Option<&Type> {
    let SExpr::Call(call) = strip(e) else { return None };
    let SExpr::Path(p) = strip(&call.func) else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "shared_array" || !call.args.is_empty() {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
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
