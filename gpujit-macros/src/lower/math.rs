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
    /// The receiver as written (errors about it span all of it).
    pub recv_node: &'a SExpr,
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
        self.expect(first, &recv, Ty::Scalar(ty));
        let mc = MathCall {
            name: &name,
            recv_node: first,
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
            recv_node,
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
            MathDomain::Int | MathDomain::Unsigned | MathDomain::Signed => Some(VarKind::Int),
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
                return self.error_expr(super::with_help_spanned(
                    recv_node,
                    &format!("`{name}` is {what} method, and this value is {found}"),
                    &domain_help(name, domain),
                ));
            }
        }
        // `div_ceil` & co. exist on the unsigned types only, `unsigned_abs`
        // on the signed ones (as in stable Rust). A receiver whose type is
        // not known yet is rustc's to report ("ambiguous numeric type").
        if let Ty::Scalar(s) = self.infer.shallow(recv.ty) {
            let wrong = match domain {
                MathDomain::Unsigned => s.is_signed_int(),
                MathDomain::Signed => s.is_int() && !s.is_signed_int(),
                _ => false,
            };
            if wrong {
                return self.error_expr(signedness_error(name, domain, s, recv_node));
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
            self.expect(a, &x, want);
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
            MathFn::CountOnes
            | MathFn::CountZeros
            | MathFn::LeadingZeros
            | MathFn::TrailingZeros
            | MathFn::LeadingOnes
            | MathFn::TrailingOnes
            | MathFn::Ilog
            | MathFn::Ilog2
            | MathFn::Ilog10 => Ty::Scalar(Scalar::U32),
            // `i32::abs_diff` and `i32::unsigned_abs` are `u32`s.
            MathFn::AbsDiff | MathFn::UnsignedAbs => match self.infer.shallow(recv_ty) {
                Ty::Scalar(Scalar::I8) => Ty::Scalar(Scalar::U8),
                Ty::Scalar(Scalar::I16) => Ty::Scalar(Scalar::U16),
                Ty::Scalar(Scalar::I32) => Ty::Scalar(Scalar::U32),
                Ty::Scalar(Scalar::I64) => Ty::Scalar(Scalar::U64),
                Ty::Scalar(s) => Ty::Scalar(s),
                _ => {
                    return self.error_expr(with_help(
                        span,
                        &format!("`{name}` needs the integer type of its value to be known here"),
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
            "wrapping_div" => BinOp::Div,
            "wrapping_rem" => BinOp::Rem,
            _ => BinOp::Shr,
        };
        let r = all.remove(1);
        ExprKind::Binary(op, Box::new(all.remove(0)), Box::new(r))
    };
    Expr { kind, ty, span }
}

/// `div_ceil` on an `i32`, `unsigned_abs` on a `u32`: what to write instead.
fn signedness_error(name: &str, domain: MathDomain, s: Scalar, recv: &SExpr) -> syn::Error {
    let t = s.rust_name();
    let article = if t.starts_with('i') { "an" } else { "a" };
    if domain == MathDomain::Signed {
        return super::with_help_spanned(
            recv,
            &format!("`{name}` is a method of the signed integers, and this value is {article} `{t}`"),
            "an unsigned value is its own absolute value: use it as it is",
        );
    }
    let u = format!("u{}", s.bits());
    let help = match name {
        "is_power_of_two" => format!("Rust has it on the unsigned types only: write `x > 0 && (x as {u}).is_power_of_two()`"),
        "div_ceil" => format!(
            "Rust's signed `div_ceil` is unstable: for values known to be non-negative write `(x as {u}).div_ceil(y as {u})`, or `(x + y - 1) / y`"
        ),
        _ => format!(
            "Rust has `{name}` on the unsigned types only (the signed one is unstable): for a non-negative value write `(x as {u}).{name}(..)`"
        ),
    };
    super::with_help_spanned(
        recv,
        &format!("`{name}` is a method of the unsigned integers, and this value is {article} `{t}`"),
        &help,
    )
}

fn domain_help(name: &str, domain: MathDomain) -> String {
    let types = match domain {
        MathDomain::Float | MathDomain::Both => {
            return format!("convert first: `(x as f32).{name}()`, or use a float literal such as `2.0`")
        }
        MathDomain::Int => "i8 i16 i32 i64 u8 u16 u32 u64 usize",
        MathDomain::Unsigned => "u8 u16 u32 u64 usize",
        MathDomain::Signed => "i8 i16 i32 i64",
    };
    format!("`{name}` applies to {types}; convert a float with `as` first")
}

/// The error for a method the kernel language lacks, with the closest known
/// name when one is close.
pub(super) fn unknown_method(span: Span, name: &str) -> syn::Error {
    if let Some(help) = refused_help(name) {
        return with_help(span, &format!("`{name}` is not supported in kernels"), &help);
    }
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

/// Whether `name` is a Rust integer method the kernel language refuses with
/// a help line of its own (`checked_add`, `overflowing_mul`).
pub(super) fn is_refused(name: &str) -> bool {
    refused_help(name).is_some()
}

/// What to write instead of a Rust integer method the kernel language
/// refuses: `checked_*` and `overflowing_*` return an `Option` or a tuple,
/// which kernels do not have.
fn refused_help(name: &str) -> Option<String> {
    let wrapping = "`wrapping_add`, `wrapping_sub`, `wrapping_mul`, ... (what the operators do in a kernel)";
    if let Some(op) = name.strip_prefix("checked_") {
        return Some(match op {
            "add" | "sub" | "mul" => format!(
                "it returns an `Option`, and kernels have none: write `a.saturating_{op}(b)` or `a.wrapping_{op}(b)` \
                 (what the operator does in a kernel), or compare the operands first"
            ),
            "div" | "rem" | "div_euclid" | "rem_euclid" | "div_ceil" => {
                "it returns an `Option`, and kernels have none: test the divisor first (`if b != 0 { a / b } else { .. }`)".to_string()
            }
            _ => format!(
                "it returns an `Option`, and kernels have none: test the condition first and call `{op}` where it holds"
            ),
        });
    }
    if let Some(op) = name.strip_prefix("overflowing_") {
        return Some(format!(
            "it returns a tuple `(value, overflowed)`: write `wrapping_{op}` (what the operator does in a kernel) and test \
             for overflow yourself, e.g. `let s = a.wrapping_add(b); let carry = s < a;` for unsigned `a`, `b`"
        ));
    }
    if name.starts_with("unchecked_") || name.starts_with("strict_") {
        return Some(format!(
            "write the operator or {wrapping}: kernel arithmetic wraps and never panics"
        ));
    }
    if name.starts_with("saturating_") {
        return Some("kernels have `saturating_add`, `saturating_sub` and `saturating_mul`".to_string());
    }
    if name.starts_with("wrapping_") {
        return Some(format!(
            "kernels have {wrapping}, `wrapping_div`, `wrapping_rem`, `wrapping_pow` and `wrapping_abs`"
        ));
    }
    Some(match name {
        "is_multiple_of" => {
            "write `x % m == 0` (`is_multiple_of` is newer than gpujit's minimum Rust, 1.85)".to_string()
        }
        "midpoint" => "write `a + (b - a) / 2` for `a <= b`".to_string(),
        _ => return None,
    })
}
