//! Which accesses take spans: the classification of each index (own
//! index, `threadIdx`, a literal, a block-uniform local, a lockstep loop's
//! counter) and the plan per kernel, part, lockstep loop or round.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::analysis::owned::{own_locals, owned_params};
use crate::model::visit::{each_expr, each_stmt, each_stmt_in_block};
use crate::model::*;

/// `SpanAxis` values of the runtime (`OWN_X`, `OWN_Y`, `OWN_Z`, `CONST`,
/// `UNIFORM`).
pub(super) const CONST: u8 = 3;
pub(super) const UNIFORM: u8 = 7;

/// The largest offset taken (keeps every bound far inside `isize`).
pub(super) const MAX_OFFSET: i128 = 1 << 20;

/// Which arrays of a kernel run on spans in the fast loop.
#[derive(Debug, Clone)]
pub struct SpanPlan {
    /// Per parameter: per position, the axis and the offsets of its
    /// classified accesses; `None` if it has no span.
    pub(super) arrays: Vec<Option<Vec<PosSpec>>>,
    /// The same per shared array (indexed by `threadIdx` or a literal).
    pub(super) shared: Vec<Option<Vec<PosSpec>>>,
    pub(super) own: Vec<Option<Axis>>,
    pub(super) tid: Vec<Option<Axis>>,
    /// Block-uniform `usize` locals a shared array's `threadIdx` may be
    /// offset by (a narrowed part's `tid + stride`; see `narrow`).
    pub(super) uni: Vec<LocalId>,
    /// The counter of a loop run in lockstep, one round per span (see
    /// `loop_plan`): an index that is this local is `UNIFORM`.
    pub(super) uniform: Option<LocalId>,
    /// A round of a grid-stride loop (see `round_plan`): `own` marks only its
    /// variable (own index plus the round's shift), and `grid(..)` itself is
    /// not an own position.
    pub(super) shifted: bool,
    /// A split part's indices that are `threadIdx` on an axis plus a
    /// block-uniform value (`let ka = t * TILE + tx;`, or that sum inline;
    /// see `tid`): such an index is that axis (`TID_UNI + axis`) with
    /// `Off::Uni(key)`, the value bound as `uni_ident(key)` before the
    /// thread loop.
    pub(super) tid_uni: Vec<TidLet>,
    /// A plan of a split part that is not narrowed (`plan_part` with
    /// `tid_uni`): its fast loop runs every thread of the block, so that a
    /// span proves the kernel's guards (see `proves_below`).
    pub(super) global_tid: bool,
    /// The copy of the fast loop for arrays whose last axis is as long as
    /// its constant indices need (see `inner_extent`): loads take that
    /// length as a constant.
    pub(super) inner: bool,
}

/// The offset of one position of a classified access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Off {
    /// An integer literal (negative: subtracted).
    Lit(i128),
    /// A block-uniform local, bound as `uni_ident` before the thread loop.
    Uni(LocalId),
}

/// What the accesses at one position of an array use: the axis, the least
/// and greatest literal offset (if any) and the uniform locals.
#[derive(Debug, Clone)]
pub(super) struct PosSpec {
    pub(super) axis: u8,
    pub(super) lits: Option<(i128, i128)>,
    pub(super) unis: Vec<LocalId>,
}

impl PosSpec {
    pub(super) fn new(axis: u8, o: Off) -> Self {
        let mut p = PosSpec {
            axis,
            lits: None,
            unis: Vec::new(),
        };
        p.add(o);
        p
    }

    pub(super) fn add(&mut self, o: Off) {
        match o {
            Off::Lit(v) => self.lits = Some(self.lits.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v)))),
            Off::Uni(u) if !self.unis.contains(&u) => self.unis.push(u),
            Off::Uni(_) => {}
        }
    }

    /// The literal range (parameters' positions only have literals).
    pub(super) fn lit_range(&self) -> (i128, i128) {
        self.lits.unwrap_or((0, 0))
    }

    /// The least and greatest offset as `isize` expressions.
    pub(super) fn bounds_tokens(&self) -> (TokenStream, TokenStream) {
        let mut lo: Vec<TokenStream> = Vec::new();
        let mut hi: Vec<TokenStream> = Vec::new();
        if let Some((l, h)) = self.lits {
            lo.push(isize_tokens(l));
            hi.push(isize_tokens(h));
        }
        for &u in &self.unis {
            let id = uni_ident(u);
            lo.push(quote! { #id });
            hi.push(quote! { #id });
        }
        let fold = |v: Vec<TokenStream>, f: TokenStream| {
            let mut it = v.into_iter();
            let first = it.next().unwrap_or_else(|| quote! { 0isize });
            it.fold(first, |a, b| quote! { ::core::cmp::#f(#a, #b) })
        };
        (fold(lo, quote! { min }), fold(hi, quote! { max }))
    }
}

/// The `isize` value of block-uniform local `id` in a narrowed part with
/// spans (see `narrow`).
pub fn uni_ident(id: LocalId) -> Ident {
    format_ident!("gj_u_{}", id, span = Span::mixed_site())
}

/// `SpanAxis` of `threadIdx.x` (then y, z).
pub(super) const TID: u8 = 4;
/// `SpanAxis` of `threadIdx.x` plus the span's block-uniform value (then y,
/// z; the runtime's `TID_UNI_X`): accesses pass offset 0.
pub(super) const TID_UNI: u8 = 8;

pub(super) fn axis_code(a: Axis) -> u8 {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

impl SpanPlan {
    /// In the `inner` copy of the fast loop, the length of parameter `p`'s
    /// last axis that its span's loads assume (see `last_const_extent`).
    pub fn inner_extent(&self, p: usize) -> Option<usize> {
        self.inner.then(|| self.last_const_extent(p)).flatten()
    }

    /// `hi + 1` for an array of 2 or 3 dimensions indexed on its last axis by
    /// literals `0..=hi` only (grayscale's `rgb[[y, x, 0..=2]]`): assumed to
    /// be that axis's length, LLVM sees the stride between threads (`hi + 1`
    /// elements, not a run-time extent, with which it cannot vectorize).
    pub(super) fn last_const_extent(&self, p: usize) -> Option<usize> {
        let spec = self.arrays.get(p)?.as_ref()?;
        let last = spec.last()?;
        let (lo, hi) = last.lits?;
        (last.axis == CONST && last.unis.is_empty() && spec.len() >= 2 && lo >= 0 && hi < MAX_INNER)
            .then(|| usize::try_from(hi + 1).ok())
            .flatten()
    }

    /// The parameters with an `inner_extent`, and that extent.
    pub(super) fn inner_extents(&self) -> Vec<(usize, usize)> {
        (0..self.arrays.len())
            .filter_map(|p| self.last_const_extent(p).map(|n| (p, n)))
            .collect()
    }

    /// `e` as `(axis, offset)`: own index plus or minus a literal, a literal,
    /// or the lockstep loop's counter `uniform`. With `shared`, `threadIdx`
    /// (through `tid`) instead of the own index.
    pub(super) fn classify(&self, shared: bool, e: &Expr) -> Option<(u8, Off)> {
        if let (ExprKind::Local(id), Some(u), false) = (&e.kind, self.uniform, shared) {
            if *id == u && e.ty == Ty::Scalar(Scalar::Usize) {
                return Some((UNIFORM, Off::Lit(0)));
            }
        }
        if let Some(m) = self.tid_match(e) {
            return Some(m);
        }
        let tid_axis = |e: &Expr| {
            match &e.kind {
                ExprKind::Local(id) => self.tid.get(*id).copied().flatten(),
                _ => thread_axis(e),
            }
            .map(|a| TID + axis_code(a))
        };
        let own_axis = |e: &Expr| match (&e.kind, shared) {
            (ExprKind::Grid(a), false) if !self.shifted => Some(axis_code(*a)),
            (ExprKind::Local(id), false) => self.own.get(*id).copied().flatten().map(axis_code),
            (_, true) => tid_axis(e),
            _ => None,
        };
        let lit = |e: &Expr| match e.kind {
            ExprKind::Lit(Lit::Int(v)) if e.ty == Ty::Scalar(Scalar::Usize) && (0..=MAX_OFFSET).contains(&v) => Some(v),
            _ => None,
        };
        // A shared array's `threadIdx` offset by a uniform `usize` local.
        let off = |e: &Expr| match &e.kind {
            ExprKind::Local(id) if shared && self.uni.contains(id) && e.ty == Ty::Scalar(Scalar::Usize) => {
                Some(Off::Uni(*id))
            }
            _ => lit(e).map(Off::Lit),
        };
        let r = match &e.kind {
            ExprKind::Lit(_) => (CONST, Off::Lit(lit(e)?)),
            ExprKind::Binary(BinOp::Add, a, b) => match (own_axis(a), own_axis(b)) {
                (Some(ax), None) => (ax, off(b)?),
                (None, Some(ax)) => (ax, off(a)?),
                _ => return None,
            },
            ExprKind::Binary(BinOp::Sub, a, b) => (own_axis(a)?, Off::Lit(-lit(b)?)),
            _ => (own_axis(e)?, Off::Lit(0)),
        };
        Some(r)
    }

    /// Whether the span of parameter `p` (in a split part's plan, whose fast
    /// loop runs every thread of the block) was checked for index `x` at
    /// axis `axis`: then `x < dim(axis)` in every thread of that loop.
    pub fn proves_below(&self, p: usize, axis: usize, x: &Expr) -> bool {
        let Some(spec) = self.arrays.get(p).and_then(Option::as_ref).and_then(|s| s.get(axis)) else {
            return false;
        };
        let Some((a, off)) = self.classify(false, x) else {
            return false;
        };
        self.global_tid
            && a == spec.axis
            && match off {
                Off::Lit(v) => spec.lits.is_some_and(|(lo, hi)| lo <= v && v <= hi),
                Off::Uni(u) => spec.unis.contains(&u),
            }
    }

    /// The classified positions of an access to parameter `p` at `idx` that
    /// takes its span, or `None` (the access stays checked).
    pub fn access(&self, a: ArrayRef, idx: &[Expr]) -> Option<Vec<(u8, Off)>> {
        let (spec, shared) = match a {
            ArrayRef::Param(p) => (self.arrays.get(p)?.as_ref()?, false),
            ArrayRef::Shared(s) => (self.shared.get(s)?.as_ref()?, true),
            _ => return None,
        };
        let pos: Vec<(u8, Off)> = idx.iter().map(|e| self.classify(shared, e)).collect::<Option<_>>()?;
        let fits = pos.len() == spec.len()
            && pos.iter().zip(spec).all(|(&(a, o), sp)| {
                a == sp.axis
                    && match o {
                        // One value per such position (the runtime adds
                        // the span's own).
                        Off::Uni(u) if (TID_UNI..TID_UNI + 3).contains(&a) => sp.unis == [u] && sp.lits.is_none(),
                        Off::Lit(v) => v >= -MAX_OFFSET,
                        Off::Uni(u) => sp.unis.contains(&u),
                    }
            });
        fits.then_some(pos)
    }
}

/// Constant last indices below this get an `inner` copy of the fast loop
/// (an RGB or RGBA pixel, a point's coordinates).
pub(super) const MAX_INNER: i128 = 16;

/// The span plan of `k`, or `None` when no array of it can use one.
pub fn plan(k: &Kernel) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier {
        return None;
    }
    let params = span_params(k, true, false);
    plan_of(k, PlanScope::new(params, true), &mut |f| each_stmt_in_block(&k.body, f))
}

/// The span plan of one barrier-free part `stmts` of a split kernel.
/// `uni`: block-uniform `usize` locals a shared array's `threadIdx` may be
/// offset by (bound as `uni_ident`s by the caller).
/// `tid`: the part's `threadIdx`-plus-uniform locals (see `tid_lets`),
/// given only for a part that is not narrowed, where global arrays take
/// `threadIdx` positions too.
pub fn plan_part(k: &Kernel, stmts: &[&Stmt], uni: &[LocalId], tid: Option<&[TidLet]>) -> Option<SpanPlan> {
    if k.ret.is_some() {
        return None;
    }
    let scope = PlanScope {
        uni: uni.to_vec(),
        tid_uni: tid.unwrap_or_default().to_vec(),
        global_tid: tid.is_some(),
        ..PlanScope::new(span_params(k, true, false), true)
    };
    plan_of(k, scope, &mut |f| stmts.iter().for_each(|s| each_stmt(s, f)))
}

/// The span plan of one round of the unit-stride loop of `k` with counter
/// `var` and body `body`, run in lockstep (see `cpu::lockstep`): the
/// read-only arrays that the body indexes with own indices, literals and
/// `var` itself (`b[[i, col]]`); `None` when there are none.
pub fn loop_plan(k: &Kernel, var: LocalId, body: &[&Stmt]) -> Option<SpanPlan> {
    if k.ret.is_some() || k.uses_barrier || k.locals[var].ty != Ty::Scalar(Scalar::Usize) {
        return None;
    }
    let scope = PlanScope {
        uniform: Some(var),
        ..PlanScope::new(span_params(k, false, false), false)
    };
    let plan = plan_of(k, scope, &mut |f| body.iter().for_each(|s| each_stmt(s, f)))?;
    // A span per round pays for the uniform position only.
    plan.arrays
        .iter()
        .flatten()
        .any(|spec| spec.iter().any(|s| s.axis == UNIFORM))
        .then_some(plan)
}

/// The span plan of one round of a unit-stride loop with counter `var` run
/// in lockstep whose body touches no array (it computes on locals alone, as
/// `for j in 0..n { s += f(i, j) }`): no array has a span, so a round checks
/// nothing and runs its threads side by side.
pub fn no_array_plan(k: &Kernel, var: LocalId) -> SpanPlan {
    SpanPlan {
        arrays: vec![None; k.params.len()],
        shared: vec![None; k.shared.len()],
        own: own_locals(k),
        tid: tid_locals(k),
        uni: Vec::new(),
        uniform: Some(var),
        shifted: false,
        tid_uni: Vec::new(),
        global_tid: false,
        inner: false,
    }
}

/// The span plan of one round of the grid-stride loop of `k` with variable
/// `var` (starting at the thread's own index, `grid(1)`) and body `body`, run
/// in lockstep: in round `r` the variable is the own index plus `r * step`,
/// so `x[i]`, `x[i + 1]` of a read-only array and `y[i]` of an owned one
/// (partitioned by the loop, see `owned::partition_vars`) take spans shifted
/// by that offset. `None` when no array takes one. In a part of a split
/// kernel (`split`), only read-only arrays take spans: whether a thread
/// writes its own elements only is a fact of a barrier-free kernel.
pub fn round_plan(k: &Kernel, var: LocalId, body: &[&Stmt], split: bool) -> Option<SpanPlan> {
    if k.ret.is_some() || (k.uses_barrier && !split) || k.locals[var].ty != Ty::Scalar(Scalar::Usize) {
        return None;
    }
    let scope = PlanScope {
        shifted: Some(var),
        ..PlanScope::new(span_params(k, !split, true), false)
    };
    let plan = plan_of(k, scope, &mut |f| body.iter().for_each(|s| each_stmt(s, f)))?;
    // An owned array's span is at the (shifted) own index only.
    let owned = owned_params(k);
    let ok = plan.arrays.iter().zip(&owned).all(|(spec, &owned)| match spec {
        Some(spec) if owned => {
            matches!(spec.as_slice(), [p] if p.axis == 0 && p.lits == Some((0, 0)) && p.unis.is_empty())
        }
        _ => true,
    });
    ok.then_some(plan)
}

/// Per parameter: whether it may take a span: read-only arrays, owned ones
/// with `owned`, and only 1-D ones with `one_d`.
fn span_params(k: &Kernel, owned: bool, one_d: bool) -> Vec<bool> {
    let owned_params = owned_params(k);
    k.params
        .iter()
        .zip(&owned_params)
        .map(|(param, &is_owned)| match param.kind {
            ParamKind::Array { ndim, .. } if one_d && ndim != 1 => false,
            ParamKind::Array { mutable, .. } => !mutable || (owned && is_owned),
            ParamKind::Scalar(_) => false,
        })
        .collect()
}

/// What `plan_of` gives spans to, and how it reads indices.
struct PlanScope {
    /// Per parameter: whether it may take a span (see `span_params`).
    params: Vec<bool>,
    /// Whether shared arrays may take spans.
    shared: bool,
    /// See `SpanPlan::uni`.
    uni: Vec<LocalId>,
    /// See `SpanPlan::uniform`.
    uniform: Option<LocalId>,
    /// The grid-stride loop variable of `SpanPlan::shifted`.
    shifted: Option<LocalId>,
    /// See `SpanPlan::tid_uni`.
    tid_uni: Vec<TidLet>,
    /// See `SpanPlan::global_tid`.
    global_tid: bool,
}

impl PlanScope {
    pub(super) fn new(params: Vec<bool>, shared: bool) -> Self {
        PlanScope {
            params,
            shared,
            uni: Vec::new(),
            uniform: None,
            shifted: None,
            tid_uni: Vec::new(),
            global_tid: false,
        }
    }
}

/// `threadIdx`'s axis, if `e` is `thread_idx().x` (or `.y`, `.z`).
pub(super) fn thread_axis(e: &Expr) -> Option<Axis> {
    match &e.kind {
        ExprKind::BuiltinAxis(Builtin::ThreadIdx, a) => Some(*a),
        ExprKind::Idx3Field(base, a) if matches!(base.kind, ExprKind::Builtin(Builtin::ThreadIdx)) => Some(*a),
        _ => None,
    }
}

/// Per local: the axis of `threadIdx` it holds for its whole life (as
/// `own_locals` for `grid(..)`).
pub(super) fn tid_locals(k: &Kernel) -> Vec<Option<Axis>> {
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

/// What `plan_of`'s walk calls on each statement.
type StmtVisitor<'v> = &'v mut dyn FnMut(&Stmt);

/// The span plan of the statements `visit` walks (each nested statement
/// once), for the arrays `scope` allows.
fn plan_of(k: &Kernel, scope: PlanScope, visit: &mut dyn FnMut(StmtVisitor)) -> Option<SpanPlan> {
    let own = match scope.shifted {
        None => own_locals(k),
        Some(var) => {
            let mut own = vec![None; k.locals.len()];
            own[var] = Some(Axis::X);
            own
        }
    };
    let mut plan = SpanPlan {
        arrays: Vec::new(),
        shared: Vec::new(),
        own,
        tid: tid_locals(k),
        uni: scope.uni,
        uniform: scope.uniform,
        shifted: scope.shifted.is_some(),
        tid_uni: scope.tid_uni,
        global_tid: scope.global_tid,
        inner: false,
    };
    // Per array: `Some(positions)` while every classified access agrees on
    // the axis of each position; the parameters `scope` allows, and shared
    // arrays.
    let np = k.params.len();
    let mut arrays: Vec<Option<Vec<PosSpec>>> = vec![None; np + k.shared.len()];
    let mut bad: Vec<bool> = scope.params.iter().map(|a| !a).collect();
    bad.resize(np + k.shared.len(), !scope.shared);
    let mut note = |a: ArrayRef, idx: &[Expr]| {
        let (slot, shared) = match a {
            ArrayRef::Param(p) => (p, false),
            ArrayRef::Shared(s) => (np + s, true),
            _ => return,
        };
        if bad[slot] {
            return;
        }
        let Some(pos) = idx.iter().map(|e| plan.classify(shared, e)).collect::<Option<Vec<_>>>() else {
            return;
        };
        let spec = &mut arrays[slot];
        match spec {
            None => *spec = Some(pos.iter().map(|&(a, o)| PosSpec::new(a, o)).collect()),
            Some(sp) if sp.len() == pos.len() && sp.iter().zip(&pos).all(|(s, q)| s.axis == q.0) => {
                for (s, q) in sp.iter_mut().zip(&pos) {
                    s.add(q.1);
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
    plan.shared = arrays.split_off(np);
    plan.arrays = arrays;
    (plan.arrays.iter().chain(&plan.shared).any(Option::is_some)).then_some(plan)
}

/// `v` as an `isize` expression (a negative literal as a negation).
pub(super) fn isize_tokens(v: i128) -> TokenStream {
    let abs = proc_macro2::Literal::isize_suffixed(v.unsigned_abs() as isize);
    if v < 0 {
        quote! { (-#abs) }
    } else {
        quote! { #abs }
    }
}

/// A `threadIdx`-plus-uniform index of a split part (a tile load, see
/// `tid`): a `let` of a local (`local`), or every
/// occurrence of one sum inline (`local` `None`); `key` names the value's
/// binding (`uni_ident(key)`: the local's id, or a number past the kernel's
/// locals).
#[derive(Debug, Clone)]
pub struct TidLet {
    pub(super) key: LocalId,
    pub(super) local: Option<LocalId>,
    /// `TID_UNI` plus the axis code.
    pub(super) axis: u8,
    /// The uniform addend.
    pub(super) value: Expr,
}
