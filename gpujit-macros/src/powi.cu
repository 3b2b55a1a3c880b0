// `x.powi(n)` as Rust computes it (compiler-rt's __powisf2/__powidf2):
// square-and-multiply, then one reciprocal for a negative exponent.
template <class T> static __device__ __forceinline__ T gj_powi(T a, int b) {
    const bool recip = b < 0;
    T r = 1;
    for (;;) {
        if (b & 1) r *= a;
        b /= 2;
        if (b == 0) break;
        a *= a;
    }
    return recip ? 1 / r : r;
}
