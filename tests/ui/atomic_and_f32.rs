use gpujit::prelude::*;

#[gpu_kernel]
fn mask_floats(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        atomic_and(&mut x[i], 1.0);
    }
}

fn main() {}
