//! Intrinsic calls: `grid(n)`, `gridsize(n)`, the index triples and their
//! fields, array sizes, and the math methods.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::math::{unknown_method, MathCall};
use super::{call_name, err, strip, with_help, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;

fn unknown_fn(span: Span, name: &str) -> syn::Error {
    let heap = ["Vec", "String", "Box"].iter().find(|h| name.starts_with(*h));
    match heap {
        Some(h) => with_help(
            span,
            &format!("`{h}` cannot be used in a kernel: there is no heap on the device"),
            "use a `&mut [T]` parameter for output or `shared_array::<[T; N]>()` for block-wide scratch space",
        ),
        None => with_help(
            span,
            &format!("unknown function `{name}` in a kernel"),
            &format!(
                "kernels can call the intrinsics {}, and functions marked `#[gpu_device]`",
                intrinsics_list()
            ),
        ),
    }
}

impl Lower {
    pub(super) fn grid_arg(&mut self, call: &syn::ExprCall) -> Option<usize> {
        let name = call_name(call).unwrap_or_default();
        let lit = match call.args.iter().collect::<Vec<_>>().as_slice() {
            [a] => match strip(a) {
                SExpr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i), ..
                }) => i.base10_parse::<usize>().ok(),
                _ => None,
            },
            _ => None,
        };
        match lit {
            Some(n @ 1..=3) => Some(n),
            Some(n) => {
                self.errors.push(with_help(
                    call.span(),
                    &format!("`{name}({n})`: a grid has 1, 2 or 3 dimensions"),
                    &format!("write `{name}(1)`, `{name}(2)` or `{name}(3)`"),
                ));
                None
            }
            None => {
                self.errors.push(with_help(
                    call.args.span(),
                    &format!("the argument of `{name}` must be the literal 1, 2 or 3"),
                    "the number of dimensions decides the result type, so it must be known when the kernel is compiled",
                ));
                None
            }
        }
    }

    /// A call `call` (the expression `node`).
    pub(super) fn call(&mut self, node: &SExpr, call: &syn::ExprCall) -> Expr {
        let span = call.span();
        if self.is_poisoned(&call.func)
            || call_name(call).is_some_and(|n| matches!(self.lookup(&n), Some(Binding::Poisoned)))
        {
            return self.silent_expr(span);
        }
        if let Some(e) = self.scalar_fn_call(call) {
            return e;
        }
        let Some(name) = call_name(call) else {
            if let Some(e) = self.device_call(call) {
                return e;
            }
            let shown = call.func.to_token_stream().to_string().replace(' ', "");
            return self.error_expr(unknown_fn(call.func.span(), &shown));
        };
        let builtin = match name.as_str() {
            "thread_idx" => Some(Builtin::ThreadIdx),
            "block_idx" => Some(Builtin::BlockIdx),
            "block_dim" => Some(Builtin::BlockDim),
            "grid_dim" => Some(Builtin::GridDim),
            _ => None,
        };
        if let Some(v) = ValueIntrinsic::from_name(&name) {
            if !call.args.is_empty() {
                return self.error_expr(err(call.args.span(), format!("`{name}()` takes no arguments")));
            }
            return Expr {
                kind: ExprKind::Intrinsic(v),
                ty: Ty::Scalar(v.spec().ty),
                span,
            };
        }
        if let Some(c) = Collective::from_name(&name) {
            return self.collective_call(node, call, c);
        }
        if let Some(f) = WarpFn::from_name(&name) {
            if f == WarpFn::SyncWarp {
                self.stand_ins.push(node, quote::quote_spanned!(span=> ()));
                return self.error_expr(with_help(
                    span,
                    "`syncwarp(mask)` is a statement, not a value",
                    "call it on its own: `syncwarp(mask);`",
                ));
            }
            if f == WarpFn::MatchAll {
                self.stand_ins.push(node, quote::quote_spanned!(span=> (0u32, false)));
                return self.error_expr(with_help(
                    span,
                    "`match_all_sync(mask, value)` gives two values, the mask and whether every lane's value is the same",
                    "bind them with a tuple `let`: `let (m, all) = match_all_sync(mask, value);`",
                ));
            }
            return self.warp_call(node, call, f);
        }
        if let Some(b) = builtin {
            if !call.args.is_empty() {
                return self.error_expr(err(call.args.span(), format!("`{name}()` takes no arguments")));
            }
            return Expr {
                kind: ExprKind::Builtin(b),
                ty: Ty::Idx3,
                span,
            };
        }
        match name.as_str() {
            "grid" | "gridsize" => {
                let Some(n) = self.grid_arg(call) else {
                    return Expr {
                        kind: ExprKind::Lit(Lit::Bool(false)),
                        ty: self.infer.fresh(VarKind::Any),
                        span,
                    };
                };
                if n != 1 {
                    return self.error_expr(with_help(
                        span,
                        &format!("`{name}({n})` is a tuple"),
                        &format!(
                            "destructure it: `let (x, y{}) = {name}({n});`",
                            if n == 3 { ", z" } else { "" }
                        ),
                    ));
                }
                let kind = if name == "grid" {
                    ExprKind::Grid(Axis::X)
                } else {
                    ExprKind::GridSize(Axis::X)
                };
                Expr {
                    kind,
                    ty: Ty::Scalar(Scalar::Usize),
                    span,
                }
            }
            "syncthreads" => self.error_expr(err(span, "`syncthreads()` is a statement: write `syncthreads();`")),
            "syncthreads_count" | "syncthreads_and" | "syncthreads_or" => {
                let vote = Vote::from_name(&name).unwrap_or(Vote::Or);
                let [pred] = call.args.iter().collect::<Vec<_>>()[..] else {
                    return self.error_expr(with_help(
                        call.args.span(),
                        &format!("`{name}` takes one argument, the thread's predicate"),
                        &format!("write `{name}(value > 0.0)`"),
                    ));
                };
                let pred = self.expr(pred);
                self.unify_at(pred.span, pred.ty, Ty::Scalar(Scalar::Bool));
                self.uses_barrier = true;
                let ty = match vote {
                    Vote::Count => Ty::Scalar(Scalar::U32),
                    Vote::And | Vote::Or => Ty::Scalar(Scalar::Bool),
                };
                Expr {
                    kind: ExprKind::Vote(vote, Box::new(pred)),
                    ty,
                    span,
                }
            }
            "threadfence" | "threadfence_block" | "threadfence_system" => self.error_expr(with_help(
                span,
                &format!("`{name}()` is a statement, not a value"),
                &format!("a fence has no result: call it on its own, `{name}();`"),
            )),
            atomic if atomic.starts_with("atomic_") => self.atomic(call, atomic),
            "shared_array" => self.error_expr(with_help(
                span,
                "`shared_array` declares a variable",
                "write `let tile = shared_array::<[[f32; TILE]; TILE]>();`",
            )),
            other => match self.device_call(call) {
                Some(e) => e,
                None => self.error_expr(unknown_fn(call.func.span(), other)),
            },
        }
    }

    pub(super) fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        let span = mc.span();
        let method = mc.method.to_string();
        if self.is_poisoned(&mc.receiver) {
            return self.silent_expr(span);
        }
        if method == "len" && mc.args.is_empty() {
            if let Some(e) = self.local_array_len(&mc.receiver) {
                return e;
            }
        }
        if method == "len" || method == "dim" {
            if let Some(p) = self.array_param_of(&mc.receiver) {
                let ndim = match self.params[p].kind {
                    ParamKind::Array { ndim, .. } => ndim,
                    ParamKind::Scalar(_) => 0,
                };
                let kind = match (method.as_str(), ndim) {
                    ("len", _) => ExprKind::Len(p),
                    ("dim", 1) => ExprKind::Dim(p, 0),
                    _ => {
                        return self.error_expr(with_help(
                            span,
                            "`dim()` of a multi-dimensional array is a tuple",
                            "destructure it: `let (rows, cols) = a.dim();`, or use `a.shape()[k]`",
                        ))
                    }
                };
                return Expr {
                    kind,
                    ty: Ty::Scalar(Scalar::Usize),
                    span,
                };
            }
            return Expr {
                kind: ExprKind::Lit(Lit::Bool(false)),
                ty: self.infer.fresh(VarKind::Any),
                span,
            };
        }
        if method == "unwrap" || method == "expect" {
            return self.error_expr(with_help(
                mc.method.span(),
                &format!("`{method}` can panic, and kernels cannot panic"),
                "kernels have no Option or Result values; check the condition with `if` instead",
            ));
        }
        if !Self::is_math_name(&method) {
            // Report the innermost unknown call of a chain (`x.iter().sum()`: `iter`).
            let before = self.errors.len();
            if !self.is_poisoned(&mc.receiver) && matches!(strip(&mc.receiver), SExpr::MethodCall(_) | SExpr::Call(_)) {
                let _ = self.expr(&mc.receiver);
            }
            if self.errors.len() > before || self.is_poisoned(&mc.receiver) {
                return self.silent_expr(span);
            }
            return self.error_expr(unknown_method(mc.method.span(), &method));
        }
        let recv = self.expr(&mc.receiver);
        self.math_call(MathCall {
            name: &method,
            recv_node: &mc.receiver,
            name_span: mc.method.span(),
            span,
            recv,
            args: mc.args.iter().collect(),
        })
    }

    pub(super) fn field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.span();
        let usize_ty = Ty::Scalar(Scalar::Usize);
        match &f.member {
            syn::Member::Named(id) => {
                let axis = match id.to_string().as_str() {
                    "x" => Axis::X,
                    "y" => Axis::Y,
                    "z" => Axis::Z,
                    other => {
                        return self.error_expr(err(
                            id.span(),
                            format!("unknown field `{other}`: index triples have `.x .y .z`"),
                        ))
                    }
                };
                let errors_before = self.errors.len();
                let base = self.expr(&f.base);
                if self.errors.len() > errors_before {
                    return self.silent_expr(span); // `.x` of a reported mistake
                }
                if let ExprKind::Builtin(b) = base.kind {
                    return Expr {
                        kind: ExprKind::BuiltinAxis(b, axis),
                        ty: usize_ty,
                        span,
                    };
                }
                if self.infer.shallow(base.ty) != Ty::Idx3 {
                    return self.error_expr(err(
                        span,
                        "`.x .y .z` apply to `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()`",
                    ));
                }
                Expr {
                    kind: ExprKind::Idx3Field(Box::new(base), axis),
                    ty: usize_ty,
                    span,
                }
            }
            syn::Member::Unnamed(i) => {
                // `grid(2).0`, `a.dim().1`
                let k = i.index as usize;
                match strip(&f.base) {
                    SExpr::Call(call) if matches!(call_name(call).as_deref(), Some("grid" | "gridsize")) => {
                        let Some(n) = self.grid_arg(call) else {
                            return self.error_expr(err(span, "invalid grid call"));
                        };
                        if k >= n {
                            return self.error_expr(err(i.span, format!("`.{k}` is out of range for a {n}-tuple")));
                        }
                        let axis = Axis::all(3)[k];
                        let kind = if call_name(call).as_deref() == Some("grid") {
                            ExprKind::Grid(axis)
                        } else {
                            ExprKind::GridSize(axis)
                        };
                        Expr {
                            kind,
                            ty: usize_ty,
                            span,
                        }
                    }
                    base if self.tuple_local_of(base).is_some() => {
                        let (first, n) = self.tuple_local_of(base).unwrap_or_default();
                        if k >= n {
                            return self.error_expr(err(i.span, format!("`.{k}` is out of range for a {n}-tuple")));
                        }
                        self.local_expr(first + k, span)
                    }
                    SExpr::MethodCall(mc) if mc.method == "dim" => {
                        let Some(p) = self.array_param_of(&mc.receiver) else {
                            return self.error_expr(err(span, "expected an array"));
                        };
                        Expr {
                            kind: ExprKind::Dim(p, k),
                            ty: usize_ty,
                            span,
                        }
                    }
                    _ => self.error_expr(err(
                        span,
                        "tuple fields are only supported on tuple locals (`let t = (a, b);`), `grid(n)`, `gridsize(n)` and `a.dim()`",
                    )),
                }
            }
        }
    }
}
