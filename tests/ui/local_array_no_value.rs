use gpujit::prelude::*;

#[gpu_kernel]
fn later(y: &mut [f32]) {
    let i = grid(1);
    let mut t: [f32; 4];
    t = [0.0; 4];
    if i < y.len() {
        y[i] = t[0];
    }
}

fn main() {}
