// CUDA C and Numba intrinsics that gpujit has under another spelling: each
// one error that names gpujit's (`x.count_ones()`, `x.mul_add(y, z)`, ...).
use gpujit::prelude::*;

#[gpu_kernel]
fn bits(x: &[f32], n: &mut [u32], out: &mut [f32]) {
    let i = grid(1);
    n[i] = __popc(n[i]) + cuda.popc(n[i]) + __clz(n[i]) + cuda.brev(n[i]);
    out[i] = __fmaf_rn(x[i], 2.0, 1.0) + cuda.fma(x[i], x[i], 1.0) + __ldg(&x[i]) + __fmul_rn(x[i], 3.0);
    let c = __syncthreads_count(x[i] > 0.0);
    cuda.threadfence();
    n[i] = c;
}

fn main() {}
