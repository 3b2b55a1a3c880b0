//! The kernel model: one typed description of a kernel that both emitters
//! (CUDA C and CPU Rust) read. Built by `lower`, never by the emitters.

use proc_macro2::{Span, TokenStream};

/// A scalar type of the kernel language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    U8,
    I8,
    I16,
    U16,
    I32,
    I64,
    U32,
    U64,
    Usize,
    F32,
    F64,
    Bool,
}

impl Scalar {
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "u8" => Scalar::U8,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "u16" => Scalar::U16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "usize" => Scalar::Usize,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "bool" => Scalar::Bool,
            _ => return None,
        })
    }
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::U8 => "u8",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::U16 => "u16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::Usize => "usize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Bool => "bool",
        }
    }
    /// The runtime's `ScalarType` variant name.
    pub fn variant(self) -> &'static str {
        match self {
            Scalar::U8 => "U8",
            Scalar::I8 => "I8",
            Scalar::I16 => "I16",
            Scalar::U16 => "U16",
            Scalar::I32 => "I32",
            Scalar::I64 => "I64",
            Scalar::U32 => "U32",
            Scalar::U64 => "U64",
            Scalar::Usize => "Usize",
            Scalar::F32 => "F32",
            Scalar::F64 => "F64",
            Scalar::Bool => "Bool",
        }
    }
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::U8 => "unsigned char",
            Scalar::I8 => "signed char",
            Scalar::I16 => "short",
            Scalar::U16 => "unsigned short",
            Scalar::I32 => "int",
            Scalar::I64 => "long long",
            Scalar::U32 => "unsigned int",
            Scalar::U64 | Scalar::Usize => "unsigned long long",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
            Scalar::Bool => "bool",
        }
    }
    /// The unsigned C type in which the type's arithmetic wraps as Rust's
    /// does: of the same width, or `unsigned int` for `i8 i16 u16` (C
    /// promotes them to `int`, where `u16 * u16` could overflow).
    pub fn c_unsigned(self) -> &'static str {
        match self {
            Scalar::I8 | Scalar::I16 | Scalar::U16 | Scalar::I32 => "unsigned int",
            Scalar::I64 => "unsigned long long",
            other => other.c_name(),
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    pub fn is_int(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }
    /// Narrower than C's `int`: C promotes its operands to `int`, so the
    /// CUDA C casts each result back to the type.
    pub fn is_narrow(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::I8 | Scalar::I16 | Scalar::U16)
    }
    pub fn bits(self) -> u32 {
        match self {
            Scalar::U8 | Scalar::I8 | Scalar::Bool => 8,
            Scalar::I16 | Scalar::U16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            _ => 64,
        }
    }
}

/// A resolved value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Scalar(Scalar),
    /// A `thread_idx()`-like value with `.x .y .z` (`usize` each).
    Idx3,
    /// The type is only known to rustc: that of the outside constant with this
    /// index in `Kernel::extern_consts` (CUDA C names it by the constant's
    /// `type_name`, declared by the runtime), or unknown (`None`, only after
    /// an error or for a binding nothing constrains; CUDA C writes `auto`).
    Opaque(Option<usize>),
    /// A type of device function `Kernel::callees[k]`'s signature, which
    /// only rustc and that function's own CUDA C know (see `device`).
    Callee(usize, CalleeTy),
    /// An inference variable; only while lowering.
    Var(u32),
}

/// Which type of a device function's signature a `Ty::Callee` is: CUDA C
/// names it by the `typedef` the function declares (`NAME_ret`, `NAME_ret1`,
/// `NAME_arg0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalleeTy {
    Ret,
    /// Component `i` of a tuple return.
    RetField(usize),
    /// Scalar parameter `i`.
    Arg(usize),
}

/// A device function a kernel or device function calls, by the path the
/// user wrote (its machinery is the module of the same name).
#[derive(Debug, Clone)]
pub struct Callee {
    pub path: TokenStream,
    /// The path as text, for messages.
    pub label: String,
}

/// What a device function returns (kernels return nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetTy {
    Unit,
    Scalar(Scalar),
    Tuple(Vec<Scalar>),
}

/// Index into `Kernel::locals`.
pub type LocalId = usize;

#[derive(Debug, Clone)]
pub struct Local {
    /// Unique name used by both emitters (shadowed Rust bindings get suffixes).
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
}

/// A kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages and docs.
    pub label: String,
    pub kind: ParamKind,
    /// For arrays: the names of the extents CUDA C passes after the pointer
    /// (`x_len` for 1-D, `a_d0`, `a_d1`, ... otherwise).
    pub dims: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Scalar(Scalar),
    /// `&[T]`/`&mut [T]` (ndim 1, `slice`) or `ArrayView{N}`/`ArrayViewMut{N}`.
    Array {
        elem: Scalar,
        ndim: usize,
        mutable: bool,
        slice: bool,
    },
}

/// A `__shared__` array declared with `shared_array::<[[T; N]; M]>()`.
#[derive(Debug, Clone)]
pub struct SharedArray {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages.
    pub label: String,
    pub elem: Scalar,
    /// Outermost first, as C and Rust write them.
    pub dims: Vec<ConstExpr>,
    /// The array type as the user wrote it (for `size_of` in the CPU layout).
    pub rust_type: TokenStream,
}

/// A per-thread array declared with `let a = [v; N];` or `let a = [x, y];`
/// (Numba's `cuda.local.array`): a C array in local memory, a Rust array on
/// the CPU backend.
#[derive(Debug, Clone)]
pub struct LocalArray {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages.
    pub label: String,
    /// The element type (settled by inference; `resolve` checks it is a scalar).
    pub elem: Ty,
    /// Outermost first, as C and Rust write them.
    pub dims: Vec<ConstExpr>,
    pub mutable: bool,
    /// The declaration, for errors found after inference.
    pub span: Span,
}

/// How a local array starts.
#[derive(Debug, Clone)]
pub enum ArrayInit {
    /// `[v; N]` (nested for more dimensions): every element is `v`,
    /// evaluated once.
    Repeat(Expr),
    /// `[a, b, c]` (nested lists for more dimensions): the elements in C
    /// order, evaluated in that order.
    List(Vec<Expr>),
}

/// A compile-time constant expression (shared array sizes).
#[derive(Debug, Clone)]
pub struct ConstExpr {
    pub rust: TokenStream,
    pub c: String,
}

/// A `const` used by the kernel but defined outside it; its value and type are
/// read by the generated `cuda_source()` at run time.
#[derive(Debug, Clone)]
pub struct ExternConst {
    pub c_name: String,
    /// The CUDA C `typedef` of the constant's type (declared with it).
    pub type_name: String,
    pub rust_path: TokenStream,
    /// A user item (not `f32::MAX` & co.): the generated code checks that it
    /// is a `const`, not a `static` whose value could change after the CUDA C
    /// was built.
    pub user_item: bool,
    /// 0 for a scalar; else an array indexed with this many indices
    /// (`FILTER[i]`), placed in CUDA `__constant__` memory, and `type_name`
    /// names its element type.
    pub ndim: usize,
}

/// A `const` item inside the kernel body.
#[derive(Debug, Clone)]
pub struct BodyConst {
    pub name: String,
    pub ty: Scalar,
    pub value: Expr,
    pub rust_value: TokenStream,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayRef {
    Param(usize),
    Shared(usize),
    /// `Kernel::local_arrays[i]`.
    Local(usize),
    /// The outside `const` array `Kernel::extern_consts[i]` (read-only).
    Const(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
    pub fn all(n: usize) -> &'static [Axis] {
        &[Axis::X, Axis::Y, Axis::Z][..n]
    }
}

/// `threadIdx`, `blockIdx`, `blockDim`, `gridDim`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

impl Builtin {
    pub fn c_name(self) -> &'static str {
        match self {
            Builtin::ThreadIdx => "threadIdx",
            Builtin::BlockIdx => "blockIdx",
            Builtin::BlockDim => "blockDim",
            Builtin::GridDim => "gridDim",
        }
    }
    pub fn rust_method(self) -> &'static str {
        match self {
            Builtin::ThreadIdx => "thread_idx",
            Builtin::BlockIdx => "block_idx",
            Builtin::BlockDim => "block_dim",
            Builtin::GridDim => "grid_dim",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

/// The numeric methods a kernel may call: `f32`/`f64` math and integer bit
/// and arithmetic methods, in method form (`x.tanh()`) or call form
/// (`f32::tanh(x)`). (`wrapping_add` & co. lower to operators instead.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFn {
    // Floats.
    Sqrt,
    Cbrt,
    Exp,
    Exp2,
    ExpM1,
    Ln,
    Log2,
    Log10,
    Ln1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Hypot,
    Powf,
    Powi,
    Copysign,
    Floor,
    Ceil,
    Round,
    Trunc,
    Fract,
    MulAdd,
    IsNan,
    IsInfinite,
    IsFinite,
    Recip,
    ToDegrees,
    ToRadians,
    // Floats and integers.
    Abs,
    Signum,
    Min,
    Max,
    Clamp,
    // Integers.
    Pow,
    SaturatingAdd,
    SaturatingSub,
    AbsDiff,
    DivEuclid,
    RemEuclid,
    CountOnes,
    CountZeros,
    LeadingZeros,
    TrailingZeros,
    ReverseBits,
    RotateLeft,
    RotateRight,
    SwapBytes,
    IsPowerOfTwo,
}

/// Which receivers a [`MathFn`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathDomain {
    Float,
    Int,
    Both,
}

/// How a [`MathFn`]'s arguments after the receiver are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathArgs {
    /// This many more arguments of the receiver's type.
    Same(usize),
    /// One `i32` (`powi`).
    I32,
    /// One `u32` (`pow`, `rotate_left`, ...).
    U32,
}

/// Name, function, receiver domain, further arguments.
#[rustfmt::skip]
const MATH_FNS: &[(&str, MathFn, MathDomain, MathArgs)] = {
    use MathArgs::*;
    use MathDomain::*;
    use MathFn::*;
    &[
        ("sqrt", Sqrt, Float, Same(0)), ("cbrt", Cbrt, Float, Same(0)), ("exp", Exp, Float, Same(0)),
        ("exp2", Exp2, Float, Same(0)), ("exp_m1", ExpM1, Float, Same(0)), ("ln", Ln, Float, Same(0)),
        ("log2", Log2, Float, Same(0)), ("log10", Log10, Float, Same(0)), ("ln_1p", Ln1p, Float, Same(0)),
        ("sin", Sin, Float, Same(0)), ("cos", Cos, Float, Same(0)), ("tan", Tan, Float, Same(0)),
        ("asin", Asin, Float, Same(0)), ("acos", Acos, Float, Same(0)), ("atan", Atan, Float, Same(0)),
        ("atan2", Atan2, Float, Same(1)), ("sinh", Sinh, Float, Same(0)), ("cosh", Cosh, Float, Same(0)),
        ("tanh", Tanh, Float, Same(0)), ("asinh", Asinh, Float, Same(0)), ("acosh", Acosh, Float, Same(0)),
        ("atanh", Atanh, Float, Same(0)), ("hypot", Hypot, Float, Same(1)), ("powf", Powf, Float, Same(1)),
        ("powi", Powi, Float, I32), ("copysign", Copysign, Float, Same(1)), ("floor", Floor, Float, Same(0)),
        ("ceil", Ceil, Float, Same(0)), ("round", Round, Float, Same(0)), ("trunc", Trunc, Float, Same(0)),
        ("fract", Fract, Float, Same(0)), ("mul_add", MulAdd, Float, Same(2)), ("is_nan", IsNan, Float, Same(0)),
        ("is_infinite", IsInfinite, Float, Same(0)), ("is_finite", IsFinite, Float, Same(0)),
        ("recip", Recip, Float, Same(0)), ("to_degrees", ToDegrees, Float, Same(0)),
        ("to_radians", ToRadians, Float, Same(0)),
        ("abs", Abs, Both, Same(0)), ("wrapping_abs", Abs, Int, Same(0)), ("signum", Signum, Both, Same(0)), ("min", Min, Both, Same(1)),
        ("max", Max, Both, Same(1)), ("clamp", Clamp, Both, Same(2)),
        ("pow", Pow, Int, U32), ("wrapping_pow", Pow, Int, U32), ("saturating_add", SaturatingAdd, Int, Same(1)),
        ("saturating_sub", SaturatingSub, Int, Same(1)), ("abs_diff", AbsDiff, Int, Same(1)),
        ("div_euclid", DivEuclid, Int, Same(1)), ("rem_euclid", RemEuclid, Int, Same(1)),
        ("count_ones", CountOnes, Int, Same(0)), ("count_zeros", CountZeros, Int, Same(0)),
        ("leading_zeros", LeadingZeros, Int, Same(0)), ("trailing_zeros", TrailingZeros, Int, Same(0)),
        ("reverse_bits", ReverseBits, Int, Same(0)), ("rotate_left", RotateLeft, Int, U32),
        ("rotate_right", RotateRight, Int, U32), ("swap_bytes", SwapBytes, Int, Same(0)),
        ("is_power_of_two", IsPowerOfTwo, Int, Same(0)),
    ]
};

/// Methods that lower to operators (see `lower::intrinsics`): name,
/// receiver domain, further arguments.
pub const OPERATOR_METHODS: &[(&str, MathDomain, MathArgs)] = &[
    ("wrapping_add", MathDomain::Int, MathArgs::Same(1)),
    ("wrapping_sub", MathDomain::Int, MathArgs::Same(1)),
    ("wrapping_mul", MathDomain::Int, MathArgs::Same(1)),
    ("wrapping_neg", MathDomain::Int, MathArgs::Same(0)),
    ("wrapping_shl", MathDomain::Int, MathArgs::U32),
    ("wrapping_shr", MathDomain::Int, MathArgs::U32),
];

impl MathArgs {
    pub fn count(self) -> usize {
        match self {
            MathArgs::Same(n) => n,
            MathArgs::I32 | MathArgs::U32 => 1,
        }
    }
}

impl MathFn {
    /// The function a method name calls, its receiver domain and arguments.
    pub fn from_name(name: &str) -> Option<(MathFn, MathDomain, MathArgs)> {
        MATH_FNS.iter().find(|m| m.0 == name).map(|&(_, f, d, a)| (f, d, a))
    }

    /// Every method name a kernel may call on numbers.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        MATH_FNS.iter().map(|m| m.0).chain(OPERATOR_METHODS.iter().map(|m| m.0))
    }

    /// The Rust method the CPU backend calls (the first name in the table).
    pub fn rust_name(self) -> &'static str {
        MATH_FNS.iter().find(|m| m.1 == self).map_or("", |m| m.0)
    }
}

/// CUDA's atomic read-modify-write functions (`atomic_add(&mut a[i], v)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicFn {
    Add,
    Sub,
    Min,
    Max,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

impl AtomicFn {
    pub const ALL: [AtomicFn; 11] = [
        AtomicFn::Add,
        AtomicFn::Sub,
        AtomicFn::Min,
        AtomicFn::Max,
        AtomicFn::Exch,
        AtomicFn::Cas,
        AtomicFn::And,
        AtomicFn::Or,
        AtomicFn::Xor,
        AtomicFn::Inc,
        AtomicFn::Dec,
    ];
    /// The kernel-language name without `atomic_` (`add`).
    pub fn suffix(self) -> &'static str {
        match self {
            AtomicFn::Add => "add",
            AtomicFn::Sub => "sub",
            AtomicFn::Min => "min",
            AtomicFn::Max => "max",
            AtomicFn::Exch => "exch",
            AtomicFn::Cas => "cas",
            AtomicFn::And => "and",
            AtomicFn::Or => "or",
            AtomicFn::Xor => "xor",
            AtomicFn::Inc => "inc",
            AtomicFn::Dec => "dec",
        }
    }
    pub fn from_name(name: &str) -> Option<AtomicFn> {
        let suffix = name.strip_prefix("atomic_")?;
        Self::ALL.into_iter().find(|f| f.suffix() == suffix)
    }
    /// The runtime's `AtomicOp` variant (`Add`).
    pub fn variant(self) -> &'static str {
        match self {
            AtomicFn::Add => "Add",
            AtomicFn::Sub => "Sub",
            AtomicFn::Min => "Min",
            AtomicFn::Max => "Max",
            AtomicFn::Exch => "Exch",
            AtomicFn::Cas => "Cas",
            AtomicFn::And => "And",
            AtomicFn::Or => "Or",
            AtomicFn::Xor => "Xor",
            AtomicFn::Inc => "Inc",
            AtomicFn::Dec => "Dec",
        }
    }
    /// The element types CUDA has this atomic for (`usize` is `u64`).
    pub fn types(self) -> &'static [Scalar] {
        use Scalar::*;
        match self {
            AtomicFn::Add | AtomicFn::Sub | AtomicFn::Min | AtomicFn::Max | AtomicFn::Exch => {
                &[I32, U32, I64, U64, Usize, F32, F64]
            }
            AtomicFn::Cas | AtomicFn::And | AtomicFn::Or | AtomicFn::Xor => &[I32, U32, I64, U64, Usize],
            AtomicFn::Inc | AtomicFn::Dec => &[U32],
        }
    }
    /// Operands after the place (`atomic_cas` has the compare value too).
    pub fn operands(self) -> usize {
        if self == AtomicFn::Cas {
            2
        } else {
            1
        }
    }
}

/// The scope of a memory fence: `threadfence_block()`, `threadfence()`,
/// `threadfence_system()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceScope {
    Block,
    Device,
    System,
}

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
    Math(MathFn, Vec<Expr>),
    /// `if c { a } else { b }` as a value.
    If(Box<Expr>, Box<Block>, Box<Block>),
    /// `syncthreads_count(p)` & co.: a barrier that also counts the
    /// threads whose predicate holds.
    Vote(Vote, Box<Expr>),
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

/// The block-wide votes, CUDA's `__syncthreads_count/and/or`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    /// The number of threads whose predicate is true (`u32`).
    Count,
    /// Whether it is true in every thread (`bool`).
    And,
    /// Whether it is true in any thread (`bool`).
    Or,
}

impl Vote {
    pub fn from_name(name: &str) -> Option<Vote> {
        Some(match name {
            "syncthreads_count" => Vote::Count,
            "syncthreads_and" => Vote::And,
            "syncthreads_or" => Vote::Or,
            _ => return None,
        })
    }
    pub fn c_name(self) -> &'static str {
        match self {
            Vote::Count => "__syncthreads_count",
            Vote::And => "__syncthreads_and",
            Vote::Or => "__syncthreads_or",
        }
    }
    pub fn rust_name(self) -> &'static str {
        match self {
            Vote::Count => "syncthreads_count",
            Vote::And => "syncthreads_and",
            Vote::Or => "syncthreads_or",
        }
    }
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
