// Rust semantics for values whose type only rustc knew when the kernel was
// translated (outside constants): `T` is the constant's type, declared with it.
// One `gj_traits` per scalar type of the language (a unit test of
// emit_cuda/helpers.rs checks it); `u` is the unsigned type in which the
// arithmetic wraps as Rust's does (`unsigned int` for the types C promotes).
template <class T> struct gj_traits;
template <> struct gj_traits<bool> { typedef bool u; static constexpr bool is_float = false; static constexpr int bits = 8; };
template <> struct gj_traits<unsigned char> { typedef unsigned char u; static constexpr bool is_float = false; static constexpr int bits = 8; static constexpr unsigned char min = 0, max = 255; };
template <> struct gj_traits<signed char> { typedef unsigned int u; static constexpr bool is_float = false; static constexpr int bits = 8; static constexpr signed char min = -128, max = 127; };
template <> struct gj_traits<short> { typedef unsigned int u; static constexpr bool is_float = false; static constexpr int bits = 16; static constexpr short min = -32768, max = 32767; };
template <> struct gj_traits<unsigned short> { typedef unsigned int u; static constexpr bool is_float = false; static constexpr int bits = 16; static constexpr unsigned short min = 0, max = 65535; };
template <> struct gj_traits<int> { typedef unsigned int u; static constexpr bool is_float = false; static constexpr int bits = 32; static constexpr int min = (-2147483647 - 1), max = 2147483647; };
template <> struct gj_traits<unsigned int> { typedef unsigned int u; static constexpr bool is_float = false; static constexpr int bits = 32; static constexpr unsigned int min = 0u, max = 4294967295u; };
template <> struct gj_traits<long long> { typedef unsigned long long u; static constexpr bool is_float = false; static constexpr int bits = 64; static constexpr long long min = (-9223372036854775807ll - 1), max = 9223372036854775807ll; };
template <> struct gj_traits<unsigned long long> { typedef unsigned long long u; static constexpr bool is_float = false; static constexpr int bits = 64; static constexpr unsigned long long min = 0ull, max = 18446744073709551615ull; };
template <> struct gj_traits<float> { typedef float u; static constexpr bool is_float = true; static constexpr int bits = 32; };
template <> struct gj_traits<double> { typedef double u; static constexpr bool is_float = true; static constexpr int bits = 64; };
template <class T> static __device__ __forceinline__ T gj_lit(float f, double d) { if constexpr (gj_traits<T>::is_float && gj_traits<T>::bits == 32) return f; else return (T)d; }
template <class T> static __device__ __forceinline__ T gj_add(T a, T b) { typedef typename gj_traits<T>::u U; return (T)((U)a + (U)b); }
template <class T> static __device__ __forceinline__ T gj_sub(T a, T b) { typedef typename gj_traits<T>::u U; return (T)((U)a - (U)b); }
template <class T> static __device__ __forceinline__ T gj_mul(T a, T b) { typedef typename gj_traits<T>::u U; return (T)((U)a * (U)b); }
template <class T> static __device__ __forceinline__ T gj_neg(T a) { typedef typename gj_traits<T>::u U; return (T)((U)0 - (U)a); }
template <class T> static __device__ __forceinline__ T gj_div(T a, T b) { if constexpr (!gj_traits<T>::is_float && (T)-1 < (T)0) { if (b == (T)-1) return gj_neg<T>(a); } return (T)(a / b); }
template <class T> static __device__ __forceinline__ T gj_rem(T a, T b) {
    if constexpr (gj_traits<T>::is_float) { if constexpr (gj_traits<T>::bits == 32) return fmodf(a, b); else return fmod(a, b); }
    else { if constexpr ((T)-1 < (T)0) { if (b == (T)-1) return (T)0; } return (T)(a % b); }
}
template <class T> static __device__ __forceinline__ T gj_not(T a) { if constexpr ((T)2 == (T)1) /* bool */ return !a; else return (T)~a; }
template <class T> static __device__ __forceinline__ T gj_and(T a, T b) { return (T)(a & b); }
template <class T> static __device__ __forceinline__ T gj_or(T a, T b) { return (T)(a | b); }
template <class T> static __device__ __forceinline__ T gj_xor(T a, T b) { return (T)(a ^ b); }
template <class T, class S> static __device__ __forceinline__ T gj_shl(T a, S b) { typedef typename gj_traits<T>::u U; return (T)((U)a << (b & (S)(gj_traits<T>::bits - 1))); }
template <class T, class S> static __device__ __forceinline__ T gj_shr(T a, S b) { return (T)(a >> (b & (S)(gj_traits<T>::bits - 1))); }
// `x as To`: float to integer saturates and maps NaN to 0.
template <class To, class From> static __device__ __forceinline__ To gj_cast(From x) {
    if constexpr (gj_traits<From>::is_float && !gj_traits<To>::is_float) {
        if (x != x) return (To)0;
        if (x <= (From)gj_traits<To>::min) return gj_traits<To>::min;
        if (x >= (From)gj_traits<To>::max) return gj_traits<To>::max;
    }
    return (To)x;
}
template <class T> static __device__ __forceinline__ T gj_abs(T a) { if constexpr (gj_traits<T>::is_float) { if constexpr (gj_traits<T>::bits == 32) return fabsf(a); else return fabs(a); } else if constexpr ((T)-1 < (T)0) return a < (T)0 ? gj_neg<T>(a) : a; else return a; }
// Floats: -0.0 below +0.0 (as `gj_fmin`/`gj_fmax` and the CPU backend).
template <class T> static __device__ __forceinline__ T gj_min(T a, T b) { if constexpr (gj_traits<T>::is_float) { if constexpr (gj_traits<T>::bits == 32) return a == b ? __uint_as_float(__float_as_uint(a) | __float_as_uint(b)) : fminf(a, b); else return a == b ? __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)) : fmin(a, b); } else return a < b ? a : b; }
template <class T> static __device__ __forceinline__ T gj_max(T a, T b) { if constexpr (gj_traits<T>::is_float) { if constexpr (gj_traits<T>::bits == 32) return a == b ? __uint_as_float(__float_as_uint(a) & __float_as_uint(b)) : fmaxf(a, b); else return a == b ? __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)) : fmax(a, b); } else return a < b ? b : a; }
#define GJ_FLOAT_FN(name, f32, f64) template <class T> static __device__ __forceinline__ T name(T a) { if constexpr (gj_traits<T>::bits == 32) return f32(a); else return f64(a); }
GJ_FLOAT_FN(gj_sqrt, sqrtf, sqrt)
GJ_FLOAT_FN(gj_floor, floorf, floor)
GJ_FLOAT_FN(gj_ceil, ceilf, ceil)
GJ_FLOAT_FN(gj_exp, expf, exp)
GJ_FLOAT_FN(gj_ln, logf, log)
GJ_FLOAT_FN(gj_sin, sinf, sin)
GJ_FLOAT_FN(gj_cos, cosf, cos)
GJ_FLOAT_FN(gj_cbrt, cbrtf, cbrt)
GJ_FLOAT_FN(gj_exp2, exp2f, exp2)
GJ_FLOAT_FN(gj_exp_m1, expm1f, expm1)
GJ_FLOAT_FN(gj_log2, log2f, log2)
GJ_FLOAT_FN(gj_log10, log10f, log10)
GJ_FLOAT_FN(gj_ln_1p, log1pf, log1p)
GJ_FLOAT_FN(gj_tan, tanf, tan)
GJ_FLOAT_FN(gj_asin, asinf, asin)
GJ_FLOAT_FN(gj_acos, acosf, acos)
GJ_FLOAT_FN(gj_atan, atanf, atan)
GJ_FLOAT_FN(gj_sinh, sinhf, sinh)
GJ_FLOAT_FN(gj_cosh, coshf, cosh)
GJ_FLOAT_FN(gj_tanh, tanhf, tanh)
GJ_FLOAT_FN(gj_round, roundf, round)
GJ_FLOAT_FN(gj_trunc, truncf, trunc)
#undef GJ_FLOAT_FN
#define GJ_FLOAT_FN2(name, f32, f64) template <class T> static __device__ __forceinline__ T name(T a, T b) { if constexpr (gj_traits<T>::bits == 32) return f32(a, b); else return f64(a, b); }
GJ_FLOAT_FN2(gj_atan2, atan2f, atan2)
GJ_FLOAT_FN2(gj_hypot, hypotf, hypot)
GJ_FLOAT_FN2(gj_copysign, copysignf, copysign)
#undef GJ_FLOAT_FN2
template <class T> static __device__ __forceinline__ T gj_powf(T a, T b) { if constexpr (gj_traits<T>::bits == 32) return powf(a, b); else return pow(a, b); }
template <class T> static __device__ __forceinline__ T gj_mul_add(T a, T b, T c) { if constexpr (gj_traits<T>::bits == 32) return fmaf(a, b, c); else return fma(a, b, c); }
