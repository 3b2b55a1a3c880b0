//! Kernels that read `lane_id()` and `warp_size()`, on each CPU path, and
//! what they give as CUDA forms warps.

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

/// Every kernel of this file.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &lanes_plain::KERNEL,
        &lanes_split::KERNEL,
        &first_warp::KERNEL,
        &lanes_strided::KERNEL,
    ]
}

/// Block shapes: one full warp, a partial second warp, 2-D and 3-D blocks
/// whose warps straddle rows and planes, and a block deep in `z`.
pub const SHAPES: [(usize, usize, usize); 6] = [(32, 1, 1), (40, 1, 1), (5, 3, 2), (7, 7, 1), (16, 4, 2), (1, 1, 64)];

/// `1000 * lane + 32` per element of the grid's `(z, y, x)` array, as CUDA
/// forms warps.
pub fn want_lanes(grid: (usize, usize, usize), block: (usize, usize, usize)) -> Vec<u32> {
    let (nx, ny, nz) = (grid.0 * block.0, grid.1 * block.1, grid.2 * block.2);
    let mut out = Vec::with_capacity(nx * ny * nz);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let (tx, ty, tz) = (x % block.0, y % block.1, z % block.2);
                let lin = (tz * block.1 + ty) * block.0 + tx;
                out.push((1000 * (lin % 32) + 32) as u32);
            }
        }
    }
    out
}

/// What `first_warp` leaves in `n` elements launched with `blocks` blocks of
/// `threads`: each block's first 32 threads their lane, the others 7.
pub fn want_first_warp(n: usize, threads: usize) -> Vec<u32> {
    (0..n)
        .map(|i| if i % threads < 32 { (i % threads) as u32 } else { 7 })
        .collect()
}

/// What `lanes_strided` adds to `n` zeros with `blocks` blocks of `threads`.
pub fn want_strided(n: usize, blocks: usize, threads: usize) -> Vec<u32> {
    (0..n)
        .map(|i| ((i % (blocks * threads)) % threads % 32) as u32)
        .collect()
}
