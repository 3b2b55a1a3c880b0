//! Expressions: operators, casts, literals, names, `if` as a value, and the
//! places an assignment writes to.

use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{err, macro_error, path_text, scalar_of, strip, with_help, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;
use crate::names;

impl Lower {
    /// An assignable place and its type.
    pub(super) fn place(&mut self, e: &SExpr) -> (Option<Place>, Ty) {
        crate::stack::deep(|| self.place_at(e))
    }

    fn place_at(&mut self, e: &SExpr) -> (Option<Place>, Ty) {
        match strip(e) {
            SExpr::Path(p) if p.path.get_ident().is_some() => {
                let name = path_text(&p.path);
                match self.lookup(&name) {
                    Some(Binding::Local(id)) => {
                        if !self.locals[id].mutable {
                            self.errors.push(with_help(
                                e.span(),
                                &format!("cannot assign twice to immutable variable `{name}`"),
                                &format!("declare it with `let mut {name}`"),
                            ));
                        }
                        (Some(Place::Local(id)), self.locals[id].ty)
                    }
                    _ => {
                        let ex = if matches!(self.lookup(&name), Some(Binding::Poisoned)) {
                            self.silent_expr(e.span())
                        } else {
                            self.error_expr(err(e.span(), format!("`{name}` cannot be assigned to")))
                        };
                        (None, ex.ty)
                    }
                }
            }
            SExpr::Index(_) => match self.index(e, true) {
                Some((array, indices, elem)) => (Some(Place::Elem(array, indices)), elem),
                None => (None, self.infer.fresh(VarKind::Any)),
            },
            _ => {
                let ex = self.error_expr(err(e.span(), "only variables and array elements can be assigned to"));
                (None, ex.ty)
            }
        }
    }

    pub(super) fn expr(&mut self, e: &SExpr) -> Expr {
        crate::stack::deep(|| self.expr_at(e))
    }

    fn expr_at(&mut self, e: &SExpr) -> Expr {
        let span = e.span();
        let mk = |kind, ty| Expr { kind, ty, span };
        // `threadIdx.x`, `cuda.grid(1)`, `__syncthreads()`, `math.sqrt(x)`, ...
        if let Some(f) = crate::spelling::foreign(e, &|n| self.lookup(n).is_some()) {
            return self.error_expr(super::with_help_spanned(&f.tokens, &f.msg, &f.help));
        }
        match e {
            SExpr::Paren(p) => self.expr(&p.expr),
            SExpr::Group(g) => self.expr(&g.expr),
            SExpr::Lit(l) => self.literal(&l.lit, false),
            SExpr::Path(p) => self.path_expr(p),
            SExpr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    if let SExpr::Lit(l) = strip(&u.expr) {
                        return self.literal(&l.lit, true);
                    }
                    let inner = self.expr(&u.expr);
                    let ty = inner.ty;
                    mk(ExprKind::Unary(UnOp::Neg, Box::new(inner)), ty)
                }
                syn::UnOp::Not(_) => {
                    let inner = self.expr(&u.expr);
                    let ty = inner.ty;
                    mk(ExprKind::Unary(UnOp::Not, Box::new(inner)), ty)
                }
                _ if self.is_poisoned(&u.expr) => self.silent_expr(span),
                _ => self.error_expr(with_help(
                    span,
                    "dereferencing is not supported in kernels",
                    "kernels have no references besides their array parameters; index the array instead",
                )),
            },
            SExpr::Binary(b) => {
                let Some(op) = bin_op(&b.op) else {
                    return self.error_expr(err(b.op.span(), "compound assignment is a statement, not a value"));
                };
                // `(a, b) == (c, d)`: one error for the comparison, not one per tuple.
                if matches!(strip(&b.left), SExpr::Tuple(_)) && matches!(strip(&b.right), SExpr::Tuple(_)) {
                    return self.error_expr(with_help(
                        span,
                        "kernels cannot operate on tuples",
                        "compare or combine the components: `a == c && b == d`",
                    ));
                }
                let l = self.expr(&b.left);
                // `&&`/`||` evaluate their right side only sometimes.
                let r = if matches!(op, BinOp::And | BinOp::Or) {
                    self.lazily(|lw| lw.expr(&b.right))
                } else {
                    self.expr(&b.right)
                };
                let ty = match op {
                    BinOp::Shl | BinOp::Shr => {
                        let int = self.infer.fresh(VarKind::Int);
                        self.expect(&b.right, &r, int);
                        l.ty
                    }
                    BinOp::And | BinOp::Or => {
                        self.expect(&b.left, &l, Ty::Scalar(Scalar::Bool));
                        self.expect(&b.right, &r, Ty::Scalar(Scalar::Bool));
                        Ty::Scalar(Scalar::Bool)
                    }
                    _ => {
                        // The operand that does not fit is the one reported:
                        // a literal or a local of literal type against a
                        // typed value (`2 * x`), else the right one (`x * 2`).
                        // The result has the type of the operand that is
                        // not reported, so that its use reports nothing more.
                        let (lt, rt) = (self.infer.shallow(l.ty), self.infer.shallow(r.ty));
                        let typed = if matches!(lt, Ty::Var(_)) && !matches!(rt, Ty::Var(_)) {
                            self.expect(&b.left, &l, r.ty);
                            r.ty
                        } else {
                            self.expect(&b.right, &r, l.ty);
                            l.ty
                        };
                        if op.is_comparison() {
                            Ty::Scalar(Scalar::Bool)
                        } else {
                            typed
                        }
                    }
                };
                mk(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty)
            }
            SExpr::Cast(c) => {
                let inner = self.expr(&c.expr);
                match scalar_of(&c.ty) {
                    Some(s) => mk(ExprKind::Cast(Box::new(inner), s), Ty::Scalar(s)),
                    None => self.error_expr(err(c.ty.span(), "`as` casts go to a scalar type (i32 ... f64)")),
                }
            }
            SExpr::Index(ix) if matches!(strip(&ix.expr), SExpr::MethodCall(mc) if mc.method == "shape") => {
                self.shape_index(ix)
            }
            SExpr::Index(_) => match self.index(e, false) {
                Some((array, indices, elem)) => mk(ExprKind::Load(array, indices), elem),
                None => Expr {
                    kind: ExprKind::Lit(Lit::Bool(false)),
                    ty: self.infer.fresh(VarKind::Any),
                    span,
                },
            },
            SExpr::Call(call) => self.call(e, call),
            SExpr::MethodCall(mc) => self.method_call(mc),
            SExpr::Field(f) => self.field(f),
            SExpr::If(i) => self.if_expr(i),
            SExpr::Closure(c) => self.error_expr(with_help(
                c.or1_token.span(),
                "closures are not supported in kernels",
                "write the computation inline",
            )),
            SExpr::Macro(m) => self.error_expr(macro_error(&m.mac)),
            SExpr::Unsafe(u) => self.error_expr(with_help(
                u.unsafe_token.span(),
                "`unsafe` is not allowed in kernels",
                "remove it: gpujit translates every access itself and checks it on the CPU backend",
            )),
            SExpr::Reference(r) => self.error_expr(with_help(
                r.and_token.span(),
                "references are not supported in kernels",
                "only the array parameters are references; index them directly",
            )),
            SExpr::Try(t) => self.error_expr(with_help(
                t.question_token.span(),
                "`?` is not supported in kernels",
                "kernels cannot fail or return early with a value",
            )),
            SExpr::Block(_) | SExpr::Loop(_) | SExpr::While(_) | SExpr::ForLoop(_) => {
                self.error_expr(err(span, "this block is only allowed as a statement, not as a value"))
            }
            SExpr::Assign(_) => self.error_expr(err(span, "an assignment is a statement, not a value")),
            SExpr::Tuple(_) => self.error_expr(with_help(
                span,
                "tuples are only supported in `let`, as device-function arguments and as their return values",
                "bind it first (`let t = (a, b);` or `let (a, b) = ...;`), then use `t.0` or the names",
            )),
            SExpr::Array(_) | SExpr::Repeat(_) => self.error_expr(with_help(
                span,
                "an array value is only allowed as a `let`'s whole value",
                "declare a local array, `let mut a = [0.0f32; N];`, and index it (`a[i]`); `shared_array::<[T; N]>()` is block-wide",
            )),
            SExpr::Match(m) => self.match_expr(m),
            SExpr::Range(_) => self.error_expr(err(span, "ranges are only supported as `for` loop bounds")),
            SExpr::Struct(_) => self.error_expr(err(span, "struct values are not supported in kernels")),
            _ => self.error_expr(err(span, "this expression is not supported in kernels")),
        }
    }

    pub(super) fn literal(&mut self, lit: &syn::Lit, negate: bool) -> Expr {
        let span = lit.span();
        match lit {
            syn::Lit::Int(i) => {
                let ty = match i.suffix() {
                    "" => self.infer.fresh(VarKind::Int),
                    s => match Scalar::from_name(s) {
                        Some(s) if s.is_int() => Ty::Scalar(s),
                        Some(s) if s.is_float() => {
                            let text = format!("{}{}", if negate { "-" } else { "" }, i.base10_digits());
                            return Expr {
                                kind: ExprKind::Lit(Lit::Float(text)),
                                ty: Ty::Scalar(s),
                                span,
                            };
                        }
                        _ => return self.error_expr(err(span, format!("unsupported literal suffix `{s}`"))),
                    },
                };
                let Ok(value) = i.base10_parse::<u128>() else {
                    return self.error_expr(err(span, "integer literal out of range"));
                };
                let value = value as i128;
                Expr {
                    kind: ExprKind::Lit(Lit::Int(if negate { -value } else { value })),
                    ty,
                    span,
                }
            }
            syn::Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.infer.fresh(VarKind::Float),
                    "f32" => Ty::Scalar(Scalar::F32),
                    "f64" => Ty::Scalar(Scalar::F64),
                    s => return self.error_expr(err(span, format!("unsupported literal suffix `{s}`"))),
                };
                let text = format!("{}{}", if negate { "-" } else { "" }, f.base10_digits());
                Expr {
                    kind: ExprKind::Lit(Lit::Float(text)),
                    ty,
                    span,
                }
            }
            syn::Lit::Bool(b) if !negate => Expr {
                kind: ExprKind::Lit(Lit::Bool(b.value)),
                ty: Ty::Scalar(Scalar::Bool),
                span,
            },
            _ => self.error_expr(err(
                span,
                "only integer, float and bool literals are supported in kernels",
            )),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if p.qself.is_some() {
            return self.error_expr(err(span, "qualified paths are not supported in kernels"));
        }
        if let Some(ident) = p.path.get_ident() {
            match self.lookup(&names::key(ident)) {
                Some(Binding::Local(id)) => {
                    return Expr {
                        kind: ExprKind::Local(id),
                        ty: self.locals[id].ty,
                        span,
                    }
                }
                Some(Binding::BodyConst(id)) => {
                    return Expr {
                        kind: ExprKind::BodyConst(id),
                        ty: Ty::Scalar(self.body_consts[id].ty),
                        span,
                    }
                }
                Some(Binding::Poisoned) => return self.silent_expr(span),
                Some(Binding::Tuple { .. }) => {
                    return self.error_expr(with_help(
                        span,
                        &format!("tuple `{ident}` cannot be used as a whole here"),
                        &format!("take it apart (`let (a, b) = {ident};`) or read a field (`{ident}.0`)"),
                    ))
                }
                Some(Binding::Array(_)) | Some(Binding::Shared(_)) | Some(Binding::LocalArray(_)) => {
                    return self.error_expr(with_help(
                        span,
                        &format!("array `{ident}` cannot be used as a value"),
                        "index it (`a[i]`, `a[[i, j]]`) or ask for its size (`a.len()`, `a.dim()`)",
                    ))
                }
                None => {}
            }
        }
        let (idx, ty) = self.extern_const(&p.path);
        Expr {
            kind: ExprKind::ExternConst(idx),
            ty,
            span,
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let cond = self.expr(&i.cond);
        self.expect(&i.cond, &cond, Ty::Scalar(Scalar::Bool));
        // Only one branch runs: nothing in them can be hoisted.
        let saved = self.hoist.take();
        let r = self.if_expr_branches(i, cond);
        self.hoist = saved;
        r
    }

    fn if_expr_branches(&mut self, i: &syn::ExprIf, cond: Expr) -> Expr {
        let span = i.span();
        let then = self.block(&i.then_branch, true);
        let Some((_, els)) = &i.else_branch else {
            return self.error_expr(err(span, "an `if` used as a value needs an `else` branch"));
        };
        let els = match strip(els) {
            SExpr::Block(b) => self.block(&b.block, true),
            SExpr::If(inner) => {
                let e = self.if_expr(inner);
                Block {
                    stmts: vec![],
                    tail: Some(e),
                }
            }
            other => {
                let e = self.expr(other);
                Block {
                    stmts: vec![],
                    tail: Some(e),
                }
            }
        };
        let (Some(a), Some(b)) = (&then.tail, &els.tail) else {
            return self.error_expr(err(
                span,
                "both branches of an `if` used as a value must end in a value",
            ));
        };
        if !then.stmts.is_empty() || !els.stmts.is_empty() {
            return self.error_expr(with_help(
                span,
                "an `if` used as a value can only hold one expression per branch",
                "compute the values before the `if`, or declare `let mut v;` and assign it in each branch",
            ));
        }
        let ty = a.ty;
        self.unify_at(b.span, a.ty, b.ty);
        Expr {
            kind: ExprKind::If(Box::new(cond), Box::new(then), Box::new(els)),
            ty,
            span,
        }
    }
}

fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}
