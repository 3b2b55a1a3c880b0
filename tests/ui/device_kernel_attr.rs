use gpujit::prelude::*;

// Numba's `@cuda.jit(device=True)` spelled as a kernel attribute.
#[gpu_kernel(device)]
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

fn main() {}
