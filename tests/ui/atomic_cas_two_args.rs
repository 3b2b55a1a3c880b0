use gpujit::prelude::*;

#[gpu_kernel]
fn claim(lock: &mut [u32]) {
    atomic_cas(&mut lock[0], 1);
}

fn main() {}
