use gpujit::prelude::*;

#[gpu_kernel]
fn offset(x: &[f32], y: &mut [f32]) {
    static OFFSET: f32 = 1.5;
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i] + OFFSET;
    }
}

fn main() {}
