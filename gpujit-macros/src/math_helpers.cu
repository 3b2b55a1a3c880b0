// Rust's numeric methods in CUDA C, one section per helper (the emitter
// copies only the sections a kernel uses; `// @name` starts one). `T` is the
// receiver's C type: 1, 2, 4 or 8 bytes, signed if `(T)-1 < (T)0`, a float
// if `(T)0.5 != (T)0`. Integer results wrap as Rust's `wrapping_*` do.
// @gj_signum
// `x.signum()`: Rust's, 1.0 for +0.0, -1.0 for -0.0, NaN for NaN; -1, 0, 1 for integers.
template <class T> static __device__ __forceinline__ T gj_signum(T x) {
    if constexpr ((T)0.5 != (T)0) {
        if (x != x) return x;
        if constexpr (sizeof(T) == 4) return copysignf(1.0f, x); else return copysign(1.0, x);
    } else {
        return (T)((x > (T)0) - (x < (T)0));
    }
}
// @gj_clamp
// `x.clamp(lo, hi)`: Rust's body, without its panic (lo > hi or a NaN bound;
// the CPU backend reports that as a fault): below lo gives lo, then above hi gives hi.
template <class T> static __device__ __forceinline__ T gj_clamp(T x, T lo, T hi) {
    if (x < lo) x = lo;
    if (x > hi) x = hi;
    return x;
}
// @gj_fmin
// `x.min(y)` on floats: fmin (a NaN gives the other operand), with -0.0 below
// +0.0 (IEEE 754-2019 minimumNumber), as the CPU backend: fmin may return either zero.
template <class T> static __device__ __forceinline__ T gj_fmin(T x, T y) {
    if constexpr (sizeof(T) == 4) {
        return x == y ? __uint_as_float(__float_as_uint(x) | __float_as_uint(y)) : fminf(x, y);
    } else {
        return x == y ? __longlong_as_double(__double_as_longlong(x) | __double_as_longlong(y)) : fmin(x, y);
    }
}
// @gj_fmax
// `x.max(y)` on floats: fmax, with +0.0 above -0.0 (IEEE 754-2019 maximumNumber).
template <class T> static __device__ __forceinline__ T gj_fmax(T x, T y) {
    if constexpr (sizeof(T) == 4) {
        return x == y ? __uint_as_float(__float_as_uint(x) & __float_as_uint(y)) : fmaxf(x, y);
    } else {
        return x == y ? __longlong_as_double(__double_as_longlong(x) & __double_as_longlong(y)) : fmax(x, y);
    }
}
// @gj_fract
// `x.fract()`: Rust's `x - x.trunc()`.
template <class T> static __device__ __forceinline__ T gj_fract(T x) {
    if constexpr (sizeof(T) == 4) return x - truncf(x); else return x - trunc(x);
}
// @gj_pow
// `x.pow(e)`: wraps (square and multiply in 64-bit unsigned arithmetic,
// which is exact modulo 2^bits).
template <class T> static __device__ __forceinline__ T gj_pow(T x, unsigned int e) {
    unsigned long long b = (unsigned long long)x, r = 1ull;
    while (e != 0u) {
        if (e & 1u) r *= b;
        e >>= 1;
        b *= b;
    }
    return (T)r;
}
// @gj_saturating_add
template <class T> static __device__ __forceinline__ T gj_saturating_add(T a, T b) {
    if constexpr ((T)-1 < (T)0) {
        const T mx = (T)(~0ull >> (65 - 8 * sizeof(T))), mn = (T)(-mx - 1);
        const T r = (T)((unsigned long long)a + (unsigned long long)b);
        // Overflow: both operands have the sign the result lacks.
        if (((a ^ r) & (b ^ r)) < 0) return a < (T)0 ? mn : mx;
        return r;
    } else {
        const T r = (T)(a + b);
        return r < a ? (T)~(T)0 : r;
    }
}
// @gj_saturating_sub
template <class T> static __device__ __forceinline__ T gj_saturating_sub(T a, T b) {
    if constexpr ((T)-1 < (T)0) {
        const T mx = (T)(~0ull >> (65 - 8 * sizeof(T))), mn = (T)(-mx - 1);
        const T r = (T)((unsigned long long)a - (unsigned long long)b);
        // Overflow: the operands' signs differ and the result's is not a's.
        if (((a ^ b) & (a ^ r)) < 0) return a < (T)0 ? mn : mx;
        return r;
    } else {
        return a < b ? (T)0 : (T)(a - b);
    }
}
// @gj_abs_diff
// `a.abs_diff(b)`: `U` is the unsigned type of `T`'s width.
template <class T, class U> static __device__ __forceinline__ U gj_abs_diff(T a, T b) {
    return a < b ? (U)((U)b - (U)a) : (U)((U)a - (U)b);
}
// @gj_div_euclid
// `a.div_euclid(b)`: `MIN.div_euclid(-1)` wraps to MIN; b == 0 gives an
// unspecified value, as `/` does (the CPU backend reports a fault).
template <class T> static __device__ __forceinline__ T gj_div_euclid(T a, T b) {
    if constexpr ((T)-1 < (T)0) {
        if (b == (T)-1) return (T)(0ull - (unsigned long long)a);
        const T q = (T)(a / b);
        if ((T)(a % b) < (T)0) return b > (T)0 ? (T)(q - 1) : (T)(q + 1);
        return q;
    } else {
        return (T)(a / b);
    }
}
// @gj_rem_euclid
// `a.rem_euclid(b)`: never negative; `MIN.rem_euclid(-1)` is 0; b == 0 as `%`.
template <class T> static __device__ __forceinline__ T gj_rem_euclid(T a, T b) {
    if constexpr ((T)-1 < (T)0) {
        if (b == (T)-1) return (T)0;
        const T r = (T)(a % b);
        if (r >= (T)0) return r;
        // r + |b|, wrapping (|MIN| is MIN).
        const unsigned long long abs_b = b < (T)0 ? 0ull - (unsigned long long)b : (unsigned long long)b;
        return (T)((unsigned long long)r + abs_b);
    } else {
        return (T)(a % b);
    }
}
// @gj_count_ones
template <class T> static __device__ __forceinline__ unsigned int gj_count_ones(T x) {
    if constexpr (sizeof(T) == 8) return (unsigned int)__popcll((unsigned long long)x);
    else return (unsigned int)__popc((unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T))));
}
// @gj_count_zeros
template <class T> static __device__ __forceinline__ unsigned int gj_count_zeros(T x) {
    if constexpr (sizeof(T) == 8) return 64u - (unsigned int)__popcll((unsigned long long)x);
    else return (unsigned int)(8 * sizeof(T)) - (unsigned int)__popc((unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T))));
}
// @gj_leading_zeros
template <class T> static __device__ __forceinline__ unsigned int gj_leading_zeros(T x) {
    if constexpr (sizeof(T) == 8) return (unsigned int)__clzll((long long)x);
    else return (unsigned int)__clz((int)((unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T))))) - (unsigned int)(32 - 8 * sizeof(T));
}
// @gj_trailing_zeros
// `__ffs` is 1 + the index of the lowest set bit, 0 for 0.
template <class T> static __device__ __forceinline__ unsigned int gj_trailing_zeros(T x) {
    if constexpr (sizeof(T) == 8) {
        return x == (T)0 ? 64u : (unsigned int)__ffsll((long long)x) - 1u;
    } else {
        const unsigned int v = (unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T)));
        return v == 0u ? (unsigned int)(8 * sizeof(T)) : (unsigned int)__ffs((int)v) - 1u;
    }
}
// @gj_reverse_bits
template <class T> static __device__ __forceinline__ T gj_reverse_bits(T x) {
    if constexpr (sizeof(T) == 8) return (T)__brevll((unsigned long long)x);
    else return (T)(__brev((unsigned int)x) >> (32 - 8 * sizeof(T)));
}
// @gj_rotate_left
// The amount is taken modulo the width, as Rust does.
template <class T> static __device__ __forceinline__ T gj_rotate_left(T x, unsigned int n) {
    if constexpr (sizeof(T) == 4) {
        return (T)__funnelshift_l((unsigned int)x, (unsigned int)x, n);
    } else if constexpr (sizeof(T) == 8) {
        const unsigned long long u = (unsigned long long)x;
        n &= 63u;
        return (T)((u << n) | (u >> ((64u - n) & 63u)));
    } else {
        const unsigned int bits = 8 * sizeof(T), u = (unsigned int)x & (0xffffffffu >> (32 - bits));
        n %= bits;
        return (T)((u << n) | (u >> ((bits - n) % bits)));
    }
}
// @gj_rotate_right
template <class T> static __device__ __forceinline__ T gj_rotate_right(T x, unsigned int n) {
    if constexpr (sizeof(T) == 4) {
        return (T)__funnelshift_r((unsigned int)x, (unsigned int)x, n);
    } else if constexpr (sizeof(T) == 8) {
        const unsigned long long u = (unsigned long long)x;
        n &= 63u;
        return (T)((u >> n) | (u << ((64u - n) & 63u)));
    } else {
        const unsigned int bits = 8 * sizeof(T), u = (unsigned int)x & (0xffffffffu >> (32 - bits));
        n %= bits;
        return (T)((u >> n) | (u << ((bits - n) % bits)));
    }
}
// @gj_swap_bytes
// `__byte_perm(x, y, s)`: byte i of the result is byte (nibble i of s) of y:x.
template <class T> static __device__ __forceinline__ T gj_swap_bytes(T x) {
    if constexpr (sizeof(T) == 1) {
        return x;
    } else if constexpr (sizeof(T) == 2) {
        return (T)__byte_perm((unsigned int)x, 0u, 0x4401u);
    } else if constexpr (sizeof(T) == 4) {
        return (T)__byte_perm((unsigned int)x, 0u, 0x0123u);
    } else {
        const unsigned long long u = (unsigned long long)x;
        const unsigned long long lo = __byte_perm((unsigned int)u, 0u, 0x0123u), hi = __byte_perm((unsigned int)(u >> 32), 0u, 0x0123u);
        return (T)((lo << 32) | hi);
    }
}
// @gj_is_power_of_two
template <class T> static __device__ __forceinline__ bool gj_is_power_of_two(T x) {
    return x != (T)0 && (T)(x & (T)(x - 1)) == (T)0;
}
// @gj_div_ceil
// `a.div_ceil(b)` (unsigned types); b == 0 gives an unspecified value, as `/`
// does (the CPU backend reports a fault).
template <class T> static __device__ __forceinline__ T gj_div_ceil(T a, T b) {
    const T q = (T)(a / b);
    return (T)(a % b) != (T)0 ? (T)(q + (T)1) : q;
}
// @gj_next_multiple_of
// `a.next_multiple_of(b)` (unsigned types), wrapping on overflow as the
// kernel's `+` does; b == 0 as `%`.
template <class T> static __device__ __forceinline__ T gj_next_multiple_of(T a, T b) {
    const T r = (T)(a % b);
    return r == (T)0 ? a : (T)(a + (T)(b - r));
}
// @gj_next_power_of_two
// `x.next_power_of_two()` (unsigned types): 1 for 0 and 1; 0 where the power
// does not fit (Rust's release-mode result).
template <class T> static __device__ __forceinline__ T gj_next_power_of_two(T x) {
    if (x <= (T)1) return (T)1;
    const unsigned int p = 64u - (unsigned int)__clzll((long long)(unsigned long long)(T)(x - (T)1));
    return p >= 8u * (unsigned int)sizeof(T) ? (T)0 : (T)(1ull << p);
}
// @gj_isqrt
// `x.isqrt()`: the double square root (within one of the answer), then
// corrected with divisions, which cannot overflow; a negative x gives an
// unspecified value (0; the CPU backend reports a fault).
template <class T> static __device__ __forceinline__ T gj_isqrt(T x) {
    if constexpr ((T)-1 < (T)0) {
        if (x < (T)0) return (T)0;
    }
    if (x == (T)0) return (T)0;
    const unsigned long long v = (unsigned long long)x;
    unsigned long long r = (unsigned long long)sqrt((double)v);
    while (r > v / r) r--;
    while (r + 1ull <= v / (r + 1ull)) r++;
    return (T)r;
}
// @gj_ilog
// `x.ilog(b)`: the number of divisions by b that leave a value >= 1; x <= 0
// or b < 2 give an unspecified value (0; the CPU backend reports a fault).
template <class T> static __device__ __forceinline__ unsigned int gj_ilog(T x, T b) {
    if constexpr ((T)-1 < (T)0) {
        if (x < (T)0) return 0u;
    }
    if (x == (T)0 || b < (T)2) return 0u;
    unsigned long long v = (unsigned long long)x;
    const unsigned long long base = (unsigned long long)b;
    unsigned int n = 0u;
    while (v >= base) {
        v /= base;
        n++;
    }
    return n;
}
// @gj_ilog2
// `x.ilog2()`: the index of the highest set bit; x <= 0 as `gj_ilog`.
template <class T> static __device__ __forceinline__ unsigned int gj_ilog2(T x) {
    if constexpr ((T)-1 < (T)0) {
        if (x < (T)0) return 0u;
    }
    if (x == (T)0) return 0u;
    return 63u - (unsigned int)__clzll((long long)(unsigned long long)x);
}
// @gj_ilog10
// `x.ilog10()`: x <= 0 as `gj_ilog`.
template <class T> static __device__ __forceinline__ unsigned int gj_ilog10(T x) {
    if constexpr ((T)-1 < (T)0) {
        if (x < (T)0) return 0u;
    }
    if (x == (T)0) return 0u;
    unsigned long long v = (unsigned long long)x;
    unsigned int n = 0u;
    while (v >= 10ull) {
        v /= 10ull;
        n++;
    }
    return n;
}
// @gj_saturating_mul
// `a.saturating_mul(b)`: the magnitudes' product in 64-bit unsigned
// arithmetic, compared with the limit by division (which cannot overflow).
template <class T> static __device__ __forceinline__ T gj_saturating_mul(T a, T b) {
    if constexpr ((T)-1 < (T)0) {
        const T mx = (T)(~0ull >> (65 - 8 * sizeof(T))), mn = (T)(-mx - 1);
        if (a == (T)0 || b == (T)0) return (T)0;
        const bool neg = (a < (T)0) != (b < (T)0);
        const unsigned long long ua = a < (T)0 ? 0ull - (unsigned long long)a : (unsigned long long)a;
        const unsigned long long ub = b < (T)0 ? 0ull - (unsigned long long)b : (unsigned long long)b;
        const unsigned long long limit = neg ? (unsigned long long)mx + 1ull : (unsigned long long)mx;
        if (ua > limit / ub) return neg ? mn : mx;
        const unsigned long long p = ua * ub;
        return neg ? (T)(0ull - p) : (T)p;
    } else {
        const T mx = (T)~(T)0;
        if (a != (T)0 && (unsigned long long)b > (unsigned long long)mx / (unsigned long long)a) return mx;
        return (T)((unsigned long long)a * (unsigned long long)b);
    }
}
// @gj_unsigned_abs
// `x.unsigned_abs()` (signed types): `U` is the unsigned type of `T`'s width.
template <class T, class U> static __device__ __forceinline__ U gj_unsigned_abs(T x) {
    return x < (T)0 ? (U)(0ull - (unsigned long long)x) : (U)x;
}
// @gj_leading_ones
template <class T> static __device__ __forceinline__ unsigned int gj_leading_ones(T x) {
    if constexpr (sizeof(T) == 8) return (unsigned int)__clzll((long long)~(unsigned long long)x);
    else return (unsigned int)__clz((int)(~(unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T))))) - (unsigned int)(32 - 8 * sizeof(T));
}
// @gj_trailing_ones
template <class T> static __device__ __forceinline__ unsigned int gj_trailing_ones(T x) {
    if constexpr (sizeof(T) == 8) {
        const unsigned long long v = ~(unsigned long long)x;
        return v == 0ull ? 64u : (unsigned int)__ffsll((long long)v) - 1u;
    } else {
        const unsigned int v = ~(unsigned int)x & (0xffffffffu >> (32 - 8 * sizeof(T)));
        return v == 0u ? (unsigned int)(8 * sizeof(T)) : (unsigned int)__ffs((int)v) - 1u;
    }
}
// @gj_asinh
// Rust's `asinh` (its own formula, not libm's: `f32::MAX.asinh()` is inf in
// Rust, where `asinhf` gives 89.4), so that both backends agree.
template <class T> static __device__ __forceinline__ T gj_asinh(T x) {
    if constexpr (sizeof(T) == 4) {
        const float ax = fabsf(x), ix = 1.0f / ax;
        return copysignf(log1pf(ax + ax / (hypotf(1.0f, ix) + ix)), x);
    } else {
        const double ax = fabs(x), ix = 1.0 / ax;
        return copysign(log1p(ax + ax / (hypot(1.0, ix) + ix)), x);
    }
}
// @gj_acosh
// Rust's `acosh`: NaN below 1, else ln(x + sqrt(x - 1) * sqrt(x + 1)).
template <class T> static __device__ __forceinline__ T gj_acosh(T x) {
    if constexpr (sizeof(T) == 4) {
        return x < 1.0f ? __int_as_float(0x7fc00000) : logf(x + sqrtf(x - 1.0f) * sqrtf(x + 1.0f));
    } else {
        return x < 1.0 ? __longlong_as_double(0x7ff8000000000000ll) : log(x + sqrt(x - 1.0) * sqrt(x + 1.0));
    }
}
// @gj_atanh
// Rust's `atanh`: 0.5 * ln_1p(2x / (1 - x)).
template <class T> static __device__ __forceinline__ T gj_atanh(T x) {
    if constexpr (sizeof(T) == 4) return 0.5f * log1pf((2.0f * x) / (1.0f - x));
    else return 0.5 * log1p((2.0 * x) / (1.0 - x));
}
// @gj_float_to_int
// `x as I` for a float `x`: Rust's cast, rounding toward zero and saturating
// (cvt.rzi does both), with NaN giving 0. The NaN test is needed: on an H200
// cvt.rzi gives 0 for f32 -> s32 but the most negative value (or 2^63) for
// the 64-bit and f64 conversions.
template <class I, class F> static __device__ __forceinline__ I gj_float_to_int(F x) {
    if (x != x) return (I)0;
    constexpr bool is_signed = (I)-1 < (I)0;
    if constexpr (sizeof(I) == 8) {
        if constexpr (sizeof(F) == 4) { if constexpr (is_signed) return __float2ll_rz(x); else return __float2ull_rz(x); }
        else { if constexpr (is_signed) return __double2ll_rz(x); else return __double2ull_rz(x); }
    } else if constexpr (is_signed) {
        int v = sizeof(F) == 4 ? __float2int_rz((float)x) : __double2int_rz((double)x);
        if constexpr (sizeof(I) < 4) {
            constexpr int lo = -(1 << (8 * sizeof(I) - 1)), hi = (1 << (8 * sizeof(I) - 1)) - 1;
            v = v < lo ? lo : (v > hi ? hi : v);
        }
        return (I)v;
    } else {
        unsigned int v = sizeof(F) == 4 ? __float2uint_rz((float)x) : __double2uint_rz((double)x);
        if constexpr (sizeof(I) < 4) {
            constexpr unsigned int hi = (1u << (8 * sizeof(I))) - 1u;
            v = v > hi ? hi : v;
        }
        return (I)v;
    }
}
