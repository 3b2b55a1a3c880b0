//! Stand-ins that let rustc accept a numeric method on the wrong kind of
//! number (`x.sqrt()` on a `u32`, `v.count_ones()` on an `f32`) in a kernel's
//! type-checked copy, so that gpujit's own error ("`sqrt` is an `f32`/`f64`
//! method, and this value is a `u32`", with what to write) is the only one.
//! Inherent methods win over trait methods, so a correct call never reaches
//! these; they are in scope only in the type-checked copy, which never runs.
//! A float method on an integer returns the float type gpujit's help suggests
//! converting to, so that the code around it (`y[i] = x.sqrt() * 2.0`) adds
//! no type mismatch either.

const NEVER: &str = "gpujit type-checking stand-in: never called";

macro_rules! stand_ins {
    ($(#[$doc:meta])* $tr:ident for $($t:ty => $out:ty),* { $($name:ident($($arg:ident: $at:ty),*) -> $ret:ty;)* }) => {
        $(#[$doc])*
        #[allow(clippy::wrong_self_convention)] // the names are Rust's own methods
        pub trait $tr: Sized {
            /// What the stand-ins return where Rust's method returns `Self`.
            type Out;
            $(
                /// Stand-in; gpujit reports the call.
                fn $name(self, $($arg: $at),*) -> $ret {
                    $(let _ = $arg;)*
                    unreachable!("{}", NEVER)
                }
            )*
        }
        $(impl $tr for $t {
            type Out = $out;
        })*
    };
}

stand_ins! {
    /// The `f32`/`f64` methods on integers; they return the float type that
    /// gpujit's help suggests converting to (`f64` for 64-bit integers).
    FloatMethodsOnIntegers for u8 => f32, i8 => f32, i16 => f32, u16 => f32, i32 => f32, u32 => f32,
        i64 => f64, u64 => f64, usize => f64 {
        sqrt() -> Self::Out; cbrt() -> Self::Out; exp() -> Self::Out; exp2() -> Self::Out;
        exp_m1() -> Self::Out; ln() -> Self::Out; log2() -> Self::Out; log10() -> Self::Out;
        ln_1p() -> Self::Out; sin() -> Self::Out; cos() -> Self::Out; tan() -> Self::Out;
        asin() -> Self::Out; acos() -> Self::Out; atan() -> Self::Out; atan2(o: Self) -> Self::Out;
        sinh() -> Self::Out; cosh() -> Self::Out; tanh() -> Self::Out; asinh() -> Self::Out;
        acosh() -> Self::Out; atanh() -> Self::Out; hypot(o: Self) -> Self::Out; powf(o: Self) -> Self::Out;
        powi(n: i32) -> Self::Out; copysign(o: Self) -> Self::Out; floor() -> Self::Out; ceil() -> Self::Out;
        round() -> Self::Out; trunc() -> Self::Out; fract() -> Self::Out;
        mul_add(a: Self, b: Self) -> Self::Out; is_nan() -> bool; is_infinite() -> bool; is_finite() -> bool;
        recip() -> Self::Out; to_degrees() -> Self::Out; to_radians() -> Self::Out;
    }
}

stand_ins! {
    /// The integer methods on `f32` and `f64`.
    IntMethodsOnFloats for f32 => f32, f64 => f64 {
        wrapping_abs() -> Self; pow(e: u32) -> Self; wrapping_pow(e: u32) -> Self;
        saturating_add(o: Self) -> Self; saturating_sub(o: Self) -> Self; abs_diff(o: Self) -> Self;
        count_ones() -> u32; count_zeros() -> u32; leading_zeros() -> u32; trailing_zeros() -> u32;
        reverse_bits() -> Self; rotate_left(n: u32) -> Self; rotate_right(n: u32) -> Self;
        swap_bytes() -> Self; is_power_of_two() -> bool; wrapping_add(o: Self) -> Self;
        wrapping_sub(o: Self) -> Self; wrapping_mul(o: Self) -> Self; wrapping_neg() -> Self;
        wrapping_shl(n: u32) -> Self; wrapping_shr(n: u32) -> Self; wrapping_div(o: Self) -> Self;
        wrapping_rem(o: Self) -> Self; div_ceil(o: Self) -> Self; next_multiple_of(o: Self) -> Self;
        next_power_of_two() -> Self; isqrt() -> Self; ilog(b: Self) -> u32; ilog2() -> u32; ilog10() -> u32;
        saturating_mul(o: Self) -> Self; unsigned_abs() -> Self; leading_ones() -> u32; trailing_ones() -> u32;
    }
}

stand_ins! {
    /// The methods stable Rust has on the unsigned types only, on the signed
    /// ones (Rust's own signed `div_ceil` and `next_multiple_of` are unstable:
    /// these stand-ins win over them, with the `unstable_name_collisions` lint
    /// allowed in the copy).
    UnsignedMethodsOnSigned for i8 => i8, i16 => i16, i32 => i32, i64 => i64 {
        is_power_of_two() -> bool; div_ceil(o: Self) -> Self; next_multiple_of(o: Self) -> Self;
        next_power_of_two() -> Self;
    }
}

stand_ins! {
    /// `unsigned_abs` (a signed types' method) on the unsigned types.
    SignedMethodsOnUnsigned for u8 => u8, u16 => u16, u32 => u32, u64 => u64, usize => usize {
        unsigned_abs() -> Self;
    }
}
