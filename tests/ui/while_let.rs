use gpujit::prelude::*;

#[gpu_kernel]
fn countdown(y: &mut [i32]) {
    let i = grid(1);
    let mut k: i32 = 3;
    while let Some(v) = k.checked_sub(1) {
        k = v;
    }
    if i < y.len() {
        y[i] = k;
    }
}

fn main() {}
