//! Stream compaction with a block-wide prefix scan: the positive values of
//! `x`, in their order, packed at the start of `out`. Three launches, as
//! GPU compaction is written:
//!
//! 1. `count_kept`: each block counts the values it keeps (a block vote,
//!    `syncthreads_count`);
//! 2. `exclusive_scan`: one block turns the counts into each block's first
//!    output position, an exclusive prefix sum, by warp scans
//!    (`shfl_up_sync`) and a scan of the warps' totals;
//! 3. `scatter`: each thread that keeps its value writes it at its block's
//!    position plus its rank in the block: the kept lanes of the earlier
//!    warps, then those below it in its warp (`ballot_sync` and
//!    `lanemask_lt`).
//!
//! Checked against a filter on the host; the program exits non-zero if
//! they differ.
//!
//! Run: `cargo run --release --example scan -- [N]` (default 2²⁴ values).

use gpujit::prelude::*;

/// Threads per block: whole warps, at most 32 of them.
const THREADS: usize = 256;
/// Threads of the one block of `exclusive_scan`.
const SCAN_THREADS: usize = 1024;
/// Every lane of a warp.
const FULL: u32 = 0xffff_ffff;

/// `counts[b]` = how many of block `b`'s values are positive.
#[gpu_kernel]
pub fn count_kept(x: &[f32], counts: &mut [u32]) {
    let i = grid(1);
    let keep = i < x.len() && x[i] > 0.0;
    let kept = syncthreads_count(keep);
    if thread_idx().x == 0 {
        counts[block_idx().x] = kept;
    }
}

/// `offsets[i]` = `counts[0] + .. + counts[i - 1]` (`offsets[0]` = 0), by
/// one block of whole warps walking `counts` a block's width at a time.
/// Each round, each warp scans its lanes' counts with `shfl_up_sync`
/// (Hillis and Steele: after the step of distance `d`, each lane holds the
/// sum of the `2d` counts up to it), the warps' totals are scanned the same
/// way, and every thread adds the totals of the warps before its own and
/// of the rounds before.
#[gpu_kernel]
pub fn exclusive_scan(counts: &[u32], offsets: &mut [u32]) {
    let warp_totals = shared_array::<[u32; 32]>();
    let lane = lane_id();
    let warp = thread_idx().x / 32;
    let mut carry = 0u32;
    let mut base = 0;
    while base < counts.len() {
        let i = base + thread_idx().x;
        let count = if i < counts.len() { counts[i] } else { 0 };
        // The inclusive scan of the warp's counts.
        let mut v = count;
        let mut d = 1;
        while d < 32 {
            let below = shfl_up_sync(FULL, v, d);
            if lane >= d as usize {
                v += below;
            }
            d *= 2;
        }
        if lane == 31 {
            warp_totals[warp] = v;
        }
        syncthreads();
        // The inclusive scan of the warps' totals, by every warp alike (so
        // that every thread reaches each shuffle).
        let total = if lane < block_dim().x / 32 {
            warp_totals[lane]
        } else {
            0
        };
        let mut w = total;
        let mut d = 1;
        while d < 32 {
            let below = shfl_up_sync(FULL, w, d);
            if lane >= d as usize {
                w += below;
            }
            d *= 2;
        }
        // Lane `warp` holds the totals up to warp `warp`; lane 31 all of them.
        let warps_before = shfl_sync(FULL, w - total, warp as u32);
        let round = shfl_sync(FULL, w, 31);
        if i < counts.len() {
            offsets[i] = carry + warps_before + v - count;
        }
        carry += round;
        // Every warp has read `warp_totals` before the next round writes it.
        syncthreads();
        base += block_dim().x;
    }
}

/// Writes each positive `x[i]` to `out[offsets[b] + rank]`, `rank` being
/// how many positive values come before it in its block `b`.
#[gpu_kernel]
pub fn scatter(x: &[f32], offsets: &[u32], out: &mut [f32]) {
    let warp_counts = shared_array::<[u32; 32]>();
    let i = grid(1);
    let keep = i < x.len() && x[i] > 0.0;
    let votes = ballot_sync(FULL, keep);
    let warp = thread_idx().x / 32;
    if lane_id() == 0 {
        warp_counts[warp] = votes.count_ones();
    }
    syncthreads();
    let mut rank = (votes & lanemask_lt()).count_ones();
    for w in 0..warp {
        rank += warp_counts[w];
    }
    if keep {
        out[(offsets[block_idx().x] + rank) as usize] = x[i];
    }
}

/// The positive values of `x` packed into `out`; returns how many. `counts`
/// and `offsets` hold one element per block of `THREADS`.
pub fn compact(
    x: &DeviceArray<f32>,
    counts: &mut DeviceArray<u32>,
    offsets: &mut DeviceArray<u32>,
    out: &mut DeviceArray<f32>,
) -> gpujit::Result<usize> {
    let blocks = counts.len();
    count_kept![blocks, THREADS](x, counts)?;
    exclusive_scan![1, SCAN_THREADS](counts, offsets)?;
    scatter![blocks, THREADS](x, offsets, out)?;
    // The last block's offset plus its count.
    let last = |a: &DeviceArray<u32>| a.copy_to_host().map(|v| v.last().copied().unwrap_or(0) as usize);
    Ok(last(offsets)? + last(counts)?)
}

fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n = gpujit_examples::size_arg(1 << 24)?;
    println!("backend: {}", gpujit::detect());
    // About 40% positive, in runs and alone.
    let x: Vec<f32> = (0..n)
        .map(|i| {
            let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
            (h % 1000) as f32 - 600.0
        })
        .collect();
    let blocks = n.div_ceil(THREADS).max(1);
    let d_x = gpujit::to_device(&x)?;
    let mut counts = gpujit::zeros::<u32>(blocks)?;
    let mut offsets = gpujit::zeros::<u32>(blocks)?;
    let mut out = gpujit::zeros::<f32>(n.max(1))?;
    let kept = compact(&d_x, &mut counts, &mut offsets, &mut out)?;
    let start = std::time::Instant::now();
    let want: Vec<f32> = x.iter().copied().filter(|&v| v > 0.0).collect();
    let host = start.elapsed().as_secs_f64();
    let got = out.copy_to_host()?;
    let ok = kept == want.len() && got[..kept] == want[..];
    println!(
        "result: kept {kept} of {n} values (host: {}); same values in the same order: {}",
        want.len(),
        gpujit_examples::verdict(ok)
    );
    let t = gpujit_examples::median_secs(5, || compact(&d_x, &mut counts, &mut offsets, &mut out).map(|_| ()))?;
    println!(
        "kernels: median of 5 warm runs {} (a filter on the host, one core: {})",
        gpujit_examples::human_time(t),
        gpujit_examples::human_time(host)
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
