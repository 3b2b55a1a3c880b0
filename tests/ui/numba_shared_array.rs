use gpujit::prelude::*;

#[gpu_kernel]
fn reverse_block(x: &[f32], y: &mut [f32]) {
    let tile = cuda.shared.array(64, f32);
    let t = thread_idx().x;
    tile[t] = x[t];
    syncthreads();
    y[t] = tile[63 - t];
}

fn main() {}
