//! Block spans for the CPU backend (issue #7): a barrier-free kernel's
//! thread loop, emitted a second time with unchecked accesses, taken by the
//! blocks where one range check per array shows every classified access in
//! bounds for every thread (`gpujit/src/cpu/span.rs`). Edge blocks, and every
//! block under `GPUJIT_CPU_EXEC=coroutines`, run the checked loop.
//!
//! An access is classified when each index is the thread's own index on an
//! axis plus or minus an integer literal (`x`, `y - 1`, with `x` a local
//! bound once to `grid(..)`'s component, see `owned`), or an integer
//! literal, on a read-only array parameter (any offset) or an owned one (its
//! own index only). The indices are then not evaluated at all: the runtime
//! forms them from the thread's coordinates, so LLVM sees unit-stride
//! accesses and can vectorize the loop.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::emit_cpu::{block_ident, ident, param_copies, thread_ident, Emitter};
use crate::model::*;
use crate::owned::{own_locals, owned_params};
use crate::visit::{each_expr, each_stmt, each_stmt_in_block};

/// `SpanAxis` values of the runtime (`OWN_X`, `OWN_Y`, `OWN_Z`, `CONST`,
/// `UNIFORM`).
const CONST: u8 = 3;
const UNIFORM: u8 = 4;

/// The largest offset taken (keeps every bound far inside `isize`).
const MAX_OFFSET: i128 = 1 << 20;

/// Which arrays of a kernel run on spans in the fast loop.
#[derive(Debug, Clone)]
pub struct SpanPlan {
    /// Per parameter: per position, the axis and least and greatest offset
    /// of its classified accesses; `None` if it has no span.
    arrays: Vec<Option<Vec<(u8, i128, i128)>>>,
    own: Vec<Option<Axis>>,
    /// The counter of a loop run in lockstep, one round per span (see
    /// `loop_plan`): an index that is this local is `UNIFORM`.
    uniform: Option<LocalId>,
    /// A round of a grid-stride loop (see `round_plan`): `own` marks only its
    /// variable (own index plus the round's shift), and `grid(..)` itself is
    /// not an own position.
    shifted: bool,
    /// The copy of the fast loop for arrays whose last axis is as long as
    /// its constant indices need (see `inner_extent`): loads take that
    /// length as a constant.
    inner: bool,
}

fn axis_code(a: Axis) -> u8 {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

/// `e` as `(axis, offset)`: own index plus or minus a literal, a literal,
/// or the lockstep loop's counter `uniform`.
fn classify(own: &[Option<Axis>], uniform: Option<LocalId>, shifted: bool, e: &Expr) -> Option<(u8, i128)> {
    if let (ExprKind::Local(id), Some(u)) = (&e.kind, uniform) {
        if *id == u && e.ty == Ty::Scalar(Scalar::Usize) {
            return Some((UNIFORM, 0));
        }
    }
    let own_axis = |e: &Expr| match &e.kind {
        ExprKind::Grid(a) if !shifted => Some(axis_code(*a)),
        ExprKind::Local(id) => own.get(*id).copied().flatten().map(axis_code),
        _ => None,
    };
    let lit = |e: &Expr| match e.kind {
        ExprKind::Lit(Lit::Int(v)) if e.ty == Ty::Scalar(Scalar::Usize) && (0..=MAX_OFFSET).contains(&v) => Some(v),
        _ => None,
    };
    let r = match &e.kind {
        ExprKind::Lit(_) => (CONST, lit(e)?),
        ExprKind::Binary(BinOp::Add, a, b) => match (own_axis(a), own_axis(b)) {
            (Some(ax), None) => (ax, lit(b)?),
            (None, Some(ax)) => (ax, lit(a)?),
            _ => return None,
        },
        ExprKind::Binary(BinOp::Sub, a, b) => (own_axis(a)?, -lit(b)?),
        _ => (own_axis(e)?, 0),
    };
    Some(r)
}

impl SpanPlan {
    /// The classified positions of an access to parameter `p` at `idx` that
    /// takes its span, or `None` (the access stays checked).
    pub fn access(&self, p: usize, idx: &[Expr]) -> Option<Vec<(u8, i128)>> {
        let spec = self.arrays.get(p)?.as_ref()?;
        let pos: Vec<(u8, i128)> = idx
            .iter()
            .map(|e| classify(&self.own, self.uniform, self.shifted, e))
            .collect::<Option<_>>()?;
        let fits = pos.len() == spec.len()
            && pos
                .iter()
                .zip(spec)
                .all(|(&(a, o), &(sa, _, _))| a == sa && o >= -MAX_OFFSET);
        fits.then_some(pos)
    }

    /// In the `inner` copy of the fast loop, the length of parameter `p`'s
    /// last axis that its span's loads assume (see `last_const_extent`).
    pub fn inner_extent(&self, p: usize) -> Option<usize> {
        self.inner.then(|| self.last_const_extent(p)).flatten()
    }

    /// `hi + 1` for an array of 2 or 3 dimensions indexed on its last axis by
    /// constants `0..=hi` only (grayscale's `rgb[[y, x, 0..=2]]`): assumed
    /// to be that axis's length, LLVM sees the stride between threads (`hi +
    /// 1` elements, not a run-time extent, with which it cannot vectorize).
    fn last_const_extent(&self, p: usize) -> Option<usize> {
        let spec = self.arrays.get(p)?.as_ref()?;
        match spec.last() {
            Some(&(CONST, lo, hi)) if spec.len() >= 2 && lo >= 0 && hi < MAX_INNER => usize::try_from(hi + 1).ok(),
            _ => None,
        }
    }

    /// The parameters with an `inner_extent`, and that extent.
    fn inner_extents(&self) -> Vec<(usize, usize)> {
        (0..self.arrays.len())
            .filter_map(|p| self.last_const_extent(p).map(|n| (p, n)))
            .collect()
    }
}

/// Constant last indices below this get an `inner` copy of the fast loop
/// (an RGB or RGBA pixel, a point's coordinates).
const MAX_INNER: i128 = 16;

/// The span plan of `k`, or `None` when no array of it can use one.
pub fn plan(k: &Kernel) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier {
        return None;
    }
    let owned = owned_params(k);
    let allowed: Vec<bool> = k
        .params
        .iter()
        .zip(&owned)
        .map(|(param, &owned)| match param.kind {
            ParamKind::Array { mutable, .. } => !mutable || owned,
            ParamKind::Scalar(_) => false,
        })
        .collect();
    plan_of(k, allowed, None, None, |f| each_stmt_in_block(&k.body, f))
}

/// The span plan of one round of the unit-stride loop of `k` with counter
/// `var` and body `body`, run in lockstep (see `cpu_lockstep`): the
/// read-only arrays that the body indexes with own indices, literals and
/// `var` itself (`b[[i, col]]`); `None` when there are none.
pub fn loop_plan(k: &Kernel, var: LocalId, body: &[&Stmt]) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier || k.locals[var].ty != Ty::Scalar(Scalar::Usize) {
        return None;
    }
    let allowed = k
        .params
        .iter()
        .map(|p| matches!(p.kind, ParamKind::Array { mutable: false, .. }))
        .collect();
    let plan = plan_of(k, allowed, Some(var), None, |f| {
        body.iter().for_each(|s| each_stmt(s, f))
    })?;
    // A span per round pays for the uniform position only.
    plan.arrays
        .iter()
        .flatten()
        .any(|spec| spec.iter().any(|s| s.0 == UNIFORM))
        .then_some(plan)
}

/// The span plan of one round of the grid-stride loop of `k` with variable
/// `var` (starting at the thread's own index, `grid(1)`) and body `body`, run
/// in lockstep: in round `r` the variable is the own index plus `r * step`,
/// so `x[i]`, `x[i + 1]` of a read-only array and `y[i]` of an owned one
/// (partitioned by the loop, see `owned::partition_vars`) take spans shifted
/// by that offset. `None` when no array takes one.
pub fn round_plan(k: &Kernel, var: LocalId, body: &[&Stmt]) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier || k.locals[var].ty != Ty::Scalar(Scalar::Usize) {
        return None;
    }
    let owned = owned_params(k);
    let allowed = k
        .params
        .iter()
        .zip(&owned)
        .map(|(param, &owned)| match param.kind {
            ParamKind::Array { mutable, ndim: 1, .. } => !mutable || owned,
            _ => false,
        })
        .collect();
    let plan = plan_of(k, allowed, None, Some(var), |f| {
        body.iter().for_each(|s| each_stmt(s, f))
    })?;
    // An owned array's span is at the (shifted) own index only.
    let ok = plan.arrays.iter().zip(&owned).all(|(spec, &owned)| match spec {
        Some(spec) if owned => spec.as_slice() == [(0, 0, 0)],
        _ => true,
    });
    ok.then_some(plan)
}

/// The accesses to the parameters `allowed` marks in the statements `each`
/// visits (nested ones included), as spans.
fn plan_of<'k>(
    k: &'k Kernel,
    allowed: Vec<bool>,
    uniform: Option<LocalId>,
    shifted: Option<LocalId>,
    each: impl FnOnce(&mut dyn FnMut(&'k Stmt)),
) -> Option<SpanPlan> {
    let own = match shifted {
        None => own_locals(k),
        Some(var) => {
            let mut own = vec![None; k.locals.len()];
            own[var] = Some(Axis::X);
            own
        }
    };
    let shifted = shifted.is_some();
    // Per parameter: `Some(positions)` while every classified access agrees
    // on the axis of each position.
    let mut arrays: Vec<Option<Vec<(u8, i128, i128)>>> = vec![None; k.params.len()];
    let mut bad: Vec<bool> = allowed.iter().map(|a| !a).collect();
    let mut note = |p: usize, idx: &[Expr]| {
        if bad[p] {
            return;
        }
        let Some(pos) = idx
            .iter()
            .map(|e| classify(&own, uniform, shifted, e))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let slot = &mut arrays[p];
        match slot {
            None => *slot = Some(pos.iter().map(|&(a, o)| (a, o, o)).collect()),
            Some(spec) if spec.len() == pos.len() && spec.iter().zip(&pos).all(|(s, q)| s.0 == q.0) => {
                for (s, q) in spec.iter_mut().zip(&pos) {
                    s.1 = s.1.min(q.1);
                    s.2 = s.2.max(q.1);
                }
            }
            Some(_) => {
                bad[p] = true;
                *slot = None;
            }
        }
    };
    each(&mut |s| {
        if let Stmt::Assign {
            place: Place::Elem(ArrayRef::Param(p), idx),
            ..
        } = s
        {
            note(*p, idx);
        }
        each_expr(s, &mut |e| {
            if let ExprKind::Load(ArrayRef::Param(p), idx) = &e.kind {
                note(*p, idx);
            }
        });
    });
    // `each_expr` sees nested statements' loads once per enclosing
    // statement: harmless, the bounds are a min and a max.
    arrays.iter().any(Option::is_some).then_some(SpanPlan {
        arrays,
        own,
        uniform,
        shifted,
        inner: false,
    })
}

/// The span of parameter `p` in the fast loop.
pub fn span_ident(p: usize) -> Ident {
    format_ident!("gj_span_{}", p, span = Span::mixed_site())
}

/// `v` as an `isize` expression (a negative literal as a negation).
fn isize_tokens(v: i128) -> TokenStream {
    let abs = proc_macro2::Literal::isize_suffixed(v.unsigned_abs() as isize);
    if v < 0 {
        quote! { (-#abs) }
    } else {
        quote! { #abs }
    }
}

/// `(axis, offset)` pairs as the runtime's index argument.
pub fn index_tokens(pos: &[(u8, i128)]) -> TokenStream {
    let parts = pos.iter().map(|&(a, o)| {
        let o = isize_tokens(o);
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
        for &(a, lo, hi) in spec.iter().filter(|s| s.0 < CONST) {
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
        let view = ident(&k.params[p].name);
        let ParamKind::Array { mutable, ndim, .. } = k.params[p].kind else {
            continue;
        };
        for (pos, &(a, lo, hi)) in spec.iter().enumerate().filter(|(_, s)| s.0 < CONST) {
            // The extent as stored: `dim(k)`'s test of `ndim` would keep
            // LLVM from matching the bound with the kernel's `if x < w`.
            let extent = if ndim == 1 {
                quote! { #view.len() }
            } else {
                quote! { #view.extent(#pos) }
            };
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

/// The barrier-free block body `checked` (the plain thread loop of `k`),
/// preceded by its span version when `k` has arrays with spans.
pub fn versioned(k: &Kernel, checked: TokenStream) -> TokenStream {
    let Some(plan) = plan(k) else {
        return checked;
    };
    let (blk, t) = (block_ident(), thread_ident());
    // Owned arrays' views were made for the block already.
    let (names, makes) = span_makes(k, &plan, |view, mutable, spec| {
        if mutable {
            quote! { #view.span(#spec) }
        } else {
            quote! { #view.span(#blk, #spec) }
        }
    });
    let bounds = bounds(k, &plan);
    let copies = param_copies(k, &[]);
    // Arrays whose last axis has a constant length in the common case
    // (pixels of 3 bytes): a copy of the loop for when it has, where LLVM
    // sees the stride between threads and vectorizes; the general copy
    // otherwise.
    let inner = plan.inner_extents();
    let body = Emitter::new(k).with_spans(plan.clone()).block_stmts(&k.body);
    let mut fast = quote! { #blk.threads_within(&[#(#bounds),*], |#t| { #copies #body }); };
    if !inner.is_empty() {
        let fixed = Emitter::new(k)
            .with_spans(SpanPlan { inner: true, ..plan })
            .block_stmts(&k.body);
        let conds = inner.iter().map(|&(p, n)| {
            let span = span_ident(p);
            quote! { #span.inner_is(#n) }
        });
        fast = quote! {
            if #(#conds)&&* {
                #blk.threads_within(&[#(#bounds),*], |#t| { #copies #fixed });
                #blk.inner_block();
            } else {
                #fast
            }
        };
    }
    quote! {
        if let (false, true, #(::core::option::Option::Some(#names),)*) = (#blk.force_coroutines(), #blk.within(&[#(#bounds),*]), #(#makes,)*) {
            #fast
            // After the loop: an atomic before it would make LLVM reload
            // the block's geometry that the spans' checks read.
            #blk.span_block();
        } else {
            #checked
        }
    }
}

/// The names of the spans of `plan`'s parameters and the expressions that
/// make them: `make(view, mutable, spec)`, with `spec` the runtime's
/// `[(axis, lo, hi), ..]` argument.
fn span_makes(
    k: &Kernel,
    plan: &SpanPlan,
    make: impl Fn(&Ident, bool, TokenStream) -> TokenStream,
) -> (Vec<Ident>, Vec<TokenStream>) {
    let mut names = Vec::new();
    let mut makes = Vec::new();
    for (p, spec) in plan.arrays.iter().enumerate() {
        let (Some(spec), ParamKind::Array { mutable, .. }) = (spec, k.params[p].kind) else {
            continue;
        };
        let parts = spec.iter().map(|&(a, lo, hi)| {
            let (lo, hi) = (isize_tokens(lo), isize_tokens(hi));
            quote! { (#a, #lo, #hi) }
        });
        makes.push(make(&ident(&k.params[p].name), mutable, quote! { [#(#parts),*] }));
        names.push(span_ident(p));
    }
    (names, makes)
}

/// One round of a lockstep loop on spans (`plan` from `loop_plan`, or from
/// `round_plan` with `u` the round and the step, `r, step`): when every span of the round
/// holds (the loop counter `u`, a `usize`, inside each array where it
/// indexes it, and every thread's own indices, shifted by `u` for
/// `round_plan`, inside for the whole block), `fast(bounds)`, the round over the block's threads
/// with the span accesses (made with `Emitter::with_spans`); otherwise
/// `checked`, the same round with checked accesses.
pub fn round_versioned(
    k: &Kernel,
    plan: &SpanPlan,
    u: &TokenStream,
    fast: impl FnOnce(&[TokenStream]) -> TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let blk = block_ident();
    let (names, makes) = span_makes(k, plan, |view, mutable, spec| match (plan.shifted, mutable) {
        // Owned arrays' views were made for the block already.
        (true, true) => quote! { #view.span_round(#spec, #u) },
        (true, false) => quote! { #view.span_round(#blk, #spec, #u) },
        (false, _) => quote! { #view.span_at(#blk, #spec, #u) },
    });
    // A shifted round's spans check the shifted indices themselves.
    let bounds = if plan.shifted { Vec::new() } else { bounds(k, plan) };
    let fast = fast(&bounds);
    quote! {
        if let (true, #(::core::option::Option::Some(#names),)*) = (#blk.within(&[#(#bounds),*]), #(#makes,)*) {
            #fast
        } else {
            #checked
        }
    }
}
