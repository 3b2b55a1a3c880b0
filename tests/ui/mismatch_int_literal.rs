// The example: an f32 times an integer literal. One error, gpujit's,
// at the literal, with the fix; rustc adds none (no `Complex`/`ArrayBase`
// list), and the launch below adds none either.
use gpujit::prelude::*;

#[gpu_kernel]
fn double_roots(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = x[i].sqrt() as f32 * 2;
    }
}

fn main() -> Result<(), gpujit::Error> {
    let x = gpujit::to_device(&[4.0f32; 8])?;
    let mut out = gpujit::zeros::<f32>(8)?;
    double_roots![1, 8](&x, &mut out)?;
    double_roots::launch(1, 8, &x, &mut out)?;
    Ok(())
}
