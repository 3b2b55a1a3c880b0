//! Element and scalar types that kernels accept, and how they map to CUDA C.

use std::fmt::Debug;

/// The scalar types of the kernel language, with their CUDA C spelling.
///
/// `usize` is 64 bits on every supported host and maps to `unsigned long long`.
///
/// ```
/// use gpujit::{KernelScalar, ScalarType};
///
/// assert_eq!(f32::TYPE, ScalarType::F32);
/// assert_eq!((ScalarType::U64.c_name(), ScalarType::U64.size_bytes()), ("unsigned long long", 8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `u8` (`unsigned char`).
    U8,
    /// `i8` (`signed char`).
    I8,
    /// `i16` (`short`).
    I16,
    /// `u16` (`unsigned short`).
    U16,
    /// `i32` (`int`).
    I32,
    /// `i64` (`long long`).
    I64,
    /// `u32` (`unsigned int`).
    U32,
    /// `u64` (`unsigned long long`).
    U64,
    /// `usize` (`unsigned long long`).
    Usize,
    /// `f32` (`float`).
    F32,
    /// `f64` (`double`).
    F64,
    /// `bool` (`bool`).
    Bool,
}

impl ScalarType {
    /// The Rust spelling (`"f32"`, `"usize"`, ...).
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::U8 => "u8",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::U16 => "u16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::Usize => "usize",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Bool => "bool",
        }
    }

    /// The CUDA C spelling (`"float"`, `"unsigned long long"`, ...).
    pub fn c_name(self) -> &'static str {
        match self {
            ScalarType::U8 => "unsigned char",
            ScalarType::I8 => "signed char",
            ScalarType::I16 => "short",
            ScalarType::U16 => "unsigned short",
            ScalarType::I32 => "int",
            ScalarType::I64 => "long long",
            ScalarType::U32 => "unsigned int",
            ScalarType::U64 | ScalarType::Usize => "unsigned long long",
            ScalarType::F32 => "float",
            ScalarType::F64 => "double",
            ScalarType::Bool => "bool",
        }
    }

    /// Size of one element in bytes.
    pub fn size_bytes(self) -> usize {
        match self {
            ScalarType::U8 | ScalarType::I8 | ScalarType::Bool => 1,
            ScalarType::I16 | ScalarType::U16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::Usize | ScalarType::F64 => 8,
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A scalar that can be passed by value to a kernel (`u8 i8 i16 u16 i32 i64 u32 u64 usize f32 f64 bool`).
/// Sealed: exactly these types.
///
/// ```
/// fn type_of<T: gpujit::KernelScalar>(_: T) -> &'static str {
///     T::TYPE.rust_name()
/// }
/// assert_eq!(type_of(true), "bool");
/// ```
pub trait KernelScalar: Copy + Send + Sync + Debug + Default + PartialEq + 'static + sealed::Sealed {
    /// The kernel-language type of `Self`.
    const TYPE: ScalarType;
    /// (Used by generated code; not a user API.)
    /// Wraps the value for a type-erased launch.
    #[doc(hidden)]
    fn to_value(self) -> ScalarValue;
    /// (Used by generated code; not a user API.)
    /// Unwraps a value of the same type; `None` for any other type.
    #[doc(hidden)]
    fn from_value(value: ScalarValue) -> Option<Self>;
    /// (Used by generated code; not a user API.)
    /// CUDA C literal for the value, e.g. `0.1f`, `16ull`, `(-2147483647 - 1)`.
    #[doc(hidden)]
    fn c_literal(self) -> String;
}

/// An element type of a [`DeviceArray`](crate::DeviceArray), a kernel's array
/// parameters and shared arrays: every [`KernelScalar`] (`u8 i8 i16 u16 i32 i64
/// u32 u64 usize f32 f64 bool`).
///
/// A `bool` element is one byte holding 0 or 1 (CUDA C's `bool`). Copies to
/// the host read any other byte as `true`, so memory written by a faulty kernel
/// never becomes an invalid Rust `bool`.
///
/// ```
/// fn upload<T: gpujit::DeviceScalar>(v: &[T]) -> gpujit::Result<gpujit::DeviceArray<T>> {
///     gpujit::to_device(v)
/// }
/// assert_eq!(upload(&[1u8, 2]).unwrap().size_bytes(), 2);
/// assert_eq!(upload(&[true, false]).unwrap().copy_to_host().unwrap(), [true, false]);
/// ```
pub trait DeviceScalar: KernelScalar {
    /// (Used by the runtime; not a user API.)
    /// Turns bytes copied from device memory into valid values of `Self` in
    /// place: the identity for every type but `bool`, whose bytes become 0 or 1.
    #[doc(hidden)]
    #[inline]
    fn make_valid(_bytes: &mut [u8]) {}
}

/// A [`DeviceScalar`] for which any bit pattern is a valid value (every one
/// but `bool`): the element types of a [`PinnedArray`](crate::PinnedArray),
/// whose memory the GPU writes asynchronously.
///
/// ```
/// fn staging<T: gpujit::PodScalar>(n: usize) -> gpujit::Result<gpujit::PinnedArray<T>> {
///     gpujit::pinned_array(n)
/// }
/// assert_eq!(staging::<i16>(3).unwrap().len(), 3);
/// ```
pub trait PodScalar: DeviceScalar {}

/// A type-erased kernel scalar argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScalarValue {
    /// A `u8`.
    U8(u8),
    /// An `i8`.
    I8(i8),
    /// An `i16`.
    I16(i16),
    /// A `u16`.
    U16(u16),
    /// A `i32`.
    I32(i32),
    /// A `i64`.
    I64(i64),
    /// A `u32`.
    U32(u32),
    /// A `u64`.
    U64(u64),
    /// A `usize`.
    Usize(usize),
    /// A `f32`.
    F32(f32),
    /// A `f64`.
    F64(f64),
    /// A `bool`.
    Bool(bool),
}

impl ScalarValue {
    /// The type of the wrapped value.
    pub fn scalar_type(&self) -> ScalarType {
        match self {
            ScalarValue::U8(_) => ScalarType::U8,
            ScalarValue::I8(_) => ScalarType::I8,
            ScalarValue::I16(_) => ScalarType::I16,
            ScalarValue::U16(_) => ScalarType::U16,
            ScalarValue::I32(_) => ScalarType::I32,
            ScalarValue::I64(_) => ScalarType::I64,
            ScalarValue::U32(_) => ScalarType::U32,
            ScalarValue::U64(_) => ScalarType::U64,
            ScalarValue::Usize(_) => ScalarType::Usize,
            ScalarValue::F32(_) => ScalarType::F32,
            ScalarValue::F64(_) => ScalarType::F64,
            ScalarValue::Bool(_) => ScalarType::Bool,
        }
    }
}

fn float_literal(text: String, is_f32: bool, finite: bool, bits: u64) -> String {
    if !finite {
        // Infinities and NaNs have no literal; `__builtin_bit_cast` of their
        // exact bits is a constant expression for NVRTC (and g++), which the
        // `constexpr` they initialise needs (`__int_as_float` is not).
        return if is_f32 {
            format!("__builtin_bit_cast(float, 0x{bits:08x}u)")
        } else {
            format!("__builtin_bit_cast(double, 0x{bits:016x}ull)")
        };
    }
    // `{:?}` prints the shortest text that parses back to the same value.
    let text = if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    };
    let suffix = if is_f32 { "f" } else { "" };
    format!("{text}{suffix}")
}

/// Implements the scalar traits for `$t`; `$literal` turns a value into its
/// CUDA C literal.
macro_rules! kernel_scalar {
    ($t:ty, $variant:ident, $literal:expr) => {
        impl sealed::Sealed for $t {}
        impl KernelScalar for $t {
            const TYPE: ScalarType = ScalarType::$variant;
            fn to_value(self) -> ScalarValue {
                ScalarValue::$variant(self)
            }
            fn from_value(value: ScalarValue) -> Option<Self> {
                match value {
                    ScalarValue::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn c_literal(self) -> String {
                let literal: fn($t) -> String = $literal;
                literal(self)
            }
        }
    };
}

/// `v` with a C suffix; a type's minimum is written `(MIN + 1 - 1)` because
/// `-2147483648` is a negated out-of-range literal in C.
macro_rules! int_scalar {
    ($t:ty, $variant:ident, $suffix:literal) => {
        kernel_scalar!($t, $variant, |v| {
            #[allow(unused_comparisons)]
            if v < 0 && v == <$t>::MIN {
                format!("({}{} - 1)", v + 1, $suffix)
            } else {
                format!("{}{}", v, $suffix)
            }
        });
        impl DeviceScalar for $t {}
        impl PodScalar for $t {}
    };
}

int_scalar!(u8, U8, "");
int_scalar!(i8, I8, "");
int_scalar!(i16, I16, "");
int_scalar!(u16, U16, "");
int_scalar!(i32, I32, "");
int_scalar!(i64, I64, "ll");
int_scalar!(u32, U32, "u");
int_scalar!(u64, U64, "ull");
int_scalar!(usize, Usize, "ull");

kernel_scalar!(f32, F32, |v| float_literal(
    format!("{v:?}"),
    true,
    v.is_finite(),
    v.to_bits() as u64
));
impl DeviceScalar for f32 {}
impl PodScalar for f32 {}
kernel_scalar!(f64, F64, |v| float_literal(
    format!("{v:?}"),
    false,
    v.is_finite(),
    v.to_bits()
));
impl DeviceScalar for f64 {}
impl PodScalar for f64 {}
kernel_scalar!(bool, Bool, |v| if v { "true".into() } else { "false".into() });
impl DeviceScalar for bool {
    fn make_valid(bytes: &mut [u8]) {
        for b in bytes {
            *b = u8::from(*b != 0);
        }
    }
}

/// Declares a module-level Rust `const` that a kernel uses, in CUDA C.
///
/// The macro cannot see the value of a `const` defined outside the kernel, so
/// the generated `cuda_source()` asks for it when the source is first built.
pub trait CudaConst {
    /// `static constexpr float NAME = 0.5f;` (with a newline).
    fn cuda_decl(&self, c_name: &str) -> String;
    /// `typedef float TYPE_NAME;` (with a newline): names the constant's type
    /// for expressions whose type only rustc knew when the kernel was translated.
    fn cuda_typedef(&self, type_name: &str) -> String;
}

impl<T: KernelScalar> CudaConst for T {
    fn cuda_decl(&self, c_name: &str) -> String {
        format!(
            "static constexpr {} {c_name} = {};\n",
            T::TYPE.c_name(),
            self.c_literal()
        )
    }

    fn cuda_typedef(&self, type_name: &str) -> String {
        format!("typedef {} {type_name};\n", T::TYPE.c_name())
    }
}

/// Declares a module-level Rust `const` array that a kernel indexes
/// (`FILTER[i]`) in CUDA C: `__constant__` memory with the exact values
/// (each element written by [`KernelScalar::c_literal`], which NVRTC reads
/// back bit for bit). `R` is the number of dimensions (1-3).
pub trait CudaConstArray<const R: usize> {
    /// `__constant__ float NAME[5] = {0.1f, ...};` (with a newline). An
    /// array with no elements is declared with one zero element (C has no
    /// empty arrays; every index of it is out of bounds anyway).
    fn cuda_array_decl(&self, c_name: &str) -> String;
    /// `typedef float TYPE_NAME;` (with a newline): the element type.
    fn cuda_elem_typedef(&self, type_name: &str) -> String;
}

fn array_decl<T: KernelScalar>(c_name: &str, dims: &[usize], values: impl Iterator<Item = T>) -> String {
    let ty = T::TYPE.c_name();
    if dims.contains(&0) {
        return format!("__constant__ {ty} {c_name}[1] = {{}};\n");
    }
    let mut parts: Vec<String> = values.map(KernelScalar::c_literal).collect();
    // Nested braces, one level per inner dimension.
    for &n in dims.iter().skip(1).rev() {
        parts = parts.chunks(n).map(|c| format!("{{{}}}", c.join(", "))).collect();
    }
    let extents: String = dims.iter().map(|d| format!("[{d}]")).collect();
    format!("__constant__ {ty} {c_name}{extents} = {{{}}};\n", parts.join(", "))
}

impl<T: KernelScalar, const A: usize> CudaConstArray<1> for [T; A] {
    fn cuda_array_decl(&self, c_name: &str) -> String {
        array_decl(c_name, &[A], self.iter().copied())
    }
    fn cuda_elem_typedef(&self, type_name: &str) -> String {
        format!("typedef {} {type_name};\n", T::TYPE.c_name())
    }
}

impl<T: KernelScalar, const A: usize, const B: usize> CudaConstArray<2> for [[T; B]; A] {
    fn cuda_array_decl(&self, c_name: &str) -> String {
        array_decl(c_name, &[A, B], self.iter().flatten().copied())
    }
    fn cuda_elem_typedef(&self, type_name: &str) -> String {
        format!("typedef {} {type_name};\n", T::TYPE.c_name())
    }
}

impl<T: KernelScalar, const A: usize, const B: usize, const C: usize> CudaConstArray<3> for [[[T; C]; B]; A] {
    fn cuda_array_decl(&self, c_name: &str) -> String {
        array_decl(c_name, &[A, B, C], self.iter().flatten().flatten().copied())
    }
    fn cuda_elem_typedef(&self, type_name: &str) -> String {
        format!("typedef {} {type_name};\n", T::TYPE.c_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_arrays_declare_exact_values() {
        assert_eq!(
            [0.1f32, -0.0, f32::NAN].cuda_array_decl("F"),
            "__constant__ float F[3] = {0.1f, -0.0f, __builtin_bit_cast(float, 0x7fc00000u)};\n"
        );
        assert_eq!(
            [[1i32, 2, 3], [4, 5, 6]].cuda_array_decl("W"),
            "__constant__ int W[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
        );
        assert_eq!(
            [[[1u8], [2]], [[3], [4]]].cuda_array_decl("C"),
            "__constant__ unsigned char C[2][2][1] = {{{1}, {2}}, {{3}, {4}}};\n"
        );
        let empty: [f64; 0] = [];
        assert_eq!(empty.cuda_array_decl("E"), "__constant__ double E[1] = {};\n");
        assert_eq!(
            [1u64; 2].cuda_elem_typedef("K_type"),
            "typedef unsigned long long K_type;\n"
        );
    }

    #[test]
    fn literals_round_trip_their_type() {
        assert_eq!(0.1f32.c_literal(), "0.1f");
        assert_eq!(2.0f64.c_literal(), "2.0");
        assert_eq!(1e30f32.c_literal(), "1e30f");
        assert_eq!(16usize.c_literal(), "16ull");
        assert_eq!(i32::MIN.c_literal(), "(-2147483647 - 1)");
        assert_eq!(i64::MIN.c_literal(), "(-9223372036854775807ll - 1)");
        assert_eq!(7u32.c_literal(), "7u");
        assert_eq!(f32::INFINITY.c_literal(), "__builtin_bit_cast(float, 0x7f800000u)");
        assert_eq!(
            f64::NEG_INFINITY.c_literal(),
            "__builtin_bit_cast(double, 0xfff0000000000000ull)"
        );
        assert_eq!(f32::NAN.c_literal(), "__builtin_bit_cast(float, 0x7fc00000u)");
        assert_eq!(
            16usize.cuda_decl("TILE"),
            "static constexpr unsigned long long TILE = 16ull;\n"
        );
        assert_eq!(200u8.cuda_typedef("K_type"), "typedef unsigned char K_type;\n");
    }
}
