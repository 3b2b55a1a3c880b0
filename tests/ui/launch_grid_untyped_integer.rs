// Host side, rustc's error (no fix is possible in the macro): the grid
// expression is type-checked before the launch arguments, so an untyped
// `let n = 100_000;` whose only use is a `u32` argument has no type yet at
// `n.div_ceil(256)`. README's "Common errors": write `let n: u32 = 100_000;`.
use gpujit::prelude::*;

#[gpu_kernel]
fn add_one(x: &[u32], out: &mut [u32], n: u32) {
    let i = grid(1);
    if i < n as usize {
        out[i] = x[i] + 1;
    }
}

fn main() -> Result<(), gpujit::Error> {
    let x = gpujit::to_device(&vec![1u32; 100_000])?;
    let mut out = gpujit::zeros::<u32>(100_000)?;
    let n = 100_000;
    add_one![n.div_ceil(256), 256](&x, &mut out, n)?;
    Ok(())
}
