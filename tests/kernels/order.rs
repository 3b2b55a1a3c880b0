//! Two side effects in one expression: Rust evaluates operands and arguments
//! left to right, C in an unspecified order, so the CUDA C must evaluate them
//! into temporaries first. Each thread works on its own elements, so every
//! result is exact.

use gpujit::prelude::*;

/// `c[i] += 1`, returning the old value (an effect inside a device function).
#[gpu_device]
fn bump(c: &mut [u32], i: usize) -> u32 {
    atomic_add(&mut c[i], 1)
}

/// Both values, the first in the tens.
#[gpu_device]
fn tens_ones(a: u32, b: u32) -> u32 {
    a * 10 + b
}

/// Per thread `i` (each slot of `c`, `d` and `e` starts at 0):
/// - `out[4i]`: two atomics as the operands of `*` and `+`: `0 * 10 + 1`;
/// - `out[4i + 1]`: two device calls with effects: `2 * 100 + 3`;
/// - `out[4i + 2]`: a read, then an atomic on the same element:
///   `d[i] + atomic_exch(d[i], 7)` is `0 + 0` (the atomic's write comes after);
/// - `out[4i + 3]`: two atomics as a device function's arguments: `tens_ones(7, 9)`;
/// - `e[2i + (atomic_add(c2[i], 1) & 1)] += 5` (an `i32` compound
///   assignment, whose C repeats the element): the index is taken once, so
///   `c2[i]` ends at 1 and `e[2i]` at 5.
#[gpu_kernel]
pub fn effects_in_order(c: &mut [u32], d: &mut [u32], c2: &mut [u32], e: &mut [i32], out: &mut [u32]) {
    let i = grid(1);
    if i < c.len() {
        out[4 * i] = atomic_add(&mut c[i], 1) * 10 + atomic_add(&mut c[i], 1);
        out[4 * i + 1] = bump(c, i) * 100 + bump(c, i);
        out[4 * i + 2] = d[i] + atomic_exch(&mut d[i], 7);
        out[4 * i + 3] = tens_ones(atomic_exch(&mut d[i], 9), atomic_exch(&mut d[i], 1));
        e[2 * i + (atomic_add(&mut c2[i], 1) & 1) as usize] += 5;
    }
}

/// An assignment whose index and value both have effects: Rust evaluates
/// the value first, then the place (also for a compound assignment on
/// primitives). Per thread `i` (`c[3i..3i+3]` start at 0, blocks of at most
/// 64 threads), into a global, a shared and a local array:
/// - `y[4i + a] = b + 10` takes `b = 0`, then `a = 1`: `y[4i + 1] = 10`;
/// - `y[4i + 2 + a] += b + 10` likewise: `y[4i + 3] += 10`;
/// - shared: `s[4t + 1] = 10`, then `s[4t + 3] += 12`;
/// - local: `l[1] = 12`, then `l[3] += 14`;
///
/// so `y`, `ys` and `yl` hold `[0, 10, 0, 10]`, `[0, 10, 0, 12]` and
/// `[0, 12, 0, 14]` per thread, and `c` ends at `[6, 2, 4]`.
#[gpu_kernel]
pub fn assign_value_before_index(c: &mut [u32], y: &mut [u32], ys: &mut [u32], yl: &mut [u32]) {
    let i = grid(1);
    let t = thread_idx().x;
    let s = shared_array::<[u32; 256]>();
    for k in 0..4 {
        s[4 * t + k] = 0;
    }
    if i < y.len() / 4 {
        let g = 3 * i;
        y[4 * i + atomic_add(&mut c[g], 1) as usize] = atomic_add(&mut c[g], 1) + 10;
        y[4 * i + 2 + atomic_add(&mut c[g + 1], 1) as usize] += atomic_add(&mut c[g + 1], 1) + 10;
        s[4 * t + atomic_add(&mut c[g + 2], 1) as usize] = atomic_add(&mut c[g + 2], 1) + 10;
        s[4 * t + atomic_add(&mut c[g + 2], 1) as usize] += atomic_add(&mut c[g + 2], 1) + 10;
        let mut l = [0u32; 4];
        l[atomic_add(&mut c[g], 1) as usize - 2] = atomic_add(&mut c[g], 1) + 10;
        l[atomic_add(&mut c[g], 1) as usize - 2] += atomic_add(&mut c[g], 1) + 10;
        for k in 0..4 {
            ys[4 * i + k] = s[4 * t + k];
            yl[4 * i + k] = l[k];
        }
    }
}

pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![&effects_in_order::KERNEL, &assign_value_before_index::KERNEL]
}
