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

/// `SpanAxis` values of the runtime (`OWN_X`, `OWN_Y`, `OWN_Z`, `CONST`).
const CONST: u8 = 3;

/// The largest offset taken (keeps every bound far inside `isize`).
const MAX_OFFSET: i128 = 1 << 20;

/// Which arrays of a kernel run on spans in the fast loop.
#[derive(Debug, Clone)]
pub struct SpanPlan {
    /// Per parameter: per position, the axis and least and greatest offset
    /// of its classified accesses; `None` if it has no span.
    arrays: Vec<Option<Vec<(u8, i128, i128)>>>,
    /// The same per shared array (indexed by `threadIdx` or a literal).
    shared: Vec<Option<Vec<(u8, i128, i128)>>>,
    own: Vec<Option<Axis>>,
    tid: Vec<Option<Axis>>,
}

/// `SpanAxis` of `threadIdx.x` (then y, z).
const TID: u8 = 4;

fn axis_code(a: Axis) -> u8 {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

/// `e` as `(axis, offset)`: own index plus or minus a literal, or a literal.
/// With `shared`, `threadIdx` (through `tid`) instead of the own index.
fn classify(own: &[Option<Axis>], tid: &[Option<Axis>], shared: bool, e: &Expr) -> Option<(u8, i128)> {
    let own_axis = |e: &Expr| match (&e.kind, shared) {
        (ExprKind::Grid(a), false) => Some(axis_code(*a)),
        (ExprKind::Local(id), false) => own.get(*id).copied().flatten().map(axis_code),
        (ExprKind::Local(id), true) => tid.get(*id).copied().flatten().map(|a| TID + axis_code(a)),
        (_, true) => thread_axis(e).map(|a| TID + axis_code(a)),
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
    pub fn access(&self, a: ArrayRef, idx: &[Expr]) -> Option<Vec<(u8, i128)>> {
        let (spec, shared) = match a {
            ArrayRef::Param(p) => (self.arrays.get(p)?.as_ref()?, false),
            ArrayRef::Shared(s) => (self.shared.get(s)?.as_ref()?, true),
            _ => return None,
        };
        let pos: Vec<(u8, i128)> = idx
            .iter()
            .map(|e| classify(&self.own, &self.tid, shared, e))
            .collect::<Option<_>>()?;
        let fits = pos.len() == spec.len()
            && pos
                .iter()
                .zip(spec)
                .all(|(&(a, o), &(sa, _, _))| a == sa && o >= -MAX_OFFSET);
        fits.then_some(pos)
    }
}

/// The span plan of `k`, or `None` when no array of it can use one.
pub fn plan(k: &Kernel) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier {
        return None;
    }
    plan_of(k, &mut |f| each_stmt_in_block(&k.body, f))
}

/// The span plan of one barrier-free part `stmts` of a split kernel.
fn plan_part(k: &Kernel, stmts: &[&Stmt]) -> Option<SpanPlan> {
    if k.ret.is_some() {
        return None;
    }
    plan_of(k, &mut |f| stmts.iter().for_each(|s| each_stmt(s, f)))
}

/// `threadIdx`'s axis, if `e` is `thread_idx().x` (or `.y`, `.z`).
fn thread_axis(e: &Expr) -> Option<Axis> {
    match &e.kind {
        ExprKind::BuiltinAxis(Builtin::ThreadIdx, a) => Some(*a),
        ExprKind::Idx3Field(base, a) if matches!(base.kind, ExprKind::Builtin(Builtin::ThreadIdx)) => Some(*a),
        _ => None,
    }
}

/// Per local: the axis of `threadIdx` it holds for its whole life (as
/// `own_locals` for `grid(..)`).
fn tid_locals(k: &Kernel) -> Vec<Option<Axis>> {
    let mut tid: Vec<Option<Axis>> = vec![None; k.locals.len()];
    let mut binds = vec![0usize; k.locals.len()];
    let mut other = vec![false; k.locals.len()];
    each_stmt_in_block(&k.body, &mut |s| match s {
        Stmt::Let { local, init } => {
            binds[*local] += 1;
            match init.as_ref().and_then(thread_axis) {
                Some(a) => tid[*local] = Some(a),
                None => other[*local] = true,
            }
        }
        Stmt::LetTuple { locals, .. } => locals.iter().flatten().for_each(|l| other[*l] = true),
        Stmt::Assign {
            place: Place::Local(l), ..
        } => other[*l] = true,
        Stmt::For { var, .. } => other[*var] = true,
        _ => {}
    });
    for (id, t) in tid.iter_mut().enumerate() {
        if k.locals[id].mutable || binds[id] != 1 || other[id] || k.locals[id].ty != Ty::Scalar(Scalar::Usize) {
            *t = None;
        }
    }
    tid
}

/// The span plan of the statements `visit` walks (each nested statement
/// once).
fn plan_of(k: &Kernel, visit: &mut dyn FnMut(&mut dyn FnMut(&Stmt))) -> Option<SpanPlan> {
    let own = own_locals(k);
    let tid = tid_locals(k);
    let owned = owned_params(k);
    // Per array: `Some(positions)` while every classified access agrees on
    // the axis of each position; read-only and owned parameters, and shared
    // arrays.
    let np = k.params.len();
    let mut arrays: Vec<Option<Vec<(u8, i128, i128)>>> = vec![None; np + k.shared.len()];
    let mut bad = vec![false; np + k.shared.len()];
    for (p, param) in k.params.iter().enumerate() {
        match param.kind {
            ParamKind::Array { mutable: false, .. } => {}
            ParamKind::Array { mutable: true, .. } if owned[p] => {}
            _ => bad[p] = true,
        }
    }
    let mut note = |a: ArrayRef, idx: &[Expr]| {
        let (slot, shared) = match a {
            ArrayRef::Param(p) => (p, false),
            ArrayRef::Shared(s) => (np + s, true),
            _ => return,
        };
        if bad[slot] {
            return;
        }
        let Some(pos) = idx
            .iter()
            .map(|e| classify(&own, &tid, shared, e))
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        let spec = &mut arrays[slot];
        match spec {
            None => *spec = Some(pos.iter().map(|&(a, o)| (a, o, o)).collect()),
            Some(sp) if sp.len() == pos.len() && sp.iter().zip(&pos).all(|(s, q)| s.0 == q.0) => {
                for (s, q) in sp.iter_mut().zip(&pos) {
                    s.1 = s.1.min(q.1);
                    s.2 = s.2.max(q.1);
                }
            }
            Some(_) => {
                bad[slot] = true;
                *spec = None;
            }
        }
    };
    visit(&mut |s| {
        if let Stmt::Assign {
            place: Place::Elem(a, idx),
            ..
        } = s
        {
            note(*a, idx);
        }
        each_expr(s, &mut |e| {
            if let ExprKind::Load(a, idx) = &e.kind {
                note(*a, idx);
            }
        });
    });
    // `each_expr` sees nested statements' loads once per enclosing
    // statement: harmless, the bounds are a min and a max.
    let shared = arrays.split_off(np);
    (arrays.iter().chain(&shared).any(Option::is_some)).then_some(SpanPlan {
        arrays,
        shared,
        own,
        tid,
    })
}

/// The span of parameter `p` in the fast loop.
pub fn span_ident(p: usize) -> Ident {
    format_ident!("gj_span_{}", p, span = Span::mixed_site())
}

/// The span of shared array `s` in the fast loop.
pub fn shared_span_ident(s: usize) -> Ident {
    format_ident!("gj_sspan_{}", s, span = Span::mixed_site())
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
        for &(a, lo, hi) in spec.iter().filter(|s| s.0 != CONST) {
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
        for (pos, &(a, lo, hi)) in spec.iter().enumerate().filter(|(_, s)| s.0 != CONST) {
            let extent = if ndim == 1 {
                quote! { #view.len() }
            } else {
                quote! { #view.dim(#pos) }
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

/// The spans' names and the expressions that make them for one block.
fn makes(k: &Kernel, plan: &SpanPlan) -> (Vec<Ident>, Vec<TokenStream>) {
    let blk = block_ident();
    let spec_tokens = |spec: &[(u8, i128, i128)]| {
        let parts = spec.iter().map(|&(a, lo, hi)| {
            let (lo, hi) = (isize_tokens(lo), isize_tokens(hi));
            quote! { (#a, #lo, #hi) }
        });
        quote! { [#(#parts),*] }
    };
    let mut names = Vec::new();
    let mut makes = Vec::new();
    for (p, spec) in plan.arrays.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let view = ident(&k.params[p].name);
        let ParamKind::Array { mutable, .. } = k.params[p].kind else {
            continue;
        };
        let spec = spec_tokens(spec);
        // Owned arrays' views were made for the block already.
        makes.push(if mutable {
            quote! { #view.span(#spec) }
        } else {
            quote! { #view.span(#blk, #spec) }
        });
        names.push(span_ident(p));
    }
    for (s, spec) in plan.shared.iter().enumerate() {
        let Some(spec) = spec else { continue };
        let view = ident(&k.shared[s].name);
        let spec = spec_tokens(spec);
        makes.push(quote! { #view.span(#blk, #spec) });
        names.push(shared_span_ident(s));
    }
    (names, makes)
}

/// `fast` (the thread loop on spans, given the bounds) in the blocks where
/// every span of `plan` can be made, else `checked`.
fn choose(
    k: &Kernel,
    plan: &SpanPlan,
    fast: impl FnOnce(&[TokenStream]) -> TokenStream,
    checked: TokenStream,
) -> TokenStream {
    let blk = block_ident();
    let (names, makes) = makes(k, plan);
    let bounds = bounds(k, plan);
    let fast = fast(&bounds);
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

/// The barrier-free block body `checked` (the plain thread loop of `k`),
/// preceded by its span version when `k` has arrays with spans.
pub fn versioned(k: &Kernel, checked: TokenStream) -> TokenStream {
    let Some(plan) = plan(k) else {
        return checked;
    };
    let (blk, t) = (block_ident(), thread_ident());
    let em = Emitter::new(k).with_spans(plan.clone());
    let copies = param_copies(k, &[]);
    let body = em.block_stmts(&k.body);
    let fast = |bounds: &[TokenStream]| quote! { #blk.threads_within(&[#(#bounds),*], |#t| { #copies #body }); };
    choose(k, &plan, fast, checked)
}

/// One barrier-free part `stmts` of a split kernel, run by `checked` (its
/// thread loop as `em` emits it), preceded by its span version when the
/// part has arrays with spans (not in kernels whose threads may return:
/// their parts skip exited threads).
pub fn versioned_part(em: &Emitter, stmts: &[&Stmt], checked: TokenStream) -> TokenStream {
    let plan = match plan_part(em.k, stmts) {
        Some(plan) if !em.track_exit => plan,
        _ => return checked,
    };
    let (blk, t) = (block_ident(), thread_ident());
    let fast_em = em.clone().with_spans(plan.clone());
    let body: TokenStream = stmts.iter().map(|s| fast_em.stmt(s)).collect();
    let body = crate::cpu_split::wrap_part(&fast_em, stmts, &[], body);
    let fast = |bounds: &[TokenStream]| quote! { #blk.threads_within(&[#(#bounds),*], |#t| { #body }); };
    choose(em.k, &plan, fast, checked)
}
