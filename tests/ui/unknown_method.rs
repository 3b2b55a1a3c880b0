use gpujit::prelude::*;

#[gpu_kernel]
fn total(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x.iter().sum();
    }
}

fn main() {}
