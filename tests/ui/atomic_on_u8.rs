use gpujit::prelude::*;

#[gpu_kernel]
fn count_bytes(hist: &mut [u8]) {
    atomic_add(&mut hist[grid(1) % 4], 1);
}

fn main() {}
