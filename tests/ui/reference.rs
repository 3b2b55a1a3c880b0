use gpujit::prelude::*;

#[gpu_kernel]
fn copy_ref(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let r = &x[i];
        y[i] = *r;
    }
}

fn main() {}
