//! Helpers on the user's syntax (syn) that the front end, rustc's
//! type-checked copy and the emitters share.

use proc_macro2::{Ident, Span, TokenStream};
use syn::Expr as SExpr;

use crate::names;

/// Expressions of the user's function that rustc's type-checked copy
/// replaces, so that a mistake gpujit reported (`x * 2` with `x: f32`) is
/// not reported by rustc again: each by the address of its node in the
/// `syn::ItemFn` that was lowered, with the tokens the copy gets instead (an
/// expression of the type gpujit expected there). See `typecheck_copy`.
#[derive(Default)]
pub struct StandIns(pub Vec<(usize, TokenStream)>);

impl StandIns {
    pub fn push(&mut self, node: &SExpr, tokens: TokenStream) {
        self.0.push((node as *const SExpr as usize, tokens));
    }
}

/// `e` without the parentheses and invisible groups around it.
pub fn strip(mut e: &SExpr) -> &SExpr {
    loop {
        match e {
            SExpr::Paren(p) => e = &p.expr,
            SExpr::Group(g) => e = &g.expr,
            other => return other,
        }
    }
}

/// The path as written, each segment without `r#`.
pub fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| names::key(&s.ident))
        .collect::<Vec<_>>()
        .join("::")
}

/// The name `f` of a call `f(..)` of a plain, one-segment path.
pub fn call_name(call: &syn::ExprCall) -> Option<String> {
    match strip(&call.func) {
        SExpr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(names::key(&p.path.segments[0].ident))
        }
        _ => None,
    }
}

/// An identifier of the generated code, at the call site.
pub fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}
