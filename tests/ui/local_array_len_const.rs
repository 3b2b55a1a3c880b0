use gpujit::prelude::*;

const N: usize = 4;

#[gpu_kernel]
fn total(y: &mut [f32]) {
    let i = grid(1);
    let a = [1.0f32; N * 2];
    let mut s = 0.0f32;
    for k in 0..a.len() {
        s += a[k];
    }
    if i < y.len() {
        y[i] = s;
    }
}

fn main() {}
