//! The kernel list, 64-bit index math (`grid`, `gridsize`, the index
//! fields) and 3-D arrays' indices and shapes.

use super::*;

pub(crate) fn all_lists_every_kernel_once_with_its_cuda_entry() {
    let ks = all();
    let mut names: Vec<&str> = ks.iter().map(|k| k.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "duplicate kernels in all()");
    for k in ks {
        let src = (k.cuda_source)();
        let entry = format!("extern \"C\" __global__ void {}(", k.entry);
        assert!(src.contains(&entry), "{}: no `{entry}` in\n{src}", k.name);
    }
}

pub(crate) fn grid1_is_computed_in_64_bits() {
    // The emitted C widens before multiplying, so block 8,388,608 × 256 + 255
    // gives 2,147,483,903 rather than wrapping at 2^31 / 2^32.
    let src = global_index::cuda_source();
    assert!(
        src.contains("(unsigned long long)blockIdx.x * blockDim.x"),
        "grid(1) not widened before the multiply:\n{src}"
    );
    // `block_idx().x * block_dim().x` written by hand is widened too.
    assert!(
        src.contains("((unsigned long long)blockIdx.x) * ((unsigned long long)blockDim.x)"),
        "{src}"
    );

    // Small grid, odd size: grid(1) and the manual formula agree with i.
    let n = 3 * 256 + 17;
    let mut out = zeros::<u64>(n).unwrap();
    let mut manual = zeros::<u64>(n).unwrap();
    global_index![n.div_ceil(256), 256](&mut out, &mut manual).unwrap();
    let want: Vec<u64> = (0..n as u64).collect();
    assert_eq!(host(&out), want);
    assert_eq!(host(&manual), want);

    // The same index arithmetic on usize scalars (block 8,388,608, 256
    // threads, thread 255) is 64-bit on the CPU backend, and usize is
    // `unsigned long long` in the C.
    let mut r = zeros::<u64>(1).unwrap();
    usize_index_math![1, 1](8_388_608, 256, 255, &mut r).unwrap();
    assert_eq!(host(&r), [8_388_608u64 * 256 + 255]);
    assert_eq!(host(&r), [2_147_483_903]);
    usize_index_math![1, 1](1 << 33, 1024, 1023, &mut r).unwrap();
    assert_eq!(host(&r), [(1u64 << 33) * 1024 + 1023]);
    assert!(
        usize_index_math::cuda_source().contains("unsigned long long b, unsigned long long d, unsigned long long t")
    );
}

pub(crate) fn grid3_gridsize3_and_index_fields() {
    let grid = (3usize, 2usize, 2usize);
    let block = (4usize, 3usize, 2usize);
    let (nx, ny, nz) = (grid.0 * block.0, grid.1 * block.1, grid.2 * block.2);
    let mut info = zeros::<u64>(nx * ny * nz * 18).unwrap();
    coords3![grid, block](&mut info).unwrap();
    let got = host(&info);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let lin = (z * ny + y) * nx + x;
                let want = [
                    x,
                    y,
                    z,
                    nx,
                    ny,
                    nz,
                    x % block.0,
                    y % block.1,
                    z % block.2,
                    x / block.0,
                    y / block.1,
                    z / block.2,
                    block.0,
                    block.1,
                    block.2,
                    grid.0,
                    grid.1,
                    grid.2,
                ]
                .map(|v| v as u64);
                assert_eq!(&got[lin * 18..lin * 18 + 18], &want, "thread ({x}, {y}, {z})");
            }
        }
    }
}

pub(crate) fn grid2_tuple_and_gridsize2() {
    let (rows, cols) = (23usize, 37usize);
    let mut out = zeros::<u32>((rows, cols)).unwrap();
    let mut sizes = zeros::<u32>(3).unwrap();
    let grid = (cols.div_ceil(8), rows.div_ceil(4));
    coords2![grid, (8, 4)](&mut out, &mut sizes).unwrap();
    let got = host(&out);
    for y in 0..rows {
        for x in 0..cols {
            assert_eq!(got[y * cols + x], (y * 1000 + x) as u32, "({y}, {x})");
        }
    }
    assert_eq!(
        host(&sizes),
        [(grid.0 * 8) as u32, (grid.1 * 4) as u32, (grid.0 * 8) as u32]
    );
}

pub(crate) fn three_d_arrays_index_dim_shape_len() {
    let (d0, d1, d2) = (3usize, 5usize, 7usize);
    let a = ndarray::Array3::<f32>::from_shape_fn((d0, d1, d2), |(i, j, k)| (i * 7 + j * 3 + k) as f32 * 0.25 - 2.0);
    let da = to_device(&a).unwrap();
    let mut db = zeros::<f32>((d0, d1, d2)).unwrap();
    let mut sizes = zeros::<u64>(9).unwrap();
    arrays3d![(2, 2, 2), (4, 4, 2)](&da, &mut db, &mut sizes).unwrap();
    let b: ndarray::Array3<f32> = db.copy_to_ndarray().unwrap();
    for ((i, j, k), &v) in b.indexed_iter() {
        assert_eq!(v, 2.0 * a[[i, j, k]] + (100 * i + 10 * j + k) as f32, "[{i}, {j}, {k}]");
    }
    let n = (d0 * d1 * d2) as u64;
    assert_eq!(host(&sizes), [3, 5, 7, 3, 5, 7, n, n, 7]);
}
