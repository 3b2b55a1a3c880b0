//! CUDA C for the numeric methods (`MathFn`): CUDA's `float` function for an
//! `f32` (`tanhf`), its `double` one for an `f64`, and a `gj_` helper from
//! `math_helpers.cu` where Rust's definition needs one (integer bit methods
//! through `__popc`, `__clz`, `__brev`, `__funnelshift_l`, `__byte_perm`, ...).

use std::collections::BTreeSet;

use crate::model::{MathFn, Scalar};

/// The receiver's type as the emitter sees it.
pub enum Recv<'a> {
    Known(Scalar),
    /// A type only rustc knows: the C `typedef` it is declared with.
    Opaque(&'a str),
}

/// The call of `f` on `args` (receiver first). Adds the helpers it uses to
/// `helpers`; `None` where the caller's own translation applies (`abs`,
/// `min`, `max` on integers, and on opaque types the generic prelude's).
pub fn call(
    f: MathFn,
    recv: Recv<'_>,
    result: Option<Scalar>,
    args: &[String],
    helpers: &mut BTreeSet<&'static str>,
) -> Option<String> {
    let joined = args.join(", ");
    // Helpers that take any receiver type.
    let helper: Option<&'static str> = match f {
        MathFn::Signum => Some("gj_signum"),
        MathFn::Clamp => Some("gj_clamp"),
        MathFn::Fract => Some("gj_fract"),
        MathFn::Asinh => Some("gj_asinh"),
        MathFn::Acosh => Some("gj_acosh"),
        MathFn::Atanh => Some("gj_atanh"),
        MathFn::Pow => Some("gj_pow"),
        MathFn::SaturatingAdd => Some("gj_saturating_add"),
        MathFn::SaturatingSub => Some("gj_saturating_sub"),
        MathFn::AbsDiff => Some("gj_abs_diff"),
        MathFn::DivEuclid => Some("gj_div_euclid"),
        MathFn::RemEuclid => Some("gj_rem_euclid"),
        MathFn::CountOnes => Some("gj_count_ones"),
        MathFn::CountZeros => Some("gj_count_zeros"),
        MathFn::LeadingZeros => Some("gj_leading_zeros"),
        MathFn::TrailingZeros => Some("gj_trailing_zeros"),
        MathFn::ReverseBits => Some("gj_reverse_bits"),
        MathFn::RotateLeft => Some("gj_rotate_left"),
        MathFn::RotateRight => Some("gj_rotate_right"),
        MathFn::SwapBytes => Some("gj_swap_bytes"),
        MathFn::IsPowerOfTwo => Some("gj_is_power_of_two"),
        MathFn::DivCeil => Some("gj_div_ceil"),
        MathFn::NextMultipleOf => Some("gj_next_multiple_of"),
        MathFn::NextPowerOfTwo => Some("gj_next_power_of_two"),
        MathFn::Isqrt => Some("gj_isqrt"),
        MathFn::Ilog => Some("gj_ilog"),
        MathFn::Ilog2 => Some("gj_ilog2"),
        MathFn::Ilog10 => Some("gj_ilog10"),
        MathFn::SaturatingMul => Some("gj_saturating_mul"),
        MathFn::UnsignedAbs => Some("gj_unsigned_abs"),
        MathFn::LeadingOnes => Some("gj_leading_ones"),
        MathFn::TrailingOnes => Some("gj_trailing_ones"),
        _ => None,
    };
    let t = match &recv {
        Recv::Known(s) => s.c_name(),
        Recv::Opaque(name) => name,
    };
    if let Some(h) = helper {
        helpers.insert(h);
        if matches!(f, MathFn::AbsDiff | MathFn::UnsignedAbs) {
            let u = result.map_or(t, |s| s.c_name());
            return Some(format!("{h}<{t}, {u}>({joined})"));
        }
        return Some(format!("{h}<{t}>({joined})"));
    }
    match f {
        MathFn::IsNan => return Some(format!("isnan({joined})")),
        MathFn::IsInfinite => return Some(format!("isinf({joined})")),
        MathFn::IsFinite => return Some(format!("isfinite({joined})")),
        MathFn::Recip | MathFn::ToDegrees | MathFn::ToRadians => return Some(scale(f, &recv, &args[0])),
        _ => {}
    }
    let s = match recv {
        Recv::Known(s) if s.is_float() => s,
        // Integer abs/min/max, and everything on opaque types: the caller's.
        _ => return None,
    };
    if f == MathFn::Powi {
        helpers.insert("gj_powi");
        return Some(format!("gj_powi({joined})"));
    }
    // -0.0 below +0.0, as on the CPU backend (C's fmin/fmax may return either zero).
    if let Some(h) = match f {
        MathFn::Min => Some("gj_fmin"),
        MathFn::Max => Some("gj_fmax"),
        _ => None,
    } {
        helpers.insert(h);
        return Some(format!("{h}<{}>({joined})", s.c_name()));
    }
    let name = c_float_name(f)?;
    let sfx = if s == Scalar::F32 { "f" } else { "" };
    Some(format!("{name}{sfx}({joined})"))
}

/// The C math library's name for `f` (the `double` one; `f` appended for `float`).
pub fn c_float_name(f: MathFn) -> Option<&'static str> {
    use MathFn::*;
    Some(match f {
        Sqrt => "sqrt",
        Cbrt => "cbrt",
        Exp => "exp",
        Exp2 => "exp2",
        ExpM1 => "expm1",
        Ln => "log",
        Log2 => "log2",
        Log10 => "log10",
        Ln1p => "log1p",
        Sin => "sin",
        Cos => "cos",
        Tan => "tan",
        Asin => "asin",
        Acos => "acos",
        Atan => "atan",
        Atan2 => "atan2",
        Sinh => "sinh",
        Cosh => "cosh",
        Tanh => "tanh",
        Asinh => "asinh",
        Acosh => "acosh",
        Atanh => "atanh",
        Hypot => "hypot",
        Powf => "pow",
        Copysign => "copysign",
        Floor => "floor",
        Ceil => "ceil",
        Round => "round",
        Trunc => "trunc",
        MulAdd => "fma",
        Abs => "fabs",
        Min => "fmin",
        Max => "fmax",
        _ => return None,
    })
}

/// `recip`, `to_degrees`, `to_radians`: one multiplication or division by
/// the constant Rust's own method uses, computed here by Rust (`1.0.to_degrees()`
/// is that constant), so that both backends round alike.
fn scale(f: MathFn, recv: &Recv<'_>, x: &str) -> String {
    let (c32, c64) = match f {
        MathFn::ToDegrees => (1f32.to_degrees(), 1f64.to_degrees()),
        MathFn::ToRadians => (1f32.to_radians(), 1f64.to_radians()),
        _ => (1.0, 1.0),
    };
    let (l32, l64) = (format!("{c32:?}f"), format!("{c64:?}"));
    let c = match recv {
        Recv::Known(Scalar::F32) => l32,
        Recv::Known(_) => l64,
        Recv::Opaque(t) => format!("gj_lit<{t}>({l32}, {l64})"),
    };
    if f == MathFn::Recip {
        format!("({c} / ({x}))")
    } else {
        format!("(({x}) * {c})")
    }
}

/// The source of helper `name` from `math_helpers.cu`, if it is one.
pub fn helper_source(name: &str) -> Option<&'static str> {
    const ALL: &str = include_str!("math_helpers.cu");
    let marker = format!("// @{name}\n");
    let start = ALL.find(&marker)? + marker.len();
    let end = ALL[start..].find("// @").map_or(ALL.len(), |e| start + e);
    Some(&ALL[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_helper_has_a_section() {
        for h in [
            "gj_signum",
            "gj_clamp",
            "gj_fract",
            "gj_pow",
            "gj_is_power_of_two",
            "gj_swap_bytes",
            "gj_div_ceil",
            "gj_next_multiple_of",
            "gj_next_power_of_two",
            "gj_isqrt",
            "gj_ilog",
            "gj_ilog2",
            "gj_ilog10",
            "gj_saturating_mul",
            "gj_unsigned_abs",
            "gj_leading_ones",
            "gj_trailing_ones",
            "gj_fmin",
            "gj_fmax",
        ] {
            let src = helper_source(h).unwrap();
            assert!(src.contains(&format!(" {h}(")), "{h}: {src}");
            assert!(!src.contains("// @"), "{h}: {src}");
        }
        assert!(helper_source("gj_nothing").is_none());
    }
}
