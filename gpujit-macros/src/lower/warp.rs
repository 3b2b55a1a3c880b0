//! Warp intrinsics (`shfl_down_sync(mask, v, delta)` & co., `model::warp`):
//! their arguments, and the check after inference that a shuffled or
//! matched value is a type CUDA has the intrinsic for.

use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{with_help, Lower};
use crate::model::*;

impl Lower {
    /// A call `call` (the expression `node`) of warp intrinsic `f`. Where
    /// it is wrong, rustc's copy of the kernel sees a stand-in instead, so
    /// that the mistake is reported once, here.
    pub(super) fn warp_call(&mut self, node: &SExpr, call: &syn::ExprCall, f: WarpFn) -> Expr {
        let span = call.span();
        let spec = f.spec();
        // What rustc's copy sees for a wrong call: a value of the call's
        // type (a shuffle's value argument is one).
        let stand_in = match spec.result {
            _ if f == WarpFn::MatchAll => quote_spanned!(span=> (0u32, false)),
            WarpResult::Value => match call.args.iter().nth(1) {
                Some(v) => quote_spanned!(span=> (#v)),
                None => quote_spanned!(span=> ::core::unreachable!()),
            },
            WarpResult::U32 => quote_spanned!(span=> 0u32),
            WarpResult::Bool => quote_spanned!(span=> false),
            WarpResult::Unit => quote_spanned!(span=> ()),
        };
        if call.args.len() != spec.args.len() {
            let width = if matches!(f, WarpFn::Shfl | WarpFn::ShflUp | WarpFn::ShflDown | WarpFn::ShflXor)
                && call.args.len() == spec.args.len() + 1
            {
                "; CUDA's optional width is not supported: gpujit's shuffles work on the whole warp of 32 lanes"
            } else {
                ""
            };
            let n = spec.args.len();
            let span = if call.args.is_empty() { span } else { call.args.span() };
            self.stand_ins.push(node, stand_in);
            return self.error_expr(with_help(
                span,
                &format!("`{}` takes {n} argument{}", spec.name, if n == 1 { "" } else { "s" }),
                &format!("write `{}`{width}", f.usage()),
            ));
        }
        let mut value_ty = None;
        let mut wrong_value = false;
        let args: Vec<Expr> = spec
            .args
            .iter()
            .zip(call.args.iter())
            .map(|((kind, _), a)| {
                let e = self.expr(a);
                match kind {
                    WarpArg::Mask | WarpArg::Lane => self.unify_at(e.span, e.ty, Ty::Scalar(Scalar::U32)),
                    WarpArg::Pred => self.unify_at(e.span, e.ty, Ty::Scalar(Scalar::Bool)),
                    WarpArg::Value => {
                        value_ty = Some(e.ty);
                        // A type known already is checked here (the others
                        // once inference settles them: `check_warp_values`).
                        if let Some(err) = value_error(f, &e, self.infer.resolve(e.ty)) {
                            self.errors.push(err);
                            wrong_value = true;
                        }
                    }
                }
                e
            })
            .collect();
        if wrong_value {
            self.stand_ins.push(node, stand_in);
            return self.silent_expr(span);
        }
        // A kernel that synchronises threads (see `Kernel::uses_barrier`).
        self.uses_barrier = true;
        let ty = match spec.result {
            WarpResult::Value => value_ty.unwrap_or(Ty::Scalar(Scalar::U32)),
            WarpResult::U32 => Ty::Scalar(Scalar::U32),
            WarpResult::Bool => Ty::Scalar(Scalar::Bool),
            // Only a statement (`syncwarp(mask);`), whose value nothing reads.
            WarpResult::Unit => Ty::Opaque(None),
        };
        Expr {
            kind: ExprKind::Warp(f, args),
            ty,
            span,
        }
    }
}

impl Lower {
    /// The parts of `let (m, all) = match_all_sync(mask, value);` (`n`
    /// names) where `init` is that call, else `None`: the call as a `u32`
    /// local holding its mask result (the lanes that take part, or 0 where
    /// their values differ), pushed to `out`, then `m` and `m != 0` (the
    /// predicate holds exactly where the mask is given, and the calling
    /// lane is in it).
    pub(super) fn match_all_tuple(&mut self, init: &SExpr, n: usize, out: &mut Vec<Stmt>) -> Option<Vec<Expr>> {
        let SExpr::Call(call) = super::strip(init) else {
            return None;
        };
        if super::call_name(call).as_deref() != Some(WarpFn::MatchAll.spec().name) {
            return None;
        }
        if n != 2 {
            // rustc's copy binds the names to values it accepts (the
            // mistake is reported once, here).
            let parts = (0..n).map(|k| if k == 1 { quote!(false) } else { quote!(0u32) });
            self.stand_ins.push(init, quote_spanned!(init.span()=> (#(#parts),*)));
            self.errors.push(with_help(
                init.span(),
                "`match_all_sync(mask, value)` gives two values, the mask and whether every lane's value is the same",
                "bind both: `let (m, all) = match_all_sync(mask, value);` (`_` for one you do not need)",
            ));
            return Some(Vec::new());
        }
        let errors = self.errors.len();
        let e = self.warp_call(init, call, WarpFn::MatchAll);
        if self.errors.len() > errors {
            return Some(Vec::new());
        }
        let (span, u32_ty) = (e.span, Ty::Scalar(Scalar::U32));
        let name = self.fresh_name("match_all");
        self.locals.push(Local {
            name,
            ty: u32_ty,
            mutable: false,
        });
        let local = self.locals.len() - 1;
        out.push(Stmt::Let { local, init: Some(e) });
        let mask = Expr {
            kind: ExprKind::Local(local),
            ty: u32_ty,
            span,
        };
        let zero = Expr {
            kind: ExprKind::Lit(Lit::Int(0)),
            ty: u32_ty,
            span,
        };
        let all = Expr {
            kind: ExprKind::Binary(BinOp::Ne, Box::new(mask.clone()), Box::new(zero)),
            ty: Ty::Scalar(Scalar::Bool),
            span,
        };
        Some(vec![mask, all])
    }
}

/// Every shuffled or matched value of `k` whose type CUDA has no such
/// intrinsic for (after inference), as errors at the value.
pub(super) fn check_warp_values(k: &Kernel) -> Result<(), syn::Error> {
    let mut errors: Vec<syn::Error> = Vec::new();
    crate::model::visit::each_expr_in_block(&k.body, &mut |e| {
        let ExprKind::Warp(f, args) = &e.kind else { return };
        for ((kind, _), a) in f.spec().args.iter().zip(args) {
            if *kind == WarpArg::Value {
                errors.extend(value_error(*f, a, a.ty));
            }
        }
    });
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The error for value `a` of warp intrinsic `f` if its type `ty` is known
/// and not one CUDA has the intrinsic for.
fn value_error(f: WarpFn, a: &Expr, ty: Ty) -> Option<syn::Error> {
    let name = f.spec().name;
    let (shown, help) = match ty {
        Ty::Scalar(s) if WarpFn::VALUE_TYPES.contains(&s) => return None,
        // Unknown yet, or known to rustc only (a module constant, a device
        // function's result): its stub's `T: WarpValue` bound checks it.
        Ty::Var(_) | Ty::Opaque(_) | Ty::Callee(..) => return None,
        Ty::Scalar(Scalar::Bool) => (
            "`bool`".to_string(),
            "vote instead: `ballot_sync(mask, p)` gives every lane's predicate".to_string(),
        ),
        Ty::Scalar(s) => (
            format!("`{}`", s.rust_name()),
            format!(
                "widen it, and narrow the result: `{name}(.., v as {}, ..) as {}`",
                if s.is_signed_int() { "i32" } else { "u32" },
                s.rust_name()
            ),
        ),
        _ => (
            "a value of this type".to_string(),
            "exchange its scalars one by one".to_string(),
        ),
    };
    Some(with_help(
        a.span,
        &format!("`{name}` exchanges 32- and 64-bit values (i32, u32, f32, i64, u64, usize, f64), not {shown}"),
        &help,
    ))
}
