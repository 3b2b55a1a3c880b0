use gpujit::prelude::*;

fn helper(v: f32) -> f32 {
    v * 2.0
}

#[gpu_kernel]
fn apply(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = helper(x[i]);
    }
}

fn main() {}
