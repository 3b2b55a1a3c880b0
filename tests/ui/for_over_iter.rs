use gpujit::prelude::*;

#[gpu_kernel]
fn total(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        let mut s = 0.0;
        for v in x.iter() {
            s += *v;
        }
        y[i] = s;
    }
}

fn main() {}
