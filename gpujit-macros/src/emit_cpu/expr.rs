//! Rust for expressions with the GPU's semantics: wrapping integer
//! arithmetic, literals typed as in the kernel, fences and intrinsics.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::*;

use super::{ident, scalar_ty, thread_ident, Emitter};

impl Emitter<'_> {
    pub(super) fn binary(&self, op: BinOp, l: TokenStream, r: TokenStream, lt: Ty) -> TokenStream {
        let t = thread_ident();
        let int = matches!(lt, Ty::Scalar(s) if s.is_int());
        let sym: TokenStream = op.symbol().parse().unwrap_or_default();
        // A type only rustc knows (an outside constant's): the runtime's
        // generic helpers wrap and fault as below, where `+` would panic.
        if !matches!(lt, Ty::Scalar(_)) {
            let m = match op {
                BinOp::Add => "arith_add",
                BinOp::Sub => "arith_sub",
                BinOp::Mul => "arith_mul",
                BinOp::Div => "arith_div",
                BinOp::Rem => "arith_rem",
                BinOp::Shl => "arith_shl",
                BinOp::Shr => "arith_shr",
                _ => return quote! { ((#l) #sym (#r)) },
            };
            let m = ident(m);
            if matches!(op, BinOp::Shl | BinOp::Shr) {
                return quote! { #t.#m(#l, (#r) as u32) };
            }
            return quote! { #t.#m(#l, #r) };
        }
        if !int
            || op.is_comparison()
            || matches!(
                op,
                BinOp::And | BinOp::Or | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
            )
        {
            return quote! { ((#l) #sym (#r)) };
        }
        match op {
            BinOp::Add => quote! { (#l).wrapping_add(#r) },
            BinOp::Sub => quote! { (#l).wrapping_sub(#r) },
            BinOp::Mul => quote! { (#l).wrapping_mul(#r) },
            BinOp::Div => quote! { #t.div(#l, #r) },
            BinOp::Rem => quote! { #t.rem(#l, #r) },
            BinOp::Shl => quote! { (#l).wrapping_shl((#r) as u32) },
            BinOp::Shr => quote! { (#l).wrapping_shr((#r) as u32) },
            _ => quote! { ((#l) #sym (#r)) },
        }
    }

    pub fn expr(&self, e: &Expr) -> TokenStream {
        crate::stack::deep(|| self.expr_at(e))
    }

    fn expr_at(&self, e: &Expr) -> TokenStream {
        let t = thread_ident();
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => int_literal(*v, e.ty),
            ExprKind::Lit(Lit::Float(text)) => float_literal(text, e.ty),
            ExprKind::Lit(Lit::Bool(b)) => quote! { #b },
            ExprKind::Local(id) => self.place(*id),
            ExprKind::ExternConst(i) => {
                let p = &self.k.extern_consts[*i].rust_path;
                quote! { #p }
            }
            ExprKind::BodyConst(i) => {
                let name = ident(&self.k.body_consts[*i].name);
                quote! { #name }
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a);
                match (op, e.ty) {
                    (UnOp::Neg, Ty::Scalar(s)) if s.is_int() => quote! { (#v).wrapping_neg() },
                    (UnOp::Neg, Ty::Scalar(_)) => quote! { (-(#v)) },
                    (UnOp::Neg, _) => quote! { #t.arith_neg(#v) },
                    (UnOp::Not, _) => quote! { (!(#v)) },
                }
            }
            ExprKind::Binary(..) if is_deep(e) => self.flat(e),
            // A guard the block's spans proved for every thread (see
            // `span_proves_below`).
            ExprKind::Binary(BinOp::Lt, x, d) | ExprKind::Binary(BinOp::Gt, d, x) if self.span_proves_below(x, d) => {
                quote! { true }
            }
            ExprKind::Binary(op, a, b) => {
                let (l, r) = (self.expr(a), self.expr(b));
                self.binary(*op, l, r, a.ty)
            }
            ExprKind::Cast(a, to) => {
                let v = self.expr(a);
                let to = scalar_ty(*to);
                quote! { ((#v) as #to) }
            }
            ExprKind::Load(a @ (ArrayRef::Local(_) | ArrayRef::Const(_)), idx) => {
                let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                self.fixed_load(*a, &idx)
            }
            ExprKind::Load(a, idx) if self.span_access(*a, idx).is_some() => {
                let Some((span, pos)) = self.span_access(*a, idx) else {
                    return TokenStream::new();
                };
                match self.span_inner(*a) {
                    Some(n) => quote! { #span.ld_inner(#t, #pos, #n) },
                    None => quote! { #span.ld(#t, #pos) },
                }
            }
            ExprKind::Load(a, idx) if self.checked_view(*a).is_some() => {
                let view = self.checked_view(*a);
                let idx = idx.iter().map(|x| self.expr(x));
                let at = super::arrays::location(e.span);
                quote! { #view.ld_at(#t, [#(#idx),*], #at) }
            }
            ExprKind::Load(a, idx) => {
                let (view, _, ld) = self.access_at(*a, idx);
                let idx = idx.iter().map(|x| self.expr(x));
                quote! { #view.#ld(#t, #(#idx),*) }
            }
            // In a span loop: read once per block (see `cpu::span::extents`).
            ExprKind::Len(p) if self.spans.is_some() => {
                let e = self.spans.as_ref().map(|s| s.extent(*p, None));
                quote! { #e }
            }
            ExprKind::Len(p) => {
                let name = ident(&self.k.params[*p].name);
                quote! { #name.len() }
            }
            // The coroutine path; the split path evaluates a vote at block
            // level (see `cpu::split`) and never emits it per thread.
            ExprKind::Vote(v, p) => {
                let p = self.expr(p);
                let site = self.next_site();
                let m = ident(v.rust_name());
                quote! { #t.#m(#site, #p) }
            }
            // The coroutine path's scheduler or the split path's meeting
            // exchanges the lanes' values (see `Thread::warp`). Replaying a
            // meeting's statement, the arguments are stand-ins: the call
            // gives the exchanged result.
            ExprKind::Warp(f, args) => {
                if let Some(values) = self.replay_values.borrow().as_ref() {
                    return quote! { #values[#t.lin()] };
                }
                let m = ident(f.spec().name);
                if let Some(site) = self.replay_warp.get() {
                    let args = f.spec().args.iter().zip(args).map(|((kind, _), a)| match kind {
                        WarpArg::Mask | WarpArg::Lane => quote! { 0u32 },
                        WarpArg::Pred => quote! { false },
                        WarpArg::Value => match &a.ty {
                            Ty::Scalar(s) => {
                                let ty = ident(s.rust_name());
                                quote! { <#ty as ::core::default::Default>::default() }
                            }
                            _ => self.expr(a),
                        },
                    });
                    return quote! { #t.#m(#site, #(#args),*) };
                }
                let args = args.iter().map(|a| self.expr(a));
                let site = self.next_site();
                quote! { #t.#m(#site, #(#args),*) }
            }
            ExprKind::Dim(p, d) if self.spans.is_some() => {
                let e = self.spans.as_ref().map(|s| s.extent(*p, Some(*d)));
                quote! { #e }
            }
            ExprKind::Dim(p, d) => {
                let name = ident(&self.k.params[*p].name);
                quote! { #name.dim(#d) }
            }
            ExprKind::Grid(a) => {
                let f = axis_field(*a);
                quote! { #t.grid3().#f }
            }
            ExprKind::GridSize(a) => {
                let f = axis_field(*a);
                quote! { #t.gridsize3().#f }
            }
            ExprKind::Builtin(b) => {
                let m = ident(b.rust_method());
                quote! { #t.#m() }
            }
            ExprKind::Intrinsic(v) => {
                let m = ident(v.spec().cpu_method);
                quote! { #t.#m() }
            }
            ExprKind::BuiltinAxis(b, a) => {
                let m = ident(b.rust_method());
                let f = ident(a.name());
                quote! { #t.#m().#f }
            }
            ExprKind::Idx3Field(base, a) => {
                let v = self.expr(base);
                let f = ident(a.name());
                quote! { (#v).#f }
            }
            ExprKind::Math(f, args) => {
                let recv = self.expr(&args[0]);
                let rest = args[1..].iter().map(|x| self.expr(x));
                let int = matches!(e.ty, Ty::Scalar(s) if s.is_int());
                if *f == MathFn::Abs && !matches!(e.ty, Ty::Scalar(_)) {
                    return quote! { #t.arith_abs(#recv) };
                }
                // `clamp`, the Euclidean and rounding divisions, `isqrt` and
                // the logarithms report a fault where Rust's methods would
                // panic; `pow` and `next_power_of_two` wrap.
                let name = match f {
                    MathFn::Clamp => return quote! { #t.clamp(#recv, #(#rest),*) },
                    MathFn::DivEuclid => return quote! { #t.div_euclid(#recv, #(#rest),*) },
                    MathFn::RemEuclid => return quote! { #t.rem_euclid(#recv, #(#rest),*) },
                    MathFn::DivCeil => return quote! { #t.div_ceil(#recv, #(#rest),*) },
                    MathFn::NextMultipleOf => return quote! { #t.next_multiple_of(#recv, #(#rest),*) },
                    MathFn::Isqrt => return quote! { #t.isqrt(#recv) },
                    MathFn::Ilog => return quote! { #t.ilog(#recv, #(#rest),*) },
                    MathFn::Ilog2 => return quote! { #t.ilog2(#recv) },
                    MathFn::Ilog10 => return quote! { #t.ilog10(#recv) },
                    MathFn::NextPowerOfTwo => return quote! { (#recv).checked_next_power_of_two().unwrap_or(0) },
                    // Floats: -0.0 below +0.0, as the CUDA C's `gj_fmin`/`gj_fmax`.
                    MathFn::Min if !int => {
                        return quote! { ::gpujit::__private::KernelMinMax::kernel_min(#recv, #(#rest),*) }
                    }
                    MathFn::Max if !int => {
                        return quote! { ::gpujit::__private::KernelMinMax::kernel_max(#recv, #(#rest),*) }
                    }
                    // `Ord`'s, by path: a user's trait in scope with a
                    // `min` for integers would make `a.min(b)` ambiguous.
                    MathFn::Min => return quote! { ::core::cmp::Ord::min(#recv, #(#rest),*) },
                    MathFn::Max => return quote! { ::core::cmp::Ord::max(#recv, #(#rest),*) },
                    MathFn::Abs if int => ident("wrapping_abs"),
                    MathFn::Pow => ident("wrapping_pow"),
                    _ => ident(f.rust_name()),
                };
                quote! { (#recv).#name(#(#rest),*) }
            }
            ExprKind::Atomic(f, a, idx, vals) => {
                let (view, _, _) = self.access_at(*a, idx);
                let idx = idx.iter().map(|x| self.expr(x));
                let vals: Vec<TokenStream> = vals.iter().map(|x| self.expr(x)).collect();
                let variant = ident(f.variant());
                let op = match vals.as_slice() {
                    [compare, value] => quote! { #variant { compare: #compare, value: #value } },
                    _ => quote! { #variant(#(#vals),*) },
                };
                match self.checked_view(*a) {
                    Some(view) => {
                        let at = super::arrays::location(e.span);
                        quote! { #view.atomic_at(#t, [#(#idx),*], ::gpujit::__private::AtomicOp::#op, #at) }
                    }
                    None => quote! { #view.atomic(#t, [#(#idx),*], ::gpujit::__private::AtomicOp::#op) },
                }
            }
            ExprKind::Call(k, args) => {
                let path = &self.k.callees[*k].path;
                let args = args.iter().map(|a| self.expr(a));
                quote! { #path::gj_cpu(#t, #(#args),*) }
            }
            ExprKind::ArrayArg(p) => {
                let name = ident(&self.k.params[*p].name);
                quote! { #name }
            }
            ExprKind::Tuple(parts) => {
                let parts = parts.iter().map(|a| self.expr(a));
                quote! { (#(#parts,)*) }
            }
            ExprKind::TupleField(tuple, i) => {
                let v = self.expr(tuple);
                let i = syn::Index::from(*i);
                quote! { (#v).#i }
            }
            ExprKind::If(c, a, b) => {
                let c = self.expr(c);
                let a = self.block(a);
                let mut ts = quote! { if #c #a };
                // A chain of value `if`s as one flat `if .. else if ..`.
                let mut els = &**b;
                while let Some((c, a, next)) = els.else_if_value() {
                    let (c, a) = (self.expr(c), self.block(a));
                    ts.extend(quote! { else if #c #a });
                    els = next;
                }
                let b = self.block(els);
                quote! { (#ts else #b) }
            }
        }
    }
}

/// A memory fence: CUDA's block-scope fence orders nothing on the CPU beyond
/// the compiler (a block's threads share one OS thread); the others are
/// hardware fences (blocks run on several OS threads).
pub(super) fn fence(scope: FenceScope) -> TokenStream {
    match scope {
        FenceScope::Block => quote! { ::gpujit::__private::threadfence_block(); },
        FenceScope::Device | FenceScope::System => quote! { ::gpujit::__private::threadfence(); },
    }
}

fn axis_field(a: Axis) -> syn::Index {
    syn::Index::from(match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    })
}

fn int_literal(v: i128, ty: Ty) -> TokenStream {
    let lit = match ty {
        Ty::Scalar(Scalar::U8) => Literal::u8_suffixed(v as u8),
        Ty::Scalar(Scalar::I8) => Literal::i8_suffixed(v as i8),
        Ty::Scalar(Scalar::I16) => Literal::i16_suffixed(v as i16),
        Ty::Scalar(Scalar::U16) => Literal::u16_suffixed(v as u16),
        Ty::Scalar(Scalar::I32) => Literal::i32_suffixed(v as i32),
        Ty::Scalar(Scalar::I64) => Literal::i64_suffixed(v as i64),
        Ty::Scalar(Scalar::U32) => Literal::u32_suffixed(v as u32),
        Ty::Scalar(Scalar::U64) => Literal::u64_suffixed(v as u64),
        Ty::Scalar(Scalar::Usize) => Literal::usize_suffixed(v as usize),
        Ty::Scalar(Scalar::F32) => Literal::f32_suffixed(v as f32),
        Ty::Scalar(Scalar::F64) => Literal::f64_suffixed(v as f64),
        _ => Literal::i128_unsuffixed(v),
    };
    quote! { (#lit) }
}

fn float_literal(text: &str, ty: Ty) -> TokenStream {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    // An out-of-range literal (`1e39f32`) is rustc's error to report (on the
    // type-checked copy); emit the infinity it rounds to instead of panicking.
    let lit = match ty {
        Ty::Scalar(Scalar::F32) => match clean.parse::<f32>() {
            Ok(v) if v.is_finite() => Literal::f32_suffixed(v),
            _ => return quote! { ::core::f32::INFINITY },
        },
        _ => match clean.parse::<f64>() {
            Ok(v) if v.is_finite() && ty == Ty::Scalar(Scalar::F64) => Literal::f64_suffixed(v),
            Ok(v) if v.is_finite() => Literal::f64_unsuffixed(v),
            _ => return quote! { ::core::f64::INFINITY },
        },
    };
    quote! { (#lit) }
}
