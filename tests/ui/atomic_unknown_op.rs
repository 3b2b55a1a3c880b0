use gpujit::prelude::*;

#[gpu_kernel]
fn product(x: &[u32], p: &mut [u32]) {
    atomic_mul(&mut p[0], x[grid(1)]);
}

fn main() {}
