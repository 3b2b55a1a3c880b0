use gpujit::prelude::*;

#[gpu_kernel]
fn huge(y: &mut [f64]) {
    let i = grid(1);
    let mut a = [0.0f64; 10_000];
    a[i % 10_000] = 1.0;
    if i < y.len() {
        y[i] = a[0];
    }
}

fn main() {}
