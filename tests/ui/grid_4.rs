use gpujit::prelude::*;

#[gpu_kernel]
fn fill4(y: &mut [f32]) {
    let (i, j, k, l) = grid(4);
    if i < y.len() {
        y[i] = (j + k + l) as f32;
    }
}

fn main() {}
