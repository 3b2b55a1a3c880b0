use gpujit::prelude::*;

#[gpu_kernel]
fn quadrant(x: &[i32], y: &[i32], q: &mut [u32]) {
    let i = grid(1);
    if i < q.len() {
        match (x[i] >= 0, y[i] >= 0) {
            (true, true) => q[i] = 1,
            _ => q[i] = 0,
        }
    }
}

fn main() {}
