//! Narrowed thread loops: a per-thread part of a split kernel that is one
//! `if threadIdx.x < E { .. }` with `E` the same in every thread of the
//! block (a block reduction's halving step) loops over the threads with
//! `x < E` only, instead of visiting every thread to test the condition;
//! likewise `<=`, `==`, `>=`, `>` (either side), and `tx < E && rest` with
//! `rest` tested per thread.
//!
//! `E` must be block-uniform and unable to fault, so that evaluating it once
//! per block (for thread (0, 0, 0)) gives every thread's value and the same
//! faults (none): it may use literals, constants, immutable scalar
//! parameters, array extents, `block_dim()`, `block_idx()`, `grid_dim()`,
//! `gridsize(..)`, the variables of block-level `for` loops, and `let`s at
//! the start of the part whose values are such expressions themselves
//! (`let stride = BLOCK >> level;`); no division, remainder, load or call.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::analysis::Uniform;
use crate::emit_cpu::{block_ident, exited_ident, thread_ident, Emitter};
use crate::model::*;

impl Uniform<'_> {
    /// The part `stmts` as a narrowed loop, or `None` if it is not one
    /// `if threadIdx.x < E { .. }` or a sibling (after uniform `let`s).
    pub(super) fn narrowed(&self, em: &Emitter, stmts: &[&Stmt]) -> Option<TokenStream> {
        let (last, lets) = stmts.split_last()?;
        // Leading `let`s of this part only (not spilled) that cannot fault:
        // uniform ones may appear in `E`; per-thread ones (`let g =
        // grid(1);`) are computed by the threads in range only, which is
        // unobservable since the others would drop them.
        let mut hoisted = Vec::new();
        for s in lets {
            match s {
                Stmt::Let { local, init: Some(e) } if !self.k.locals[*local].mutable && !em.spilled[*local] => {
                    if self.is_uniform(e, &hoisted) {
                        hoisted.push(*local);
                    } else if !crate::analysis::coordinate_pure(e) {
                        return None;
                    }
                }
                Stmt::Line(_) => {}
                _ => return None,
            }
        }
        let Stmt::If { cond, then, els: None } = last else {
            return None;
        };
        // `tx < E && rest`: narrowed on the first test, `rest` per thread.
        let (test, rest) = match &cond.kind {
            ExprKind::Binary(BinOp::And, a, b) => (&**a, Some(&**b)),
            _ => (cond, None),
        };
        // The range of `threadIdx.x` the test admits, as `[lo, hi)` in i128
        // (no overflow for any 64-bit `E`; the runtime clamps to the block).
        let (e, range) = match &test.kind {
            ExprKind::Binary(op, x, e) if self.is_thread_x(x) => (&**e, Range::of(*op)?),
            ExprKind::Binary(op, e, x) if self.is_thread_x(x) => (&**e, Range::of(flip(*op)?)?),
            _ => return None,
        };
        if !self.is_uniform(e, &hoisted) {
            return None;
        }
        let (blk, t) = (block_ident(), thread_ident());
        let lets_stmts = lets;
        let lets: TokenStream = lets.iter().map(|s| em.stmt(s)).collect();
        let e = em.expr(e);
        let e = quote! { ((#e) as i128) };
        let (lo, hi) = match range {
            Range::Below => (quote! { 0i128 }, e),
            Range::UpTo => (quote! { 0i128 }, quote! { #e + 1 }),
            Range::At => (e.clone(), quote! { #e + 1 }),
            Range::From => (e, quote! { i128::MAX }),
            Range::Above => (quote! { #e + 1 }, quote! { i128::MAX }),
        };
        let part_body = |em: &Emitter| {
            let lets: TokenStream = lets_stmts.iter().map(|s| em.stmt(s)).collect();
            let then = em.block_stmts(then);
            let body = match rest {
                Some(r) => {
                    let r = em.expr(r);
                    quote! { #lets if #r { #then } }
                }
                None => quote! { #lets { #then } },
            };
            super::super::parts::wrap_part(em, stmts, &[], body)
        };
        let body = part_body(em);
        let exited = if em.track_exit {
            let ex = exited_ident();
            quote! { ::core::option::Option::Some(&#ex) }
        } else {
            quote! { ::core::option::Option::None }
        };
        let (a, b) = (
            Ident::new("gj_lo", Span::mixed_site()),
            Ident::new("gj_hi", Span::mixed_site()),
        );
        // Block spans: the uniform `usize` locals of the part, which a
        // shared array's `threadIdx` may be offset by, as `isize` (one that
        // does not fit gives no span).
        let mut used = Vec::new();
        for s in stmts {
            crate::model::visit::locals_used(s, &mut used);
        }
        used.sort_unstable();
        used.dedup();
        used.retain(|&id| {
            (self.uniform[id] || hoisted.contains(&id)) && self.k.locals[id].ty == Ty::Scalar(Scalar::Usize)
        });
        let names: Vec<Ident> = used.iter().map(|&id| crate::cpu::span::uni_ident(id)).collect();
        let values = used.iter().map(|&id| {
            let v = crate::emit_cpu::ident(&self.k.locals[id].name);
            quote! { <isize as ::core::convert::TryFrom<usize>>::try_from(#v).unwrap_or(isize::MAX) }
        });
        let used_ty = used.iter().map(|_| quote! { isize });
        let x = Ident::new("gj_x", Span::mixed_site());
        let checked = quote! { #blk.threads_x_in(#exited, #a, #b, |#t| { #body }); };
        let run = crate::cpu::span::versioned_narrowed(em, stmts, &used, &quote! { #x }, part_body, checked);
        Some(quote! {
            #[allow(unused_variables)]
            let (#a, #b, (#(#names,)*)): (i128, i128, (#(#used_ty,)*)) = #blk.uniform_value(|#t| { #lets (#lo, #hi, (#(#values,)*)) });
            #[allow(unused_variables)]
            let #x = #blk.x_range(#a, #b);
            #run
        })
    }
}

/// Which `threadIdx.x` a test `threadIdx.x OP E` admits.
enum Range {
    /// `< E`
    Below,
    /// `<= E`
    UpTo,
    /// `== E`
    At,
    /// `>= E`
    From,
    /// `> E`
    Above,
}

/// `b OP' a` for `a OP b`: the comparison with its operands swapped.
fn flip(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        BinOp::Eq => BinOp::Eq,
        _ => return None,
    })
}

impl Range {
    fn of(op: BinOp) -> Option<Range> {
        Some(match op {
            BinOp::Lt => Range::Below,
            BinOp::Le => Range::UpTo,
            BinOp::Eq => Range::At,
            BinOp::Ge => Range::From,
            BinOp::Gt => Range::Above,
            _ => return None,
        })
    }
}
