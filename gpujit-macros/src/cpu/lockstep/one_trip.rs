//! The run-time test that picks the plain thread loop over lockstep rounds
//! for a grid-stride loop in which no thread has more than one element.

use proc_macro2::TokenStream;
use quote::quote;

use super::find::find;
use crate::emit_cpu::{block_ident, thread_ident, Emitter};
use crate::model::visit::each_stmt_in_block;
use crate::model::*;

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
    let own = crate::analysis::owned::own_locals(k);
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
    let uniform = crate::analysis::Uniform::new(k, &[]);
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
