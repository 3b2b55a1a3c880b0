use gpujit::prelude::*;

const START: f32 = 0.5;

#[gpu_kernel]
fn fill(y: &mut [f32]) {
    let i = grid(1);
    let a = [START; 4];
    if i < y.len() && a[0] > START {
        y[i] = 1.0;
    }
}

fn main() {}
