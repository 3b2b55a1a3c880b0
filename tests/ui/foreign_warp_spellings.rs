// Warp intrinsics in CUDA C's and Numba's spelling, one error each at its span
// that names gpujit's spelling (`lane_id()`, `shfl_down_sync(..)`, ...).
use gpujit::prelude::*;

#[gpu_kernel]
fn warps(x: &[f32], out: &mut [f32], votes: &mut [u32]) {
    let i = grid(1);
    let lane = cuda.laneid;
    let width = warpSize;
    out[i] = __shfl_down_sync(0xffffffff, x[i], 1) + cuda.shfl_xor_sync(0xffffffff, x[i], 1);
    votes[i] = __ballot_sync(0xffffffff, x[i] > 0.0) + cuda.activemask();
    cuda.syncwarp(0xffffffff);
    votes[lane] = width as u32;
}

fn main() {}
