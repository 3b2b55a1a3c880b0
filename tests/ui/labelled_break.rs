use gpujit::prelude::*;

#[gpu_kernel]
fn first_hit(a: ArrayView2<f32>, out: &mut [f32]) {
    let i = grid(1);
    let (n, m) = a.dim();
    if i < out.len() {
        'outer: for r in 0..n {
            for c in 0..m {
                if a[[r, c]] > 0.0 {
                    out[i] = a[[r, c]];
                    break 'outer;
                }
            }
        }
    }
}

fn main() {}
