use gpujit::prelude::*;

#[gpu_kernel]
fn scale(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i >= y.len() {
        return i;
    }
    y[i] = 2.0 * x[i];
}

fn main() {}
