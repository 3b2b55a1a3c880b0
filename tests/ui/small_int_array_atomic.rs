use gpujit::prelude::*;

#[gpu_kernel]
fn count(keys: &[u8], hist: &mut [u16]) {
    let i = grid(1);
    if i < keys.len() {
        atomic_add(&mut hist[keys[i] as usize], 1);
    }
}

fn main() {}
