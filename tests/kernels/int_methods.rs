//! The integer methods of issue #17 (`div_ceil`, `next_multiple_of`,
//! `next_power_of_two`, `isqrt`, `ilog`, `ilog2`, `ilog10`, `saturating_mul`,
//! `unsigned_abs`, `leading_ones`, `trailing_ones`, `wrapping_div`,
//! `wrapping_rem`), one kernel per integer type, and kernels whose inputs
//! make them fault on the CPU backend (a zero divisor, a logarithm of 0).
//!
//! The agreement kernels guard every input on which Rust would panic (a zero
//! divisor becomes 1, a logarithm of a value `<= 0` or to a base below 2 is
//! replaced by 99), so that they run on every backend, the host C included.

use gpujit::prelude::*;

/// Results per element in the unsigned kernels' `out` and `out32`.
pub const UNSIGNED_OUT: usize = 7;
pub const UNSIGNED_OUT32: usize = 5;
/// Results per element in the signed kernels' `out` and `out32`.
pub const SIGNED_OUT: usize = 4;
pub const SIGNED_OUT32: usize = 5;

macro_rules! unsigned_methods {
    ($name:ident, $t:ty) => {
        /// Every unsigned-only and shared method on `a[i]` and `b[i]`.
        #[gpu_kernel]
        pub fn $name(a: &[$t], b: &[$t], out: &mut [$t], out32: &mut [u32], flags: &mut [bool]) {
            let i = grid(1);
            if i < a.len() {
                let x = a[i];
                let y = b[i];
                let d = if y == 0 { 1 } else { y };
                let o = i * 7;
                out[o] = x.div_ceil(d);
                out[o + 1] = x.next_multiple_of(d);
                out[o + 2] = x.next_power_of_two();
                out[o + 3] = x.isqrt();
                out[o + 4] = x.saturating_mul(y);
                out[o + 5] = x.wrapping_div(d);
                out[o + 6] = x.wrapping_rem(d);
                let p = i * 5;
                out32[p] = if x > 0 && y >= 2 { x.ilog(y) } else { 99 };
                out32[p + 1] = if x > 0 { x.ilog2() } else { 99 };
                out32[p + 2] = if x > 0 { x.ilog10() } else { 99 };
                out32[p + 3] = x.leading_ones();
                out32[p + 4] = x.trailing_ones();
                flags[i] = x.is_power_of_two();
            }
        }
    };
}

unsigned_methods!(int_methods_u8, u8);
unsigned_methods!(int_methods_u16, u16);
unsigned_methods!(int_methods_u32, u32);
unsigned_methods!(int_methods_u64, u64);
unsigned_methods!(int_methods_usize, usize);

macro_rules! signed_methods {
    ($name:ident, $t:ty, $u:ty) => {
        /// Every signed-only and shared method on `a[i]` and `b[i]`.
        #[gpu_kernel]
        pub fn $name(a: &[$t], b: &[$t], out: &mut [$t], out_u: &mut [$u], out32: &mut [u32]) {
            let i = grid(1);
            if i < a.len() {
                let x = a[i];
                let y = b[i];
                let d = if y == 0 { 1 } else { y };
                let o = i * 4;
                out[o] = if x >= 0 { x.isqrt() } else { -1 };
                out[o + 1] = x.saturating_mul(y);
                out[o + 2] = x.wrapping_div(d);
                out[o + 3] = x.wrapping_rem(d);
                out_u[i] = x.unsigned_abs();
                let p = i * 5;
                out32[p] = if x > 0 && y >= 2 { x.ilog(y) } else { 99 };
                out32[p + 1] = if x > 0 { x.ilog2() } else { 99 };
                out32[p + 2] = if x > 0 { x.ilog10() } else { 99 };
                out32[p + 3] = x.leading_ones();
                out32[p + 4] = x.trailing_ones();
            }
        }
    };
}

signed_methods!(int_methods_i8, i8, u8);
signed_methods!(int_methods_i16, i16, u16);
signed_methods!(int_methods_i32, i32, u32);
signed_methods!(int_methods_i64, i64, u64);

/// The call form (`u32::div_ceil(x, y)`), literals of inferred type, a body
/// `const` (computed by rustc on the CPU backend and by the helper in the C)
/// and the methods on a value whose type comes from the other operand.
#[gpu_kernel]
pub fn int_methods_forms(n: u32, out: &mut [u32], wide: &mut [u64]) {
    const BLOCKS: u32 = 100_000u32.div_ceil(256);
    if grid(1) == 0 {
        out[0] = u32::div_ceil(n, 256);
        out[1] = BLOCKS;
        out[2] = n.next_multiple_of(256) / 256;
        out[3] = u32::isqrt(n);
        out[4] = n.ilog2() + n.ilog10() + n.ilog(3);
        out[5] = (n as i32 - 200_000).unsigned_abs();
        let big = n as u64 * 1_000_000;
        wide[0] = big.next_power_of_two();
        wide[1] = big.saturating_mul(big);
        wide[2] = u64::MAX.div_ceil(big);
    }
}

/// `div_ceil` and `next_multiple_of` by zero, `isqrt` of a negative value,
/// logarithms of 0 and to base 1: each a fault on the CPU backend, where the
/// faulting thread gets 0 (not run on a GPU: the values are unspecified, and
/// the host C would trap on the division).
#[gpu_kernel]
pub fn int_methods_faults(a: &[u32], b: &[u32], s: &[i32], out: &mut [u32], sout: &mut [i32]) {
    let i = grid(1);
    if i < a.len() {
        out[i * 6] = a[i].div_ceil(b[i]);
        out[i * 6 + 1] = a[i].next_multiple_of(b[i]);
        out[i * 6 + 2] = a[i].ilog2();
        out[i * 6 + 3] = a[i].ilog10();
        out[i * 6 + 4] = a[i].ilog(b[i]);
        out[i * 6 + 5] = s[i].ilog2();
        sout[i] = s[i].isqrt();
    }
}

/// A kernel's own variables named like CUDA's and Numba's intrinsics
/// (`warpSize`, `lane_id`, `activemask`) stay its own: gpujit reports those
/// names only where the kernel does not bind them (issue #17).
#[gpu_kernel]
#[allow(non_snake_case)]
pub fn own_names_like_intrinsics(out: &mut [u32], warpSize: u32) {
    let i = grid(1);
    let lane_id = (i as u32) % warpSize;
    let activemask = lane_id + 1;
    if i < out.len() {
        out[i] = lane_id * 10 + activemask;
    }
}

/// `wrapping_neg` of every integer type, as the type and widened to `i64`
/// (found by the fuzzer, seed 100: the C negated `u8`/`u16` in C's `int`, so
/// `1u16.wrapping_neg() as i64` was -1 instead of 65535).
macro_rules! negate_kernel {
    ($name:ident, $t:ty) => {
        #[gpu_kernel]
        pub fn $name(x: &[$t], neg: &mut [$t], wide: &mut [i64]) {
            let i = grid(1);
            if i < x.len() {
                neg[i] = x[i].wrapping_neg();
                wide[i] = x[i].wrapping_neg() as i64;
            }
        }
    };
}
negate_kernel!(negate_u8, u8);
negate_kernel!(negate_u16, u16);
negate_kernel!(negate_u32, u32);
negate_kernel!(negate_u64, u64);
negate_kernel!(negate_usize, usize);
negate_kernel!(negate_i8, i8);
negate_kernel!(negate_i16, i16);
negate_kernel!(negate_i32, i32);
negate_kernel!(negate_i64, i64);

pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &negate_u8::KERNEL,
        &negate_u16::KERNEL,
        &negate_u32::KERNEL,
        &negate_u64::KERNEL,
        &negate_usize::KERNEL,
        &negate_i8::KERNEL,
        &negate_i16::KERNEL,
        &negate_i32::KERNEL,
        &negate_i64::KERNEL,
        &int_methods_u8::KERNEL,
        &int_methods_u16::KERNEL,
        &int_methods_u32::KERNEL,
        &int_methods_u64::KERNEL,
        &int_methods_usize::KERNEL,
        &int_methods_i8::KERNEL,
        &int_methods_i16::KERNEL,
        &int_methods_i32::KERNEL,
        &int_methods_i64::KERNEL,
        &int_methods_forms::KERNEL,
        &own_names_like_intrinsics::KERNEL,
        // Divides by zero on purpose: compiled (NVRTC, the host C), never
        // run as C on the host.
        &int_methods_faults::KERNEL,
    ]
}
