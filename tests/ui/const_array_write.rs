use gpujit::prelude::*;

const FILTER: [f32; 3] = [0.25, 0.5, 0.25];

#[gpu_kernel]
fn tweak(y: &mut [f32]) {
    let i = grid(1);
    FILTER[0] = 1.0;
    if i < y.len() {
        y[i] = FILTER[i % 3];
    }
}

fn main() {}
