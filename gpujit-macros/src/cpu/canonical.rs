//! Canonical forms of a kernel for the CPU planner, so that its facts do
//! not depend on spelling: an immutable `let` of a block-uniform value is
//! that value (`uniform_lets`), a hand-computed `blockIdx.x * blockDim.x +
//! threadIdx.x` is `grid(1)`'s value and `blockDim.x * gridDim.x` is
//! `gridsize(1)`'s (`grid_indices`), and a counted loop
//! spelled as a `while` or `loop` is a `for`: the loop
//!
//! ```text
//! let mut i = a;
//! while i < n {      // or i <= n, n > i, n >= i; or
//!                    // `loop { if i >= n { break; } ..` (or `>`, ...)
//!     body;          // does not assign i, no `continue` of this loop
//!     i += s;        // or i = i + s
//! }                  // i not used after the loop
//! ```
//!
//! is `for i in (a..n).step_by(s) { body }` (`..=` for `<=`) whenever `s >
//! 0` and `n <= MAX - s` for `i`'s type: then `i < n` implies `i + s <= MAX`,
//! so the `while`'s wrapping `i += s` never wraps, and both loops visit `a,
//! a + s, ...` while below `n`. `n` and `s` must be block-uniform and unable
//! to fault (the facts of `Uniform::is_uniform`, after immutable `let`s are
//! replaced by their values: `let stride = gridsize(1);`), which also makes
//! them loop-invariant (no local they read is assigned, no memory is read),
//! so evaluating them once, before the loop, as the `for` does, gives every
//! value and fault the `while` would.
//!
//! Where the launch limits and the types prove `s > 0 && n <= MAX - s`
//! (`analysis::ranges`: an extent and `gridsize(1)` in `usize`), the CPU
//! backend's code is made from the rewritten kernel alone ([`proven`]).
//! Otherwise ([`guarded`]) the planner runs it behind one test per block of
//! every such loop's `s > 0 && n <= MAX - s` (for thread (0, 0, 0); the
//! values are uniform) and the kernel as written where the test fails, so
//! an overflowing or zero step keeps the `while`'s meaning: wrapping, or
//! looping forever. The CUDA C is unchanged: only the CPU backend sees the
//! `for`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::analysis::{ranges, Bindings, Uniform};
use crate::emit_cpu::{block_ident, thread_ident, Emitter};
use crate::model::visit::{expr_children, locals_used, Child};
use crate::model::*;

/// A kernel with its canonical `while` loops rewritten as `for` loops, and
/// the test under which the rewrite means what the kernel says.
pub(super) struct Canonical {
    pub(super) kernel: Kernel,
    /// Per rewritten loop that needs one, its test's terms.
    guards: Vec<Guard>,
}

/// `i`'s type, `n` and `s` of a rewritten loop (immutable `let`s replaced
/// by their values): the test is `s > 0 && n <= MAX - s`.
type Guard = (Scalar, Expr, Expr);

/// One canonical loop: the `while`'s index, the `for` that replaces it
/// (the `let` before it goes), the test it needs, if any, and `i`.
struct Counted {
    at: usize,
    for_loop: Stmt,
    guard: Option<Guard>,
    var: LocalId,
}

/// `k` with each canonical `while` whose `s > 0 && n <= MAX - s` holds for
/// every launch (`analysis::ranges`: `while i < y.len() { ..; i +=
/// gridsize(1) }` in `usize`) as a `for`, or `None` if it has none. The
/// CPU backend's code is made from this kernel, whichever path runs.
pub(super) fn proven(k: &Kernel) -> Option<Kernel> {
    let valued = uniform_lets(k);
    let indexed = match grid_indices(valued.as_ref().unwrap_or(k)) {
        Some(i) => Some(i),
        None => valued,
    };
    let k = indexed.as_ref().unwrap_or(k);
    match rewrite(k, true) {
        Some(c) => {
            debug_assert!(c.guards.is_empty());
            Some(c.kernel)
        }
        None => indexed,
    }
}

/// `k` with each read of an immutable local bound once by a `let` (or a
/// component of a tuple `let`) to a block-uniform value that cannot fault
/// (`let stride = block_dim().x * grid_dim().x;`, `let (n, k) = a.dim();`)
/// replaced by that value, or `None`
/// if it has none. The value is the same wherever it is computed (no
/// memory, no mutable local, no thread coordinate), so the planners'
/// uniformity facts (`Uniform`) hold for it whichever way it is spelled.
fn uniform_lets(k: &Kernel) -> Option<Kernel> {
    let bindings = Bindings::new(k);
    let uniform = Uniform::new(k, &[]);
    // In declaration order, each value with the earlier ones substituted.
    let mut values: Vec<Option<Expr>> = vec![None; k.locals.len()];
    let mut any = false;
    for id in 0..k.locals.len() {
        let Some(v) = bindings.value(id) else {
            continue;
        };
        if !matches!(v.ty, Ty::Scalar(_)) {
            continue;
        }
        let mut v = v.clone();
        substitute(&mut v, &values);
        // A chain of `let`s can double a value's size at each step
        // (`let b = a + a;`): past the cap the local stays a local, which
        // costs a planner fact, never a wrong one.
        if nodes(&v) > MAX_VALUE_NODES {
            continue;
        }
        if uniform.is_uniform(&v, &[]) {
            values[id] = Some(v);
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut out = k.clone();
    crate::model::visit::each_expr_mut(&mut out.body, &mut |e| replace(e, &values));
    Some(out)
}

/// The most expression nodes a substituted `let` value may have.
const MAX_VALUE_NODES: usize = 64;

/// How many expression nodes `e` has.
fn nodes(e: &Expr) -> usize {
    let mut n = 0;
    crate::model::visit::each_expr_in_expr(e, &mut |_| n += 1);
    n
}

/// `e` with each local that `values` gives a value replaced by it.
fn substitute(e: &mut Expr, values: &[Option<Expr>]) {
    crate::model::visit::each_expr_mut_in_expr(e, &mut |x| replace(x, values));
}

/// `x` replaced by its value if it is a local that `values` gives one.
fn replace(x: &mut Expr, values: &[Option<Expr>]) {
    if let ExprKind::Local(id) = x.kind {
        if let Some(v) = &values[id] {
            *x = v.clone();
        }
    }
}

/// `k` with each hand-computed global index `blockIdx.a * blockDim.a +
/// threadIdx.a` (in `usize`, in any order of the operands) as `grid(..)`'s
/// component `a`, which is that value (it cannot wrap: below 2⁴¹), or
/// `None` if it has none. The planners' facts about `grid(1)` (own
/// indices, grid-stride partitions) then hold for either spelling.
fn grid_indices(k: &Kernel) -> Option<Kernel> {
    let bindings = Bindings::new(k);
    let mut out = k.clone();
    let mut any = false;
    crate::model::visit::each_expr_mut(&mut out.body, &mut |e| {
        if let Some(a) = grid_index(&bindings, e) {
            e.kind = ExprKind::Grid(a);
            any = true;
        } else if let Some(a) = grid_size(&bindings, e) {
            e.kind = ExprKind::GridSize(a);
            any = true;
        }
    });
    any.then_some(out)
}

/// The builtin's axis if `x` is `want`'s component in `usize` (directly,
/// `thread_idx().x`, or through an immutable `let`).
fn builtin_axis(bindings: &Bindings, x: &Expr, want: Builtin) -> Option<Axis> {
    let usize_ty = |x: &Expr| x.ty == Ty::Scalar(Scalar::Usize);
    let x = match x.kind {
        ExprKind::Local(id) if usize_ty(x) => bindings.let_value(id)?,
        _ => x,
    };
    match &x.kind {
        ExprKind::BuiltinAxis(b, axis) if *b == want && usize_ty(x) => Some(*axis),
        ExprKind::Idx3Field(base, axis) if matches!(base.kind, ExprKind::Builtin(b) if b == want) && usize_ty(x) => {
            Some(*axis)
        }
        _ => None,
    }
}

/// The axis of `e` if it is `blockDim.a * gridDim.a` in `usize` (either
/// order): `gridsize(..)`'s component `a`, which is that value.
fn grid_size(bindings: &Bindings, e: &Expr) -> Option<Axis> {
    let ExprKind::Binary(BinOp::Mul, x, y) = &e.kind else {
        return None;
    };
    if e.ty != Ty::Scalar(Scalar::Usize) {
        return None;
    }
    [(x, y), (y, x)].into_iter().find_map(|(d, g)| {
        let axis = builtin_axis(bindings, d, Builtin::BlockDim)?;
        (builtin_axis(bindings, g, Builtin::GridDim)? == axis).then_some(axis)
    })
}

/// The axis of `e` if it is `blockIdx.a * blockDim.a + threadIdx.a` in
/// `usize` (`+` and `*` either way round), each operand directly or
/// through an immutable `let` (`let t = thread_idx().x;`).
fn grid_index(bindings: &Bindings, e: &Expr) -> Option<Axis> {
    let usize_ty = |x: &Expr| x.ty == Ty::Scalar(Scalar::Usize);
    let ExprKind::Binary(BinOp::Add, a, b) = &e.kind else {
        return None;
    };
    if ![e, a, b].iter().all(|x| usize_ty(x)) {
        return None;
    }
    let builtin = |x: &Expr, want: Builtin| builtin_axis(bindings, x, want);
    let offset = |p: &Expr| match &p.kind {
        ExprKind::Binary(BinOp::Mul, x, y) if usize_ty(x) && usize_ty(y) => {
            match (builtin(x, Builtin::BlockIdx), builtin(y, Builtin::BlockDim)) {
                (Some(i), Some(d)) if i == d => Some(i),
                _ => match (builtin(y, Builtin::BlockIdx), builtin(x, Builtin::BlockDim)) {
                    (Some(i), Some(d)) if i == d => Some(i),
                    _ => None,
                },
            }
        }
        _ => None,
    };
    [(a, b), (b, a)].into_iter().find_map(|(p, t)| {
        let axis = offset(p)?;
        (builtin(t, Builtin::ThreadIdx)? == axis).then_some(axis)
    })
}

/// `k` with every canonical `while` as a `for`, and the test for those
/// not [`proven`]; `None` if it has none.
pub(super) fn guarded(k: &Kernel) -> Option<Canonical> {
    rewrite(k, false)
}

fn rewrite(k: &Kernel, proven_only: bool) -> Option<Canonical> {
    let facts = Facts {
        k,
        bindings: Bindings::new(k),
        uniform: Uniform::new(k, &[]),
        proven_only,
    };
    let mut kernel = k.clone();
    let mut guards = Vec::new();
    let mut vars = Vec::new();
    facts.block(&mut kernel.body, &mut guards, &mut vars);
    if vars.is_empty() {
        return None;
    }
    for v in vars {
        kernel.locals[v].mutable = false;
    }
    Some(Canonical { kernel, guards })
}

impl Canonical {
    /// The block-level test that selects the rewritten kernel: every loop's
    /// `s > 0 && n <= MAX - s`, evaluated once for thread (0, 0, 0).
    pub(super) fn guard(&self) -> TokenStream {
        let (blk, t) = (block_ident(), thread_ident());
        let em = Emitter::new(&self.kernel);
        let tests = self.guards.iter().map(|(ty, n, s)| {
            let ty = crate::emit_cpu::ident(ty.rust_name());
            let (n, s) = (em.expr(n), em.expr(s));
            let (vn, vs) = (
                Ident::new("gj_end", Span::mixed_site()),
                Ident::new("gj_step", Span::mixed_site()),
            );
            // Parenthesised: a block first in a statement would end there.
            quote! { ({ let #vn: #ty = #n; let #vs: #ty = #s; #vs > 0 && #vn <= #ty::MAX - #vs }) }
        });
        let all = tests
            .reduce(|a, b| quote! { #a && #b })
            .unwrap_or_else(|| quote! { true });
        quote! { #blk.uniform_value(|#t| { #all }) }
    }
}

struct Facts<'k> {
    k: &'k Kernel,
    bindings: Bindings<'k>,
    uniform: Uniform<'k>,
    /// Rewrite only the loops that need no test.
    proven_only: bool,
}

impl Facts<'_> {
    /// Rewrites the canonical loops of `b` and of the blocks nested in its
    /// statements.
    fn block(&self, b: &mut Block, guards: &mut Vec<Guard>, vars: &mut Vec<LocalId>) {
        let mut j = 0;
        while j < b.stmts.len() {
            if let Some(c) = self.canonical(&b.stmts, j, b.tail.as_ref()) {
                b.stmts[c.at] = c.for_loop;
                b.stmts.remove(j);
                guards.extend(c.guard);
                vars.push(c.var);
            }
            match &mut b.stmts[j] {
                Stmt::If { then, els, .. } => {
                    self.block(then, guards, vars);
                    if let Some(e) = els {
                        self.block(e, guards, vars);
                    }
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body } | Stmt::Block(body) => {
                    self.block(body, guards, vars)
                }
                Stmt::Let { .. }
                | Stmt::LetTuple { .. }
                | Stmt::Shared(_)
                | Stmt::LocalArray { .. }
                | Stmt::Assign { .. }
                | Stmt::Expr(_)
                | Stmt::Break
                | Stmt::Continue
                | Stmt::Return
                | Stmt::ReturnValue(_)
                | Stmt::SyncThreads
                | Stmt::Fence(_)
                | Stmt::Line(_) => {}
            }
            j += 1;
        }
    }

    /// The `let mut i = a;` at `stmts[j]` and the `while` after it (past
    /// line markers) as one `for`; `None` unless the pair is canonical.
    fn canonical(&self, stmts: &[Stmt], j: usize, tail: Option<&Expr>) -> Option<Counted> {
        let Stmt::Let {
            local: i,
            init: Some(a),
        } = &stmts[j]
        else {
            return None;
        };
        let i = *i;
        let local = &self.k.locals[i];
        let ty = match local.ty {
            Ty::Scalar(s) if s.is_int() && local.mutable => s,
            _ => return None,
        };
        let w = j + 1 + stmts[j + 1..].iter().take_while(|s| matches!(s, Stmt::Line(_))).count();
        let is_i = |e: &Expr| matches!(e.kind, ExprKind::Local(id) if id == i);
        let (inclusive, end, body) = match stmts.get(w)? {
            Stmt::While { cond, body } if body.tail.is_none() => {
                let (inclusive, end) = match &cond.kind {
                    ExprKind::Binary(BinOp::Lt, x, n) if is_i(x) => (false, &**n),
                    ExprKind::Binary(BinOp::Le, x, n) if is_i(x) => (true, &**n),
                    ExprKind::Binary(BinOp::Gt, n, x) if is_i(x) => (false, &**n),
                    ExprKind::Binary(BinOp::Ge, n, x) if is_i(x) => (true, &**n),
                    _ => return None,
                };
                (inclusive, end, &body.stmts[..])
            }
            // `loop { if i >= n { break; } ..; i += s; }`
            Stmt::Loop { body } if body.tail.is_none() => {
                let first = body.stmts.iter().position(|s| !matches!(s, Stmt::Line(_)))?;
                let Stmt::If { cond, then, els: None } = &body.stmts[first] else {
                    return None;
                };
                let breaks = then.tail.is_none()
                    && matches!(
                        then.stmts
                            .iter()
                            .filter(|s| !matches!(s, Stmt::Line(_)))
                            .collect::<Vec<_>>()[..],
                        [Stmt::Break]
                    );
                if !breaks {
                    return None;
                }
                let (inclusive, end) = match &cond.kind {
                    ExprKind::Binary(BinOp::Ge, x, n) if is_i(x) => (false, &**n),
                    ExprKind::Binary(BinOp::Gt, x, n) if is_i(x) => (true, &**n),
                    ExprKind::Binary(BinOp::Le, n, x) if is_i(x) => (false, &**n),
                    ExprKind::Binary(BinOp::Lt, n, x) if is_i(x) => (true, &**n),
                    _ => return None,
                };
                (inclusive, end, &body.stmts[first + 1..])
            }
            _ => return None,
        };
        let last = body.iter().rposition(|s| !matches!(s, Stmt::Line(_)))?;
        let step = match &body[last] {
            Stmt::Assign {
                place: Place::Local(id),
                op: Some(BinOp::Add),
                value,
            } if *id == i => value,
            Stmt::Assign {
                place: Place::Local(id),
                op: None,
                value:
                    Expr {
                        kind: ExprKind::Binary(BinOp::Add, x, s),
                        ..
                    },
            } if *id == i && is_i(x) => &**s,
            _ => return None,
        };
        let rest = &body[..last];
        if rest.iter().any(|s| assigns(s, i)) || rest.iter().any(continues) {
            return None;
        }
        // `i` is dead after the loop (the `for`'s variable ends with it).
        let mut after = Vec::new();
        stmts[w + 1..].iter().for_each(|s| locals_used(s, &mut after));
        if after.contains(&i) || tail.is_some_and(|t| mentions(t, i)) {
            return None;
        }
        let (n, s) = (self.inlined(end, 0)?, self.inlined(step, 0)?);
        if !self.uniform.is_uniform(&n, &[]) || !self.uniform.is_uniform(&s, &[]) {
            return None;
        }
        // `i < n` (or `<=`) and `i += s` cannot wrap: `s > 0`, `n + s <= MAX`.
        let max = ranges::type_range(ty)?.1;
        let proven = match (ranges::range(self.k, &n), ranges::range(self.k, &s)) {
            (Some((_, n_hi)), Some((s_lo, s_hi))) => s_lo > 0 && n_hi + s_hi <= max,
            _ => false,
        };
        if self.proven_only && !proven {
            return None;
        }
        // A step of 1 is the plain range (`a..n`), which planners treat as
        // a unit-stride loop.
        let one = matches!(step.kind, ExprKind::Lit(Lit::Int(1)));
        let usize_step = if one {
            None
        } else if ty == Scalar::Usize {
            Some(step.clone())
        } else {
            Some(Expr {
                kind: ExprKind::Cast(Box::new(step.clone()), Scalar::Usize),
                ty: Ty::Scalar(Scalar::Usize),
                span: step.span,
            })
        };
        let body = Block {
            stmts: rest.to_vec(),
            tail: None,
        };
        let for_loop = Stmt::For {
            var: i,
            start: a.clone(),
            end: end.clone(),
            inclusive,
            step: usize_step,
            rev: false,
            body,
            // The CUDA C's names; this kernel is only emitted for the CPU.
            aux: ["end", "step", "done"].map(|w| format!("{}_{w}", local.name)),
        };
        Some(Counted {
            at: w,
            for_loop,
            guard: (!proven).then_some((ty, n, s)),
            var: i,
        })
    }

    /// `e` with each immutable local bound once by a `let` replaced by
    /// its value (so that `Uniform` can judge it); `None` past a depth
    /// of 16.
    fn inlined(&self, e: &Expr, depth: usize) -> Option<Expr> {
        if depth > 16 {
            return None;
        }
        if let ExprKind::Local(id) = e.kind {
            return match self.bindings.let_value(id) {
                Some(v) => self.inlined(v, depth + 1),
                None => Some(e.clone()),
            };
        }
        let mut out = e.clone();
        let mut ok = true;
        each_child_mut(&mut out, &mut |c| match self.inlined(c, depth + 1) {
            Some(x) => *c = x,
            None => ok = false,
        });
        ok.then_some(out)
    }
}

/// Calls `f` on each direct scalar sub-expression of `e` that
/// `Uniform::is_uniform` may admit (operators, casts, math); an expression
/// with blocks inside is left alone (`is_uniform` refuses it).
fn each_child_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) => f(a),
        ExprKind::Binary(_, a, b) => {
            f(a);
            f(b);
        }
        ExprKind::Math(_, args) => args.iter_mut().for_each(f),
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::ExternConst(_)
        | ExprKind::BodyConst(_)
        | ExprKind::Load(..)
        | ExprKind::Len(_)
        | ExprKind::Dim(..)
        | ExprKind::Grid(_)
        | ExprKind::GridSize(_)
        | ExprKind::Builtin(_)
        | ExprKind::BuiltinAxis(..)
        | ExprKind::Idx3Field(..)
        | ExprKind::Intrinsic(_)
        | ExprKind::If(..)
        | ExprKind::Vote(..)
        | ExprKind::Warp(..)
        | ExprKind::Atomic(..)
        | ExprKind::Call(..)
        | ExprKind::ArrayArg(_)
        | ExprKind::Tuple(_)
        | ExprKind::TupleField(..) => {}
    }
}

fn mentions(e: &Expr, var: LocalId) -> bool {
    let mut found = false;
    crate::model::visit::each_expr_in_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Local(id) if id == var));
    found
}

/// Whether `s` assigns local `var`, however deep.
fn assigns(s: &Stmt, var: LocalId) -> bool {
    let mut found = false;
    crate::model::visit::each_stmt(s, &mut |s| {
        found |= matches!(s, Stmt::Assign { place: Place::Local(id), .. } if *id == var);
    });
    found
}

/// Whether `s` holds a `continue` of the loop around it (one not inside a
/// loop of its own).
fn continues(s: &Stmt) -> bool {
    match s {
        Stmt::Continue => true,
        Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } => false,
        _ => {
            let mut found = false;
            crate::model::visit::stmt_children(s, &mut |c| found |= child_continues(c));
            found
        }
    }
}

fn child_continues(c: Child<'_>) -> bool {
    match c {
        Child::Block(b) => {
            b.stmts.iter().any(continues) || b.tail.as_ref().is_some_and(|t| child_continues(Child::Expr(t)))
        }
        Child::Expr(e) => {
            let mut found = false;
            expr_children(e, &mut |c| found |= child_continues(c));
            found
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(src: &str) -> Kernel {
        let f: syn::ItemFn = syn::parse_str(src).expect("test kernel parses");
        crate::lower::lower_kernel(&f, &mut Default::default()).expect("test kernel lowers")
    }

    fn fors(k: &Kernel) -> usize {
        let mut n = 0;
        crate::model::visit::each_stmt_in_block(&k.body, &mut |s| n += usize::from(matches!(s, Stmt::For { .. })));
        n
    }

    #[test]
    fn a_while_is_a_for_without_a_test_only_where_it_cannot_wrap() {
        // usize: the extent plus the grid fits; u32 with `n` a parameter
        // may wrap; `i` read after the loop; a thread-dependent step.
        let k = kernel(
            "fn k(y: &mut [f32], n: u32, out: &mut [usize]) {
                let mut i = block_idx().x * block_dim().x + thread_idx().x;
                while i < y.len() { y[i] = 1.0; i += gridsize(1); }
                let mut j = thread_idx().x as u32;
                while j < n { y[j as usize] = 2.0; j = j + 7; }
                let mut m = grid(1);
                while m < y.len() { m += gridsize(1); }
                out[grid(1)] = m;
                let mut q = grid(1);
                loop { if q >= y.len() { break; } y[q] = 3.0; q += thread_idx().x + 1; }
            }",
        );
        let proven = proven(&k).expect("the first loop needs no test");
        assert_eq!(fors(&proven), 1);
        // The hand-computed index is `grid(1)`.
        let starts_at_grid = |s: &Stmt| {
            matches!(
                s,
                Stmt::For {
                    start: Expr {
                        kind: ExprKind::Grid(Axis::X),
                        ..
                    },
                    ..
                }
            )
        };
        assert!(proven.body.stmts.iter().any(starts_at_grid));
        let guarded = guarded(&proven).expect("the u32 loop runs behind a test");
        assert_eq!(fors(&guarded.kernel), 2);
        assert_eq!(guarded.guards.len(), 1);
        assert_eq!(guarded.guards[0].0, Scalar::U32);
    }

    /// A chain of `let`s that doubles a value's size at each step is
    /// substituted while the value is small, and stops at the cap (it would
    /// be 2^40 nodes at the end).
    #[test]
    fn substituted_values_stay_small() {
        let mut src = String::from("fn k(y: &mut [usize]) { let a0 = y.len();");
        for i in 1..=40 {
            src.push_str(&format!(" let a{i} = a{} + a{};", i - 1, i - 1));
        }
        src.push_str(" y[grid(1)] = a40; }");
        let k = kernel(&src);
        let valued = uniform_lets(&k).expect("the first lets are values");
        let mut largest = 0;
        crate::model::visit::each_stmt_in_block(&valued.body, &mut |s| {
            if let Stmt::Let { init: Some(v), .. } = s {
                largest = largest.max(nodes(v));
            }
        });
        assert!(largest <= 2 * MAX_VALUE_NODES + 1, "{largest} nodes");
        assert!(
            largest > MAX_VALUE_NODES / 2,
            "{largest} nodes: nothing was substituted"
        );
    }
}
