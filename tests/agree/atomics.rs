//! Atomics and fences, uncontended (each old value checked) and contended
//! (the final values).

use super::*;

/// Arguments of `uncontended_T` for 12 threads: `a` holds edge values, `b`
/// the operands (another rotation), `c` the compare values of `atomic_cas`
/// (equal to the old value for every other thread).
macro_rules! uncontended_args {
    ($t:ty, $slots:expr) => {{
        let n = EDGE_INTS.len();
        let a: Vec<$t> = (0..n * $slots).map(|k| EDGE_INTS[k % n] as $t).collect();
        let b: Vec<$t> = (0..n).map(|i| EDGE_INTS[(i * 5 + 3) % n] as $t).collect();
        let c: Vec<$t> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    a[i * $slots + 5]
                } else {
                    EDGE_INTS[(i + 1) % n] as $t
                }
            })
            .collect();
        vec![v(&a), v(&b), v(&c), z::<$t>(&[n * $slots])]
    }};
}

/// Arguments of `contended_T`: 300 operands, each order-independent result
/// starting from a value the operands change.
macro_rules! contended_args {
    ($t:ty) => {{
        let b: Vec<$t> = (0..300)
            .map(|i| EDGE_INTS[i % 12].wrapping_mul(i as i128 + 1) as $t)
            .collect();
        let a: Vec<$t> = vec![
            3 as $t,
            5 as $t,
            0 as $t,
            0 as $t,
            !(0 as $t),
            0 as $t,
            0 as $t,
            999 as $t,
            5 as $t,
        ];
        vec![v(&a), v(&b)]
    }};
}

pub(crate) fn atomics_and_fences_agree() {
    use kernels::atomics::*;
    let floats32: Vec<f32> = vec![
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        -f32::MIN_POSITIVE / 2.0,
        1e30,
        f32::MAX,
        3.0,
    ];
    let floats64: Vec<f64> = floats32
        .iter()
        .map(|&x| x as f64)
        .chain([f64::MIN_POSITIVE / 8.0])
        .collect();
    let rot = |n: usize, k: usize| (k * 7 + 2) % n;
    let fa32: Vec<f32> = (0..12 * FLOAT_SLOTS).map(|k| floats32[k % 12]).collect();
    let fb32: Vec<f32> = (0..12).map(|i| floats32[rot(12, i)]).collect();
    let fa64: Vec<f64> = (0..13 * FLOAT_SLOTS).map(|k| floats64[k % 13]).collect();
    let fb64: Vec<f64> = (0..13).map(|i| floats64[rot(13, i)]).collect();
    // Small integers and halves: sums are exact in any order; no zeros (a
    // `-0.0`/`0.0` tie in min/max keeps whichever came first).
    let fc32: Vec<f32> = (0..300).map(|i| ((i * 37 % 101) as f32 - 50.5) * 0.5).collect();
    let fc64: Vec<f64> = fc32.iter().map(|&x| x as f64 * 4.0).collect();
    let bytes: Vec<u32> = (0..5000u32).map(|i| (i * i * 31 + i / 7) % 256).collect();
    let grid_vals: Vec<i64> = (0..24 * 20).map(|i| (i * 7919 % 1000) as i64 - 500).collect();
    check(vec![
        (
            &uncontended_i32::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(i32, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_u32::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(u32, U32_SLOTS),
            EXACT,
        ),
        (
            &uncontended_i64::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(i64, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_u64::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(u64, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_usize::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(usize, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_f32::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![v(&fa32), v(&fb32), z::<f32>(&[fa32.len()])],
            EXACT,
        ),
        (
            &uncontended_f64::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![v(&fa64), v(&fb64), z::<f64>(&[fa64.len()])],
            EXACT,
        ),
        (&contended_i32::KERNEL, lin(3), (128, 1, 1), contended_args!(i32), EXACT),
        (&contended_u32::KERNEL, lin(3), (128, 1, 1), contended_args!(u32), EXACT),
        (&contended_i64::KERNEL, lin(3), (128, 1, 1), contended_args!(i64), EXACT),
        (&contended_u64::KERNEL, lin(3), (128, 1, 1), contended_args!(u64), EXACT),
        (
            &contended_usize::KERNEL,
            lin(3),
            (128, 1, 1),
            contended_args!(usize),
            EXACT,
        ),
        (
            &contended_f32::KERNEL,
            lin(3),
            (128, 1, 1),
            vec![v(&[0.5f32, 1.0, 1e9, -1e9]), v(&fc32)],
            EXACT,
        ),
        (
            &contended_f64::KERNEL,
            lin(3),
            (128, 1, 1),
            vec![v(&[0.5f64, 1.0, 1e9, -1e9]), v(&fc64)],
            EXACT,
        ),
        (&add_ones_f32::KERNEL, lin(4), (64, 1, 1), vec![v(&[0.0f32])], EXACT),
        (
            &shared_histogram::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&bytes), z::<u32>(&[256])],
            EXACT,
        ),
        (
            &atomics_2d_3d::KERNEL,
            (3, 3, 1),
            (8, 8, 1),
            vec![
                a(&[20, 24], &grid_vals),
                a(&[4, 4], &[i64::MAX; 16]),
                a(&[4, 4], &[i64::MIN; 16]),
                z::<f64>(&[2, 4, 4]),
            ],
            EXACT,
        ),
        (
            &fences::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<u32>(&[3]), z::<u32>(&[1]), z::<u32>(&[1])],
            EXACT,
        ),
    ]);
}
