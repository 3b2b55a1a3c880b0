//! CUDA C for atomics and for array indices linearized by the element's
//! strides.

use crate::model::*;

use super::expr::PRIMARY;
use super::{scalar_of, Emitter};

impl Emitter<'_> {
    /// The CUDA C call for atomic `f` on the element at `place` (`&a[i]`) of
    /// type `t` with operands `vals`. CUDA's overloads cover `int`,
    /// `unsigned`, `unsigned long long` (and `long long` for min/max, `float`
    /// and `double` for add); other pairs go through `unsigned long long`
    /// (two's complement: the same bits), and `atomicSub` exists for 32-bit
    /// integers only (else: `atomicAdd` of the negation).
    pub(super) fn atomic(&mut self, f: AtomicFn, t: Scalar, place: &str, vals: &[String]) -> String {
        let name = match f {
            AtomicFn::Add => "atomicAdd",
            AtomicFn::Sub => "atomicSub",
            // For integers, NaN-ignoring is the same as plain.
            AtomicFn::Min | AtomicFn::NanMin => "atomicMin",
            AtomicFn::Max | AtomicFn::NanMax => "atomicMax",
            AtomicFn::Exch => "atomicExch",
            AtomicFn::Cas => "atomicCAS",
            AtomicFn::And => "atomicAnd",
            AtomicFn::Or => "atomicOr",
            AtomicFn::Xor => "atomicXor",
            AtomicFn::Inc => "atomicInc",
            AtomicFn::Dec => "atomicDec",
        };
        let v = vals.last().cloned().unwrap_or_default();
        let ull = "unsigned long long";
        let text = match (f, t) {
            (AtomicFn::Min | AtomicFn::Max | AtomicFn::NanMin | AtomicFn::NanMax, Scalar::F32 | Scalar::F64) => {
                let helper = match (f, t == Scalar::F32) {
                    (AtomicFn::Min, true) => "gj_atomic_min_f32",
                    (AtomicFn::Max, true) => "gj_atomic_max_f32",
                    (AtomicFn::NanMin, true) => "gj_atomic_nanmin_f32",
                    (AtomicFn::NanMax, true) => "gj_atomic_nanmax_f32",
                    (AtomicFn::Min, false) => "gj_atomic_min_f64",
                    (AtomicFn::Max, false) => "gj_atomic_max_f64",
                    (AtomicFn::NanMin, false) => "gj_atomic_nanmin_f64",
                    _ => "gj_atomic_nanmax_f64",
                };
                self.helpers.insert(helper);
                format!("{helper}({place}, {v})")
            }
            (AtomicFn::Sub, Scalar::F32 | Scalar::F64) => format!("atomicAdd({place}, -({v}))"),
            (AtomicFn::Exch, Scalar::F64) => format!(
                "__longlong_as_double((long long)atomicExch(({ull}*){place}, ({ull})__double_as_longlong({v})))"
            ),
            (AtomicFn::Sub, Scalar::U64 | Scalar::Usize) => format!("atomicAdd({place}, 0ull - ({v}))"),
            (AtomicFn::Sub, Scalar::I64) => {
                format!("(long long)atomicAdd(({ull}*){place}, 0ull - ({ull})({v}))")
            }
            (AtomicFn::Min | AtomicFn::Max | AtomicFn::NanMin | AtomicFn::NanMax, Scalar::I64) => {
                format!("{name}({place}, {v})")
            }
            (AtomicFn::Cas, Scalar::I64) => format!(
                "(long long)atomicCAS(({ull}*){place}, ({ull})({}), ({ull})({v}))",
                vals[0]
            ),
            (_, Scalar::I64) => format!("(long long){name}(({ull}*){place}, ({ull})({v}))"),
            (AtomicFn::Cas, _) => format!("atomicCAS({place}, {}, {v})", vals[0]),
            _ => format!("{name}({place}, {v})"),
        };
        // A primary expression, like any call (`emitted_prec`).
        if text.starts_with('(') {
            format!("({text})")
        } else {
            text
        }
    }

    /// A deeply nested operator tree as an immediately invoked lambda that
    /// assigns one slot variable per operator, in evaluation order, as the CPU
    /// emitter does (`emit_cpu::Emitter::flat`): nested parentheses and calls
    /// would make NVRTC's and g++'s parsers recurse once per level.
    pub(super) fn flat(&mut self, e: &Expr) -> String {
        let mut slots: Vec<(Scalar, usize)> = Vec::new();
        let mut body = String::new();
        self.linear(e, 0, &mut body, &mut slots);
        // One variable per slot in use: NVRTC is slow on arrays here.
        let decls: String = slots
            .iter()
            .map(|&(s, d)| format!("{} {}{{}}; ", s.c_name(), c_slot(Ty::Scalar(s), d)))
            .collect();
        let ret = scalar_of(e.ty).map_or("auto", Scalar::c_name);
        format!("[&]() -> {ret} {{ {decls}{body}return {}; }}()", c_slot(e.ty, 0))
    }

    /// Appends the statements that leave `e` in slot `d` of its type.
    fn linear(&mut self, e: &Expr, d: usize, out: &mut String, slots: &mut Vec<(Scalar, usize)>) {
        crate::stack::deep(|| {
            if let Some(s) = scalar_of(e.ty) {
                if !slots.contains(&(s, d)) {
                    slots.push((s, d));
                }
            }
            let here = c_slot(e.ty, d);
            let ExprKind::Binary(op, a, b) = &e.kind else {
                let v = self.expr(e);
                out.push_str(&format!("{here} = {v}; "));
                return;
            };
            self.linear(a, d, out, slots);
            let (l, r) = (c_slot(a.ty, d), c_slot(b.ty, d + 1));
            if matches!(op, BinOp::And | BinOp::Or) {
                // The right operand runs only if the left one does not decide.
                let mut inner = String::new();
                self.linear(b, d + 1, &mut inner, slots);
                let not = if *op == BinOp::And { "" } else { "!" };
                out.push_str(&format!("if ({not}{l}) {{ {inner}{here} = {r}; }} "));
            } else {
                self.linear(b, d + 1, out, slots);
                let v = self.binary(*op, (l, PRIMARY), (r, PRIMARY), a.ty);
                out.push_str(&format!("{here} = {v}; "));
            }
        })
    }
}

/// The C variable for slot `d` of values of type `ty` (see `Emitter::flat`).
fn c_slot(ty: Ty, d: usize) -> String {
    let name = scalar_of(ty).map_or("opaque", Scalar::rust_name);
    format!("gj_s_{name}_{d}")
}
