use gpujit::prelude::*;

#[gpu_kernel]
fn same(x: &[f32], y: &mut [u32]) {
    let i = grid(1);
    if i < y.len() {
        if (x[i], 2.0f32) == (1.0, 2.0) {
            y[i] = 1;
        }
    }
}

fn main() {}
