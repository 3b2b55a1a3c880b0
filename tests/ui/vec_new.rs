use gpujit::prelude::*;

#[gpu_kernel]
fn collect(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let mut v = Vec::new();
        v.push(x[i]);
        y[i] = v[0];
    }
}

fn main() {}
