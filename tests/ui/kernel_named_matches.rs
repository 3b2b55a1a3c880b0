use gpujit::prelude::*;

#[gpu_kernel]
fn matches(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = 1.0;
    }
}

fn main() {}
