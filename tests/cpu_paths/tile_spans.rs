//! Block spans for tile loads (issue #7): in a kernel split at its
//! barriers, a part that indexes a global array at `threadIdx` plus a value
//! the same in every thread of the block (`a[[row, t * TILE + tx]]`, with
//! `t` the variable of the loop around the barriers; through a `let` or
//! inline) runs unchecked in the blocks and tile steps where one range check
//! covers every thread, and checked elsewhere (edge blocks, the last tile
//! step past `k`). Each kernel runs on the split path, with the number of
//! thread loops on spans checked (so that the fast path cannot silently
//! stop being taken), and on the reference path (`with_forced_coroutines`);
//! both must equal a host reference bit for bit, faults included.
//!
//! `forbid(unsafe_code)`: the generated code must not need `unsafe`.

#![forbid(unsafe_code)]

use gpujit::prelude::*;
use gpujit::{to_device, Error};
use ndarray::Array2;

use crate::common;
use common::Expect;

/// examples/matmul.rs, whose tiled kernel is tested here.
use crate::matmul;
use matmul::{matmul_tiled, TILE};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let cpu = Some(common::Tool::CpuBackend);
    cases![
        cpu => tiled_matmul_tile_loads_run_on_spans_for_any_shape,
        cpu => tile_loads_on_spans_for_every_block_shape,
        cpu => a_tile_step_past_the_array_faults_as_on_the_reference_path,
        cpu => a_per_thread_offset_stays_checked_and_exact,
    ]
}

fn bits(a: &Array2<f32>) -> Vec<u32> {
    a.iter().map(|v| v.to_bits()).collect()
}

/// Thread loops on spans for a launch of `grid` blocks of `block` threads
/// over an `n × m` result: in each block that lies inside it, `steps` tile
/// loads plus the store of the result.
fn span_loops(grid: (usize, usize), block: (usize, usize), (n, m): (usize, usize), steps: usize) -> usize {
    let full_x = (0..grid.0).filter(|bx| (bx + 1) * block.0 <= m).count();
    let full_y = (0..grid.1).filter(|by| (by + 1) * block.1 <= n).count();
    full_x * full_y * (steps + 1)
}

fn run_tiled(a: &Array2<f32>, b: &Array2<f32>) -> gpujit::Result<Array2<f32>> {
    let (da, db) = (to_device(a)?, to_device(b)?);
    let (n, m) = (a.dim().0, b.dim().1);
    let mut dc = gpujit::device_array::<f32>((n, m))?;
    matmul_tiled![(m.div_ceil(TILE), n.div_ceil(TILE)), (TILE, TILE)](&da, &db, &mut dc)?;
    Ok(Array2::from_shape_vec((n, m), dc.copy_to_host()?).expect("shape"))
}

fn tiled_matmul_tile_loads_run_on_spans_for_any_shape() -> gpujit::Result<()> {
    // Square and not, edges that are and are not multiples of TILE (the
    // guards zero the rest), `k` below one tile.
    for (n, k, m) in [(64, 48, 32), (37, 50, 23), (20, 37, 5), (48, 16, 40), (33, 9, 17)] {
        let what = format!("{n}x{k}x{m}");
        let (a, b) = (common::matrix(n, k, 1), common::matrix(k, m, 2));
        let want = bits(&common::host_matmul(&a, &b, |_, _| a.dim().1));
        let grid = (m.div_ceil(TILE), n.div_ceil(TILE));
        // A tile step runs on spans when its `TILE` columns of `a` (rows of
        // `b`) are inside: the first `k / TILE` ones.
        let loops = span_loops(grid, (TILE, TILE), (n, m), k / TILE);
        let (fast, _, reference) = common::on_both_paths(Expect::span_loops(loops).named(&what), || run_tiled(&a, &b));
        assert_eq!(bits(&fast?), want, "{what}");
        assert_eq!(bits(&reference?), want, "{what}, reference path");
    }
    Ok(())
}

/// Per element, the sum of row `row` of `a` times the sum of column `col`
/// of `b`, both through 32×32 tiles whose width is the block's: the load of
/// `a` through a `let` (`threadIdx.x` plus `t * blockDim.x`), the load of
/// `b` inline (`threadIdx.y` plus `t * blockDim.y`). Any block of at least
/// 8×8 and at most 32×32 threads.
#[gpu_kernel]
fn sums_product(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; 32]; 32]>();
    let sb = shared_array::<[[f32; 32]; 32]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut ra = 0.0;
    let mut cb = 0.0;
    for t in 0..(k + 7) / 8 {
        let ka = t * block_dim().x + tx;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if t * block_dim().y + ty < k && col < m {
            b[[t * block_dim().y + ty, col]]
        } else {
            0.0
        };
        syncthreads();
        for j in 0..block_dim().x {
            ra += sa[ty][j];
        }
        for j in 0..block_dim().y {
            cb += sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = ra * cb;
    }
}

fn tile_loads_on_spans_for_every_block_shape() -> gpujit::Result<()> {
    for (n, k, m) in [(40, 70, 50), (64, 64, 64), (9, 100, 30)] {
        let (a, b) = (common::matrix(n, k, 3), common::matrix(k, m, 4));
        let row_sum = |r: usize| (0..k).fold(0.0f32, |s, i| s + a[[r, i]]);
        let col_sum = |c: usize| (0..k).fold(0.0f32, |s, i| s + b[[i, c]]);
        let want = bits(&Array2::from_shape_fn((n, m), |(r, c)| row_sum(r) * col_sum(c)));
        let (da, db) = (to_device(&a)?, to_device(&b)?);
        for block in [(8, 32), (32, 8), (16, 16), (8, 8), (24, 12)] {
            let what = format!("{n}x{k}x{m}, block {block:?}");
            let grid = (m.div_ceil(block.0), n.div_ceil(block.1));
            // Both tiles inside `k` at step `t`: `(t + 1) * max(bx, by) <= k`.
            let loops = span_loops(grid, block, (n, m), k / block.0.max(block.1));
            let run = || -> gpujit::Result<Vec<u32>> {
                let mut dc = gpujit::device_array::<f32>((n, m))?;
                sums_product![grid, block](&da, &db, &mut dc)?;
                Ok(dc.copy_to_host()?.iter().map(|v| v.to_bits()).collect())
            };
            let (fast, _, reference) = common::on_both_paths(Expect::span_loops(loops).named(&what), run);
            assert_eq!(fast?, want, "{what}");
            assert_eq!(reference?, want, "{what}, reference path");
        }
    }
    Ok(())
}

/// Row sums through 16-wide tiles with no guard: the last tile step reads
/// past the end of a row when `k` is not a multiple of 16.
#[gpu_kernel]
fn unguarded_row_sums(a: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let s = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let k = a.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + TILE - 1) / TILE {
        s[ty][tx] = a[[row, t * TILE + tx]];
        syncthreads();
        for j in 0..TILE {
            acc += s[ty][j];
        }
        syncthreads();
    }
    c[[row, col]] = acc;
}

fn run_row_sums(a: &Array2<f32>) -> gpujit::Result<Vec<f32>> {
    let da = to_device(a)?;
    let mut dc = gpujit::device_array::<f32>((TILE, TILE))?;
    unguarded_row_sums![(1, 1), (TILE, TILE)](&da, &mut dc)?;
    dc.copy_to_host()
}

fn a_tile_step_past_the_array_faults_as_on_the_reference_path() -> gpujit::Result<()> {
    // k = 20: step 0 runs on spans, step 1 (columns 16..32) does not fit and
    // runs checked, where thread (4, 0) reads `a[[0, 20]]` first (a faulting
    // thread goes on running: the final store runs on spans too).
    let a = common::matrix(TILE, 20, 5);
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(2).named("k = 20"), || run_row_sums(&a));
    for (r, path) in [(fast, "split"), (reference, "reference")] {
        match r {
            Err(Error::KernelFault {
                block, thread, message, ..
            }) => {
                assert_eq!((block, thread), ([0, 0, 0], [4, 0, 0]), "{path}: {message}");
                assert!(message.contains("out of bounds"), "{path}: {message}");
                assert!(message.contains("[0, 20]"), "{path}: {message}");
            }
            other => panic!("{path}: expected a kernel fault, got {other:?}"),
        }
    }
    // k = 32: both steps and the store on spans, no fault.
    let a = common::matrix(TILE, 32, 6);
    let want: Vec<u32> = (0..TILE * TILE)
        .map(|i| (0..32).fold(0.0f32, |s, j| s + a[[i / TILE, j]]).to_bits())
        .collect();
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(3).named("k = 32"), || run_row_sums(&a));
    let as_bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(as_bits(fast?), want);
    assert_eq!(as_bits(reference?), want);
    Ok(())
}

/// A skewed tile: `a[[row, t * TILE + tx + ty]]` (and `b` at a column
/// offset by `row % 2`) is not `threadIdx` plus a block-uniform value, so
/// those loads stay checked (only the final store runs on spans).
#[gpu_kernel]
fn skewed(a: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let s = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = c.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + TILE - 1) / TILE {
        let ka = t * TILE + tx + ty;
        let kr = t * TILE + tx + row % 2;
        s[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        if row < n && kr < k {
            s[ty][tx] += a[[row, kr]];
        }
        syncthreads();
        for j in 0..TILE {
            acc += s[ty][j];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

fn a_per_thread_offset_stays_checked_and_exact() -> gpujit::Result<()> {
    let (n, k, m) = (35, 40, 32);
    let a = common::matrix(n, k, 7);
    let at = |r: usize, i: usize| if i < k { a[[r, i]] } else { 0.0 };
    let want: Vec<u32> = (0..n * m)
        .map(|e| {
            let r = e / m;
            let ty = r % TILE;
            let mut acc = 0.0f32;
            for t in 0..k.div_ceil(TILE) {
                for j in 0..TILE {
                    acc += at(r, t * TILE + j + ty) + at(r, t * TILE + j + r % 2);
                }
            }
            acc.to_bits()
        })
        .collect();
    let grid = (m.div_ceil(TILE), n.div_ceil(TILE));
    let loops = span_loops(grid, (TILE, TILE), (n, m), 0);
    let run = || -> gpujit::Result<Vec<u32>> {
        let da = to_device(&a)?;
        let mut dc = gpujit::device_array::<f32>((n, m))?;
        skewed![grid, (TILE, TILE)](&da, &mut dc)?;
        Ok(dc.copy_to_host()?.iter().map(|v| v.to_bits()).collect())
    };
    let (fast, _, reference) = common::on_both_paths(Expect::span_loops(loops).named("skewed"), run);
    assert_eq!(fast?, want);
    assert_eq!(reference?, want);
    Ok(())
}
