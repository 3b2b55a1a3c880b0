//! Device functions: the signature and body of a `#[gpu_device]` function,
//! and calls to one from a kernel or another device function (see
//! `crate::device` for the design).

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Type};

use super::{call_name, err, path_text, scalar_of, strip, with_help, Binding, Lower};
use crate::model::*;

/// Lowers a `#[gpu_device]` function, or returns every error found.
pub fn lower_device(item: &syn::ItemFn) -> Result<Kernel, syn::Error> {
    let mut lw = Lower::new(item);
    lw.device_signature(&item.sig);
    if !lw.errors.is_empty() && matches!(item.sig.output, syn::ReturnType::Type(..)) && lw.ret == Some(RetTy::Unit) {
        // The return type was refused: the body's `return`s would only repeat it.
        return lw.finish(
            item,
            Block {
                stmts: Vec::new(),
                tail: None,
            },
        );
    }
    let mut body = (*item.block).clone();
    if lw.ret != Some(RetTy::Unit) {
        returnify(&mut body);
    }
    let body = lw.block(&body, false);
    if let Some(sh) = lw.shared.first() {
        lw.errors.push(with_help(
            item.sig.ident.span(),
            &format!("shared array `{}` declared in a device function", sh.label),
            "declare shared arrays in the kernel; device functions take global arrays and scalars",
        ));
    }
    lw.finish(item, body)
}

/// Turns the value a block ends with into `return value;`, also inside a
/// tail `if`/`else` or block, so that each branch may hold statements.
fn returnify(b: &mut syn::Block) {
    let Some(syn::Stmt::Expr(e, None)) = b.stmts.last_mut() else {
        return;
    };
    match e {
        SExpr::If(i) if i.else_branch.is_some() => tail_if(i),
        SExpr::Block(blk) if blk.label.is_none() => returnify(&mut blk.block),
        // A tail loop is a statement: a value-returning function leaves it
        // by `return` only (or rustc reports the loop's `()`).
        SExpr::Return(_) | SExpr::Loop(_) | SExpr::While(_) | SExpr::ForLoop(_) => {}
        other => {
            let span = other.span();
            let value = std::mem::replace(other, SExpr::Verbatim(Default::default()));
            *b.stmts.last_mut().expect("checked above") = syn::Stmt::Expr(
                SExpr::Return(syn::ExprReturn {
                    attrs: Vec::new(),
                    return_token: syn::token::Return(span),
                    expr: Some(Box::new(value)),
                }),
                Some(syn::token::Semi(span)),
            );
        }
    }
}

fn tail_if(i: &mut syn::ExprIf) {
    returnify(&mut i.then_branch);
    if let Some((_, els)) = &mut i.else_branch {
        match &mut **els {
            SExpr::Block(b) => returnify(&mut b.block),
            SExpr::If(inner) => tail_if(inner),
            _ => {}
        }
    }
}

impl Lower {
    fn device_signature(&mut self, sig: &syn::Signature) {
        self.ret = Some(RetTy::Unit);
        let what = "a device function";
        if let Some(u) = &sig.unsafety {
            self.errors.push(with_help(
                u.span(),
                &format!("{what} cannot be `unsafe`"),
                "remove `unsafe`: gpujit checks every access",
            ));
        }
        if let Some(a) = &sig.asyncness {
            self.errors.push(err(a.span(), format!("{what} cannot be `async`")));
        }
        if let Some(c) = &sig.constness {
            self.errors.push(err(c.span(), format!("{what} cannot be `const fn`")));
        }
        if !sig.generics.params.is_empty() {
            self.errors.push(with_help(
                sig.generics.span(),
                "generic device functions are not supported yet",
                "write the function for concrete types (f32, f64, ...)",
            ));
        }
        if let Some(v) = &sig.variadic {
            self.errors.push(err(v.span(), format!("{what} cannot be variadic")));
        }
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => self.errors.push(err(r.span(), format!("{what} cannot take `self`"))),
                syn::FnArg::Typed(pt) => {
                    if !self.tuple_param(pt) {
                        self.param(pt)
                    }
                }
            }
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            if let Some(r) = self.ret_type(ty) {
                self.ret = Some(r);
            }
        }
    }

    fn ret_type(&mut self, ty: &Type) -> Option<RetTy> {
        const HELP: &str = "device functions return nothing, a scalar (i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64 bool) or a tuple of 2 to 4 scalars";
        if let Some(s) = scalar_of(ty) {
            return Some(RetTy::Scalar(s));
        }
        match ty {
            Type::Tuple(t) if t.elems.is_empty() => Some(RetTy::Unit),
            Type::Tuple(t) if (2..=4).contains(&t.elems.len()) => {
                let parts: Option<Vec<Scalar>> = t.elems.iter().map(scalar_of).collect();
                match parts {
                    Some(p) => Some(RetTy::Tuple(p)),
                    None => {
                        self.errors
                            .push(with_help(ty.span(), "a returned tuple holds scalars only", HELP));
                        None
                    }
                }
            }
            Type::Reference(r) => {
                self.errors.push(with_help(
                    r.span(),
                    "a device function cannot return a reference",
                    "return the value itself (scalars and tuples are copied), or write the result into a `&mut [T]` parameter",
                ));
                None
            }
            Type::Paren(p) => self.ret_type(&p.elem),
            _ => {
                self.errors.push(with_help(ty.span(), "unsupported return type", HELP));
                None
            }
        }
    }

    /// `return v;` (or the tail value) in a device function.
    pub(super) fn return_value(&mut self, r: &syn::ExprReturn, out: &mut Vec<Stmt>) {
        let ret = self.ret.clone().unwrap_or(RetTy::Unit);
        let Some(v) = &r.expr else {
            // A missing value where one is due is rustc's error to report.
            out.push(Stmt::Return);
            return;
        };
        match (strip(v), &ret) {
            (_, RetTy::Unit) => {
                let e = self.expr(v);
                out.push(Stmt::Expr(e));
                out.push(Stmt::Return);
            }
            (SExpr::Tuple(t), RetTy::Tuple(types)) if t.elems.len() == types.len() => {
                let parts: Vec<Expr> = t
                    .elems
                    .iter()
                    .zip(types)
                    .map(|(x, s)| {
                        let e = self.expr(x);
                        self.unify_at(e.span, e.ty, Ty::Scalar(*s));
                        e
                    })
                    .collect();
                out.push(Stmt::ReturnValue(Expr {
                    kind: ExprKind::Tuple(parts),
                    ty: Ty::Opaque(None),
                    span: v.span(),
                }));
            }
            (_, RetTy::Scalar(s)) => {
                let e = self.expr(v);
                self.unify_at(e.span, e.ty, Ty::Scalar(*s));
                out.push(Stmt::ReturnValue(e));
            }
            // Another device function's tuple, passed on.
            (_, RetTy::Tuple(_)) => {
                let e = self.expr(v);
                out.push(Stmt::ReturnValue(e));
            }
        }
    }

    /// A call of a function that is no intrinsic: a device function's
    /// (rustc checks that it is one: its machinery module must exist).
    /// `None` where it cannot be one (`Vec::new()`, `f::<T>()`).
    pub(super) fn device_call(&mut self, call: &syn::ExprCall) -> Option<Expr> {
        let span = call.span();
        let SExpr::Path(p) = strip(&call.func) else {
            return None;
        };
        let first = p.path.segments.first()?.ident.to_string();
        if p.qself.is_some()
            || p.path.segments.iter().any(|s| !s.arguments.is_none())
            || ["Vec", "String", "Box"].iter().any(|h| first.starts_with(h))
        {
            return None;
        }
        let label = path_text(&p.path);
        if self.ret.is_none() && p.path.segments.len() == 1 && label == self.self_name {
            self.errors.push(with_help(
                call.func.span(),
                &format!("kernel `{label}` calls itself"),
                "only device functions may recurse: move the recursive part into a `#[gpu_device]` function and call that",
            ));
            return Some(self.silent_expr(span));
        }
        let k = match self.callees.iter().position(|c| c.label == label) {
            Some(k) => k,
            None => {
                self.callees.push(Callee {
                    path: p.path.to_token_stream(),
                    label,
                });
                self.callees.len() - 1
            }
        };
        let mut args = Vec::new();
        for a in &call.args {
            if let Some(arg) = self.array_arg(a) {
                args.push(arg);
                continue;
            }
            // A tuple (literal or local) is passed as its components, one
            // parameter each, as the callee declares them (`tuple_param`).
            let parts = match strip(a) {
                SExpr::Tuple(t) if (2..=4).contains(&t.elems.len()) => t.elems.iter().map(|e| self.expr(e)).collect(),
                other => match self.tuple_local_of(other) {
                    Some((first, n)) => (first..first + n).map(|id| self.local_expr(id, a.span())).collect(),
                    None => vec![self.expr(a)],
                },
            };
            for x in parts {
                let want = self.infer.fresh_opaque(Ty::Callee(k, CalleeTy::Arg(args.len())));
                self.unify_at(x.span, x.ty, want);
                args.push(x);
            }
        }
        let ty = self.infer.fresh_opaque(Ty::Callee(k, CalleeTy::Ret));
        Some(Expr {
            kind: ExprKind::Call(k, args),
            ty,
            span,
        })
    }

    /// An array passed whole to a device function.
    fn array_arg(&mut self, a: &SExpr) -> Option<Expr> {
        // `f(&w)` with `w` a local array: refused below, as `f(w)`.
        let named = match strip(a) {
            SExpr::Reference(r) => &*r.expr,
            other => other,
        };
        if let SExpr::Path(p) = strip(named) {
            if let Some(ident) = p.path.get_ident() {
                if let Some(Binding::LocalArray(_)) = self.lookup(&crate::names::key(ident)) {
                    return Some(self.error_expr(with_help(
                        a.span(),
                        &format!("local array `{ident}` cannot be passed to a device function yet"),
                        "pass the elements it needs (`f(a[0], a[1])`), or declare the array in the device function",
                    )));
                }
            }
        }
        let SExpr::Path(p) = strip(a) else { return None };
        let ident = p.path.get_ident()?;
        let kind = match self.lookup(&crate::names::key(ident))? {
            Binding::Array(i) => ExprKind::ArrayArg(i),
            Binding::Shared(_) => {
                return Some(self.error_expr(with_help(
                    a.span(),
                    &format!("shared array `{ident}` cannot be passed to a device function yet"),
                    "pass the values it needs, or do this part of the work in the kernel",
                )))
            }
            _ => return None,
        };
        Some(Expr {
            kind,
            ty: Ty::Opaque(None),
            span: a.span(),
        })
    }

    /// `p: (f32, u32)`: one scalar parameter per component (callers pass the
    /// components, see `call_args`), read in the body as a tuple local.
    /// `false` for any other parameter.
    fn tuple_param(&mut self, pt: &syn::PatType) -> bool {
        let (Type::Tuple(t), syn::Pat::Ident(pi)) = (&*pt.ty, &*pt.pat) else {
            return false;
        };
        let scalars: Option<Vec<Scalar>> = t.elems.iter().map(scalar_of).collect();
        let Some(scalars) = scalars.filter(|s| (2..=4).contains(&s.len())) else {
            return false;
        };
        let key = crate::names::key(&pi.ident);
        let first = self.locals.len();
        for (k, &s) in scalars.iter().enumerate() {
            let name = self.fresh_name(&format!("{key}_{k}"));
            self.locals.push(Local {
                name: name.clone(),
                ty: Ty::Scalar(s),
                mutable: false,
            });
            self.params.push(Param {
                name,
                label: format!("{key}.{k}"),
                kind: ParamKind::Scalar(s),
                dims: Vec::new(),
            });
        }
        self.bind(
            &key,
            Binding::Tuple {
                first,
                len: scalars.len(),
            },
        );
        true
    }

    /// `let (a, b) = f(x);` with `f` a device function returning a tuple:
    /// the call into a hidden local, then its components.
    pub(super) fn device_tuple(&mut self, init: &SExpr, n: usize, out: &mut Vec<Stmt>) -> Option<Vec<Expr>> {
        let SExpr::Call(call) = strip(init) else { return None };
        if matches!(call_name(call).as_deref(), Some("grid" | "gridsize")) {
            return None;
        }
        let e = self.device_call(call)?;
        let ExprKind::Call(k, _) = e.kind else {
            return Some(Vec::new()); // an error was reported
        };
        let name = self.fresh_name("tuple");
        let ty = self.infer.fresh_opaque(Ty::Callee(k, CalleeTy::Ret));
        self.unify_at(e.span, e.ty, ty);
        self.locals.push(Local {
            name,
            ty,
            mutable: false,
        });
        let tmp = self.locals.len() - 1;
        out.push(Stmt::Let {
            local: tmp,
            init: Some(e),
        });
        let parts = (0..n)
            .map(|i| Expr {
                kind: ExprKind::TupleField(
                    Box::new(Expr {
                        kind: ExprKind::Local(tmp),
                        ty,
                        span: Span::call_site(),
                    }),
                    i,
                ),
                ty: self.infer.fresh_opaque(Ty::Callee(k, CalleeTy::RetField(i))),
                span: init.span(),
            })
            .collect();
        Some(parts)
    }
}
