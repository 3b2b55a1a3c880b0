//! Interchanged loops inside a split kernel's part: a per-thread part that
//! holds a `for j in a..b { .. }` with `a` and `b` the same in every thread
//! of the block (the tiled matmul's `for j in 0..TILE { acc += sa[ty][j] *
//! sb[j][tx]; }` between its barriers) runs as `for j in a..b { for each
//! thread { body } }`, so that consecutive threads touch consecutive
//! elements (`sb[j][tx]`) and the thread loop can vectorize. Locals the body
//! shares with other parts (`acc`) already live in per-thread arrays.
//! Statements before and after the loop in the part run as thread loops of
//! their own. The locals they bind that the loop or the rest read live in
//! per-thread arrays or are recomputed coordinates: `split` gives such a
//! local an array even when it lives in this one part
//! (`spills_for_interchange`: `let mut v = 0.0; for .. { v += x[i]; } let w
//! = v;`), so how the part is spelled does not decide the interchange.
//!
//! A strided loop (`(a..n).step_by(s)` over an unsigned variable, the
//! histogram's grid-stride walk between its barriers) runs in rounds
//! instead: round `r` runs iteration `a_t + r * s` of every thread `t` whose
//! walk has one, so consecutive threads take consecutive elements; `n` and
//! `s` must be block-uniform and `a` computable again in each round (see
//! `interchange_strided`). The same argument makes it valid: each thread's
//! iterations in its order, with its own values. Where `a` is `grid(1)` and
//! no thread can have returned, the rounds that every thread of the block
//! runs (below the least trip count) read the read-only arrays on spans
//! shifted by `r * s` (`span::shifted_round`), each checked once per
//! round; the other rounds, and a round whose span check fails, run checked.
//!
//! Taken when the bounds are block-uniform and cannot fault (see `narrow`:
//! evaluated once per block), the loop counts up by 1 on an immutable
//! variable, and its body holds no `break`, `continue` or `return` (each
//! thread then runs exactly the iterations `a..b`) and no local array.
//! `Block::lockstep` counts the blocks that ran one (for tests).
//!
//! **Why this is a valid CUDA execution.** Between two barriers CUDA orders
//! nothing across the threads of a block: any interleaving of the threads'
//! steps that keeps each thread's own program order is an execution a GPU
//! may produce. The interchanged part runs every thread's statements before
//! the loop, then iteration `j` of every thread before iteration `j + 1` of
//! any, then every thread's statements after it: each thread's steps in its
//! own order, with its own values, so one such interleaving. Each thread's
//! floating-point operations are the same, in the same order, so results
//! are bit for bit those of the per-thread loop. Only which of several
//! faulting threads a block reports first may differ (on a GPU, whichever
//! faults first).
//!
//! **Range checks.** Every access stays checked. Every part's thread loop
//! (interchanged or not) is emitted twice: `Block::fits` picks, once per
//! part, the copy for blocks whose `blockDim` is at most the extent of each
//! shared array at each position indexed by `threadIdx` on that axis, and
//! whose loop range is within the extents at positions indexed by the loop
//! variable; there (`Block::threads_fit`) LLVM knows those facts, drops the
//! matching checks and vectorizes. Other blocks run the plain copy. The
//! runtime checks the facts it states, so a wrong choice here costs speed,
//! never soundness.
//!
//! **Rows.** In that fitted copy, a loop that carries one scalar local (the
//! matmul's `acc`: the only per-thread-array local its body assigns) runs
//! row by row instead (`Block::lockstep_rows`, when no thread can have
//! returned): each run of 8 threads of a row runs every iteration with
//! their 8 values in registers (`for j { for 8 threads { acc[x] += sa[ty][j]
//! * sb[j][tx] } }`, two vector multiply-adds per `j`), rather than loading
//! and storing each thread's array element at every `j`. A valid execution
//! for the same reason (each thread's iterations in its order); results are
//! the same bits. `Block::lockstep_rows` counts such blocks (for tests).

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::analysis::Uniform;
use crate::emit_cpu::{block_ident, exited_ident, ident, spill_ident, thread_ident, Emitter};
use crate::model::visit::{each_expr, each_expr_in_expr, each_stmt};
use crate::model::*;

fn mixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The part `stmts` as statements run per thread (`prefix`), an
/// interchanged loop and statements run per thread again (`suffix`), or
/// `None` if it holds no `for` that qualifies (see the module docs).
pub(super) fn interchanged(em: &Emitter, uniform: &Uniform, stmts: &[&Stmt]) -> Option<TokenStream> {
    let (k, unkept) = loop_and_unkept(em, uniform, stmts)?;
    if !unkept.is_empty() {
        return None;
    }
    let lp = interchange(em, stmts[k])?;
    let (pre, post) = (plain_part(em, &stmts[..k]), plain_part(em, &stmts[k + 1..]));
    Some(quote! { #pre #lp #post })
}

/// The locals that would let the part `stmts` interchange its loop if they
/// lived in per-thread arrays: locals its statements before the loop bind
/// and the loop or the statements after it read (`let mut v = 0.0; for ..
/// { v += x[i]; } let w = v;`: `v` lives in this part only, so it is not
/// spilled for liveness, yet the loop's rounds need it per thread). Empty
/// if the part has no loop that qualifies, needs nothing, or needs a local
/// that cannot live in a per-thread array (a type only rustc knows).
pub(super) fn spills_for_interchange(em: &Emitter, uniform: &Uniform, stmts: &[&Stmt]) -> Vec<LocalId> {
    let Some((_, unkept)) = loop_and_unkept(em, uniform, stmts) else {
        return Vec::new();
    };
    let spillable = |id: &LocalId| matches!(em.k.locals[*id].ty, Ty::Scalar(_) | Ty::Idx3);
    if unkept.iter().all(spillable) {
        unkept
    } else {
        Vec::new()
    }
}

/// The first loop of the part `stmts` that qualifies, and the locals bound
/// before it that the loop or the rest of the part read but that neither
/// live in per-thread arrays nor are computed again (they would not outlive
/// the thread loop of the statements before the loop); `None` if no loop
/// qualifies or the part holds a `return` or a local array outside it.
fn loop_and_unkept(em: &Emitter, uniform: &Uniform, stmts: &[&Stmt]) -> Option<(usize, Vec<LocalId>)> {
    let mut bound_before = Vec::new();
    let k = stmts.iter().position(|s| {
        let q = qualifies(em, uniform, s, &bound_before);
        each_stmt(s, &mut |s| bound_before.extend(bound_by(s)));
        q
    })?;
    let (prefix, suffix) = (&stmts[..k], &stmts[k + 1..]);
    let Stmt::For { body, start, .. } = stmts[k] else {
        return None;
    };
    // A strided loop's start is computed again in each round.
    let mut later = Vec::new();
    each_expr_in_expr(start, &mut |e| {
        if let ExprKind::Local(id) = e.kind {
            later.push(id);
        }
    });
    for s in body.stmts.iter().chain(suffix.iter().copied()) {
        crate::model::visit::locals_used(s, &mut later);
    }
    let mut ok = true;
    for s in prefix.iter().chain(suffix) {
        each_stmt(s, &mut |s| {
            ok &= !matches!(s, Stmt::Return | Stmt::ReturnValue(_) | Stmt::LocalArray { .. });
        });
    }
    if !ok {
        return None;
    }
    let mut unkept = Vec::new();
    for s in prefix {
        each_stmt(s, &mut |s| {
            for id in bound_by(s) {
                if later.contains(&id) && !em.spilled[id] && em.remat[id].is_none() && !unkept.contains(&id) {
                    unkept.push(id);
                }
            }
        });
    }
    Some((k, unkept))
}

/// The locals statement `s` itself binds (not those of statements inside it).
fn bound_by(s: &Stmt) -> Vec<LocalId> {
    match s {
        Stmt::Let { local, .. } => vec![*local],
        Stmt::LetTuple { locals, .. } => locals.iter().flatten().copied().collect(),
        Stmt::For { var, .. } => vec![*var],
        _ => Vec::new(),
    }
}

/// The thread loop of the per-thread statements `stmts` (nothing if none).
pub(super) fn plain_part(em: &Emitter, stmts: &[&Stmt]) -> TokenStream {
    if stmts.iter().all(|s| matches!(s, Stmt::Line(_))) {
        return TokenStream::new();
    }
    let body: TokenStream = stmts.iter().map(|s| em.stmt(s)).collect();
    let body = super::super::parts::wrap_part(em, stmts, &[], body);
    // Specialised for blocks that fit the shared arrays: LLVM can drop
    // those range checks. A part with none to drop (no shared array at a
    // `threadIdx` position, no per-thread array) has one copy: a second,
    // the same code, would only cost build time.
    let (fits, fast, slow) = fitted(em, stmts, None, &body);
    if !has_facts(em, stmts) {
        return slow;
    }
    quote! { if #fits { #fast } else { #slow } }
}

/// Whether `Block::threads_fit` would tell LLVM anything for a part made
/// of `stmts`: a shared array indexed by `threadIdx`, or a per-thread array.
fn has_facts(em: &Emitter, stmts: &[&Stmt]) -> bool {
    !spilled_ids(em, stmts).is_empty() || shared_positions(em, stmts, None).0.iter().any(|ds| !ds.is_empty())
}

/// Whether `s` is a `for` loop this module interchanges: a unit-stride one
/// with block-uniform bounds, or a strided one (`(a..n).step_by(s)`, an
/// unsigned variable) with a uniform end and step whose start each thread
/// can compute again in every round (its coordinates, uniform values and
/// locals the body does not assign). `bound_before` are the locals the
/// part's statements before `s` bind: read by the start, they get
/// per-thread arrays (`loop_and_unkept`), as spilled locals have.
fn qualifies(em: &Emitter, uniform: &Uniform, s: &Stmt, bound_before: &[LocalId]) -> bool {
    let Stmt::For {
        var,
        start,
        end,
        step,
        rev: false,
        body,
        ..
    } = s
    else {
        return false;
    };
    if em.k.locals[*var].mutable || body.tail.is_some() {
        return false;
    }
    let bounds = match step {
        None => uniform.all_uniform(&[start, end]),
        Some(step) => {
            let unsigned = matches!(
                em.k.locals[*var].ty,
                Ty::Scalar(Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 | Scalar::Usize)
            );
            let mut reads = Vec::new();
            each_expr_in_expr(start, &mut |e| {
                if let ExprKind::Local(id) = e.kind {
                    reads.push(id);
                }
            });
            let fixed = |e: &Expr| match e.kind {
                ExprKind::Local(id) => {
                    em.spilled[id] || em.remat[id].is_some() || uniform.uniform[id] || bound_before.contains(&id)
                }
                _ => false,
            };
            let mut assigned = false;
            for s in &body.stmts {
                each_stmt(s, &mut |s| {
                    assigned |= matches!(s, Stmt::Assign { place: Place::Local(id), .. } if reads.contains(id));
                });
            }
            unsigned
                && !assigned
                && uniform.all_uniform(&[end, step])
                && fault_free_where(start, &|u| matches!(u, Uniformity::Block | Uniformity::Thread), &fixed)
        }
    };
    if !bounds {
        return false;
    }
    let mut exits = false;
    let mut arrays = false;
    for s in &body.stmts {
        exits |= may_leave(s) || has_block_barrier(s);
        arrays |= any_stmt(s, |p| p.local_array);
        each_expr(s, &mut |e| {
            arrays |= matches!(e.kind, ExprKind::Load(ArrayRef::Local(_), _));
        });
    }
    !exits && !arrays
}

/// A strided loop `l` (a `for .. step_by` that `qualifies`) in lockstep
/// rounds: round `r` runs, in every thread whose start `a` is in range,
/// the iteration `i = a + r * step`, so that consecutive threads take
/// consecutive elements of a grid-stride walk (the histogram's
/// `pixels[i]`). The rounds are as many as the longest thread's trip count.
/// A zero step or an end within `step` of the type's maximum (where `r *
/// step` could pass it) runs each thread's own loop instead, as written.
fn interchange_strided(em: &Emitter, l: &Stmt) -> Option<TokenStream> {
    let Stmt::For {
        var,
        start,
        end,
        inclusive,
        step: Some(step),
        body,
        ..
    } = l
    else {
        return None;
    };
    let (blk, t) = (block_ident(), thread_ident());
    let Ty::Scalar(ty) = em.k.locals[*var].ty else {
        return None;
    };
    let ty = ident(ty.rust_name());
    let (hi, stp, rounds, r, a, off) = (
        mixed("gj_ihi"),
        mixed("gj_istep"),
        mixed("gj_rounds"),
        mixed("gj_r"),
        mixed("gj_start"),
        mixed("gj_off"),
    );
    let (sv, ev, stv) = (em.expr(start), em.expr(end), em.expr(step));
    let name = ident(&em.k.locals[*var].name);
    // Each thread's trip count, and whether round `r` is one of its own.
    let (trips, in_range) = if *inclusive {
        (
            quote! { if #a <= #hi { ((#hi - #a) as usize) / #stp + 1 } else { 0 } },
            quote! { #a <= #hi && #off <= (#hi - #a) as usize },
        )
    } else {
        (
            quote! { if #a < #hi { ((#hi - #a - 1) as usize) / #stp + 1 } else { 0 } },
            quote! { #a < #hi && #off < (#hi - #a) as usize },
        )
    };
    // Rounds that every thread of the block runs (fewer than `full`) on
    // spans shifted by `off`, each read-only array checked once per round
    // (see `span::shifted_round`), where no thread can have returned
    // (every thread then runs the part).
    let full = mixed("gj_full");
    let body_stmts: Vec<&Stmt> = body.stmts.iter().collect();
    let spans = if em.track_exit {
        None
    } else {
        crate::cpu::span::shifted_round(em.k, em, *var, start, &body_stmts, &off, quote! { #r, #stp }, true)
    };
    let least = if spans.is_some() {
        quote! { #full = ::core::cmp::min(#full, #trips); }
    } else {
        TokenStream::new()
    };
    let stmts = [l];
    let count = super::super::parts::wrap_part(
        em,
        &stmts,
        &[],
        quote! { let #a: #ty = #sv; #rounds = ::core::cmp::max(#rounds, #trips); #least },
    );
    let inner = em.block_stmts(body);
    let part = super::super::parts::wrap_part(
        em,
        &stmts,
        &[],
        quote! {
            let #a: #ty = #sv;
            let #off = #r * #stp;
            if #in_range {
                let #name: #ty = #a + #off as #ty;
                #inner
            }
        },
    );
    let (fits, fast, slow) = fitted(em, &stmts, None, &part);
    let (_, _, count) = fitted(em, &stmts, None, &count);
    let written = plain_part(em, &stmts);
    let fit = mixed("gj_fit");
    let checked = quote! { if #fit { #fast } else { #slow } };
    let full_decl = if spans.is_some() {
        quote! { let mut #full = usize::MAX; }
    } else {
        TokenStream::new()
    };
    let round = match spans {
        Some(on_spans) => {
            let on_spans = on_spans(&TokenStream::new(), &checked);
            quote! {
                let #off = (#r as u64).wrapping_mul(#stp as u64);
                if #r < #full { #on_spans } else { #checked }
            }
        }
        None => checked,
    };
    Some(quote! {
        #[allow(unused_variables)]
        let (#hi, #stp): (#ty, usize) = #blk.uniform_value(|#t| (#ev, #stv));
        if #stp == 0 || (#hi as u128) + (#stp as u128) > #ty::MAX as u128 {
            #written
        } else {
            let mut #rounds = 0usize;
            #full_decl
            #count
            #blk.lockstep();
            let #fit = #fits;
            for #r in 0..#rounds {
                if #blk.cancelled() {
                    return;
                }
                #round
            }
        }
    })
}

/// The interchanged loop `l` (a `for` that `qualifies`).
fn interchange(em: &Emitter, l: &Stmt) -> Option<TokenStream> {
    let Stmt::For {
        var,
        start,
        end,
        inclusive,
        step,
        body,
        ..
    } = l
    else {
        return None;
    };
    if step.is_some() {
        return interchange_strided(em, l);
    }
    let (blk, t) = (block_ident(), thread_ident());
    let (lo, hi) = (mixed("gj_ilo"), mixed("gj_ihi"));
    let (sv, ev) = (em.expr(start), em.expr(end));
    let name = ident(&em.k.locals[*var].name);
    let range = if *inclusive {
        quote! { #lo..=#hi }
    } else {
        quote! { #lo..#hi }
    };
    let inner = em.block_stmts(body);
    let part = super::super::parts::wrap_part(em, &body.stmts.iter().collect::<Vec<_>>(), &[], inner);
    let stmts: Vec<&Stmt> = body.stmts.iter().collect();
    let (fits, fast, slow) = fitted(em, &stmts, Some((*var, &hi, *inclusive)), &part);
    let round = |run: TokenStream| {
        quote! {
            for #name in #range {
                if #blk.cancelled() {
                    return;
                }
                #run
            }
        }
    };
    let fast = match rows(em, l, &range) {
        Some(rows) => rows,
        None => round(fast),
    };
    let slow = round(slow);
    Some(quote! {
        #[allow(unused_variables)]
        let (#lo, #hi) = #blk.uniform_value(|#t| (#sv, #ev));
        #blk.lockstep();
        if #fits { #fast } else { #slow }
    })
}

/// The fast copy of the interchanged loop `l` (a `for` that `qualifies`,
/// its range `range`) row by row (`Block::lockstep_rows`), with the one
/// local it carries in registers: the per-thread array of a scalar local
/// the body assigns (the matmul's `acc`). Other per-thread locals it uses
/// are loaded (and stored) per iteration, as in the plain round. `None`
/// when the body assigns no such local or more than one, or a thread may
/// have returned (the rows visit every thread).
fn rows(em: &Emitter, l: &Stmt, range: &TokenStream) -> Option<TokenStream> {
    let Stmt::For { var, body, .. } = l else {
        return None;
    };
    if em.track_exit {
        return None;
    }
    let stmts: Vec<&Stmt> = body.stmts.iter().collect();
    let mut assigned = Vec::new();
    for s in &stmts {
        each_stmt(s, &mut |s| {
            if let Stmt::Assign {
                place: Place::Local(id),
                ..
            } = s
            {
                if em.spilled[*id] && !assigned.contains(id) {
                    assigned.push(*id);
                }
            }
        });
    }
    let [id] = assigned[..] else {
        return None;
    };
    let local = &em.k.locals[id];
    if !matches!(local.ty, Ty::Scalar(_)) {
        return None;
    }
    let (blk, t) = (block_ident(), thread_ident());
    let mut rem = em.clone();
    rem.spilled[id] = false;
    let inner = super::super::parts::wrap_part(&rem, &stmts, &[], rem.block_stmts(body));
    let (fit, _) = fit(em, &stmts, None);
    let len = spilled_len(em, &stmts);
    let (arr, name, j) = (spill_ident(local), ident(&local.name), ident(&em.k.locals[*var].name));
    let slot = mixed("gj_slot");
    Some(quote! {
        #blk.lockstep_rows(#fit, #len, &mut #arr[..], #range, |#t, #j, #slot| {
            #[allow(unused_mut)]
            let mut #name = *#slot;
            let _ = #j;
            { #inner };
            *#slot = #name;
        });
    })
}

/// The thread loop of a part whose per-thread code is `body` (from
/// `stmts`), twice: the test `Block::fits` for the shared arrays' extents
/// and the per-thread arrays' lengths (`lp`: as `fit`), the loop for blocks
/// that pass it (`Block::threads_fit`, where LLVM can drop those range
/// checks), and the plain one.
pub(super) fn fitted(
    em: &Emitter,
    stmts: &[&Stmt],
    lp: Option<(LocalId, &Ident, bool)>,
    body: &TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let (blk, t) = (block_ident(), thread_ident());
    let (fit, ok) = fit(em, stmts, lp);
    let len = spilled_len(em, stmts);
    let (fast, slow) = if em.track_exit {
        let ex = exited_ident();
        (
            quote! { #blk.threads_fit(::core::option::Option::Some(&#ex), #fit, #len, |#t| { #body }); },
            quote! { #blk.live_threads(&#ex, |#t| { #body }); },
        )
    } else {
        (
            quote! { #blk.threads_fit(::core::option::Option::None, #fit, #len, |#t| { #body }); },
            quote! { #blk.threads(|#t| { #body }); },
        )
    };
    (quote! { #blk.fits(#ok, #fit, #len) }, fast, slow)
}

/// The least length of the per-thread arrays the body reads or writes
/// (`usize::MAX` if none).
pub(super) fn spilled_len(em: &Emitter, stmts: &[&Stmt]) -> TokenStream {
    spilled_ids(em, stmts)
        .into_iter()
        .fold(quote! { usize::MAX }, |acc, id| {
            let arr = crate::emit_cpu::spill_ident(&em.k.locals[id]);
            quote! { ::core::cmp::min(#acc, #arr.len()) }
        })
}

/// The per-thread arrays (spilled locals) `stmts` read or write.
fn spilled_ids(em: &Emitter, stmts: &[&Stmt]) -> Vec<LocalId> {
    let mut ids = Vec::new();
    for s in stmts {
        crate::model::visit::locals_used(s, &mut ids);
    }
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|id| em.spilled[*id]);
    ids
}

/// The facts that let LLVM drop the range checks of the shared accesses in
/// `body`: per axis, the least extent of a shared array at a position
/// indexed by `threadIdx` on that axis (`usize::MAX` where none is), and a
/// test that the loop's end `hi` is within every extent at a position
/// indexed by the loop variable `var` alone (`lp`: the loop's variable, end
/// and whether it is inclusive; `None` for a plain part).
pub(super) fn fit(em: &Emitter, stmts: &[&Stmt], lp: Option<(LocalId, &Ident, bool)>) -> (TokenStream, TokenStream) {
    let (per_axis, at_var) = shared_positions(em, stmts, lp.map(|(var, ..)| var));
    let parse = |d: &String| d.parse::<TokenStream>().unwrap_or_else(|_| quote! { 0usize });
    let axes = per_axis.iter().map(|ds| {
        ds.iter()
            .map(parse)
            .reduce(|acc, d| quote! { ::core::cmp::min(#acc, #d) })
            .unwrap_or_else(|| quote! { usize::MAX })
    });
    let ok = match lp {
        Some((_, hi, inclusive)) => {
            let op = if inclusive {
                quote! { < }
            } else {
                quote! { <= }
            };
            at_var
                .iter()
                .map(parse)
                .map(|d| quote! { && (#hi as usize) #op #d })
                .collect()
        }
        None => TokenStream::new(),
    };
    (quote! { [#(#axes),*] }, quote! { true #ok })
}

/// The extents (as `view.extent(k)` code) of the shared arrays in `stmts`
/// at positions indexed by `threadIdx`, per axis, and at positions indexed
/// by the loop variable `var` alone.
fn shared_positions(em: &Emitter, stmts: &[&Stmt], var: Option<LocalId>) -> ([Vec<String>; 3], Vec<String>) {
    let mut per_axis: [Vec<String>; 3] = Default::default();
    let mut at_var: Vec<String> = Vec::new();
    let mut note = |a: usize, idx: &[Expr]| {
        let view = &em.k.shared[a].name;
        for (k, e) in idx.iter().enumerate() {
            let d = format!("{view}.extent({k})");
            let list = match thread_axis(em, e) {
                Some(axis) => &mut per_axis[axis],
                None if matches!((&e.kind, var), (ExprKind::Local(id), Some(var)) if *id == var) => &mut at_var,
                None => continue,
            };
            if !list.contains(&d) {
                list.push(d);
            }
        }
    };
    for s in stmts {
        each_stmt(s, &mut |s| {
            if let Stmt::Assign {
                place: Place::Elem(ArrayRef::Shared(a), idx),
                ..
            } = s
            {
                note(*a, idx);
            }
        });
        each_expr(s, &mut |e| {
            if let ExprKind::Load(ArrayRef::Shared(a), idx) = &e.kind {
                note(*a, idx);
            }
        });
    }
    (per_axis, at_var)
}

/// The axis (0-2) if `e` is `threadIdx` on it: `thread_idx().x`, or a local
/// the split kernel computes again in each part from such (`let tx =
/// thread_idx().x;`).
fn thread_axis(em: &Emitter, e: &Expr) -> Option<usize> {
    let code = |a: &Axis| match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    };
    match &e.kind {
        ExprKind::BuiltinAxis(Builtin::ThreadIdx, a) => Some(code(a)),
        ExprKind::Idx3Field(base, a) if matches!(base.kind, ExprKind::Builtin(Builtin::ThreadIdx)) => Some(code(a)),
        ExprKind::Local(id) => em.remat.get(*id)?.as_ref().and_then(|init| match &init.kind {
            ExprKind::Local(_) => None,
            _ => thread_axis(em, init),
        }),
        _ => None,
    }
}
