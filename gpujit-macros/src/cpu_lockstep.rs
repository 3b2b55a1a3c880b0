//! Loop interchange for the CPU backend: a barrier-free kernel's strided
//! `for` loop whose body reads or writes global memory at an index built
//! from the loop variable runs in lockstep across the block's threads
//! (iteration 1 of every thread, then iteration 2, ...), as a warp would. A
//! grid-stride loop then touches consecutive elements in consecutive threads
//! instead of elements `gridsize` apart.
//!
//! Without a barrier, CUDA promises no order between the threads of a block,
//! so any interleaving that keeps each thread's own order is a valid
//! execution; this one needs per-thread state: each thread's loop iterator,
//! and the locals that live across the loop's boundary (see `cpu_split`).
//!
//! Only simple shapes are taken: the loop is a statement of the kernel body,
//! or of the `then` block of an `if` there (`if i < n { .. for .. }`), and
//! holds no other loop.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::cpu_split::{spill_decls, wrap_part, Uses};
use crate::emit_cpu::{block_ident, exited_ident, ident, thread_ident, Emitter};
use crate::model::*;
use crate::visit::{each_expr, each_expr_in_expr, each_stmt};

/// Where the chosen loop sits.
struct Target<'k> {
    /// Index of the kernel body's statement that is (or holds) the loop.
    top: usize,
    /// The `if` holding the loop, and the loop's index in its `then` block.
    inner: Option<(&'k Expr, &'k Block, Option<&'k Block>, usize)>,
    l: &'k Stmt,
}

/// Whether `s` is a `for` loop worth interchanging: a strided loop
/// (`step_by`, as grid-stride loops are) over global memory. A unit-stride
/// loop (the naive matmul's) is left to each thread: measured, the
/// per-thread iterator and locals cost more there than the contiguous
/// accesses gain.
fn candidate(k: &Kernel, s: &Stmt) -> bool {
    let Stmt::For {
        var,
        body,
        step: Some(_),
        rev: false,
        ..
    } = s
    else {
        return false;
    };
    if k.locals[*var].mutable {
        return false;
    }
    let mut nested = false;
    let mut strided = false;
    let mentions_var = |e: &Expr| {
        let mut found = false;
        each_expr_in_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Local(id) if id == *var));
        found
    };
    for s in &body.stmts {
        each_stmt(s, &mut |s| {
            nested |= matches!(
                s,
                Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } | Stmt::SyncThreads
            );
            if let Stmt::Assign {
                place: Place::Elem(ArrayRef::Param(_), idx),
                ..
            } = s
            {
                strided |= idx.iter().any(mentions_var);
            }
        });
        each_expr(s, &mut |e| {
            if let ExprKind::Load(ArrayRef::Param(_), idx) = &e.kind {
                strided |= idx.iter().any(mentions_var);
            }
        });
    }
    body.tail.is_none() && !nested && strided
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

fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
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
    let (iters, on, any) = (mixed("gj_iters"), mixed("gj_on"), mixed("gj_any"));
    let emit_all = |em: &Emitter, ss: &[&Stmt]| -> TokenStream { ss.iter().map(|s| em.stmt(s)).collect() };
    let threads = |body: TokenStream| {
        if em.track_exit {
            let ex = exited_ident();
            quote! { #blk.live_threads(&#ex, |#t| { #body }); }
        } else {
            quote! { #blk.threads(|#t| { #body }); }
        }
    };

    // Part 1: everything before the loop, then the thread's loop iterator.
    let (sv, ev) = (em.expr(start), em.expr(end));
    let iter = match step {
        Some(s) => {
            let s = em.expr(s);
            if *inclusive {
                quote! { #t.step_by_inclusive(#sv, #ev, #s) }
            } else {
                quote! { #t.step_by(#sv, #ev, #s) }
            }
        }
        None if *inclusive => quote! { (#sv..=#ev).step_by(1) },
        None => quote! { (#sv..#ev).step_by(1) },
    };
    let set_iter = quote! { #iters[#t.lin()] = ::core::option::Option::Some(#iter); };
    let (first, first_stmts) = match target.inner {
        None => {
            let pre = emit_all(&em, &before);
            (quote! { #pre #set_iter }, before.clone())
        }
        Some((cond, then, els, j)) => {
            let pre = emit_all(&em, &before);
            let c = em.expr(cond);
            let tp = emit_all(&em, &then.stmts[..j].iter().collect::<Vec<_>>());
            let els_code = els.map(|b| em.block_stmts(b)).unwrap_or_default();
            let mut stmts = before.clone();
            stmts.extend(then.stmts[..j].iter());
            stmts.extend(els.iter().flat_map(|b| b.stmts.iter()));
            (
                quote! { #pre if #c { #on[#t.lin()] = true; #tp #set_iter } else { #els_code } },
                stmts,
            )
        }
    };
    let part1 = threads(wrap_part(&em, &first_stmts, &head_exprs, first));

    // Part 2: one iteration of every thread whose loop has not ended, until
    // none has an iteration left.
    let mut lem = em.clone();
    lem.lockstep_break = Some(quote! { { #iters[#t.lin()] = ::core::option::Option::None; return; } });
    let name = ident(&k.locals[*var].name);
    let lbody = wrap_part(&lem, &loop_body, &[], emit_all(&lem, &loop_body));
    let step_one = threads(quote! {
        let ::core::option::Option::Some(#name) = #iters[#t.lin()].as_mut().and_then(::core::iter::Iterator::next) else {
            #iters[#t.lin()] = ::core::option::Option::None;
            return;
        };
        #any = true;
        #lbody
    });
    let part2 = quote! {
        loop {
            let mut #any = false;
            #step_one
            if !#any || #blk.cancelled() {
                break;
            }
        }
    };

    // Part 3: the rest of the `if`'s block (threads that took it), and what
    // follows it.
    let rest_then = match target.inner {
        Some((_, then, _, j)) => {
            let tq = emit_all(&em, &then.stmts[j + 1..].iter().collect::<Vec<_>>());
            quote! { if #on[#t.lin()] { #tq } }
        }
        None => TokenStream::new(),
    };
    let post = emit_all(&em, &after);
    let part3 = threads(wrap_part(&em, &last, &[], quote! { #rest_then #post }));
    let on_decl = if target.inner.is_some() {
        quote! { let mut #on = #blk.per_thread(false); }
    } else {
        TokenStream::new()
    };
    Some(quote! {
        #blk.lockstep();
        #decls
        #on_decl
        let mut #iters = #blk.per_thread(::core::option::Option::None);
        #part1
        if #blk.cancelled() { return; }
        #part2
        if #blk.cancelled() { return; }
        #part3
    })
}
