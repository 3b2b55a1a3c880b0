//! The CUDA C helper functions a kernel may need, by name.

use crate::cuda_math;

pub(super) fn helper_source(name: &str) -> &'static str {
    match name {
        "gj_div_i32" => "static __device__ __forceinline__ int gj_div_i32(int a, int b) { return b == -1 ? (int)(0u - (unsigned int)a) : a / b; }\n",
        "gj_rem_i32" => "static __device__ __forceinline__ int gj_rem_i32(int a, int b) { return b == -1 ? 0 : a % b; }\n",
        "gj_div_i64" => "static __device__ __forceinline__ long long gj_div_i64(long long a, long long b) { return b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b; }\n",
        "gj_rem_i64" => "static __device__ __forceinline__ long long gj_rem_i64(long long a, long long b) { return b == -1 ? 0 : a % b; }\n",
        "gj_generic" => include_str!("../generic_prelude.cu"),
        "gj_match_all_sync" => "template <class T> static __device__ __forceinline__ unsigned gj_match_all_sync(unsigned mask, T v) { int pred; return __match_all_sync(mask, v, &pred); }\n",
        "gj_powi" => include_str!("../powi.cu"),
        "gj_atomic_min_f32" => ATOMIC_MIN_F32,
        "gj_atomic_max_f32" => ATOMIC_MAX_F32,
        "gj_atomic_min_f64" => ATOMIC_MIN_F64,
        "gj_atomic_max_f64" => ATOMIC_MAX_F64,
        "gj_atomic_nanmin_f32" => ATOMIC_NANMIN_F32,
        "gj_atomic_nanmax_f32" => ATOMIC_NANMAX_F32,
        "gj_atomic_nanmin_f64" => ATOMIC_NANMIN_F64,
        "gj_atomic_nanmax_f64" => ATOMIC_NANMAX_F64,
        "gj_tuple" => "template <class A, class B> struct gj_tuple2 { A f0; B f1; };\ntemplate <class A, class B, class C> struct gj_tuple3 { A f0; B f1; C f2; };\ntemplate <class A, class B, class C, class D> struct gj_tuple4 { A f0; B f1; C f2; D f3; };\n",
        other => cuda_math::helper_source(other).unwrap_or(""),
    }
}

/// Float atomic min/max as compare-and-swap loops (CUDA has no float
/// `atomicMin`), exactly as the CPU backend's `AtomicOp`s:
/// - `gj_atomic_min`/`max` (Numba's `cuda.atomic.min`/`max`): the element
///   stays where either it or `v` is NaN;
/// - `gj_atomic_nanmin`/`nanmax` (`cuda.atomic.nanmin`/`nanmax`): a NaN
///   loses (a NaN element is replaced, a NaN `v` changes nothing).
///
/// An equal `v` keeps the element. No store when the element stays.
macro_rules! float_minmax {
    ($name:literal, $t:literal, $bits:literal, $to_bits:literal, $from_bits:literal, $cmp:literal, $nan_loses:literal) => {
        concat!(
            "static __device__ __forceinline__ ",
            $t,
            " ",
            $name,
            "(",
            $t,
            "* p, ",
            $t,
            " v) {\n",
            "    ",
            $bits,
            "* q = (",
            $bits,
            "*)p;\n",
            "    ",
            $bits,
            " old = *(volatile ",
            $bits,
            "*)q;\n",
            "    for (;;) {\n",
            "        const ",
            $t,
            " cur = ",
            $from_bits,
            "(old);\n",
            "        if (!(v ",
            $cmp,
            " cur",
            $nan_loses,
            ")) return cur;\n",
            "        const ",
            $bits,
            " seen = atomicCAS(q, old, (",
            $bits,
            ")",
            $to_bits,
            "(v));\n",
            "        if (seen == old) return cur;\n",
            "        old = seen;\n",
            "    }\n",
            "}\n"
        )
    };
}
macro_rules! f32_minmax {
    ($name:literal, $cmp:literal, $nan_loses:literal) => {
        float_minmax!(
            $name,
            "float",
            "unsigned int",
            "__float_as_uint",
            "__uint_as_float",
            $cmp,
            $nan_loses
        )
    };
}
macro_rules! f64_minmax {
    ($name:literal, $cmp:literal, $nan_loses:literal) => {
        float_minmax!(
            $name,
            "double",
            "unsigned long long",
            "__double_as_longlong",
            "__longlong_as_double",
            $cmp,
            $nan_loses
        )
    };
}
const ATOMIC_MIN_F32: &str = f32_minmax!("gj_atomic_min_f32", "<", "");
const ATOMIC_MAX_F32: &str = f32_minmax!("gj_atomic_max_f32", ">", "");
const ATOMIC_MIN_F64: &str = f64_minmax!("gj_atomic_min_f64", "<", "");
const ATOMIC_MAX_F64: &str = f64_minmax!("gj_atomic_max_f64", ">", "");
const ATOMIC_NANMIN_F32: &str = f32_minmax!("gj_atomic_nanmin_f32", "<", " || cur != cur");
const ATOMIC_NANMAX_F32: &str = f32_minmax!("gj_atomic_nanmax_f32", ">", " || cur != cur");
const ATOMIC_NANMIN_F64: &str = f64_minmax!("gj_atomic_nanmin_f64", "<", " || cur != cur");
const ATOMIC_NANMAX_F64: &str = f64_minmax!("gj_atomic_nanmax_f64", ">", " || cur != cur");

#[cfg(test)]
mod tests {
    use crate::model::Scalar;

    /// The type after `s` in `Scalar::ALL`: a new type does not compile
    /// here until it joins the chain, and then the test below fails until
    /// it joins `ALL`.
    fn next(s: Scalar) -> Option<Scalar> {
        Some(match s {
            Scalar::U8 => Scalar::I8,
            Scalar::I8 => Scalar::I16,
            Scalar::I16 => Scalar::U16,
            Scalar::U16 => Scalar::I32,
            Scalar::I32 => Scalar::I64,
            Scalar::I64 => Scalar::U32,
            Scalar::U32 => Scalar::U64,
            Scalar::U64 => Scalar::Usize,
            Scalar::Usize => Scalar::F32,
            Scalar::F32 => Scalar::F64,
            Scalar::F64 => Scalar::Bool,
            Scalar::Bool => return None,
        })
    }

    #[test]
    fn all_lists_every_scalar() {
        let chain: Vec<Scalar> = std::iter::successors(Some(Scalar::U8), |&s| next(s)).collect();
        assert_eq!(chain, Scalar::ALL);
    }

    /// The generic helpers instantiate `gj_traits<T>` for the C type of any
    /// scalar a constant or a device function may have: each needs one, of
    /// its width, with its range for the integers (the saturating casts).
    #[test]
    fn the_generic_prelude_has_traits_for_every_scalar() {
        let prelude = super::helper_source("gj_generic");
        for s in Scalar::ALL {
            let c = s.c_name();
            let line = prelude
                .lines()
                .find(|l| l.starts_with(&format!("template <> struct gj_traits<{c}> {{")))
                .unwrap_or_else(|| panic!("no gj_traits<{c}> for {s:?}"));
            assert!(line.contains(&format!("bits = {};", s.bits())), "{line}");
            assert!(line.contains(&format!("is_float = {};", s.is_float())), "{line}");
            if s.is_int() {
                assert!(line.contains(&format!("typedef {} u;", s.c_unsigned())), "{line}");
                assert!(line.contains(" min = ") && line.contains(", max = "), "{line}");
            }
        }
    }
}
