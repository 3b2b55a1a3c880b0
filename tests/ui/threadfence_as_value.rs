use gpujit::prelude::*;

#[gpu_kernel]
fn publish(out: &mut [u32]) {
    let done = threadfence();
    out[0] = 1;
}

fn main() {}
