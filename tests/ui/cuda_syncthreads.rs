use gpujit::prelude::*;

#[gpu_kernel]
fn reverse_block(x: &[f32], y: &mut [f32]) {
    let tile = shared_array::<[f32; 64]>();
    let t = thread_idx().x;
    tile[t] = x[t];
    __syncthreads();
    y[t] = tile[63 - t];
}

fn main() {}
