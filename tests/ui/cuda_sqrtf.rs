use gpujit::prelude::*;

#[gpu_kernel]
fn roots(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = sqrtf(x[i]);
    }
}

fn main() {}
