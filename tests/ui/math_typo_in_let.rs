use gpujit::prelude::*;

#[gpu_kernel]
fn roots(x: &[f64], y: &mut [f64]) {
    let i = grid(1);
    if i < y.len() {
        let r = x[i].sqrtt();
        y[i] = r + 1.0;
    }
}

fn main() {}
