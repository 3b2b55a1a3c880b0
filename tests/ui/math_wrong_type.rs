use gpujit::prelude::*;

#[gpu_kernel]
fn roots(x: &[u32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i].sqrt();
    }
}

fn main() {}
