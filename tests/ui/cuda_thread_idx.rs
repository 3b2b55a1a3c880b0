use gpujit::prelude::*;

#[gpu_kernel]
fn scale(x: &[f32], y: &mut [f32]) {
    let i = blockIdx.x * blockDim.x + threadIdx.x;
    if i < y.len() {
        y[i] = 2.0 * x[i];
    }
}

fn main() {}
