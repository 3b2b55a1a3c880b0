//! `match` and reversed `for` loops (issue #8): each kernel has a host
//! reference in `tests/language/semantics/control.rs` written with the same Rust constructs.

use gpujit::prelude::*;

/// `out[i]`: a value `match` on a computed scrutinee (literals, a negative
/// literal, `|`, `..=`, `..`, a path, `_`); `kind[i]`: a statement `match`
/// with a guard.
#[gpu_kernel]
pub fn match_i32(x: &[i32], out: &mut [i32], kind: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        out[i] = match x[i] - 1 {
            0 => 10,
            -1 | 1 => 20,
            2..=9 => 30,
            -100..-10 => 40,
            i32::MAX => 50,
            _ => 60,
        };
        let v = x[i];
        match v {
            0 => kind[i] = 1,
            1 | 2 | 3 => {
                kind[i] = 2;
            }
            4..=7 if v % 2 == 0 => kind[i] = 3,
            4..=7 => kind[i] = 4,
            _ => kind[i] = 5,
        }
    }
}

/// An exhaustive `u8` match without `_`, a `bool` match, and a statement
/// `match` whose arms `continue` and `break` the enclosing loop.
#[gpu_kernel]
pub fn match_u8_bool_loop(x: &[u8], out: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        let band = match x[i] {
            0..=99 => 1u32,
            100..=199 => 2,
            200..=255 => 3,
        };
        let big = match x[i] > 127 {
            true => 100u32,
            false => 0,
        };
        let mut acc = 0u32;
        for k in 0..20u32 {
            match k % 4 {
                0 => continue,
                3 => {
                    if k > x[i] as u32 % 16 {
                        break;
                    }
                }
                _ => acc += k,
            }
        }
        out[i] = band + big + acc * 1000;
    }
}

/// `syncthreads()` inside the arms of a `match` on a block-uniform value.
#[gpu_kernel]
pub fn match_with_barrier(mode: u32, out: &mut [u32]) {
    let tile = shared_array::<[u32; 64]>();
    let t = thread_idx().x;
    tile[t] = t as u32;
    syncthreads();
    match mode % 4 {
        0 => out[t] = tile[63 - t],
        1 | 2 => {
            let v = tile[(t + 1) % 64];
            syncthreads();
            tile[t] = v * 2;
            syncthreads();
            out[t] = tile[63 - t];
        }
        _ => out[t] = 7,
    }
}

/// The first 8 elements and the count of `(a..b).rev()`, `(a..=b).rev()`,
/// `(a..b).rev().step_by(s)` and `(a..=b).rev().step_by(s)`, in blocks of 9.
#[gpu_kernel]
pub fn rev_i32(a: i32, b: i32, s: usize, out: &mut [i64]) {
    let mut n = 0;
    for i in (a..b).rev() {
        if n < 8 {
            out[n] = i as i64;
        }
        n += 1;
    }
    out[8] = n as i64;
    n = 0;
    for i in (a..=b).rev() {
        if n < 8 {
            out[9 + n] = i as i64;
        }
        n += 1;
    }
    out[17] = n as i64;
    n = 0;
    for i in (a..b).rev().step_by(s) {
        if n < 8 {
            out[18 + n] = i as i64;
        }
        n += 1;
    }
    out[26] = n as i64;
    n = 0;
    for i in (a..=b).rev().step_by(s) {
        if n < 8 {
            out[27 + n] = i as i64;
        }
        n += 1;
    }
    out[35] = n as i64;
    // `continue` must still step the loop.
    let mut odd = 0i64;
    for i in (a..b).rev() {
        if i % 2 == 0 {
            continue;
        }
        odd += 1;
    }
    out[36] = odd;
}

/// [`rev_i32`] for `usize` (ranges down to 0, ends at `usize::MAX`).
#[gpu_kernel]
pub fn rev_usize(a: usize, b: usize, s: usize, out: &mut [u64]) {
    let mut n = 0;
    for i in (a..b).rev() {
        if n < 8 {
            out[n] = i as u64;
        }
        n += 1;
    }
    out[8] = n as u64;
    n = 0;
    for i in (a..=b).rev() {
        if n < 8 {
            out[9 + n] = i as u64;
        }
        n += 1;
    }
    out[17] = n as u64;
    n = 0;
    for i in (a..b).rev().step_by(s) {
        if n < 8 {
            out[18 + n] = i as u64;
        }
        n += 1;
    }
    out[26] = n as u64;
    n = 0;
    for i in (a..=b).rev().step_by(s) {
        if n < 8 {
            out[27 + n] = i as u64;
        }
        n += 1;
    }
    out[35] = n as u64;
}

/// [`rev_i32`]'s stepped forms for `u8` (steps wider than the type).
#[gpu_kernel]
pub fn rev_u8(a: u8, b: u8, s: usize, out: &mut [u32]) {
    let mut n = 0;
    for i in (a..b).rev().step_by(s) {
        if n < 8 {
            out[n] = i as u32;
        }
        n += 1;
    }
    out[8] = n as u32;
    n = 0;
    for i in (a..=b).rev().step_by(s) {
        if n < 8 {
            out[9 + n] = i as u32;
        }
        n += 1;
    }
    out[17] = n as u32;
}

/// `syncthreads()` in a reversed, stepped loop: a tree reduction from the
/// top half down.
#[gpu_kernel]
pub fn rev_barrier_sum(x: &[u32], out: &mut [u32]) {
    let buf = shared_array::<[u32; 64]>();
    let t = thread_idx().x;
    buf[t] = x[t];
    syncthreads();
    for k in (0..6u32).rev() {
        let half = 1usize << k;
        if t < half {
            buf[t] += buf[t + half];
        }
        syncthreads();
    }
    for k in (1..=8usize).rev().step_by(3) {
        if t == 0 {
            buf[0] += k as u32;
        }
        syncthreads();
    }
    out[t] = buf[0];
}

/// Tuples as values: built and taken apart in one `let`, swapped.
#[gpu_kernel]
pub fn tuple_values(x: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let (a, b) = (x[i] + 1, x[i] * 2);
        let (a, b) = (b, a);
        let (c, _) = (a - b, 99);
        out[i] = a * 1000 + b * 10 + c;
    }
}

// ---------------------------------------------------------------- early `return value;`

/// `-x` returned from inside an `if`; the tail is the other value.
#[gpu_device]
pub fn ret_if(x: i32) -> i32 {
    if x < 0 {
        return -x;
    }
    x * 2
}

/// The first `k` in `0..n` with `k * k > x`, returned from inside a `for`;
/// `-1` by a trailing `return`.
#[gpu_device]
pub fn ret_for(x: i32, n: i32) -> i32 {
    for k in 0..n {
        if k * k > x {
            return k;
        }
    }
    return -1;
}

/// Collatz steps from `x` to 1, from a `while`; at 50 steps, `-50`.
#[gpu_device]
pub fn ret_while(x: i32) -> i32 {
    let mut v = x;
    let mut steps = 0;
    while v > 1 {
        if steps == 50 {
            return -steps;
        }
        v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
        steps += 1;
    }
    steps
}

/// From `match` arms inside a `loop`: the first `k` (counting 0, then by 2
/// or 1) with `(x + k) % 4 == 0`, or 100 past 10.
#[gpu_device]
pub fn ret_loop_match(x: i32) -> i32 {
    let mut k = 0;
    loop {
        match (x + k) % 4 {
            0 => {
                return k;
            }
            1 => {
                k += 2;
            }
            _ => {
                k += 1;
                if k > 10 {
                    return 100;
                }
            }
        }
    }
}

/// A tuple returned from a nested block: `(x / 3, true)` where 3 divides `x`.
#[gpu_device]
pub fn ret_tuple(x: i32) -> (i32, bool) {
    {
        if x % 3 == 0 {
            return (x / 3, true);
        }
    }
    (x, false)
}

/// The sum of the decimal digits, recursively, returning early at one digit.
#[gpu_device]
pub fn digit_sum(x: u32) -> u32 {
    if x < 10 {
        return x;
    }
    x % 10 + digit_sum(x / 10)
}

/// Each early-returning device function on `x[i]`: `out[6 * i + k]`.
#[gpu_kernel]
pub fn early_returns(x: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < x.len() {
        let v = x[i];
        let (t, divides) = ret_tuple(v);
        out[6 * i] = ret_if(v);
        out[6 * i + 1] = ret_for(v, 6);
        out[6 * i + 2] = ret_while(ret_if(v) + 1);
        out[6 * i + 3] = ret_loop_match(v);
        out[6 * i + 4] = if divides { t } else { -1000 - t };
        out[6 * i + 5] = digit_sum((v + 100) as u32 * 37) as i32;
    }
}

pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &early_returns::KERNEL,
        &match_i32::KERNEL,
        &match_u8_bool_loop::KERNEL,
        &match_with_barrier::KERNEL,
        &rev_i32::KERNEL,
        &rev_usize::KERNEL,
        &rev_u8::KERNEL,
        &rev_barrier_sum::KERNEL,
        &tuple_values::KERNEL,
    ]
}
