use gpujit::prelude::*;

#[gpu_kernel]
fn ragged(y: &mut [i32]) {
    let i = grid(1);
    let a = [[1, 2], [3]];
    if i < y.len() {
        y[i] = a[0][0];
    }
}

fn main() {}
