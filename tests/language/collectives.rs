//! The warp- and block-wide reductions and scans (issue #21's library
//! functions) on the backend of the process: every one of them, for every
//! value type, on full and partial warps and blocks of every shape, against
//! a host model (`kernels::collectives`); a stream compaction with a block
//! scan; a warp sum in a device function.

use crate::common;
use crate::kernels::collectives::*;

use gpujit::{to_device, zeros};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let any = None;
    cases![
        any => every_collective_of_every_type_matches_the_host_model,
        any => a_block_scan_compacts_each_block,
        any => a_device_function_sums_its_warp,
    ]
}

/// Runs `kernel` on `x` in 3 blocks of `block` and checks every row.
macro_rules! check_type {
    ($kernel:ident, $t:ty, $x:expr) => {
        for block in SHAPES {
            let threads = (block.0 * block.1 * block.2) as usize;
            let n = 3 * threads;
            let x: Vec<$t> = (0..n).map($x).collect();
            let mut out = zeros::<$t>((ROWS.len(), n)).unwrap();
            $kernel![3, block](&to_device(&x).unwrap(), &mut out).unwrap();
            let got = out.copy_to_host().unwrap();
            let want = want_collectives(&x, threads);
            for (row, name) in ROWS.iter().enumerate() {
                let r = row * n..(row + 1) * n;
                assert_eq!(
                    got[r.clone()],
                    want[r],
                    "{name} of {} in blocks of {block:?}",
                    stringify!($t)
                );
            }
        }
    };
}

fn every_collective_of_every_type_matches_the_host_model() {
    check_type!(collectives_i32, i32, |i| (i as i32 * 7919) % 1000 - 500);
    // Large values, so that the sums wrap.
    check_type!(collectives_u32, u32, |i| (i as u32).wrapping_mul(2_654_435_761));
    check_type!(collectives_i64, i64, |i| (i as i64 * 7919) % 1001 - (1 << 40));
    check_type!(collectives_u64, u64, |i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    check_type!(collectives_usize, usize, |i| (i * 31 + 7) % 977);
    // Halves of small integers: every partial sum is exact, in any order.
    check_type!(collectives_f32, f32, |i| ((i * 37) % 101) as f32 * 0.5 - 25.0);
    check_type!(collectives_f64, f64, |i| ((i * 53) % 211) as f64 * 0.25 - 26.0);
}

fn a_block_scan_compacts_each_block() {
    let (blocks, threads) = (5usize, 96usize);
    let n = blocks * threads - 17;
    let x: Vec<f32> = (0..n)
        .map(|i| if i % 7 < 3 { i as f32 } else { -(i as f32) - 1.0 })
        .collect();
    let mut out = zeros::<f32>(blocks * threads).unwrap();
    let mut kept = zeros::<u32>(blocks).unwrap();
    let mut sums = zeros::<f32>(blocks).unwrap();
    compact_blocks![blocks, threads](&to_device(&x).unwrap(), &mut out, &mut kept, &mut sums).unwrap();
    let (out, kept, sums) = (
        out.copy_to_host().unwrap(),
        kept.copy_to_host().unwrap(),
        sums.copy_to_host().unwrap(),
    );
    for b in 0..blocks {
        let part = &x[b * threads..Ord::min((b + 1) * threads, n)];
        let want: Vec<f32> = part.iter().copied().filter(|&v| v > 0.0).collect();
        assert_eq!(kept[b] as usize, want.len(), "block {b}'s count");
        assert_eq!(
            &out[b * threads..b * threads + want.len()],
            &want[..],
            "block {b}'s kept values"
        );
        assert_eq!(sums[b], part.iter().sum::<f32>(), "block {b}'s sum");
    }
}

fn a_device_function_sums_its_warp() {
    let n = 80;
    let x: Vec<i64> = (0..n as i64).map(|i| i * i - 300).collect();
    let mut out = zeros::<i64>(n).unwrap();
    others_in_callee![2, 40](&to_device(&x).unwrap(), &mut out).unwrap();
    let out = out.copy_to_host().unwrap();
    for (i, &got) in out.iter().enumerate() {
        let (b, t) = (i / 40, i % 40);
        let w = b * 40 + t / 32 * 32;
        let end = Ord::min(w + 32, b * 40 + 40);
        let want: i64 = x[w..end].iter().sum::<i64>() - x[i];
        assert_eq!(got, want, "thread {i}");
    }
}
