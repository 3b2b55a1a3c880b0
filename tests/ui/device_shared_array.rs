use gpujit::prelude::*;

#[gpu_device]
fn stage(v: f32) -> f32 {
    let s = shared_array::<[f32; 32]>();
    s[thread_idx().x] = v;
    syncthreads();
    s[0]
}

fn main() {}
