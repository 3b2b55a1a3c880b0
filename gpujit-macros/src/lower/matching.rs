//! `match` on integers and `bool`: lowered to an `if`/`else if` chain (a
//! statement) or a chain of value `if`s (a value), so that both emitters,
//! the barrier splitter and the walks see only constructs they know. The
//! chain is C's `if`/`else` or `?:`, never a `switch`: a `break` or
//! `continue` in an arm then leaves the enclosing loop, as in Rust.
//!
//! The scrutinee is evaluated once: a name, literal or constant is compared
//! directly; any other value goes into a generated local declared just before
//! the statement that holds the `match` (see `Lower::hoist`).
//!
//! The last arm is the chain's `else`: rustc checks the copy of the kernel it
//! type-checks for exhaustiveness, so when every earlier arm failed the last
//! one matches.

use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat};

use super::{err, strip, with_help, with_help_spanned, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;
use crate::names;

const PATTERNS: &str =
    "kernels match integers and `bool` with literals (`3`, `-1`, `true`), ranges (`1..=9`, `0..4`), `|` and `_`, and an optional `if` guard";

impl Lower {
    /// A `match` in statement position.
    pub(super) fn match_stmt(&mut self, m: &syn::ExprMatch, out: &mut Vec<Stmt>) {
        let mut stmts = Vec::new();
        let Some(scrut) = self.scrutinee(m, Some(&mut stmts)) else {
            return;
        };
        let mut arms = Vec::new();
        for arm in &m.arms {
            let cond = self.arm_condition(arm, &scrut);
            let body = match strip(&arm.body) {
                SExpr::Block(b) if b.label.is_none() => self.block(&b.block, false),
                other => {
                    self.scopes.push(Default::default());
                    let mut stmts = Vec::new();
                    self.expr_stmt(other, &mut stmts);
                    self.scopes.pop();
                    Block { stmts, tail: None }
                }
            };
            arms.push((cond, body));
        }
        let Some(chain) = fold_chain(arms, |cond, then, els| Block {
            stmts: vec![Stmt::If {
                cond,
                then,
                els: Some(els),
            }],
            tail: None,
        }) else {
            return;
        };
        stmts.extend(chain.stmts);
        match <[Stmt; 1]>::try_from(stmts) {
            Ok([s @ Stmt::If { .. }]) => out.push(s),
            Ok([s]) => out.push(Stmt::Block(Block {
                stmts: vec![s],
                tail: None,
            })),
            Err(stmts) => out.push(Stmt::Block(Block { stmts, tail: None })),
        }
    }

    /// A `match` used as a value: each arm one expression, as for a value `if`.
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch) -> Expr {
        let span = m.span();
        let Some(scrut) = self.scrutinee(m, None) else {
            return self.silent_expr(span);
        };
        let mut arms = Vec::new();
        let mut ty = None;
        for arm in &m.arms {
            let cond = self.arm_condition(arm, &scrut);
            let value = self.lazily(|lw| match strip(&arm.body) {
                SExpr::Block(b) if b.label.is_none() => {
                    let blk = lw.block(&b.block, true);
                    match (blk.stmts.is_empty(), blk.tail) {
                        (true, Some(t)) => t,
                        _ => lw.error_expr(with_help_spanned(
                            &arm.body,
                            "a `match` used as a value can only hold one expression per arm",
                            "compute the values before the `match`, or declare `let mut v;` and assign it in each arm",
                        )),
                    }
                }
                other => lw.expr(other),
            });
            match ty {
                None => ty = Some(value.ty),
                Some(t) => self.unify_at(value.span, t, value.ty),
            }
            let value = Block {
                stmts: vec![],
                tail: Some(value),
            };
            arms.push((cond, value));
        }
        let ty = ty.unwrap_or_else(|| self.infer.fresh(VarKind::Any));
        let chain = fold_chain(arms, |cond, then, els| Expr {
            kind: ExprKind::If(Box::new(cond), Box::new(then), Box::new(Block::value(els))),
            ty,
            span,
        });
        match chain {
            Some(e) => e,
            None => self.silent_expr(span),
        }
    }

    /// The scrutinee as an expression that is cheap and pure to repeat: a
    /// name or constant as it is, else a generated local whose `let` goes to
    /// `stmts` (a statement `match`) or the enclosing statement (see
    /// [`Lower::hoist`]). `None` after an error.
    fn scrutinee(&mut self, m: &syn::ExprMatch, stmts: Option<&mut Vec<Stmt>>) -> Option<Expr> {
        if m.arms.is_empty() {
            self.errors.push(with_help(
                m.match_token.span(),
                "a `match` without arms is not supported in kernels",
                PATTERNS,
            ));
            return None;
        }
        if let SExpr::Tuple(t) = strip(&m.expr) {
            self.errors.push(with_help_spanned(
                t,
                "kernels cannot `match` on a tuple",
                "match one value at a time (nested `match`es), or use `if`/`else if` with `&&`",
            ));
            return None;
        }
        let errors_before = self.errors.len();
        let e = self.expr(&m.expr);
        if self.errors.len() > errors_before {
            return None; // the arms would only repeat the error
        }
        if !self.scrutinee_type_ok(&e) {
            return None;
        }
        if matches!(
            e.kind,
            ExprKind::Lit(_) | ExprKind::ExternConst(_) | ExprKind::BodyConst(_)
        ) || matches!(e.kind, ExprKind::Local(id) if !self.locals[id].mutable)
        {
            return Some(e);
        }
        let ident = syn::Ident::new("scrutinee", proc_macro2::Span::call_site());
        let name = self.fresh_name(&names::key(&ident));
        self.locals.push(Local {
            name,
            ty: e.ty,
            mutable: false,
        });
        let local = self.locals.len() - 1;
        let read = Expr {
            kind: ExprKind::Local(local),
            ty: e.ty,
            span: e.span,
        };
        let decl = Stmt::Let { local, init: Some(e) };
        match (stmts, self.hoist.as_mut()) {
            (Some(stmts), _) => stmts.push(decl),
            (None, Some(hoisted)) => hoisted.push(decl),
            (None, None) => {
                self.errors.push(with_help_spanned(
                    &m.expr,
                    "a `match` used as a value here must match a variable or a constant",
                    "in a `while` condition, after `&&`/`||` or inside an arm of another value `if`/`match`, bind the value first: `let v = ...;` then `match v { ... }`",
                ));
                return None;
            }
        }
        Some(read)
    }

    /// Integers and `bool` only; a type only rustc knows is left to rustc.
    fn scrutinee_type_ok(&mut self, scrut: &Expr) -> bool {
        let ok = match self.infer.shallow(scrut.ty) {
            Ty::Scalar(s) => !s.is_float(),
            Ty::Idx3 => false,
            Ty::Opaque(_) | Ty::Var(_) | Ty::Callee(..) => true,
        };
        if !ok {
            self.errors.push(with_help(
                scrut.span,
                "kernels can only `match` on integers and `bool`",
                "compare floats with `if`/`else if` (`if x < 0.5 { ... } else { ... }`)",
            ));
        }
        ok
    }

    /// The condition under which `arm` is taken (`None`: always), its guard
    /// included.
    fn arm_condition(&mut self, arm: &syn::Arm, scrut: &Expr) -> Option<Expr> {
        let pat = self.pattern(&arm.pat, scrut);
        let guard = arm.guard.as_ref().map(|(_, g)| {
            let g = self.lazily(|lw| lw.expr(g));
            self.unify_at(g.span, g.ty, Ty::Scalar(Scalar::Bool));
            g
        });
        match (pat, guard) {
            (Some(p), Some(g)) => Some(binary(BinOp::And, p, g)),
            (p, g) => p.or(g),
        }
    }

    fn pattern(&mut self, p: &Pat, scrut: &Expr) -> Option<Expr> {
        crate::stack::deep(|| self.pattern_at(p, scrut))
    }

    fn pattern_at(&mut self, p: &Pat, scrut: &Expr) -> Option<Expr> {
        match p {
            Pat::Wild(_) => None,
            Pat::Paren(p) => self.pattern(&p.pat, scrut),
            Pat::Or(or) => {
                let mut acc: Option<Expr> = None;
                for case in &or.cases {
                    // `_` in an or-pattern matches everything.
                    let c = self.pattern(case, scrut)?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => binary(BinOp::Or, a, c),
                    });
                }
                acc
            }
            Pat::Lit(l) => {
                let v = self.pattern_bound(&SExpr::Lit(l.clone()), scrut);
                Some(binary(BinOp::Eq, scrut.clone(), v))
            }
            Pat::Path(path) => {
                let v = self.pattern_bound(&SExpr::Path(path.clone()), scrut);
                Some(binary(BinOp::Eq, scrut.clone(), v))
            }
            Pat::Ident(pi)
                if pi.by_ref.is_none()
                    && pi.mutability.is_none()
                    && pi.subpat.is_none()
                    && matches!(self.lookup(&names::key(&pi.ident)), Some(Binding::BodyConst(_))) =>
            {
                let ident = &pi.ident;
                let path: syn::ExprPath = syn::parse_quote!(#ident);
                let v = self.pattern_bound(&SExpr::Path(path), scrut);
                Some(binary(BinOp::Eq, scrut.clone(), v))
            }
            Pat::Range(r) => {
                let lo = r.start.as_ref().and_then(|s| {
                    let v = self.pattern_bound(s, scrut);
                    // `0..` on an unsigned type holds always (and NVRTC
                    // warns about `x >= 0` there).
                    let unsigned =
                        matches!(self.infer.shallow(scrut.ty), Ty::Scalar(t) if t.is_int() && !t.is_signed_int());
                    if unsigned && matches!(v.kind, ExprKind::Lit(Lit::Int(0))) {
                        return None;
                    }
                    Some(binary(BinOp::Ge, scrut.clone(), v))
                });
                let hi = r.end.as_ref().map(|e| {
                    let v = self.pattern_bound(e, scrut);
                    let op = match r.limits {
                        syn::RangeLimits::Closed(_) => BinOp::Le,
                        syn::RangeLimits::HalfOpen(_) => BinOp::Lt,
                    };
                    binary(op, scrut.clone(), v)
                });
                match (lo, hi) {
                    (Some(l), Some(h)) => Some(binary(BinOp::And, l, h)),
                    (l, h) => l.or(h),
                }
            }
            Pat::Ident(pi) => {
                self.errors.push(with_help(
                    pi.ident.span(),
                    &format!(
                        "`{}` in a `match` pattern: binding the value (or an outside `const` by its bare name) is not supported in kernels",
                        pi.ident
                    ),
                    "write `_ =>` and use the matched variable itself, or the literal value; an outside constant works by path (`crate::LIMIT`)",
                ));
                Some(bool_lit(pi.ident.span(), false))
            }
            other => {
                self.errors.push(with_help(
                    other.span(),
                    "unsupported pattern in a kernel `match`",
                    PATTERNS,
                ));
                Some(bool_lit(other.span(), false))
            }
        }
    }

    /// A literal, path or negative literal of a pattern, typed like `scrut`.
    fn pattern_bound(&mut self, e: &SExpr, scrut: &Expr) -> Expr {
        let v = match strip(e) {
            // syn reads `-1` in a pattern as one literal with a `-` in its digits.
            SExpr::Lit(syn::ExprLit { lit, .. }) => match lit {
                syn::Lit::Int(i) if i.base10_digits().starts_with('-') => {
                    let text = format!("{}{}", &i.base10_digits()[1..], i.suffix());
                    let pos = syn::Lit::Int(syn::LitInt::new(&text, i.span()));
                    self.literal(&pos, true)
                }
                syn::Lit::Float(f) if f.base10_digits().starts_with('-') => {
                    let text = format!("{}{}", &f.base10_digits()[1..], f.suffix());
                    let pos = syn::Lit::Float(syn::LitFloat::new(&text, f.span()));
                    self.literal(&pos, true)
                }
                _ => self.literal(lit, false),
            },
            SExpr::Path(_) | SExpr::Unary(_) => self.expr(e),
            other => self.error_expr(err(
                other.span(),
                "a `match` pattern bound must be a literal or a constant",
            )),
        };
        self.unify_at(v.span, scrut.ty, v.ty);
        v
    }
}

/// `arms` as nested `if`/`else`; the last arm is the final `else` (see the
/// module comment). `None` without arms.
fn fold_chain<T>(arms: Vec<(Option<Expr>, Block)>, mut mk: impl FnMut(Expr, Block, T) -> T) -> Option<T>
where
    T: FromBlock,
{
    let mut iter = arms.into_iter().rev();
    let (_, last) = iter.next()?;
    let mut acc = T::from_block(last);
    for (cond, then) in iter {
        acc = match cond {
            Some(c) => mk(c, then, acc),
            // An arm that always matches (`_`): later arms are unreachable.
            None => T::from_block(then),
        };
    }
    Some(acc)
}

/// What a chain is built from: the last arm's block.
trait FromBlock {
    fn from_block(b: Block) -> Self;
}

impl FromBlock for Block {
    fn from_block(b: Block) -> Block {
        b
    }
}

impl FromBlock for Expr {
    fn from_block(b: Block) -> Expr {
        b.tail
            .unwrap_or_else(|| bool_lit(proc_macro2::Span::call_site(), false))
    }
}

impl Block {
    fn value(e: Expr) -> Block {
        Block {
            stmts: vec![],
            tail: Some(e),
        }
    }
}

fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
    let span = l.span;
    Expr {
        kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
        ty: Ty::Scalar(Scalar::Bool),
        span,
    }
}

fn bool_lit(span: proc_macro2::Span, v: bool) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(v)),
        ty: Ty::Scalar(Scalar::Bool),
        span,
    }
}
