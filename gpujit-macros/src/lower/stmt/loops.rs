//! `for` loops over ranges: `a..b`, `a..=b`, `.rev()` and `.step_by(s)`.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat};

use crate::infer::VarKind;
use crate::lower::{err, label_error, strip, with_help, with_help_spanned, Lower};
use crate::model::*;
use crate::names::suffixed;

impl Lower {
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        if let Some(label) = &f.label {
            self.errors.push(label_error(label.span()));
        }
        if let SExpr::MethodCall(mc) = strip(&f.expr) {
            if mc.method == "rev"
                && matches!(strip(&mc.receiver), SExpr::MethodCall(inner) if inner.method == "step_by")
            {
                self.errors.push(with_help(
                    mc.method.span(),
                    "`.step_by(s).rev()` is not supported in kernels",
                    "write `(a..b).rev().step_by(s)` (it counts down from the last element of `a..b`, not of the stepped range)",
                ));
                return;
            }
        }
        let Some((r, step_arg, rev)) = loop_range(&f.expr) else {
            self.errors.push(with_help_spanned(
                &f.expr,
                "kernels can only loop over integer ranges",
                "write `for i in a..b`, `a..=b`, `(a..b).step_by(s)`, `(a..b).rev()` or `(a..b).rev().step_by(s)`",
            ));
            return;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors
                .push(err(r.span(), "a kernel loop range needs both ends (`a..b`)"));
            return;
        };
        let (start_node, end_node) = (start, end);
        let start = self.expr(start);
        let end = self.expr(end);
        let (st, et) = (self.infer.shallow(start.ty), self.infer.shallow(end.ty));
        if matches!(st, Ty::Var(_)) && !matches!(et, Ty::Var(_)) {
            self.expect(start_node, &start, end.ty);
        } else {
            self.expect(end_node, &end, start.ty);
        }
        // Rust evaluates the range before the step.
        let step = step_arg.map(|a| {
            let step = self.expr(a);
            self.expect(a, &step, Ty::Scalar(Scalar::Usize));
            step
        });
        if let Err(m) = self.infer.require_kind(start.ty, VarKind::Int) {
            self.errors.push(err(start.span, m));
        }
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        self.scopes.push(HashMap::new());
        let var = match &*f.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() => {
                self.new_local(&pi.ident, start.ty, false)
            }
            Pat::Wild(_) => {
                let id = syn::Ident::new("iteration", Span::call_site());
                self.new_local(&id, start.ty, false)
            }
            other => {
                self.errors
                    .push(err(other.span(), "the loop variable must be a plain name"));
                self.scopes.pop();
                return;
            }
        };
        let var_name = self.locals[var].name.clone();
        let aux = ["end", "step", "done"].map(|what| self.fresh_name(&suffixed(&var_name, what)));
        self.loop_depth += 1;
        let body = self.block(&f.body, false);
        self.loop_depth -= 1;
        self.scopes.pop();
        out.push(Stmt::For {
            var,
            start,
            end,
            inclusive,
            step,
            rev,
            body,
            aux,
        });
    }
}

/// A `for` loop's range, its `step_by` argument and whether it runs in
/// reverse: `a..b`, `(a..b).step_by(s)`, `(a..b).rev()`,
/// `(a..b).rev().step_by(s)` (and `..=`).
fn loop_range(e: &SExpr) -> Option<(&syn::ExprRange, Option<&SExpr>, bool)> {
    let (inner, step) = match strip(e) {
        SExpr::MethodCall(mc) if mc.method == "step_by" && mc.args.len() == 1 => {
            (strip(&mc.receiver), Some(&mc.args[0]))
        }
        other => (other, None),
    };
    let (range, rev) = match inner {
        SExpr::MethodCall(mc) if mc.method == "rev" && mc.args.is_empty() => (strip(&mc.receiver), true),
        other => (other, false),
    };
    match range {
        SExpr::Range(r) => Some((r, step, rev)),
        _ => None,
    }
}
