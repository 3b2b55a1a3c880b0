//! The numeric methods whose Rust versions can panic, with the kernel's
//! fault semantics instead: `clamp` with bounds out of order (or NaN), and
//! `div_euclid`/`rem_euclid` by zero. The macro calls these through
//! [`Thread`]; every other numeric method is Rust's own.

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
}
