use gpujit::prelude::*;

#[gpu_kernel]
fn bits(x: &[f32], y: &mut [u32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i].count_ones();
    }
}

fn main() {}
