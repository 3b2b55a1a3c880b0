use gpujit::prelude::*;

#[gpu_kernel]
fn sum_first(x: &[f32]) -> f32 {
    x[0] + x[1]
}

fn main() {}
