use gpujit::prelude::*;

#[gpu_device]
fn first(a: &[f32]) -> f32 {
    a[0]
}

#[gpu_kernel]
fn pass(y: &mut [f32]) {
    let i = grid(1);
    let w = [1.0f32, 2.0, 3.0];
    if i < y.len() {
        y[i] = first(&w);
    }
}

fn main() {}
