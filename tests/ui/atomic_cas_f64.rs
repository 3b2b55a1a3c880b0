use gpujit::prelude::*;

#[gpu_kernel]
fn claim(slot: &mut [f64]) {
    atomic_cas(&mut slot[0], 0.0, 1.0);
}

fn main() {}
