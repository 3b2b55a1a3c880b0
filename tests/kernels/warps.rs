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

/// The warp of thread `thread_idx().x` of block `block_idx().x` of a 1-D
/// launch, as an index into per-warp arrays (`mask[w]`).
macro_rules! shuffles {
    ($name:ident, $t:ty) => {
        /// Each of the four shuffles of `x[i]` (row `k` of `out`, lane argument
        /// `arg[[k, i]]`) by the lanes of its warp's mask `mask[w]`; the other
        /// lanes skip them. A 1-D launch over exactly `x.len()` threads.
        #[gpu_kernel]
        pub fn $name(x: &[$t], arg: ArrayView2<u32>, mask: &[u32], out: ArrayViewMut2<$t>) {
            let i = grid(1);
            let m = mask[block_idx().x * block_dim().x.div_ceil(32) + thread_idx().x / 32];
            if (m >> lane_id()) & 1 != 0 {
                out[[0, i]] = shfl_sync(m, x[i], arg[[0, i]]);
                out[[1, i]] = shfl_up_sync(m, x[i], arg[[1, i]]);
                out[[2, i]] = shfl_down_sync(m, x[i], arg[[2, i]]);
                out[[3, i]] = shfl_xor_sync(m, x[i], arg[[3, i]]);
            }
        }
    };
}

shuffles!(shuffles_i32, i32);
shuffles!(shuffles_u32, u32);
shuffles!(shuffles_f32, f32);
shuffles!(shuffles_i64, i64);
shuffles!(shuffles_u64, u64);
shuffles!(shuffles_usize, usize);
shuffles!(shuffles_f64, f64);

/// The votes, a match and the lane masks: row 0 `ballot_sync`, 1 `all_sync`,
/// 2 `any_sync`, 3 `eq_sync` (of `p[i]` odd), 4 `match_any_sync(p[i])`, 5
/// `activemask()` after a `syncwarp`, by the lanes of the warp's mask; row 6
/// `lanemask_lt()` in every thread.
#[gpu_kernel]
pub fn warp_votes(p: &[u32], mask: &[u32], out: ArrayViewMut2<u32>) {
    let i = grid(1);
    out[[6, i]] = lanemask_lt();
    let m = mask[block_idx().x * block_dim().x.div_ceil(32) + thread_idx().x / 32];
    if (m >> lane_id()) & 1 != 0 {
        let pred = p[i] % 2 != 0;
        out[[0, i]] = ballot_sync(m, pred);
        out[[1, i]] = all_sync(m, pred) as u32;
        out[[2, i]] = any_sync(m, pred) as u32;
        out[[3, i]] = eq_sync(m, pred) as u32;
        out[[4, i]] = match_any_sync(m, p[i]);
        syncwarp(m);
        out[[5, i]] = activemask();
    }
}

/// `match_any_sync` of `f64` values over each full warp: bits, not values,
/// match (`-0.0` is not `0.0`; a NaN matches the same NaN).
#[gpu_kernel]
pub fn match_f64(x: &[f64], out: &mut [u32]) {
    let i = grid(1);
    out[i] = match_any_sync(0xffff_ffff, x[i]);
}

/// Each block's sum, two stages of shuffles: each warp reduces with
/// `shfl_down_sync`, its lane 0 stores to shared memory, and the first
/// warp reduces the warps' sums (blocks of whole warps, up to 1024 threads).
#[gpu_kernel]
pub fn block_sum_shfl(x: &[f32], out: &mut [f32]) {
    let sums = shared_array::<[f32; 32]>();
    let i = grid(1);
    let mut v = if i < x.len() { x[i] } else { 0.0 };
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(0xffff_ffff, v, offset);
        offset /= 2;
    }
    let lane = lane_id();
    let warp = thread_idx().x / 32;
    if lane == 0 {
        sums[warp] = v;
    }
    syncthreads();
    if warp == 0 {
        let mut s = if lane < block_dim().x / 32 { sums[lane] } else { 0.0 };
        let mut offset = 16;
        while offset > 0 {
            s += shfl_xor_sync(0xffff_ffff, s, offset);
            offset /= 2;
        }
        if lane == 0 {
            out[block_idx().x] = s;
        }
    }
}

/// A device function with a shuffle: the warp's sum, in every lane.
#[gpu_device]
pub fn warp_all_sum(v: i64) -> i64 {
    let mut v = v;
    let mut m = 1;
    while m < 32 {
        v += shfl_xor_sync(0xffff_ffff, v, m);
        m *= 2;
    }
    v
}

/// Every thread stores its warp's sum, computed by a device function.
#[gpu_kernel]
pub fn warp_sums_in_callee(x: &[i64], out: &mut [i64]) {
    let i = grid(1);
    out[i] = warp_all_sum(x[i]);
}

/// Each block's warps' sums (by a device function that shuffles), summed
/// across the block's warps through shared memory after a barrier: the
/// kernel splits at its barrier, the callee needs the coroutine path.
#[gpu_kernel]
pub fn block_sums_in_callee(x: &[i64], out: &mut [i64]) {
    let sums = shared_array::<[i64; 32]>();
    let t = thread_idx().x;
    let s = warp_all_sum(x[grid(1)]);
    if t % 32 == 0 {
        sums[t / 32] = s;
    }
    syncthreads();
    if t == 0 {
        let mut total = 0;
        for w in 0..block_dim().x / 32 {
            total += sums[w];
        }
        out[block_idx().x] = total;
    }
}

/// Half of each warp shuffles with the whole warp's mask while the other
/// half waits at a barrier: a divergent warp (undefined on a GPU).
#[gpu_kernel]
pub fn warp_misses_lanes(out: &mut [u32]) {
    let i = grid(1);
    if lane_id() < 16 {
        out[i] = shfl_down_sync(0xffff_ffff, i as u32, 1);
    }
    syncthreads();
}

/// Lanes 0 to 15 shuffle among themselves, reading 8 lanes down: lane 8
/// and up read lanes 16 and up, outside the mask (undefined on a GPU).
#[gpu_kernel]
pub fn shfl_outside_the_mask(out: &mut [u32]) {
    let i = grid(1);
    if lane_id() < 16 {
        out[i] = shfl_down_sync(0x0000_ffff, i as u32, 8);
    }
}

/// A full-mask reduction in blocks whose last warp is partial: its lanes
/// read the missing lanes (undefined on a GPU).
#[gpu_kernel]
pub fn shfl_in_a_partial_warp(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    let mut v = x[i];
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(0xffff_ffff, v, offset);
        offset /= 2;
    }
    out[i] = v;
}

/// The even lanes call `syncwarp` with the whole warp's mask, the odd ones
/// with their own half: different masks in one call (undefined on a GPU).
#[gpu_kernel]
pub fn masks_differ(out: &mut [u32]) {
    let i = grid(1);
    let m = if lane_id() % 2 == 0 { 0xffff_ffff } else { 0xaaaa_aaaa };
    syncwarp(m);
    out[i] = 1;
}

// Numba's `tests/cudapy/test_warp_ops.py` (numba-cuda), ported kernel by
// kernel: each is launched `[1, n]` as there (`numba_expected` below has
// the values its asserts expect).

/// `useful_syncwarp`: lane 0's store is seen by every lane after `syncwarp`.
#[gpu_kernel]
pub fn numba_useful_syncwarp(ary: &mut [i32]) {
    let i = grid(1);
    if i == 0 {
        ary[0] = 42;
    }
    syncwarp(0xffff_ffff);
    ary[i] = ary[0];
}

/// `use_shfl_sync_idx` / `_up` / `_down` / `_xor` (shuffling the 64-bit
/// `grid(1)`, as Numba's int64 `cuda.grid(1)`), by `mode`.
#[gpu_kernel]
pub fn numba_shfl(ary: &mut [i32], mode: u32, arg: u32) {
    let i = grid(1);
    let val = if mode == 0 {
        shfl_sync(0xffff_ffff, i, arg)
    } else if mode == 1 {
        shfl_up_sync(0xffff_ffff, i, arg)
    } else if mode == 2 {
        shfl_down_sync(0xffff_ffff, i, arg)
    } else {
        shfl_xor_sync(0xffff_ffff, i, arg)
    };
    ary[i] = val as i32;
}

macro_rules! numba_shfl_with_val {
    ($name:ident, $t:ty) => {
        /// `use_shfl_sync_with_val`: lane 0's `into` to every lane.
        #[gpu_kernel]
        pub fn $name(ary: &mut [$t], into: $t) {
            let i = grid(1);
            ary[i] = shfl_sync(0xffff_ffff, into, 0);
        }
    };
}

numba_shfl_with_val!(numba_shfl_with_val_i32, i32);
numba_shfl_with_val!(numba_shfl_with_val_i64, i64);
numba_shfl_with_val!(numba_shfl_with_val_f32, f32);
numba_shfl_with_val!(numba_shfl_with_val_f64, f64);

/// `use_vote_sync_all` / `_any` / `_eq` (an `i32` predicate, `!= 0`), by
/// `mode`, and `use_vote_sync_ballot` (mode 3, of `true`).
#[gpu_kernel]
pub fn numba_vote(ary_in: &[i32], ary_out: &mut [i32], mode: u32) {
    let i = grid(1);
    let p = ary_in[i] != 0;
    ary_out[i] = if mode == 0 {
        all_sync(0xffff_ffff, p) as i32
    } else if mode == 1 {
        any_sync(0xffff_ffff, p) as i32
    } else if mode == 2 {
        eq_sync(0xffff_ffff, p) as i32
    } else {
        ballot_sync(0xffff_ffff, true) as i32
    };
}

/// `use_match_any_sync`.
#[gpu_kernel]
pub fn numba_match_any(ary_in: &[i32], ary_out: &mut [i32]) {
    let i = grid(1);
    ary_out[i] = match_any_sync(0xffff_ffff, ary_in[i]) as i32;
}

/// `use_match_all_sync`.
#[gpu_kernel]
pub fn numba_match_all(ary_in: &[i32], ary_out: &mut [i32]) {
    let i = grid(1);
    let (ballot, pred) = match_all_sync(0xffff_ffff, ary_in[i]);
    ary_out[i] = if pred { ballot as i32 } else { 0 };
}

/// `match_all_sync` of `x[i]` by the lanes of each warp's mask `mask[w]`
/// (the others skip it): row 0 the mask it gives, row 1 its predicate.
#[gpu_kernel]
pub fn match_all_masks(x: &[u64], mask: &[u32], out: ArrayViewMut2<u32>) {
    let i = grid(1);
    let m = mask[block_idx().x * block_dim().x.div_ceil(32) + thread_idx().x / 32];
    if (m >> lane_id()) & 1 != 0 {
        let (same, all) = match_all_sync(m, x[i]);
        out[[0, i]] = same;
        out[[1, i]] = all as u32;
    }
}

/// `use_independent_scheduling`: four divergent groups, each a ballot over
/// its own mask.
#[gpu_kernel]
pub fn numba_independent_scheduling(arr: &mut [u32]) {
    let i = thread_idx().x;
    let ballot = if i % 4 == 0 {
        ballot_sync(0x1111_1111, true)
    } else if i % 4 == 1 {
        ballot_sync(0x2222_2222, true)
    } else if i % 4 == 2 {
        ballot_sync(0x4444_4444, true)
    } else {
        ballot_sync(0x8888_8888, true)
    };
    arr[i] = ballot;
}

/// `use_activemask`: the lanes of each branch together.
#[gpu_kernel]
pub fn numba_activemask(x: &mut [u32]) {
    let i = grid(1);
    if i % 2 == 0 {
        x[i] = activemask();
    } else {
        x[i] = activemask();
    }
}

/// `use_lanemask_lt`.
#[gpu_kernel]
pub fn numba_lanemask_lt(x: &mut [u32]) {
    let i = grid(1);
    x[i] = lanemask_lt();
}

/// `test_sync.py`'s `useless_syncwarp` (mode 0, the whole warp's mask) and
/// `useless_syncwarp_with_mask` (mode 1, `0xffff`), in a partial warp.
#[gpu_kernel]
pub fn numba_useless_syncwarp(ary: &mut [i32], mode: u32) {
    let i = grid(1);
    if mode == 0 {
        syncwarp(0xffff_ffff);
    } else {
        syncwarp(0xffff);
    }
    ary[i] = i as i32;
}

/// `test_sync.py`'s `coop_syncwarp`: a shared-memory tree sum with ever
/// smaller masks.
#[gpu_kernel]
pub fn numba_coop_syncwarp(res: &mut [i32]) {
    let sm = shared_array::<[i32; 32]>();
    let i = grid(1);
    sm[i] = i as i32;
    syncwarp(0xffff_ffff);
    if i < 16 {
        sm[i] = sm[i] + sm[i + 16];
        syncwarp(0xffff);
    }
    if i < 8 {
        sm[i] = sm[i] + sm[i + 8];
        syncwarp(0xff);
    }
    if i < 4 {
        sm[i] = sm[i] + sm[i + 4];
        syncwarp(0xf);
    }
    if i < 2 {
        sm[i] = sm[i] + sm[i + 2];
        syncwarp(0x3);
    }
    if i == 0 {
        res[0] = sm[0] + sm[1];
    }
}

/// Warp intrinsics at points every thread of the block reaches, with the
/// whole warp's mask (on the CPU backend, the split path's meetings): a
/// shuffle in a loop (its result feeding the next round), shuffles around
/// a barrier and inside larger statements, a match of a value read from
/// memory, and votes after some lanes returned. Blocks of whole warps;
/// `out` has 9 rows.
#[gpu_kernel]
pub fn meetings(x: &[i64], arg: &[u32], rounds: u32, out: ArrayViewMut2<i64>) {
    let i = grid(1);
    let v = x[i];
    let a = arg[i];
    let mut acc = v;
    for k in 0..rounds {
        acc += shfl_xor_sync(0xffff_ffff, acc, a + k);
    }
    out[[0, i]] = shfl_sync(0xffff_ffff, v, a);
    syncthreads();
    out[[1, i]] = shfl_up_sync(0xffff_ffff, v * 2, a);
    let d = shfl_down_sync(0xffff_ffff, v, a) - 1;
    out[[2, i]] = d;
    out[[3, i]] = acc;
    out[[4, i]] = match_any_sync(0xffff_ffff, x[i] % 5) as i64;
    out[[5, i]] = activemask() as i64;
    let (same, all) = match_all_sync(0xffff_ffff, v / 64);
    out[[8, i]] = if all { same as i64 } else { -1 };
    if v % 7 == 0 {
        return;
    }
    let p = v % 3 == 0;
    out[[6, i]] = ballot_sync(0xffff_ffff, p) as i64;
    syncwarp(0xffff_ffff);
    let all = all_sync(0xffff_ffff, p) as i64;
    let any = any_sync(0xffff_ffff, p) as i64;
    let eq = eq_sync(0xffff_ffff, p) as i64;
    out[[7, i]] = all + 2 * any + 4 * eq;
}

/// Shuffles after some lanes returned (those whose `x` is a multiple of
/// 7): the lanes left read, with the mask of a ballot of them, the value
/// of the first lane left in their warp, and their own value through a
/// `shfl_xor_sync` with lane mask 0. `out` has 2 rows.
#[gpu_kernel]
pub fn shuffles_after_returns(x: &[i64], out: ArrayViewMut2<i64>) {
    let i = grid(1);
    let v = x[i];
    if v % 7 == 0 {
        return;
    }
    let left = ballot_sync(0xffff_ffff, true);
    let first = left.trailing_zeros();
    out[[0, i]] = shfl_sync(left, v, first);
    out[[1, i]] = shfl_xor_sync(left, v, 0) + 1;
}

/// Values of types only rustc knows: an element of a module `const` array,
/// and a device function's result.
const OFFSETS: [i64; 4] = [10, -20, 30, -40];

/// `2 * v`.
#[gpu_device]
pub fn twice(v: i64) -> i64 {
    2 * v
}

/// Each thread: lane 1's `OFFSETS[i % 4]` (shuffled), plus the lane below's
/// `twice(i)` (its own in lane 0), plus whether every lane of the warp
/// matched `OFFSETS[0]`.
#[gpu_kernel]
pub fn outside_values(out: &mut [i64]) {
    let i = grid(1);
    let a = shfl_sync(0xffff_ffff, OFFSETS[i % 4], 1);
    let b = shfl_up_sync(0xffff_ffff, twice(i as i64), 1);
    let (_, all) = match_all_sync(0xffff_ffff, OFFSETS[0]);
    out[i] = a + b + all as i64;
}

/// Numba's kernels, for NVRTC.
pub fn numba_kernels() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &numba_useful_syncwarp::KERNEL,
        &numba_shfl::KERNEL,
        &numba_shfl_with_val_i32::KERNEL,
        &numba_shfl_with_val_i64::KERNEL,
        &numba_shfl_with_val_f32::KERNEL,
        &numba_shfl_with_val_f64::KERNEL,
        &numba_vote::KERNEL,
        &numba_match_any::KERNEL,
        &numba_match_all::KERNEL,
        &numba_independent_scheduling::KERNEL,
        &numba_activemask::KERNEL,
        &numba_lanemask_lt::KERNEL,
        &numba_useless_syncwarp::KERNEL,
        &numba_coop_syncwarp::KERNEL,
    ]
}

/// Every kernel with warp intrinsics, for NVRTC.
pub fn intrinsic_kernels() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &shuffles_i32::KERNEL,
        &shuffles_u32::KERNEL,
        &shuffles_f32::KERNEL,
        &shuffles_i64::KERNEL,
        &shuffles_u64::KERNEL,
        &shuffles_usize::KERNEL,
        &shuffles_f64::KERNEL,
        &warp_votes::KERNEL,
        &match_f64::KERNEL,
        &block_sum_shfl::KERNEL,
        &warp_sums_in_callee::KERNEL,
        &block_sums_in_callee::KERNEL,
        &warp_misses_lanes::KERNEL,
        &shfl_outside_the_mask::KERNEL,
        &shfl_in_a_partial_warp::KERNEL,
        &masks_differ::KERNEL,
        &meetings::KERNEL,
        &shuffles_after_returns::KERNEL,
        &match_all_masks::KERNEL,
        &outside_values::KERNEL,
    ]
    .into_iter()
    .chain(numba_kernels())
    .collect()
}

/// A host model of CUDA's warp intrinsics (independent of the CPU backend's
/// scheduler), for 1-D blocks of `block` threads over `n` threads with
/// per-warp masks: for lane `l` of a warp whose lanes that take part are
/// `group`, the lane each shuffle mode reads (PTX `shfl.sync`, width 32).
pub fn shfl_source(mode: usize, l: usize, arg: u32) -> usize {
    // PTX takes the low 5 bits of the lane argument.
    let b = (arg & 31) as usize;
    match mode {
        0 => b,
        1 if b <= l => l - b,
        2 if l + b < 32 => l + b,
        1 | 2 => l,
        _ => l ^ b,
    }
}

/// The lanes of warp `w` (of `n` threads in blocks of `block`) that exist,
/// as a mask, and the thread index of its lane 0.
pub fn warp_lanes(n: usize, block: usize, w: usize) -> (u32, usize) {
    let per_block = block.div_ceil(32);
    let (b, wb) = (w / per_block, w % per_block);
    let first = b * block + wb * 32;
    let count = (block - wb * 32).min(32).min(n.saturating_sub(first));
    let existing = if count == 32 { u32::MAX } else { (1u32 << count) - 1 };
    (existing, first)
}

/// Lane arguments for the four shuffle modes (rows) that read only lanes of
/// each warp's mask (or their own), from `seed`.
pub fn valid_shuffle_args(n: usize, block: usize, mask: &[u32], seed: u64) -> Vec<u32> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut args = vec![0u32; 4 * n];
    for (w, &m) in mask.iter().enumerate() {
        let (existing, first) = warp_lanes(n, block, w);
        let group = m & existing;
        for l in (0..32).filter(|l| group & (1 << l) != 0) {
            for mode in 0..4 {
                let arg = loop {
                    let a = (next() % 40) as u32;
                    if group & (1 << shfl_source(mode, l, a)) != 0 {
                        break a;
                    }
                };
                args[mode * n + first + l] = arg;
            }
        }
    }
    args
}

/// What `shuffles_*` writes: row `k`, element `i` is `x[source]`, or `zero`
/// where lane `i` is not in its warp's mask.
pub fn want_shuffles<T: Copy>(x: &[T], args: &[u32], block: usize, mask: &[u32], zero: T) -> Vec<T> {
    let n = x.len();
    let mut out = vec![zero; 4 * n];
    for (w, &m) in mask.iter().enumerate() {
        let (existing, first) = warp_lanes(n, block, w);
        for l in (0..32).filter(|l| m & existing & (1 << l) != 0) {
            for mode in 0..4 {
                let src = shfl_source(mode, l, args[mode * n + first + l]);
                out[mode * n + first + l] = x[first + src];
            }
        }
    }
    out
}

/// What `warp_votes` writes (see the kernel).
pub fn want_votes(p: &[u32], block: usize, mask: &[u32]) -> Vec<u32> {
    let n = p.len();
    let mut out = vec![0u32; 7 * n];
    for (w, &m) in mask.iter().enumerate() {
        let (existing, first) = warp_lanes(n, block, w);
        let group = m & existing;
        let lanes: Vec<usize> = (0..32).filter(|l| group & (1 << l) != 0).collect();
        let yes = lanes
            .iter()
            .filter(|&&l| p[first + l] % 2 != 0)
            .fold(0u32, |b, &l| b | 1 << l);
        for l in (0..32).filter(|l| existing & (1 << l) != 0) {
            let i = first + l;
            out[6 * n + i] = (1u32 << l) - 1;
            if group & (1 << l) == 0 {
                continue;
            }
            out[i] = yes;
            out[n + i] = u32::from(yes == group);
            out[2 * n + i] = u32::from(yes != 0);
            out[3 * n + i] = u32::from(yes == group || yes == 0);
            out[4 * n + i] = lanes
                .iter()
                .filter(|&&k| p[first + k] == p[i])
                .fold(0, |b, &k| b | 1 << k);
            out[5 * n + i] = group;
        }
    }
    out
}

/// What `match_all_masks` gives (CUDA's semantics, written here): for the
/// lanes of each warp's mask that exist, row 0 that mask of lanes if they
/// all hold the same `x`, else 0, and row 1 whether they do; 0 elsewhere.
pub fn want_match_all(x: &[u64], block: usize, mask: &[u32]) -> Vec<u32> {
    let n = x.len();
    let mut out = vec![0u32; 2 * n];
    for (w, &m) in mask.iter().enumerate() {
        let (existing, first) = warp_lanes(n, block, w);
        let group = m & existing;
        let lanes: Vec<usize> = (0..32).filter(|l| group & (1 << l) != 0).collect();
        let same = lanes.iter().all(|&l| x[first + l] == x[first + lanes[0]]);
        for &l in &lanes {
            out[first + l] = if same { group } else { 0 };
            out[n + first + l] = u32::from(same);
        }
    }
    out
}

/// Every kernel of this file.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &lanes_plain::KERNEL,
        &lanes_split::KERNEL,
        &first_warp::KERNEL,
        &lanes_strided::KERNEL,
    ]
    .into_iter()
    .chain(intrinsic_kernels())
    .collect()
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
