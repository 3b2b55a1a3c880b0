use gpujit::prelude::*;

// A helper without `#[gpu_device]`: a kernel cannot call it.
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    x.max(lo).min(hi)
}

#[gpu_kernel]
fn clamp_all(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = clamp(x[i], 0.0, 1.0);
    }
}

fn main() {}
