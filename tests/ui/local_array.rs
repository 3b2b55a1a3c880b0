use gpujit::prelude::*;

#[gpu_kernel]
fn smooth(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    let t: [f32; 4] = [0.25; 4];
    if i < y.len() {
        y[i] = t[0] * x[i];
    }
}

fn main() {}
