//! CUDA C for expressions, with Rust's semantics: wrapping integer
//! arithmetic, masked shifts, saturating casts, Rust's literal types and
//! evaluation order, and the precedence needed to print them.

use std::fmt::Write;

use crate::cuda_math::{self, Recv};
use crate::model::*;

use super::{scalar_of, Emitter};

/// The generic helper (`generic_prelude.cu`) for `op` on a value of a type
/// only rustc knew, if `op` needs one.
fn generic_op(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "gj_add",
        BinOp::Sub => "gj_sub",
        BinOp::Mul => "gj_mul",
        BinOp::Div => "gj_div",
        BinOp::Rem => "gj_rem",
        BinOp::BitAnd => "gj_and",
        BinOp::BitOr => "gj_or",
        BinOp::BitXor => "gj_xor",
        BinOp::Shl => "gj_shl",
        BinOp::Shr => "gj_shr",
        _ => return None,
    })
}

/// Wraps `s` in parentheses unless it is already atomic: a name or number,
/// a subscript or call of a name, or one parenthesized group.
pub(super) fn paren(s: String) -> String {
    let head = s.find(['[', '(']).unwrap_or(s.len());
    let name_like = s[..head].chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    let atomic =
        (name_like && postfix_groups(&s[head..])) || (s.starts_with('(') && s.ends_with(')') && balanced_outer(&s));
    if atomic {
        s
    } else {
        format!("({s})")
    }
}

/// Whether `s` is a run of balanced `[...]`/`(...)` groups (or empty).
fn postfix_groups(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if depth == 0 => return false,
            _ => {}
        }
    }
    depth == 0
}

/// Whether the first `(` of `s` closes at its last character.
fn balanced_outer(s: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

fn float_lit(text: &str, s: Scalar) -> String {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let formatted = if s == Scalar::F32 {
        clean.parse::<f32>().map(|v| format!("{v:?}")).unwrap_or(clean.clone())
    } else {
        clean.parse::<f64>().map(|v| format!("{v:?}")).unwrap_or(clean.clone())
    };
    let formatted = if formatted.contains(['.', 'e', 'E', 'i', 'N']) {
        formatted
    } else {
        format!("{formatted}.0")
    };
    if s == Scalar::F32 {
        format!("{formatted}f")
    } else {
        formatted
    }
}

fn int_lit(v: i128, s: Option<Scalar>) -> String {
    match s {
        Some(Scalar::I32) if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Some(Scalar::I64) if v == i64::MIN as i128 => "(-9223372036854775807ll - 1)".into(),
        Some(Scalar::I64) => format!("{v}ll"),
        Some(Scalar::U32) => format!("{v}u"),
        Some(Scalar::U64 | Scalar::Usize) => format!("{v}ull"),
        Some(Scalar::F32) => format!("{v}.0f"),
        Some(Scalar::F64) => format!("{v}.0"),
        _ => format!("{v}"),
    }
}

impl Emitter<'_> {
    pub(super) fn expr(&mut self, e: &Expr) -> String {
        crate::stack::deep(|| self.expr_at(e))
    }

    fn expr_at(&mut self, e: &Expr) -> String {
        if let Some(name) = self.order.name_of(e) {
            return name.clone();
        }
        if let Some(ops) = crate::analysis::effects::unordered_operands(e) {
            return self.in_rust_order(e, &ops);
        }
        self.expr_text(e)
    }

    /// Whether `place` is an element whose index has a side effect not yet
    /// evaluated into a temporary.
    pub(super) fn effectful_index(&self, place: &Place) -> bool {
        let Place::Elem(_, idx) = place else { return false };
        idx.iter()
            .any(|x| self.order.name_of(x).is_none() && crate::analysis::effects::has_effects(x))
    }

    /// `e` in an immediately invoked lambda that first evaluates the operands
    /// `ops` that touch memory into temporaries, left to right as Rust does.
    fn in_rust_order(&mut self, e: &Expr, ops: &[&Expr]) -> String {
        let mut decls = String::new();
        let mut bound = Vec::new();
        for op in ops
            .iter()
            .copied()
            .filter(|o| crate::analysis::effects::observes_memory(o))
        {
            let v = self.expr(op);
            let name = self.order.bind(op);
            let _ = write!(decls, "const auto {name} = {v}; ");
            bound.push(op);
        }
        let body = self.expr_text(e);
        for op in bound {
            self.order.unbind(op);
        }
        format!("[&]() {{ {decls}return {body}; }}()")
    }

    fn expr_text(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => match self.opaque(e.ty) {
                Some(t) => format!("({t}){v}"),
                None => int_lit(*v, scalar_of(e.ty)),
            },
            ExprKind::Lit(Lit::Float(text)) => match (self.opaque(e.ty), scalar_of(e.ty)) {
                // Both spellings: the helper picks the one of the constant's type.
                (Some(t), _) => format!(
                    "gj_lit<{t}>({}, {})",
                    float_lit(text, Scalar::F32),
                    float_lit(text, Scalar::F64)
                ),
                (None, Some(s)) => float_lit(text, s),
                (None, None) => text.clone(),
            },
            ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
            ExprKind::Local(id) => self.local(*id).name.clone(),
            ExprKind::ExternConst(i) => self.k.extern_consts[*i].c_name.clone(),
            ExprKind::BodyConst(i) => self.k.body_consts[*i].name.clone(),
            ExprKind::Unary(op, a) => {
                if let Some(t) = self.opaque(e.ty) {
                    let f = if *op == UnOp::Neg { "gj_neg" } else { "gj_not" };
                    return format!("{f}<{t}>({})", self.expr(a));
                }
                let s = scalar_of(e.ty);
                let v = paren(self.expr(a));
                match (op, s) {
                    // In the unsigned type of the width, cast back: C would
                    // negate `u8`/`u16` in `int` (and signed overflow is UB).
                    (UnOp::Neg, Some(t)) if t.is_int() => format!(
                        "({})(0{} - ({}){v})",
                        t.c_name(),
                        if t.bits() <= 32 { "u" } else { "ull" },
                        t.c_unsigned()
                    ),
                    (UnOp::Neg, _) => format!("-{v}"),
                    (UnOp::Not, Some(Scalar::Bool)) => format!("!{v}"),
                    (UnOp::Not, Some(t)) if t.is_narrow() => format!("({})~{v}", t.c_name()),
                    (UnOp::Not, _) => format!("~{v}"),
                }
            }
            ExprKind::Binary(..) if is_deep(e) => self.flat(e),
            ExprKind::Binary(op, a, b) => {
                let l = (self.expr(a), emitted_prec(a));
                let r = (self.expr(b), emitted_prec(b));
                self.binary(*op, l, r, a.ty)
            }
            ExprKind::Cast(a, to) => {
                let v = self.expr(a);
                match self.opaque(a.ty) {
                    Some(t) => format!("gj_cast<{}, {t}>({v})", to.c_name()),
                    None => match scalar_of(a.ty) {
                        Some(from) if from.is_float() && to.is_int() => {
                            self.helpers.insert("gj_float_to_int");
                            format!("gj_float_to_int<{}>({v})", to.c_name())
                        }
                        from => cast(&v, from, *to),
                    },
                }
            }
            ExprKind::Load(a, idx) => self.element(*a, idx),
            ExprKind::Vote(v, p) => {
                let p = self.expr(p);
                match v {
                    Vote::Count => format!("(unsigned int){}({p})", v.c_name()),
                    Vote::And | Vote::Or => format!("({}({p}) != 0)", v.c_name()),
                }
            }
            ExprKind::Warp(f, args) => {
                let spec = f.spec();
                let vals: Vec<String> = spec
                    .args
                    .iter()
                    .zip(args)
                    .map(|((kind, _), a)| {
                        let v = self.expr(a);
                        match (kind, scalar_of(a.ty)) {
                            // The exact overload: a literal's C type may be narrower.
                            (WarpArg::Value, Some(t)) => format!("({})({v})", t.c_name()),
                            _ => v,
                        }
                    })
                    .collect();
                let function = if *f == WarpFn::MatchAll {
                    // Its predicate is an out-parameter: a helper returns the mask.
                    self.helpers.insert("gj_match_all_sync");
                    "gj_match_all_sync"
                } else {
                    spec.cuda
                };
                let call = format!("{function}({})", vals.join(", "));
                match spec.result {
                    WarpResult::Bool => format!("({call} != 0)"),
                    WarpResult::Value | WarpResult::U32 | WarpResult::Unit => call,
                }
            }
            ExprKind::Len(p) => {
                let p = &self.k.params[*p];
                match p.dims.as_slice() {
                    [one] => one.clone(),
                    dims => format!("({})", dims.join(" * ")),
                }
            }
            ExprKind::Dim(p, d) => {
                let p = &self.k.params[*p];
                p.dims.get(*d).cloned().unwrap_or_else(|| "1".into())
            }
            ExprKind::Grid(a) => {
                let x = a.name();
                format!("((unsigned long long)blockIdx.{x} * blockDim.{x} + threadIdx.{x})")
            }
            ExprKind::GridSize(a) => {
                let x = a.name();
                format!("((unsigned long long)gridDim.{x} * blockDim.{x})")
            }
            ExprKind::Builtin(b) => b.c_name().to_string(),
            ExprKind::Intrinsic(v) => v.spec().cuda.to_string(),
            ExprKind::BuiltinAxis(b, a) => format!("((unsigned long long){}.{})", b.c_name(), a.name()),
            ExprKind::Idx3Field(base, a) => {
                let v = self.expr(base);
                format!("((unsigned long long){v}.{})", a.name())
            }
            ExprKind::Math(f, args) => {
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let recv_ty = args[0].ty;
                let opaque = self.opaque(recv_ty);
                let recv = match (&opaque, scalar_of(recv_ty)) {
                    (Some(t), _) => Recv::Opaque(t),
                    (None, s) => Recv::Known(s.unwrap_or(Scalar::F64)),
                };
                if let Some(c) = cuda_math::call(*f, recv, scalar_of(e.ty), &vals, &mut self.helpers) {
                    return c;
                }
                if *f == MathFn::Powi {
                    self.helpers.insert("gj_powi");
                }
                match opaque {
                    Some(t) if *f == MathFn::Powi => format!("gj_powi<{t}>({})", vals.join(", ")),
                    Some(t) => format!("gj_{}<{t}>({})", f.rust_name(), vals.join(", ")),
                    None => math(*f, scalar_of(recv_ty), &vals),
                }
            }
            ExprKind::Atomic(f, a, idx, vals) => {
                let place = format!("&{}", self.element(*a, idx));
                let vals: Vec<String> = vals.iter().map(|v| self.expr(v)).collect();
                let elem = scalar_of(self.k.elem_type(*a)).unwrap_or(Scalar::I32);
                self.atomic(*f, elem, &place, &vals)
            }
            ExprKind::Call(k, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}({})", crate::link::callee_name(*k), args.join(", "))
            }
            // The pointer, then the extents, as a kernel receives them.
            ExprKind::ArrayArg(p) => {
                let p = &self.k.params[*p];
                std::iter::once(p.name.clone())
                    .chain(p.dims.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
            ExprKind::Tuple(parts) => {
                let parts: Vec<String> = parts.iter().map(|a| self.expr(a)).collect();
                format!("{}{{{}}}", crate::link::own_type(), parts.join(", "))
            }
            ExprKind::TupleField(t, i) => format!("{}.f{i}", paren(self.expr(t))),
            ExprKind::If(c, a, b) => {
                // `else if` chains as `c ? a : c2 ? a2 : b`: `?:` groups to
                // the right, so no parentheses nest per arm.
                let mut out = String::from("(");
                let (mut c, mut a, mut b) = (&**c, &**a, &**b);
                loop {
                    let cond = self.expr(c);
                    let then = a.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                    let _ = write!(out, "{cond} ? {then} : ");
                    match b.else_if_value() {
                        Some(next) => (c, a, b) = next,
                        None => break,
                    }
                }
                let b = b.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                out.push_str(&b);
                out.push(')');
                out
            }
        }
    }

    /// `l op r` with Rust semantics for operands of type `lt`; `lp`/`rp` are
    /// the C precedences of the operand texts (parentheses only where needed).
    pub(super) fn binary(&mut self, op: BinOp, (l, lp): (String, u8), (r, rp): (String, u8), lty: Ty) -> String {
        if let (Some(t), Some(f)) = (self.opaque(lty), generic_op(op)) {
            return format!("{f}<{t}>({l}, {r})");
        }
        let lt = scalar_of(lty);
        let p = c_prec(op);
        let (wrap_l, wrap_r) = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => (lp < p, rp <= p),
            BinOp::And | BinOp::Or => (lp < 9 && lp != p, rp < 9 && rp != p),
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (lp < 11, rp < 11),
            // Bitwise operators and shifts: always group a compound operand.
            _ => (lp < PRIMARY - 2, rp < PRIMARY - 2),
        };
        // Operands of a C cast or a call need their own grouping rules.
        let cast_l = if lp < UNARY { format!("({l})") } else { l.clone() };
        let cast_r = if rp < UNARY { format!("({r})") } else { r.clone() };
        let (arg_l, arg_r) = (l.clone(), r.clone());
        let l = if wrap_l { format!("({l})") } else { l };
        let r = if wrap_r { format!("({r})") } else { r };
        let sym = op.symbol();
        let Some(t) = lt else { return format!("{l} {sym} {r}") };
        if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            return format!("{l} {sym} {r}");
        }
        if t.is_float() {
            return match op {
                BinOp::Rem => format!("{}({arg_l}, {arg_r})", if t == Scalar::F32 { "fmodf" } else { "fmod" }),
                _ => format!("{l} {sym} {r}"),
            };
        }
        let mask = t.bits() - 1;
        match (op, t) {
            // Through the unsigned type: C's `<<` of a negative value is undefined.
            (BinOp::Shl, _) if t.is_signed_int() => {
                format!("({})(({}){cast_l} << ({r} & {mask}))", t.c_name(), t.c_unsigned())
            }
            (BinOp::Shl | BinOp::Shr, _) if t.is_narrow() => format!("({})({l} {sym} ({r} & {mask}))", t.c_name()),
            (BinOp::Shl | BinOp::Shr, _) => format!("{l} {sym} ({r} & {mask})"),
            // `u16 * u16` overflows C's `int`: wrap in `unsigned int` instead.
            (
                BinOp::Add | BinOp::Sub | BinOp::Mul,
                Scalar::I8 | Scalar::I16 | Scalar::U16 | Scalar::I32 | Scalar::I64,
            ) => {
                let u = t.c_unsigned();
                format!("({})(({u}){cast_l} {sym} ({u}){cast_r})", t.c_name())
            }
            (BinOp::Div | BinOp::Rem, Scalar::I32 | Scalar::I64) => {
                let name = match (op, t) {
                    (BinOp::Div, Scalar::I32) => "gj_div_i32",
                    (BinOp::Rem, Scalar::I32) => "gj_rem_i32",
                    (BinOp::Div, _) => "gj_div_i64",
                    _ => "gj_rem_i64",
                };
                self.helpers.insert(name);
                format!("{name}({arg_l}, {arg_r})")
            }
            // `-128 / -1` is 128 in C's `int`, which the cast wraps as Rust's `wrapping_div`.
            (_, t) if t.is_narrow() => format!("({})({l} {sym} {r})", t.c_name()),
            _ => format!("{l} {sym} {r}"),
        }
    }
}

/// Precedence of a primary expression (name, literal, call, subscript, group).
pub(super) const PRIMARY: u8 = 16;
/// Precedence of a unary operator or a C cast.
const UNARY: u8 = 14;

/// C precedence of a binary operator (higher binds tighter).
fn c_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
        BinOp::Add | BinOp::Sub => 12,
        BinOp::Shl | BinOp::Shr => 11,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 10,
        BinOp::Eq | BinOp::Ne => 9,
        BinOp::BitAnd => 8,
        BinOp::BitXor => 7,
        BinOp::BitOr => 6,
        BinOp::And => 5,
        BinOp::Or => 4,
    }
}

/// The C precedence of the text `Emitter::expr` produces for `e`.
pub(super) fn emitted_prec(e: &Expr) -> u8 {
    let generic = |ty: Ty| matches!(ty, Ty::Opaque(Some(_)) | Ty::Callee(..));
    match &e.kind {
        // Calls of the generic helpers (`gj_add<T>(a, b)`), or a cast for a literal.
        ExprKind::Binary(op, a, _) if generic(a.ty) && generic_op(*op).is_some() => PRIMARY,
        ExprKind::Cast(a, _) if generic(a.ty) => PRIMARY,
        ExprKind::Unary(..) if generic(e.ty) => PRIMARY,
        ExprKind::Lit(Lit::Int(_)) if generic(e.ty) => UNARY,
        ExprKind::Lit(Lit::Float(_)) if generic(e.ty) => PRIMARY,
        ExprKind::Binary(op, a, _) => {
            let plain = match scalar_of(a.ty) {
                _ if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) => true,
                None | Some(Scalar::Bool) => true,
                Some(t) if t.is_float() => *op != BinOp::Rem,
                Some(t) if t.is_narrow() => false,
                Some(Scalar::I32 | Scalar::I64) => {
                    matches!(op, BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
                }
                Some(_) => true,
            };
            if plain {
                c_prec(*op)
            } else {
                UNARY
            }
        }
        ExprKind::Cast(inner, to) => match scalar_of(inner.ty) {
            Some(f)
                if f == *to
                    || (matches!(f, Scalar::U64 | Scalar::Usize) && matches!(to, Scalar::U64 | Scalar::Usize)) =>
            {
                emitted_prec(inner)
            }
            _ => UNARY,
        },
        ExprKind::Unary(..) | ExprKind::Vote(Vote::Count, _) => UNARY,
        ExprKind::Lit(Lit::Int(v)) if *v < 0 => UNARY,
        ExprKind::Lit(Lit::Float(t)) if t.starts_with('-') => UNARY,
        _ => PRIMARY,
    }
}

/// `v as to` with Rust semantics, except float → int (`gj_float_to_int`).
fn cast(v: &str, from: Option<Scalar>, to: Scalar) -> String {
    match from {
        Some(f)
            if f == to || (matches!(f, Scalar::U64 | Scalar::Usize) && matches!(to, Scalar::U64 | Scalar::Usize)) =>
        {
            v.to_string()
        }
        _ => format!("({}){}", to.c_name(), paren(v.to_string())),
    }
}

fn math(f: MathFn, ty: Option<Scalar>, a: &[String]) -> String {
    let t = ty.unwrap_or(Scalar::F64);
    if t.is_int() {
        if f == MathFn::Abs && t.is_signed_int() {
            // Rust's `wrapping_abs`: MIN stays MIN (C's `abs(INT_MIN)` is undefined).
            let x = paren(a[0].clone());
            return format!(
                "({x} < 0 ? ({})(0{} - ({}){x}) : {x})",
                t.c_name(),
                if t.bits() <= 32 { "u" } else { "ull" },
                t.c_unsigned()
            );
        }
        let name = match (f, t) {
            (MathFn::Abs, _) => "abs",
            (MathFn::Min, _) => "min",
            _ => "max",
        };
        let call = format!("{name}({})", a.join(", "));
        return if t.is_narrow() {
            format!("({}){call}", t.c_name())
        } else {
            call
        };
    }
    let sfx = if t == Scalar::F32 { "f" } else { "" };
    if f == MathFn::Powi {
        return format!("gj_powi({}, {})", a[0], a[1]);
    }
    let name = cuda_math::c_float_name(f).unwrap_or("fabs");
    format!("{name}{sfx}({})", a.join(", "))
}
