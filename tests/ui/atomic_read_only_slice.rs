use gpujit::prelude::*;

#[gpu_kernel]
fn histogram(x: &[u32], hist: &[u32]) {
    let i = grid(1);
    if i < x.len() {
        atomic_add(&mut hist[x[i] as usize], 1);
    }
}

fn main() {}
