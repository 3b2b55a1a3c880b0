//! The re-emitted copy of the user's function that rustc type-checks: the
//! body against the signatures in `gpujit::kernel::typecheck`, so that
//! rust-analyzer and rustc keep working on a kernel, translated or not.

use proc_macro2::TokenStream;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat, Type};

use crate::syntax::{call_name, strip};

/// Whether an array length looks like a compile-time constant: literals,
/// `UPPER_CASE` paths and arithmetic on them.
fn looks_const(e: &SExpr) -> bool {
    crate::stack::deep(|| looks_const_at(e))
}

fn looks_const_at(e: &SExpr) -> bool {
    match strip(e) {
        SExpr::Lit(_) => true,
        SExpr::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        SExpr::Binary(b) => looks_const(&b.left) && looks_const(&b.right),
        _ => false,
    }
}

/// Gives every inner list of `a` the length of the first one (repeating
/// its own first element, or the first list's), so that a ragged literal
/// draws gpujit's error only.
fn even_out(a: &mut syn::ExprArray) {
    let len_of = |e: &SExpr| match strip(e) {
        SExpr::Array(x) => Some(x.elems.len()),
        _ => None,
    };
    let Some(want) = a.elems.first().and_then(len_of) else {
        return;
    };
    let filler = a.elems.first().and_then(|e| match strip(e) {
        SExpr::Array(x) => x.elems.first().cloned(),
        _ => None,
    });
    for e in a.elems.iter_mut() {
        if let SExpr::Array(x) = e {
            while x.elems.len() > want {
                x.elems.pop();
            }
            while x.elems.len() < want {
                match x.elems.first().cloned().or_else(|| filler.clone()) {
                    Some(f) => x.elems.push(f),
                    None => break,
                }
            }
        }
    }
}

/// Numeric methods of Rust's own that are close to a kernel method's name:
/// rustc knows them, so a call is left for rustc to check.
const STD_NUMERIC_METHODS: &[&str] = &[
    "abs_sub",
    "classify",
    "from_bits",
    "is_negative",
    "is_normal",
    "is_positive",
    "is_sign_negative",
    "is_sign_positive",
    "is_subnormal",
    "log",
    "maximum",
    "midpoint",
    "minimum",
    "next_down",
    "next_up",
    "round_ties_even",
    "sin_cos",
    "to_bits",
    "total_cmp",
    "is_multiple_of",
    "to_be",
    "to_le",
    "cast_signed",
    "cast_unsigned",
    "unbounded_shl",
    "unbounded_shr",
];

/// Whether `name` is no method rustc knows on numbers but close to one a
/// kernel may call (gpujit then reports it with a "did you mean").
fn is_typo_of_kernel_method(name: &str) -> bool {
    let known = crate::model::MathFn::all_names().any(|n| n == name)
        || STD_NUMERIC_METHODS.contains(&name)
        || [
            "checked_",
            "overflowing_",
            "saturating_",
            "wrapping_",
            "strict_",
            "unchecked_",
            "to_",
            "from_",
        ]
        .iter()
        .any(|p| name.starts_with(p));
    !known && crate::model::MathFn::all_names().any(|n| strsim::jaro_winkler(name, n) > 0.85)
}

/// Replaces, in `copy` (a clone of `item`), the expressions that
/// `stand_ins` names by their address in `item`: both trees are walked in
/// the same order, so the n-th expression of one is the n-th of the other.
/// A node is replaced after its children are walked, so the count stays
/// the same in both.
fn apply_stand_ins(item: &syn::ItemFn, copy: &mut syn::ItemFn, stand_ins: &crate::syntax::StandIns) {
    use std::collections::HashMap;
    use syn::visit::Visit;
    use syn::visit_mut::VisitMut;
    if stand_ins.0.is_empty() {
        return;
    }
    struct Number<'a> {
        count: usize,
        wanted: HashMap<usize, &'a TokenStream>,
        found: HashMap<usize, &'a TokenStream>,
    }
    impl<'ast> Visit<'ast> for Number<'_> {
        fn visit_expr(&mut self, e: &'ast SExpr) {
            self.count += 1;
            if let Some(t) = self.wanted.get(&(e as *const SExpr as usize)) {
                self.found.insert(self.count, t);
            }
            crate::stack::deep(|| syn::visit::visit_expr(self, e));
        }
    }
    struct Replace<'a> {
        count: usize,
        found: HashMap<usize, &'a TokenStream>,
    }
    impl VisitMut for Replace<'_> {
        fn visit_expr_mut(&mut self, e: &mut SExpr) {
            self.count += 1;
            let me = self.count;
            crate::stack::deep(|| syn::visit_mut::visit_expr_mut(self, e));
            if let Some(t) = self.found.get(&me) {
                if let Ok(new) = syn::parse2::<SExpr>((*t).clone()) {
                    *e = new;
                }
            }
        }
    }
    let mut number = Number {
        count: 0,
        wanted: stand_ins.0.iter().map(|(a, t)| (*a, t)).collect(),
        found: HashMap::new(),
    };
    number.visit_item_fn(item);
    Replace {
        count: 0,
        found: number.found,
    }
    .visit_item_fn_mut(copy);
}

/// The rewritten copy rustc type-checks: the user's body against the
/// signatures in `gpujit::kernel::typecheck` (`grid(2)` becomes `grid2()`),
/// with `stand_ins` (see `lower::StandIns`) in place of what gpujit reported.
pub fn typecheck_copy(item: &syn::ItemFn, stand_ins: &crate::syntax::StandIns) -> TokenStream {
    use syn::visit_mut::VisitMut;
    /// The names the function binds (parameters, `let`s, loop variables).
    struct Bound(std::collections::HashSet<String>);
    impl VisitMut for Bound {
        fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
            self.0.insert(crate::names::key(&p.ident));
            syn::visit_mut::visit_pat_ident_mut(self, p);
        }
    }
    /// The bound names, and whether the function returns a value (a device
    /// function's `return v;` is then rustc's to check).
    struct Rewrite(std::collections::HashSet<String>, bool);
    impl VisitMut for Rewrite {
        fn visit_type_array_mut(&mut self, arr: &mut syn::TypeArray) {
            syn::visit_mut::visit_type_array_mut(self, arr);
            // A shared array size gpujit rejects (a variable, `block_dim().x`)
            // is reported by gpujit; keep rustc from adding its own error.
            if !looks_const(&arr.len) {
                arr.len = syn::parse_quote!(1);
            }
        }

        fn visit_expr_mut(&mut self, e: &mut SExpr) {
            // A misspelt numeric method (`tanhh`) is gpujit's error ("did you
            // mean `tanh`?"): rustc sees the receiver instead of the call.
            if let SExpr::MethodCall(mc) = e {
                if is_typo_of_kernel_method(&mc.method.to_string()) {
                    let recv = (*mc.receiver).clone();
                    *e = syn::parse_quote!((#recv));
                }
            }
            // A CUDA or Numba spelling is reported by gpujit ("did you
            // mean"): rustc sees gpujit's spelling instead, so that it adds
            // no "cannot find value `threadIdx`" of its own.
            if let Some(f) = crate::spelling::foreign(e, &|n| self.0.contains(n)) {
                *e = f.stand_in;
            }
            crate::stack::deep(|| syn::visit_mut::visit_expr_mut(self, e));
            // A local array size or shape gpujit rejects (a variable, a
            // ragged list) is reported by gpujit alone: rustc sees a size
            // of 1 and lists padded to the first one's length.
            if let SExpr::Repeat(r) = e {
                if !looks_const(&r.len) {
                    *r.len = syn::parse_quote!(1);
                }
            }
            if let SExpr::Array(a) = e {
                even_out(a);
            }
            // `return v;` where nothing is returned is reported by gpujit
            // ("a kernel cannot return a value"): rustc sees a plain `return;`.
            if let SExpr::Return(r) = e {
                if !self.1 {
                    r.expr = None;
                }
            }
            if let SExpr::Call(call) = e {
                // `atomic_add(&mut x[i], v)`: rustc checks the element's type
                // through `&x[i]`, so that gpujit alone reports a place it
                // cannot use (a read-only parameter, a missing `&mut`).
                let atomic = call_name(call).and_then(|n| crate::model::AtomicFn::from_name(&n));
                if let (Some(f), Some(place)) = (atomic, call.args.first_mut()) {
                    let inner = match strip(place) {
                        SExpr::Reference(r) => (*r.expr).clone(),
                        other => other.clone(),
                    };
                    let span = place.span();
                    *place = syn::parse_quote_spanned!(span=> atomic_place(&#inner));
                    // A wrong argument count is gpujit's error: rustc sees
                    // the element's value instead of the call.
                    if call.args.len() != 1 + f.operands() {
                        *e = syn::parse_quote_spanned!(span=> *atomic_place(&#inner));
                        return;
                    }
                }
                if let Some(name @ ("grid" | "gridsize")) = call_name(call).as_deref() {
                    let n = match call.args.first() {
                        Some(SExpr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(i), ..
                        })) => i.base10_parse::<usize>().ok(),
                        _ => None,
                    };
                    // `grid(4)` or `grid(n)` is reported by gpujit: give rustc a
                    // value of a fitting type so that it adds no error of its own.
                    let span = call.func.span();
                    *e = match n {
                        Some(n @ 1..=3) => {
                            let f = syn::Ident::new(&format!("{name}{n}"), span);
                            syn::parse_quote_spanned!(span=> #f())
                        }
                        Some(n) => {
                            let parts = (0..n).map(|_| quote::quote_spanned!(span=> 0usize));
                            syn::parse_quote_spanned!(span=> (#(#parts,)*))
                        }
                        None => syn::parse_quote_spanned!(span=> 0usize),
                    };
                }
            }
        }
    }
    let mut copy = item.clone();
    apply_stand_ins(item, &mut copy, stand_ins);
    copy.attrs.retain(|a| !a.path().is_ident("doc"));
    // `ArrayViewMutN` is written through `IndexMut`, which needs a `mut` binding.
    for input in &mut copy.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            let is_view_mut = matches!(&*pt.ty, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with("ArrayViewMut")));
            if let (true, Pat::Ident(pi)) = (is_view_mut, &mut *pt.pat) {
                if pi.mutability.is_none() {
                    pi.mutability = Some(Default::default());
                }
            }
        }
    }
    copy.vis = syn::Visibility::Inherited;
    let mut bound = Bound(Default::default());
    bound.visit_item_fn_mut(&mut copy.clone());
    let returns_value = matches!(item.sig.output, syn::ReturnType::Type(..));
    Rewrite(bound.0, returns_value).visit_item_fn_mut(&mut copy);
    quote::quote! {
        #[allow(unused, clippy::all, non_snake_case, unreachable_code, const_item_mutation, unstable_name_collisions)]
        const _: () = {
            use ::gpujit::__private::typecheck::*;
            #copy
        };
    }
}
