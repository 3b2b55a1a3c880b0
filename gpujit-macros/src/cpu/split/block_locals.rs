//! Block-level mutable locals: a `let mut` of a split kernel that holds the
//! same value in every thread at every point lives once per block, not in a
//! per-thread array, and its statements run once per block.
//!
//! The textbook reduction's `let mut stride = block_dim().x / 2; while
//! stride > 0 { ..; syncthreads(); stride /= 2; }` is the case this serves:
//! with `stride` block-level, the `while` condition is evaluated once per
//! block and `if tid < stride { .. }` is a narrowed loop, as with the
//! `for level in ..` spelling.
//!
//! A local is block-level when, as a fact about the plan, not a spelling:
//! - it is a mutable scalar local (not a parameter) whose every binding is
//!   its `let` (with a value) or an assignment, each a statement of a
//!   per-thread part itself, not nested in that part's `if`s or loops, so
//!   that control reaching it is block-uniform (the block-level `if`s and
//!   loops around a part are checked to agree in every thread);
//! - each of those values is block-uniform and cannot fault, given the
//!   other block-level locals (`analysis::Uniform`; a compound assignment
//!   `x op= v` is judged as `x op v`);
//! - within each part, its statements can be moved to the part's start or
//!   end unobserved: no other statement of the part on the far side of one
//!   of them names a block-level local. They are pure (no memory, no fault),
//!   so moving them past the part's other statements changes nothing.
//!
//! A thread that returned earlier does not observe the value, so running
//! the statements once per block matches every live thread.

use super::plan::{walk, Node};
use crate::analysis::{Bindings, Uniform};
use crate::model::visit::locals_used;
use crate::model::*;

/// The block-level locals of plan `nodes`, and the plan with their
/// statements moved out of the per-thread parts into `Node::Uniform`s.
pub(super) fn hoist<'k>(k: &'k Kernel, nodes: Vec<Node<'k>>) -> (Vec<LocalId>, Vec<Node<'k>>) {
    let mut sites: Vec<Vec<&Stmt>> = vec![Vec::new(); k.locals.len()];
    let mut for_vars = Vec::new();
    walk(&nodes, &mut |n| match n {
        Node::Threads(stmts) => {
            for s in stmts {
                if let Some(id) = site_of(s) {
                    sites[id].push(s);
                }
            }
        }
        Node::For {
            stmt: Stmt::For { var, .. },
            ..
        } => for_vars.push(*var),
        _ => {}
    });
    let bindings = Bindings::new(k);
    let mut chosen: Vec<LocalId> = (0..k.locals.len())
        .filter(|&id| {
            let l = &k.locals[id];
            let param = k.params.iter().any(|p| p.name == l.name);
            let one_let = sites[id]
                .iter()
                .filter(|s| matches!(s, Stmt::Let { init: Some(_), .. }))
                .count()
                == 1;
            l.mutable && matches!(l.ty, Ty::Scalar(_)) && !param && one_let && bindings.count(id) == sites[id].len()
        })
        .collect();
    let uniform = Uniform::new(k, &for_vars);
    loop {
        let before = chosen.len();
        let kept = chosen.clone();
        chosen.retain(|&id| sites[id].iter().all(|s| uniform_site(k, &uniform, s, &kept)));
        if chosen.len() == before {
            drop_unmovable(&nodes, &mut chosen);
        }
        if chosen.len() == before {
            break;
        }
    }
    let nodes = if chosen.is_empty() {
        nodes
    } else {
        rewrite(nodes, &chosen)
    };
    (chosen, nodes)
}

/// The local `s` binds, if it is a `let` with a value or an assignment to a
/// local.
fn site_of(s: &Stmt) -> Option<LocalId> {
    match s {
        Stmt::Let { local, init: Some(_) } => Some(*local),
        Stmt::Assign {
            place: Place::Local(id),
            ..
        } => Some(*id),
        _ => None,
    }
}

/// Whether site `s` gives its local a block-uniform value that cannot
/// fault, the locals of `chosen` taken as block-uniform.
fn uniform_site(k: &Kernel, u: &Uniform, s: &Stmt, chosen: &[LocalId]) -> bool {
    match s {
        Stmt::Let { init: Some(e), .. } => u.is_uniform(e, chosen),
        Stmt::Assign {
            place: Place::Local(_),
            op: None,
            value,
        } => u.is_uniform(value, chosen),
        Stmt::Assign {
            place: Place::Local(id),
            op: Some(op),
            value,
        } => {
            let whole = Expr {
                kind: ExprKind::Binary(
                    *op,
                    Box::new(Expr {
                        kind: ExprKind::Local(*id),
                        ty: k.locals[*id].ty,
                        span: value.span,
                    }),
                    Box::new(value.clone()),
                ),
                ty: k.locals[*id].ty,
                span: value.span,
            };
            u.is_uniform(&whole, chosen)
        }
        _ => false,
    }
}

/// Removes from `chosen` the locals of every part whose statements of
/// chosen locals cannot all move to the part's start or end.
fn drop_unmovable(nodes: &[Node], chosen: &mut Vec<LocalId>) {
    let mut drop = Vec::new();
    walk(nodes, &mut |n| {
        if let Node::Threads(stmts) = n {
            if side(stmts, chosen).is_none() {
                drop.extend(stmts.iter().filter_map(|s| site_of(s)));
            }
        }
    });
    chosen.retain(|id| !drop.contains(id));
}

/// Where the chosen locals' statements of part `stmts` move: `Some(true)`
/// to its start, `Some(false)` to its end (also when it has none), `None`
/// where another statement names a chosen local on the far side of one.
fn side(stmts: &[&Stmt], chosen: &[LocalId]) -> Option<bool> {
    let is_site = |s: &Stmt| site_of(s).is_some_and(|id| chosen.contains(&id));
    let names_chosen = |s: &Stmt| {
        let mut ids = Vec::new();
        locals_used(s, &mut ids);
        ids.iter().any(|id| chosen.contains(id))
    };
    let (Some(first), Some(last)) = (
        stmts.iter().position(|s| is_site(s)),
        stmts.iter().rposition(|s| is_site(s)),
    ) else {
        return Some(false);
    };
    let others = |r: &[&Stmt]| r.iter().any(|s| !is_site(s) && names_chosen(s));
    if !others(&stmts[..last]) {
        Some(true)
    } else if !others(&stmts[first..]) {
        Some(false)
    } else {
        None
    }
}

/// `nodes` with each part's statements of `chosen` locals moved out of it,
/// before or after the part's other statements (see [`side`]).
fn rewrite<'k>(nodes: Vec<Node<'k>>, chosen: &[LocalId]) -> Vec<Node<'k>> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::Threads(stmts) => {
                let at_start = side(&stmts, chosen) == Some(true);
                let (hoisted, rest): (Vec<&Stmt>, Vec<&Stmt>) = stmts
                    .into_iter()
                    .partition(|s| site_of(s).is_some_and(|id| chosen.contains(&id)));
                let hoisted = hoisted.into_iter().map(Node::Uniform);
                let rest = (!rest.iter().all(|s| matches!(s, Stmt::Line(_)))).then_some(Node::Threads(rest));
                if at_start {
                    out.extend(hoisted);
                    out.extend(rest);
                } else {
                    out.extend(rest);
                    out.extend(hoisted);
                }
            }
            Node::If {
                cond,
                then,
                els,
                leaves,
            } => out.push(Node::If {
                cond,
                then: rewrite(then, chosen),
                els: rewrite(els, chosen),
                leaves,
            }),
            Node::For { stmt, body } => out.push(Node::For {
                stmt,
                body: rewrite(body, chosen),
            }),
            Node::While { cond, body } => out.push(Node::While {
                cond,
                body: rewrite(body, chosen),
            }),
            Node::Loop(body) => out.push(Node::Loop(rewrite(body, chosen))),
            Node::Scope(body) => out.push(Node::Scope(rewrite(body, chosen))),
            n @ (Node::Barrier
            | Node::Vote { .. }
            | Node::Warp { .. }
            | Node::Uniform(_)
            | Node::Break
            | Node::Continue
            | Node::Return) => out.push(n),
        }
    }
    out
}
