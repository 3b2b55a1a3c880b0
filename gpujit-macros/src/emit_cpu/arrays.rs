//! Rust for array accesses: the views' checked accessors, local and
//! fixed-size arrays on the thread's stack, and index trees flattened
//! into stack slots.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::model::*;

use super::{extents, ident, local_array_type, scalar_ty, thread_ident, Emitter};

impl Emitter<'_> {
    /// `let mut a: [[T; M]; N] = [[v; M]; N];` or the (nested) list: a
    /// Rust array on the thread's stack.
    pub(super) fn local_array(&self, id: usize, init: &ArrayInit) -> TokenStream {
        let a = &self.k.local_arrays[id];
        let name = ident(&a.name);
        let ty = local_array_type(a);
        let sizes = extents(a);
        let value = match init {
            ArrayInit::Repeat(v) => {
                let mut value = self.expr(v);
                for d in sizes.iter().rev() {
                    value = quote! { [#value; #d] };
                }
                value
            }
            ArrayInit::List(values) => {
                let mut parts: Vec<TokenStream> = values.iter().map(|v| self.expr(v)).collect();
                let lens: Vec<usize> = a.dims.iter().map(|d| d.c.parse().unwrap_or(1)).collect();
                for &n in lens.iter().skip(1).rev() {
                    parts = parts.chunks(n.max(1)).map(|c| quote! { [#(#c),*] }).collect();
                }
                quote! { [#(#parts),*] }
            }
        };
        let m = if a.mutable {
            quote! { mut }
        } else {
            TokenStream::new()
        };
        quote! { let #m #name: #ty = #value; }
    }

    /// A read of a local or `const` array through the runtime's checked
    /// lookup (`idx` already emitted).
    pub(super) fn fixed_load(&self, a: ArrayRef, idx: &[TokenStream]) -> TokenStream {
        let t = thread_ident();
        let (array, label, space) = match a {
            ArrayRef::Local(i) => {
                let name = ident(&self.k.local_arrays[i].name);
                (quote! { #name }, self.k.local_arrays[i].label.clone(), quote! { Local })
            }
            ArrayRef::Const(i) => {
                let c = &self.k.extern_consts[i];
                let label = c.rust_path.to_string().replace(' ', "");
                (c.rust_path.clone(), label, quote! { Constant })
            }
            ArrayRef::Param(_) | ArrayRef::Shared(_) => return TokenStream::new(),
        };
        quote! { ::gpujit::__private::fixed_ld(#t, &#array, [#(#idx),*], #label, ::gpujit::__private::Space::#space) }
    }

    /// `a[i] = v` / `a[i] op= v` on local array `a`: the indices and the
    /// value first (they may read `a`), then the checked store.
    pub(super) fn local_store(&self, a: usize, idx: &[Expr], op: Option<BinOp>, v: TokenStream) -> TokenStream {
        let t = thread_ident();
        let arr = &self.k.local_arrays[a];
        let (name, label) = (ident(&arr.name), &arr.label);
        let names: Vec<Ident> = (0..idx.len())
            .map(|i| format_ident!("gj_index_{}", i, span = Span::mixed_site()))
            .collect();
        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
        let value = Ident::new("gj_value", Span::mixed_site());
        let rhs_value = Ident::new("gj_rhs", Span::mixed_site());
        let names_ts: Vec<TokenStream> = names.iter().map(|n| quote! { #n }).collect();
        let rhs = match op {
            None => quote! { #rhs_value },
            Some(op) => self.binary(
                op,
                self.fixed_load(ArrayRef::Local(a), &names_ts),
                quote! { #rhs_value },
                arr.elem,
            ),
        };
        // The value before the index, as Rust evaluates them.
        quote! { {
            let #rhs_value = #v;
            #(let #names: usize = #idx;)*
            let #value = #rhs;
            ::gpujit::__private::fixed_st(#t, &mut #name, [#(#names),*], #value, #label);
        } }
    }

    /// [`Emitter::access`] for an access at `idx`: an owned array indexed
    /// by a partitioning grid-stride loop's variable uses the accessors that
    /// check the index is in the thread's class.
    pub(super) fn access_at(&self, a: ArrayRef, idx: &[Expr]) -> (Ident, Ident, Ident) {
        let (view, st, ld) = self.access(a, idx.len());
        let owned = matches!(a, ArrayRef::Param(i) if self.owned.get(i).copied().unwrap_or(false));
        match idx {
            [Expr {
                kind: ExprKind::Local(v),
                ..
            }] if owned && self.part.get(*v).copied().unwrap_or(false) => (view, ident("st_class"), ident("ld_class")),
            _ => (view, st, ld),
        }
    }

    /// For the checked copy of the kernel: the view of `a` if its accesses
    /// are checked (shared arrays, and written array parameters but
    /// own-index ones: a read-only one, which the borrow checker keeps
    /// from aliasing a written one, cannot race).
    pub(super) fn checked_view(&self, a: ArrayRef) -> Option<Ident> {
        if !self.checked {
            return None;
        }
        match a {
            ArrayRef::Param(i)
                if !self.owned.get(i).copied().unwrap_or(false)
                    && matches!(self.k.params[i].kind, ParamKind::Array { mutable: true, .. }) =>
            {
                Some(ident(&self.k.params[i].name))
            }
            ArrayRef::Shared(i) => Some(ident(&self.k.shared[i].name)),
            _ => None,
        }
    }

    /// The view, its store method and its load method for `n` indices.
    fn access(&self, a: ArrayRef, n: usize) -> (Ident, Ident, Ident) {
        let view = match a {
            ArrayRef::Param(i) => ident(&self.k.params[i].name),
            ArrayRef::Shared(i) => ident(&self.k.shared[i].name),
            // Local and `const` arrays go through `fixed_load`/`local_store`.
            ArrayRef::Local(i) => ident(&self.k.local_arrays[i].name),
            ArrayRef::Const(i) => ident(&self.k.extern_consts[i].c_name),
        };
        let owned = matches!(a, ArrayRef::Param(i) if self.owned.get(i).copied().unwrap_or(false));
        let (st, ld) = match (n, owned) {
            (1, true) => ("st_own", "ld_own"),
            (2, true) => ("st2_own", "ld2_own"),
            (1, false) => ("st", "ld"),
            (2, false) => ("st2", "ld2"),
            _ => ("st3", "ld3"),
        };
        (view, ident(st), ident(ld))
    }
}

impl Emitter<'_> {
    /// `e` as one block of assignments to stack slots, one per operator, in
    /// evaluation order (left operand, right operand, operation): slot `d` of
    /// the array `gj_s_T` holds a value of type `T` at operand depth `d`, so
    /// that the generated code nests only as deeply as right operands do and
    /// declares one array per type.
    pub(super) fn flat(&self, e: &Expr) -> TokenStream {
        let mut slots = Vec::new();
        let mut stmts = TokenStream::new();
        self.linear(e, 0, &mut stmts, &mut slots);
        let decls = slots.iter().map(|&(s, n): &(Scalar, usize)| {
            let (arr, ty) = (slot_array(s), scalar_ty(s));
            quote! { let mut #arr = [#ty::default(); #n]; }
        });
        let v = slot(e.ty, 0);
        quote! { ({ #(#decls)* #stmts #v }) }
    }

    /// Appends the statements that leave `e` in slot `d` of its type.
    fn linear(&self, e: &Expr, d: usize, out: &mut TokenStream, slots: &mut Vec<(Scalar, usize)>) {
        crate::stack::deep(|| {
            if let Ty::Scalar(s) = e.ty {
                match slots.iter_mut().find(|(t, _)| *t == s) {
                    Some((_, n)) => *n = (*n).max(d + 1),
                    None => slots.push((s, d + 1)),
                }
            }
            let here = slot(e.ty, d);
            let ExprKind::Binary(op, a, b) = &e.kind else {
                let v = self.expr(e);
                out.extend(quote! { #here = #v; });
                return;
            };
            self.linear(a, d, out, slots);
            let (l, r) = (slot(a.ty, d), slot(b.ty, d + 1));
            if matches!(op, BinOp::And | BinOp::Or) {
                // The right operand runs only if the left one does not decide.
                let mut inner = TokenStream::new();
                self.linear(b, d + 1, &mut inner, slots);
                let cond = if *op == BinOp::And {
                    quote! { #l }
                } else {
                    quote! { !#l }
                };
                out.extend(quote! { if #cond { #inner #here = #r; } });
            } else {
                self.linear(b, d + 1, out, slots);
                let v = self.binary(*op, l, r, a.ty);
                out.extend(quote! { #here = #v; });
            }
        })
    }
}

/// The array of stack slots for values of type `s` (see `Emitter::flat`).
fn slot_array(s: Scalar) -> Ident {
    format_ident!("gj_s_{}", s.rust_name(), span = Span::mixed_site())
}

/// Slot `d` of the array for type `ty` (a scalar: see `is_deep`).
fn slot(ty: Ty, d: usize) -> TokenStream {
    let arr = match ty {
        Ty::Scalar(s) => slot_array(s),
        _ => format_ident!("gj_s_opaque", span = Span::mixed_site()),
    };
    let d = Literal::usize_unsuffixed(d);
    quote! { #arr[#d] }
}

/// `Location::caller()` at `span`, the user's access: outside a
/// `#[track_caller]` function it is the location of the call itself, so the
/// checked accessors get the kernel's `file:line:column`.
pub(super) fn location(span: Span) -> TokenStream {
    quote_spanned! {span=> ::core::panic::Location::caller() }
}
