use gpujit::prelude::*;

#[gpu_kernel]
fn count(out: &mut [u32]) {
    let mut n = 0u32;
    atomic_add(&mut n, 1);
    out[0] = n;
}

fn main() {}
