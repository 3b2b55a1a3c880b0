//! Interchanged loops inside split kernels on the CPU backend: a part
//! between barriers that is one `for j in a..b` with `a`, `b` the same in
//! every thread (the tiled matmul's inner loop) runs `j` outside the thread
//! loop (`last_launch_lockstep_blocks` counts the blocks that did). Results
//! must equal a host reference computed in each thread's order, bit for bit,
//! and the coroutine path (forced); loops that do not qualify run per thread
//! and stay right; faults keep their coordinates. A lockstep loop that
//! carries one local (`acc`) runs row by row with it in registers in blocks
//! that fit the shared arrays (`last_launch_row_blocks` counts them).
//!
//! A strided loop (`(a..n).step_by(s)`, the histogram's grid-stride walk,
//! spelled as a `while` or a `for`) runs in rounds: round `r` gives each
//! thread its element `a + r * s`, so consecutive threads take consecutive
//! elements; a zero step (a fault) or an end within `s` of the type's
//! maximum runs each thread's own loop.

use gpujit::__private::{
    last_launch_coroutine_blocks, last_launch_lockstep_blocks, last_launch_row_blocks, with_forced_coroutines,
};
use gpujit::prelude::*;
use gpujit::{to_device, zeros, Error};
use ndarray::Array2;

use crate::common;
use crate::histogram::{histogram_256, histogram_host, BINS};
use common::Expect;

/// examples/matmul.rs, whose tiled kernel is tested here.
use crate::matmul;
use common::coroutines_forced;
use matmul::{matmul_tiled, TILE};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => tiled_matmul_of_any_shape_is_exact_and_interchanged,
        cpu => blocks_larger_than_the_tiles_fault_with_coordinates,
        cpu => a_per_thread_inner_bound_is_not_interchanged,
        cpu => a_break_in_the_inner_loop_is_not_interchanged,
        cpu => a_shared_index_past_the_tile_faults_with_coordinates,
        cpu => an_inclusive_range_and_a_three_d_block,
        cpu => row_tiles_of_every_block_shape_are_exact,
        cpu => a_tile_of_eight_fits_blocks_of_eight_and_faults_in_larger_ones,
        cpu => a_fault_inside_the_rows_keeps_its_coordinates,
        cpu => a_second_carried_local_is_exact,
        cpu => a_thread_that_may_return_runs_no_rows,
        cpu => a_long_row_loop_stops_at_the_time_limit,
        cpu => the_histograms_grid_stride_walk_runs_in_rounds,
        cpu => strided_rounds_of_every_bound_and_step_are_exact,
        cpu => locals_bound_before_the_loop_and_read_only_in_its_part_are_interchanged,
        cpu => full_rounds_of_a_grid_stride_walk_between_barriers_run_on_spans,
        cpu => a_walk_starting_at_a_local_of_its_part_runs_in_rounds,
    ]
}

/// Checks the last launch's paths: `lockstep` blocks interchanged a loop,
/// `rows` of them ran it row by row (`Block::lockstep_rows`), none ran
/// coroutines (all 0 and any when forced onto coroutines).
fn expect_paths(lockstep: usize, rows: usize, what: &str) {
    if coroutines_forced() {
        assert_eq!(
            last_launch_lockstep_blocks(),
            0,
            "{what}: forced coroutines interchanged"
        );
        assert_eq!(last_launch_row_blocks(), 0, "{what}: forced coroutines ran rows");
        return;
    }
    assert_eq!(last_launch_coroutine_blocks(), 0, "{what}: ran coroutines");
    assert_eq!(
        last_launch_lockstep_blocks(),
        lockstep,
        "{what}: blocks that interchanged a loop"
    );
    assert_eq!(last_launch_row_blocks(), rows, "{what}: blocks that ran rows");
}

/// The tiled kernel's sums in its order (tiles of `TILE`): zeros past the
/// edges included.
fn tiled_reference(a: &Array2<f32>, b: &Array2<f32>) -> Array2<f32> {
    tiled_reference_by(a, b, TILE)
}

/// [`tiled_reference`] for tiles of `tile` along `k`.
fn tiled_reference_by(a: &Array2<f32>, b: &Array2<f32>, tile: usize) -> Array2<f32> {
    let ((n, k), m) = (a.dim(), b.dim().1);
    let tiles = k.div_ceil(tile);
    Array2::from_shape_fn((n, m), |(r, c)| {
        let mut acc = 0.0f32;
        for t in 0..tiles {
            for j in 0..tile {
                let kk = t * tile + j;
                let (x, y) = if kk < k { (a[[r, kk]], b[[kk, c]]) } else { (0.0, 0.0) };
                acc += x * y;
            }
        }
        acc
    })
}

fn run_tiled(a: &Array2<f32>, b: &Array2<f32>, block: (usize, usize)) -> gpujit::Result<Array2<f32>> {
    let (da, db) = (to_device(a)?, to_device(b)?);
    let (n, m) = (a.dim().0, b.dim().1);
    let mut dc = gpujit::device_array::<f32>((n, m))?;
    matmul_tiled![(m.div_ceil(block.0), n.div_ceil(block.1)), block](&da, &db, &mut dc)?;
    let v = dc.copy_to_host()?;
    Ok(Array2::from_shape_vec((n, m), v).expect("shape"))
}

fn bits(a: &Array2<f32>) -> Vec<u32> {
    a.iter().map(|v| v.to_bits()).collect()
}

fn tiled_matmul_of_any_shape_is_exact_and_interchanged() -> gpujit::Result<()> {
    // Square and not, edges that are and are not multiples of TILE.
    for (n, k, m) in [(32, 32, 32), (37, 45, 29), (20, 37, 5), (1, 17, 33), (48, 16, 3)] {
        let (a, b) = (common::matrix(n, k, 1), common::matrix(k, m, 2));
        let want = bits(&tiled_reference(&a, &b));
        let got = run_tiled(&a, &b, (TILE, TILE))?;
        let blocks = m.div_ceil(TILE) * n.div_ceil(TILE);
        expect_paths(blocks, blocks, &format!("{n}x{k}x{m}"));
        assert_eq!(bits(&got), want, "{n}x{k}x{m}");
        let coro = with_forced_coroutines(|| run_tiled(&a, &b, (TILE, TILE)))?;
        assert_eq!(last_launch_lockstep_blocks(), 0);
        assert_eq!(last_launch_row_blocks(), 0);
        assert_eq!(bits(&coro), want, "{n}x{k}x{m}, coroutines");
    }
    Ok(())
}

/// The first fault of block 0 from the split path and from the coroutine
/// path: the same thread, the same message.
fn same_fault(f: impl Fn() -> gpujit::Result<()>, thread: [u32; 3], says: &str) {
    let split = f();
    let coro = with_forced_coroutines(&f);
    for r in [split, coro] {
        match r {
            Err(Error::KernelFault {
                message,
                block,
                thread: t,
                ..
            }) => {
                assert!(message.contains(says), "{message}");
                assert_eq!(block, [0, 0, 0], "{message}");
                assert_eq!(t, thread, "{message}");
            }
            other => panic!("expected a fault, got {other:?}"),
        }
    }
}

fn blocks_larger_than_the_tiles_fault_with_coordinates() -> gpujit::Result<()> {
    let (a, b) = (common::matrix(40, 40, 3), common::matrix(40, 40, 4));
    // 32 threads on x: `sa[ty][tx]` with tx = 16 is out of range first.
    same_fault(|| run_tiled(&a, &b, (32, 8)).map(drop), [16, 0, 0], "index [0, 16]");
    // 32 on y: thread (0, 16) at `sa[16][0]`.
    same_fault(|| run_tiled(&a, &b, (8, 32)).map(drop), [0, 16, 0], "index [16, 0]");
    Ok(())
}

/// `out[g] = sum over j < bound of s[j] * (tx + 1)`, where `bound` depends
/// on the thread: not block-uniform, so not interchanged.
#[gpu_kernel]
fn per_thread_bound(x: &[f32], out: &mut [f32]) {
    let s = shared_array::<[f32; 64]>();
    let tx = thread_idx().x;
    let g = grid(1);
    s[tx] = x[g];
    syncthreads();
    let mut acc = 0.0;
    for j in 0..tx + 1 {
        acc += s[j] * (tx as f32 + 1.0);
    }
    syncthreads();
    out[g] = acc;
}

fn a_per_thread_inner_bound_is_not_interchanged() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..128).map(|i| (i as f32 * 0.37).sin()).collect();
    let want: Vec<u32> = (0..128)
        .map(|g: usize| {
            let (blk, tx) = (g / 64, g % 64);
            let mut acc = 0.0f32;
            for j in 0..=tx {
                acc += x[blk * 64 + j] * (tx as f32 + 1.0);
            }
            acc.to_bits()
        })
        .collect();
    let dx = to_device(&x)?;
    let mut out = zeros::<f32>(128)?;
    per_thread_bound![2, 64](&dx, &mut out)?;
    expect_paths(0, 0, "per-thread bound");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
    Ok(())
}

/// Sums `s[j]` until one is negative: a `break` inside the inner loop.
#[gpu_kernel]
fn break_inside(x: &[f32], out: &mut [f32]) {
    let s = shared_array::<[f32; 32]>();
    let tx = thread_idx().x;
    let g = grid(1);
    s[tx] = x[g];
    syncthreads();
    let mut acc = 0.0;
    for j in 0..32 {
        let v = s[(j + tx) % 32];
        if v < 0.0 {
            break;
        }
        acc += v;
    }
    syncthreads();
    out[g] = acc;
}

fn a_break_in_the_inner_loop_is_not_interchanged() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..64).map(|i| ((i * 7 % 11) as f32 - 2.5) * 0.5).collect();
    let want: Vec<u32> = (0..64)
        .map(|g: usize| {
            let (blk, tx) = (g / 32, g % 32);
            let mut acc = 0.0f32;
            for j in 0..32 {
                let v = x[blk * 32 + (j + tx) % 32];
                if v < 0.0 {
                    break;
                }
                acc += v;
            }
            acc.to_bits()
        })
        .collect();
    let dx = to_device(&x)?;
    let mut out = zeros::<f32>(64)?;
    break_inside![2, 32](&dx, &mut out)?;
    expect_paths(0, 0, "break");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
    Ok(())
}

/// The inner loop runs one step past the tile: `s[ty][16]` is out of range.
#[gpu_kernel]
fn one_past(reach: usize, out: &mut [f32]) {
    let s = shared_array::<[[f32; TILE]; TILE]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    s[ty][tx] = 1.0;
    syncthreads();
    let mut acc = 0.0;
    for j in 0..reach {
        acc += s[ty][j];
    }
    syncthreads();
    out[ty * TILE + tx] = acc;
}

fn a_shared_index_past_the_tile_faults_with_coordinates() -> gpujit::Result<()> {
    let mut out = zeros::<f32>(TILE * TILE)?;
    // In range: interchanged, every thread sums TILE ones.
    one_past![1, (TILE, TILE)](TILE, &mut out)?;
    expect_paths(1, 1, "in range");
    assert_eq!(out.copy_to_host()?, vec![TILE as f32; TILE * TILE]);
    // One past: every thread faults at j = 16; the first is thread (0, 0).
    same_fault(
        || {
            let mut out = zeros::<f32>(TILE * TILE)?;
            one_past![1, (TILE, TILE)](TILE + 1, &mut out)
        },
        [0, 0, 0],
        "index [0, 16] is out of bounds for shared array",
    );
    Ok(())
}

/// An inclusive range and a 3-D block (z indexes the tile's third axis):
/// `out[g] = sum over j <= 7 of s[tz][j][tx]`, each thread in its order.
#[gpu_kernel]
fn inclusive_3d(x: &[f32], out: &mut [f32]) {
    let s = shared_array::<[[[f32; 8]; 8]; 2]>();
    let t = thread_idx();
    let g = (t.z * 8 + t.y) * 8 + t.x;
    s[t.z][t.y][t.x] = x[g];
    syncthreads();
    let mut acc = 0.0;
    for j in 0..=7 {
        acc += s[t.z][j][t.x] * (j as f32 + 0.5);
    }
    syncthreads();
    out[g] = acc;
}

fn an_inclusive_range_and_a_three_d_block() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..128).map(|i| (i as f32 * 0.91).cos()).collect();
    let want: Vec<u32> = (0..128)
        .map(|g: usize| {
            let (z, tx) = (g / 64, g % 8);
            let mut acc = 0.0f32;
            for j in 0..=7 {
                acc += x[(z * 8 + j) * 8 + tx] * (j as f32 + 0.5);
            }
            acc.to_bits()
        })
        .collect();
    let dx = to_device(&x)?;
    let mut out = zeros::<f32>(128)?;
    inclusive_3d![1, (8, 8, 2)](&dx, &mut out)?;
    expect_paths(1, 1, "inclusive, 3-D");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
    let mut out = zeros::<f32>(128)?;
    with_forced_coroutines(|| inclusive_3d![1, (8, 8, 2)](&dx, &mut out))?;
    let coro: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(coro, want);
    Ok(())
}

/// Steps along `k` of [`rows_tiled`].
const KT: usize = 8;

/// A tiled matmul whose C tile is the block (any shape up to 32×32 with
/// both sides at least `KT`) and whose k-tile is `KT`: the lockstep loop
/// `for j in 0..KT` runs row by row in every such block.
#[gpu_kernel]
fn rows_tiled(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; KT]; 32]>();
    let sb = shared_array::<[[f32; 32]; KT]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + KT - 1) / KT {
        if tx < KT {
            sa[ty][tx] = if row < n && t * KT + tx < k {
                a[[row, t * KT + tx]]
            } else {
                0.0
            };
        }
        if ty < KT {
            sb[ty][tx] = if t * KT + ty < k && col < m {
                b[[t * KT + ty, col]]
            } else {
                0.0
            };
        }
        syncthreads();
        for j in 0..KT {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

fn row_tiles_of_every_block_shape_are_exact() -> gpujit::Result<()> {
    // Rows of 8 and 32 threads (whole chunks of 8), 16, 12 and 9 (chunks
    // and the threads left over), 8 or more rows.
    let blocks = [(8, 32), (32, 8), (16, 16), (12, 10), (9, 8), (8, 8), (24, 9)];
    for (n, k, m) in [(37, 45, 29), (20, 37, 5), (64, 16, 48), (1, 9, 33)] {
        let (a, b) = (common::matrix(n, k, 5), common::matrix(k, m, 6));
        let want = bits(&tiled_reference_by(&a, &b, KT));
        let (da, db) = (to_device(&a)?, to_device(&b)?);
        for (bx, by) in blocks {
            let what = format!("{n}x{k}x{m}, block {bx}x{by}");
            let grid = (m.div_ceil(bx), n.div_ceil(by));
            let mut dc = gpujit::device_array::<f32>((n, m))?;
            rows_tiled![grid, (bx, by)](&da, &db, &mut dc)?;
            expect_paths(grid.0 * grid.1, grid.0 * grid.1, &what);
            let got: Vec<u32> = dc.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "{what}");
            let mut dc = gpujit::device_array::<f32>((n, m))?;
            with_forced_coroutines(|| rows_tiled![grid, (bx, by)](&da, &db, &mut dc))?;
            let coro: Vec<u32> = dc.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
            assert_eq!(coro, want, "{what}, coroutines");
        }
    }
    Ok(())
}

/// examples/matmul.rs' tiled kernel with tiles of 8.
#[gpu_kernel]
fn tiled8(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; KT]; KT]>();
    let sb = shared_array::<[[f32; KT]; KT]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + KT - 1) / KT {
        let ka = t * KT + tx;
        let kb = t * KT + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..KT {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

fn run_tiled8(a: &Array2<f32>, b: &Array2<f32>, block: (usize, usize)) -> gpujit::Result<Vec<u32>> {
    let (da, db) = (to_device(a)?, to_device(b)?);
    let (n, m) = (a.dim().0, b.dim().1);
    let mut dc = gpujit::device_array::<f32>((n, m))?;
    tiled8![(m.div_ceil(block.0), n.div_ceil(block.1)), block](&da, &db, &mut dc)?;
    Ok(dc.copy_to_host()?.iter().map(|v| v.to_bits()).collect())
}

fn a_tile_of_eight_fits_blocks_of_eight_and_faults_in_larger_ones() -> gpujit::Result<()> {
    let (a, b) = (common::matrix(21, 19, 7), common::matrix(19, 30, 8));
    let got = run_tiled8(&a, &b, (KT, KT))?;
    let blocks = 30usize.div_ceil(KT) * 21usize.div_ceil(KT);
    expect_paths(blocks, blocks, "tiles of 8");
    assert_eq!(got, bits(&tiled_reference_by(&a, &b, KT)));
    // 16×16 threads on 8×8 tiles: thread (8, 0) stores to `sa[0][8]` first.
    same_fault(|| run_tiled8(&a, &b, (16, 16)).map(drop), [8, 0, 0], "index [0, 8]");
    Ok(())
}

/// Threads with `tx >= 8` and `ty >= 3` read `s[ty][j + ty / 3]`, past the
/// row at the last steps: a checked access inside the rows.
#[gpu_kernel]
fn skew(out: &mut [f32]) {
    let s = shared_array::<[[f32; TILE]; TILE]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    s[ty][tx] = (ty * TILE + tx) as f32;
    syncthreads();
    let mut acc = 0.0;
    for j in 0..TILE {
        acc += s[ty][j + tx / 8 * (ty / 3)];
    }
    syncthreads();
    out[ty * TILE + tx] = acc;
}

fn a_fault_inside_the_rows_keeps_its_coordinates() -> gpujit::Result<()> {
    let run = || {
        let mut out = zeros::<f32>(TILE * TILE)?;
        skew![1, (TILE, TILE)](&mut out)
    };
    assert!(run().is_err());
    expect_paths(1, 1, "skew");
    // The first faulting thread (lowest linear index) is (8, 3), at j = 15.
    same_fault(run, [8, 3, 0], "index [3, 16] is out of bounds for shared array");
    Ok(())
}

/// Two locals carried through the loop: not run in rows (one at most).
#[gpu_kernel]
fn two_sums(x: &[f32], out: &mut [f32]) {
    let s = shared_array::<[f32; 64]>();
    let tx = thread_idx().x;
    let g = grid(1);
    s[tx] = x[g];
    syncthreads();
    let mut acc = 0.0;
    let mut sq = 1.0;
    for j in 0..64 {
        acc += s[j] * (tx as f32 + 0.5);
        sq = sq * 0.5 + s[j] * acc;
    }
    syncthreads();
    out[g] = acc + sq;
}

/// One carried local and one that the loop only reads (`w`, per thread
/// across the barrier): rows, `w` read from its per-thread array.
#[gpu_kernel]
fn scaled_sum(x: &[f32], out: &mut [f32]) {
    let s = shared_array::<[f32; 64]>();
    let tx = thread_idx().x;
    let g = grid(1);
    let w = x[g] * 0.75 + 0.125;
    s[tx] = x[g];
    syncthreads();
    let mut acc = 0.0;
    for j in 0..64 {
        acc += s[(j + tx) % 64] * w;
    }
    syncthreads();
    out[g] = acc;
}

fn a_second_carried_local_is_exact() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..192).map(|i| (i as f32 * 0.61).sin()).collect();
    let dx = to_device(&x)?;
    let two: Vec<u32> = (0..192)
        .map(|g: usize| {
            let (blk, tx) = (g / 64, g % 64);
            let (mut acc, mut sq) = (0.0f32, 1.0f32);
            for j in 0..64 {
                acc += x[blk * 64 + j] * (tx as f32 + 0.5);
                sq = sq * 0.5 + x[blk * 64 + j] * acc;
            }
            (acc + sq).to_bits()
        })
        .collect();
    let mut out = zeros::<f32>(192)?;
    two_sums![3, 64](&dx, &mut out)?;
    expect_paths(3, 0, "two carried locals");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, two);

    let scaled: Vec<u32> = (0..192)
        .map(|g: usize| {
            let (blk, tx) = (g / 64, g % 64);
            let w = x[g] * 0.75 + 0.125;
            let mut acc = 0.0f32;
            for j in 0..64 {
                acc += x[blk * 64 + (j + tx) % 64] * w;
            }
            acc.to_bits()
        })
        .collect();
    let mut out = zeros::<f32>(192)?;
    scaled_sum![3, 64](&dx, &mut out)?;
    expect_paths(3, 3, "a read-only local");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, scaled);
    let mut out = zeros::<f32>(192)?;
    with_forced_coroutines(|| scaled_sum![3, 64](&dx, &mut out))?;
    let coro: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(coro, scaled);
    Ok(())
}

/// Threads at or past `limit` return before the first barrier.
#[gpu_kernel]
fn maybe_return(x: &[f32], limit: usize, out: &mut [f32]) {
    let s = shared_array::<[f32; 32]>();
    let tx = thread_idx().x;
    let g = grid(1);
    if g >= limit {
        return;
    }
    s[tx] = x[g];
    syncthreads();
    let mut acc = 0.0;
    for j in 0..32 {
        acc += s[j] * (j as f32 + 1.0);
    }
    syncthreads();
    out[g] = acc;
}

fn a_thread_that_may_return_runs_no_rows() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..64).map(|i| (i as f32 * 0.29).cos()).collect();
    let want: Vec<u32> = (0..64)
        .map(|g: usize| {
            let blk = g / 32;
            let mut acc = 0.0f32;
            for j in 0..32 {
                acc += x[blk * 32 + j] * (j as f32 + 1.0);
            }
            acc.to_bits()
        })
        .collect();
    let dx = to_device(&x)?;
    let mut out = zeros::<f32>(64)?;
    // No thread returns, but the rows would visit threads that did.
    maybe_return![2, 32](&dx, 64, &mut out)?;
    expect_paths(2, 0, "may return");
    let got: Vec<u32> = out.copy_to_host()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(got, want);
    Ok(())
}

/// A loop of `trips` steps over shared memory: runs in rows.
#[gpu_kernel]
fn spin(trips: usize, out: &mut [f32]) {
    let s = shared_array::<[f32; 32]>();
    let tx = thread_idx().x;
    s[tx] = 1.0;
    syncthreads();
    let mut acc = 0.0;
    for j in 0..trips {
        acc += s[j % 32];
    }
    syncthreads();
    out[grid(1)] = acc;
}

fn a_long_row_loop_stops_at_the_time_limit() -> gpujit::Result<()> {
    let mut out = zeros::<f32>(32)?;
    spin![1, 32](100, &mut out)?;
    expect_paths(1, 1, "spin");
    assert_eq!(out.copy_to_host()?, vec![100.0; 32]);
    let r = gpujit::with_cpu_time_limit(std::time::Duration::from_millis(50), || spin![1, 32](1 << 50, &mut out));
    assert!(matches!(r, Err(Error::LaunchTimeout { .. })), "{r:?}");
    Ok(())
}

/// The histogram's grid-stride walk between its barriers runs in rounds;
/// the rounds that every thread of the block runs read `pixels` on spans
/// shifted by `r * step` (`last_launch_span_loops` counts them), the last
/// rounds checked.
fn the_histograms_grid_stride_walk_runs_in_rounds() -> gpujit::Result<()> {
    // Blocks whose threads have one more element than others, and threads
    // with none at the end.
    for n in [0usize, 1, 255, 768, 4097, 3 * 256 * 9 + 100] {
        let pixels: Vec<u8> = (0..n).map(|i| ((i * 37 + i / 3) % 256) as u8).collect();
        let want = histogram_host(&pixels);
        let (fast, paths, coro) = common::on_both_paths(Expect::split().named(&format!("n = {n}")), || {
            let d = to_device(&pixels)?;
            let mut h = zeros::<u32>(BINS)?;
            histogram_256![3, BINS](&d, &mut h)?;
            h.copy_to_host()
        });
        assert_eq!(fast?, want, "n = {n}");
        assert_eq!(coro?, want, "n = {n}");
        assert_eq!(paths.lockstep_blocks, common::expected(3), "n = {n}: lockstep blocks");
        let full = full_rounds(n, 3, BINS);
        assert_eq!(
            paths.span_loops,
            common::expected(full.iter().sum()),
            "n = {n}: rounds on spans"
        );
        assert_eq!(
            paths.span_blocks,
            common::expected(full.iter().filter(|&&f| f > 0).count()),
            "n = {n}: blocks on spans"
        );
    }
    Ok(())
}

/// Each thread counts its visits of each element in its own row: `(t..hi)`
/// stepping by `s`, between barriers, in `u32`.
#[gpu_kernel]
fn visits(out: &mut [u32], hi: u32, s: usize) {
    let t = thread_idx().x as u32;
    let row = thread_idx().x * 64;
    syncthreads();
    for i in (t..hi).step_by(s) {
        out[row + i as usize] += 1;
    }
    syncthreads();
}

/// [`visits`] over `(t..=hi)`.
#[gpu_kernel]
fn visits_inclusive(out: &mut [u32], hi: u32, s: usize) {
    let t = thread_idx().x as u32;
    let row = thread_idx().x * 64;
    syncthreads();
    for i in (t..=hi).step_by(s) {
        out[row + i as usize] += 1;
    }
    syncthreads();
}

fn strided_rounds_of_every_bound_and_step_are_exact() -> gpujit::Result<()> {
    let threads = 8usize;
    for (hi, s, inclusive) in [
        (0u32, 1usize, 0u32),
        (0, 1, 1),
        (5, 3, 0),
        (5, 3, 1),
        (63, 7, 1),
        (40, 64, 0),
        (63, 1, 0),
    ] {
        let mut want = vec![0u32; threads * 64];
        for t in 0..threads as u32 {
            let mut i = t;
            while if inclusive == 1 { i <= hi } else { i < hi } {
                want[t as usize * 64 + i as usize] += 1;
                i += s as u32;
            }
        }
        let what = format!("hi {hi}, step {s}, inclusive {inclusive}");
        let (fast, paths, coro) = common::on_both_paths(Expect::split().named(&what), || {
            let mut d = zeros::<u32>(threads * 64)?;
            if inclusive == 1 {
                visits_inclusive![1, threads](&mut d, hi, s)?;
            } else {
                visits![1, threads](&mut d, hi, s)?;
            }
            d.copy_to_host()
        });
        assert_eq!(fast?, want, "{what}");
        assert_eq!(coro?, want, "{what}");
        assert_eq!(paths.lockstep_blocks, common::expected(1), "{what}: lockstep blocks");
    }
    // An end within a step of `u32::MAX`: each thread's own loop (one
    // element each, then `i + s` would pass the type).
    let (fast, paths, coro) = common::on_both_paths(Expect::split(), || {
        let mut d = zeros::<u32>(threads * 64)?;
        visits![1, threads](&mut d, u32::MAX - 3, 1 << 33)?;
        d.copy_to_host()
    });
    let mut want = vec![0u32; threads * 64];
    for t in 0..threads {
        want[t * 64 + t] = 1;
    }
    assert_eq!(fast?, want);
    assert_eq!(coro?, want);
    assert_eq!(paths.lockstep_blocks, 0, "near u32::MAX: lockstep");
    // A zero step faults in every thread, as `step_by(0)` does, on both paths.
    let (fast, _, coro) = common::on_both_paths(Expect::none(), || {
        let mut d = zeros::<u32>(threads * 64).unwrap();
        visits![1, threads](&mut d, 10, 0).unwrap_err().to_string()
    });
    assert!(fast.contains("step"), "{fast}");
    assert_eq!(fast, coro);
    Ok(())
}

/// A grid-stride sum between barriers whose locals live in the loop's part
/// only: a factor loaded before the loop (`scale`, and a tuple's `shift`)
/// and the sum copied after it (`let w = v;`). Each thread's `v` ends in
/// `sums`, then thread 0 of the block adds them.
#[gpu_kernel]
fn copied_sum(x: &[f32], out: &mut [f32]) {
    let sums = shared_array::<[f32; 64]>();
    let t = thread_idx().x;
    syncthreads();
    let scale = x[0];
    let (shift, _) = (x[1], 0u32);
    let mut v = 0.0f32;
    for i in (grid(1)..x.len()).step_by(gridsize(1)) {
        v += x[i] * scale + shift;
    }
    let w = v;
    sums[t] = w;
    syncthreads();
    if t == 0 {
        let mut s = 0.0f32;
        for j in 0..block_dim().x {
            s += sums[j];
        }
        out[block_idx().x] = s;
    }
}

/// A unit-stride loop over a shared tile between barriers, with a factor
/// each thread loads before it and a copy of the sum after it.
#[gpu_kernel]
fn copied_dot(x: &[f32], out: &mut [f32]) {
    let tile = shared_array::<[f32; 16]>();
    let t = thread_idx().x;
    if t < 16 {
        tile[t] = x[t];
    }
    syncthreads();
    let own = x[grid(1) % x.len()];
    let mut acc = 0.0f32;
    for j in 0..16 {
        acc += own * tile[j];
    }
    let copy = acc;
    out[grid(1)] = copy;
}

fn locals_bound_before_the_loop_and_read_only_in_its_part_are_interchanged() -> gpujit::Result<()> {
    let (blocks, threads) = (3usize, 64usize);
    for n in [2usize, 191, 192, 193, 4097] {
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.001 - 0.4).collect();
        let grid = blocks * threads;
        let want: Vec<u32> = (0..blocks)
            .map(|b| {
                let mut s = 0.0f32;
                for t in 0..threads {
                    let mut v = 0.0f32;
                    for i in (b * threads + t..n).step_by(grid) {
                        v += x[i] * x[0] + x[1];
                    }
                    s += v;
                }
                s.to_bits()
            })
            .collect();
        let what = format!("copied_sum, n = {n}");
        let (fast, paths, coro) = common::on_both_paths(Expect::split().named(&what), || {
            let d = to_device(&x)?;
            let mut out = zeros::<f32>(blocks)?;
            copied_sum![blocks, threads](&d, &mut out)?;
            out.copy_to_host()
        });
        let bits = |v: Vec<f32>| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(fast?), want, "{what}");
        assert_eq!(bits(coro?), want, "{what}");
        assert_eq!(
            paths.lockstep_blocks,
            common::expected(blocks),
            "{what}: lockstep blocks"
        );
    }
    let x: Vec<f32> = (0..100).map(|i| i as f32 * 0.25 - 3.0).collect();
    let want: Vec<u32> = (0..blocks * threads)
        .map(|g| {
            let own = x[g % x.len()];
            let mut acc = 0.0f32;
            for v in &x[..16] {
                acc += own * v;
            }
            acc.to_bits()
        })
        .collect();
    let (fast, paths, coro) = common::on_both_paths(Expect::split().named("copied_dot"), || {
        let d = to_device(&x)?;
        let mut out = zeros::<f32>(blocks * threads)?;
        copied_dot![blocks, threads](&d, &mut out)?;
        out.copy_to_host()
    });
    let bits = |v: Vec<f32>| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(fast?), want, "copied_dot");
    assert_eq!(bits(coro?), want, "copied_dot");
    assert_eq!(
        paths.lockstep_blocks,
        common::expected(blocks),
        "copied_dot: lockstep blocks"
    );
    Ok(())
}

/// Per block of `blocks` × `threads` over `n` elements with step `blocks *
/// threads`: the rounds every thread of the block runs (its least trip count).
fn full_rounds(n: usize, blocks: usize, threads: usize) -> Vec<usize> {
    let grid = blocks * threads;
    (0..blocks)
        .map(|b| {
            (0..threads)
                .map(|t| (b * threads + t..n).step_by(grid).count())
                .min()
                .unwrap_or(0)
        })
        .collect()
}

/// A grid-stride walk between barriers whose rounds every thread of the
/// block runs reads its read-only arrays on spans shifted by `r * step`, as
/// the histogram's does: [`copied_sum`] (a local carried in a per-thread
/// array); a read past the end of `x` in the rounds that would be on spans
/// is still a fault with its thread.
fn full_rounds_of_a_grid_stride_walk_between_barriers_run_on_spans() -> gpujit::Result<()> {
    let (blocks, threads) = (3usize, 64usize);
    for n in [2usize, 192, 1000, 4097] {
        let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 * 0.001 - 0.4).collect();
        let (fast, paths, coro) = common::on_both_paths(Expect::split(), || {
            let d = to_device(&x)?;
            let mut out = zeros::<f32>(blocks)?;
            copied_sum![blocks, threads](&d, &mut out)?;
            out.copy_to_host()
        });
        let (fast, coro) = (fast?, coro?);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&fast), bits(&coro), "copied_sum, n = {n}");
        let full = full_rounds(n, blocks, threads);
        assert_eq!(
            paths.span_loops,
            common::expected(full.iter().sum()),
            "copied_sum, n = {n}: rounds on spans"
        );
    }
    // `x` shorter than the walk: rounds from 20 on fail their span check
    // and run checked; the block reports its lowest faulting thread, 0, at
    // its first bad read, as on coroutines.
    same_fault(
        || {
            let d = to_device(&vec![1.0f32; 1800])?;
            let mut out = zeros::<f32>(1)?;
            past_the_end![1, 64](&d, 1500, &mut out)
        },
        [0, 0, 0],
        "index [1844] is out of bounds",
    );
    Ok(())
}

/// A grid-stride walk over `n` elements of `x` that reads `x[i + 500]`: past
/// the end of `x` for `i` from `x.len() - 500` on.
#[gpu_kernel]
fn past_the_end(x: &[f32], n: usize, out: &mut [f32]) {
    let sums = shared_array::<[f32; 64]>();
    let t = thread_idx().x;
    let mut v = 0.0f32;
    for i in (grid(1)..n).step_by(gridsize(1)) {
        v += x[i + 500];
    }
    sums[t] = v;
    syncthreads();
    if t == 0 {
        out[0] = sums[0];
    }
}

/// The histogram's walk from a start each thread computes in the walk's
/// part: from memory (a per-block offset) and its coordinates, as a
/// `while` (canonically a `for .. step_by` from the local `start`).
#[gpu_kernel]
fn walk_from_local(pixels: &[u8], skip: &[u32], hist: &mut [u32]) {
    let bins = shared_array::<[u32; BINS]>();
    let t = thread_idx().x;
    bins[t] = 0;
    syncthreads();
    let start = skip[block_idx().x] as usize + block_idx().x * block_dim().x + t;
    let mut i = start;
    while i < pixels.len() {
        atomic_add(&mut bins[pixels[i] as usize], 1);
        i += gridsize(1);
    }
    syncthreads();
    atomic_add(&mut hist[t], bins[t]);
}

/// The same, `for` over a start that a later statement of the part
/// reassigns before the loop (the loop starts from the last value).
#[gpu_kernel]
fn walk_from_reassigned(pixels: &[u8], skip: &[u32], hist: &mut [u32]) {
    let bins = shared_array::<[u32; BINS]>();
    let t = thread_idx().x;
    bins[t] = 0;
    syncthreads();
    let mut start = grid(1);
    start += skip[block_idx().x] as usize;
    for i in (start..pixels.len()).step_by(gridsize(1)) {
        atomic_add(&mut bins[pixels[i] as usize], 1);
    }
    syncthreads();
    atomic_add(&mut hist[t], bins[t]);
}

/// A grid-stride walk whose start is a local bound before it in its part
/// (not `grid(1)`, not a coordinate, not uniform) runs in rounds too: the
/// local gets a per-thread array, and each round reads the start from it.
fn a_walk_starting_at_a_local_of_its_part_runs_in_rounds() -> gpujit::Result<()> {
    let blocks = 3usize;
    for n in [0usize, 300, 4097, 3 * 256 * 9 + 100] {
        let pixels: Vec<u8> = (0..n).map(|i| ((i * 37 + i / 3) % 256) as u8).collect();
        let skip = [0u32, 5, 300];
        let mut want = vec![0u32; BINS];
        for (b, &k) in skip.iter().enumerate() {
            for t in 0..BINS {
                for i in (k as usize + b * BINS + t..n).step_by(blocks * BINS) {
                    want[pixels[i] as usize] += 1;
                }
            }
        }
        for reassigned in [false, true] {
            let what = format!("n = {n}, reassigned {reassigned}");
            let (fast, paths, coro) = common::on_both_paths(Expect::split().named(&what), || {
                let (d, ds) = (to_device(&pixels)?, to_device(&skip)?);
                let mut h = zeros::<u32>(BINS)?;
                if reassigned {
                    walk_from_reassigned![blocks, BINS](&d, &ds, &mut h)?;
                } else {
                    walk_from_local![blocks, BINS](&d, &ds, &mut h)?;
                }
                h.copy_to_host()
            });
            assert_eq!(fast?, want, "{what}");
            assert_eq!(coro?, want, "{what}");
            assert_eq!(
                paths.lockstep_blocks,
                common::expected(blocks),
                "{what}: lockstep blocks"
            );
        }
    }
    Ok(())
}
