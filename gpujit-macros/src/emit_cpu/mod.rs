//! CPU emitter: kernel model → native Rust run once per block by the CPU
//! backend, which loops over the block's threads (see `cpu::split` for kernels
//! with barriers). This module emits what one thread does: every array
//! access goes through the runtime's bounds-checked `View`, and integer
//! arithmetic wraps as it does on the GPU.
//!
//! This module holds the entry point, the emitter's state and the names it
//! binds; statements, expressions and array accesses are emitted by its
//! submodules.

use std::cell::Cell;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::model::*;

mod arrays;
mod expr;
mod stmt;

/// The identifier of the per-thread context inside generated code. Its
/// mixed-site span (`macro_rules` hygiene) keeps it apart from every user name.
pub fn thread_ident() -> Ident {
    Ident::new("gj_thread", Span::mixed_site())
}

/// The identifier of the block (`gpujit::__private::Block`) in generated code.
pub fn block_ident() -> Ident {
    Ident::new("gj_block", Span::mixed_site())
}

/// The per-thread exit flags of a split kernel whose threads may `return`.
pub fn exited_ident() -> Ident {
    Ident::new("gj_exited", Span::mixed_site())
}

/// The per-thread array that holds local `l` across barriers.
pub fn spill_ident(l: &Local) -> Ident {
    format_ident!("gj_spill_{}", l.name, span = Span::mixed_site())
}

pub use crate::syntax::ident;

fn scalar_ty(s: Scalar) -> Ident {
    ident(s.rust_name())
}

pub struct CpuCode {
    /// Items before the block function: body `const`s and the shared layout.
    pub prelude: TokenStream,
    pub shared_bytes: TokenStream,
    pub shared_align: TokenStream,
    /// The body of the block function (`gj_block` in scope).
    pub body: TokenStream,
    /// The body of the checked copy's block function (`gj_block` in scope).
    pub checked: TokenStream,
}

/// How the fast thread loop of a CPU strategy reaches arrays: the emitter
/// asks, the strategy answers (block spans, `cpu::span`, implement it).
pub trait Accesses {
    /// The span and its positions for an access to `a` at `idx`, if the
    /// access takes a span.
    fn span_access(&self, a: ArrayRef, idx: &[Expr]) -> Option<(Ident, TokenStream)>;
    /// The binding of parameter `p`'s extent `len()` (`None`) or `dim(d)`,
    /// read once per block before the loop.
    fn extent(&self, p: usize, d: Option<usize>) -> Ident;
    /// Whether `x < dim(axis)` of parameter `p` holds for every thread the
    /// loop runs.
    fn proves_below(&self, p: usize, axis: usize, x: &Expr) -> bool;
    /// The constant length of parameter `p`'s last axis that its span's
    /// loads assume, if they assume one.
    fn inner_extent(&self, p: usize) -> Option<usize>;
}

/// The block function of kernel `k` around `block_body` (the strategy's,
/// see `cpu::plan`).
pub fn emit(k: &Kernel, block_body: TokenStream, checked_body: TokenStream) -> CpuCode {
    let mut prelude = local_bytes_check(k);
    for c in &k.body_consts {
        let name = ident(&c.name);
        let ty = scalar_ty(c.ty);
        let v = &c.rust_value;
        prelude.extend(quote! { const #name: #ty = #v; });
    }
    // Shared arrays are laid out one after another, each at its alignment.
    let mut end = quote! { 0usize };
    let mut align = quote! { 1usize };
    for (i, sh) in k.shared.iter().enumerate() {
        let off = format_ident!("GJ_SHARED_OFFSET_{}", i);
        let ty = &sh.rust_type;
        let elem = scalar_ty(sh.elem);
        prelude.extend(quote! {
            const #off: usize = ::gpujit::__private::align_up(#end, ::core::mem::align_of::<#elem>());
        });
        end = quote! { (#off + ::core::mem::size_of::<#ty>()) };
        align = quote! { ::gpujit::__private::max_usize(#align, ::core::mem::align_of::<#elem>()) };
    }
    // Copies of the parameters (views are `Copy`) local to the block
    // function: the thread loops then keep them in registers, where through
    // the closure's captured references every store would force a reload.
    let blk = block_ident();
    let mut body = TokenStream::new();
    let owned = crate::analysis::owned::owned_params(k);
    for (p, own) in k.params.iter().zip(owned) {
        let name = ident(&p.name);
        // An owned array: this block's own-index view of it.
        let value = if own {
            quote! { #name.block(#blk) }
        } else {
            quote! { #name }
        };
        body.extend(quote! { #[allow(unused_variables)] let #name = #value; });
    }
    // Shared arrays belong to the block: one view each, made once per block.
    body.extend(shared_views(k));
    let mut checked = body.clone();
    body.extend(block_body);
    checked.extend(checked_body);
    prelude.extend(shared_bytes_check(k, &end));
    CpuCode {
        prelude,
        shared_bytes: end,
        shared_align: align,
        body,
        checked,
    }
}

/// The block's view of each shared array of `k`.
pub(crate) fn shared_views(k: &Kernel) -> TokenStream {
    let blk = block_ident();
    let mut body = TokenStream::new();
    for (id, sh) in k.shared.iter().enumerate() {
        let name = ident(&sh.name);
        let elem = scalar_ty(sh.elem);
        let off = format_ident!("GJ_SHARED_OFFSET_{}", id);
        let dims = sh.dims.iter().map(|d| &d.rust);
        let label = &sh.label;
        // Each extent as a `usize` constant, as Rust computes the array
        // type's length (`(16 * 16) as usize` would be `i32` arithmetic).
        body.extend(quote! {
            let #name = #blk.shared::<#elem>(#off, &[#({ const GJ_DIM: usize = #dims; GJ_DIM }),*], #label);
        });
    }
    body
}

/// Each extent of local array `a` as a `usize` constant, as for shared arrays.
fn extents(a: &LocalArray) -> Vec<TokenStream> {
    a.dims
        .iter()
        .map(|d| {
            let d = &d.rust;
            quote! { { const GJ_DIM: usize = #d; GJ_DIM } }
        })
        .collect()
}

/// The Rust type of local array `a` (`[[f32; M]; N]`).
fn local_array_type(a: &LocalArray) -> TokenStream {
    let mut ty = match a.elem {
        Ty::Scalar(s) => {
            let s = scalar_ty(s);
            quote! { #s }
        }
        _ => quote! { _ },
    };
    for d in extents(a).iter().rev() {
        ty = quote! { [#ty; #d] };
    }
    ty
}

/// A compile-time check that the local arrays of `k` fit the CPU backend's
/// budget (`LOCAL_ARRAY_BYTES`), or nothing if it declares none.
pub(crate) fn local_bytes_check(k: &Kernel) -> TokenStream {
    if k.local_arrays.is_empty() {
        return TokenStream::new();
    }
    let tys = k.local_arrays.iter().map(local_array_type);
    let msg = format!(
        "the local arrays of `{}` take more than 64 KiB per thread, more than the CPU backend keeps on a thread's stack; help: use a `&mut [T]` parameter with a slice per thread instead",
        k.name
    );
    // At the first array's declaration, where rustc reports a failure.
    let span = k.local_arrays[0].span;
    quote_spanned! {span=>
        const _: () = ::core::assert!(0usize #(+ ::core::mem::size_of::<#tys>())* <= ::gpujit::__private::LOCAL_ARRAY_BYTES, #msg);
    }
}

/// A compile-time check that the shared arrays of `k`, laid out to `end`
/// bytes, fit CUDA's static shared memory per block (48 KiB), or nothing if
/// it declares none. (NVRTC's CUBIN compile would fail only at load, and the
/// launch checks it on both backends too.)
fn shared_bytes_check(k: &Kernel, end: &TokenStream) -> TokenStream {
    let Some(first) = k.shared.first() else {
        return TokenStream::new();
    };
    let arrays: Vec<String> = k
        .shared
        .iter()
        .map(|sh| format!("`{}`: {}", sh.label, sh.rust_type.to_string().replace(' ', "")))
        .collect();
    let msg = format!(
        "the shared arrays of kernel `{}` ({}) take more than the 49152 bytes (48 KiB) of static shared memory a CUDA block may have; help: use smaller tiles, fewer shared arrays or a narrower element type",
        k.name,
        arrays.join(", ")
    );
    // At the first array's type, where rustc reports a failure.
    let span = first
        .rust_type
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    quote_spanned! {span=>
        const _: () = ::core::assert!(#end <= ::gpujit::__private::MAX_SHARED_BYTES, #msg);
    }
}

/// A fresh copy of each `mut` scalar parameter (a thread may reassign its own).
pub(crate) fn param_copies(k: &Kernel, skip: &[bool]) -> TokenStream {
    let mut ts = TokenStream::new();
    for p in &k.params {
        if let ParamKind::Scalar(_) = p.kind {
            let Some(id) = k.locals.iter().position(|l| l.name == p.name) else {
                continue;
            };
            if k.locals[id].mutable && !skip.get(id).copied().unwrap_or(false) {
                let name = ident(&p.name);
                ts.extend(quote! { let mut #name = #name; });
            }
        }
    }
    ts
}

/// Emits what one thread does.
#[derive(Clone)]
pub(crate) struct Emitter<'a> {
    pub k: &'a Kernel,
    /// Per local: kept in a per-thread array between the per-thread parts
    /// of a split kernel (it lives across a barrier); `let` assigns it.
    pub spilled: Vec<bool>,
    /// Per local of a split kernel: instead of a per-thread array, its
    /// value computed again in each part that uses it (a function of the
    /// thread's coordinates, such as `thread_idx().x`; see `cpu::split`).
    pub remat: Vec<Option<Expr>>,
    /// Whether `return` sets the thread's exit flag (split kernels whose
    /// threads may return before a barrier).
    pub track_exit: bool,
    /// In the body of a loop run in lockstep across threads (see
    /// `cpu::split`): what `break` does there (`continue` ends the thread's
    /// iteration).
    pub lockstep_break: Option<TokenStream>,
    /// The next `syncthreads()` site number (coroutine path).
    sites: Cell<u32>,
    /// While the split path emits a warp meeting's statement run after the
    /// exchange (`cpu::split`): the call's site. Its warp intrinsic then
    /// gives the result the exchange left and evaluates none of its
    /// arguments again (the gather loop did).
    replay_warp: Cell<Option<u32>>,
    /// While the split path emits a shuffle's statement after its typed
    /// exchange (`cpu::split`): the per-thread array holding each thread's
    /// result, which the call then reads.
    replay_values: std::cell::RefCell<Option<Ident>>,
    /// Per parameter: accessed through own-index views (see `owned`).
    owned: Vec<bool>,
    /// Per local: the variable of a grid-stride loop that partitions the
    /// arrays it indexes (see `owned::partition_vars`).
    part: Vec<bool>,
    /// In the fast thread loop of block spans: which accesses go through
    /// a span (see `Accesses`).
    spans: Option<std::rc::Rc<dyn Accesses>>,
    /// The checked copy of the kernel (`GPUJIT_CHECK`): accesses to array
    /// parameters and shared arrays go through the views' `ld_at`/`st_at`/
    /// `atomic_at`, which tell the runtime's shadow memory their line.
    checked: bool,
}

impl<'a> Emitter<'a> {
    pub fn new(k: &'a Kernel) -> Self {
        Emitter {
            k,
            spilled: vec![false; k.locals.len()],
            remat: vec![None; k.locals.len()],
            track_exit: false,
            lockstep_break: None,
            sites: Cell::new(0),
            replay_warp: Cell::new(None),
            replay_values: std::cell::RefCell::new(None),
            owned: crate::analysis::owned::owned_params(k),
            part: crate::analysis::owned::partition_vars(k),
            spans: None,
            checked: false,
        }
    }

    /// This emitter for the checked copy of the kernel (see `checked`).
    pub fn checked(mut self) -> Self {
        self.checked = true;
        self
    }

    /// This emitter for the fast loop of block spans.
    pub fn with_spans(mut self, plan: impl Accesses + 'static) -> Self {
        self.spans = Some(std::rc::Rc::new(plan));
        self
    }

    /// The span and positions of an access to `a` at `idx`, if it takes a
    /// span (the fast loop of `cpu::span`).
    fn span_access(&self, a: ArrayRef, idx: &[Expr]) -> Option<(Ident, TokenStream)> {
        self.spans.as_ref()?.span_access(a, idx)
    }

    /// Whether `x < d` holds for every thread of the fast loop of a split
    /// part on spans: `d` is an extent of a parameter (`a.dim(1)`, or a
    /// local each part computes again as one, `k` of `let (n, k) =
    /// a.dim();`), and `x` an index that the span of that parameter at that
    /// axis was checked for (`ka` of a tile load). The kernel's guard is then
    /// `true` there, which LLVM could not see through the runtime's hints in
    /// a block function this large. (Soundness does not rest on this: the
    /// span accesses still check their positions.)
    fn span_proves_below(&self, x: &Expr, d: &Expr) -> bool {
        let Some(plan) = &self.spans else {
            return false;
        };
        let extent = |e: &Expr| match &e.kind {
            ExprKind::Dim(p, axis) => Some((*p, *axis)),
            ExprKind::Len(p) => Some((*p, 0)).filter(|_| {
                matches!(
                    self.k.params.get(*p).map(|p| &p.kind),
                    Some(ParamKind::Array { ndim: 1, .. })
                )
            }),
            _ => None,
        };
        let d = match &d.kind {
            ExprKind::Local(id) => match self.remat.get(*id) {
                Some(Some(init)) => init,
                _ => return false,
            },
            _ => d,
        };
        extent(d).is_some_and(|(p, axis)| plan.proves_below(p, axis, x))
    }

    /// The constant length of `a`'s last axis that its span's loads assume
    /// (the `inner` copy of the fast loop; see `SpanPlan::inner_extent`).
    fn span_inner(&self, a: ArrayRef) -> Option<usize> {
        match (a, &self.spans) {
            (ArrayRef::Param(p), Some(plan)) => plan.inner_extent(p),
            _ => None,
        }
    }

    /// Numbers the `syncthreads()` sites from `first` (a device function's
    /// apart from its kernel's, for the divergent-barrier check).
    pub fn first_site(self, first: u32) -> Self {
        self.sites.set(first);
        self
    }

    /// The site number the next barrier, vote or warp intrinsic emitted
    /// will take.
    pub fn peek_site(&self) -> u32 {
        self.sites.get()
    }

    /// `f`'s code, with each warp intrinsic in it giving the result of the
    /// meeting at `site` (see `replay_warp`).
    pub fn replaying_warp<R>(&self, site: u32, f: impl FnOnce() -> R) -> R {
        self.replay_warp.set(Some(site));
        let out = f();
        self.replay_warp.set(None);
        out
    }

    /// `f`'s code, with each warp intrinsic in it giving thread `t`'s
    /// element of the per-thread array `values` (see `replay_values`).
    pub fn replaying_values<R>(&self, values: &Ident, f: impl FnOnce() -> R) -> R {
        *self.replay_values.borrow_mut() = Some(values.clone());
        let out = f();
        *self.replay_values.borrow_mut() = None;
        out
    }

    /// Local `id` as a place. A spilled local is a Rust local too: each
    /// per-thread part loads it from its per-thread array first and stores
    /// it back after (see `cpu::split::wrap_part`), so that it lives in a
    /// register while the part runs.
    fn place(&self, id: LocalId) -> TokenStream {
        let name = ident(&self.k.locals[id].name);
        quote! { #name }
    }

    /// A fresh barrier site number (coroutine path: threads waiting at
    /// different sites are a divergent barrier).
    pub(crate) fn next_site(&self) -> u32 {
        let site = self.sites.get();
        self.sites.set(site + 1);
        site
    }

    pub fn block_stmts(&self, b: &Block) -> TokenStream {
        let mut ts = TokenStream::new();
        for s in &b.stmts {
            ts.extend(self.stmt(s));
        }
        if let Some(tail) = &b.tail {
            ts.extend(self.expr(tail));
        }
        ts
    }

    fn block(&self, b: &Block) -> TokenStream {
        let inner = self.block_stmts(b);
        quote! { { #inner } }
    }

    fn local(&self, id: LocalId) -> (Ident, &Local) {
        let l = &self.k.locals[id];
        (ident(&l.name), l)
    }

    fn annot(ty: Ty) -> TokenStream {
        match ty {
            Ty::Scalar(s) => {
                let t = scalar_ty(s);
                quote! { : #t }
            }
            _ => TokenStream::new(),
        }
    }

    pub fn stmt(&self, s: &Stmt) -> TokenStream {
        crate::stack::deep(|| self.stmt_at(s))
    }
}

/// `range.rev().step_by(step)` for a `step` already checked (a fault
/// recorded if it is 0): a zero step gives no elements, where Rust's
/// `step_by` would panic.
pub(crate) fn rev_step_by(range: &TokenStream, step: &Ident) -> TokenStream {
    quote! {
        #range.rev().step_by(if #step == 0 { 1 } else { #step }).take(if #step == 0 { 0 } else { usize::MAX })
    }
}
