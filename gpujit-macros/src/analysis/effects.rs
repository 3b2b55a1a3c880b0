//! Rust evaluates operands and arguments left to right; C leaves the order of
//! `a + b` and `f(a, b)` unspecified. Where one operand has a side effect (an
//! atomic, a vote, a device-function call given an array) and another could observe it (reads
//! memory or has effects of its own), the CUDA emitter evaluates the operands
//! into temporaries in Rust's order first (`emit_cuda::order`).

use crate::model::{any_in_expr, BinOp, Expr, ExprKind};

/// Whether evaluating `e` may write memory or synchronise the block.
pub fn has_effects(e: &Expr) -> bool {
    any_in_expr(e, |p| p.effects)
}

/// Whether the value of `e` could depend on another operand's side effect
/// (locals cannot change inside an expression: only memory can).
pub fn observes_memory(e: &Expr) -> bool {
    any_in_expr(e, |p| p.reads_memory)
}

/// The operands of `e` in Rust's evaluation order, if C might evaluate them
/// in another order with a different result.
pub fn unordered_operands(e: &Expr) -> Option<Vec<&Expr>> {
    let ops: Vec<&Expr> = match &e.kind {
        // `&&` and `||` are sequenced in C too.
        ExprKind::Binary(BinOp::And | BinOp::Or, ..) => return None,
        ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Math(_, args) | ExprKind::Call(_, args) | ExprKind::Tuple(args) | ExprKind::Load(_, args) => {
            args.iter().collect()
        }
        // The element's indices, then the operands.
        ExprKind::Atomic(_, _, idx, vals) => idx.iter().chain(vals).collect(),
        _ => return None,
    };
    if ops.len() < 2 {
        return None;
    }
    let effects: Vec<bool> = ops.iter().map(|o| has_effects(o)).collect();
    let observes: Vec<bool> = ops.iter().map(|o| observes_memory(o)).collect();
    let clash = (0..ops.len()).any(|i| effects[i] && (0..ops.len()).any(|j| j != i && observes[j]));
    clash.then_some(ops)
}
