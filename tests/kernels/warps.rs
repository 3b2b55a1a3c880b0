//! Kernels that read `lane_id()` and `warp_size()`, on each CPU path.

use gpujit::prelude::*;

/// `1000 * lane_id() + warp_size()` per thread of a 3-D grid (the thread
/// loop: no barrier).
#[gpu_kernel]
pub fn lanes_plain(out: ArrayViewMut3<u32>) {
    let (x, y, z) = grid(3);
    let (d, h, w) = out.dim();
    if z < d && y < h && x < w {
        out[[z, y, x]] = (1000 * lane_id() + warp_size()) as u32;
    }
}

/// As `lanes_plain`, with the lane read before a barrier and stored after
/// it (a split kernel: the lane lives across the barrier).
#[gpu_kernel]
pub fn lanes_split(out: ArrayViewMut3<u32>) {
    let (x, y, z) = grid(3);
    let lane = lane_id();
    syncthreads();
    let (d, h, w) = out.dim();
    if z < d && y < h && x < w {
        out[[z, y, x]] = (1000 * lane + warp_size()) as u32;
    }
}

/// The first warp of each 1-D block writes its lanes, the others 7: `if
/// thread_idx().x < warp_size()` is a narrowed loop on the CPU backend
/// (`warp_size()` is the same in every thread).
#[gpu_kernel]
pub fn first_warp(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = 7;
    }
    syncthreads();
    if thread_idx().x < warp_size() {
        if i < out.len() {
            out[i] = lane_id() as u32;
        }
    }
}

/// A grid-stride loop (lockstep on the CPU backend) that adds each thread's
/// lane to the elements it visits.
#[gpu_kernel]
pub fn lanes_strided(out: &mut [u32]) {
    for i in (grid(1)..out.len()).step_by(gridsize(1)) {
        out[i] += lane_id() as u32;
    }
}
