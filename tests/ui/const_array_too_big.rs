use gpujit::prelude::*;

/// 80,000 bytes: more than CUDA's 64 KiB of constant memory.
const BIG: [f64; 10000] = [0.5; 10000];

#[gpu_kernel]
fn lookup(y: &mut [f64]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = BIG[i % 10000];
    }
}

#[gpu_device]
fn big_at(i: usize) -> f64 {
    BIG[i]
}

fn main() {}
