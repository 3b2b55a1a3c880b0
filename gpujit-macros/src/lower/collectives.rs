//! Warp- and block-wide reductions and scans (`warp_reduce_sum(v)`,
//! `block_reduce_max(v)`, `block_scan_exclusive_sum(v)`, ...): each call is
//! written out in the kernel language itself (shuffles, a shared array of
//! one value per warp, barriers) and lowered as if the user had written it,
//! before the statement that holds the call. So every backend runs the same
//! operations in the same order (a float sum gives the same bits
//! everywhere), and the CPU backend's planners see ordinary shuffles and
//! barriers, in block-uniform control flow, that its split path can run.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{err, with_help, Binding, Lower};
use crate::model::*;

impl Lower {
    /// A call `call` (the expression `node`) of collective `c`: its
    /// statements go before the statement that holds it, and the call
    /// becomes the local holding the result.
    pub(super) fn collective_call(&mut self, node: &SExpr, call: &syn::ExprCall, c: Collective) -> Expr {
        let span = call.span();
        let name = c.name;
        if call.args.len() != 1 {
            let stand_in = match call.args.first() {
                Some(v) => quote_spanned!(span=> (#v)),
                None => quote_spanned!(span=> ::core::unreachable!()),
            };
            self.stand_ins.push(node, stand_in);
            let at = if call.args.is_empty() { span } else { call.args.span() };
            return self.error_expr(with_help(
                at,
                &format!("`{name}` takes 1 argument, this thread's value"),
                &format!("write `{name}(value)`"),
            ));
        }
        if c.reach == CollectiveReach::Block && self.ret.is_some() {
            return self.error_expr(with_help(
                span,
                &format!("`{name}` keeps one value per warp in shared memory, which a device function cannot declare"),
                "call it in the kernel, and pass its result to the device function",
            ));
        }
        if self.hoist.is_none() {
            return self.error_expr(with_help(
                span,
                &format!("`{name}` must run exactly once where it is written, not in a loop condition, a branch of a value `if` or `match`, or the right of `&&`/`||`"),
                &format!("compute it in a statement of its own before: `let s = {name}(value);`"),
            ));
        }
        let arg = &call.args[0];
        let value = self.expr(arg);
        let elem = match self.infer.shallow(value.ty) {
            Ty::Scalar(s) if WarpFn::VALUE_TYPES.contains(&s) => s,
            Ty::Scalar(Scalar::Bool) => {
                self.stand_ins.push(node, quote_spanned!(span=> (#arg)));
                return self.error_expr(with_help(
                    value.span,
                    &format!(
                        "`{name}` works on 32- and 64-bit numbers (i32, u32, f32, i64, u64, usize, f64), not `bool`"
                    ),
                    "count instead: `block_reduce_sum(p as u32)`, or vote with `ballot_sync`/`syncthreads_or`",
                ));
            }
            Ty::Scalar(s) => {
                self.stand_ins.push(node, quote_spanned!(span=> (#arg)));
                let wide = if s.is_signed_int() { "i32" } else { "u32" };
                return self.error_expr(with_help(
                    value.span,
                    &format!(
                        "`{name}` works on 32- and 64-bit numbers (i32, u32, f32, i64, u64, usize, f64), not `{}`",
                        s.rust_name()
                    ),
                    &format!(
                        "widen it, and narrow the result: `{name}(v as {wide}) as {}`",
                        s.rust_name()
                    ),
                ));
            }
            Ty::Var(_) | Ty::Opaque(_) | Ty::Callee(..) => {
                return self.error_expr(with_help(
                    value.span,
                    &format!("the type of `{name}`'s value must be known where it is called"),
                    "give it one: `let v: f32 = ...;`, or a typed literal such as `0.0f32`",
                ));
            }
            _ => {
                self.stand_ins.push(node, quote_spanned!(span=> (#arg)));
                return self.error_expr(err(
                    value.span,
                    format!(
                        "`{name}` works on one 32- or 64-bit number per thread (i32, u32, f32, i64, u64, usize, f64)"
                    ),
                ));
            }
        };
        let mut hoisted = self.hoist.take().unwrap_or_default();
        // A local or parameter is read where the code needs it (a copy
        // would only cost a per-thread array on the CPU's split path, see
        // `cpu::split::interchange::spills_for_interchange`). Any other
        // value is evaluated once, into a local.
        let input = match (&value.kind, super::strip(arg)) {
            (ExprKind::Local(_), SExpr::Path(p)) => p.to_token_stream(),
            _ => {
                let name = self.fresh_name("value");
                self.locals.push(Local {
                    name: name.clone(),
                    ty: value.ty,
                    mutable: false,
                });
                let local = self.locals.len() - 1;
                self.bind(&name, Binding::Local(local));
                hoisted.push(Stmt::Let {
                    local,
                    init: Some(value),
                });
                format_ident!("{}", name, span = span).to_token_stream()
            }
        };
        let result = self.fresh_name(c.name.trim_start_matches("warp_").trim_start_matches("block_"));
        let code = Names::new(self, span, input, &result).code(c, elem);
        match syn::parse2::<syn::Block>(quote_spanned!(span=> { #code })) {
            Ok(block) => {
                for s in &block.stmts {
                    self.stmt(s, &mut hoisted);
                }
            }
            Err(e) => self.errors.push(e),
        }
        self.hoist = Some(hoisted);
        match self.lookup(&result) {
            Some(Binding::Local(id)) => Expr {
                kind: ExprKind::Local(id),
                ty: self.locals[id].ty,
                span,
            },
            _ => self.silent_expr(span),
        }
    }
}

/// The identifiers of one call's code: fresh names (none the user's).
struct Names {
    span: Span,
    input: TokenStream,
    result: syn::Ident,
    tid: syn::Ident,
    threads: syn::Ident,
    lane: syn::Ident,
    warp: syn::Ident,
    lanes: syn::Ident,
    mask: syn::Ident,
    warps: syn::Ident,
    buf: syn::Ident,
    own: syn::Ident,
    other: syn::Ident,
    count: syn::Ident,
    /// A lane's value of the warps' results, in a block-wide one.
    total: syn::Ident,
    /// A block scan's in-warp result, kept across the scan of the totals.
    mine: syn::Ident,
}

impl Names {
    fn new(lw: &mut Lower, span: Span, input: TokenStream, result: &str) -> Names {
        let mut ident = |base: &str| format_ident!("{}", lw.fresh_name(base), span = span);
        Names {
            span,
            input,
            result: format_ident!("{}", result, span = span),
            tid: ident("tid"),
            threads: ident("threads"),
            lane: ident("lane"),
            warp: ident("warp"),
            lanes: ident("lanes"),
            mask: ident("mask"),
            warps: ident("warps"),
            buf: ident("partials"),
            own: ident("acc"),
            other: ident("other"),
            count: ident("count"),
            total: ident("total"),
            mine: ident("in_warp"),
        }
    }

    /// The statements of collective `c` on values of type `elem`, ending
    /// with `let <result> = ...;`.
    fn code(&self, c: Collective, elem: Scalar) -> TokenStream {
        let Names {
            span,
            input,
            result,
            tid,
            threads,
            lane,
            warp,
            lanes,
            mask,
            warps,
            buf,
            own,
            other,
            count,
            total,
            mine,
        } = self;
        let span = *span;
        let ty = format_ident!("{}", elem.rust_name(), span = span);
        // The thread's linear index in its block, its warp and lane, the
        // lanes its warp has (fewer than 32 in a block's last, partial
        // warp) and their mask.
        let setup = quote_spanned! {span=>
            let #tid = thread_idx().x + block_dim().x * (thread_idx().y + block_dim().y * thread_idx().z);
            let #threads = block_dim().x * block_dim().y * block_dim().z;
            let #lane = #tid % 32;
            let #warp = #tid / 32;
            let #lanes = (#threads - #warp * 32).min(32);
            let #mask = if #lanes == 32 { 0xffff_ffffu32 } else { (1u32 << #lanes as u32) - 1 };
        };
        let warp_part = match (c.reach, c.op) {
            (_, CollectiveOp::Reduce(op)) => self.tree(op, lanes, input),
            (_, CollectiveOp::InclusiveSum | CollectiveOp::ExclusiveSum) => self.scan(input),
        };
        let body = match (c.reach, c.op) {
            (CollectiveReach::Warp, CollectiveOp::Reduce(_)) => quote_spanned! {span=>
                let #result = shfl_sync(#mask, #own, 0);
            },
            (CollectiveReach::Warp, CollectiveOp::InclusiveSum) => quote_spanned! {span=>
                let #result = #own;
            },
            (CollectiveReach::Warp, CollectiveOp::ExclusiveSum) => quote_spanned! {span=>
                let #other = shfl_up_sync(#mask, #own, 1);
                let #result = if #lane == 0 { 0 as #ty } else { #other };
            },
            // Each warp's result goes to `buf[warp]`; then every warp alike
            // (a branch only some warps take would keep the CPU backend off
            // its split path) combines those, and thread 0 publishes its
            // result in `buf[32]`. Two barriers are enough: a next call here
            // writes `buf[..32]` after every thread passed this call's second
            // barrier (its reads of `buf[..32]` are done), and `buf[32]` after
            // every thread passed the next call's first one (so read this
            // call's `buf[32]`).
            (CollectiveReach::Block, CollectiveOp::Reduce(op)) => {
                let second = self.tree(op, count, &quote_spanned!(span=> #total));
                quote_spanned! {span=>
                    let #buf = shared_array::<[#ty; 33]>();
                    let #warps = (#threads + 31) / 32;
                    if #lane == 0 {
                        #buf[#warp] = #own;
                    }
                    syncthreads();
                    let #total = #buf[#lane.min(#warps - 1)];
                    let #count = #warps.min(#lanes);
                    #second
                    if #tid == 0 {
                        #buf[32] = #own;
                    }
                    syncthreads();
                    let #result = #buf[32];
                }
            }
            // Each warp's total goes to `buf[warp]`; every warp scans those
            // alike (a lane's prefix depends on lower lanes only), warp 0
            // publishes its scan in `buf[32..]`, and each thread adds the
            // total of the warps before its own. Two barriers, as above.
            (CollectiveReach::Block, CollectiveOp::InclusiveSum | CollectiveOp::ExclusiveSum) => {
                let scan_totals = self.scan(&quote_spanned!(span=> #total));
                let finish = if c.op == CollectiveOp::InclusiveSum {
                    quote_spanned! {span=>
                        let #result = if #warp == 0 { #mine } else { #buf[31 + #warp] + #mine };
                    }
                } else {
                    quote_spanned! {span=>
                        let #result = if #lane == 0 {
                            if #warp == 0 { 0 as #ty } else { #buf[31 + #warp] }
                        } else if #warp == 0 {
                            #mine
                        } else {
                            #buf[31 + #warp] + #mine
                        };
                    }
                };
                let keep = if c.op == CollectiveOp::InclusiveSum {
                    quote_spanned!(span=> let #mine = #own;)
                } else {
                    quote_spanned!(span=> let #mine = shfl_up_sync(#mask, #own, 1);)
                };
                quote_spanned! {span=>
                    #keep
                    let #buf = shared_array::<[#ty; 64]>();
                    let #warps = (#threads + 31) / 32;
                    if #lane == #lanes - 1 {
                        #buf[#warp] = #own;
                    }
                    syncthreads();
                    let #total = #buf[#lane.min(#warps - 1)];
                    #scan_totals
                    if #warp == 0 && #lane < #warps {
                        #buf[32 + #lane] = #own;
                    }
                    syncthreads();
                    #finish
                }
            }
        };
        quote_spanned! {span=>
            #setup
            #warp_part
            #body
        }
    }

    /// A reduction tree over the first `count` lanes of the warp, from
    /// each lane's `first`, into lane 0's `own`: at each step a lane adds
    /// (or takes the min or max of) the value `o` lanes up, while that lane
    /// is among them. Every lane of the mask takes part; the source lane is
    /// clamped so that it exists. `first` is read by the first shuffle and
    /// after it (see `collective_call` on why).
    fn tree(&self, op: Combine, count: &syn::Ident, first: &TokenStream) -> TokenStream {
        let Names {
            span,
            lane,
            mask,
            own,
            other,
            ..
        } = self;
        let span = *span;
        let steps = [16usize, 8, 4, 2, 1].map(|o| {
            let combined = match op {
                Combine::Sum => quote_spanned!(span=> #own + #other),
                Combine::Min => quote_spanned!(span=> #own.min(#other)),
                Combine::Max => quote_spanned!(span=> #own.max(#other)),
            };
            let src = if o == 16 { first.clone() } else { own.to_token_stream() };
            let start = (o == 16).then(|| quote_spanned!(span=> let mut #own = #first;));
            quote_spanned! {span=>
                let #other = shfl_sync(#mask, #src, (#lane + #o).min(#count - 1) as u32);
                #start
                if #lane + #o < #count {
                    #own = #combined;
                }
            }
        });
        quote_spanned!(span=> #(#steps)*)
    }

    /// An inclusive scan (Hillis and Steele) of `first` across the warp's
    /// lanes into `own`: at each step a lane adds the value `o` lanes down.
    fn scan(&self, first: &TokenStream) -> TokenStream {
        let Names {
            span,
            lane,
            mask,
            own,
            other,
            ..
        } = self;
        let span = *span;
        let steps = [1usize, 2, 4, 8, 16].map(|o| {
            let o32 = o as u32;
            let src = if o == 1 { first.clone() } else { own.to_token_stream() };
            let start = (o == 1).then(|| quote_spanned!(span=> let mut #own = #first;));
            quote_spanned! {span=>
                let #other = shfl_up_sync(#mask, #src, #o32);
                #start
                if #lane >= #o {
                    #own = #own + #other;
                }
            }
        });
        quote_spanned!(span=> #(#steps)*)
    }
}
