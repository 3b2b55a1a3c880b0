use gpujit::prelude::*;

#[gpu_kernel]
fn countdown(out: &mut [u32], n: u32) {
    if n > 0 {
        out[n as usize] = n;
        countdown(out, n - 1);
    }
}

fn main() {}
