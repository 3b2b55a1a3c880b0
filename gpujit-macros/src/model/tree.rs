//! The kernel's body: expressions, places, statements, and the kernel.

use proc_macro2::Span;

use super::*;

#[derive(Debug, Clone)]
pub enum Lit {
    /// Integer value (two's complement bits for the type), already negated for `-lit`.
    Int(i128),
    /// The literal text as Rust parses it (exact value for the resolved type).
    Float(String),
    Bool(bool),
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Lit(Lit),
    Local(LocalId),
    ExternConst(usize),
    BodyConst(usize),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, Scalar),
    Load(ArrayRef, Vec<Expr>),
    /// Total number of elements of an array parameter.
    Len(usize),
    /// Extent of dimension `k` of an array parameter.
    Dim(usize, usize),
    /// `grid(n)` / `gridsize(n)` component.
    Grid(Axis),
    GridSize(Axis),
    /// `thread_idx()` etc. as a whole (`Idx3`), or one component.
    Builtin(Builtin),
    BuiltinAxis(Builtin, Axis),
    /// `.x` of a local holding an `Idx3`.
    Idx3Field(Box<Expr>, Axis),
    /// `lane_id()`, `warp_size()`: a value each thread reads (see
    /// `ValueIntrinsic::spec`).
    Intrinsic(ValueIntrinsic),
    Math(MathFn, Vec<Expr>),
    /// `if c { a } else { b }` as a value.
    If(Box<Expr>, Box<Block>, Box<Block>),
    /// `syncthreads_count(p)` & co.: a barrier that also counts the
    /// threads whose predicate holds.
    Vote(Vote, Box<Expr>),
    /// `shfl_down_sync(mask, v, delta)` & co.: a warp intrinsic and its
    /// arguments, in the order of `WarpFn::spec().args`.
    Warp(WarpFn, Vec<Expr>),
    /// `atomic_add(&mut a[i, ..], v)` & co.: the function, the element
    /// (array and indices, as in `Load`) and the operands; the old value.
    Atomic(AtomicFn, ArrayRef, Vec<Expr>, Vec<Expr>),
    /// A call of device function `Kernel::callees[k]`.
    Call(usize, Vec<Expr>),
    /// An array parameter passed whole to a device function.
    ArrayArg(usize),
    /// `(a, b)`: only as a device function's return value.
    Tuple(Vec<Expr>),
    /// Component `i` of a tuple a device function returned.
    TupleField(Box<Expr>, usize),
}

#[derive(Debug, Clone)]
pub enum Place {
    Local(LocalId),
    Elem(ArrayRef, Vec<Expr>),
}

#[derive(Debug, Clone)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of the block (only in value position).
    pub tail: Option<Expr>,
}

impl Block {
    /// The `if` of an `else if` arm: a block that holds only that statement
    /// (after a line marker).
    pub fn else_if(&self) -> Option<(&Expr, &Block, Option<&Block>)> {
        let stmts = match self.stmts.as_slice() {
            [Stmt::Line(_), rest @ ..] => rest,
            all => all,
        };
        match (stmts, &self.tail) {
            ([Stmt::If { cond, then, els }], None) => Some((cond, then, els.as_ref())),
            _ => None,
        }
    }

    /// The `if` of an `else if` arm of a value `if`: a block that is only that
    /// value.
    pub fn else_if_value(&self) -> Option<(&Expr, &Block, &Block)> {
        match (self.stmts.as_slice(), &self.tail) {
            (
                [],
                Some(Expr {
                    kind: ExprKind::If(c, a, b),
                    ..
                }),
            ) => Some((c, a, b)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Let {
        local: LocalId,
        init: Option<Expr>,
    },
    /// `let (a, b) = grid(2);` and friends: each component, `None` for `_`.
    LetTuple {
        locals: Vec<Option<LocalId>>,
        parts: Vec<Expr>,
    },
    Shared(usize),
    /// `let a = [v; N];`: local array `Kernel::local_arrays[id]`.
    LocalArray {
        id: usize,
        init: ArrayInit,
    },
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    /// `aux`: unique names for the C loop's end, step and done variables.
    /// `rev`: `(start..end).rev()` (then `.step_by(step)`), counting down
    /// from the range's last element.
    For {
        var: LocalId,
        start: Expr,
        end: Expr,
        inclusive: bool,
        step: Option<Expr>,
        rev: bool,
        body: Block,
        aux: [String; 3],
    },
    While {
        cond: Expr,
        body: Block,
    },
    Loop {
        body: Block,
    },
    Break,
    Continue,
    Return,
    /// `return v` (or the tail value) of a device function.
    ReturnValue(Expr),
    SyncThreads,
    /// `threadfence()` & co.
    Fence(FenceScope),
    Block(Block),
    /// The Rust source line of the statements that follow, for the CUDA C's
    /// `#line` directives; no code.
    Line(u32),
}

/// The whole kernel.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub name: String,
    /// The kernel's name as the user wrote it, without `r#`.
    /// The CUDA C entry name: `name` if free in C (see `names`), else a free
    /// stand-in such as `float_kernel`.
    pub entry: String,
    pub params: Vec<Param>,
    pub locals: Vec<Local>,
    pub shared: Vec<SharedArray>,
    pub local_arrays: Vec<LocalArray>,
    pub extern_consts: Vec<ExternConst>,
    pub body_consts: Vec<BodyConst>,
    pub body: Block,
    pub uses_barrier: bool,
    /// The device functions called, each once (`ExprKind::Call` indexes it).
    pub callees: Vec<Callee>,
    /// `Some` for a device function: what it returns.
    pub ret: Option<RetTy>,
}

impl Kernel {
    /// The element type of an array.
    pub fn elem_type(&self, a: ArrayRef) -> Ty {
        match a {
            ArrayRef::Param(i) => Ty::Scalar(match self.params[i].kind {
                ParamKind::Array { elem, .. } => elem,
                ParamKind::Scalar(s) => s,
            }),
            ArrayRef::Shared(i) => Ty::Scalar(self.shared[i].elem),
            ArrayRef::Local(i) => self.local_arrays[i].elem,
            // Only rustc knows it; loads carry their own (inferred) type.
            ArrayRef::Const(i) => Ty::Opaque(Some(i)),
        }
    }
}
