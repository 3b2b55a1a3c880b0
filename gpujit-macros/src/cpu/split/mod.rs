//! Split kernels: a kernel with barriers as a block's threads as loops.
//!
//! A kernel with `syncthreads()` is split at every barrier
//! ("loop fission", as in MCUDA, PoCL's work-item loops and CuPBoP): each
//! barrier-free stretch of statements becomes its own thread loop, and the
//! `if`/`for`/`while`/`loop` around a barrier runs once per block, after the
//! runtime checked that every thread computes the same condition or bounds
//! (CUDA requires the control flow around a barrier to be block-uniform; a
//! disagreement is a divergent-barrier fault). A warp intrinsic that every
//! thread of the block reaches (`plan::as_meeting`) splits the kernel too:
//! a thread loop records each thread's arguments, the lanes of every warp
//! exchange their values at once (`Block::warp_exchange`), and a second
//! thread loop runs the statement with the result. Around such a meeting
//! the control flow must be proven block-uniform (`meetings_under_uniform_flow`):
//! warps may legally disagree where no barrier is. Locals that live across a
//! barrier move into per-thread arrays, except the mutable ones that hold
//! the same value in every thread (`block_locals`), which live once per
//! block. What cannot be split this way (a
//! barrier inside an `if` used as a value, a `break` out of a split loop from
//! inside a thread loop, a `for mut` loop variable, a local whose type only
//! rustc knows, a local array used on both sides of a barrier) runs on the
//! coroutine path, as does every barrier kernel
//! under `GPUJIT_CPU_EXEC=coroutines`.
//!
//! `plan` turns the kernel body into block-level control flow around
//! per-thread parts, `cpu::parts` decides which locals live across them and
//! wraps each part, `narrow` and `interchange` emit the parts that loop over
//! fewer threads or run a loop in lockstep (and every part's thread loop,
//! specialised for blocks that fit the shared arrays), and this module
//! emits the result.

mod block_locals;
mod interchange;
mod narrow;
mod plan;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::emit_cpu::{block_ident, exited_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::*;

use super::parts::{spill_decls, wrap_part, Uses};
use plan::{as_vote, plan, Node};

/// The split block function of `k`, or `None` if it cannot be split.
pub(super) fn split(k: &Kernel) -> Option<TokenStream> {
    split_with(k, Emitter::new(k), false)
}

/// The split block function of the kernel's checked copy (`GPUJIT_CHECK`),
/// or `None` if it cannot be split: the same block-level control flow, each
/// per-thread part a plain thread loop whose accesses report to the shadow
/// memory, and the block's barrier epoch advanced at every barrier, as the
/// coroutine path advances it. Its threads make the same accesses in the
/// same order as on coroutines (thread after thread between two barriers),
/// without a coroutine switch per thread per barrier.
pub(super) fn split_checked(k: &Kernel) -> Option<TokenStream> {
    split_with(k, Emitter::new(k).checked(), true)
}

fn split_with(k: &Kernel, mut em: Emitter, checked: bool) -> Option<TokenStream> {
    // The checked copy runs warp intrinsics on the coroutine path, whose
    // scheduler orders the accesses at each `syncwarp` (`Block::pass_barrier`).
    if checked && has_warp_sync(&k.body) {
        return None;
    }
    let (block_locals, nodes) = block_locals::hoist(k, plan(&k.body)?);
    let mut uses = Uses::new(k);
    uses.nodes(&nodes);
    uses.block_locals = block_locals;
    let mut decls = spill_decls(k, &uses, &mut em)?;
    let block_level: Vec<LocalId> = uses.block_vars.iter().chain(&uses.block_locals).copied().collect();
    let uniform = crate::analysis::Uniform::new(k, &block_level);
    if !leaving_ifs_uniform(&nodes, &uniform) || !meetings_under_uniform_flow(&nodes, &uniform) {
        return None;
    }
    if !checked {
        // Locals that live in one part but that its loop's interchange
        // needs per thread get per-thread arrays too; spilling more only
        // adds arrays, so `spill_decls` keeps every earlier decision.
        let extra = spills_for_interchange(&em, &uniform, &nodes);
        if !extra.is_empty() {
            uses.spill_also(&extra);
            decls = spill_decls(k, &uses, &mut em)?;
        }
    }
    let body = Split {
        em: &em,
        uniform,
        checked,
    }
    .nodes(&nodes);
    Some(quote! { #decls #body })
}

/// The locals that the per-thread parts of `nodes` would interchange their
/// loops with if they lived in per-thread arrays
/// (`interchange::spills_for_interchange`), for parts that are not
/// narrowed (a narrowed part runs first and never interchanges).
fn spills_for_interchange(em: &Emitter, uniform: &crate::analysis::Uniform, nodes: &[Node]) -> Vec<LocalId> {
    let mut ids = Vec::new();
    plan::walk(nodes, &mut |n| {
        if let Node::Threads(stmts) = n {
            let wanted = interchange::spills_for_interchange(em, uniform, stmts);
            if !wanted.is_empty() && uniform.narrowed(em, stmts).is_none() {
                ids.extend(wanted);
            }
        }
    });
    ids
}

/// Whether every barrier-free `if` that leaves a block-level loop
/// (`Node::If::leaves`) has a block-uniform condition, so that no thread
/// can leave the loop without the others.
fn leaving_ifs_uniform(nodes: &[Node], u: &crate::analysis::Uniform) -> bool {
    let mut ok = true;
    plan::walk(nodes, &mut |n| {
        if let Node::If { cond, leaves: true, .. } = n {
            ok &= u.is_uniform(cond, &[]);
        }
    });
    ok
}

/// Whether every block-level `if` or loop around a warp meeting
/// (`Node::Warp`) but no barrier has a condition or bounds proven the same
/// in every thread. The lanes of one warp may take a branch the other
/// warps skip (only a barrier needs the whole block), so the run-time check
/// that the threads agree, which takes a disagreement for a divergent
/// barrier, cannot guard such a branch: the kernel is not split.
fn meetings_under_uniform_flow(nodes: &[Node], u: &crate::analysis::Uniform) -> bool {
    fn has(nodes: &[Node], f: fn(&Node) -> bool) -> bool {
        let mut found = false;
        plan::walk(nodes, &mut |n| found |= f(n));
        found
    }
    let meeting = |n: &Node| matches!(n, Node::Warp { .. });
    let barrier = |n: &Node| matches!(n, Node::Barrier | Node::Vote { .. });
    let mut ok = true;
    plan::walk(nodes, &mut |n| {
        let (exprs, bodies): (Vec<&Expr>, Vec<&[Node]>) = match n {
            Node::If { cond, then, els, .. } => (vec![cond], vec![then, els]),
            Node::While { cond, body } => (vec![cond], vec![body]),
            Node::For {
                stmt: Stmt::For { start, end, step, .. },
                body,
            } => (step.iter().chain([start, end]).collect(), vec![body]),
            _ => return,
        };
        let meets = bodies.iter().any(|b| has(b, meeting));
        if meets && !bodies.iter().any(|b| has(b, barrier)) {
            ok &= u.all_uniform(&exprs);
        }
    });
    ok
}

struct Split<'e, 'k> {
    em: &'e Emitter<'k>,
    uniform: crate::analysis::Uniform<'k>,
    /// The checked copy: no narrowed, interchanged or span parts (their
    /// accesses are not reported), every uniform value evaluated by every
    /// thread (each thread's reads are accesses), and the epoch advanced at
    /// each barrier.
    checked: bool,
}

fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

impl Split<'_, '_> {
    fn nodes(&self, ns: &[Node]) -> TokenStream {
        let mut ts = TokenStream::new();
        for n in ns {
            ts.extend(self.node(n));
        }
        ts
    }

    /// `uniform(..)` over `value`, binding the agreed value to `bind` or
    /// ending the block.
    /// A vote over the live threads (a barrier too), its value bound to `bind`.
    fn vote(&self, bind: &Ident, vote: Vote, pred: &Expr) -> TokenStream {
        let (blk, t) = (block_ident(), thread_ident());
        let p = wrap_part(self.em, &[], &[pred], self.em.expr(pred));
        let (n, yes) = (mixed("gj_voters"), mixed("gj_yes"));
        let (barrier, threads) = if self.em.track_exit {
            let ex = exited_ident();
            (
                quote! { if !#blk.barrier(&#ex) { return; } },
                quote! { #blk.live_threads(&#ex, |#t| { #n += 1; #yes += u32::from({ #p }); }); },
            )
        } else {
            (
                TokenStream::new(),
                quote! { #blk.threads(|#t| { #n += 1; #yes += u32::from({ #p }); }); },
            )
        };
        let value = match vote {
            Vote::Count => quote! { #yes },
            Vote::And => quote! { #yes == #n },
            Vote::Or => quote! { #yes > 0 },
        };
        let epoch = self.epoch();
        quote! {
            #barrier
            let #bind = {
                let mut #n: u32 = 0;
                let mut #yes: u32 = 0;
                #threads
                #value
            };
            #epoch
            if #blk.cancelled() { return; }
        }
    }

    /// In the checked copy, the block passing a barrier (see
    /// `Block::pass_barrier`).
    fn epoch(&self) -> TokenStream {
        let blk = block_ident();
        if self.checked {
            quote! { #blk.pass_barrier(); }
        } else {
            TokenStream::new()
        }
    }

    /// The condition of a block-level `if`/`while`: a vote, or a value every
    /// live thread must agree on.
    fn condition(&self, bind: &Ident, what: &str, cond: &Expr) -> TokenStream {
        match as_vote(cond) {
            Some((vote, pred)) => self.vote(bind, vote, pred),
            None => self.uniform(quote! { #bind }, what, &[cond], self.em.expr(cond), true),
        }
    }

    /// Binds `bind` to `value`, which every live thread must agree on. A
    /// `value` of `exprs` that are block-uniform and cannot fault (see
    /// `narrow`) is evaluated once per block, since no thread can disagree
    /// (`pure` false: `value` may fault beyond `exprs`, e.g. a zero step).
    fn uniform(&self, bind: TokenStream, what: &str, exprs: &[&Expr], value: TokenStream, pure: bool) -> TokenStream {
        let value = wrap_part(self.em, &[], exprs, value);
        let (blk, t) = (block_ident(), thread_ident());
        let exited = if self.em.track_exit {
            let ex = exited_ident();
            quote! { ::core::option::Option::Some(&#ex) }
        } else {
            quote! { ::core::option::Option::None }
        };
        let eval = if pure && !self.checked && self.uniform.all_uniform(exprs) {
            quote! { #blk.uniform_once(#exited, |#t| { #value }) }
        } else {
            quote! { #blk.uniform(#exited, #what, |#t| { #value }) }
        };
        quote! {
            #[allow(unused_variables)]
            let ::core::option::Option::Some(#bind) = #eval else {
                return;
            };
        }
    }

    /// A shuffle's meeting on typed per-thread arrays (`Block::shuffle_exchange`):
    /// a thread loop stores each live thread's mask, value and lane
    /// argument (evaluated in the call's order), the runtime exchanges the
    /// values, and a thread loop runs the statement with each thread's
    /// result. `None` for the other warp intrinsics, a value that is not a
    /// scalar, or an argument holding another warp intrinsic (the general
    /// meeting then runs it), and in the checked copy.
    fn typed_shuffle(&self, stmt: &Stmt, call: &Expr) -> Option<TokenStream> {
        let ExprKind::Warp(f, args) = &call.kind else {
            return None;
        };
        if self.checked {
            return None;
        }
        let op = match f {
            WarpFn::Shfl => quote! { Idx },
            WarpFn::ShflUp => quote! { Up },
            WarpFn::ShflDown => quote! { Down },
            WarpFn::ShflXor => quote! { Xor },
            WarpFn::Ballot
            | WarpFn::All
            | WarpFn::Any
            | WarpFn::Eq
            | WarpFn::MatchAny
            | WarpFn::MatchAll
            | WarpFn::ActiveMask
            | WarpFn::SyncWarp => return None,
        };
        let value = f
            .spec()
            .args
            .iter()
            .zip(args)
            .find(|((k, _), _)| *k == WarpArg::Value)?
            .1;
        let Ty::Scalar(s) = &value.ty else {
            return None;
        };
        if args.iter().any(|a| any_in_expr(a, |p| p.sync != SyncScope::None)) {
            return None;
        }
        let (blk, t) = (block_ident(), thread_ident());
        let (vals, masks, lanes, i) = (
            mixed("gj_warp_values"),
            mixed("gj_warp_masks"),
            mixed("gj_warp_lanes"),
            mixed("gj_lin"),
        );
        let ty = ident(s.rust_name());
        let stores = f.spec().args.iter().zip(args).map(|((kind, _), a)| {
            let e = self.em.expr(a);
            match kind {
                WarpArg::Mask => quote! { #masks[#i] = (#e) as u32; },
                WarpArg::Lane => quote! { #lanes[#i] = (#e) as u32; },
                WarpArg::Value | WarpArg::Pred => quote! { #vals[#i] = #e; },
            }
        });
        let arg_refs: Vec<&Expr> = args.iter().collect();
        let gather = wrap_part(self.em, &[], &arg_refs, quote! { let #i = #t.lin(); #(#stores)* });
        let (each, exited) = if self.em.track_exit {
            let ex = exited_ident();
            (
                quote! { #blk.live_threads(&#ex, |#t| { #gather }); },
                quote! { ::core::option::Option::Some(&#ex[..]) },
            )
        } else {
            (
                quote! { #blk.threads(|#t| { #gather }); },
                quote! { ::core::option::Option::None },
            )
        };
        let site = self.em.next_site();
        let run = self
            .em
            .replaying_values(&vals, || interchange::plain_part(self.em, &[stmt]));
        Some(quote! {
            let mut #vals: ::std::vec::Vec<#ty> = #blk.per_thread(<#ty as ::core::default::Default>::default());
            let mut #masks: ::std::vec::Vec<u32> = #blk.per_thread(0u32);
            let mut #lanes: ::std::vec::Vec<u32> = #blk.per_thread(0u32);
            #each
            if !#blk.shuffle_exchange(#site, ::gpujit::__private::Shuffle::#op, #exited, &#masks, &#lanes, &mut #vals) {
                return;
            }
            #run
        })
    }

    fn node(&self, n: &Node) -> TokenStream {
        let (blk, t) = (block_ident(), thread_ident());
        let cancel = quote! { if #blk.cancelled() { return; } };
        match n {
            Node::Threads(stmts) if self.checked => {
                let run = interchange::plain_part(self.em, stmts);
                quote! { #run #cancel }
            }
            Node::Threads(stmts) => {
                if let Some(run) = self.uniform.narrowed(self.em, stmts) {
                    return quote! { #run #cancel };
                }
                if let Some(run) = interchange::interchanged(self.em, &self.uniform, stmts) {
                    return quote! { #run #cancel };
                }
                let run = interchange::plain_part(self.em, stmts);
                let run = crate::cpu::span::versioned_part(self.em, stmts, run, &|e, extra| {
                    self.uniform.is_uniform(e, extra)
                });
                quote! { #run #cancel }
            }
            Node::Barrier if self.em.track_exit => {
                let ex = exited_ident();
                let epoch = self.epoch();
                quote! { if !#blk.barrier(&#ex) { return; } #epoch }
            }
            Node::Barrier => self.epoch(),
            Node::Vote { local, vote, pred } => {
                let v = mixed("gj_vote");
                let run = self.vote(&v, *vote, pred);
                let keep = match local {
                    Some(id) if self.em.spilled[*id] => {
                        let arr = spill_ident(&self.em.k.locals[*id]);
                        quote! { #arr.fill(#v); }
                    }
                    _ => quote! { let _ = #v; },
                };
                quote! { #run #keep }
            }
            Node::Warp { stmt, call } => {
                if let Some(typed) = self.typed_shuffle(stmt, call) {
                    return quote! { #typed #cancel };
                }
                // Each live thread's arrival (its arguments, evaluated
                // once), the exchange, then the statement with the result.
                let site = self.em.peek_site();
                let e = self.em.expr(call);
                let gather = wrap_part(self.em, &[], &[call], quote! { let _ = #e; });
                let each = if self.em.track_exit {
                    let ex = exited_ident();
                    quote! { #blk.live_threads(&#ex, |#t| { #gather }); }
                } else {
                    quote! { #blk.threads(|#t| { #gather }); }
                };
                let run = self
                    .em
                    .replaying_warp(site, || interchange::plain_part(self.em, &[*stmt]));
                quote! {
                    #blk.warp_gather();
                    #each
                    if !#blk.warp_exchange() { return; }
                    #run
                    #cancel
                }
            }
            Node::If { cond, then, els, .. } => {
                let c = mixed("gj_cond");
                let check = self.condition(&c, "the condition of an `if` around syncthreads()", cond);
                let (then, els) = (self.nodes(then), self.nodes(els));
                quote! { #check if #c { #then } else { #els } }
            }
            Node::For { stmt, body } => {
                let Stmt::For {
                    var,
                    start,
                    end,
                    inclusive,
                    step,
                    rev,
                    ..
                } = stmt
                else {
                    return TokenStream::new();
                };
                let (a, b, s) = (mixed("gj_start"), mixed("gj_end"), mixed("gj_step"));
                let (sv, ev) = (self.em.expr(start), self.em.expr(end));
                let name = ident(&self.em.k.locals[*var].name);
                let body = self.nodes(body);
                let what = "the range of a `for` loop around syncthreads()";
                match step {
                    Some(step) => {
                        let st = self.em.expr(step);
                        let check = self.uniform(
                            quote! { (#a, #b, #s) },
                            what,
                            &[start, end, step],
                            quote! { (#sv, #ev, #t.check_step(#st)) },
                            false,
                        );
                        let iter = match (*rev, *inclusive) {
                            (true, true) => crate::emit_cpu::rev_step_by(&quote! { (#a..=#b) }, &s),
                            (true, false) => crate::emit_cpu::rev_step_by(&quote! { (#a..#b) }, &s),
                            (false, true) => quote! { #blk.step_by_inclusive(#a, #b, #s) },
                            (false, false) => quote! { #blk.step_by(#a, #b, #s) },
                        };
                        quote! { #check for #name in #iter { #cancel #body } }
                    }
                    None => {
                        let check = self.uniform(quote! { (#a, #b) }, what, &[start, end], quote! { (#sv, #ev) }, true);
                        let range = match (*rev, *inclusive) {
                            (true, true) => quote! { (#a..=#b).rev() },
                            (true, false) => quote! { (#a..#b).rev() },
                            (false, true) => quote! { #a..=#b },
                            (false, false) => quote! { #a..#b },
                        };
                        quote! { #check for #name in #range { #cancel #body } }
                    }
                }
            }
            Node::While { cond, body } => {
                let c = mixed("gj_cond");
                let check = self.condition(&c, "the condition of a `while` loop around syncthreads()", cond);
                let body = self.nodes(body);
                quote! { loop { #cancel #check if !#c { break; } #body } }
            }
            Node::Loop(body) => {
                let body = self.nodes(body);
                quote! { loop { #cancel #body } }
            }
            Node::Uniform(s) => {
                let name = match s {
                    Stmt::Let { local, .. }
                    | Stmt::Assign {
                        place: Place::Local(local),
                        ..
                    } => ident(&self.em.k.locals[*local].name),
                    _ => return TokenStream::new(),
                };
                // Computed as thread (0, 0, 0) would, on a copy for an
                // assignment (the closure cannot assign the block's).
                let copy = match s {
                    Stmt::Let { .. } => TokenStream::new(),
                    _ => quote! { #[allow(unused_mut)] let mut #name = #name; },
                };
                let stmt = self.em.stmt(s);
                let v = mixed("gj_value");
                let value = quote! {
                    #[allow(unused_mut, unused_variables)]
                    let #v = #blk.uniform_value(|#t| { #copy #stmt #name });
                };
                match s {
                    Stmt::Let { .. } => quote! { #value #[allow(unused_mut)] let mut #name = #v; },
                    _ => quote! { #value #name = #v; },
                }
            }
            Node::Scope(body) => {
                let body = self.nodes(body);
                quote! { { #body } }
            }
            Node::Break => quote! { break; },
            Node::Continue => quote! { continue; },
            Node::Return => quote! { return; },
        }
    }
}
