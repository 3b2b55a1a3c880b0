//! The CUDA C helper functions a kernel may need, by name.

use crate::cuda_math;

pub(super) fn helper_source(name: &str) -> &'static str {
    match name {
        "gj_div_i32" => "static __device__ __forceinline__ int gj_div_i32(int a, int b) { return b == -1 ? (int)(0u - (unsigned int)a) : a / b; }\n",
        "gj_rem_i32" => "static __device__ __forceinline__ int gj_rem_i32(int a, int b) { return b == -1 ? 0 : a % b; }\n",
        "gj_div_i64" => "static __device__ __forceinline__ long long gj_div_i64(long long a, long long b) { return b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b; }\n",
        "gj_rem_i64" => "static __device__ __forceinline__ long long gj_rem_i64(long long a, long long b) { return b == -1 ? 0 : a % b; }\n",
        "gj_generic" => include_str!("../generic_prelude.cu"),
        "gj_powi" => include_str!("../powi.cu"),
        "gj_atomic_min_f32" => ATOMIC_MIN_F32,
        "gj_atomic_max_f32" => ATOMIC_MAX_F32,
        "gj_atomic_min_f64" => ATOMIC_MIN_F64,
        "gj_atomic_max_f64" => ATOMIC_MAX_F64,
        "gj_tuple" => "template <class A, class B> struct gj_tuple2 { A f0; B f1; };\ntemplate <class A, class B, class C> struct gj_tuple3 { A f0; B f1; C f2; };\ntemplate <class A, class B, class C, class D> struct gj_tuple4 { A f0; B f1; C f2; D f3; };\n",
        other => cuda_math::helper_source(other).unwrap_or(""),
    }
}

/// Float atomic min/max as compare-and-swap loops (CUDA has no float
/// `atomicMin`): a NaN operand loses (a NaN element is replaced, a NaN `v`
/// changes nothing) and an equal `v` keeps the element, exactly as the CPU
/// backend's `AtomicOp::Min`/`Max`. No store when the element stays.
macro_rules! float_minmax {
    ($name:literal, $t:literal, $bits:literal, $to_bits:literal, $from_bits:literal, $cmp:literal) => {
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
            " cur || cur != cur)) return cur;\n",
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
const ATOMIC_MIN_F32: &str = float_minmax!(
    "gj_atomic_min_f32",
    "float",
    "unsigned int",
    "__float_as_uint",
    "__uint_as_float",
    "<"
);
const ATOMIC_MAX_F32: &str = float_minmax!(
    "gj_atomic_max_f32",
    "float",
    "unsigned int",
    "__float_as_uint",
    "__uint_as_float",
    ">"
);
const ATOMIC_MIN_F64: &str = float_minmax!(
    "gj_atomic_min_f64",
    "double",
    "unsigned long long",
    "__double_as_longlong",
    "__longlong_as_double",
    "<"
);
const ATOMIC_MAX_F64: &str = float_minmax!(
    "gj_atomic_max_f64",
    "double",
    "unsigned long long",
    "__double_as_longlong",
    "__longlong_as_double",
    ">"
);
