//! The numeric methods whose Rust versions can panic, with the kernel's
//! fault semantics instead: `clamp` with bounds out of order (or NaN),
//! `div_euclid`/`rem_euclid`/`div_ceil`/`next_multiple_of` by zero, `isqrt`
//! of a negative value and the integer logarithms of a value `<= 0` (or a
//! base below 2). The macro calls these through [`Thread`]; every other
//! numeric method is Rust's own (`next_multiple_of` and `next_power_of_two`
//! wrap on overflow, as the kernel's arithmetic does).

use crate::cpu::Thread;

/// `div_euclid`/`rem_euclid` with the kernel's ÷0 rule (as [`IntDiv`](crate::cpu::IntDiv)):
/// by zero, a fault and 0; `MIN.div_euclid(-1)` wraps to `MIN` and
/// `MIN.rem_euclid(-1)` is 0, where Rust's methods would panic.
pub trait IntEuclid: Copy {
    /// `self.div_euclid(rhs)`; 0 and a fault if `rhs == 0`.
    fn div_euclid_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
    /// `self.rem_euclid(rhs)`; 0 and a fault if `rhs == 0`.
    fn rem_euclid_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
}

macro_rules! int_euclid {
    ($($t:ty),*) => {$(
        impl IntEuclid for $t {
            #[inline]
            fn div_euclid_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero (`div_euclid`)");
                    0
                } else {
                    self.wrapping_div_euclid(rhs)
                }
            }
            #[inline]
            fn rem_euclid_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero (`rem_euclid`)");
                    0
                } else {
                    self.wrapping_rem_euclid(rhs)
                }
            }
        }
    )*};
}
int_euclid!(u8, i8, i16, u16, i32, i64, u32, u64, usize);

/// `div_ceil` and `next_multiple_of` (the unsigned types, as in stable Rust)
/// with the kernel's ÷0 rule: a fault and 0. `next_multiple_of` wraps where
/// it overflows (`u8::MAX.next_multiple_of(2)` is 0), as release builds do.
pub trait IntRound: Copy {
    /// `self.div_ceil(rhs)`; 0 and a fault if `rhs == 0`.
    fn div_ceil_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
    /// `self.next_multiple_of(rhs)`, wrapping; 0 and a fault if `rhs == 0`.
    fn next_multiple_of_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self;
}

macro_rules! int_round {
    ($($t:ty),*) => {$(
        impl IntRound for $t {
            #[inline]
            fn div_ceil_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero (`div_ceil`)");
                    0
                } else {
                    self.div_ceil(rhs)
                }
            }
            #[inline]
            fn next_multiple_of_or_fault(self, rhs: Self, t: &Thread<'_>) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero (`next_multiple_of`)");
                    return 0;
                }
                match self % rhs {
                    0 => self,
                    r => self.wrapping_add(rhs - r),
                }
            }
        }
    )*};
}
int_round!(u8, u16, u32, u64, usize);

/// `isqrt` and the integer logarithms, with a fault and 0 where Rust's
/// methods panic (a negative `isqrt`, a logarithm of a value `<= 0` or to a
/// base below 2).
pub trait IntRoot: Copy {
    /// `self.isqrt()`; 0 and a fault if `self < 0`.
    fn isqrt_or_fault(self, t: &Thread<'_>) -> Self;
    /// `self.ilog(base)`; 0 and a fault if `self <= 0` or `base < 2`.
    fn ilog_or_fault(self, base: Self, t: &Thread<'_>) -> u32;
    /// `self.ilog2()`; 0 and a fault if `self <= 0`.
    fn ilog2_or_fault(self, t: &Thread<'_>) -> u32;
    /// `self.ilog10()`; 0 and a fault if `self <= 0`.
    fn ilog10_or_fault(self, t: &Thread<'_>) -> u32;
}

macro_rules! int_root {
    ($($t:ty),*) => {$(
        impl IntRoot for $t {
            #[inline]
            fn isqrt_or_fault(self, t: &Thread<'_>) -> Self {
                #[allow(unused_comparisons)] // unsigned types: never negative
                if self < 0 {
                    t.fault("`isqrt` of a negative value");
                    return 0;
                }
                self.isqrt()
            }
            #[inline]
            fn ilog_or_fault(self, base: Self, t: &Thread<'_>) -> u32 {
                self.checked_ilog(base).unwrap_or_else(|| {
                    t.fault("`ilog` of a value <= 0, or to a base below 2");
                    0
                })
            }
            #[inline]
            fn ilog2_or_fault(self, t: &Thread<'_>) -> u32 {
                self.checked_ilog2().unwrap_or_else(|| {
                    t.fault("`ilog2` of a value <= 0");
                    0
                })
            }
            #[inline]
            fn ilog10_or_fault(self, t: &Thread<'_>) -> u32 {
                self.checked_ilog10().unwrap_or_else(|| {
                    t.fault("`ilog10` of a value <= 0");
                    0
                })
            }
        }
    )*};
}
int_root!(u8, i8, i16, u16, i32, i64, u32, u64, usize);

/// `min`/`max` as kernels do them on every backend: Rust's for integers;
/// for floats Rust's (a NaN operand gives the other), with -0.0 below +0.0
/// (IEEE 754-2019 `minimumNumber`/`maximumNumber`), where Rust, C's
/// `fmin`/`fmax` and IEEE 754-2008 may return either zero. Machinery for
/// generated code.
pub trait KernelMinMax: Copy {
    /// `self.min(other)`, -0.0 below +0.0.
    fn kernel_min(self, other: Self) -> Self;
    /// `self.max(other)`, +0.0 above -0.0.
    fn kernel_max(self, other: Self) -> Self;
}

macro_rules! int_min_max {
    ($($t:ty),*) => {$(
        impl KernelMinMax for $t {
            #[inline(always)]
            fn kernel_min(self, other: Self) -> Self {
                Ord::min(self, other)
            }
            #[inline(always)]
            fn kernel_max(self, other: Self) -> Self {
                Ord::max(self, other)
            }
        }
    )*};
}
int_min_max!(u8, i8, u16, i16, u32, i32, u64, i64, usize, bool);

macro_rules! float_min_max {
    ($($t:ty),*) => {$(
        impl KernelMinMax for $t {
            #[inline(always)]
            fn kernel_min(self, other: Self) -> Self {
                // Equal: the same bits, or -0.0 and +0.0 (whose OR is -0.0).
                if self == other {
                    <$t>::from_bits(self.to_bits() | other.to_bits())
                } else {
                    self.min(other)
                }
            }
            #[inline(always)]
            fn kernel_max(self, other: Self) -> Self {
                if self == other {
                    <$t>::from_bits(self.to_bits() & other.to_bits())
                } else {
                    self.max(other)
                }
            }
        }
    )*};
}
float_min_max!(f32, f64);

impl Thread<'_> {
    /// `x.clamp(lo, hi)` as Rust computes it (below `lo` gives `lo`, then
    /// above `hi` gives `hi`; a NaN `x` stays NaN), for floats and integers.
    /// Where Rust panics (`lo > hi`, or a NaN bound), records a fault and
    /// returns that same value, which is what the CUDA C computes.
    #[inline]
    pub fn clamp<T: PartialOrd + Copy>(&self, x: T, lo: T, hi: T) -> T {
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // `!(lo <= hi)` is also true for NaN bounds
        if !(lo <= hi) {
            self.fault("`clamp` with min > max or a NaN bound");
        }
        let mut v = x;
        if v < lo {
            v = lo;
        }
        if v > hi {
            v = hi;
        }
        v
    }

    /// `a.div_euclid(b)` as [`IntEuclid::div_euclid_or_fault`].
    #[inline]
    pub fn div_euclid<T: IntEuclid>(&self, a: T, b: T) -> T {
        a.div_euclid_or_fault(b, self)
    }

    /// `a.rem_euclid(b)` as [`IntEuclid::rem_euclid_or_fault`].
    #[inline]
    pub fn rem_euclid<T: IntEuclid>(&self, a: T, b: T) -> T {
        a.rem_euclid_or_fault(b, self)
    }

    /// `a.div_ceil(b)` as [`IntRound::div_ceil_or_fault`].
    #[inline]
    pub fn div_ceil<T: IntRound>(&self, a: T, b: T) -> T {
        a.div_ceil_or_fault(b, self)
    }

    /// `a.next_multiple_of(b)` as [`IntRound::next_multiple_of_or_fault`].
    #[inline]
    pub fn next_multiple_of<T: IntRound>(&self, a: T, b: T) -> T {
        a.next_multiple_of_or_fault(b, self)
    }

    /// `x.isqrt()` as [`IntRoot::isqrt_or_fault`].
    #[inline]
    pub fn isqrt<T: IntRoot>(&self, x: T) -> T {
        x.isqrt_or_fault(self)
    }

    /// `x.ilog(base)` as [`IntRoot::ilog_or_fault`].
    #[inline]
    pub fn ilog<T: IntRoot>(&self, x: T, base: T) -> u32 {
        x.ilog_or_fault(base, self)
    }

    /// `x.ilog2()` as [`IntRoot::ilog2_or_fault`].
    #[inline]
    pub fn ilog2<T: IntRoot>(&self, x: T) -> u32 {
        x.ilog2_or_fault(self)
    }

    /// `x.ilog10()` as [`IntRoot::ilog10_or_fault`].
    #[inline]
    pub fn ilog10<T: IntRoot>(&self, x: T) -> u32 {
        x.ilog10_or_fault(self)
    }
}
