// Host shim for running gpujit's emitted CUDA C with a C++20 compiler, for
// tests only: each CUDA thread of a block is an OS thread, `__syncthreads()`
// is a std::barrier, the warp intrinsics a meeting of a warp's lanes (`gj_warp`), `__trap()` a recorded flag, `__shared__` arrays are function statics (one block runs
// at a time), `__constant__` arrays plain globals, and the intrinsics the emitter uses are written out with the
// semantics the PTX ISA documents for them.
#pragma once
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <math.h>
#include <stdlib.h>
#include <algorithm>

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
// `__constant__` arrays are read-only globals, initialised before any launch.
#define __constant__

struct uint3 {
    unsigned int x, y, z;
};
typedef uint3 dim3;

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
// One launch at a time: `blockDim` and `gridDim` are process-wide.
inline std::mutex gj_launch_mutex;
inline dim3 blockDim;
inline dim3 gridDim;
// CUDA's built-in `warpSize` (`warp_size()`, `lane_id()`).
constexpr int warpSize = 32;
// The lanes of one warp at the warp intrinsics (`__shfl_sync` & co.): each
// lane posts its call and waits until the call completes, which it does once
// every lane named in the mask that has not exited has posted a call with the
// same mask (`activemask`: once every lane that has not exited waits
// somewhere, at a warp intrinsic or a barrier). The missing lanes of a
// partial warp count as exited. A call that never completes (a kernel that
// breaks CUDA's rules) traps after 120 s.
struct gj_warp {
    std::mutex m;
    std::condition_variable cv;
    unsigned existing = 0, exited = 0, posted = 0, barred = 0, ready = 0;
    int op[32];
    unsigned mask[32], arg[32];
    unsigned long long val[32], res[32];
};
enum { GJ_SHFL, GJ_SHFL_UP, GJ_SHFL_DOWN, GJ_SHFL_XOR, GJ_BALLOT, GJ_ALL, GJ_ANY, GJ_UNI, GJ_MATCH_ANY, GJ_MATCH_ALL, GJ_ACTIVEMASK, GJ_SYNCWARP };
// The lane lane `l` reads in shuffle `op` with lane argument `b` (PTX
// `shfl.sync` for a width of 32: the low 5 bits of `b` count), or `l` itself
// out of range.
inline unsigned gj_shfl_source(int op, unsigned l, unsigned b) {
    b %= 32u;
    switch (op) {
        case GJ_SHFL: return b;
        case GJ_SHFL_UP: return b <= l ? l - b : l;
        case GJ_SHFL_DOWN: return l + b < 32u ? l + b : l;
        default: return l ^ b;
    }
}
// Completes every call of `w` whose lanes are all there (with `w.m` held).
inline void gj_warp_complete(gj_warp& w) {
    const unsigned live = w.existing & ~w.exited;
    for (unsigned l = 0; l < 32; l++) {
        if (!(w.posted & (1u << l))) continue;
        unsigned group = 0;
        if (w.op[l] == GJ_ACTIVEMASK) {
            if (((w.posted | w.barred) & live) != live) continue;
            // The lanes at the same call (its line in the C) together.
            for (unsigned k = 0; k < 32; k++)
                if ((w.posted & (1u << k)) && w.op[k] == GJ_ACTIVEMASK && w.arg[k] == w.arg[l]) group |= 1u << k;
        } else {
            group = w.mask[l] & live;
            if ((w.posted & group) != group) continue;
        }
        unsigned yes = 0;
        for (unsigned k = 0; k < 32; k++)
            if ((group & (1u << k)) && w.val[k] != 0) yes |= 1u << k;
        for (unsigned k = 0; k < 32; k++) {
            if (!(group & (1u << k))) continue;
            unsigned long long r = 0;
            switch (w.op[l]) {
                case GJ_SHFL: case GJ_SHFL_UP: case GJ_SHFL_DOWN: case GJ_SHFL_XOR: {
                    const unsigned j = gj_shfl_source(w.op[l], k, w.arg[k]);
                    r = (group & (1u << j)) ? w.val[j] : w.val[k];
                    break;
                }
                case GJ_BALLOT: r = yes; break;
                case GJ_ALL: r = yes == group; break;
                case GJ_ANY: r = yes != 0; break;
                case GJ_UNI: r = yes == group || yes == 0; break;
                case GJ_MATCH_ANY:
                    for (unsigned i = 0; i < 32; i++)
                        if ((group & (1u << i)) && w.val[i] == w.val[k]) r |= 1ull << i;
                    break;
                case GJ_MATCH_ALL: {
                    // The lanes that take part, or 0.
                    bool same = true;
                    for (unsigned i = 0; i < 32; i++)
                        if ((group & (1u << i)) && w.val[i] != w.val[k]) same = false;
                    r = same ? group : 0;
                    break;
                }
                case GJ_ACTIVEMASK: r = group; break;
                default: break;
            }
            w.res[k] = r;
        }
        w.posted &= ~group;
        w.ready |= group;
        w.cv.notify_all();
    }
}
// A block's barrier, its warps, and three rotating slots for the votes of
// `__syncthreads_count/and/or` (see `gj_vote`).
struct gj_block_sync {
    std::barrier<> bar;
    struct {
        std::atomic<int> yes{0}, voters{0};
    } votes[3];
    std::unique_ptr<gj_warp[]> warps;
    explicit gj_block_sync(unsigned n) : bar(n), warps(new gj_warp[(n + 31) / 32]) {
        for (unsigned w = 0; w < (n + 31) / 32; w++)
            warps[w].existing = n - 32 * w >= 32 ? ~0u : (1u << (n - 32 * w)) - 1u;
    }
    gj_warp& warp() { return warps[gj_lin() / 32]; }
    static unsigned gj_lin() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
    // A lane waiting at the barrier counts for `activemask` as waiting.
    void arrive_and_wait() {
        mark(true);
        bar.arrive_and_wait();
        mark(false);
    }
    void mark(bool at_barrier) {
        gj_warp& w = warp();
        std::lock_guard<std::mutex> lk(w.m);
        const unsigned bit = 1u << (gj_lin() % 32);
        if (at_barrier) {
            w.barred |= bit;
            gj_warp_complete(w);
        } else {
            w.barred &= ~bit;
        }
    }
    // The thread finished (or trapped): its warp stops waiting for it.
    void arrive_and_drop() {
        {
            gj_warp& w = warp();
            std::lock_guard<std::mutex> lk(w.m);
            w.exited |= 1u << (gj_lin() % 32);
            gj_warp_complete(w);
        }
        bar.arrive_and_drop();
    }
};
inline thread_local gj_block_sync* gj_block_barrier;
// How many votes this thread has cast in its block (every thread of a block
// casts the same sequence, as CUDA requires).
inline thread_local unsigned gj_vote_round;

inline void __syncthreads() { gj_block_barrier->arrive_and_wait(); }

// Vote k of the block uses slot k % 3. Before its barrier each thread clears
// slot (k + 1) % 3: its last use, vote k - 2, was read by every thread before
// vote k - 1's barrier, and its next use, vote k + 1, starts after vote k's.
inline void gj_vote(int p, int* yes, int* voters) {
    auto& v = gj_block_barrier->votes;
    const unsigned k = gj_vote_round++ % 3;
    v[(k + 1) % 3].yes.store(0);
    v[(k + 1) % 3].voters.store(0);
    if (p) v[k].yes.fetch_add(1);
    v[k].voters.fetch_add(1);
    gj_block_barrier->arrive_and_wait();
    *yes = v[k].yes.load();
    *voters = v[k].voters.load();
}
inline int __syncthreads_count(int p) {
    int yes, voters;
    gj_vote(p, &yes, &voters);
    return yes;
}
inline int __syncthreads_and(int p) {
    int yes, voters;
    gj_vote(p, &yes, &voters);
    return yes == voters;
}
inline int __syncthreads_or(int p) {
    int yes, voters;
    gj_vote(p, &yes, &voters);
    return yes > 0;
}

[[noreturn]] inline void __trap();
// One lane's warp intrinsic: posts it and waits for its result's bits.
inline unsigned long long gj_warp_call(int op, unsigned mask, unsigned long long v, unsigned arg) {
    gj_warp& w = gj_block_barrier->warp();
    const unsigned l = gj_block_sync::gj_lin() % 32, bit = 1u << l;
    std::unique_lock<std::mutex> lk(w.m);
    w.op[l] = op;
    w.mask[l] = mask;
    w.val[l] = v;
    w.arg[l] = arg;
    w.posted |= bit;
    gj_warp_complete(w);
    if (!w.cv.wait_for(lk, std::chrono::seconds(120), [&] { return (w.ready & bit) != 0; })) {
        w.posted &= ~bit;
        lk.unlock();
        __trap();
    }
    w.ready &= ~bit;
    return w.res[l];
}
template <class T>
inline unsigned long long gj_warp_bits(T v) {
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}
template <class T>
inline T gj_warp_value(unsigned long long b) {
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}
template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int = 32) {
    return gj_warp_value<T>(gj_warp_call(GJ_SHFL, mask, gj_warp_bits(v), (unsigned)src));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int = 32) {
    return gj_warp_value<T>(gj_warp_call(GJ_SHFL_UP, mask, gj_warp_bits(v), delta));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int = 32) {
    return gj_warp_value<T>(gj_warp_call(GJ_SHFL_DOWN, mask, gj_warp_bits(v), delta));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int = 32) {
    return gj_warp_value<T>(gj_warp_call(GJ_SHFL_XOR, mask, gj_warp_bits(v), (unsigned)lane_mask));
}
inline unsigned __ballot_sync(unsigned mask, int p) { return (unsigned)gj_warp_call(GJ_BALLOT, mask, p != 0, 0); }
inline int __all_sync(unsigned mask, int p) { return (int)gj_warp_call(GJ_ALL, mask, p != 0, 0); }
inline int __any_sync(unsigned mask, int p) { return (int)gj_warp_call(GJ_ANY, mask, p != 0, 0); }
inline int __uni_sync(unsigned mask, int p) { return (int)gj_warp_call(GJ_UNI, mask, p != 0, 0); }
template <class T>
inline unsigned __match_any_sync(unsigned mask, T v) {
    return (unsigned)gj_warp_call(GJ_MATCH_ANY, mask, gj_warp_bits(v), 0);
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
    const unsigned r = (unsigned)gj_warp_call(GJ_MATCH_ALL, mask, gj_warp_bits(v), 0);
    *pred = r != 0;
    return r;
}
// A call's line tells two `__activemask()` calls apart (as the CPU backend
// tells its call sites apart): lanes in two branches are two groups.
inline unsigned gj_activemask(unsigned line) { return (unsigned)gj_warp_call(GJ_ACTIVEMASK, 0, 0, line); }
#define __activemask() gj_activemask(__LINE__)
inline void __syncwarp(unsigned mask = 0xffffffffu) { gj_warp_call(GJ_SYNCWARP, mask, 0, 0); }

// `__trap()` aborts the launch on a GPU (a device fault). Here it records the
// trap and ends the calling thread; the launcher starts no further block.
struct gj_trapped_t {};
inline std::atomic<bool> gj_trapped{false};
[[noreturn]] inline void __trap() {
    gj_trapped.store(true);
    throw gj_trapped_t{};
}

// CUDA's integer `min`/`max` overloads: operands promote as in arithmetic.
template <class A, class B>
inline auto min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }
template <class A, class B>
inline auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }

// cvt.rzi.{s32,u32,s64,u64}.{f32,f64}: round toward zero, saturate. NaN
// gives a value Rust's `as` never does (an H200 gave the most negative value
// for f64 -> s32 and for -> s64, 2^63 for -> u64; 0 only for f32 -> s32/u32),
// so that emitted code relying on the intrinsics for NaN fails here too.
template <class I, class F>
inline I gj_shim_cvt_rzi(F x) {
    if (std::isnan(x)) {
        return std::numeric_limits<I>::is_signed ? std::numeric_limits<I>::min()
                                                 : (I)(std::numeric_limits<I>::max() / 2 + 1);
    }
    if (x <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (x >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)x;
}
inline int __float2int_rz(float x) { return gj_shim_cvt_rzi<int>(x); }
inline unsigned int __float2uint_rz(float x) { return gj_shim_cvt_rzi<unsigned int>(x); }
inline long long __float2ll_rz(float x) { return gj_shim_cvt_rzi<long long>(x); }
inline unsigned long long __float2ull_rz(float x) { return gj_shim_cvt_rzi<unsigned long long>(x); }
inline int __double2int_rz(double x) { return gj_shim_cvt_rzi<int>(x); }
inline unsigned int __double2uint_rz(double x) { return gj_shim_cvt_rzi<unsigned int>(x); }
inline long long __double2ll_rz(double x) { return gj_shim_cvt_rzi<long long>(x); }
inline unsigned long long __double2ull_rz(double x) { return gj_shim_cvt_rzi<unsigned long long>(x); }

inline float __int_as_float(int v) {
    float f;
    std::memcpy(&f, &v, sizeof f);
    return f;
}
inline double __longlong_as_double(long long v) {
    double d;
    std::memcpy(&d, &v, sizeof d);
    return d;
}

// Atomics, with CUDA's semantics (relaxed, returning the old value) on the
// host: the threads of a block are OS threads, and the driver double runs
// blocks in parallel, so every one is a real atomic (GCC's `__atomic`
// builtins, which work on plain objects, shared statics included).
template <class T, class F>
inline T gj_host_rmw(T* p, F f) {
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    for (;;) {
        T next = f(old);
        if (__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return old;
    }
}
// atom.add.f32 flushes subnormal inputs and results to zero (sign kept).
inline float gj_ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline float atomicAdd(float* p, float v) {
    return gj_host_rmw(p, [v](float o) { return gj_ftz(gj_ftz(o) + gj_ftz(v)); });
}
inline double atomicAdd(double* p, double v) {
    return gj_host_rmw(p, [v](double o) { return o + v; });
}
#define GJ_INT_ATOMICS(T)                                                                              \
    inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }               \
    inline T atomicMin(T* p, T v) { return gj_host_rmw(p, [v](T o) { return v < o ? v : o; }); }       \
    inline T atomicMax(T* p, T v) { return gj_host_rmw(p, [v](T o) { return v > o ? v : o; }); }       \
    inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }             \
    inline T atomicCAS(T* p, T cmp, T v) {                                                             \
        __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);            \
        return cmp;                                                                                    \
    }                                                                                                  \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }               \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }                 \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }
GJ_INT_ATOMICS(int)
GJ_INT_ATOMICS(unsigned int)
GJ_INT_ATOMICS(unsigned long long)
#undef GJ_INT_ATOMICS
// CUDA has only `long long` min/max among the signed 64-bit atomics.
inline long long atomicMin(long long* p, long long v) { return gj_host_rmw(p, [v](long long o) { return v < o ? v : o; }); }
inline long long atomicMax(long long* p, long long v) { return gj_host_rmw(p, [v](long long o) { return v > o ? v : o; }); }
inline float atomicExch(float* p, float v) { return gj_host_rmw(p, [v](float) { return v; }); }
inline int atomicSub(int* p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
inline unsigned int atomicSub(unsigned int* p, unsigned int v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
inline unsigned int atomicInc(unsigned int* p, unsigned int v) {
    return gj_host_rmw(p, [v](unsigned int o) { return o >= v ? 0u : o + 1u; });
}
inline unsigned int atomicDec(unsigned int* p, unsigned int v) {
    return gj_host_rmw(p, [v](unsigned int o) { return (o == 0u || o > v) ? v : o - 1u; });
}
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned int __float_as_uint(float v) {
    unsigned int u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}
inline float __uint_as_float(unsigned int v) {
    float f;
    std::memcpy(&f, &v, sizeof f);
    return f;
}
inline long long __double_as_longlong(double v) {
    long long u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}
// Integer intrinsics, as the CUDA Math API documents them.
// __popc/__popcll: the number of set bits.
inline int __popc(unsigned int x) { int n = 0; for (; x != 0u; x &= x - 1u) n++; return n; }
inline int __popcll(unsigned long long x) { int n = 0; for (; x != 0ull; x &= x - 1ull) n++; return n; }
// __clz/__clzll: leading zero bits from the most significant bit (32/64 for 0).
inline int __clz(int x) { unsigned int u = (unsigned int)x; int n = 0; for (unsigned int m = 1u << 31; m != 0u && !(u & m); m >>= 1) n++; return n; }
inline int __clzll(long long x) { unsigned long long u = (unsigned long long)x; int n = 0; for (unsigned long long m = 1ull << 63; m != 0ull && !(u & m); m >>= 1) n++; return n; }
// __ffs/__ffsll: 1 + the position of the least significant set bit, 0 for 0.
inline int __ffs(int x) { unsigned int u = (unsigned int)x; for (int i = 0; i < 32; i++) if (u & (1u << i)) return i + 1; return 0; }
inline int __ffsll(long long x) { unsigned long long u = (unsigned long long)x; for (int i = 0; i < 64; i++) if (u & (1ull << i)) return i + 1; return 0; }
// __brev/__brevll: bit i of the result is bit (width - 1 - i) of x.
inline unsigned int __brev(unsigned int x) { unsigned int r = 0; for (int i = 0; i < 32; i++) if (x & (1u << i)) r |= 1u << (31 - i); return r; }
inline unsigned long long __brevll(unsigned long long x) { unsigned long long r = 0; for (int i = 0; i < 64; i++) if (x & (1ull << i)) r |= 1ull << (63 - i); return r; }
// __funnelshift_l/r: hi:lo as 64 bits, shifted by (shift & 31); the high
// (left) or low (right) 32 bits of the result.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (shift & 31u));
}
// __byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of the 8 bytes y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned int)((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
