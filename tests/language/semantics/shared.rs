//! Shared memory and barriers: a block reduction, a 2-D tile transpose and
//! a 3-D shared array.

use super::*;

pub(crate) fn block_reduction_with_shared_memory_and_barriers() {
    // 5 blocks of 256 threads; the last one is partly outside the data.
    let n: usize = 4 * 256 + 77;
    let blocks = n.div_ceil(RED_THREADS);
    let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 400 + (i << 20)).collect();
    let mut partial = zeros::<i64>(blocks).unwrap();
    block_sum_i64![blocks, RED_THREADS](&dev(&x), &mut partial).unwrap();
    let want: Vec<i64> = x.chunks(RED_THREADS).map(|c| c.iter().sum()).collect();
    assert_eq!(host(&partial), want);

    // f32 with integer values below 2^24: exact in any order.
    let xf: Vec<f32> = (0..n).map(|i| ((i * 31) % 97) as f32 - 40.0).collect();
    let mut partial = zeros::<f32>(blocks).unwrap();
    block_sum_f32![blocks, RED_THREADS](&dev(&xf), &mut partial).unwrap();
    let want: Vec<f32> = xf.chunks(RED_THREADS).map(|c| c.iter().sum()).collect();
    assert_eq!(host(&partial), want);

    let src = block_sum_i64::cuda_source();
    assert!(src.contains("__shared__ long long cache[RED_THREADS];"), "{src}");
    assert!(src.matches("__syncthreads();").count() >= 2, "{src}");
}

pub(crate) fn two_d_shared_tile_transpose() {
    for (rows, cols) in [(37usize, 21usize), (16, 16), (1, 33), (40, 1)] {
        let a = ndarray::Array2::<f32>::from_shape_fn((rows, cols), |(i, j)| (i * 1000 + j) as f32);
        let mut out = zeros::<f32>((cols, rows)).unwrap();
        let grid = (cols.div_ceil(TR_TILE), rows.div_ceil(TR_TILE));
        transpose![grid, (TR_TILE, TR_TILE)](&to_device(&a).unwrap(), &mut out).unwrap();
        let got: ndarray::Array2<f32> = out.copy_to_ndarray().unwrap();
        assert_eq!(got, a.t(), "{rows} x {cols}");
    }
    assert!(transpose::cuda_source().contains("__shared__ float tile[TR_TILE][(TR_TILE + 1ull)];"));
}

pub(crate) fn three_d_shared_array_sees_other_threads_writes() {
    let blocks = 3;
    let mut out = zeros::<u32>(blocks * 64).unwrap();
    mirror3d![blocks, (4, 4, 4)](&mut out).unwrap();
    let got = host(&out);
    for b in 0..blocks {
        for z in 0..4 {
            for y in 0..4 {
                for x in 0..4 {
                    let lin = (z * 4 + y) * 4 + x;
                    let mirror = ((3 - z) * 4 + (3 - y)) * 4 + (3 - x);
                    assert_eq!(
                        got[b * 64 + lin],
                        (mirror + 1000 * b) as u32,
                        "block {b} thread ({x}, {y}, {z})"
                    );
                }
            }
        }
    }
    assert!(mirror3d::cuda_source().contains("__shared__ unsigned int s[4][4][4];"));
}
