//! Diagnostics: the error constructors every part of lowering uses, and the
//! stand-in expressions that keep one mistake to one error.

use proc_macro2::{Span, TokenStream};
use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Type};

use super::{call_name, strip, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;
use crate::names;

pub(super) fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// Like [`with_help`], spanning all of `node` (first to last token).
pub(super) fn with_help_spanned(node: &impl ToTokens, msg: &str, help: &str) -> syn::Error {
    syn::Error::new_spanned(node, format!("{msg}\n  = help: {help}"))
}

pub(super) fn with_help(span: Span, msg: &str, help: &str) -> syn::Error {
    err(span, format!("{msg}\n  = help: {help}"))
}

pub(super) fn heap_or(ty: &Type, help: &str) -> syn::Error {
    let text = ty.to_token_stream().to_string();
    for heap in ["Vec", "String", "Box", "Rc", "Arc", "HashMap"] {
        if text.starts_with(heap) || text.contains(&format!(":: {heap}")) {
            return with_help(
                ty.span(),
                &format!("`{heap}` cannot be used in a kernel: there is no heap on the device"),
                "use a `&mut [T]` parameter for output or `shared_array::<[T; N]>()` for block-wide scratch space",
            );
        }
    }
    with_help(ty.span(), &format!("unsupported type `{text}` in a kernel"), help)
}

pub(super) fn macro_error(mac: &syn::Macro) -> syn::Error {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let help = match name.as_str() {
        "panic" | "assert" | "assert_eq" | "unreachable" | "todo" | "unimplemented" => {
            "kernels cannot panic: a hidden exit would skip barriers on the GPU; guard with `if` instead"
        }
        "println" | "print" | "eprintln" | "dbg" => "kernels cannot print; write values to an output array instead",
        "vec" => "there is no heap on the device; use a `&mut [T]` parameter or a shared array",
        _ => "macros are not supported in kernels",
    };
    with_help(mac.path.span(), &format!("`{name}!` is not supported in kernels"), help)
}

pub(super) fn label_error(span: Span) -> syn::Error {
    with_help(
        span,
        "loop labels are not supported in kernels",
        "use a `bool` flag and plain `break`",
    )
}

impl Lower {
    /// `value`, lowered from `node`, must have type `want` (the other
    /// operand's, the place's, the parameter's). Where it cannot: one error
    /// spanning all of `node` (the literal `2` of `x * 2`, not the start of
    /// the expression), with a help line, and a stand-in of type `want` at
    /// `node` in rustc's copy, so that rustc does not report it again.
    pub(super) fn expect(&mut self, node: &SExpr, value: &Expr, want: Ty) {
        let Err(msg) = self.infer.unify(want, value.ty) else {
            return;
        };
        let (want, found) = (self.infer.shallow(want), self.infer.shallow(value.ty));
        let kind_of = |t: Ty, infer: &crate::infer::Infer| -> Option<VarKind> {
            match t {
                Ty::Scalar(s) if s.is_float() => Some(VarKind::Float),
                Ty::Scalar(s) if s.is_int() => Some(VarKind::Int),
                Ty::Var(_) => infer.var_kind(t),
                _ => None,
            }
        };
        let want_kind = kind_of(want, &self.infer);
        let shown = node_text(node);
        let span = node.span();
        let lit = int_literal(node);
        let (help, stand_in): (String, TokenStream) = match (want, want_kind, &lit) {
            // `x * 2` with `x: f32`.
            (_, Some(VarKind::Float), Some(Literal::Int(digits))) => {
                let f = format!("{digits}.0");
                let tokens: TokenStream = f.parse().unwrap_or_default();
                (format!("write `{f}`: an integer literal is not a float"), respan(tokens, span))
            }
            // `n * 2.5` with `n: u32`.
            (_, Some(VarKind::Int), Some(Literal::Float)) => (
                "write an integer literal, or compute in floats: convert the other operand with `as f32` or `as f64`".to_string(),
                quote_spanned!(span=> 0),
            ),
            (Ty::Scalar(Scalar::Bool), _, _) => (
                format!("a condition is a `bool`: write a comparison, e.g. `{shown} != 0`"),
                quote_spanned!(span=> false),
            ),
            (Ty::Scalar(t), _, _) if !matches!(found, Ty::Scalar(Scalar::Bool)) || t.is_int() => {
                let name = crate::syntax::ident(t.rust_name());
                (
                    format!("convert it: `{} as {}`", paren_if_needed(node, &shown), t.rust_name()),
                    quote_spanned!(span=> (0 as #name)),
                )
            }
            (Ty::Scalar(t), _, _) => {
                let name = crate::syntax::ident(t.rust_name());
                (
                    format!("a `bool` converts to an integer only: `({shown}) as u32 as {}`", t.rust_name()),
                    quote_spanned!(span=> (0 as #name)),
                )
            }
            (_, Some(VarKind::Float), _) => ("convert it with `as f32` or `as f64`".to_string(), quote_spanned!(span=> 0.0)),
            (_, Some(VarKind::Int), _) => ("convert it with `as` to the integer type".to_string(), quote_spanned!(span=> 0)),
            _ => (
                "both sides of an operator, a place and the value assigned to it, and an argument and its parameter have one type: convert with `as`".to_string(),
                quote_spanned!(span=> ::core::unreachable!()),
            ),
        };
        self.errors
            .push(syn::Error::new_spanned(node, format!("{msg}\n  = help: {help}")));
        self.stand_ins.push(node, stand_in);
    }

    pub(super) fn silent_expr(&mut self, span: Span) -> Expr {
        let ty = self.infer.fresh(VarKind::Any);
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty,
            span,
        }
    }

    /// Whether `e` starts from a name whose declaration was already reported.
    pub(super) fn is_poisoned(&self, e: &SExpr) -> bool {
        crate::stack::deep(|| self.is_poisoned_at(e))
    }

    fn is_poisoned_at(&self, e: &SExpr) -> bool {
        match strip(e) {
            SExpr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| matches!(self.lookup(&names::key(i)), Some(Binding::Poisoned))),
            SExpr::Call(c) => call_name(c).is_some_and(|n| matches!(self.lookup(&n), Some(Binding::Poisoned))),
            SExpr::MethodCall(m) => self.is_poisoned(&m.receiver),
            SExpr::Index(i) => self.is_poisoned(&i.expr),
            SExpr::Field(f) => self.is_poisoned(&f.base),
            _ => false,
        }
    }

    pub(super) fn error_expr(&mut self, e: syn::Error) -> Expr {
        let span = e.span();
        self.errors.push(e);
        let ty = self.infer.fresh(VarKind::Any);
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty,
            span,
        }
    }
}

enum Literal {
    /// The digits of an integer literal (with its sign).
    Int(String),
    Float,
}

/// `node` as a literal, `-` included.
fn int_literal(node: &SExpr) -> Option<Literal> {
    let (neg, e) = match strip(node) {
        SExpr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => (true, strip(&u.expr)),
        other => (false, other),
    };
    let SExpr::Lit(l) = e else { return None };
    match &l.lit {
        syn::Lit::Int(i) => Some(Literal::Int(format!(
            "{}{}",
            if neg { "-" } else { "" },
            i.base10_digits()
        ))),
        syn::Lit::Float(_) => Some(Literal::Float),
        _ => None,
    }
}

/// `node` as the user wrote it, roughly (`x[i]`, `a + b`).
fn node_text(node: &SExpr) -> String {
    let mut t = node.to_token_stream().to_string();
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
    ] {
        t = t.replace(from, to);
    }
    t
}

/// `shown`, in parentheses where `as` would bind to a part of it.
fn paren_if_needed(node: &SExpr, shown: &str) -> String {
    match node {
        SExpr::Path(_)
        | SExpr::Lit(_)
        | SExpr::Index(_)
        | SExpr::Field(_)
        | SExpr::MethodCall(_)
        | SExpr::Call(_)
        | SExpr::Paren(_) => shown.to_string(),
        _ => format!("({shown})"),
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}
