//! The CPU backend's block function: how the threads of one block run, as
//! loops, chosen here and nowhere else.
//!
//! | strategy | taken for | module |
//! |---|---|---|
//! | plain thread loop | a kernel without barriers | `emit_cpu` (the per-thread code) |
//! | block spans | the plain loop's accesses checked once per block | `span` |
//! | lockstep | one loop of a barrier-free kernel run across the threads round by round | `lockstep` |
//! | split | a kernel with barriers or warp intrinsics, as thread loops between them (a warp intrinsic's lanes exchange values between two loops) | `split` |
//! | coroutines | everything else with barriers or warp intrinsics, and every kernel under `GPUJIT_CPU_EXEC=coroutines` | the runtime's `Block::coroutines` |
//! | merged runs | a grid row's blocks as one wide block, for spans whose threads cannot tell their block | `merge` |
//!
//! Before choosing, the planner puts the kernel in a canonical form
//! (`canonical`): uniform `let`s read as their values, hand-computed
//! `grid`/`gridsize` values as those, counted `while` loops as `for` loops
//! (behind a test per block where the launch limits do not prove them
//! exact), so that the choice does not depend on spelling. A kernel left
//! on coroutines by necessity logs a performance note once (`noted`).
//!
//! A kernel that calls device functions decides at run time whether a
//! callee reaches a barrier (then coroutines, see `callee_switch`). `parts`
//! holds what split and lockstep share; `span` is a service the others call
//! for their thread loops. The strategies never import one another
//! otherwise.

mod canonical;
mod lockstep;
mod merge;
mod parts;
mod span;
mod split;

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit_cpu::{block_ident, ident, param_copies, thread_ident, Emitter};
use crate::model::*;

/// How the blocks of one kernel run on the CPU backend.
pub struct BlockPlan<'k> {
    /// The kernel the CPU code is made from (`emit_cpu::emit`, the
    /// parameters' views): the kernel as written, or its canonical form
    /// where that needs no test (`canonical::proven`).
    pub kernel: Cow<'k, Kernel>,
    /// The block function's body (after the parameter copies and shared
    /// views that `emit_cpu::emit` writes).
    pub body: TokenStream,
    /// The body of the kernel's checked copy's block function (after the
    /// same copies and views; see `checked_body`).
    pub checked: TokenStream,
    /// Whether the blocks of a grid row may run as one (`merge`).
    pub merged: bool,
}

/// The block function of kernel `k` (see the module docs).
pub fn plan(k: &Kernel) -> BlockPlan<'_> {
    let kernel = match canonical::proven(k) {
        Some(c) => Cow::Owned(c),
        None => Cow::Borrowed(k),
    };
    let k = &*kernel;
    let (blk, t) = (block_ident(), thread_ident());
    let plain = Emitter::new(k);
    let coroutines = || {
        let copies = param_copies(k, &[]);
        let body = plain.block_stmts(&k.body);
        quote! { #blk.coroutines(&|#t| { #copies #body }); }
    };
    let (body, merged) = if !k.uses_barrier {
        // A `while` that is a counted loop only where a test says so runs
        // as the `for` it is behind that test, where that lets a loop run
        // in lockstep and needs no other views of the arrays.
        match canonical::guarded(k) {
            Some(c) if lockstep::block_body(&c.kernel).is_some() && same_views(k, &c.kernel) => {
                let (fast, _) = barrier_free(&c.kernel);
                let (written, _) = barrier_free(k);
                let guard = c.guard();
                (quote! { if #guard { #fast } else { #written } }, false)
            }
            _ => barrier_free(k),
        }
    } else {
        let body = match split::split(k) {
            Some(split) => split_or(k, split, coroutines()),
            None if has_warp_sync(&k.body) => noted(
                k,
                "the planner cannot run its warp intrinsics (`shfl_sync` & co.) in lockstep: one is under an `if` or \
                 loop whose condition it cannot prove the same in every thread of the block, inside a larger \
                 expression that reads memory or may fault, or in a kernel the planner cannot split at its barriers",
                coroutines(),
            ),
            None => noted(
                k,
                "the planner cannot split it at its barriers (a `syncthreads()` or vote under a `break` or `continue` \
                 whose condition it cannot prove the same in every thread of the block, in an `if` used as a value, \
                 or crossed by a local array, a `for mut` variable or a local of a type only rustc knows)",
                coroutines(),
            ),
        };
        (body, false)
    };
    let (body, checked) = (callee_switch(k, body), checked_body(k));
    BlockPlan {
        kernel,
        body,
        checked,
        merged,
    }
}

/// Whether the block functions of `k` and `rewritten` take the same
/// views of their arrays (`emit_cpu::emit`): a `for` may partition arrays
/// that the `while` did not, and the block function makes one view of
/// each array for both.
fn same_views(k: &Kernel, rewritten: &Kernel) -> bool {
    crate::analysis::owned::owned_params(k) == crate::analysis::owned::owned_params(rewritten)
}

/// The block body of a kernel without barriers, and whether its blocks may
/// run merged: lockstep where a loop can run so, else the plain thread
/// loop (on spans where they apply).
fn barrier_free(k: &Kernel) -> (TokenStream, bool) {
    let (blk, t) = (block_ident(), thread_ident());
    let copies = param_copies(k, &[]);
    let body = Emitter::new(k).block_stmts(&k.body);
    let simple = quote! { #blk.threads(|#t| { #copies #body }); };
    match lockstep::block_body(k) {
        Some(lockstep) => {
            let plain = lockstep::one_trip_each(k).unwrap_or_else(|| quote! { false });
            let body = quote! {
                if #blk.strategy_off(::gpujit::__private::Strategies::LOCKSTEP) || #plain {
                    #simple
                } else {
                    #lockstep
                }
            };
            (body, false)
        }
        None => (span::versioned(k, simple), merge::mergeable(k)),
    }
}

/// `coroutines` (a block body) with the runtime's performance note, once
/// per kernel, that `reason` keeps `k` on the coroutine path.
fn noted(k: &Kernel, reason: &str, coroutines: TokenStream) -> TokenStream {
    let name = &k.name;
    quote! {
        static GJ_NOTED: ::std::sync::atomic::AtomicBool = ::std::sync::atomic::AtomicBool::new(false);
        ::gpujit::__private::note_coroutines(&GJ_NOTED, #name, #reason);
        #coroutines
    }
}

/// A split kernel's block body: `split`, or `coroutines` where the launch
/// keeps the split off (`GPUJIT_CPU_EXEC`).
fn split_or(k: &Kernel, split: TokenStream, coroutines: TokenStream) -> TokenStream {
    let blk = block_ident();
    // Copies of the views (and scalar parameters) for the split path: the
    // coroutine closure takes the block function's by reference, after
    // which LLVM reloads their extents after every call it cannot see into
    // (a fault report) and cannot drop the range checks that `Block::fits`
    // makes redundant.
    let names = k.params.iter().map(|p| ident(&p.name));
    let shared = crate::emit_cpu::shared_views(k);
    quote! {
        if #blk.strategy_off(::gpujit::__private::Strategies::SPLIT) {
            #coroutines
        } else {
            #(#[allow(unused_variables)] let #names = #names;)*
            #shared
            #split
        }
    }
}

/// The block function of the kernel's checked copy, which the runtime runs
/// in place of the fast one under its checks (`GPUJIT_CHECK`,
/// `with_checks`): the split thread loops for a kernel with barriers that
/// splits (`split::split_checked`), else the reference path (coroutines for
/// a kernel that has barriers or warp intrinsics; the plain thread loop for
/// the others); coroutines wherever a called device function reaches a
/// barrier or a warp intrinsic; with every access to an array parameter or a shared
/// array reporting to the shadow memory. A block function of its own,
/// chosen once per launch: the fast paths' code does not change.
fn checked_body(k: &Kernel) -> TokenStream {
    let (blk, t) = (block_ident(), thread_ident());
    let copies = param_copies(k, &[]);
    let checked = Emitter::new(k).checked().block_stmts(&k.body);
    let coroutines = quote! { #blk.coroutines(&|#t| { #copies #checked }); };
    let threads = quote! { #blk.threads(|#t| { #copies #checked }); };
    if has_warp_sync(&k.body) {
        return coroutines;
    }
    let fast = if k.uses_barrier {
        match split::split_checked(k) {
            Some(split) => split_or(k, split, coroutines.clone()),
            None => return coroutines,
        }
    } else {
        threads
    };
    // As for the fast block function: coroutines if a callee reaches a
    // barrier or a warp intrinsic (a thread loop cannot run one).
    reaches_barrier_or(k, coroutines, fast)
}

/// `body`, or, for a kernel that calls device functions, that or the
/// coroutine path, chosen at run time by whether a reachable device
/// function has a barrier (`SyncScope::Callee`; see `device`'s docs).
fn callee_switch(k: &Kernel, plain: TokenStream) -> TokenStream {
    let (blk, t) = (block_ident(), thread_ident());
    let copies = param_copies(k, &[]);
    let body = Emitter::new(k).block_stmts(&k.body);
    let coroutines = noted(
        k,
        "it calls a device function that reaches `syncthreads()` or a warp intrinsic",
        quote! { #blk.coroutines(&|#t| { #copies #body }); },
    );
    reaches_barrier_or(k, coroutines, plain)
}

/// `otherwise` for a kernel that calls no device function; else
/// `coroutines` where a device function it reaches has a barrier or a warp
/// intrinsic (decided once, at the first launch: the program is linked by
/// then), and `otherwise` where none does.
fn reaches_barrier_or(k: &Kernel, coroutines: TokenStream, otherwise: TokenStream) -> TokenStream {
    if k.callees.is_empty() {
        return otherwise;
    }
    let statics = crate::link::callee_statics(k);
    quote! {
        static GJ_REACHES_BARRIER: ::std::sync::OnceLock<bool> = ::std::sync::OnceLock::new();
        if *GJ_REACHES_BARRIER.get_or_init(|| ::gpujit::__private::reaches_barrier(#statics)) {
            #coroutines
        } else {
            #otherwise
        }
    }
}
