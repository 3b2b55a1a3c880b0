use gpujit::prelude::*;

#[gpu_kernel]
fn big_tiles(out: &mut [f32]) {
    let a = shared_array::<[f32; 8192]>();
    let b = shared_array::<[[f64; 64]; 64]>();
    let t = thread_idx().x;
    a[t] = 1.0;
    b[0][t] = 2.0;
    syncthreads();
    out[t] = a[t] + b[0][t] as f32;
}

fn main() {}
