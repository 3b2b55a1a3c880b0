//! Value types of the kernel language: scalars, resolved types, device
//! function signatures.

use proc_macro2::TokenStream;

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
    /// Every scalar type, in declaration order (a unit test of
    /// `emit_cuda::helpers` checks that none is missing).
    pub const ALL: [Scalar; 12] = [
        Scalar::U8,
        Scalar::I8,
        Scalar::I16,
        Scalar::U16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U32,
        Scalar::U64,
        Scalar::Usize,
        Scalar::F32,
        Scalar::F64,
        Scalar::Bool,
    ];
    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.rust_name() == name)
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
