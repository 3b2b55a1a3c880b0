// `checked_*` and `overflowing_*` return an `Option` or a tuple, which kernels
// do not have: refused with what to write instead.
use gpujit::prelude::*;

#[gpu_kernel]
fn sums(x: &[u32], out: &mut [u32]) {
    let i = grid(1);
    out[i] = x[i].checked_add(1).unwrap_or(u32::MAX);
    let (s, carry) = x[i].overflowing_add(7);
    out[i] = if carry { 0 } else { s };
}

fn main() {}
