//! Arithmetic on values whose type only rustc knows (outside constants and
//! what is computed from them alone, e.g. `for i in 0..N`): the generated code
//! calls these through [`Thread`](crate::cpu::Thread) so that such arithmetic wraps and faults as
//! it does for the types the macro knows, instead of panicking (an overflow in
//! a debug build, a division by zero in any build).

/// What reports a fault of the kernel semantics (the running [`Thread`]
/// does), so that the arithmetic here needs nothing above it.
///
/// [`Thread`]: crate::cpu::Thread
pub trait Faults {
    /// Records `message` as this thread's fault (the first one counts).
    fn fault(&self, message: &'static str);
}

/// Rust's kernel semantics for one scalar type: integers wrap and divide with
/// [`IntDiv`] (÷0 is a fault that yields 0); floats use IEEE arithmetic.
pub trait KernelArith: Copy {
    /// `self + rhs`.
    fn k_add(self, rhs: Self) -> Self;
    /// `self - rhs`.
    fn k_sub(self, rhs: Self) -> Self;
    /// `self * rhs`.
    fn k_mul(self, rhs: Self) -> Self;
    /// `self / rhs`.
    fn k_div(self, rhs: Self, t: &impl Faults) -> Self;
    /// `self % rhs`.
    fn k_rem(self, rhs: Self, t: &impl Faults) -> Self;
    /// `-self`.
    fn k_neg(self) -> Self;
    /// `self.abs()`.
    fn k_abs(self) -> Self;
}

/// Shifts of an integer whose type only rustc knows: the amount is taken
/// modulo the bit width, as the known types do (`wrapping_shl`).
pub trait KernelShift: Copy {
    /// `self << rhs`.
    fn k_shl(self, rhs: u32) -> Self;
    /// `self >> rhs`.
    fn k_shr(self, rhs: u32) -> Self;
}

macro_rules! ints {
    ($abs:ident: $($t:ty),*) => {$(
        impl KernelArith for $t {
            #[inline] fn k_add(self, rhs: Self) -> Self { self.wrapping_add(rhs) }
            #[inline] fn k_sub(self, rhs: Self) -> Self { self.wrapping_sub(rhs) }
            #[inline] fn k_mul(self, rhs: Self) -> Self { self.wrapping_mul(rhs) }
            #[inline] fn k_div(self, rhs: Self, t: &impl Faults) -> Self { self.div_or_fault(rhs, t) }
            #[inline] fn k_rem(self, rhs: Self, t: &impl Faults) -> Self { self.rem_or_fault(rhs, t) }
            #[inline] fn k_neg(self) -> Self { self.wrapping_neg() }
            #[inline] fn k_abs(self) -> Self { ints!(@$abs self) }
        }
        impl KernelShift for $t {
            #[inline] fn k_shl(self, rhs: u32) -> Self { self.wrapping_shl(rhs) }
            #[inline] fn k_shr(self, rhs: u32) -> Self { self.wrapping_shr(rhs) }
        }
    )*};
    (@same $v:expr) => { same($v) };
    (@wrapping_abs $v:expr) => { $v.wrapping_abs() };
}
/// `abs` of an unsigned integer (rustc rejects it; only for completeness).
#[inline]
fn same<T>(v: T) -> T {
    v
}
ints!(same: u8, u16, u32, u64, usize);
ints!(wrapping_abs: i8, i16, i32, i64);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl KernelArith for $t {
            #[inline] fn k_add(self, rhs: Self) -> Self { self + rhs }
            #[inline] fn k_sub(self, rhs: Self) -> Self { self - rhs }
            #[inline] fn k_mul(self, rhs: Self) -> Self { self * rhs }
            #[inline] fn k_div(self, rhs: Self, _: &impl Faults) -> Self { self / rhs }
            #[inline] fn k_rem(self, rhs: Self, _: &impl Faults) -> Self { self % rhs }
            #[inline] fn k_neg(self) -> Self { -self }
            #[inline] fn k_abs(self) -> Self { self.abs() }
        }
    )*};
}
floats!(f32, f64);

/// Integer division and remainder with GPU-like, fault-reporting semantics:
/// division by zero records the fault "integer division by zero" and yields 0;
/// `MIN / -1` wraps to `MIN` (and `MIN % -1` is 0) instead of panicking.
///
/// The macro rewrites integer `/` and `%` in kernels to [`Thread::div`](crate::cpu::Thread::div) and
/// [`Thread::rem`](crate::cpu::Thread::rem), which call these.
pub trait IntDiv: Copy {
    /// `self / rhs`, truncating toward zero; 0 and a fault if `rhs == 0`.
    fn div_or_fault(self, rhs: Self, t: &impl Faults) -> Self;
    /// `self % rhs` (sign of `self`); 0 and a fault if `rhs == 0`.
    fn rem_or_fault(self, rhs: Self, t: &impl Faults) -> Self;
}

macro_rules! int_div {
    ($($t:ty),*) => {$(
        impl IntDiv for $t {
            #[inline]
            fn div_or_fault(self, rhs: Self, t: &impl Faults) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero");
                    0
                } else {
                    self.wrapping_div(rhs)
                }
            }
            #[inline]
            fn rem_or_fault(self, rhs: Self, t: &impl Faults) -> Self {
                if rhs == 0 {
                    t.fault("integer division by zero");
                    0
                } else {
                    self.wrapping_rem(rhs)
                }
            }
        }
    )*};
}
int_div!(u8, i8, i16, u16, i32, i64, u32, u64, usize);
