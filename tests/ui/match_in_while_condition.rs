use gpujit::prelude::*;

#[gpu_kernel]
fn count_small(x: &[u32], n: &mut [u32]) {
    let mut k = 0;
    while k < x.len() && match x[k] % 4 {
        0 | 1 => true,
        _ => false,
    } {
        k += 1;
    }
    n[0] = k as u32;
}

fn main() {}
