//! The warp- and block-wide reductions and scans (`warp_reduce_sum` & co.),
//! one kernel per value type, and a host model of what they give.

use gpujit::prelude::*;

/// What each row of a `collectives_*` kernel's output holds.
pub const ROWS: [&str; 10] = [
    "warp_reduce_sum",
    "warp_reduce_min",
    "warp_reduce_max",
    "warp_scan_inclusive_sum",
    "warp_scan_exclusive_sum",
    "block_reduce_sum",
    "block_reduce_min",
    "block_reduce_max",
    "block_scan_inclusive_sum",
    "block_scan_exclusive_sum",
];

/// Block shapes: full and partial warps, one warp or 32, 1-, 2- and 3-D.
pub const SHAPES: [(u32, u32, u32); 8] = [
    (32, 1, 1),
    (7, 1, 1),
    (100, 1, 1),
    (256, 1, 1),
    (1000, 1, 1),
    (1024, 1, 1),
    (10, 7, 1),
    (4, 4, 3),
];

macro_rules! collectives_of {
    ($($name:ident: $t:ty;)*) => {$(
        /// Every collective of `x[i]` (`i`: the thread's linear index in a
        /// 1-D grid of blocks of any shape) in row `k` of `out`, in the order
        /// of [`ROWS`]; the block-wide ones twice, to show that a call may
        /// follow another.
        #[gpu_kernel]
        pub fn $name(x: &[$t], out: ArrayViewMut2<$t>) {
            let threads = block_dim().x * block_dim().y * block_dim().z;
            let tid = thread_idx().x + block_dim().x * (thread_idx().y + block_dim().y * thread_idx().z);
            let i = block_idx().x * threads + tid;
            let v = x[i];
            out[[0, i]] = warp_reduce_sum(v);
            out[[1, i]] = warp_reduce_min(v);
            out[[2, i]] = warp_reduce_max(v);
            out[[3, i]] = warp_scan_inclusive_sum(v);
            out[[4, i]] = warp_scan_exclusive_sum(v);
            for _ in 0..2 {
                out[[5, i]] = block_reduce_sum(v);
                out[[6, i]] = block_reduce_min(v);
                out[[7, i]] = block_reduce_max(v);
                let inclusive = block_scan_inclusive_sum(v);
                out[[8, i]] = inclusive;
                out[[9, i]] = block_scan_exclusive_sum(v);
            }
        }
    )*};
}

collectives_of! {
    collectives_i32: i32;
    collectives_u32: u32;
    collectives_f32: f32;
    collectives_i64: i64;
    collectives_u64: u64;
    collectives_usize: usize;
    collectives_f64: f64;
}

/// A block sum of `x[i]` whose result only thread 0 stores, and a
/// block-wide exclusive scan that places the kept values (`x > 0`) of each
/// block at the start of its part of `out` (a stream compaction), the count
/// in `kept`.
#[gpu_kernel]
pub fn compact_blocks(x: &[f32], out: &mut [f32], kept: &mut [u32], sums: &mut [f32]) {
    let i = grid(1);
    let v = if i < x.len() { x[i] } else { 0.0f32 };
    let s = block_reduce_sum(v);
    if thread_idx().x == 0 {
        sums[block_idx().x] = s;
    }
    let keep = v > 0.0;
    let at = block_scan_exclusive_sum(keep as u32);
    let base = block_idx().x * block_dim().x;
    if keep {
        out[base + at as usize] = v;
    }
    if thread_idx().x == block_dim().x - 1 {
        kept[block_idx().x] = at + keep as u32;
    }
}

/// A warp sum in a device function (the warp-wide collectives may be
/// called there; the block-wide ones need shared memory).
#[gpu_device]
pub fn lane_total(v: i64) -> i64 {
    warp_reduce_sum(v) - v
}

/// `out[i]` = the sum of the other lanes' `x`, through [`lane_total`].
#[gpu_kernel]
pub fn others_in_callee(x: &[i64], out: &mut [i64]) {
    let i = grid(1);
    out[i] = lane_total(x[i]);
}

/// A value type the collectives need: the arithmetic of the host model.
/// (A trait of the kernels' module, with methods `min` and `max` for the
/// integers too, as a user's could have: the code the macro writes for the
/// collectives' `min`/`max` must not be ambiguous beside it.)
pub trait Value: Copy + PartialEq + std::fmt::Debug {
    const ZERO: Self;
    /// `+`, wrapping for integers.
    fn add(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const ZERO: Self = 0;
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
        }
    )*};
}
int_value!(i32, u32, i64, u64, usize);

macro_rules! float_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            const ZERO: Self = 0.0;
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
        }
    )*};
}
float_value!(f32, f64);

/// What a `collectives_*` kernel writes for `x` in blocks of `threads`
/// threads, row by row ([`ROWS`]), in an order-free model: exact where the
/// sums are (integers, which wrap; floats whose partial sums are exact).
pub fn want_collectives<T: Value>(x: &[T], threads: usize) -> Vec<T> {
    let n = x.len();
    let mut out = vec![T::ZERO; ROWS.len() * n];
    let fold = |v: &[T], f: fn(T, T) -> T| v[1..].iter().fold(v[0], |a, &b| f(a, b));
    for (b, block) in x.chunks(threads).enumerate() {
        let base = b * threads;
        let mut set = |row: usize, at: usize, v: T| out[row * n + base + at] = v;
        for (w, warp) in block.chunks(32).enumerate() {
            let (sum, min, max) = (fold(warp, T::add), fold(warp, T::min), fold(warp, T::max));
            let mut prefix = T::ZERO;
            for (l, &v) in warp.iter().enumerate() {
                let at = 32 * w + l;
                set(0, at, sum);
                set(1, at, min);
                set(2, at, max);
                set(4, at, prefix);
                prefix = prefix.add(v);
                set(3, at, prefix);
            }
        }
        let (sum, min, max) = (fold(block, T::add), fold(block, T::min), fold(block, T::max));
        let mut prefix = T::ZERO;
        for (at, &v) in block.iter().enumerate() {
            set(5, at, sum);
            set(6, at, min);
            set(7, at, max);
            set(9, at, prefix);
            prefix = prefix.add(v);
            set(8, at, prefix);
        }
    }
    out
}

/// Every kernel of this file, for the NVRTC test.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &collectives_i32::KERNEL,
        &collectives_u32::KERNEL,
        &collectives_f32::KERNEL,
        &collectives_i64::KERNEL,
        &collectives_u64::KERNEL,
        &collectives_usize::KERNEL,
        &collectives_f64::KERNEL,
        &compact_blocks::KERNEL,
        &others_in_callee::KERNEL,
    ]
}
