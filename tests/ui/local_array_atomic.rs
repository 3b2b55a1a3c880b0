use gpujit::prelude::*;

#[gpu_kernel]
fn count(y: &mut [f32]) {
    let i = grid(1);
    let mut acc = [0.0f32; 4];
    atomic_add(&mut acc[0], 1.0);
    if i < y.len() {
        y[i] = acc[0];
    }
}

fn main() {}
