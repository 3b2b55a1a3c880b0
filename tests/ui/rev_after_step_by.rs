use gpujit::prelude::*;

#[gpu_kernel]
fn countdown(y: &mut [i32]) {
    let mut n = 0;
    for i in (0..10).step_by(3).rev() {
        y[n] = i;
        n += 1;
    }
}

fn main() {}
