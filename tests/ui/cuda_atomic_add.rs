use gpujit::prelude::*;

#[gpu_kernel]
fn histogram(x: &[u8], hist: &mut [u32]) {
    let i = grid(1);
    if i < x.len() {
        atomicAdd(&mut hist[x[i] as usize], 1);
    }
}

fn main() {}
