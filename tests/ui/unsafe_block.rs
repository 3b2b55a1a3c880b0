use gpujit::prelude::*;

#[gpu_kernel]
fn copy(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = unsafe { *x.get_unchecked(i) };
    }
}

fn main() {}
