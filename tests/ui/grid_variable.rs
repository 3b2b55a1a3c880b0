use gpujit::prelude::*;

#[gpu_kernel]
fn fill(y: &mut [f32], n: usize) {
    let i = grid(n);
    if i < y.len() {
        y[i] = 1.0;
    }
}

fn main() {}
