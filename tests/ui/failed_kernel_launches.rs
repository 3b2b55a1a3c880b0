// A kernel whose body has an error keeps its launch macro and module: the
// launches add no "cannot find macro `broken`" of their own.
use gpujit::prelude::*;

#[gpu_kernel]
fn broken(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    out[i] = x[i].tanhh();
}

fn main() -> Result<(), gpujit::Error> {
    let x = gpujit::to_device(&[1.0f32; 4])?;
    let mut out = gpujit::zeros::<f32>(4)?;
    broken![1, 4](&x, &mut out)?;
    broken::launch(1, 4, &x, &mut out)?;
    println!("{}", broken::cuda_source());
    Ok(())
}
