//! The numeric methods: `f32`/`f64` math and integer methods, in method form
//! (`x.tanh()`) and call form (`f32::tanh(x)`), with their argument types,
//! and the "did you mean" for a method the kernel language lacks.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{err, with_help, Lower};
use crate::infer::VarKind;
use crate::model::*;

/// A numeric method's receiver (already lowered) and its other arguments.
pub(super) struct MathCall<'a> {
    pub name: &'a str,
    /// The method name's span (for "unknown method").
    pub name_span: Span,
    /// The whole call.
    pub span: Span,
    pub recv: Expr,
    pub args: Vec<&'a SExpr>,
}

impl Lower {
    /// Whether `name` is a numeric method of the kernel language.
    pub(super) fn is_math_name(name: &str) -> bool {
        MathFn::all_names().any(|n| n == name)
    }

    /// `f32::tanh(x)`, `u32::count_ones(x)`: the call form of a numeric
    /// method, if `call` is one (a scalar type, then a method name).
    pub(super) fn scalar_fn_call(&mut self, call: &syn::ExprCall) -> Option<Expr> {
        let SExpr::Path(p) = super::strip(&call.func) else {
            return None;
        };
        let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
        let (ty, name) = match (p.qself.is_none(), segs.as_slice()) {
            (true, [t, f]) if t.arguments.is_none() && f.arguments.is_none() => {
                (Scalar::from_name(&t.ident.to_string())?, f.ident.to_string())
            }
            _ => return None,
        };
        let span = call.span();
        let Some(first) = call.args.first() else {
            return Some(self.error_expr(err(
                span,
                format!("`{}::{name}` takes the value as its first argument", ty.rust_name()),
            )));
        };
        let recv = self.expr(first);
        self.unify_at(recv.span, recv.ty, Ty::Scalar(ty));
        let mc = MathCall {
            name: &name,
            name_span: segs[1].ident.span(),
            span,
            recv,
            args: call.args.iter().skip(1).collect(),
        };
        Some(self.math_call(mc))
    }

    /// Checks and types a numeric method call.
    pub(super) fn math_call(&mut self, mc: MathCall<'_>) -> Expr {
        let MathCall {
            name,
            name_span,
            span,
            recv,
            args,
        } = mc;
        let op = OPERATOR_METHODS.iter().find(|m| m.0 == name);
        let (domain, arg_kind) = match (MathFn::from_name(name), op) {
            (Some((_, d, a)), _) => (d, a),
            (None, Some(&(_, d, a))) => (d, a),
            (None, None) => return self.error_expr(unknown_method(name_span, name)),
        };
        if args.len() != arg_kind.count() {
            return self.error_expr(err(
                span,
                format!("`{name}` takes {} argument(s) besides the value", arg_kind.count()),
            ));
        }
        let kind = match domain {
            MathDomain::Float => Some(VarKind::Float),
            MathDomain::Int => Some(VarKind::Int),
            MathDomain::Both => None,
        };
        if let Some(kind) = kind {
            if self.infer.require_kind(recv.ty, kind).is_err() {
                let what = if kind == VarKind::Float {
                    "an `f32`/`f64`"
                } else {
                    "an integer"
                };
                let found = match self.infer.shallow(recv.ty) {
                    Ty::Scalar(s) => {
                        let article = if s.rust_name().starts_with(['i', 'f']) {
                            "an"
                        } else {
                            "a"
                        };
                        format!("{article} `{}`", s.rust_name())
                    }
                    _ if kind == VarKind::Float => "an integer".to_string(),
                    _ => "a float".to_string(),
                };
                return self.error_expr(with_help(
                    recv.span,
                    &format!("`{name}` is {what} method, and this value is {found}"),
                    &domain_help(name, kind),
                ));
            }
        }
        let mut all = vec![recv];
        for a in args {
            let x = self.expr(a);
            let want = match arg_kind {
                MathArgs::Same(_) => all[0].ty,
                MathArgs::I32 => Ty::Scalar(Scalar::I32),
                MathArgs::U32 => Ty::Scalar(Scalar::U32),
            };
            self.unify_at(x.span, x.ty, want);
            all.push(x);
        }
        let recv_ty = all[0].ty;
        if op.is_some() {
            return operator_method(name, all, span);
        }
        let Some((f, _, _)) = MathFn::from_name(name) else {
            return self.error_expr(unknown_method(name_span, name));
        };
        let ty = match f {
            MathFn::IsNan | MathFn::IsInfinite | MathFn::IsFinite | MathFn::IsPowerOfTwo => Ty::Scalar(Scalar::Bool),
            MathFn::CountOnes | MathFn::CountZeros | MathFn::LeadingZeros | MathFn::TrailingZeros => {
                Ty::Scalar(Scalar::U32)
            }
            // `i32::abs_diff` is a `u32`.
            MathFn::AbsDiff => match self.infer.shallow(recv_ty) {
                Ty::Scalar(Scalar::I8) => Ty::Scalar(Scalar::U8),
                Ty::Scalar(Scalar::I16) => Ty::Scalar(Scalar::U16),
                Ty::Scalar(Scalar::I32) => Ty::Scalar(Scalar::U32),
                Ty::Scalar(Scalar::I64) => Ty::Scalar(Scalar::U64),
                Ty::Scalar(s) => Ty::Scalar(s),
                _ => {
                    return self.error_expr(with_help(
                        span,
                        "`abs_diff` needs the integer type of its value to be known here",
                        "give the value a type, e.g. `let a: i32 = ...;` or a suffix such as `5i32`",
                    ))
                }
            },
            _ => recv_ty,
        };
        Expr {
            kind: ExprKind::Math(f, all),
            ty,
            span,
        }
    }
}

/// `wrapping_add` & co.: the kernel's operators already wrap (and mask
/// shift amounts), exactly as these methods do.
fn operator_method(name: &str, mut all: Vec<Expr>, span: Span) -> Expr {
    let ty = all[0].ty;
    let kind = if name == "wrapping_neg" {
        ExprKind::Unary(UnOp::Neg, Box::new(all.remove(0)))
    } else {
        let op = match name {
            "wrapping_add" => BinOp::Add,
            "wrapping_sub" => BinOp::Sub,
            "wrapping_mul" => BinOp::Mul,
            "wrapping_shl" => BinOp::Shl,
            _ => BinOp::Shr,
        };
        let r = all.remove(1);
        ExprKind::Binary(op, Box::new(all.remove(0)), Box::new(r))
    };
    Expr { kind, ty, span }
}

fn domain_help(name: &str, kind: VarKind) -> String {
    if kind == VarKind::Float {
        format!("convert first: `(x as f32).{name}()`, or use a float literal such as `2.0`")
    } else {
        format!("`{name}` applies to i8 i16 i32 i64 u8 u16 u32 u64 usize; convert a float with `as` first")
    }
}

/// The error for a method the kernel language lacks, with the closest known
/// name when one is close.
pub(super) fn unknown_method(span: Span, name: &str) -> syn::Error {
    let best = MathFn::all_names()
        .chain(["len", "dim", "shape"])
        .map(|n| (strsim::jaro_winkler(name, n), n))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let help = match best {
        Some((_, n)) => format!("did you mean `{n}`?"),
        None => "kernels can call `len()`, `dim()`, `shape()[k]` on arrays and the `f32`/`f64` and integer \
                 methods listed in `gpujit::reference` (sqrt, tanh, atan2, powi, count_ones, rotate_left, ...)"
            .to_string(),
    };
    with_help(span, &format!("unknown method `{name}` in a kernel"), &help)
}
