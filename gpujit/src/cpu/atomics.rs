//! CUDA's atomic read-modify-write operations and memory fences on the CPU
//! backend, for the code `#[gpu_kernel]` generates (`View::atomic` and the
//! `threadfence*` calls). Not user API: kernels call `gpujit::kernel::atomic_add`
//! & co., which the macro rewrites to these.
//!
//! Memory ordering: CUDA's `atomicAdd` & co. are *relaxed* atomics at device
//! scope ("atomic functions do not act as memory fences"): each operation on
//! one element is indivisible and all of them form one order per element, but
//! they order no other access. That is Rust's `Ordering::Relaxed`, so every
//! operation here is relaxed; ordering other accesses is what the fences are
//! for, as in CUDA.

use std::sync::atomic::{self, AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use crate::scalar::DeviceScalar;

/// One of CUDA's atomic operations with its operand(s): what a kernel's
/// `atomic_add(&mut a[i], v)` & co. become. The new value each one stores is
/// [`AtomicScalar::apply`]; every operation returns the old value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AtomicOp<T> {
    /// `old + v` (wrapping for integers; for `f32`, subnormal inputs and
    /// results flush to a zero of the same sign, as PTX's `atom.add.f32`).
    Add(T),
    /// `old - v` (wrapping; for floats `old + (-v)`, with `Add`'s flushing).
    Sub(T),
    /// The smaller of `old` and `v`; for floats, `old` where either is NaN
    /// (Numba's `cuda.atomic.min`), and an equal `v` (`0.0` vs `-0.0`)
    /// keeps `old`.
    Min(T),
    /// The larger, with `Min`'s rules.
    Max(T),
    /// As `Min`, but a NaN loses (Numba's `cuda.atomic.nanmin`): `old` NaN
    /// gives `v`, `v` NaN keeps `old`. The same as `Min` for integers.
    NanMin(T),
    /// The larger, with `NanMin`'s rules.
    NanMax(T),
    /// `v`.
    Exch(T),
    /// `value` if `old == compare` (bitwise), else `old`.
    Cas {
        /// The value expected in memory.
        compare: T,
        /// The value stored if memory holds `compare`.
        value: T,
    },
    /// `old & v` (integers only).
    And(T),
    /// `old | v` (integers only).
    Or(T),
    /// `old ^ v` (integers only).
    Xor(T),
    /// `if old >= v { 0 } else { old + 1 }` (CUDA's `atomicInc`, `u32` only).
    Inc(T),
    /// `if old == 0 || old > v { v } else { old - 1 }` (CUDA's `atomicDec`, `u32` only).
    Dec(T),
}

/// Element types with atomic operations: `i32 u32 i64 u64 usize f32 f64`.
///
/// Sealed: [`View::atomic`](crate::cpu::View::atomic)'s soundness argument
/// relies on the impls here.
pub trait AtomicScalar: DeviceScalar + sealed::Sealed {
    /// The value `op` stores over `old`, as CUDA defines it (see [`AtomicOp`]).
    /// An operation CUDA lacks for the type (the macro never emits one, e.g.
    /// `And` on a float) stores `old` unchanged.
    fn apply(op: AtomicOp<Self>, old: Self) -> Self;

    /// Applies `op` to `*p` as one relaxed atomic operation and returns the old value.
    ///
    /// # Safety
    /// `p` is valid for reads and writes, aligned to `size_of::<Self>()`, and
    /// every access to `*p` that may run concurrently is atomic.
    unsafe fn atomic_rmw(p: *mut Self, op: AtomicOp<Self>) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! atomic_int {
    ($($t:ty => $atomic:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicScalar for $t {
            #[inline]
            fn apply(op: AtomicOp<$t>, old: $t) -> $t {
                match op {
                    AtomicOp::Add(v) => old.wrapping_add(v),
                    AtomicOp::Sub(v) => old.wrapping_sub(v),
                    AtomicOp::Min(v) | AtomicOp::NanMin(v) => old.min(v),
                    AtomicOp::Max(v) | AtomicOp::NanMax(v) => old.max(v),
                    AtomicOp::Exch(v) => v,
                    AtomicOp::Cas { compare, value } => if old == compare { value } else { old },
                    AtomicOp::And(v) => old & v,
                    AtomicOp::Or(v) => old | v,
                    AtomicOp::Xor(v) => old ^ v,
                    AtomicOp::Inc(v) => if old >= v { 0 } else { old + 1 },
                    AtomicOp::Dec(v) => if old == 0 || old > v { v } else { old - 1 },
                }
            }

            #[inline]
            unsafe fn atomic_rmw(p: *mut $t, op: AtomicOp<$t>) -> $t {
                // SAFETY: the caller guarantees validity, alignment and that
                // all concurrent accesses are atomic; `$atomic` has the size
                // and (given the alignment) the layout of `$t`.
                let a = unsafe { <$atomic>::from_ptr(p) };
                let r = Ordering::Relaxed;
                match op {
                    AtomicOp::Add(v) => a.fetch_add(v, r),
                    AtomicOp::Sub(v) => a.fetch_sub(v, r),
                    AtomicOp::Min(v) | AtomicOp::NanMin(v) => a.fetch_min(v, r),
                    AtomicOp::Max(v) | AtomicOp::NanMax(v) => a.fetch_max(v, r),
                    AtomicOp::Exch(v) => a.swap(v, r),
                    AtomicOp::Cas { compare, value } => match a.compare_exchange(compare, value, r, r) {
                        Ok(old) | Err(old) => old,
                    },
                    AtomicOp::And(v) => a.fetch_and(v, r),
                    AtomicOp::Or(v) => a.fetch_or(v, r),
                    AtomicOp::Xor(v) => a.fetch_xor(v, r),
                    AtomicOp::Inc(_) | AtomicOp::Dec(_) => {
                        match a.fetch_update(r, r, |old| Some(Self::apply(op, old))) {
                            Ok(old) | Err(old) => old,
                        }
                    }
                }
            }
        }
    )*};
}
atomic_int!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64, usize => AtomicUsize);

/// `x`, or a zero of its sign if `x` is subnormal (PTX's `.ftz`).
#[inline]
fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

macro_rules! atomic_float {
    ($($t:ty => $atomic:ty, $flush:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicScalar for $t {
            #[inline]
            fn apply(op: AtomicOp<$t>, old: $t) -> $t {
                let flush: fn($t) -> $t = $flush;
                match op {
                    AtomicOp::Add(v) => flush(flush(old) + flush(v)),
                    AtomicOp::Sub(v) => flush(flush(old) + flush(-v)),
                    // `v < old` is false where either is NaN: `old` stays.
                    AtomicOp::Min(v) => if v < old { v } else { old },
                    AtomicOp::Max(v) => if v > old { v } else { old },
                    // A NaN `old` is replaced.
                    AtomicOp::NanMin(v) => if v < old || old.is_nan() { v } else { old },
                    AtomicOp::NanMax(v) => if v > old || old.is_nan() { v } else { old },
                    AtomicOp::Exch(v) => v,
                    AtomicOp::Cas { compare, value } => if old.to_bits() == compare.to_bits() { value } else { old },
                    AtomicOp::And(_) | AtomicOp::Or(_) | AtomicOp::Xor(_) | AtomicOp::Inc(_) | AtomicOp::Dec(_) => old,
                }
            }

            #[inline]
            unsafe fn atomic_rmw(p: *mut $t, op: AtomicOp<$t>) -> $t {
                // SAFETY: as for the integers; the float's bits are an
                // unsigned integer of its size and alignment.
                let a = unsafe { <$atomic>::from_ptr(p.cast()) };
                let r = Ordering::Relaxed;
                if let AtomicOp::Exch(v) = op {
                    return <$t>::from_bits(a.swap(v.to_bits(), r));
                }
                // A compare-and-swap loop on the bits, as CUDA C writes float
                // min/max; no store when the value stays (same result).
                let step = |bits| {
                    let new = Self::apply(op, <$t>::from_bits(bits)).to_bits();
                    (new != bits).then_some(new)
                };
                match a.fetch_update(r, r, step) {
                    Ok(old) | Err(old) => <$t>::from_bits(old),
                }
            }
        }
    )*};
}
atomic_float!(f32 => AtomicU32, ftz32, f64 => AtomicU64, |x| x);

/// CUDA's `__threadfence()` and `__threadfence_system()` on the CPU backend: a
/// sequentially consistent fence (blocks run on several OS threads, so the
/// hardware must order this thread's accesses before and after it as seen by
/// every other thread; `SeqCst` is what `fence.sc` at device or system scope
/// promises).
#[inline]
pub fn threadfence() {
    atomic::fence(Ordering::SeqCst);
}

/// CUDA's `__threadfence_block()` on the CPU backend: all threads of a block
/// run on one OS thread, which sees its own accesses in program order, so only
/// the compiler must not move accesses across it.
#[inline]
pub fn threadfence_block() {
    atomic::compiler_fence(Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inc_and_dec_wrap_like_cuda() {
        assert_eq!(u32::apply(AtomicOp::Inc(3), 2), 3);
        assert_eq!(u32::apply(AtomicOp::Inc(3), 3), 0);
        assert_eq!(u32::apply(AtomicOp::Inc(3), 9), 0);
        assert_eq!(u32::apply(AtomicOp::Inc(u32::MAX), u32::MAX - 1), u32::MAX);
        assert_eq!(u32::apply(AtomicOp::Dec(3), 0), 3);
        assert_eq!(u32::apply(AtomicOp::Dec(3), 9), 3);
        assert_eq!(u32::apply(AtomicOp::Dec(3), 2), 1);
    }

    #[test]
    fn nan_ignoring_min_max_of_integers_is_min_max() {
        assert_eq!(i32::apply(AtomicOp::NanMin(-3), 2), -3);
        assert_eq!(u64::apply(AtomicOp::NanMax(7), 9), 9);
        let mut x = 5i64;
        // SAFETY: `x` is a live, aligned local that nothing else accesses.
        let old = unsafe { i64::atomic_rmw(&mut x, AtomicOp::NanMax(11)) };
        assert_eq!((old, x), (5, 11));
    }

    #[test]
    fn float_min_max_nan_and_zero_rules() {
        // Numba's `cuda.atomic.min`/`max`: the element stays if either is NaN.
        assert!(f32::apply(AtomicOp::Min(1.0), f32::NAN).is_nan());
        assert_eq!(f32::apply(AtomicOp::Min(f32::NAN), 1.0), 1.0);
        assert_eq!(f64::apply(AtomicOp::Max(f64::NAN), 1.0), 1.0);
        assert!(f64::apply(AtomicOp::Max(-1.0), f64::NAN).is_nan());
        // `nanmin`/`nanmax`: a NaN loses.
        assert_eq!(f32::apply(AtomicOp::NanMin(1.0), f32::NAN), 1.0);
        assert_eq!(f32::apply(AtomicOp::NanMin(f32::NAN), 1.0), 1.0);
        assert_eq!(f64::apply(AtomicOp::NanMax(f64::NAN), 1.0), 1.0);
        assert_eq!(f64::apply(AtomicOp::NanMax(-1.0), f64::NAN), -1.0);
        assert!(f64::apply(AtomicOp::NanMax(f64::NAN), f64::NAN).is_nan());
        assert!(f32::apply(AtomicOp::NanMin(-0.0), 0.0).is_sign_positive());
        // An equal value keeps the old one, sign of zero included.
        assert!(f32::apply(AtomicOp::Min(-0.0), 0.0).is_sign_positive());
        assert!(f32::apply(AtomicOp::Max(0.0), -0.0).is_sign_negative());
    }

    #[test]
    fn f32_add_flushes_subnormals_and_f64_does_not() {
        let tiny = f32::MIN_POSITIVE / 2.0;
        assert_eq!(f32::apply(AtomicOp::Add(tiny), 1.0), 1.0);
        assert_eq!(f32::apply(AtomicOp::Add(tiny), 0.0).to_bits(), 0);
        assert_eq!(f32::apply(AtomicOp::Sub(tiny), -0.0).to_bits(), (-0.0f32).to_bits());
        let tiny64 = f64::MIN_POSITIVE / 2.0;
        assert_eq!(f64::apply(AtomicOp::Add(tiny64), 0.0), tiny64);
    }

    #[test]
    fn rmw_returns_the_old_value() {
        let mut x = 5i64;
        // SAFETY: `x` is a live, aligned local that nothing else accesses.
        unsafe {
            assert_eq!(i64::atomic_rmw(&mut x, AtomicOp::Sub(7)), 5);
            assert_eq!(i64::atomic_rmw(&mut x, AtomicOp::Cas { compare: -2, value: 9 }), -2);
            assert_eq!(i64::atomic_rmw(&mut x, AtomicOp::Cas { compare: 0, value: 1 }), 9);
        }
        assert_eq!(x, 9);
        let mut f = 1.5f64;
        // SAFETY: as above.
        unsafe {
            assert_eq!(f64::atomic_rmw(&mut f, AtomicOp::Min(-3.0)), 1.5);
            assert_eq!(f64::atomic_rmw(&mut f, AtomicOp::Exch(2.0)), -3.0);
        }
        assert_eq!(f, 2.0);
    }
}
