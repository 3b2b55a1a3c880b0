//! Loop interchange for the CPU backend: one `for` loop of a barrier-free
//! kernel runs in lockstep across the block's threads (iteration 1 of every
//! thread, then iteration 2, ...), as a warp would, where that turns each
//! thread's strided walk through global memory into contiguous runs:
//!
//! - a **strided loop** (`(a..b).step_by(s)`, a grid-stride loop): each
//!   thread records its start, end, step and trip count; when every thread
//!   that iterates has the same step (checked once per block), round `r`
//!   gives thread `t` the element `start_t + r * step` while `r` is below
//!   its trip count: no iterator objects, the offset `r * step` computed
//!   once per round;
//! - a **unit-stride loop** (`a..b`, `a..=b`) whose body walks an array
//!   with a stride (the loop variable in a leading index of a 2-D/3-D
//!   access, as the naive matmul's `b[[i, col]]`, or multiplied in a 1-D
//!   one) and holds no `break`/`continue`/`return`: when every thread that
//!   reaches it has the same bounds (checked once per block), the block runs
//!   `for i in a..b { for each thread { body } }` with one counter for the
//!   block.
//!
//! **Rounds on spans** (`cpu_span::loop_plan`, `round_plan`): a unit-stride
//! loop whose every thread reached it runs one round per counter value with
//! the thread loop innermost; an array indexed by the counter and own
//! indices (`b[[i, col]]`) is checked once per round and read unchecked, so
//! the round vectorizes across threads (one local carried through the loop,
//! as the matmul's `acc`, lives in a per-thread slot on the stack). A
//! grid-stride loop starting at `grid(1)` with a shared step runs each round
//! that every thread takes (`full_rounds`) on spans shifted by `r * step`;
//! arrays that the loop partitions (step `gridsize(1)`) get plain stores there
//! in injective launches (the runtime checks the step is a multiple of
//! `gridsize(1)`). Other rounds run checked. A grid-stride loop where every
//! thread of a block has one element at most runs the plain thread loop
//! (`one_trip_each`): rounds cannot pay for their per-thread state there.
//!
//! A block whose threads disagree (a thread-dependent step, or per-thread
//! bounds of a unit-stride loop) runs each thread's own loop from the
//! recorded state instead: same results, no interchange, no fault (there is
//! no barrier to diverge at). `Block::lockstep` counts the blocks that ran
//! in lockstep, so tests see which path ran.
//!
//! **Why this is a valid CUDA execution.** Without a barrier, CUDA promises
//! no order between the threads of a block: a thread's effects become
//! visible to the others in an unspecified order, and any interleaving of
//! the threads' steps that keeps each thread's own program order is an
//! execution a GPU may produce (warps of one block are scheduled
//! independently). Lockstep runs every thread's statements before the
//! loop, then the loop's iterations interleaved round by round, each
//! thread's in its own order, then every thread's statements after the
//! loop: one such interleaving. Bounds, steps and trip counts are each
//! thread's own values, evaluated once in its own order, as its loop would.
//!
//! Per-thread state that lives across the three parts (locals made before
//! the loop and used in it, as the matmul's `acc`) moves into per-thread
//! arrays, as in `cpu_split`. Only simple shapes are taken: the loop is a
//! statement of the kernel body, or of the `then` block of an `if` there
//! (`if row < n && col < m { .. for .. }`: threads failing the guard take
//! no part), and holds no other loop.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::cpu_split::{spill_decls, wrap_part, Uses};
use crate::emit_cpu::{block_ident, exited_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::*;
use crate::visit::{each_expr, each_expr_in_expr, each_stmt, each_stmt_in_block, locals_used};

/// Where the chosen loop sits.
struct Target<'k> {
    /// Index of the kernel body's statement that is (or holds) the loop.
    top: usize,
    /// The `if` holding the loop, and the loop's index in its `then` block.
    inner: Option<(&'k Expr, &'k Block, Option<&'k Block>, usize)>,
    l: &'k Stmt,
}

fn mentions(e: &Expr, var: LocalId) -> bool {
    let mut found = false;
    each_expr_in_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Local(id) if id == var));
    found
}

/// Whether the index `idx` of a global array depends on `var` (`any`), or
/// walks memory with a stride as `var` counts up: `var` in a leading index
/// of a 2-D/3-D access, or multiplied in a 1-D one.
fn walks(idx: &[Expr], var: LocalId, any: bool) -> bool {
    if any {
        return idx.iter().any(|e| mentions(e, var));
    }
    match idx {
        [one] => {
            let mut scaled = false;
            each_expr_in_expr(one, &mut |x| {
                if let ExprKind::Binary(BinOp::Mul, a, b) = &x.kind {
                    scaled |= mentions(a, var) || mentions(b, var);
                }
            });
            scaled
        }
        [lead @ .., _] => lead.iter().any(|e| mentions(e, var)),
        [] => false,
    }
}

/// Whether `s` is a `for` loop worth interchanging (see the module docs):
/// a strided loop whose body indexes global memory with the loop variable,
/// or a unit-stride one whose body walks global memory with a stride. A
/// unit-stride loop over contiguous elements is left to each thread: its
/// own walk is already contiguous.
fn candidate(k: &Kernel, s: &Stmt) -> bool {
    let Stmt::For {
        var,
        body,
        step,
        rev: false,
        ..
    } = s
    else {
        return false;
    };
    if k.locals[*var].mutable || body.tail.is_some() {
        return false;
    }
    let strided = step.is_some();
    let mut nested = false;
    let mut exits = false;
    let mut walk = false;
    for s in &body.stmts {
        each_stmt(s, &mut |s| {
            nested |= matches!(
                s,
                Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } | Stmt::SyncThreads
            );
            exits |= matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::ReturnValue(_));
            if let Stmt::Assign {
                place: Place::Elem(ArrayRef::Param(_), idx),
                ..
            } = s
            {
                walk |= walks(idx, *var, strided);
            }
        });
        each_expr(s, &mut |e| {
            if let ExprKind::Load(ArrayRef::Param(_), idx) = &e.kind {
                walk |= walks(idx, *var, strided);
            }
        });
    }
    // A unit-stride loop runs as one block-level counter: no thread may
    // leave it early.
    !nested && walk && (strided || !exits)
}

fn find(k: &Kernel) -> Option<Target<'_>> {
    for (top, s) in k.body.stmts.iter().enumerate() {
        if candidate(k, s) {
            return Some(Target { top, inner: None, l: s });
        }
        if let Stmt::If { cond, then, els } = s {
            if then.tail.is_some() {
                continue;
            }
            if let Some(j) = then.stmts.iter().position(|s| candidate(k, s)) {
                return Some(Target {
                    top,
                    inner: Some((cond, then, els.as_ref(), j)),
                    l: &then.stmts[j],
                });
            }
        }
    }
    None
}

/// For a grid-stride loop `(start..end).step_by(step)` at the top of the
/// kernel body, with `start` the thread's own index (`grid(1)`) and `end`
/// and `step` block-uniform and unable to fault (as `narrow` decides, from
/// `let`s before the loop that are such values themselves): a test, once per
/// block, that every thread of the block runs the loop at most once (the
/// launch has a thread per element). Such a block runs the plain thread loop:
/// lockstep rounds cannot pay for the per-thread state they record. Either
/// path is a valid execution, so the test only picks the faster one.
pub fn one_trip_each(k: &Kernel) -> Option<TokenStream> {
    if k.uses_barrier || k.body.tail.is_some() {
        return None;
    }
    let target = find(k)?;
    let Stmt::For {
        start,
        end,
        inclusive,
        step: Some(step),
        ..
    } = target.l
    else {
        return None;
    };
    if target.inner.is_some() {
        return None;
    }
    let own = crate::owned::own_locals(k);
    let own_x = match &start.kind {
        ExprKind::Grid(Axis::X) => true,
        ExprKind::Local(id) => own[*id] == Some(Axis::X),
        _ => false,
    };
    if !own_x {
        return None;
    }
    // Locals bound once, by a `let` before the loop, to a uniform value.
    let mut binds = vec![0usize; k.locals.len()];
    each_stmt_in_block(&k.body, &mut |s| match s {
        Stmt::Let { local, .. } => binds[*local] += 1,
        Stmt::LetTuple { locals, .. } => locals.iter().flatten().for_each(|l| binds[*l] += 2),
        Stmt::For { var, .. } => binds[*var] += 2,
        Stmt::Assign {
            place: Place::Local(l), ..
        } => binds[*l] += 2,
        _ => {}
    });
    let uniform = crate::cpu_split::Uniform::new(k, &[]);
    let mut extra = Vec::new();
    let mut lets = Vec::new();
    for s in &k.body.stmts[..target.top] {
        if let Stmt::Let { local, init: Some(e) } = s {
            if binds[*local] == 1 && !k.locals[*local].mutable && uniform.is_uniform(e, &extra) {
                extra.push(*local);
                lets.push(s);
            }
        }
    }
    if !uniform.is_uniform(end, &extra) || !uniform.is_uniform(step, &extra) {
        return None;
    }
    // A fresh emitter: the lets bind Rust locals (no per-thread arrays).
    let em = Emitter::new(k);
    let (blk, t) = (block_ident(), thread_ident());
    let lets: TokenStream = lets.iter().map(|s| em.stmt(s)).collect();
    let (e, st) = (em.expr(end), em.expr(step));
    Some(quote! {
        {
            #[allow(unused_variables)]
            let (gj_end, gj_step) = #blk.uniform_value(|#t| { #lets (#e, #st) });
            #blk.one_trip_each(gj_end, gj_step, #inclusive)
        }
    })
}

/// Iterations of a unit-stride lockstep loop that each thread runs before
/// the next thread's turn (see `block_body`).
const CHUNK: usize = 8;

fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// One round (counter `var`, a `usize` bound to this round's value) of the
/// unit-stride lockstep loop with body `body`, on spans (`cpu_span::loop_plan`):
/// the thread loop innermost, so that `b[[i, col]]` is contiguous across
/// threads and the round vectorizes. Given the checked round (the chunk
/// round, for `r0..r1` one iteration), the round's code. `None` when no
/// array of the body takes a span, or the body uses more than one local that
/// lives across the loop (the round keeps one in a per-thread slot).
fn rounds<'e>(
    k: &'e Kernel,
    em: &'e Emitter<'e>,
    var: LocalId,
    body: &'e [&'e Stmt],
) -> Option<(impl FnOnce(&TokenStream) -> TokenStream + 'e, Option<Ident>)> {
    let plan = crate::cpu_span::loop_plan(k, var, body)?;
    let mut used = Vec::new();
    for s in body {
        locals_used(s, &mut used);
    }
    used.sort_unstable();
    used.dedup();
    used.retain(|id| em.spilled[*id]);
    if used.len() > 1 {
        return None;
    }
    let slot_array = used.first().map(|&id| spill_ident(&k.locals[id]));
    let fast = move |checked: &TokenStream| {
        let (blk, t) = (block_ident(), thread_ident());
        let name = ident(&k.locals[var].name);
        let mut fem = em.clone().with_spans(plan.clone());
        for &id in &used {
            fem.spilled[id] = false;
        }
        let inner = wrap_part(&fem, body, &[], body.iter().map(|s| fem.stmt(s)).collect());
        let u = quote! { #name };
        crate::cpu_span::round_versioned(
            k,
            &plan,
            &u,
            |_| match used.first() {
                None => quote! {
                    #blk.span_block();
                    #blk.threads(|#t| { #inner });
                },
                Some(&id) => {
                    let l = &k.locals[id];
                    let (arr, local) = (spill_ident(l), ident(&l.name));
                    let slot = mixed("gj_slot");
                    quote! {
                        #blk.span_block();
                        #blk.threads_slots(&mut #arr[..], |#t, #slot| {
                            #[allow(unused_mut)]
                            let mut #local = *#slot;
                            #inner
                            *#slot = #local;
                        });
                    }
                }
            },
            checked.clone(),
        )
    };
    Some((fast, slot_array))
}

/// One round of the strided lockstep loop with variable `var` (a `usize`)
/// starting at `start` and body `body`, on spans (`cpu_span::round_plan`)
/// where `start` is the thread's own index (`grid(1)`): in the round with
/// offset `off` (`r * step`, the same in every thread) each thread's
/// variable is its own index plus `off`, so one check per array covers the
/// round. Given what marks the round as run and the checked round, the
/// round's code, for rounds in which every thread of the block iterates
/// (`full_rounds`). `None` if the body can leave the loop (a thread's trip
/// count would change) or no array takes a span.
fn shifted_round<'e>(
    k: &'e Kernel,
    em: &'e Emitter<'e>,
    var: LocalId,
    start: &Expr,
    body: &'e [&'e Stmt],
    off: &'e Ident,
    round: TokenStream,
) -> Option<impl FnOnce(&TokenStream, &TokenStream) -> TokenStream + 'e> {
    let own = crate::owned::own_locals(k);
    let own_x = match &start.kind {
        ExprKind::Grid(Axis::X) => true,
        ExprKind::Local(id) => own[*id] == Some(Axis::X),
        _ => false,
    };
    let mut exits = false;
    for s in body {
        each_stmt(s, &mut |s| {
            exits |= matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::ReturnValue(_));
        });
    }
    if !own_x || exits {
        return None;
    }
    let plan = crate::cpu_span::round_plan(k, var, body)?;
    Some(move |mark: &TokenStream, checked: &TokenStream| {
        let (blk, t) = (block_ident(), thread_ident());
        let name = ident(&k.locals[var].name);
        let fem = em.clone().with_spans(plan.clone());
        let inner = wrap_part(&fem, body, &[], body.iter().map(|s| fem.stmt(s)).collect());
        crate::cpu_span::round_versioned(
            k,
            &plan,
            &round,
            |_| {
                quote! {
                    #mark
                    #blk.span_block();
                    #blk.threads(|#t| {
                        #[allow(unused_variables)]
                        let #name = ::gpujit::__private::StrideIndex::stride_at(#t.grid1(), #off);
                        #inner
                    });
                }
            },
            checked.clone(),
        )
    })
}

/// The block function of barrier-free kernel `k` with one loop interchanged,
/// or `None` if no loop qualifies.
pub fn block_body(k: &Kernel) -> Option<TokenStream> {
    if k.uses_barrier || k.body.tail.is_some() {
        return None;
    }
    let target = find(k)?;
    let Stmt::For {
        var,
        start,
        end,
        inclusive,
        step,
        body,
        ..
    } = target.l
    else {
        return None;
    };
    let stmts = &k.body.stmts;
    let before: Vec<&Stmt> = stmts[..target.top].iter().collect();
    let after: Vec<&Stmt> = stmts[target.top + 1..].iter().collect();
    let loop_body: Vec<&Stmt> = body.stmts.iter().collect();

    // The three per-thread parts: up to the loop, the loop body, the rest.
    let mut uses = Uses::new(k);
    let mut head_exprs = vec![start, end];
    head_exprs.extend(step.iter());
    match target.inner {
        None => uses.part_of(&before, &head_exprs),
        Some((cond, then, els, j)) => {
            let mut first = before.clone();
            first.extend(then.stmts[..j].iter());
            first.extend(els.iter().flat_map(|b| b.stmts.iter()));
            head_exprs.push(cond);
            uses.part_of(&first, &head_exprs);
        }
    }
    uses.part_of(&loop_body, &[]);
    let mut last = after.clone();
    if let Some((_, then, _, j)) = target.inner {
        last.extend(then.stmts[j + 1..].iter());
    }
    uses.part_of(&last, &[]);

    let mut em = Emitter::new(k);
    let decls = spill_decls(k, &uses, &mut em)?;
    let (blk, t) = (block_ident(), thread_ident());
    // Per thread: reached the loop, its start, end, step and trip count
    // (one `LoopState`, one allocation per block).
    let st = mixed("gj_state");
    let me = quote! { #st[#t.lin()] };
    let (a, b, s, any) = (mixed("gj_a"), mixed("gj_b"), mixed("gj_s"), mixed("gj_any"));
    let emit_all = |em: &Emitter, ss: &[&Stmt]| -> TokenStream { ss.iter().map(|s| em.stmt(s)).collect() };
    let threads = |body: TokenStream| {
        if em.track_exit {
            let ex = exited_ident();
            quote! { #blk.live_threads(&#ex, |#t| { #body }); }
        } else {
            quote! { #blk.threads(|#t| { #body }); }
        }
    };

    // Part 1: everything before the loop, then the thread's loop state,
    // evaluated in the order its own loop would (start, end, step).
    let (sv, ev) = (em.expr(start), em.expr(end));
    let record = match step {
        Some(step_e) => {
            let step = em.expr(step_e);
            quote! {
                let #a = #sv;
                let #b = #ev;
                let #s = #t.check_step(#step);
                #me = ::gpujit::__private::LoopState {
                    on: true,
                    start: #a,
                    end: #b,
                    step: #s,
                    trips: ::gpujit::__private::StrideIndex::stride_trips(#a, #b, #s, #inclusive),
                };
            }
        }
        None => quote! {
            let #a = #sv;
            let #b = #ev;
            #me = ::gpujit::__private::LoopState { on: true, start: #a, end: #b, step: 1, trips: 0 };
        },
    };
    let (first, first_stmts) = match target.inner {
        None => {
            let pre = emit_all(&em, &before);
            (quote! { #pre #record }, before.clone())
        }
        Some((cond, then, els, j)) => {
            let pre = emit_all(&em, &before);
            let c = em.expr(cond);
            let tp = emit_all(&em, &then.stmts[..j].iter().collect::<Vec<_>>());
            let els_code = els.map(|b| em.block_stmts(b)).unwrap_or_default();
            let mut stmts = before.clone();
            stmts.extend(then.stmts[..j].iter());
            stmts.extend(els.iter().flat_map(|b| b.stmts.iter()));
            (quote! { #pre if #c { #tp #record } else { #els_code } }, stmts)
        }
    };
    let part1 = threads(wrap_part(&em, &first_stmts, &head_exprs, first));

    // Part 2, the fallback: each thread runs its own loop from its recorded
    // state (a thread-dependent step or range).
    let name = ident(&k.locals[*var].name);
    let range = match (step.is_some(), *inclusive) {
        (true, true) => quote! { #blk.step_by_inclusive(#me.start, #me.end, #me.step) },
        (true, false) => quote! { #blk.step_by(#me.start, #me.end, #me.step) },
        (false, true) => quote! { #me.start..=#me.end },
        (false, false) => quote! { #me.start..#me.end },
    };
    let own_body = emit_all(&em, &loop_body);
    let own = threads(wrap_part(
        &em,
        &loop_body,
        &[],
        quote! {
            if !#me.on {
                return;
            }
            for #name in #range {
                if #t.cancelled() {
                    return;
                }
                #own_body
            }
        },
    ));
    // Part 2, in lockstep: one iteration of every thread per round.
    let part2 = match step {
        Some(_) => {
            let mut lem = em.clone();
            lem.lockstep_break = Some(quote! { { #me.trips = 0; return; } });
            let lbody = wrap_part(&lem, &loop_body, &[], emit_all(&lem, &loop_body));
            let (r, rounds, off, common) = (mixed("gj_r"), mixed("gj_rounds"), mixed("gj_off"), mixed("gj_step"));
            let round = threads(quote! {
                let #s = &#me;
                if #r >= #s.trips {
                    return;
                }
                #any = true;
                let #name = ::gpujit::__private::StrideIndex::stride_at(#s.start, #off);
                #lbody
            });
            // Rounds where every thread runs on spans shifted by `off`
            // (see `shifted_round`), the others checked.
            let (full, round) = match shifted_round(k, &em, *var, start, &loop_body, &off, quote! { #r, #common }) {
                Some(fast) => {
                    let full = mixed("gj_full");
                    let checked = quote! { #round };
                    let fast = fast(&quote! { #any = true; }, &checked);
                    (
                        quote! { let #full = ::gpujit::__private::full_rounds(&#st); },
                        quote! {
                            if #r < #full {
                                #fast
                            } else {
                                #checked
                            }
                        },
                    )
                }
                None => (TokenStream::new(), round),
            };
            quote! {
                match ::gpujit::__private::common_step(&#st) {
                    ::core::option::Option::Some((#common, #rounds)) => {
                        #blk.lockstep();
                        #full
                        let mut #r: usize = 0;
                        while #r < #rounds {
                            if #blk.cancelled() {
                                return;
                            }
                            let #off = (#r as u64).wrapping_mul(#common as u64);
                            let mut #any = false;
                            #round
                            if !#any {
                                break;
                            }
                            #r += 1;
                        }
                    }
                    ::core::option::Option::None => { #own }
                }
            }
        }
        None => {
            // Strip-mined: each thread runs `CHUNK` iterations at a time,
            // so its locals stay in registers within a chunk and the rows
            // that the chunk walks stay in L1 for the next thread.
            let (lo, hi, n, r0, r1, q) = (
                mixed("gj_lo"),
                mixed("gj_hi"),
                mixed("gj_n"),
                mixed("gj_r0"),
                mixed("gj_r1"),
                mixed("gj_q"),
            );
            let chunk = CHUNK;
            let body = emit_all(&em, &loop_body);
            let round = threads(wrap_part(
                &em,
                &loop_body,
                &[],
                quote! {
                    if !#me.on {
                        return;
                    }
                    for #q in #r0..#r1 {
                        let #name = ::gpujit::__private::StrideIndex::stride_at(#lo, #q as u64);
                        #body
                    }
                },
            ));
            let chunks = quote! {
                let mut #r0: usize = 0;
                while #r0 < #n {
                    if #blk.cancelled() {
                        return;
                    }
                    let #r1 = #r0 + (#n - #r0).min(#chunk);
                    #round
                    #r0 = #r1;
                }
            };
            // Rounds on spans where the body's arrays allow (see `rounds`),
            // else chunks.
            let body = match rounds(k, &em, *var, &loop_body) {
                Some((fast, slot)) => {
                    let fast = fast(&round);
                    let rounds = quote! {
                        let mut #r0: usize = 0;
                        while #r0 < #n {
                            if #blk.cancelled() {
                                return;
                            }
                            let #r1 = #r0 + 1;
                            let #name = ::gpujit::__private::StrideIndex::stride_at(#lo, #r0 as u64);
                            #fast
                            #r0 = #r1;
                        }
                    };
                    // The carried local's slots on the stack (see
                    // `Block::stack_slots`); a cancelled block returns
                    // without copying them back (it runs nothing more).
                    // The stack copy shadows the per-thread array, which the
                    // checked rounds index too.
                    let stack = mixed("gj_stack");
                    let rounds = match slot {
                        Some(arr) => quote! {
                            let mut #stack = #blk.stack_slots(&#arr[..]);
                            {
                                let #arr = #stack.get();
                                #rounds
                            }
                            #stack.store(&mut #arr[..]);
                        },
                        None => rounds,
                    };
                    quote! {
                        if !#blk.force_coroutines() && #st.iter().all(|s| s.on) {
                            #rounds
                        } else {
                            #chunks
                        }
                    }
                }
                None => chunks,
            };
            quote! {
                match ::gpujit::__private::common_range(&#st) {
                    ::core::option::Option::Some((#lo, #hi)) => {
                        #blk.lockstep();
                        let #n = ::gpujit::__private::StrideIndex::stride_trips(#lo, #hi, 1, #inclusive);
                        #body
                    }
                    ::core::option::Option::None => { #own }
                }
            }
        }
    };

    // Part 3: the rest of the `if`'s block (threads that took it), and what
    // follows it.
    let rest_then = match target.inner {
        Some((_, then, _, j)) => {
            let tq = emit_all(&em, &then.stmts[j + 1..].iter().collect::<Vec<_>>());
            quote! { if #me.on { #tq } }
        }
        None => TokenStream::new(),
    };
    let post = emit_all(&em, &after);
    let part3 = threads(wrap_part(&em, &last, &[], quote! { #rest_then #post }));
    let init = match k.locals[*var].ty {
        Ty::Scalar(sc) => {
            let ty = ident(sc.rust_name());
            quote! { ::gpujit::__private::LoopState::<#ty>::default() }
        }
        _ => quote! { ::gpujit::__private::LoopState::default() },
    };
    Some(quote! {
        #decls
        let mut #st = #blk.per_thread(#init);
        #part1
        if #blk.cancelled() { return; }
        #part2
        if #blk.cancelled() { return; }
        #part3
    })
}
