// `unsigned_abs` is a method of the signed types.
use gpujit::prelude::*;

#[gpu_kernel]
fn magnitude(x: &[u32], out: &mut [u32]) {
    let i = grid(1);
    out[i] = x[i].unsigned_abs();
}

fn main() {}
