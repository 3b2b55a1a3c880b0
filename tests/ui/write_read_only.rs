use gpujit::prelude::*;

#[gpu_kernel]
fn double_in_place(x: &[f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = 2.0 * x[i];
    }
}

fn main() {}
