use gpujit::prelude::*;

#[gpu_device]
fn first(x: &[f32]) -> &f32 {
    &x[0]
}

fn main() {}
