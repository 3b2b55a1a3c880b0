//! The span version of a thread loop: the spans' names, the bounds the
//! block checks, and the choice between the fast loop and the checked one.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::emit_cpu::{block_ident, ident, param_copies, thread_ident, Accesses, Emitter};
use crate::model::visit::{each_expr, each_stmt};
use crate::model::*;

use super::plan::*;
use super::tid::tid_lets;

/// The span of parameter `p` in the fast loop.
pub fn span_ident(p: usize) -> Ident {
    format_ident!("gj_span_{}", p, span = Span::mixed_site())
}

/// The extent `a.len()` (`None`) or `a.dim(d)` of parameter `p`, read once
/// per block before the fast loop: the kernel's guards (`if i < n`) then
/// compare with the very value the block's range check used, which LLVM
/// can fold (it cannot reload one a store in the loop may have changed).
pub fn extent_ident(p: usize, d: Option<usize>) -> Ident {
    match d {
        None => format_ident!("gj_len_{}", p, span = Span::mixed_site()),
        Some(d) => format_ident!("gj_dim_{}_{}", p, d, span = Span::mixed_site()),
    }
}

/// The bindings of every array parameter's extents (`len()` and each
/// `dim(d)`; what the loop does not read LLVM drops): the loop's own, its
/// bounds', and those of rematerialized locals from other parts.
fn extents(k: &Kernel) -> TokenStream {
    let mut ts = TokenStream::new();
    for (p, param) in k.params.iter().enumerate() {
        let ParamKind::Array { ndim, .. } = param.kind else {
            continue;
        };
        let view = ident(&param.name);
        let len = extent_ident(p, None);
        ts.extend(quote! { #[allow(unused_variables)] let #len: usize = #view.len(); });
        for d in 0..ndim {
            let e = extent_ident(p, Some(d));
            ts.extend(quote! { #[allow(unused_variables)] let #e: usize = #view.dim(#d); });
        }
    }
    ts
}

/// The span of shared array `s` in the fast loop.
pub fn shared_span_ident(s: usize) -> Ident {
    format_ident!("gj_sspan_{}", s, span = Span::mixed_site())
}

/// `(axis, offset)` pairs as the runtime's index argument.
pub fn index_tokens(pos: &[(u8, Off)]) -> TokenStream {
    let parts = pos.iter().map(|&(a, o)| {
        let o = match o {
            // The span adds its own value.
            Off::Uni(_) if is_tid(a) => quote! { 0isize },
            Off::Lit(v) => isize_tokens(v),
            Off::Uni(u) => {
                let id = uni_ident(u);
                quote! { #id }
            }
        };
        quote! { (#a, #o) }
    });
    quote! { [#(#parts),*] }
}

/// The `(axis, lo, hi, extent)` bounds of the fast loop (see the runtime's
/// `Block::threads_within`): each span's own positions against its array's
/// extent, and for each owned array (whose extents the kernel's guards
/// usually read) the widest offsets of all spans on that axis.
fn bounds(k: &Kernel, plan: &SpanPlan) -> Vec<TokenStream> {
    let mut widest: Vec<(u8, i128, i128)> = Vec::new();
    for spec in plan.arrays.iter().flatten() {
        for (a, (lo, hi)) in spec.iter().filter(|s| s.axis < CONST).map(|s| (s.axis, s.lit_range())) {
            match widest.iter_mut().find(|w| w.0 == a) {
                Some(w) => {
                    w.1 = w.1.min(lo);
                    w.2 = w.2.max(hi);
                }
                None => widest.push((a, lo, hi)),
            }
        }
    }
    let mut out = Vec::new();
    for (p, spec) in plan.arrays.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let ParamKind::Array { mutable, ndim, .. } = k.params[p].kind else {
            continue;
        };
        for (pos, (a, (lo, hi))) in spec
            .iter()
            .enumerate()
            .filter(|(_, s)| s.axis < CONST)
            .map(|(pos, s)| (pos, (s.axis, s.lit_range())))
        {
            let extent = extent_ident(p, (ndim != 1).then_some(pos));
            let (lo, hi) = if mutable {
                widest.iter().find(|w| w.0 == a).map_or((lo, hi), |w| (w.1, w.2))
            } else {
                (lo, hi)
            };
            let (lo, hi) = (isize_tokens(lo), isize_tokens(hi));
            out.push(quote! { (#a, #lo, #hi, #extent) });
        }
    }
    out
}

/// Whether `axis` is a `threadIdx`-plus-uniform one (`TID_UNI_X`, ...).
fn is_tid(axis: u8) -> bool {
    (TID_UNI..TID_UNI + 3).contains(&axis)
}

/// The runtime's `spec` argument for positions `spec`: `(axis, lo, hi)` each.
fn spec_tokens(spec: &[PosSpec]) -> TokenStream {
    let parts = spec.iter().map(|p| {
        let a = p.axis;
        let (lo, hi) = p.bounds_tokens();
        quote! { (#a, #lo, #hi) }
    });
    quote! { [#(#parts),*] }
}

/// The spans' names and the expressions that make them for one block.
/// `x`: a narrowed loop's range of `threadIdx.x` (shared arrays' spans are
/// checked for those threads only).
fn makes(k: &Kernel, plan: &SpanPlan, x: Option<&TokenStream>) -> (Vec<Ident>, Vec<TokenStream>) {
    let blk = block_ident();
    let mut names = Vec::new();
    let mut makes = Vec::new();
    for (p, spec) in plan.arrays.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let view = ident(&k.params[p].name);
        let ParamKind::Array { mutable, .. } = k.params[p].kind else {
            continue;
        };
        let tid = spec.iter().any(|s| is_tid(s.axis));
        let spec = spec_tokens(spec);
        // Owned arrays' views were made for the block already.
        makes.push(match (mutable, tid) {
            (true, _) => quote! { #view.span(#spec) },
            (false, true) => quote! { #view.span_tid(#blk, #spec) },
            (false, false) => quote! { #view.span(#blk, #spec) },
        });
        names.push(span_ident(p));
    }
    for (s, spec) in plan.shared.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let view = ident(&k.shared[s].name);
        let spec = spec_tokens(spec);
        makes.push(match x {
            Some(x) => quote! { #view.span_x(#blk, #x, #spec) },
            None => quote! { #view.span(#blk, #spec) },
        });
        names.push(shared_span_ident(s));
    }
    (names, makes)
}

/// `fast` (the thread loop on spans, given the bounds) in the blocks where
/// every span of `plan` can be made, else `checked`.
fn choose(
    k: &Kernel,
    plan: &SpanPlan,
    x: Option<&TokenStream>,
    fast: impl FnOnce(&[TokenStream]) -> TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let blk = block_ident();
    let (names, makes) = makes(k, plan, x);
    let bounds = bounds(k, plan);
    let fast = fast(&bounds);
    let extents = extents(k);
    quote! {
        #extents
        if let (false, true, #(::core::option::Option::Some(#names),)*) = (#blk.strategy_off(::gpujit::__private::Strategies::SPANS), #blk.within(&[#(#bounds),*]), #(#makes,)*) {
            #fast
            // After the loop: an atomic before it would make LLVM reload
            // the block's geometry that the spans' checks read.
            #blk.span_block();
        } else {
            #checked
        }
    }
}

/// One round of a lockstep loop on spans (`plan` from `loop_plan`, or from
/// `round_plan` with `u` the round and the step, `r, step`): when every span
/// of the round holds (the loop counter `u`, a `usize`, inside each array
/// where it indexes it, and every thread's own indices, shifted by `u` for
/// `round_plan`, inside for the whole block), `fast(bounds)`, the round over
/// the block's threads with the span accesses (made with
/// `Emitter::with_spans`); otherwise `checked`, the same round with checked
/// accesses.
pub fn round_versioned(
    k: &Kernel,
    plan: &SpanPlan,
    u: &TokenStream,
    fast: impl FnOnce(&[TokenStream]) -> TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let blk = block_ident();
    let mut names = Vec::new();
    let mut makes = Vec::new();
    for (p, spec) in plan.arrays.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let view = ident(&k.params[p].name);
        let spec = spec_tokens(spec);
        let ParamKind::Array { mutable, .. } = k.params[p].kind else {
            continue;
        };
        makes.push(match (plan.shifted, mutable) {
            // Owned arrays' views were made for the block already.
            (true, true) => quote! { #view.span_round(#spec, #u) },
            (true, false) => quote! { #view.span_round(#blk, #spec, #u) },
            (false, _) => quote! { #view.span_at(#blk, #spec, #u) },
        });
        names.push(span_ident(p));
    }
    // A shifted round's spans check the shifted indices themselves.
    let bounds = if plan.shifted { Vec::new() } else { bounds(k, plan) };
    let fast = fast(&bounds);
    let extents = extents(k);
    quote! {
        #extents
        if let (false, true, #(::core::option::Option::Some(#names),)*) = (#blk.strategy_off(::gpujit::__private::Strategies::SPANS), #blk.within(&[#(#bounds),*]), #(#makes,)*) {
            #fast
        } else {
            #checked
        }
    }
}

/// The barrier-free block body `checked` (the plain thread loop of `k`),
/// preceded by its span version when `k` has arrays with spans.
pub fn versioned(k: &Kernel, checked: TokenStream) -> TokenStream {
    let Some(plan) = plan(k) else {
        return checked;
    };
    let (blk, t) = (block_ident(), thread_ident());
    let copies = param_copies(k, &[]);
    let body = Emitter::new(k).with_spans(plan.clone()).block_stmts(&k.body);
    // Arrays whose last axis has a constant length in the common case
    // (pixels of 3 bytes): a copy of the loop for when it has, where LLVM
    // sees the stride between threads and vectorizes; the general copy
    // otherwise.
    let inner = plan.inner_extents();
    let fixed = (!inner.is_empty()).then(|| {
        Emitter::new(k)
            .with_spans(SpanPlan {
                inner: true,
                ..plan.clone()
            })
            .block_stmts(&k.body)
    });
    let fast = |bounds: &[TokenStream]| {
        let general = quote! { #blk.threads_within(&[#(#bounds),*], |#t| { #copies #body }); };
        let Some(fixed) = fixed else { return general };
        let conds = inner.iter().map(|&(p, n)| {
            let span = span_ident(p);
            quote! { #span.inner_is(#n) }
        });
        quote! {
            if #(#conds)&&* {
                #blk.threads_within(&[#(#bounds),*], |#t| { #copies #fixed });
                #blk.inner_block();
            } else {
                #general
            }
        }
    };
    choose(k, &plan, None, fast, checked)
}

/// Whether every access to a parameter or shared array in `stmts` takes a
/// span of `plan`. A part with checked accesses left gains little from its
/// span copy, and its `checked` loop may have a faster form of its own (the
/// tiled matmul's tile loads: 4x slower on spans than in `Block::threads_fit`).
fn all_on_spans(plan: &SpanPlan, stmts: &[&Stmt]) -> bool {
    let mut all = true;
    let mut note = |a: ArrayRef, idx: &[Expr]| {
        if matches!(a, ArrayRef::Param(_) | ArrayRef::Shared(_)) && plan.access(a, idx).is_none() {
            all = false;
        }
    };
    for s in stmts {
        each_stmt(s, &mut |s| {
            if let Stmt::Assign {
                place: Place::Elem(a, idx),
                ..
            } = s
            {
                note(*a, idx);
            }
            each_expr(s, &mut |e| match &e.kind {
                ExprKind::Load(a, idx) => note(*a, idx),
                ExprKind::Atomic(_, a, idx, _) => note(*a, idx),
                _ => {}
            });
        });
    }
    all
}

/// One barrier-free part `stmts` of a split kernel, run by `checked` (its
/// thread loop as `em` emits it), preceded by its span version when the
/// part has arrays with spans (not in kernels whose threads may return:
/// their parts skip exited threads). `uniform` says which expressions are
/// block-uniform (see `tid_lets`): global arrays indexed by `threadIdx`
/// plus such a value (a tile load) take spans, checked each time the block
/// runs the part, with the value evaluated once before.
pub fn versioned_part(
    em: &Emitter,
    stmts: &[&Stmt],
    checked: TokenStream,
    uniform: &dyn Fn(&Expr, &[LocalId]) -> bool,
) -> TokenStream {
    let (hoisted, tid) = tid_lets(em.k, stmts, &em.spilled, uniform);
    let plan = match plan_part(em.k, stmts, &[], Some(&tid)) {
        Some(plan) if !em.track_exit && all_on_spans(&plan, stmts) => plan,
        _ => return checked,
    };
    let (blk, t) = (block_ident(), thread_ident());
    // The uniform values, as `isize` (wrapping: one above `isize::MAX` is
    // negative, and the span refuses a negative offset from `threadIdx`).
    let bind = (!tid.is_empty()).then(|| {
        let lets: TokenStream = stmts
            .iter()
            .filter(|s| matches!(s, Stmt::Let { local, .. } if hoisted.contains(local)))
            .map(|s| em.stmt(s))
            .collect();
        // Only the values an array's span uses.
        let used: Vec<&TidLet> = tid
            .iter()
            .filter(|l| {
                plan.arrays
                    .iter()
                    .chain(&plan.shared)
                    .flatten()
                    .flatten()
                    .any(|p| p.unis.contains(&l.key))
            })
            .collect();
        let names = used.iter().map(|l| uni_ident(l.key));
        let values = used.iter().map(|l| em.expr(&l.value));
        let tys = used.iter().map(|_| quote! { isize });
        quote! {
            #[allow(unused_variables, clippy::cast_possible_wrap)]
            let (#(#names,)*): (#(#tys,)*) = #blk.uniform_value(|#t| { #lets (#((#values) as isize,)*) });
        }
    });
    let fast_em = em.clone().with_spans(plan.clone());
    let body: TokenStream = stmts.iter().map(|s| fast_em.stmt(s)).collect();
    let body = crate::cpu::parts::wrap_part(&fast_em, stmts, &[], body);
    let fast = |bounds: &[TokenStream]| quote! { #blk.threads_within(&[#(#bounds),*], |#t| { #body }); };
    let run = choose(em.k, &plan, None, fast, checked);
    quote! { #bind #run }
}

/// A narrowed part (see `cpu::split::narrow`) `stmts` of a split kernel, run
/// by `checked`, preceded by its span version when it has arrays with spans:
/// `body` emits the part's per-thread body with a given emitter, `x` is the
/// bound range of `threadIdx.x` (a `Block::x_range`), and `uni` the uniform
/// `usize` locals bound as `uni_ident`s, which a shared array's `threadIdx`
/// may be offset by (`cache[tid + stride]`).
pub fn versioned_narrowed(
    em: &Emitter,
    stmts: &[&Stmt],
    uni: &[LocalId],
    x: &TokenStream,
    body: impl FnOnce(&Emitter) -> TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let plan = match plan_part(em.k, stmts, uni, None) {
        Some(plan) if !em.track_exit => plan,
        _ => return checked,
    };
    let (blk, t) = (block_ident(), thread_ident());
    let fast_em = em.clone().with_spans(plan.clone());
    let body = body(&fast_em);
    let fast = |_: &[TokenStream]| quote! { #blk.threads_x_range(#x, |#t| { #body }); };
    choose(em.k, &plan, Some(x), fast, checked)
}

impl Accesses for SpanPlan {
    fn span_access(&self, a: ArrayRef, idx: &[Expr]) -> Option<(Ident, TokenStream)> {
        let pos = self.access(a, idx)?;
        let span = match a {
            ArrayRef::Param(p) => span_ident(p),
            ArrayRef::Shared(s) => shared_span_ident(s),
            ArrayRef::Local(_) | ArrayRef::Const(_) => return None,
        };
        Some((span, index_tokens(&pos)))
    }

    fn extent(&self, p: usize, d: Option<usize>) -> Ident {
        extent_ident(p, d)
    }

    fn proves_below(&self, p: usize, axis: usize, x: &Expr) -> bool {
        SpanPlan::proves_below(self, p, axis, x)
    }

    fn inner_extent(&self, p: usize) -> Option<usize> {
        SpanPlan::inner_extent(self, p)
    }
}
