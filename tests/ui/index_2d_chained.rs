use gpujit::prelude::*;

#[gpu_kernel]
fn transpose(a: ArrayView2<f32>, b: ArrayViewMut2<f32>) {
    let (j, i) = grid(2);
    let (n, m) = a.dim();
    if i < n && j < m {
        b[[j, i]] = a[i][j];
    }
}

fn main() {}
