use gpujit::prelude::*;

/// 40,000 bytes each: each fits CUDA's 64 KiB of constant memory, both do not.
const EVEN: [f32; 10000] = [0.0; 10000];
const ODD: [f32; 10000] = [1.0; 10000];

#[gpu_kernel]
fn pick(y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = if i % 2 == 0 { EVEN[i % 10000] } else { ODD[i % 10000] };
    }
}

fn main() {}
