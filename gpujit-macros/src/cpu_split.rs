//! The CPU backend's block function: a block's threads as loops.
//!
//! A kernel without barriers is one loop over the block's threads around the
//! kernel body. A kernel with `syncthreads()` is split at every barrier
//! ("loop fission", as in MCUDA, PoCL's work-item loops and CuPBoP): each
//! barrier-free stretch of statements becomes its own thread loop, and the
//! `if`/`for`/`while`/`loop` around a barrier runs once per block, after the
//! runtime checked that every thread computes the same condition or bounds
//! (CUDA requires the control flow around a barrier to be block-uniform; a
//! disagreement is a divergent-barrier fault). Locals that live across a
//! barrier move into per-thread arrays. What cannot be split this way (a
//! barrier inside an `if` used as a value, a `break` out of a split loop from
//! inside a thread loop, a `for mut` loop variable, a local whose type only
//! rustc knows) runs on the coroutine path, as does every barrier kernel
//! under `GPUJIT_CPU_EXEC=coroutines`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::emit_cpu::{block_ident, exited_ident, ident, param_copies, spill_ident, thread_ident, Emitter};
use crate::model::*;
use crate::visit::{each_stmt, expr_children, locals_used, stmt_children, Child};

/// The body of the block function of kernel `k`.
pub fn block_body(k: &Kernel) -> TokenStream {
    let (blk, t) = (block_ident(), thread_ident());
    let plain = Emitter::new(k);
    if !k.uses_barrier {
        let copies = param_copies(k, &[]);
        let body = plain.block_stmts(&k.body);
        let simple = quote! { #blk.threads(|#t| { #copies #body }); };
        return match crate::cpu_lockstep::block_body(k) {
            Some(lockstep) => quote! {
                if #blk.force_coroutines() {
                    #simple
                } else {
                    #lockstep
                }
            },
            None => simple,
        };
    }
    let coroutines = {
        let copies = param_copies(k, &[]);
        let body = plain.block_stmts(&k.body);
        quote! { #blk.coroutines(&|#t| { #copies #body }); }
    };
    match split(k) {
        Some(split) => quote! {
            if #blk.force_coroutines() {
                #coroutines
            } else {
                #split
            }
        },
        None => coroutines,
    }
}

/// A kernel body as block-level control flow around thread loops.
enum Node<'k> {
    /// Barrier-free statements, run by every live thread in turn.
    Threads(Vec<&'k Stmt>),
    Barrier,
    /// `let local = syncthreads_count(pred);` (or `_and`/`_or`, or a vote
    /// whose value is dropped): a barrier that counts the threads' votes.
    Vote {
        local: Option<LocalId>,
        vote: Vote,
        pred: &'k Expr,
    },
    If {
        cond: &'k Expr,
        then: Vec<Node<'k>>,
        els: Vec<Node<'k>>,
    },
    /// A `Stmt::For` whose body holds a barrier.
    For {
        stmt: &'k Stmt,
        body: Vec<Node<'k>>,
    },
    While {
        cond: &'k Expr,
        body: Vec<Node<'k>>,
    },
    Loop(Vec<Node<'k>>),
    Scope(Vec<Node<'k>>),
    Break,
    Continue,
    Return,
}

/// Whether `s` holds a barrier: `syncthreads()` or a vote.
fn has_barrier(s: &Stmt) -> bool {
    let mut found = false;
    each_stmt(s, &mut |s| found |= matches!(s, Stmt::SyncThreads));
    crate::visit::each_expr(s, &mut |e| found |= matches!(e.kind, ExprKind::Vote(..)));
    found
}

/// `e` as a vote whose predicate holds no barrier.
fn as_vote(e: &Expr) -> Option<(Vote, &Expr)> {
    match &e.kind {
        ExprKind::Vote(v, p) if !expr_has_barrier(p) => Some((*v, p)),
        _ => None,
    }
}

fn expr_has_barrier(e: &Expr) -> bool {
    has_barrier(&Stmt::Expr(e.clone()))
}

/// Whether `s` holds a `break`/`continue` that leaves `s` itself (it targets
/// a loop around `s`).
fn breaks_out(s: &Stmt) -> bool {
    fn stmt(s: &Stmt, in_loop: bool) -> bool {
        crate::deep(|| match s {
            Stmt::Break | Stmt::Continue => !in_loop,
            Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } => children(s, true),
            _ => children(s, in_loop),
        })
    }
    fn children(s: &Stmt, in_loop: bool) -> bool {
        let mut out = false;
        stmt_children(s, &mut |c| out |= child(c, in_loop));
        out
    }
    fn child(c: Child, in_loop: bool) -> bool {
        match c {
            Child::Block(b) => {
                b.stmts.iter().any(|s| stmt(s, in_loop)) || b.tail.as_ref().is_some_and(|e| expr(e, in_loop))
            }
            Child::Expr(e) => expr(e, in_loop),
        }
    }
    fn expr(e: &Expr, in_loop: bool) -> bool {
        crate::deep(|| {
            let mut out = false;
            expr_children(e, &mut |c| out |= child(c, in_loop));
            out
        })
    }
    stmt(s, false)
}

/// Plans `b` (a block-level list of statements), or `None` if it cannot be
/// split.
fn flush<'k>(run: &mut Vec<&'k Stmt>, nodes: &mut Vec<Node<'k>>) {
    if !run.is_empty() {
        nodes.push(Node::Threads(std::mem::take(run)));
    }
}

fn plan(b: &Block) -> Option<Vec<Node<'_>>> {
    if b.tail.is_some() {
        return None;
    }
    let mut nodes = Vec::new();
    let mut run: Vec<&Stmt> = Vec::new();
    for s in &b.stmts {
        match s {
            Stmt::Line(_) | Stmt::Shared(_) => {}
            Stmt::Break | Stmt::Continue | Stmt::Return => {
                flush(&mut run, &mut nodes);
                nodes.push(match s {
                    Stmt::Break => Node::Break,
                    Stmt::Continue => Node::Continue,
                    _ => Node::Return,
                });
            }
            _ if !has_barrier(s) => {
                if breaks_out(s) {
                    return None;
                }
                run.push(s);
            }
            Stmt::Let { local, init: Some(e) } if as_vote(e).is_some() => {
                flush(&mut run, &mut nodes);
                let (vote, pred) = as_vote(e)?;
                nodes.push(Node::Vote {
                    local: Some(*local),
                    vote,
                    pred,
                });
            }
            Stmt::Expr(e) if as_vote(e).is_some() => {
                flush(&mut run, &mut nodes);
                let (vote, pred) = as_vote(e)?;
                nodes.push(Node::Vote {
                    local: None,
                    vote,
                    pred,
                });
            }
            Stmt::SyncThreads => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Barrier);
            }
            Stmt::If { cond, then, els } if !expr_has_barrier(cond) || as_vote(cond).is_some() => {
                flush(&mut run, &mut nodes);
                let els = match els {
                    Some(e) => plan(e)?,
                    None => Vec::new(),
                };
                nodes.push(Node::If {
                    cond,
                    then: plan(then)?,
                    els,
                });
            }
            Stmt::For {
                start, end, step, body, ..
            } if !expr_has_barrier(start) && !expr_has_barrier(end) && !step.as_ref().is_some_and(expr_has_barrier) => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::For {
                    stmt: s,
                    body: plan(body)?,
                });
            }
            Stmt::While { cond, body } if !expr_has_barrier(cond) || as_vote(cond).is_some() => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::While {
                    cond,
                    body: plan(body)?,
                });
            }
            Stmt::Loop { body } => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Loop(plan(body)?));
            }
            Stmt::Block(b) => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Scope(plan(b)?));
            }
            // A barrier inside an expression (an `if` used as a value).
            _ => return None,
        }
    }
    flush(&mut run, &mut nodes);
    Some(nodes)
}

/// What the per-thread parts of a plan use: for each local, the parts
/// (thread loops and uniform evaluations) it appears in, and whether any
/// thread may `return` before the end.
pub(crate) struct Uses {
    /// Per local: the first part it appeared in, and whether a second one.
    parts: Vec<(Option<usize>, bool)>,
    next: usize,
    pub returns: bool,
    /// The loop variables of block-level `for`s (block-wide, never spilled).
    block_vars: Vec<LocalId>,
}

impl Uses {
    pub fn new(k: &Kernel) -> Uses {
        Uses {
            parts: vec![(None, false); k.locals.len()],
            next: 0,
            returns: false,
            block_vars: Vec::new(),
        }
    }

    /// One per-thread part made of `stmts` and `exprs`.
    pub fn part_of(&mut self, stmts: &[&Stmt], exprs: &[&Expr]) {
        let mut ids = Vec::new();
        for s in stmts {
            locals_used(s, &mut ids);
            each_stmt(s, &mut |s| self.returns |= matches!(s, Stmt::Return));
        }
        for e in exprs {
            ids.extend(expr_locals(e));
        }
        self.part(ids);
    }

    fn part(&mut self, ids: Vec<LocalId>) {
        let part = self.next;
        self.next += 1;
        for id in ids {
            let (first, many) = &mut self.parts[id];
            match first {
                None => *first = Some(part),
                Some(p) if *p != part => *many = true,
                _ => {}
            }
        }
    }

    fn nodes(&mut self, ns: &[Node]) {
        for n in ns {
            match n {
                Node::Threads(stmts) => self.part_of(stmts, &[]),
                Node::If { cond, then, els } => {
                    self.part(expr_locals(cond));
                    self.nodes(then);
                    self.nodes(els);
                }
                Node::For { stmt, body } => {
                    if let Stmt::For {
                        var, start, end, step, ..
                    } = stmt
                    {
                        let mut ids = expr_locals(start);
                        ids.extend(expr_locals(end));
                        if let Some(s) = step {
                            ids.extend(expr_locals(s));
                        }
                        self.part(ids);
                        self.block_vars.push(*var);
                    }
                    self.nodes(body);
                }
                Node::While { cond, body } => {
                    self.part(expr_locals(cond));
                    self.nodes(body);
                }
                Node::Vote { local, pred, .. } => {
                    let mut ids = expr_locals(pred);
                    ids.extend(local.iter());
                    self.part(ids);
                }
                Node::Loop(body) | Node::Scope(body) => self.nodes(body),
                Node::Barrier | Node::Break | Node::Continue | Node::Return => {}
            }
        }
    }
}

fn expr_locals(e: &Expr) -> Vec<LocalId> {
    let mut ids = Vec::new();
    locals_used(&Stmt::Expr(e.clone()), &mut ids);
    ids
}

/// The split block function of `k`, or `None` if it cannot be split.
fn split(k: &Kernel) -> Option<TokenStream> {
    let nodes = plan(&k.body)?;
    let mut uses = Uses::new(k);
    uses.nodes(&nodes);
    let mut em = Emitter::new(k);
    let decls = spill_decls(k, &uses, &mut em)?;
    let body = Split { em: &em }.nodes(&nodes);
    Some(quote! { #decls #body })
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
    em.track_exit = uses.returns;
    let blk = block_ident();
    let mut decls = TokenStream::new();
    for (id, l) in k.locals.iter().enumerate() {
        if uses.block_vars.contains(&id) {
            if l.mutable {
                return None;
            }
            continue;
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

struct Split<'e, 'k> {
    em: &'e Emitter<'k>,
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
        quote! {
            #barrier
            let #bind = {
                let mut #n: u32 = 0;
                let mut #yes: u32 = 0;
                #threads
                #value
            };
            if #blk.cancelled() { return; }
        }
    }

    /// The condition of a block-level `if`/`while`: a vote, or a value every
    /// live thread must agree on.
    fn condition(&self, bind: &Ident, what: &str, cond: &Expr) -> TokenStream {
        match as_vote(cond) {
            Some((vote, pred)) => self.vote(bind, vote, pred),
            None => self.uniform(quote! { #bind }, what, &[cond], self.em.expr(cond)),
        }
    }

    fn uniform(&self, bind: TokenStream, what: &str, exprs: &[&Expr], value: TokenStream) -> TokenStream {
        let value = wrap_part(self.em, &[], exprs, value);
        let (blk, t) = (block_ident(), thread_ident());
        let exited = if self.em.track_exit {
            let ex = exited_ident();
            quote! { ::core::option::Option::Some(&#ex) }
        } else {
            quote! { ::core::option::Option::None }
        };
        quote! {
            let ::core::option::Option::Some(#bind) = #blk.uniform(#exited, #what, |#t| { #value }) else {
                return;
            };
        }
    }

    fn node(&self, n: &Node) -> TokenStream {
        let (blk, t) = (block_ident(), thread_ident());
        let cancel = quote! { if #blk.cancelled() { return; } };
        match n {
            Node::Threads(stmts) => {
                let body: TokenStream = stmts.iter().map(|s| self.em.stmt(s)).collect();
                let body = wrap_part(self.em, stmts, &[], body);
                let run = if self.em.track_exit {
                    let ex = exited_ident();
                    quote! { #blk.live_threads(&#ex, |#t| { #body }); }
                } else {
                    quote! { #blk.threads(|#t| { #body }); }
                };
                quote! { #run #cancel }
            }
            Node::Barrier if self.em.track_exit => {
                let ex = exited_ident();
                quote! { if !#blk.barrier(&#ex) { return; } }
            }
            Node::Barrier => TokenStream::new(),
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
            Node::If { cond, then, els } => {
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
                        let check = self.uniform(quote! { (#a, #b) }, what, &[start, end], quote! { (#sv, #ev) });
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
