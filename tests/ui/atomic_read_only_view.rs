use gpujit::prelude::*;

#[gpu_kernel]
fn bump(img: ArrayView2<f32>) {
    let (x, y) = grid(2);
    atomic_max(&mut img[[y, x]], 1.0);
}

fn main() {}
