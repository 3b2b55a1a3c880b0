//! Diagnostics: the error constructors every part of lowering uses, and the
//! stand-in expressions that keep one mistake to one error.

use proc_macro2::Span;
use quote::ToTokens;
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
        crate::deep(|| self.is_poisoned_at(e))
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
