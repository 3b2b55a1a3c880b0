//! CUDA C for statements: bindings, assignments, loops (Rust's `for` over
//! ranges, `step_by` and `rev`), branches and local arrays.

use std::fmt::Write;

use crate::model::*;

use super::expr::{emitted_prec, paren, PRIMARY};
use super::{decl_qualifiers, scalar_of, Emitter};

impl Emitter<'_> {
    pub(super) fn stmt(&mut self, s: &Stmt) {
        crate::stack::deep(|| self.stmt_at(s))
    }

    fn stmt_at(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, init } => {
                let l = self.local(*local).clone();
                let konst = decl_qualifiers(&l);
                match init {
                    Some(e) if l.ty == Ty::Idx3 => {
                        let v = self.expr(e);
                        self.line(&format!("{konst}uint3 {} = {{{v}.x, {v}.y, {v}.z}};", l.name));
                    }
                    Some(e) => {
                        let v = self.expr(e);
                        let t = self.c_type(l.ty);
                        self.line(&format!("{konst}{t} {} = {v};", l.name));
                    }
                    None => {
                        let t = self.c_type(l.ty);
                        self.line(&format!("{t} {};", l.name))
                    }
                }
            }
            Stmt::LetTuple { locals, parts } => {
                for (l, p) in locals.iter().zip(parts) {
                    if let Some(id) = l {
                        let l = self.local(*id).clone();
                        let v = self.expr(p);
                        let konst = decl_qualifiers(&l);
                        let t = self.c_type(l.ty);
                        self.line(&format!("{konst}{t} {} = {v};", l.name));
                    }
                }
            }
            Stmt::Shared(id) => {
                let sh = &self.k.shared[*id];
                let dims: String = sh.dims.iter().map(|d| format!("[{}]", d.c)).collect();
                self.line(&format!("__shared__ {} {}{};", sh.elem.c_name(), sh.name, dims));
            }
            Stmt::LocalArray { id, init } => self.local_array(*id, init),
            Stmt::Assign { place, value, .. } if self.effectful_index(place) => {
                // Rust evaluates the value, then the index, once; C would
                // evaluate a compound assignment's index twice below.
                let Place::Elem(_, idx) = place else { return };
                self.line("{");
                self.indent += 1;
                for x in std::iter::once(value).chain(idx) {
                    let v = self.expr(x);
                    let name = self.order.bind(x);
                    self.line(&format!("const auto {name} = {v};"));
                }
                self.stmt_at(s);
                std::iter::once(value).chain(idx).for_each(|x| self.order.unbind(x));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Assign { place, op, value } => {
                let (target, place_ty) = self.place(place);
                let ty = scalar_of(place_ty);
                let v = self.expr(value);
                match op {
                    None => self.line(&format!("{target} = {v};")),
                    Some(op) => {
                        let simple = matches!(ty, Some(s) if s.is_float() && *op != BinOp::Rem)
                            || matches!(ty, Some(Scalar::U32 | Scalar::U64 | Scalar::Usize) if !matches!(op, BinOp::Shl | BinOp::Shr))
                            || matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
                                && !ty.is_some_and(Scalar::is_narrow);
                        if simple {
                            self.line(&format!("{target} {}= {v};", op.symbol()));
                        } else {
                            let rhs = self.binary(*op, (target.clone(), PRIMARY), (v, emitted_prec(value)), place_ty);
                            self.line(&format!("{target} = {rhs};"));
                        }
                    }
                }
            }
            Stmt::Expr(e) => {
                let v = self.expr(e);
                self.line(&format!("{v};"));
            }
            Stmt::If { cond, then, els } => self.if_stmt(cond, then, els.as_ref(), "if"),
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                rev,
                body,
                aux,
            } => {
                let l = self.local(*var).clone();
                let (a, b) = (self.expr(start), self.expr(end));
                // A range over outside constants only rustc knows the type of
                // (`for _ in 0..ITERS`): C++ takes it from the end bound, as
                // `auto` would deduce different types for `0` and `ITERS`.
                let t = match l.ty {
                    Ty::Opaque(None) | Ty::Var(_) => format!("decltype({} + 0)", paren(b.clone())),
                    ty => self.c_type(ty),
                };
                let t = t.as_str();
                let [end_n, step_n, done_n] = aux;
                let i = &l.name;
                if *rev {
                    self.rev_for(t, i, (&a, &b), *inclusive, step.as_ref(), body, aux, l.ty);
                } else if step.is_none() && !inclusive {
                    self.nested(
                        &format!("for ({t} {i} = {a}, {end_n} = {b}; {i} < {end_n}; {i}++)"),
                        body,
                    );
                } else {
                    // Stop before the variable could step past the end (compared
                    // in unsigned 64-bit arithmetic), so neither a range ending
                    // at the type's maximum nor a step wider than the type can
                    // overflow: as in Rust, a too-large step yields one element.
                    let u = scalar_of(l.ty).map(|s| s.c_unsigned()).unwrap_or("unsigned long long");
                    let step_text = match step {
                        Some(s) => {
                            let s = self.expr(s);
                            self.line("{");
                            self.indent += 1;
                            self.line(&format!("const unsigned long long {step_n} = {s};"));
                            // A zero step: a device fault (the launch fails), as
                            // the CPU backend faults, instead of looping forever.
                            self.line(&format!("if ({step_n} == 0ull) __trap();"));
                            step_n.clone()
                        }
                        None => "1ull".into(),
                    };
                    let (cmp, last) = if *inclusive { ("<=", "<") } else { ("<", "<=") };
                    // Casts only where the loop type is narrower than 64 bits.
                    let wide = u == "unsigned long long";
                    let to_u = |x: &str| if t == u { x.to_string() } else { format!("({u}){x}") };
                    let diff = format!("{} - {}", to_u(end_n), to_u(i));
                    let remaining = if wide {
                        diff
                    } else {
                        format!("(unsigned long long)({diff})")
                    };
                    let next = if t == u {
                        format!("{i} + {step_text}")
                    } else {
                        format!("({t})({} + ({u}){step_text})", to_u(i))
                    };
                    self.nested(
                        &format!(
                            "for ({t} {i} = {a}, {end_n} = {b}, {done_n} = !({i} {cmp} {end_n}); !{done_n}; {done_n} = {remaining} {last} {step_text}, {i} = {done_n} ? {i} : {next})"
                        ),
                        body,
                    );
                    if step.is_some() {
                        self.indent -= 1;
                        self.line("}");
                    }
                }
            }
            Stmt::While { cond, body } => {
                let c = self.expr(cond);
                self.nested(&format!("while ({c})"), body);
            }
            Stmt::Loop { body } => self.nested("for (;;)", body),
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return => self.line("return;"),
            Stmt::ReturnValue(e) => {
                let v = self.expr(e);
                self.line(&format!("return {v};"));
            }
            Stmt::SyncThreads => self.line("__syncthreads();"),
            Stmt::Fence(scope) => self.line(match scope {
                FenceScope::Block => "__threadfence_block();",
                FenceScope::Device => "__threadfence();",
                FenceScope::System => "__threadfence_system();",
            }),
            Stmt::Block(b) => self.nested("", b),
            Stmt::Line(n) => {
                if self.lines {
                    let _ = writeln!(self.out, "#line {n}");
                }
            }
        }
    }

    /// `for i in (a..b).rev().step_by(s)` (`..=`, no step: 1): `i` starts at
    /// the range's last element and steps down while at least `s` above
    /// `a`, the distance taken in unsigned 64-bit arithmetic as for forward
    /// loops, so that nothing wraps or overflows at either end of the type.
    #[allow(clippy::too_many_arguments)]
    fn rev_for(
        &mut self,
        t: &str,
        i: &str,
        (a, b): (&str, &str),
        inclusive: bool,
        step: Option<&Expr>,
        body: &Block,
        aux: &[String; 3],
        ty: Ty,
    ) {
        let [lo, step_n, done] = aux;
        let u = scalar_of(ty).map(|s| s.c_unsigned()).unwrap_or("unsigned long long");
        let step_text = match step {
            Some(s) => {
                let s = self.expr(s);
                self.line("{");
                self.indent += 1;
                self.line(&format!("const unsigned long long {step_n} = {s};"));
                self.line(&format!("if ({step_n} == 0ull) __trap();"));
                step_n.clone()
            }
            None => "1ull".into(),
        };
        let to_u = |x: &str| if t == u { x.to_string() } else { format!("({u}){x}") };
        let diff = format!("{} - {}", to_u(i), to_u(lo));
        let remaining = if u == "unsigned long long" {
            diff
        } else {
            format!("(unsigned long long)({diff})")
        };
        let minus = |by: &str| {
            if t == u {
                format!("{i} - {by}")
            } else {
                format!("({t})({} - ({u}){by})", to_u(i))
            }
        };
        // `a..b` starts at `b - 1`, only when not empty (`b > a`).
        let first = if inclusive {
            format!("!({lo} <= {i})")
        } else {
            format!("!({lo} < {i}) || ({i} = {}, false)", minus("1"))
        };
        let next = minus(&step_text);
        self.nested(
            &format!(
                "for ({t} {lo} = {a}, {i} = {b}, {done} = {first}; !{done}; {done} = {remaining} < {step_text}, {i} = {done} ? {i} : {next})"
            ),
            body,
        );
        if step.is_some() {
            self.indent -= 1;
            self.line("}");
        }
    }

    /// `if (..) { } else if (..) { } else { }`, flat for any chain length.
    fn if_stmt(&mut self, cond: &Expr, then: &Block, els: Option<&Block>, keyword: &str) {
        let (mut cond, mut then, mut els, mut keyword) = (cond, then, els, keyword);
        loop {
            let c = self.expr(cond);
            self.line(&format!("{keyword} ({c}) {{"));
            self.indent += 1;
            self.block_body(then);
            self.indent -= 1;
            match els {
                None => return self.line("}"),
                // `else { if .. }` (a line marker may precede the `if`):
                // replace the closing brace, `} else if (...) {`.
                Some(b) => match b.else_if() {
                    Some((c, t, e)) => (cond, then, els, keyword) = (c, t, e, "} else if"),
                    None => {
                        self.line("} else {");
                        self.indent += 1;
                        self.block_body(b);
                        self.indent -= 1;
                        return self.line("}");
                    }
                },
            }
        }
    }

    fn place(&mut self, p: &Place) -> (String, Ty) {
        match p {
            Place::Local(id) => {
                let l = self.local(*id);
                (l.name.clone(), l.ty)
            }
            Place::Elem(array, idx) => (self.element(*array, idx), self.k.elem_type(*array)),
        }
    }

    /// A local array: a C array in local memory, then its values (a list
    /// as a brace initialiser, a repeated value by loops over the indices).
    fn local_array(&mut self, id: usize, init: &ArrayInit) {
        let a = self.k.local_arrays[id].clone();
        let t = self.c_type(a.elem);
        // C has no zero-length arrays (Rust's `[0i32; 0]` is fine): such an
        // extent becomes 1; every index is out of range there either way.
        let dims: String = a
            .dims
            .iter()
            .map(|d| match d.c.parse::<u64>() {
                Ok(0) => "[1]".to_string(),
                Ok(_) => format!("[{}]", d.c),
                Err(_) => format!("[({0}) > 0 ? ({0}) : 1]", d.c),
            })
            .collect();
        // A zero-length array is never read: no fill loop (NVRTC would warn
        // about `i < 0`), and no "set but never used" warning.
        let empty = a.dims.iter().any(|d| d.c.parse::<u64>() == Ok(0));
        let attr = if empty { "[[maybe_unused]] " } else { "" };
        match init {
            ArrayInit::Repeat(v) if empty => {
                let v = self.expr(v);
                self.line(&format!("{attr}{t} {}{dims};", a.name));
                self.line(&format!("{{ const {t} gj_fill = {v}; (void)gj_fill; }}"));
            }
            ArrayInit::List(values) => {
                // A computed element is cast to the element type: a brace
                // list refuses C++'s narrowing (`int` arithmetic into a
                // `unsigned char` element).
                let values: Vec<String> = values
                    .iter()
                    .map(|v| match v.kind {
                        ExprKind::Lit(_) => self.expr(v),
                        _ => format!("({t})({})", self.expr(v)),
                    })
                    .collect();
                // List sizes are literals; nested braces mirror the dimensions.
                let sizes: Vec<usize> = a.dims.iter().map(|d| d.c.parse().unwrap_or(1)).collect();
                let mut parts = values;
                for &n in sizes.iter().skip(1).rev() {
                    parts = parts
                        .chunks(n.max(1))
                        .map(|c| format!("{{{}}}", c.join(", ")))
                        .collect();
                }
                self.line(&format!("{attr}{t} {}{dims} = {{{}}};", a.name, parts.join(", ")));
            }
            ArrayInit::Repeat(v) => {
                let v = self.expr(v);
                self.line(&format!("{t} {}{dims};", a.name));
                self.line("{");
                self.indent += 1;
                self.line(&format!("const {t} gj_fill = {v};"));
                let mut subs = String::new();
                for (k, d) in a.dims.iter().enumerate() {
                    self.line(&format!(
                        "for (unsigned long long gj_i{k} = 0; gj_i{k} < {}; ++gj_i{k})",
                        d.c
                    ));
                    self.indent += 1;
                    subs.push_str(&format!("[gj_i{k}]"));
                }
                self.line(&format!("{}{subs} = gj_fill;", a.name));
                self.indent -= a.dims.len() + 1;
                self.line("}");
            }
        }
    }

    pub(super) fn element(&mut self, a: ArrayRef, idx_exprs: &[Expr]) -> String {
        let idx: Vec<String> = idx_exprs.iter().map(|e| self.expr(e)).collect();
        let group = |x: &String, e: &Expr, min: u8| {
            if emitted_prec(e) < min {
                format!("({x})")
            } else {
                x.clone()
            }
        };
        let subs: String = idx.iter().map(|x| format!("[{x}]")).collect();
        match a {
            ArrayRef::Shared(i) => format!("{}{subs}", self.k.shared[i].name),
            ArrayRef::Local(i) => format!("{}{subs}", self.k.local_arrays[i].name),
            ArrayRef::Const(i) => format!("{}{subs}", self.k.extern_consts[i].c_name),
            ArrayRef::Param(i) => {
                let p = &self.k.params[i];
                // Row-major: ((i * d1 + j) * d2 + k).
                let mut flat = group(&idx[0], &idx_exprs[0], 13);
                for (d, x) in idx.iter().enumerate().skip(1) {
                    flat = format!("{flat} * {} + {}", p.dims[d], group(x, &idx_exprs[d], 13));
                    if d + 1 < idx.len() {
                        flat = format!("({flat})");
                    }
                }
                if idx.len() == 1 {
                    flat = idx[0].clone();
                }
                format!("{}[{flat}]", p.name)
            }
        }
    }
}
