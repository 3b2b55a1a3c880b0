//! The plan of a split kernel: its body as block-level control flow
//! (`if`/loops around barriers, votes) around barrier-free per-thread parts,
//! or `None` where it cannot be split.

use super::super::parts::{expr_locals, Uses};
use crate::model::visit::local_arrays_used;
use crate::model::visit::{expr_children, stmt_children, Child};
use crate::model::*;

/// A kernel body as block-level control flow around thread loops.
pub(super) enum Node<'k> {
    /// Barrier-free statements, run by every live thread in turn.
    Threads(Vec<&'k Stmt>),
    Barrier,
    /// `let local = syncthreads_count(pred);` (or `_and`/`_or`, or a vote
    /// whose value is dropped): a barrier that counts the threads' votes.
    Vote {
        local: Option<LocalId>,
        vote: Vote,
        pred: &'k Expr,
    },
    If {
        cond: &'k Expr,
        then: Vec<Node<'k>>,
        els: Vec<Node<'k>>,
        /// No barrier inside, but a `break`/`continue` out of a block-level
        /// loop: block-level only if `cond` is block-uniform (checked once
        /// the block-level locals are known), else the kernel is not split.
        leaves: bool,
    },
    /// A `Stmt::For` whose body holds a barrier.
    For {
        stmt: &'k Stmt,
        body: Vec<Node<'k>>,
    },
    While {
        cond: &'k Expr,
        body: Vec<Node<'k>>,
    },
    Loop(Vec<Node<'k>>),
    /// A `let` of, or an assignment to, a block-level local
    /// (`block_locals`): run once per block.
    Uniform(&'k Stmt),
    Scope(Vec<Node<'k>>),
    Break,
    Continue,
    Return,
}

/// Whether `s` holds a barrier: `syncthreads()` or a vote.
fn has_barrier(s: &Stmt) -> bool {
    has_block_barrier(s)
}

/// `e` as a vote whose predicate holds no barrier.
pub(super) fn as_vote(e: &Expr) -> Option<(Vote, &Expr)> {
    match &e.kind {
        ExprKind::Vote(v, p) if !expr_has_barrier(p) => Some((*v, p)),
        _ => None,
    }
}

fn expr_has_barrier(e: &Expr) -> bool {
    any_in_expr(e, |p| p.sync == SyncScope::Block)
}

/// Whether `s` holds a `break`/`continue` that leaves `s` itself (it targets
/// a loop around `s`).
fn breaks_out(s: &Stmt) -> bool {
    fn stmt(s: &Stmt, in_loop: bool) -> bool {
        crate::stack::deep(|| match s {
            Stmt::Break | Stmt::Continue => !in_loop,
            Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } => children(s, true),
            _ => children(s, in_loop),
        })
    }
    fn children(s: &Stmt, in_loop: bool) -> bool {
        let mut out = false;
        stmt_children(s, &mut |c| out |= child(c, in_loop));
        out
    }
    fn child(c: Child, in_loop: bool) -> bool {
        match c {
            Child::Block(b) => {
                b.stmts.iter().any(|s| stmt(s, in_loop)) || b.tail.as_ref().is_some_and(|e| expr(e, in_loop))
            }
            Child::Expr(e) => expr(e, in_loop),
        }
    }
    fn expr(e: &Expr, in_loop: bool) -> bool {
        crate::stack::deep(|| {
            let mut out = false;
            expr_children(e, &mut |c| out |= child(c, in_loop));
            out
        })
    }
    stmt(s, false)
}

/// Plans `b` (a block-level list of statements), or `None` if it cannot be
/// split.
fn flush<'k>(run: &mut Vec<&'k Stmt>, nodes: &mut Vec<Node<'k>>) {
    if !run.is_empty() {
        nodes.push(Node::Threads(std::mem::take(run)));
    }
}

pub(super) fn plan(b: &Block) -> Option<Vec<Node<'_>>> {
    if b.tail.is_some() {
        return None;
    }
    let mut nodes = Vec::new();
    let mut run: Vec<&Stmt> = Vec::new();
    for s in &b.stmts {
        match s {
            Stmt::Line(_) | Stmt::Shared(_) => {}
            Stmt::Break | Stmt::Continue | Stmt::Return => {
                flush(&mut run, &mut nodes);
                nodes.push(match s {
                    Stmt::Break => Node::Break,
                    Stmt::Continue => Node::Continue,
                    _ => Node::Return,
                });
            }
            Stmt::If { cond, then, els } if !has_barrier(s) && breaks_out(s) => {
                flush(&mut run, &mut nodes);
                nodes.push(plan_if(cond, then, els.as_ref(), true)?);
            }
            _ if !has_barrier(s) => {
                if breaks_out(s) {
                    return None;
                }
                run.push(s);
            }
            Stmt::Let { local, init: Some(e) } if as_vote(e).is_some() => {
                flush(&mut run, &mut nodes);
                let (vote, pred) = as_vote(e)?;
                nodes.push(Node::Vote {
                    local: Some(*local),
                    vote,
                    pred,
                });
            }
            Stmt::Expr(e) if as_vote(e).is_some() => {
                flush(&mut run, &mut nodes);
                let (vote, pred) = as_vote(e)?;
                nodes.push(Node::Vote {
                    local: None,
                    vote,
                    pred,
                });
            }
            Stmt::SyncThreads => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Barrier);
            }
            Stmt::If { cond, then, els } if !expr_has_barrier(cond) || as_vote(cond).is_some() => {
                flush(&mut run, &mut nodes);
                nodes.push(plan_if(cond, then, els.as_ref(), false)?);
            }
            Stmt::For {
                start, end, step, body, ..
            } if !expr_has_barrier(start) && !expr_has_barrier(end) && !step.as_ref().is_some_and(expr_has_barrier) => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::For {
                    stmt: s,
                    body: plan(body)?,
                });
            }
            Stmt::While { cond, body } if !expr_has_barrier(cond) || as_vote(cond).is_some() => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::While {
                    cond,
                    body: plan(body)?,
                });
            }
            Stmt::Loop { body } => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Loop(plan(body)?));
            }
            Stmt::Block(b) => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Scope(plan(b)?));
            }
            // A barrier inside an expression (an `if` used as a value).
            _ => return None,
        }
    }
    flush(&mut run, &mut nodes);
    Some(nodes)
}

/// Calls `f` on every node of `nodes`, however deep.
pub(super) fn walk<'a, 'k>(nodes: &'a [Node<'k>], f: &mut dyn FnMut(&'a Node<'k>)) {
    for n in nodes {
        f(n);
        match n {
            Node::If { then, els, .. } => {
                walk(then, f);
                walk(els, f);
            }
            Node::For { body, .. } | Node::While { body, .. } | Node::Loop(body) | Node::Scope(body) => walk(body, f),
            Node::Threads(_)
            | Node::Barrier
            | Node::Vote { .. }
            | Node::Uniform(_)
            | Node::Break
            | Node::Continue
            | Node::Return => {}
        }
    }
}

/// The block-level `if cond { then } else { els }`.
fn plan_if<'k>(cond: &'k Expr, then: &'k Block, els: Option<&'k Block>, leaves: bool) -> Option<Node<'k>> {
    Some(Node::If {
        cond,
        then: plan(then)?,
        els: match els {
            Some(e) => plan(e)?,
            None => Vec::new(),
        },
        leaves,
    })
}

impl Uses {
    /// The parts of plan `ns` (see `Uses::part_of`).
    pub(super) fn nodes(&mut self, ns: &[Node]) {
        for n in ns {
            match n {
                Node::Threads(stmts) => self.part_of(stmts, &[]),
                Node::If { cond, then, els, .. } => {
                    self.part_of(&[], &[cond]);
                    self.nodes(then);
                    self.nodes(els);
                }
                Node::For { stmt, body } => {
                    if let Stmt::For {
                        var, start, end, step, ..
                    } = stmt
                    {
                        let mut bounds = vec![start, end];
                        bounds.extend(step.iter());
                        self.part_of(&[], &bounds);
                        self.block_vars.push(*var);
                    }
                    self.nodes(body);
                }
                Node::While { cond, body } => {
                    self.part_of(&[], &[cond]);
                    self.nodes(body);
                }
                Node::Vote { local, pred, .. } => {
                    let mut ids = expr_locals(pred);
                    ids.extend(local.iter());
                    let mut arrays = Vec::new();
                    local_arrays_used(&Stmt::Expr((*pred).clone()), &mut arrays);
                    self.part_with_arrays(ids, arrays);
                }
                Node::Loop(body) | Node::Scope(body) => self.nodes(body),
                // Its locals are block-level (never spilled).
                Node::Uniform(_) => {}
                Node::Barrier | Node::Break | Node::Continue | Node::Return => {}
            }
        }
    }
}
