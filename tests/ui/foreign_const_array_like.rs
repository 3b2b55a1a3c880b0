// Numba's constant memory: `cuda.const.array_like(A)` is no Rust (`const` is
// a keyword), so rustc reports its syntax; gpujit says what to write.
use gpujit::prelude::*;

const FILTER: [f32; 3] = [0.25, 0.5, 0.25];

#[gpu_kernel]
fn smooth(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let f = cuda.const.array_like(FILTER);
    out[i] = f[0] * x[i];
}

fn main() {}
