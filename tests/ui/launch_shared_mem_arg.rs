use gpujit::prelude::*;

#[gpu_kernel]
fn fill(out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = 1.0;
    }
}

fn main() -> Result<(), gpujit::Error> {
    let stream = gpujit::stream()?;
    let mut out = gpujit::zeros::<f32>(32)?;
    // Numba's dynamic shared-memory size (4th argument) is not supported yet.
    fill![1, 32, &stream, 1024](&mut out)?;
    fill![1, 32, &stream, 1024, 5](&mut out)?;
    Ok(())
}
