//! The block reduction (bench/workloads' `block_sum`) and its host
//! reference, shared by the test crates that check its paths
//! (`narrowed`, `split_spans`) and its results (`semantics`, `cuda_on_host`
//! through `tests/kernels`). Not in `common/mod.rs`, so that only the crates
//! that use the kernel compile it: include it with
//! `#[path = "common/reduction.rs"] mod reduction;`.

#![allow(dead_code)]

use gpujit::prelude::*;

/// Block size of the shared-memory reduction kernels.
pub const RED_THREADS: usize = 256;

/// `partial[b]` = the tree sum of block `b`'s `RED_THREADS` elements of `x`
/// (zeros past its end): a `for` loop over the halving steps, the stride a
/// `let` of the loop's variable at the start of each barrier-free part.
#[gpu_kernel]
pub fn block_sum_f32(x: &[f32], partial: &mut [f32]) {
    let cache = shared_array::<[f32; RED_THREADS]>();
    let tid = thread_idx().x;
    let i = grid(1);
    cache[tid] = if i < x.len() { x[i] } else { 0.0 };
    syncthreads();
    for level in 1..9 {
        let stride = RED_THREADS >> level;
        if tid < stride {
            cache[tid] += cache[tid + stride];
        }
        syncthreads();
    }
    if tid == 0 {
        partial[block_idx().x] = cache[0];
    }
}

/// The tree sum of each `block`-element chunk of `x` (zeros past the end),
/// in the kernels' order: strides `first, first / 2, .., 1`, pairs inside
/// the block.
pub fn tree_sums<T: Copy + Default + std::ops::AddAssign>(x: &[T], block: usize, first: usize) -> Vec<T> {
    x.chunks(block)
        .map(|c| {
            let mut v = c.to_vec();
            v.resize(block, T::default());
            let mut s = first;
            while s > 0 {
                for t in 0..s.min(block) {
                    if t + s < block {
                        let w = v[t + s];
                        v[t] += w;
                    }
                }
                s /= 2;
            }
            v[0]
        })
        .collect()
}
