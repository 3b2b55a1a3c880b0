use gpujit::prelude::*;

#[gpu_kernel]
fn scale(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = 2.0 * x[i];
    }
}

fn main() -> gpujit::Result<()> {
    let x = gpujit::zeros::<f64>(16)?;
    let mut y = gpujit::zeros::<f32>(16)?;
    scale![1, 16](&x, &mut y)?;
    Ok(())
}
