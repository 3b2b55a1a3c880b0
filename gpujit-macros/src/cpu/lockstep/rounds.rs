//! Lockstep rounds on block spans (`cpu::span`): one round of a unit-stride
//! loop with the thread loop innermost, and the full rounds of a grid-stride
//! loop shifted by `r * step`, each checked once per array.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::mixed;
use crate::cpu::parts::wrap_part;
use crate::emit_cpu::{block_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::visit::locals_used;
use crate::model::*;

/// One round (counter `var`, a `usize` bound to this round's value) of the
/// unit-stride lockstep loop with body `body`, on spans (`cpu::span::loop_plan`):
/// the thread loop innermost, so that `b[[i, col]]` is contiguous across
/// threads and the round vectorizes. Given the checked round (the chunk
/// round, for `r0..r1` one iteration), the round's code. `None` when no
/// array of the body takes a span, or the body uses more than one local that
/// lives across the loop (the round keeps one in a per-thread slot).
pub(super) fn rounds<'e>(
    k: &'e Kernel,
    em: &'e Emitter<'e>,
    var: LocalId,
    body: &'e [&'e Stmt],
) -> Option<(impl FnOnce(&TokenStream) -> TokenStream + 'e, Option<Ident>)> {
    let plan = crate::cpu::span::loop_plan(k, var, body)?;
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
        crate::cpu::span::round_versioned(
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
/// starting at `start` and body `body`, on spans (`cpu::span::round_plan`)
/// where `start` is the thread's own index (`grid(1)`): in the round with
/// offset `off` (`r * step`, the same in every thread) each thread's
/// variable is its own index plus `off`, so one check per array covers the
/// round. Given what marks the round as run and the checked round, the
/// round's code, for rounds in which every thread of the block iterates
/// (`full_rounds`). `None` if the body can leave the loop (a thread's trip
/// count would change) or no array takes a span. `split`: the loop is in a
/// part of a split kernel (`cpu::split::interchange`), where only read-only
/// arrays take spans.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shifted_round<'e>(
    k: &'e Kernel,
    em: &'e Emitter<'e>,
    var: LocalId,
    start: &Expr,
    body: &'e [&'e Stmt],
    off: &'e Ident,
    round: TokenStream,
    split: bool,
) -> Option<impl FnOnce(&TokenStream, &TokenStream) -> TokenStream + 'e> {
    let own = crate::analysis::owned::own_locals(k);
    let own_x = match &start.kind {
        ExprKind::Grid(Axis::X) => true,
        ExprKind::Local(id) => own[*id] == Some(Axis::X),
        _ => false,
    };
    let exits = body.iter().any(|s| may_leave(s));
    if !own_x || exits {
        return None;
    }
    let plan = crate::cpu::span::round_plan(k, var, body, split)?;
    Some(move |mark: &TokenStream, checked: &TokenStream| {
        let (blk, t) = (block_ident(), thread_ident());
        let name = ident(&k.locals[var].name);
        let fem = em.clone().with_spans(plan.clone());
        let inner = wrap_part(&fem, body, &[], body.iter().map(|s| fem.stmt(s)).collect());
        crate::cpu::span::round_versioned(
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
