//! Kernels with atomics and fences (`tests/language/atomics.rs`, the NVRTC compile
//! test and the host differential test `tests/agree/`).

use gpujit::prelude::*;

/// Slots per thread of the `uncontended_*` kernels for integers.
pub const INT_SLOTS: usize = 9;
/// Slots per thread of `uncontended_u32` (the integer ones, then inc and dec).
pub const U32_SLOTS: usize = 11;
/// Slots per thread of the `uncontended_*` kernels for floats.
pub const FLOAT_SLOTS: usize = 7;

/// Interesting integers of each width, the inputs of the `uncontended_*`
/// kernels for integers (wrapped into the type with `as`).
pub const EDGE_INTS: [i128; 12] = [
    0,
    1,
    -1,
    7,
    -7,
    255,
    1 << 31,
    (1 << 31) - 1,
    -(1 << 31),
    i64::MAX as i128,
    i64::MIN as i128,
    0x5a5a_5a5a,
];

/// Thread `i` applies every atomic to its own slots `a[i * INT_SLOTS..]` with
/// operand `b[i]` (`atomic_cas` compares with `c[i]`) and keeps each old value.
#[gpu_kernel]
pub fn uncontended_i32(a: &mut [i32], b: &[i32], c: &[i32], old: &mut [i32]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * INT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_cas(&mut a[o + 5], c[i], b[i]);
        old[o + 6] = atomic_and(&mut a[o + 6], b[i]);
        old[o + 7] = atomic_or(&mut a[o + 7], b[i]);
        old[o + 8] = atomic_xor(&mut a[o + 8], b[i]);
    }
}

/// Every thread applies each order-independent atomic to one shared element
/// per operation: `a[0] += b[i]`, `a[1] -= b[i]`, min, max, and, or, xor
/// (and, for `u32`, inc and dec with limit 1000 on `a[7]`, `a[8]`).
#[gpu_kernel]
pub fn contended_i32(a: &mut [i32], b: &[i32]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
        atomic_and(&mut a[4], b[i]);
        atomic_or(&mut a[5], b[i]);
        atomic_xor(&mut a[6], b[i]);
    }
}

/// Thread `i` applies every atomic to its own slots `a[i * U32_SLOTS..]` with
/// operand `b[i]` (`atomic_cas` compares with `c[i]`) and keeps each old value.
#[gpu_kernel]
pub fn uncontended_u32(a: &mut [u32], b: &[u32], c: &[u32], old: &mut [u32]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * U32_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_cas(&mut a[o + 5], c[i], b[i]);
        old[o + 6] = atomic_and(&mut a[o + 6], b[i]);
        old[o + 7] = atomic_or(&mut a[o + 7], b[i]);
        old[o + 8] = atomic_xor(&mut a[o + 8], b[i]);
        old[o + 9] = atomic_inc(&mut a[o + 9], b[i]);
        old[o + 10] = atomic_dec(&mut a[o + 10], b[i]);
    }
}

/// Every thread applies each order-independent atomic to one shared element
/// per operation: `a[0] += b[i]`, `a[1] -= b[i]`, min, max, and, or, xor
/// (and, for `u32`, inc and dec with limit 1000 on `a[7]`, `a[8]`).
#[gpu_kernel]
pub fn contended_u32(a: &mut [u32], b: &[u32]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
        atomic_and(&mut a[4], b[i]);
        atomic_or(&mut a[5], b[i]);
        atomic_xor(&mut a[6], b[i]);
        atomic_inc(&mut a[7], 1000);
        atomic_dec(&mut a[8], 1000);
    }
}

/// Thread `i` applies every atomic to its own slots `a[i * INT_SLOTS..]` with
/// operand `b[i]` (`atomic_cas` compares with `c[i]`) and keeps each old value.
#[gpu_kernel]
pub fn uncontended_i64(a: &mut [i64], b: &[i64], c: &[i64], old: &mut [i64]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * INT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_cas(&mut a[o + 5], c[i], b[i]);
        old[o + 6] = atomic_and(&mut a[o + 6], b[i]);
        old[o + 7] = atomic_or(&mut a[o + 7], b[i]);
        old[o + 8] = atomic_xor(&mut a[o + 8], b[i]);
    }
}

/// Every thread applies each order-independent atomic to one shared element
/// per operation: `a[0] += b[i]`, `a[1] -= b[i]`, min, max, and, or, xor
/// (and, for `u32`, inc and dec with limit 1000 on `a[7]`, `a[8]`).
#[gpu_kernel]
pub fn contended_i64(a: &mut [i64], b: &[i64]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
        atomic_and(&mut a[4], b[i]);
        atomic_or(&mut a[5], b[i]);
        atomic_xor(&mut a[6], b[i]);
    }
}

/// Thread `i` applies every atomic to its own slots `a[i * INT_SLOTS..]` with
/// operand `b[i]` (`atomic_cas` compares with `c[i]`) and keeps each old value.
#[gpu_kernel]
pub fn uncontended_u64(a: &mut [u64], b: &[u64], c: &[u64], old: &mut [u64]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * INT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_cas(&mut a[o + 5], c[i], b[i]);
        old[o + 6] = atomic_and(&mut a[o + 6], b[i]);
        old[o + 7] = atomic_or(&mut a[o + 7], b[i]);
        old[o + 8] = atomic_xor(&mut a[o + 8], b[i]);
    }
}

/// Every thread applies each order-independent atomic to one shared element
/// per operation: `a[0] += b[i]`, `a[1] -= b[i]`, min, max, and, or, xor
/// (and, for `u32`, inc and dec with limit 1000 on `a[7]`, `a[8]`).
#[gpu_kernel]
pub fn contended_u64(a: &mut [u64], b: &[u64]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
        atomic_and(&mut a[4], b[i]);
        atomic_or(&mut a[5], b[i]);
        atomic_xor(&mut a[6], b[i]);
    }
}

/// Thread `i` applies every atomic to its own slots `a[i * INT_SLOTS..]` with
/// operand `b[i]` (`atomic_cas` compares with `c[i]`) and keeps each old value.
#[gpu_kernel]
pub fn uncontended_usize(a: &mut [usize], b: &[usize], c: &[usize], old: &mut [usize]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * INT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_cas(&mut a[o + 5], c[i], b[i]);
        old[o + 6] = atomic_and(&mut a[o + 6], b[i]);
        old[o + 7] = atomic_or(&mut a[o + 7], b[i]);
        old[o + 8] = atomic_xor(&mut a[o + 8], b[i]);
    }
}

/// Every thread applies each order-independent atomic to one shared element
/// per operation: `a[0] += b[i]`, `a[1] -= b[i]`, min, max, and, or, xor
/// (and, for `u32`, inc and dec with limit 1000 on `a[7]`, `a[8]`).
#[gpu_kernel]
pub fn contended_usize(a: &mut [usize], b: &[usize]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
        atomic_and(&mut a[4], b[i]);
        atomic_or(&mut a[5], b[i]);
        atomic_xor(&mut a[6], b[i]);
    }
}

/// Thread `i` applies every float atomic to its own slots `a[i * FLOAT_SLOTS..]`
/// with operand `b[i]` and keeps each old value.
#[gpu_kernel]
pub fn uncontended_f32(a: &mut [f32], b: &[f32], old: &mut [f32]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * FLOAT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_nanmin(&mut a[o + 5], b[i]);
        old[o + 6] = atomic_nanmax(&mut a[o + 6], b[i]);
    }
}

/// Every thread adds and subtracts `b[i]` into `a[0]`, `a[1]` and takes the
/// min and max into `a[2]`, `a[3]` (exact when the values are small integers).
#[gpu_kernel]
pub fn contended_f32(a: &mut [f32], b: &[f32]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
    }
}

/// Thread `i` applies every float atomic to its own slots `a[i * FLOAT_SLOTS..]`
/// with operand `b[i]` and keeps each old value.
#[gpu_kernel]
pub fn uncontended_f64(a: &mut [f64], b: &[f64], old: &mut [f64]) {
    let i = grid(1);
    if i < b.len() {
        let o = i * FLOAT_SLOTS;
        old[o] = atomic_add(&mut a[o], b[i]);
        old[o + 1] = atomic_sub(&mut a[o + 1], b[i]);
        old[o + 2] = atomic_min(&mut a[o + 2], b[i]);
        old[o + 3] = atomic_max(&mut a[o + 3], b[i]);
        old[o + 4] = atomic_exch(&mut a[o + 4], b[i]);
        old[o + 5] = atomic_nanmin(&mut a[o + 5], b[i]);
        old[o + 6] = atomic_nanmax(&mut a[o + 6], b[i]);
    }
}

/// Every thread adds and subtracts `b[i]` into `a[0]`, `a[1]` and takes the
/// min and max into `a[2]`, `a[3]` (exact when the values are small integers).
#[gpu_kernel]
pub fn contended_f64(a: &mut [f64], b: &[f64]) {
    let i = grid(1);
    if i < b.len() {
        atomic_add(&mut a[0], b[i]);
        atomic_sub(&mut a[1], b[i]);
        atomic_min(&mut a[2], b[i]);
        atomic_max(&mut a[3], b[i]);
    }
}

/// The ticket test: each thread takes a ticket from `counter[0]` and
/// stores it at its global index.
#[gpu_kernel]
pub fn tickets(counter: &mut [u32], out: &mut [u32]) {
    let i = grid(1);
    let ticket = atomic_add(&mut counter[0], 1);
    if i < out.len() {
        out[i] = ticket;
    }
}

/// Every thread adds `1.0` to `acc[0]`.
#[gpu_kernel]
pub fn add_ones_f32(acc: &mut [f32]) {
    atomic_add(&mut acc[0], 1.0);
}

/// A 256-bin histogram of `x` (bytes stored as `u32`): per-block counts with
/// shared-memory atomics, then one global atomic per bin and block.
#[gpu_kernel]
pub fn shared_histogram(x: &[u32], hist: &mut [u32]) {
    let bins = shared_array::<[u32; 256]>();
    let t = thread_idx().x;
    let mut b = t;
    while b < 256 {
        bins[b] = 0;
        b += block_dim().x;
    }
    syncthreads();
    let mut i = grid(1);
    while i < x.len() {
        atomic_add(&mut bins[(x[i] & 255) as usize], 1);
        i += gridsize(1);
    }
    syncthreads();
    let mut b = t;
    while b < 256 {
        atomic_add(&mut hist[b], bins[b]);
        b += block_dim().x;
    }
}

/// 2-D shared atomics (`i64` min/max per 4x4 cell, `f64` sums) merged into
/// 2-D and 3-D global views with atomics: thread `(x, y)` of each block
/// lands in cell `[y % 4][x % 4]`.
#[gpu_kernel]
pub fn atomics_2d_3d(v: ArrayView2<i64>, lo: ArrayViewMut2<i64>, hi: ArrayViewMut2<i64>, sums: ArrayViewMut3<f64>) {
    let smin = shared_array::<[[i64; 4]; 4]>();
    let smax = shared_array::<[[i64; 4]; 4]>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    if tx < 4 && ty < 4 {
        smin[ty][tx] = i64::MAX;
        smax[ty][tx] = i64::MIN;
    }
    syncthreads();
    let (x, y) = grid(2);
    let (rows, cols) = v.dim();
    if y < rows && x < cols {
        let val = v[[y, x]];
        atomic_min(&mut smin[y % 4][x % 4], val);
        atomic_max(&mut smax[y % 4][x % 4], val);
        atomic_add(&mut sums[[block_idx().y % 2, y % 4, x % 4]], val as f64);
    }
    syncthreads();
    if tx < 4 && ty < 4 {
        atomic_min(&mut lo[[ty, tx]], smin[ty][tx]);
        atomic_max(&mut hi[[ty, tx]], smax[ty][tx]);
    }
}

/// Block 0's thread 0 publishes `data[0] = 7` behind each kind of fence and a
/// flag; every thread also counts itself into `count[0]`.
#[gpu_kernel]
pub fn fences(data: &mut [u32], flag: &mut [u32], count: &mut [u32]) {
    if grid(1) == 0 {
        data[0] = 7;
        threadfence_block();
        data[1] = 8;
        threadfence();
        data[2] = 9;
        threadfence_system();
        atomic_exch(&mut flag[0], 1);
    }
    atomic_inc(&mut count[0], u32::MAX);
}

/// Thread 0 of each of the first two blocks checks in at `arrived[0]`, then
/// polls it (an atomic read) until both are in: `met[b] = 1` if it saw the
/// other block before giving up after `spins` polls. Both can only meet if
/// the two blocks run at the same time.
#[gpu_kernel]
pub fn blocks_meet(arrived: &mut [u32], met: &mut [u32], spins: u64) {
    let b = block_idx().x;
    if thread_idx().x == 0 && b < 2 {
        atomic_add(&mut arrived[0], 1);
        let mut k = 0u64;
        while k < spins {
            if atomic_or(&mut arrived[0], 0) >= 2 {
                met[b] = 1;
                break;
            }
            k += 1;
        }
    }
}

/// `reps` rounds of atomics per thread on 8 `u64` counters, an `i32`
/// counter and an `f64` sum, all contended by every block.
#[gpu_kernel]
pub fn hammer(counters: &mut [u64], signed: &mut [i32], sum: &mut [f64], reps: u32) {
    let i = grid(1);
    for r in 0..reps {
        atomic_add(&mut counters[(i + r as usize) % 8], 1);
        atomic_sub(&mut signed[0], 1);
        atomic_add(&mut sum[0], 0.5);
    }
}

/// An atomic past the end of `a` (a fault on the CPU backend) that also
/// stores what it returned.
#[gpu_kernel]
pub fn atomic_out_of_bounds(a: &mut [u32], got: &mut [u32]) {
    if grid(1) == 0 {
        got[0] = atomic_add(&mut a[a.len()], 5) + 1;
    }
}

/// Every kernel of this module.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &uncontended_i32::KERNEL,
        &uncontended_u32::KERNEL,
        &uncontended_i64::KERNEL,
        &uncontended_u64::KERNEL,
        &uncontended_usize::KERNEL,
        &uncontended_f32::KERNEL,
        &uncontended_f64::KERNEL,
        &contended_i32::KERNEL,
        &contended_u32::KERNEL,
        &contended_i64::KERNEL,
        &contended_u64::KERNEL,
        &contended_usize::KERNEL,
        &contended_f32::KERNEL,
        &contended_f64::KERNEL,
        &tickets::KERNEL,
        &add_ones_f32::KERNEL,
        &shared_histogram::KERNEL,
        &atomics_2d_3d::KERNEL,
        &fences::KERNEL,
        &blocks_meet::KERNEL,
        &hammer::KERNEL,
        &atomic_out_of_bounds::KERNEL,
    ]
}
