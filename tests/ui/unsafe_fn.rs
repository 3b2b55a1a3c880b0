use gpujit::prelude::*;

#[gpu_kernel]
unsafe fn copy(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i];
    }
}

fn main() {}
