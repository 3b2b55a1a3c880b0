//! Shared memory, barriers, block votes and local and constant arrays agree
//! between the CUDA C and the CPU backend.

use super::*;

pub(crate) fn shared_memory_and_barriers_agree() {
    let xs: Vec<i64> = (0..600).map(|i| (i * 37 % 101) - 50).collect();
    let fs: Vec<f32> = (0..600).map(|i| ((i * 13) % 17) as f32 * 0.25).collect();
    let m: Vec<f32> = (0..20 * 37).map(|i| ((i * 7) % 23) as f32 - 11.0).collect();
    check(vec![
        (
            &block_sum_i64::KERNEL,
            lin(3),
            (256, 1, 1),
            vec![v(&xs), z::<i64>(&[3])],
            EXACT,
        ),
        (
            &block_sum_f32::KERNEL,
            lin(3),
            (256, 1, 1),
            vec![v(&fs), z::<f32>(&[3])],
            EXACT,
        ),
        (
            &transpose::KERNEL,
            (3, 2, 1),
            (16, 16, 1),
            vec![a(&[20, 37], &m), z::<f32>(&[37, 20])],
            EXACT,
        ),
        (
            &votes::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&votes_input()), z::<u32>(&[192])],
            EXACT,
        ),
        (
            &votes_nested::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&votes_input()), z::<u32>(&[192])],
            EXACT,
        ),
    ]);
}

/// Local arrays (each element type, 1-3-D, across a barrier, in device
/// functions) and `__constant__` arrays (exact values, 1-3-D).
pub(crate) fn local_and_const_arrays_agree() {
    use kernels::fixed_arrays::*;
    let n = 70;
    let f32s: Vec<f32> = (0..n).map(|i| i as f32 / 7.0 - 3.0).collect();
    let f64s: Vec<f64> = (0..n).map(|i| i as f64 / 7.0 - 3.0).collect();
    let i32s: Vec<i32> = (0..n as i32).map(|i| i * -1000 + 5).collect();
    let u8s: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
    let xi: Vec<i32> = (0..36).map(|v| v * v % 17 - 8).collect();
    let mut cases: Vec<Case> = vec![
        (
            &local_u8::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[4 * n])],
            EXACT,
        ),
        (
            &local_i32::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&i32s), z::<i32>(&[4 * n])],
            EXACT,
        ),
        (
            &local_f32::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[4 * n])],
            EXACT,
        ),
        (
            &local_f64::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f64s), z::<f64>(&[4 * n])],
            EXACT,
        ),
        (
            &local_bool::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[3 * n])],
            EXACT,
        ),
        (
            &local_computed_lists::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[n]), z::<i64>(&[n]), z::<f32>(&[n])],
            EXACT,
        ),
        (
            &local_inferred::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[n]), z::<u64>(&[n])],
            EXACT,
        ),
        (
            &local_2d::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&i32s), z::<i32>(&[n * 12])],
            EXACT,
        ),
        (
            &local_3d::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f64s), z::<f64>(&[n * 12])],
            EXACT,
        ),
        (
            &local_across_barrier::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&f32s[..64].repeat(2)), z::<f32>(&[128])],
            EXACT,
        ),
        (
            &local_between_barriers::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&f32s[..64].repeat(2)), z::<f32>(&[128])],
            EXACT,
        ),
        (
            &device_arrays::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), v(&xi), s(6usize), z::<f32>(&[n]), z::<i32>(&[16])],
            EXACT,
        ),
        (
            &conv_filter::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[n])],
            EXACT,
        ),
        (
            &const_copies::KERNEL,
            lin(1),
            (32, 1, 1),
            vec![
                z::<f64>(&[8]),
                z::<f32>(&[6]),
                z::<u64>(&[3]),
                z::<i64>(&[3]),
                z::<u32>(&[24]),
            ],
            EXACT,
        ),
        (
            &const_narrow::KERNEL,
            lin(1),
            (32, 1, 1),
            vec![z::<i8>(&[16]), z::<i16>(&[16]), z::<u16>(&[16]), z::<i64>(&[7])],
            EXACT,
        ),
    ];
    // In range on both sides (out of range is undefined in CUDA C).
    cases.push((
        &local_oob::KERNEL,
        lin(2),
        (32, 1, 1),
        vec![s(3usize), z::<f32>(&[64])],
        EXACT,
    ));
    cases.push((
        &const_oob::KERNEL,
        lin(2),
        (32, 1, 1),
        vec![s(4usize), z::<f32>(&[64])],
        EXACT,
    ));
    check(cases);
}

/// 3 blocks of 64: block 1 has no zero and none >= 100; block 2 all zero.
pub(crate) fn votes_input() -> Vec<i32> {
    (0..192)
        .map(|i| match i / 64 {
            0 => (i * 37 % 211) - 60,
            1 => 1 + i % 90,
            _ => 0,
        })
        .collect()
}
