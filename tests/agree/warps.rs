//! `lane_id()` and `warp_size()` in the emitted C (the shim's `warpSize`)
//! against the CPU backend, for 1-, 2- and 3-D blocks with full and partial
//! warps; the warp intrinsics in the emitted C (the shim's meeting of a
//! warp's lanes, `driver-double/shim.h`) against the CPU backend's
//! coroutine scheduler, on full and partial warps with masks of every shape.

use super::*;

use crate::kernels::warps::*;

pub(crate) fn lanes_agree() {
    let mut cases: Vec<Case> = Vec::new();
    let grid = (2u32, 3u32, 1u32);
    for block in [
        (32u32, 1u32, 1u32),
        (40, 1, 1),
        (5, 3, 2),
        (7, 7, 1),
        (16, 4, 2),
        (1, 1, 64),
    ] {
        let shape = [
            (grid.2 * block.2) as usize,
            (grid.1 * block.1) as usize,
            (grid.0 * block.0) as usize,
        ];
        cases.push((&lanes_plain::KERNEL, grid, block, vec![z::<u32>(&shape)], EXACT));
        cases.push((&lanes_split::KERNEL, grid, block, vec![z::<u32>(&shape)], EXACT));
    }
    for threads in [48u32, 100, 256] {
        let n = 3 * threads as usize - 5;
        cases.push((
            &first_warp::KERNEL,
            lin(3),
            (threads, 1, 1),
            vec![z::<u32>(&[n])],
            EXACT,
        ));
        let n = 7 * threads as usize + 3;
        cases.push((
            &lanes_strided::KERNEL,
            lin(2),
            (threads, 1, 1),
            vec![z::<u32>(&[n])],
            EXACT,
        ));
    }
    check(cases);
}

pub(crate) fn warp_intrinsics_agree() {
    let mut cases: Vec<Case> = Vec::new();
    for (blocks, block) in [(2usize, 32usize), (3, 48), (2, 100)] {
        let n = blocks * block;
        let warps = blocks * block.div_ceil(32);
        for shape in 0..4u32 {
            let mask: Vec<u32> = (0..warps as u32)
                .map(|w| match shape {
                    0 => u32::MAX,
                    1 => 0x5555_5555 << (w % 2),
                    2 => 1 << (w * 5 % 32),
                    _ => 0xdead_beef ^ w.wrapping_mul(0x9e37_79b9),
                })
                .collect();
            let args = valid_shuffle_args(n, block, &mask, 3 + shape as u64);
            let x32: Vec<f32> = (0..n).map(|i| i as f32 * 1.25 - 3.0).collect();
            let x64: Vec<i64> = (0..n as i64).map(|i| i * -977 + (1 << 35)).collect();
            let xu: Vec<usize> = (0..n).map(|i| i * 31 + 7).collect();
            let p: Vec<u32> = (0..n as u32).map(|i| (i * 5 + i / 3) % 4).collect();
            let launch = (lin(blocks as u32), lin(block as u32));
            let arg = a(&[4, n], &args);
            cases.push((
                &shuffles_f32::KERNEL,
                launch.0,
                launch.1,
                vec![v(&x32), arg.clone(), v(&mask), z::<f32>(&[4, n])],
                EXACT,
            ));
            cases.push((
                &shuffles_i64::KERNEL,
                launch.0,
                launch.1,
                vec![v(&x64), arg.clone(), v(&mask), z::<i64>(&[4, n])],
                EXACT,
            ));
            cases.push((
                &shuffles_usize::KERNEL,
                launch.0,
                launch.1,
                vec![v(&xu), arg, v(&mask), z::<usize>(&[4, n])],
                EXACT,
            ));
            cases.push((
                &warp_votes::KERNEL,
                launch.0,
                launch.1,
                vec![v(&p), v(&mask), z::<u32>(&[7, n])],
                EXACT,
            ));
        }
    }
    let x: Vec<f32> = (0..1019).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
    cases.push((
        &block_sum_shfl::KERNEL,
        lin(4),
        lin(256),
        vec![v(&x), z::<f32>(&[4])],
        EXACT,
    ));
    let x: Vec<i64> = (0..96).map(|i| i * i - 1000).collect();
    cases.push((
        &warp_sums_in_callee::KERNEL,
        ONE,
        lin(96),
        vec![v(&x), z::<i64>(&[96])],
        EXACT,
    ));
    let x: Vec<f64> = (0..64).map(|i| [0.0, -0.0, f64::NAN, 1.5][i % 4]).collect();
    cases.push((&match_f64::KERNEL, ONE, lin(64), vec![v(&x), z::<u32>(&[64])], EXACT));
    check(cases);
}

/// The warp- and block-wide reductions and scans in the emitted C against
/// the CPU backend, bit for bit: float sums whose order matters, a NaN
/// among the minima and maxima, every block shape of the language test.
pub(crate) fn collectives_agree() {
    use crate::kernels::collectives::*;
    let mut cases: Vec<Case> = Vec::new();
    for block in SHAPES {
        let threads = (block.0 * block.1 * block.2) as usize;
        let n = 2 * threads;
        let rows = [ROWS.len(), n];
        let x32: Vec<f32> = (0..n)
            .map(|i| {
                if i == 40 {
                    f32::NAN
                } else {
                    ((i * 7919) % 1013) as f32 / 97.0 - 5.0
                }
            })
            .collect();
        let x64: Vec<f64> = (0..n).map(|i| ((i * 6007) % 1009) as f64 / 89.0 - 5.0).collect();
        let xi: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(-1_640_531_527)).collect();
        let xu: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        cases.push((
            &collectives_f32::KERNEL,
            lin(2),
            block,
            vec![v(&x32), z::<f32>(&rows)],
            EXACT,
        ));
        cases.push((
            &collectives_f64::KERNEL,
            lin(2),
            block,
            vec![v(&x64), z::<f64>(&rows)],
            EXACT,
        ));
        cases.push((
            &collectives_i32::KERNEL,
            lin(2),
            block,
            vec![v(&xi), z::<i32>(&rows)],
            EXACT,
        ));
        cases.push((
            &collectives_u64::KERNEL,
            lin(2),
            block,
            vec![v(&xu), z::<u64>(&rows)],
            EXACT,
        ));
    }
    check(cases);
}
