//! The per-thread parts of a split kernel: which locals live in more than
//! one part (they move into per-thread arrays), and each part's code with
//! those locals loaded into Rust locals and stored back.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::analysis::{coordinate_pure, Bindings};
use crate::emit_cpu::{block_ident, exited_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::visit::{each_stmt, local_arrays_used, locals_used};
use crate::model::*;

/// What the per-thread parts of a plan use: for each local, the parts
/// (thread loops and uniform evaluations) it appears in, and whether any
/// thread may `return` before the end.
pub(crate) struct Uses {
    /// Per local: the first part it appeared in, and whether a second one.
    parts: Vec<(Option<usize>, bool)>,
    next: usize,
    pub returns: bool,
    /// The loop variables of block-level `for`s (block-wide, never spilled).
    pub(super) block_vars: Vec<LocalId>,
    /// The mutable locals held once per block (`split::block_locals`):
    /// never spilled.
    pub(super) block_locals: Vec<LocalId>,
    /// Per local array: as `parts`. An array in two parts is not spilled:
    /// the kernel runs on the coroutine path instead (see `spill_decls`).
    arrays: Vec<(Option<usize>, bool)>,
}

impl Uses {
    pub fn new(k: &Kernel) -> Uses {
        Uses {
            parts: vec![(None, false); k.locals.len()],
            next: 0,
            returns: false,
            block_vars: Vec::new(),
            block_locals: Vec::new(),
            arrays: vec![(None, false); k.local_arrays.len()],
        }
    }

    /// One per-thread part made of `stmts` and `exprs`.
    pub fn part_of(&mut self, stmts: &[&Stmt], exprs: &[&Expr]) {
        let mut ids = Vec::new();
        let mut arrays = Vec::new();
        for s in stmts {
            locals_used(s, &mut ids);
            local_arrays_used(s, &mut arrays);
            each_stmt(s, &mut |s| self.returns |= stmt_props(s).control == Control::Return);
        }
        for e in exprs {
            ids.extend(expr_locals(e));
            local_arrays_used(&Stmt::Expr((*e).clone()), &mut arrays);
        }
        self.part_with_arrays(ids, arrays);
    }

    pub(super) fn part_with_arrays(&mut self, ids: Vec<LocalId>, arrays: Vec<usize>) {
        let part = self.next;
        self.next += 1;
        let mark = |slot: &mut (Option<usize>, bool)| match slot.0 {
            None => slot.0 = Some(part),
            Some(p) if p != part => slot.1 = true,
            _ => {}
        };
        for id in ids {
            mark(&mut self.parts[id]);
        }
        for a in arrays {
            mark(&mut self.arrays[a]);
        }
    }

    /// Marks `ids` as living in more than one part, so that `spill_decls`
    /// gives them per-thread arrays (or computes them again).
    pub(crate) fn spill_also(&mut self, ids: &[LocalId]) {
        for &id in ids {
            self.parts[id].1 = true;
        }
    }

    /// Whether a local array is used in more than one part (it would have
    /// to live across a barrier or a lockstep loop's boundary).
    pub fn array_spans_parts(&self) -> bool {
        self.arrays.iter().any(|a| a.1)
    }
}

pub(super) fn expr_locals(e: &Expr) -> Vec<LocalId> {
    let mut ids = Vec::new();
    locals_used(&Stmt::Expr(e.clone()), &mut ids);
    ids
}

/// The body of one per-thread part (`body`, emitted from `stmts` and
/// `exprs`): the spilled locals it uses are loaded from their per-thread
/// arrays into Rust locals first, and those it assigns are stored back after,
/// also when the part ends with `return` (it runs in a closure of its own).
pub(crate) fn wrap_part(em: &Emitter, stmts: &[&Stmt], exprs: &[&Expr], body: TokenStream) -> TokenStream {
    let t = thread_ident();
    let mut used = Vec::new();
    let mut assigned = Vec::new();
    for s in stmts {
        locals_used(s, &mut used);
        each_stmt(s, &mut |s| match s {
            Stmt::Let { local, .. } => assigned.push(*local),
            Stmt::LetTuple { locals, .. } => assigned.extend(locals.iter().flatten()),
            Stmt::Assign {
                place: Place::Local(id),
                ..
            } => assigned.push(*id),
            _ => {}
        });
    }
    for e in exprs {
        used.extend(expr_locals(e));
        each_stmt(&Stmt::Expr((*e).clone()), &mut |s| {
            if let Stmt::Assign {
                place: Place::Local(id),
                ..
            } = s
            {
                assigned.push(*id);
            }
        });
    }
    used.sort_unstable();
    used.dedup();
    // Rematerialized locals: computed again, unless this part binds them.
    let mut remat = TokenStream::new();
    for &id in &used {
        if let (Some(init), false) = (&em.remat[id], assigned.contains(&id)) {
            let bind = em.stmt(&Stmt::Let {
                local: id,
                init: Some(init.clone()),
            });
            remat.extend(quote! { #[allow(unused_variables)] #bind });
        }
    }
    // A mutable local of the block function that the part reads but does
    // not assign (a block-level local, `split::block_locals`): read once
    // per thread into an immutable copy, so that LLVM keeps it in a
    // register across the part's stores (through the closure's reference
    // it reloads it after each one, and the loop does not vectorize).
    for &id in &used {
        let l = &em.k.locals[id];
        if l.mutable && !em.spilled[id] && em.remat[id].is_none() && !assigned.contains(&id) {
            let name = ident(&l.name);
            remat.extend(quote! { #[allow(unused_variables)] let #name = #name; });
        }
    }
    let body = quote! { #remat #body };
    used.retain(|id| em.spilled[*id]);
    if used.is_empty() {
        return body;
    }
    let mut loads = TokenStream::new();
    let mut stores = TokenStream::new();
    for id in used {
        let l = &em.k.locals[id];
        let (arr, name) = (spill_ident(l), ident(&l.name));
        loads.extend(quote! { #[allow(unused_mut, unused_variables)] let mut #name = #arr[#t.lin()]; });
        if assigned.contains(&id) {
            stores.extend(quote! { #arr[#t.lin()] = #name; });
        }
    }
    let v = Ident::new("gj_value", Span::mixed_site());
    quote! {
        #loads
        #[allow(clippy::redundant_closure_call)]
        let #v = (|| { #body })();
        #stores
        #v
    }
}

/// The per-thread arrays of the locals `uses` says live in more than one
/// part (marked in `em.spilled`), and the exit flags if a thread may
/// `return`; `None` if such a local has a type only rustc knows.
pub(crate) fn spill_decls(k: &Kernel, uses: &Uses, em: &mut Emitter) -> Option<TokenStream> {
    // A local array used on both sides of a barrier (or of a lockstep
    // loop's boundary) is not moved into per-thread storage: such kernels
    // take the coroutine path, where each thread keeps its own stack.
    if uses.array_spans_parts() {
        return None;
    }
    em.track_exit = uses.returns;
    let blk = block_ident();
    let mut decls = TokenStream::new();
    let coords = coordinate_locals(k);
    for (id, l) in k.locals.iter().enumerate() {
        if uses.block_vars.contains(&id) {
            if l.mutable {
                return None;
            }
            continue;
        }
        if uses.block_locals.contains(&id) {
            continue;
        }
        // A function of the thread's coordinates is computed again where
        // it is used: no per-thread array (`let tid = thread_idx().x;`).
        if uses.parts[id].1 {
            if let Some(init) = &coords[id] {
                em.remat[id] = Some(init.clone());
                continue;
            }
        }
        let param = k
            .params
            .iter()
            .any(|p| p.name == l.name && matches!(p.kind, ParamKind::Scalar(_)));
        // A parameter nobody assigns is the same in every thread.
        let spill = if param {
            l.mutable && uses.parts[id].0.is_some()
        } else {
            uses.parts[id].1
        };
        if !spill {
            continue;
        }
        let init = match l.ty {
            _ if param => {
                let name = ident(&l.name);
                quote! { #name }
            }
            Ty::Scalar(s) => {
                let ty = ident(s.rust_name());
                quote! { <#ty as ::core::default::Default>::default() }
            }
            Ty::Idx3 => quote! { <::gpujit::Idx3 as ::core::default::Default>::default() },
            Ty::Opaque(_) | Ty::Callee(..) | Ty::Var(_) => return None,
        };
        em.spilled[id] = true;
        let arr = spill_ident(l);
        decls.extend(quote! { #[allow(unused_mut)] let mut #arr = #blk.per_thread(#init); });
    }
    if em.track_exit {
        let ex = exited_ident();
        decls.extend(quote! { let #ex = #blk.exit_flags(); });
    }
    Some(decls)
}

/// Per local: its value if it is immutable, bound by exactly one `let` (or
/// tuple `let` component), to
/// an expression of the thread's and block's coordinates, constants and
/// extents only, that cannot fault (no local, load, division or call), so
/// that computing it again in any part of the same thread gives its value.
fn coordinate_locals(k: &Kernel) -> Vec<Option<Expr>> {
    let bindings = Bindings::new(k);
    (0..k.locals.len())
        .map(|id| bindings.value(id).filter(|e| coordinate_pure(e)).cloned())
        .collect()
}
