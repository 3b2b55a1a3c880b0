use gpujit::prelude::*;

#[gpu_kernel]
fn stage(x: &[f32], y: &mut [f32]) {
    let s = shared_array::<[f32; block_dim().x]>();
    let i = grid(1);
    let t = thread_idx().x;
    if i < y.len() {
        s[t] = x[i];
        syncthreads();
        y[i] = s[t];
    }
}

fn main() {}
