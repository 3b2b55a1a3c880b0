use gpujit::prelude::*;

#[gpu_kernel]
fn soft(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = x[i].tanhh();
    }
}

fn main() {}
