// A device function may not take a name kernels read as an intrinsic (here
// a warp shuffle): a kernel cannot tell it from the intrinsic.
use gpujit::prelude::*;

#[gpu_device]
fn shfl_down_sync(mask: u32, v: f32, delta: u32) -> f32 {
    v + (mask & delta) as f32
}

fn main() {}
