//! What each construct of the kernel language is, stated once: whether it
//! synchronises threads, writes or reads memory, may fault, lets a thread
//! tell which block or thread it is, has the same value in every thread of
//! a block, and how it leaves its statement.
//!
//! Every planner of the CPU backend (split, lockstep, spans, merged runs)
//! and the CUDA emitter's evaluation order ask these functions instead of
//! listing expression kinds of their own. The matches are exhaustive, with
//! no `_` arm: a new construct does not compile until it says what it is
//! here, and the planners take it from there. (CubeCL states an op's
//! traits beside its definition the same way.)
//!
//! Each function describes one node, not its sub-expressions; walk with
//! `crate::model::visit` (or the `any_*` helpers here) for the whole tree.

use super::*;

/// Which threads a construct waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncScope {
    /// None: each thread runs on.
    None,
    /// Every thread of the block (`syncthreads()`, the block votes).
    Block,
    /// The lanes of the thread's warp named in a mask (the warp
    /// intrinsics): the CPU backend runs such a kernel on the coroutine
    /// path, whose scheduler exchanges the lanes' values.
    Warp,
    /// Whatever the called device function does: known only when the whole
    /// program is linked, so the CPU backend decides at run time (a
    /// reachable barrier runs the kernel on the coroutine path).
    Callee,
}

/// Whether a value is the same in every thread of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uniformity {
    /// The same in every thread of a block: constants, extents, `blockIdx`,
    /// `blockDim`, `gridDim`, `gridsize(..)`.
    Block,
    /// Computed from the thread's own coordinates (`threadIdx`, `grid(..)`):
    /// differs between threads, but is known without running the kernel.
    Thread,
    /// A pure function of its operands: uniform where they all are.
    Operands,
    /// A local: uniform where every value it may hold is (an analysis of
    /// the kernel's bindings decides).
    Local,
    /// Not known from the expression (memory, calls, atomics, values with
    /// statements inside): treated as differing between threads.
    Unknown,
}

/// The properties of one expression node (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExprProps {
    pub sync: SyncScope,
    /// Writes memory another thread can see, or orders threads (an atomic,
    /// a vote, a device function given an array).
    pub effects: bool,
    /// Reads memory that another thread or operand may change.
    pub reads_memory: bool,
    /// May report a fault (an index out of bounds, an integer division by
    /// zero, an overflowing atomic index, a callee's fault).
    pub may_fault: bool,
    /// Tells a thread which block or thread it is, or shows the order in
    /// which the threads of different blocks run. (`grid(..)` and
    /// `gridsize(..)` do not: the CPU backend's merged runs keep them.)
    pub sees_block: bool,
    pub uniformity: Uniformity,
    pub work: Work,
}

/// How much work a construct does in one thread, beside its
/// sub-expressions: what decides whether a launch is small enough for the
/// CPU backend to run on the calling thread instead of handing it to the
/// thread pool (`CpuLaunch::with_thread_work`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// At most this many units, a unit being about a nanosecond of one core
    /// (an upper estimate: a transcendental function is 16).
    Bounded(u32),
    /// Repeats or hides what it runs: a loop, a device function (which may
    /// loop or recurse), a local array filled with one value (its length is
    /// the kernel's, not the statement's).
    Unbounded,
}

impl Work {
    /// Both, one after the other.
    pub fn then(self, other: Work) -> Work {
        match (self, other) {
            (Work::Bounded(a), Work::Bounded(b)) => Work::Bounded(a.saturating_add(b)),
            _ => Work::Unbounded,
        }
    }
}

/// How a statement may leave the statements around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Falls through to the next statement.
    Next,
    Break,
    Continue,
    /// `return` of a kernel, or `return v` of a device function.
    Return,
}

/// The properties of one statement node, apart from those of the
/// expressions in it (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StmtProps {
    pub sync: SyncScope,
    pub control: Control,
    /// The array element it stores to, if it stores to one.
    pub store: Option<ArrayRef>,
    /// Declares a local array (per-thread memory that the CPU backend keeps
    /// in the thread's frame).
    pub local_array: bool,
    pub work: Work,
}

/// Whether `f` may report a fault (on the CPU backend: where Rust's
/// method would panic; `pow` and `next_power_of_two` wrap instead).
pub fn math_may_fault(f: MathFn) -> bool {
    use MathFn::*;
    match f {
        Clamp | DivEuclid | RemEuclid | DivCeil | NextMultipleOf | Isqrt | Ilog | Ilog2 | Ilog10 => true,
        Sqrt | Cbrt | Exp | Exp2 | ExpM1 | Ln | Log2 | Log10 | Ln1p | Sin | Cos | Tan | Asin | Acos | Atan | Atan2
        | Sinh | Cosh | Tanh | Asinh | Acosh | Atanh | Hypot | Powf | Powi | Copysign | Floor | Ceil | Round
        | Trunc | Fract | MulAdd | IsNan | IsInfinite | IsFinite | Recip | ToDegrees | ToRadians | Abs | Signum
        | Min | Max | Pow | SaturatingAdd | SaturatingSub | AbsDiff | CountOnes | CountZeros | LeadingZeros
        | TrailingZeros | ReverseBits | RotateLeft | RotateRight | SwapBytes | IsPowerOfTwo | NextPowerOfTwo
        | SaturatingMul | UnsignedAbs | LeadingOnes | TrailingOnes => false,
    }
}

/// Whether `a op b` may fault: an integer division or remainder (or one on
/// a type only rustc knows), unless `b` is a positive literal, which is
/// neither zero nor the `-1` that overflows `MIN / -1`.
fn int_division(op: BinOp, a: &Ty, b: &Expr) -> bool {
    let int = match a {
        Ty::Scalar(s) => s.is_int(),
        // Types only rustc knows may be integers.
        Ty::Opaque(_) | Ty::Callee(..) | Ty::Var(_) => true,
        Ty::Idx3 => false,
    };
    // A positive literal, or a launch extent (at least 1 on every backend,
    // `LaunchConfig::new`; `usize`, so no `MIN / -1`).
    let positive = match b.kind {
        ExprKind::Lit(Lit::Int(v)) => v > 0,
        ExprKind::BuiltinAxis(Builtin::BlockDim | Builtin::GridDim, _) | ExprKind::GridSize(_) => true,
        _ => false,
    };
    int && matches!(op, BinOp::Div | BinOp::Rem) && !positive
}

/// The properties of expression node `e` (not of its sub-expressions).
pub fn expr_props(e: &Expr) -> ExprProps {
    let plain = |uniformity| ExprProps {
        sync: SyncScope::None,
        effects: false,
        reads_memory: false,
        may_fault: false,
        sees_block: false,
        uniformity,
        work: Work::Bounded(1),
    };
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::ExternConst(_) | ExprKind::BodyConst(_) => plain(Uniformity::Block),
        ExprKind::Len(_) | ExprKind::Dim(..) | ExprKind::GridSize(_) => plain(Uniformity::Block),
        ExprKind::Local(_) => plain(Uniformity::Local),
        ExprKind::Grid(_) => plain(Uniformity::Thread),
        ExprKind::Builtin(b) | ExprKind::BuiltinAxis(b, _) => ExprProps {
            sees_block: true,
            ..plain(match b {
                Builtin::ThreadIdx => Uniformity::Thread,
                Builtin::BlockIdx | Builtin::BlockDim | Builtin::GridDim => Uniformity::Block,
            })
        },
        // A component of a local holding an `Idx3` (which came from one of
        // the builtins above).
        ExprKind::Idx3Field(..) => ExprProps {
            sees_block: true,
            ..plain(Uniformity::Operands)
        },
        ExprKind::Intrinsic(v) => {
            let spec = v.spec();
            ExprProps {
                sees_block: spec.sees_block,
                ..plain(spec.uniformity)
            }
        }
        ExprKind::Unary(..) | ExprKind::Cast(..) => plain(Uniformity::Operands),
        ExprKind::Binary(op, a, b) => ExprProps {
            may_fault: int_division(*op, &a.ty, b),
            ..plain(Uniformity::Operands)
        },
        ExprKind::Math(f, _) => ExprProps {
            may_fault: math_may_fault(*f),
            work: Work::Bounded(16),
            ..plain(Uniformity::Operands)
        },
        // Out-of-bounds indices fault.
        ExprKind::Load(..) => ExprProps {
            reads_memory: true,
            may_fault: true,
            work: Work::Bounded(2),
            ..plain(Uniformity::Unknown)
        },
        // Its statements are planned where they are.
        ExprKind::If(..) => plain(Uniformity::Unknown),
        ExprKind::Vote(..) => ExprProps {
            sync: SyncScope::Block,
            effects: true,
            reads_memory: true,
            may_fault: false,
            sees_block: true,
            uniformity: Uniformity::Unknown,
            work: Work::Bounded(16),
        },
        // A lane's result depends on the other lanes; a misuse (a lane of
        // the mask that never comes, a source lane that does not take part)
        // is a fault on the CPU backend.
        ExprKind::Warp(..) => ExprProps {
            sync: SyncScope::Warp,
            effects: true,
            reads_memory: false,
            may_fault: true,
            sees_block: true,
            uniformity: Uniformity::Unknown,
            work: Work::Bounded(64),
        },
        ExprKind::Atomic(..) => ExprProps {
            sync: SyncScope::None,
            effects: true,
            reads_memory: true,
            may_fault: true,
            sees_block: true,
            uniformity: Uniformity::Unknown,
            work: Work::Bounded(16),
        },
        ExprKind::Call(_, args) => {
            // One given only scalars reaches no memory (there are no
            // globals), and its barriers give the same results in any
            // order: only the order of calls given arrays shows.
            let arrays = args.iter().any(|a| matches!(a.kind, ExprKind::ArrayArg(_)));
            ExprProps {
                sync: SyncScope::Callee,
                effects: arrays,
                reads_memory: arrays,
                may_fault: true,
                sees_block: true,
                uniformity: Uniformity::Unknown,
                work: Work::Unbounded,
            }
        }
        ExprKind::ArrayArg(_) => ExprProps {
            sees_block: true,
            ..plain(Uniformity::Unknown)
        },
        ExprKind::Tuple(_) | ExprKind::TupleField(..) => plain(Uniformity::Operands),
    }
}

/// The properties of statement node `s` (not of the expressions and
/// statements inside it).
pub fn stmt_props(s: &Stmt) -> StmtProps {
    let next = StmtProps {
        sync: SyncScope::None,
        control: Control::Next,
        store: None,
        local_array: false,
        work: Work::Bounded(1),
    };
    match s {
        Stmt::Let { .. }
        | Stmt::LetTuple { .. }
        | Stmt::Shared(_)
        | Stmt::Expr(_)
        | Stmt::If { .. }
        | Stmt::Block(_) => next,
        Stmt::Line(_) => StmtProps {
            work: Work::Bounded(0),
            ..next
        },
        Stmt::For { .. } | Stmt::While { .. } | Stmt::Loop { .. } => StmtProps {
            work: Work::Unbounded,
            ..next
        },
        // A fence orders this thread's own accesses; no thread waits.
        Stmt::Fence(_) => next,
        Stmt::LocalArray { init, .. } => StmtProps {
            local_array: true,
            work: match init {
                ArrayInit::List(es) => Work::Bounded(u32::try_from(es.len()).unwrap_or(u32::MAX)),
                ArrayInit::Repeat(_) => Work::Unbounded,
            },
            ..next
        },
        Stmt::Assign { place, .. } => StmtProps {
            store: match place {
                Place::Local(_) => None,
                Place::Elem(a, _) => Some(*a),
            },
            ..next
        },
        Stmt::Break => StmtProps {
            control: Control::Break,
            ..next
        },
        Stmt::Continue => StmtProps {
            control: Control::Continue,
            ..next
        },
        Stmt::Return | Stmt::ReturnValue(_) => StmtProps {
            control: Control::Return,
            ..next
        },
        Stmt::SyncThreads => StmtProps {
            sync: SyncScope::Block,
            work: Work::Bounded(16),
            ..next
        },
    }
}

/// The work one thread of a kernel with body `b` does at most: the sum of
/// its statements' and expressions' [`Work`], every branch counted.
pub fn thread_work(b: &Block) -> Work {
    let mut work = Work::Bounded(0);
    crate::model::visit::each_stmt_in_block(b, &mut |s| work = work.then(stmt_props(s).work));
    crate::model::visit::each_expr_in_block(b, &mut |e| work = work.then(expr_props(e).work));
    work
}

/// Whether any expression in `e` (itself included) has property `p`.
pub fn any_in_expr(e: &Expr, p: impl Fn(&ExprProps) -> bool) -> bool {
    let mut found = false;
    crate::model::visit::each_expr_in_expr(e, &mut |x| found |= p(&expr_props(x)));
    found
}

/// Whether any expression inside statement `s` has property `p`.
pub fn any_expr_in_stmt(s: &Stmt, p: impl Fn(&ExprProps) -> bool) -> bool {
    let mut found = false;
    crate::model::visit::each_expr(s, &mut |x| found |= p(&expr_props(x)));
    found
}

/// Whether `s` or any statement inside it has property `p`.
pub fn any_stmt(s: &Stmt, p: impl Fn(&StmtProps) -> bool) -> bool {
    let mut found = false;
    crate::model::visit::each_stmt(s, &mut |x| found |= p(&stmt_props(x)));
    found
}

/// Whether `s` holds a block-wide barrier (`syncthreads()` or a vote),
/// however deep. A device function's barriers are not seen here: the CPU
/// backend switches at run time (`SyncScope::Callee`).
pub fn has_block_barrier(s: &Stmt) -> bool {
    any_stmt(s, |p| p.sync == SyncScope::Block) || any_expr_in_stmt(s, |p| p.sync == SyncScope::Block)
}

/// Whether `b` calls a warp intrinsic (`SyncScope::Warp`), however deep.
/// Such a kernel runs on the CPU backend's coroutine path, whose scheduler
/// runs a warp's lanes to each intrinsic and exchanges their values.
pub fn has_warp_sync(b: &Block) -> bool {
    b.stmts
        .iter()
        .any(|s| any_expr_in_stmt(s, |p| p.sync == SyncScope::Warp))
        || b.tail
            .as_ref()
            .is_some_and(|t| any_in_expr(t, |p| p.sync == SyncScope::Warp))
}

/// Whether `s` holds a `break`, `continue` or `return`, however deep.
pub fn may_leave(s: &Stmt) -> bool {
    any_stmt(s, |p| p.control != Control::Next)
}

/// Whether `e` cannot fault, synchronise or touch memory, and each of its
/// leaves is one that `leaf` admits (by its [`Uniformity`]), or a local that
/// `local` admits; operators and pure functions pass through.
///
/// Block-uniform values are `fault_free_where(e, |u| u == Block, ..)`;
/// values computed from the coordinates alone admit `Thread` too.
pub fn fault_free_where(e: &Expr, leaf: &dyn Fn(Uniformity) -> bool, local: &dyn Fn(&Expr) -> bool) -> bool {
    crate::stack::deep(|| {
        let p = expr_props(e);
        if p.may_fault || p.effects || p.reads_memory || p.sync != SyncScope::None {
            return false;
        }
        match p.uniformity {
            Uniformity::Block | Uniformity::Thread => leaf(p.uniformity),
            Uniformity::Local => local(e),
            Uniformity::Unknown => false,
            Uniformity::Operands => {
                let mut ok = true;
                crate::model::visit::expr_children(e, &mut |c| {
                    ok &= match c {
                        crate::model::visit::Child::Expr(x) => fault_free_where(x, leaf, local),
                        crate::model::visit::Child::Block(_) => false,
                    }
                });
                ok
            }
        }
    })
}

/// Operator nesting from which an expression is emitted as flat statements:
/// nested `(a).wrapping_add(b)` calls or parentheses make rustc's parser
/// recurse once per level (it overflows its stack at about 2000), and a chain
/// of `let`s nests debug-info scopes as deeply (LLVM overflows in turn).
pub const FLAT_FROM: usize = 16;

/// Whether binary operators nest `FLAT_FROM` deep in `e`, on scalars only
/// (the flat form names each value's type). Both emitters flatten such trees.
pub fn is_deep(e: &Expr) -> bool {
    let mut deep = false;
    let mut todo = vec![(e, 1)];
    while let Some((e, d)) = todo.pop() {
        if let ExprKind::Binary(_, a, b) = &e.kind {
            if [e, a, b].iter().any(|x| !matches!(x.ty, Ty::Scalar(_))) {
                return false;
            }
            deep |= d >= FLAT_FROM;
            todo.push((a, d + 1));
            todo.push((b, d + 1));
        }
    }
    deep
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(src: &str) -> Block {
        let f: syn::ItemFn = syn::parse_str(src).expect("test kernel parses");
        crate::lower::lower_kernel(&f, &mut Default::default())
            .expect("test kernel lowers")
            .body
    }

    /// The statements of the kernel body, line markers left out.
    fn stmts(src: &str) -> Vec<Stmt> {
        body_of(src)
            .stmts
            .into_iter()
            .filter(|s| !matches!(s, Stmt::Line(_)))
            .collect()
    }

    #[test]
    fn work_is_bounded_without_loops_calls_or_filled_local_arrays() {
        let work = |src: &str| thread_work(&body_of(src));
        assert_eq!(work("fn k() {}"), Work::Bounded(0));
        // `let i = grid(1)` (1 + 1), `if i < y.len()` (1 + 3), `y[i] = x[i].sin()`
        // (1 + the index, the load and its index, the sine: 1 + 2 + 1 + 16).
        let straight =
            work("fn k(x: &[f32], y: &mut [f32]) { let i = grid(1); if i < y.len() { y[i] = x[i].sin(); } }");
        assert!(
            matches!(straight, Work::Bounded(n) if (20..=40).contains(&n)),
            "{straight:?}"
        );
        // Both branches of an `if` count.
        let both = work("fn k(y: &mut [f32]) { if grid(1) == 0 { y[0] = 1.0; } else { y[1] = y[0].exp(); } }");
        let one = work("fn k(y: &mut [f32]) { if grid(1) == 0 { y[0] = 1.0; } }");
        assert!(
            matches!((both, one), (Work::Bounded(b), Work::Bounded(o)) if b > o + 16),
            "{both:?} {one:?}"
        );
        for src in [
            "fn k(y: &mut [f32]) { for i in 0..4 { y[i] = 1.0; } }",
            "fn k(y: &mut [f32]) { let mut i = 0; while i < 4 { y[i] = 1.0; i += 1; } }",
            "fn k(y: &mut [f32]) { loop { if y[0] > 1.0 { break; } y[0] += 1.0; } }",
            "fn k(y: &mut [f32]) { y[0] = helper(1.0f32); }",
            "fn k(y: &mut [f32]) { if grid(1) == 0 { let a = [0.0f32; 64]; y[0] = a[3]; } }",
        ] {
            assert_eq!(work(src), Work::Unbounded, "{src}");
        }
        // A local array of listed values is as long as its list.
        assert!(matches!(
            work("fn k(y: &mut [f32]) { let a = [1.0f32, 2.0]; y[0] = a[1]; }"),
            Work::Bounded(_)
        ));
    }

    #[test]
    fn barriers_and_votes_synchronise_the_block() {
        let s = stmts("fn k(y: &mut [u32]) { syncthreads(); let c = syncthreads_count(y[0] > 1); y[0] = c as u32; }");
        assert!(has_block_barrier(&s[0]));
        assert!(has_block_barrier(&s[1]));
        assert!(!has_block_barrier(&s[2]));
    }

    #[test]
    fn calls_synchronise_as_their_callee_does() {
        let s = stmts("fn k(y: &mut [f32]) { let v = helper(1.0f32); fill(y, 2); }");
        let Stmt::Let { init: Some(call), .. } = &s[0] else {
            panic!("a let: {:?}", s[0])
        };
        let p = expr_props(call);
        assert_eq!(p.sync, SyncScope::Callee);
        // Given only scalars: no memory; given an array: effects.
        assert!(!p.effects && !p.reads_memory && p.may_fault);
        assert!(any_expr_in_stmt(&s[1], |p| p.effects));
        // Not a block barrier: the CPU backend switches at run time.
        assert!(!has_block_barrier(&s[1]));
    }

    #[test]
    fn leaving_statements_are_seen_at_any_depth() {
        let s = stmts("fn k(y: &mut [f32]) { for i in 0..4 { if i == 2 { break; } y[i] = 1.0; } y[0] = 2.0; }");
        assert!(may_leave(&s[0]));
        assert!(!may_leave(&s[1]));
        assert_eq!(stmt_props(&s[1]).store, Some(ArrayRef::Param(0)));
    }

    #[test]
    fn integer_division_may_fault_and_float_division_does_not() {
        let s = stmts("fn k(y: &mut [f32], n: u32, d: u32, a: f32) { y[0] = (n / d) as f32; y[1] = a / 2.0; }");
        let value = |s: &Stmt| match s {
            Stmt::Assign { value, .. } => value.clone(),
            other => panic!("an assignment: {other:?}"),
        };
        assert!(any_in_expr(&value(&s[0]), |p| p.may_fault));
        assert!(!any_in_expr(&value(&s[1]), |p| p.may_fault));
    }

    #[test]
    fn uniformity_follows_the_leaves() {
        let s = stmts(
            "fn k(y: &mut [f32], n: usize) { let a = block_idx().x * 4 + block_dim().x; let b = thread_idx().x + 1; let c = grid(1) / n; let d = y[0]; }",
        );
        let init = |s: &Stmt| match s {
            Stmt::Let { init: Some(e), .. } => e.clone(),
            other => panic!("a let: {other:?}"),
        };
        let block = |e: &Expr| fault_free_where(e, &|u| u == Uniformity::Block, &|_| false);
        let coords =
            |e: &Expr| fault_free_where(e, &|u| matches!(u, Uniformity::Block | Uniformity::Thread), &|_| false);
        assert!(block(&init(&s[0])) && coords(&init(&s[0])));
        assert!(!block(&init(&s[1])) && coords(&init(&s[1])));
        // A division by a local may fault; a load reads memory.
        assert!(!coords(&init(&s[2])));
        assert!(!coords(&init(&s[3])));
    }

    #[test]
    fn only_a_positive_literal_or_launch_extent_divisor_cannot_fault() {
        let s = stmts(
            "fn k(n: i32, d: u32, m: usize) { let a = n / 3; let b = n % -1; let c = d / 0; let e = d % 7; let f = n / (2 + 1); \
             let g = m / block_dim().x; let h = m % gridsize(1); let i = m / grid_dim().y; let j = m / thread_idx().x; }",
        );
        let faults = |s: &Stmt| any_expr_in_stmt(s, |p| p.may_fault);
        // `n / -1` overflows at `i32::MIN`; `/ 0` faults; a sum is not a
        // literal; launch extents are at least 1, a thread index may be 0.
        assert_eq!(
            s.iter().map(faults).collect::<Vec<_>>(),
            [false, true, true, false, true, false, false, false, true]
        );
    }

    #[test]
    fn only_grid_and_gridsize_keep_blocks_indistinguishable() {
        let s = stmts(
            "fn k(y: &mut [f32]) { let i = grid(1) + gridsize(1); let b = block_idx().x; let t = thread_idx(); }",
        );
        let sees = |s: &Stmt| any_expr_in_stmt(s, |p| p.sees_block);
        assert!(!sees(&s[0]));
        assert!(sees(&s[1]));
        assert!(sees(&s[2]));
    }
}
