//! The block function of a kernel with one loop in lockstep: the threads'
//! part before the loop (recording each thread's loop state), the loop in
//! rounds (or each thread's own loop where the threads disagree), and the
//! part after it.

use proc_macro2::TokenStream;
use quote::quote;

use super::find::find;
use super::mixed;
use super::rounds::rounds;
use crate::cpu::parts::{spill_decls, wrap_part, Uses};
use crate::cpu::span::shifted_round;
use crate::emit_cpu::{block_ident, exited_ident, ident, thread_ident, Emitter};
use crate::model::*;

/// Iterations of a unit-stride lockstep loop that each thread runs before
/// the next thread's turn (see `block_body`).
const CHUNK: usize = 8;

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
            let (full, round) =
                match shifted_round(k, &em, *var, start, &loop_body, &off, quote! { #r, #common }, false) {
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
                        if !#blk.strategy_off(::gpujit::__private::Strategies::LOCKSTEP) && #st.iter().all(|s| s.on) {
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
