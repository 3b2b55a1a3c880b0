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
    /// A statement around one warp intrinsic (`as_meeting`): every live
    /// thread evaluates the call, the lanes of each warp exchange their
    /// values at once (`Block::warp_exchange`), then every live thread runs
    /// the statement with the call giving its result.
    Warp {
        stmt: &'k Stmt,
        call: &'k Expr,
    },
    /// A `let` of, or an assignment to, a block-level local
    /// (`block_locals`): run once per block.
    Uniform(&'k Stmt),
    Scope(Vec<Node<'k>>),
    Break,
    Continue,
    Return,
}

/// Whether `s` holds a point where threads wait for others: a barrier
/// (`syncthreads()` or a vote) or a warp intrinsic.
fn has_barrier(s: &Stmt) -> bool {
    has_block_barrier(s) || any_expr_in_stmt(s, |p| p.sync == SyncScope::Warp)
}

/// The warp intrinsic of `s` where `s` can be a warp meeting (`Node::Warp`):
/// a `let`, an assignment or an expression statement around exactly one
/// warp intrinsic, evaluated unconditionally, whose arguments wait for no
/// thread and whose value arguments are scalars, with every other operand
/// of `s` pure (no memory read, effect or fault; a stored element's indices
/// too). Then evaluating the call's arguments in one thread loop and the
/// rest of `s` in a second, after the exchange, runs each thread's
/// accesses in its own order, with nothing observable moved across the
/// exchange.
pub(super) fn as_meeting(s: &Stmt) -> Option<&Expr> {
    let value = match s {
        Stmt::Let { init: Some(e), .. } | Stmt::Expr(e) => e,
        Stmt::Assign {
            place: Place::Local(_),
            value,
            ..
        } => value,
        Stmt::Assign {
            place: Place::Elem(_, idx),
            value,
            ..
        } if idx.iter().all(|i| pure_around(i, &mut None)) => value,
        _ => return None,
    };
    let mut call = None;
    if pure_around(value, &mut call) {
        call
    } else {
        None
    }
}

/// Whether `e` is pure but for at most one warp intrinsic (then `call`),
/// evaluated whenever `e` is (not under `&&`, `||` or a block).
fn pure_around<'k>(e: &'k Expr, call: &mut Option<&'k Expr>) -> bool {
    crate::stack::deep(|| {
        if let ExprKind::Warp(f, args) = &e.kind {
            let args_ok = f.spec().args.iter().zip(args).all(|((kind, _), a)| {
                !any_in_expr(a, |p| p.sync != SyncScope::None)
                    && (*kind != WarpArg::Value || matches!(a.ty, Ty::Scalar(_)))
            });
            return call.replace(e).is_none() && args_ok;
        }
        let p = expr_props(e);
        if p.may_fault || p.effects || p.reads_memory || p.sync != SyncScope::None {
            return false;
        }
        let conditional = matches!(e.kind, ExprKind::Binary(BinOp::And | BinOp::Or, ..));
        if conditional && any_in_expr(e, |p| p.sync == SyncScope::Warp) {
            return false;
        }
        let mut ok = true;
        expr_children(e, &mut |c| {
            ok &= match c {
                Child::Expr(x) => pure_around(x, call),
                Child::Block(_) => false,
            }
        });
        ok
    })
}

/// `e` as a vote whose predicate holds no barrier.
pub(super) fn as_vote(e: &Expr) -> Option<(Vote, &Expr)> {
    match &e.kind {
        ExprKind::Vote(v, p) if !expr_has_barrier(p) => Some((*v, p)),
        _ => None,
    }
}

fn expr_has_barrier(e: &Expr) -> bool {
    any_in_expr(e, |p| matches!(p.sync, SyncScope::Block | SyncScope::Warp))
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
            _ if as_meeting(s).is_some() => {
                flush(&mut run, &mut nodes);
                nodes.push(Node::Warp {
                    stmt: s,
                    call: as_meeting(s)?,
                });
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
            | Node::Warp { .. }
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
                // The gather loop reads a subset of the statement's locals.
                Node::Warp { stmt, .. } => self.part_of(&[stmt], &[]),
                // Its locals are block-level (never spilled).
                Node::Uniform(_) => {}
                Node::Barrier | Node::Break | Node::Continue | Node::Return => {}
            }
        }
    }
}
