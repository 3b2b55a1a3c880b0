use gpujit::prelude::*;

#[gpu_kernel]
fn weights(x: &[u32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = match x[i] {
            0 => 0.0,
            _ => {
                let w = 1.0 / x[i] as f32;
                w * w
            }
        };
    }
}

fn main() {}
