use gpujit::prelude::*;

#[gpu_kernel]
fn clamp_small(x: &[i32], y: &mut [i32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = match x[i] {
            0 => 0,
            n @ 1..=9 => n,
            _ => 10,
        };
    }
}

fn main() {}
