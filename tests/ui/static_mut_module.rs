use gpujit::prelude::*;

static mut OFFSET: f32 = 1.5;

#[gpu_kernel]
fn offset(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i] + OFFSET;
    }
}

fn main() {}
