// The example: a Numba warp shuffle, which gpujit does not have yet.
// One error, gpujit's (no "cargo add shfl_down_sync"), and the launch below
// adds none.
use gpujit::prelude::*;

#[gpu_kernel]
fn shuffle(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = shfl_down_sync(0xffffffff, x[i], 1);
    }
}

fn main() -> Result<(), gpujit::Error> {
    let x = gpujit::to_device(&[1.0f32; 64])?;
    let mut out = gpujit::zeros::<f32>(64)?;
    shuffle![1, 64](&x, &mut out)?;
    Ok(())
}
