//! Lockstep rounds on block spans (`cpu::span`): one round of a unit-stride
//! loop with the thread loop innermost, checked once per array (the shifted
//! rounds of a grid-stride loop are `cpu::span::shifted_round`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::find::computes_only;
use super::mixed;
use crate::cpu::parts::wrap_part;
use crate::emit_cpu::{block_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::visit::locals_used;
use crate::model::*;

/// One round (counter `var`, a `usize` bound to this round's value) of the
/// unit-stride lockstep loop with body `body`, on spans (`cpu::span::loop_plan`):
/// the thread loop innermost, so that `b[[i, col]]` is contiguous across
/// threads and the round vectorizes. Given the checked round (the chunk
/// round, for `r0..r1` one iteration), the round's code. `None` when the
/// body reads or writes arrays but none takes a span, or the body uses more
/// than one local that lives across the loop (the round keeps one in a
/// per-thread slot).
pub(super) fn rounds<'e>(
    k: &'e Kernel,
    em: &'e Emitter<'e>,
    var: LocalId,
    body: &'e [&'e Stmt],
) -> Option<(impl FnOnce(&TokenStream) -> TokenStream + 'e, Option<Ident>)> {
    // A body that only computes on locals has no array to check: its
    // rounds run unchecked as they are.
    let plan = match computes_only(body.iter().copied()) {
        true => crate::cpu::span::no_array_plan(k, var),
        false => crate::cpu::span::loop_plan(k, var, body)?,
    };
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
