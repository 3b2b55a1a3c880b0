use gpujit::prelude::*;

#[gpu_kernel]
fn ring(next: &mut [i32]) {
    atomic_inc(&mut next[0], 9);
}

fn main() {}
