use gpujit::prelude::*;

/// `out[i] = x[i] * x[i]`, one thread per element.
#[gpu_kernel]
fn square(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = x[i] * x[i];
    }
}

fn main() -> Result<(), gpujit::Error> {
    let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut d_out = gpujit::device_array::<f32>(x.len())?;
    let threads = 256;
    let blocks = x.len().div_ceil(threads);
    square![blocks, threads](&d_x, &mut d_out)?; // Numba: square[blocks, threads](d_x, d_out)
    let out = d_out.copy_to_host()?;
    assert_eq!(out[999], 999.0 * 999.0);
    println!("{} squares on {}", out.len(), gpujit::detect());
    Ok(())
}
