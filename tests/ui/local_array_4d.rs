use gpujit::prelude::*;

#[gpu_kernel]
fn deep(y: &mut [f32]) {
    let i = grid(1);
    let a = [[[[0.0f32; 2]; 2]; 2]; 2];
    if i < y.len() {
        y[i] = a[0][0][0][0];
    }
}

fn main() {}
