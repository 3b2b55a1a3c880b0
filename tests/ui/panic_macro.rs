use gpujit::prelude::*;

#[gpu_kernel]
fn checked_copy(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if x.len() != y.len() {
        panic!("length mismatch");
    }
    if i < y.len() {
        y[i] = x[i];
    }
}

fn main() {}
