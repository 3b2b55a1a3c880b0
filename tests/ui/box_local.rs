use gpujit::prelude::*;

#[gpu_kernel]
fn boxed(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let b: Box<f32> = Box::new(x[i]);
        y[i] = *b;
    }
}

fn main() {}
