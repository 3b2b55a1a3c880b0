use gpujit::prelude::*;

#[gpu_kernel]
fn square(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    let sq = |v: f32| v * v;
    if i < y.len() {
        y[i] = sq(x[i]);
    }
}

fn main() {}
