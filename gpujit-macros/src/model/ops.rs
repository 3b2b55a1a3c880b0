//! Operators and intrinsics: coordinates, binary and unary operators, math
//! functions, atomics, fences.

use super::*;

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
    pub const ALL: [Builtin; 4] = [
        Builtin::ThreadIdx,
        Builtin::BlockIdx,
        Builtin::BlockDim,
        Builtin::GridDim,
    ];

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
    DivCeil,
    NextMultipleOf,
    NextPowerOfTwo,
    Isqrt,
    Ilog,
    Ilog2,
    Ilog10,
    SaturatingMul,
    UnsignedAbs,
    LeadingOnes,
    TrailingOnes,
}

/// Which receivers a [`MathFn`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathDomain {
    Float,
    Int,
    /// The unsigned integer types only (`div_ceil`, as Rust has them stable).
    Unsigned,
    /// The signed integer types only (`unsigned_abs`).
    Signed,
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
        ("is_power_of_two", IsPowerOfTwo, Unsigned, Same(0)),
        ("div_ceil", DivCeil, Unsigned, Same(1)), ("next_multiple_of", NextMultipleOf, Unsigned, Same(1)),
        ("next_power_of_two", NextPowerOfTwo, Unsigned, Same(0)), ("isqrt", Isqrt, Int, Same(0)),
        ("ilog", Ilog, Int, Same(1)), ("ilog2", Ilog2, Int, Same(0)), ("ilog10", Ilog10, Int, Same(0)),
        ("saturating_mul", SaturatingMul, Int, Same(1)), ("unsigned_abs", UnsignedAbs, Signed, Same(0)),
        ("leading_ones", LeadingOnes, Int, Same(0)), ("trailing_ones", TrailingOnes, Int, Same(0)),
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
    ("wrapping_div", MathDomain::Int, MathArgs::Same(1)),
    ("wrapping_rem", MathDomain::Int, MathArgs::Same(1)),
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
    NanMin,
    NanMax,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

impl AtomicFn {
    pub const ALL: [AtomicFn; 13] = [
        AtomicFn::Add,
        AtomicFn::Sub,
        AtomicFn::Min,
        AtomicFn::Max,
        AtomicFn::NanMin,
        AtomicFn::NanMax,
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
            AtomicFn::NanMin => "nanmin",
            AtomicFn::NanMax => "nanmax",
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
            AtomicFn::NanMin => "NanMin",
            AtomicFn::NanMax => "NanMax",
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
            AtomicFn::Add
            | AtomicFn::Sub
            | AtomicFn::Min
            | AtomicFn::Max
            | AtomicFn::NanMin
            | AtomicFn::NanMax
            | AtomicFn::Exch => &[I32, U32, I64, U64, Usize, F32, F64],
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
