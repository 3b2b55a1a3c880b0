//! `let` statements: names, tuples kept as one local per component
//! (`let (x, y) = grid(2)`), typed locals, local arrays and shared arrays.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat, Type};

use crate::infer::VarKind;
use crate::lower::{call_name, err, heap_or, scalar_of, strip, with_help, Binding, Lower};
use crate::model::*;
use crate::names;

impl Lower {
    pub(super) fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
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
                let init_node = init;
                let init = init.map(|e| self.expr(e));
                let ty = match (&init, declared) {
                    (Some(e), Some(d)) => {
                        if let Some(node) = init_node {
                            self.expect(node, e, Ty::Scalar(d));
                        }
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
                let n = tuple.elems.len();
                let parts = match self.match_all_tuple(init, n, out) {
                    Some(parts) => Some(parts),
                    None => match self.device_tuple(init, n, out) {
                        Some(parts) => Some(parts),
                        None => self.tuple_parts(init, n),
                    },
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
    pub(in crate::lower) fn tuple_local_of(&self, e: &SExpr) -> Option<(LocalId, usize)> {
        let SExpr::Path(p) = strip(e) else { return None };
        match self.lookup(&names::key(p.path.get_ident()?))? {
            Binding::Tuple { first, len } => Some((first, len)),
            _ => None,
        }
    }

    /// A read of local `id`.
    pub(in crate::lower) fn local_expr(&self, id: LocalId, span: Span) -> Expr {
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
            // `let (s, carry) = a.overflowing_add(b);`: the method's own error.
            SExpr::MethodCall(mc) if crate::lower::math::is_refused(&mc.method.to_string()) => {
                self.errors.push(crate::lower::math::unknown_method(
                    mc.method.span(),
                    &mc.method.to_string(),
                ));
                None
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
}

/// The names a `let` pattern binds.
fn pattern_names(p: &Pat, out: &mut Vec<String>) {
    crate::stack::deep(|| pattern_names_at(p, out))
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
