//! One round of a grid-stride walk on block spans, for the strategies that
//! run such a walk in lockstep (`cpu::lockstep`'s barrier-free loop, the
//! parts of `cpu::split`): each thread's variable is its own index plus the
//! round's offset, so one range check per array covers the round.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::cpu::parts::wrap_part;
use crate::emit_cpu::{block_ident, ident, thread_ident, Emitter};
use crate::model::*;

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
pub fn shifted_round<'e>(
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
    let plan = super::round_plan(k, var, body, split)?;
    Some(move |mark: &TokenStream, checked: &TokenStream| {
        let (blk, t) = (block_ident(), thread_ident());
        let name = ident(&k.locals[var].name);
        let fem = em.clone().with_spans(plan.clone());
        let inner = wrap_part(&fem, body, &[], body.iter().map(|s| fem.stmt(s)).collect());
        super::round_versioned(
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
