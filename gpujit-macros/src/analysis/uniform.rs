//! Which values are the same in every thread of a block, and which are
//! computed from the thread's coordinates alone (the CPU backend's narrowed
//! loops, interchanged loops, tile loads and spilled locals ask).

use super::Bindings;
use crate::model::*;

/// What decides whether an expression is block-uniform in one part.
pub struct Uniform<'k> {
    pub(crate) k: &'k Kernel,
    /// Per local: block-uniform (an immutable scalar parameter or the
    /// variable of a block-level `for`).
    pub(crate) uniform: Vec<bool>,
    /// Per local: immutable and bound only to `threadIdx.x` (or a cast of
    /// it), or only to `thread_idx()` for an `Idx3`.
    thread_x: Vec<bool>,
    thread_idx: Vec<bool>,
}

impl<'k> Uniform<'k> {
    pub fn new(k: &'k Kernel, block_vars: &[LocalId]) -> Self {
        let n = k.locals.len();
        let mut uniform = vec![false; n];
        for (id, l) in k.locals.iter().enumerate() {
            let param = k
                .params
                .iter()
                .any(|p| p.name == l.name && matches!(p.kind, ParamKind::Scalar(_)));
            uniform[id] = (param && !l.mutable) || block_vars.contains(&id);
        }
        // Every value each local is bound to, by `let` or a tuple `let`.
        let bindings = Bindings::new(k);
        let mut u = Uniform {
            k,
            uniform,
            thread_x: vec![false; n],
            thread_idx: vec![false; n],
        };
        let bound =
            |id: LocalId, f: &dyn Fn(&Expr) -> bool| bindings.values(id).is_some_and(|vs| vs.iter().all(|e| f(e)));
        // Locals are declared before they are used, so locals bound to
        // `thread_idx()` come first; two rounds let `let t = thread_idx();
        // let tx = t.x;` resolve whatever the ids' order.
        for id in 0..n {
            u.thread_idx[id] = bound(id, &|e| matches!(e.kind, ExprKind::Builtin(Builtin::ThreadIdx)));
        }
        for _ in 0..2 {
            for id in 0..n {
                if !u.thread_x[id] {
                    let tx = bound(id, &|e| u.is_thread_x(e));
                    u.thread_x[id] = tx;
                }
            }
        }
        u
    }

    /// `threadIdx.x`, an immutable local bound to it, or a cast of either to
    /// an integer type that holds every `threadIdx.x` (at most 1023).
    pub fn is_thread_x(&self, e: &Expr) -> bool {
        crate::stack::deep(|| match &e.kind {
            ExprKind::BuiltinAxis(Builtin::ThreadIdx, Axis::X) => true,
            ExprKind::Idx3Field(base, Axis::X) => match base.kind {
                ExprKind::Builtin(Builtin::ThreadIdx) => true,
                ExprKind::Local(id) => self.thread_idx[id],
                _ => false,
            },
            ExprKind::Local(id) => self.thread_x[*id],
            ExprKind::Cast(inner, to) => {
                matches!(
                    to,
                    Scalar::I16 | Scalar::U16 | Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 | Scalar::Usize
                ) && self.is_thread_x(inner)
            }
            _ => false,
        })
    }

    /// Whether `e` has the same value in every thread of the block and
    /// cannot fault (see the module docs); `extra` are further uniform locals.
    pub fn is_uniform(&self, e: &Expr, extra: &[LocalId]) -> bool {
        let local = |e: &Expr| match e.kind {
            ExprKind::Local(id) => self.uniform[id] || extra.contains(&id),
            _ => false,
        };
        fault_free_where(e, &|u| u == Uniformity::Block, &local)
    }

    /// Whether every expression in `exprs` is block-uniform and fault-free.
    pub fn all_uniform(&self, exprs: &[&Expr]) -> bool {
        exprs.iter().all(|e| self.is_uniform(e, &[]))
    }
}

/// Whether `e` is computed from the thread's and block's coordinates,
/// constants and extents alone and cannot fault (no local, load, division
/// or call).
pub fn coordinate_pure(e: &Expr) -> bool {
    fault_free_where(e, &|u| matches!(u, Uniformity::Block | Uniformity::Thread), &|_| false)
}
