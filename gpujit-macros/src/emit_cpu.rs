//! CPU emitter: kernel model → native Rust run once per block by the CPU
//! backend, which loops over the block's threads (see `cpu_split` for kernels
//! with barriers). This module emits what one thread does: every array
//! access goes through the runtime's bounds-checked `View`, and integer
//! arithmetic wraps as it does on the GPU.

use std::cell::Cell;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::model::*;

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

pub fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

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
}

pub fn emit(k: &Kernel) -> CpuCode {
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
    let owned = crate::owned::owned_params(k);
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
    body.extend(crate::device::block_body(k));
    CpuCode {
        prelude,
        shared_bytes: end,
        shared_align: align,
        body,
    }
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
    /// thread's coordinates, such as `thread_idx().x`; see `cpu_split`).
    pub remat: Vec<Option<Expr>>,
    /// Whether `return` sets the thread's exit flag (split kernels whose
    /// threads may return before a barrier).
    pub track_exit: bool,
    /// In the body of a loop run in lockstep across threads (see
    /// `cpu_split`): what `break` does there (`continue` ends the thread's
    /// iteration).
    pub lockstep_break: Option<TokenStream>,
    /// The next `syncthreads()` site number (coroutine path).
    sites: Cell<u32>,
    /// Per parameter: accessed through own-index views (see `owned`).
    owned: Vec<bool>,
    /// Per local: the variable of a grid-stride loop that partitions the
    /// arrays it indexes (see `owned::partition_vars`).
    part: Vec<bool>,
    /// In the fast thread loop of block spans: which accesses go through
    /// a span (see `cpu_span`).
    spans: Option<std::rc::Rc<crate::cpu_span::SpanPlan>>,
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
            owned: crate::owned::owned_params(k),
            part: crate::owned::partition_vars(k),
            spans: None,
        }
    }

    /// This emitter for the fast loop of block spans.
    pub fn with_spans(mut self, plan: crate::cpu_span::SpanPlan) -> Self {
        self.spans = Some(std::rc::Rc::new(plan));
        self
    }

    /// The span and positions of an access to `a` at `idx`, if it takes a
    /// span (the fast loop of `cpu_span`).
    fn span_access(&self, a: ArrayRef, idx: &[Expr]) -> Option<(Ident, TokenStream)> {
        let pos = self.spans.as_ref()?.access(a, idx)?;
        let span = match a {
            ArrayRef::Param(p) => crate::cpu_span::span_ident(p),
            ArrayRef::Shared(s) => crate::cpu_span::shared_span_ident(s),
            _ => return None,
        };
        Some((span, crate::cpu_span::index_tokens(&pos)))
    }

    /// Numbers the `syncthreads()` sites from `first` (a device function's
    /// apart from its kernel's, for the divergent-barrier check).
    pub fn first_site(self, first: u32) -> Self {
        self.sites.set(first);
        self
    }

    /// Local `id` as a place. A spilled local is a Rust local too: each
    /// per-thread part loads it from its per-thread array first and stores
    /// it back after (see `cpu_split::wrap_part`), so that it lives in a
    /// register while the part runs.
    fn place(&self, id: LocalId) -> TokenStream {
        let name = ident(&self.k.locals[id].name);
        quote! { #name }
    }

    /// A fresh barrier site number (coroutine path: threads waiting at
    /// different sites are a divergent barrier).
    fn next_site(&self) -> u32 {
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
        crate::deep(|| self.stmt_at(s))
    }

    fn stmt_at(&self, s: &Stmt) -> TokenStream {
        let t = thread_ident();
        match s {
            Stmt::Let { local, init } if self.spilled[*local] => match init {
                Some(e) => {
                    let (p, v) = (self.place(*local), self.expr(e));
                    quote! { #p = #v; }
                }
                None => TokenStream::new(),
            },
            Stmt::Let { local, init } => {
                let (name, l) = self.local(*local);
                let m = if l.mutable {
                    quote! { mut }
                } else {
                    TokenStream::new()
                };
                let ann = Self::annot(l.ty);
                match init {
                    Some(e) => {
                        let v = self.expr(e);
                        quote! { let #m #name #ann = #v; }
                    }
                    None => quote! { let #m #name #ann; },
                }
            }
            Stmt::LetTuple { locals, parts } => {
                let mut ts = TokenStream::new();
                for (l, p) in locals.iter().zip(parts) {
                    let v = self.expr(p);
                    match l {
                        Some(id) if self.spilled[*id] => {
                            let p = self.place(*id);
                            ts.extend(quote! { #p = #v; });
                        }
                        Some(id) => {
                            let (name, l) = self.local(*id);
                            let m = if l.mutable {
                                quote! { mut }
                            } else {
                                TokenStream::new()
                            };
                            ts.extend(quote! { let #m #name = #v; });
                        }
                        None => ts.extend(quote! { let _ = #v; }),
                    }
                }
                ts
            }
            // Made once per block, before the threads run (see `emit`).
            Stmt::Shared(_) => TokenStream::new(),
            Stmt::LocalArray { id, init } => self.local_array(*id, init),
            Stmt::Assign { place, op, value } => {
                let v = self.expr(value);
                match (place, op) {
                    (Place::Local(id), None) => {
                        let p = self.place(*id);
                        quote! { #p = #v; }
                    }
                    (Place::Local(id), Some(op)) => {
                        let p = self.place(*id);
                        let rhs = self.binary(*op, p.clone(), v, self.k.locals[*id].ty);
                        quote! { #p = #rhs; }
                    }
                    (Place::Elem(ArrayRef::Local(a), idx), op) => self.local_store(*a, idx, *op, v),
                    // Rust evaluates the value, then the place (for compound
                    // assignments on primitives too): bind the value first,
                    // so side effects in the index come after it.
                    (Place::Elem(a, idx), op) if self.span_access(*a, idx).is_some() => {
                        let Some((span, pos)) = self.span_access(*a, idx) else {
                            return TokenStream::new();
                        };
                        let value = Ident::new("gj_value", Span::mixed_site());
                        let rhs = match op {
                            None => quote! { #value },
                            Some(op) => {
                                let elem = self.k.elem_type(*a);
                                self.binary(*op, quote! { #span.ld(#t, #pos) }, quote! { #value }, elem)
                            }
                        };
                        quote! { { let #value = #v; #span.st(#t, #pos, #rhs); } }
                    }
                    (Place::Elem(a, idx), None) => {
                        let (view, st, _) = self.access_at(*a, idx);
                        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                        let value = Ident::new("gj_value", Span::mixed_site());
                        quote! { { let #value = #v; #view.#st(#t, #(#idx,)* #value); } }
                    }
                    (Place::Elem(a, idx), Some(op)) => {
                        let (view, st, ld) = self.access_at(*a, idx);
                        let names: Vec<Ident> = (0..idx.len())
                            .map(|i| format_ident!("gj_index_{}", i, span = Span::mixed_site()))
                            .collect();
                        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                        let elem = self.k.elem_type(*a);
                        let value = Ident::new("gj_value", Span::mixed_site());
                        let rhs = self.binary(*op, quote! { #view.#ld(#t, #(#names),*) }, quote! { #value }, elem);
                        quote! { { let #value = #v; #(let #names: usize = #idx;)* #view.#st(#t, #(#names,)* #rhs); } }
                    }
                }
            }
            Stmt::Expr(e) => {
                let v = self.expr(e);
                quote! { #v; }
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond);
                let a = self.block(then);
                let mut ts = quote! { if #c #a };
                // `else if` stays flat: `else { if .. }` per arm would nest
                // as deep as the chain is long, past what rustc parses.
                let mut els = els.as_ref();
                while let Some(b) = els {
                    match b.else_if() {
                        Some((cond, then, next)) => {
                            let (c, a) = (self.expr(cond), self.block(then));
                            ts.extend(quote! { else if #c #a });
                            els = next;
                        }
                        None => {
                            let b = self.block(b);
                            ts.extend(quote! { else #b });
                            els = None;
                        }
                    }
                }
                ts
            }
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                rev,
                body,
                ..
            } => {
                let (name, _) = self.local(*var);
                let (a, b) = (self.expr(start), self.expr(end));
                let range = if *inclusive {
                    quote! { (#a..=#b) }
                } else {
                    quote! { (#a..#b) }
                };
                // `step_by` through the runtime: a zero step is a fault and
                // an empty loop there, where Rust's `step_by` would panic.
                let iter = match step {
                    Some(s) if *rev => {
                        let s = self.expr(s);
                        let checked = Ident::new("gj_step", Span::mixed_site());
                        let iter = rev_step_by(&range, &checked);
                        quote! { { let #checked = #t.check_step(#s); #iter } }
                    }
                    None if *rev => quote! { #range.rev() },
                    Some(s) => {
                        let s = self.expr(s);
                        if *inclusive {
                            quote! { #t.step_by_inclusive(#a, #b, #s) }
                        } else {
                            quote! { #t.step_by(#a, #b, #s) }
                        }
                    }
                    None => range,
                };
                let body = self.loop_body(body);
                quote! { for #name in #iter #body }
            }
            Stmt::While { cond, body } => {
                let c = self.expr(cond);
                let b = self.loop_body(body);
                quote! { while #c #b }
            }
            Stmt::Loop { body } => {
                let b = self.loop_body(body);
                quote! { loop #b }
            }
            Stmt::Break => match &self.lockstep_break {
                Some(b) => b.clone(),
                None => quote! { break; },
            },
            Stmt::Continue if self.lockstep_break.is_some() => quote! { return; },
            Stmt::Continue => quote! { continue; },
            Stmt::Return if self.track_exit => {
                let ex = exited_ident();
                quote! { { #ex[#t.lin()].set(true); return; } }
            }
            Stmt::Return => quote! { return; },
            Stmt::ReturnValue(e) => {
                let v = self.expr(e);
                quote! { return #v; }
            }
            Stmt::SyncThreads => {
                let site = self.next_site();
                quote! { #t.syncthreads(#site); }
            }
            Stmt::Fence(scope) => fence(*scope),
            Stmt::Block(b) => self.block(b),
            Stmt::Line(_) => TokenStream::new(),
        }
    }

    /// A loop's body, first polling the launch's cancel flag (the CPU time
    /// limit): once set, the thread returns (not an exit: the block ends at
    /// its next check of the flag), so that no loop runs forever.
    fn loop_body(&self, b: &Block) -> TokenStream {
        let t = thread_ident();
        let inner = self.block_stmts(b);
        // A device function returns a default value; its caller stops at
        // its own next check.
        let ret = match self.k.ret {
            Some(_) => quote! { ::core::default::Default::default() },
            None => TokenStream::new(),
        };
        quote! { { if #t.cancelled() { return #ret; } #inner } }
    }

    /// `let mut a: [[T; M]; N] = [[v; M]; N];` or the (nested) list: a
    /// Rust array on the thread's stack.
    fn local_array(&self, id: usize, init: &ArrayInit) -> TokenStream {
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
    fn fixed_load(&self, a: ArrayRef, idx: &[TokenStream]) -> TokenStream {
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
    fn local_store(&self, a: usize, idx: &[Expr], op: Option<BinOp>, v: TokenStream) -> TokenStream {
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
    fn access_at(&self, a: ArrayRef, idx: &[Expr]) -> (Ident, Ident, Ident) {
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

    fn binary(&self, op: BinOp, l: TokenStream, r: TokenStream, lt: Ty) -> TokenStream {
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
        crate::deep(|| self.expr_at(e))
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
                quote! { #span.ld(#t, #pos) }
            }
            ExprKind::Load(a, idx) => {
                let (view, _, ld) = self.access_at(*a, idx);
                let idx = idx.iter().map(|x| self.expr(x));
                quote! { #view.#ld(#t, #(#idx),*) }
            }
            // In a span loop: read once per block (see `cpu_span::extents`).
            ExprKind::Len(p) if self.spans.is_some() => {
                let e = crate::cpu_span::extent_ident(*p, None);
                quote! { #e }
            }
            ExprKind::Len(p) => {
                let name = ident(&self.k.params[*p].name);
                quote! { #name.len() }
            }
            // The coroutine path; the split path evaluates a vote at block
            // level (see `cpu_split`) and never emits it per thread.
            ExprKind::Vote(v, p) => {
                let p = self.expr(p);
                let site = self.next_site();
                let m = ident(v.rust_name());
                quote! { #t.#m(#site, #p) }
            }
            ExprKind::Dim(p, d) if self.spans.is_some() => {
                let e = crate::cpu_span::extent_ident(*p, Some(*d));
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
                // `clamp` and the Euclidean division report a fault where
                // Rust's methods would panic; `pow` wraps.
                let name = match f {
                    MathFn::Clamp => return quote! { #t.clamp(#recv, #(#rest),*) },
                    MathFn::DivEuclid => return quote! { #t.div_euclid(#recv, #(#rest),*) },
                    MathFn::RemEuclid => return quote! { #t.rem_euclid(#recv, #(#rest),*) },
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
                quote! { #view.atomic(#t, [#(#idx),*], ::gpujit::__private::AtomicOp::#op) }
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
fn fence(scope: FenceScope) -> TokenStream {
    match scope {
        FenceScope::Block => quote! { ::gpujit::__private::threadfence_block(); },
        FenceScope::Device | FenceScope::System => quote! { ::gpujit::__private::threadfence(); },
    }
}

/// Operator nesting from which an expression is emitted as flat statements:
/// nested `(a).wrapping_add(b)` calls or parentheses make rustc's parser
/// recurse once per level (it overflows its stack at about 2000), and a chain
/// of `let`s nests debug-info scopes as deeply (LLVM overflows in turn).
pub(crate) const FLAT_FROM: usize = 16;

/// Whether binary operators nest `FLAT_FROM` deep in `e`, on scalars only
/// (the flat form names each value's type). Both emitters flatten such trees.
pub(crate) fn is_deep(e: &Expr) -> bool {
    let mut deep = false;
    let mut todo = vec![(e, 1)];
    while let Some((e, d)) = todo.pop() {
        if let ExprKind::Binary(_, a, b) = &e.kind {
            if [e, a, b].iter().any(|x| !matches!(x.ty, Ty::Scalar(_))) {
                return false;
            }
            deep |= d >= FLAT_FROM;
            todo.push((a, d + 1));
            todo.push((b, d + 1));
        }
    }
    deep
}

impl Emitter<'_> {
    /// `e` as one block of assignments to stack slots, one per operator, in
    /// evaluation order (left operand, right operand, operation): slot `d` of
    /// the array `gj_s_T` holds a value of type `T` at operand depth `d`, so
    /// that the generated code nests only as deeply as right operands do and
    /// declares one array per type.
    fn flat(&self, e: &Expr) -> TokenStream {
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
        crate::deep(|| {
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

/// `range.rev().step_by(step)` for a `step` already checked (a fault
/// recorded if it is 0): a zero step gives no elements, where Rust's
/// `step_by` would panic.
pub(crate) fn rev_step_by(range: &TokenStream, step: &Ident) -> TokenStream {
    quote! {
        #range.rev().step_by(if #step == 0 { 1 } else { #step }).take(if #step == 0 { 0 } else { usize::MAX })
    }
}
