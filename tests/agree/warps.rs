//! `lane_id()` and `warp_size()` in the emitted C (the shim's `warpSize`)
//! against the CPU backend, for 1-, 2- and 3-D blocks with full and partial
//! warps.

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
