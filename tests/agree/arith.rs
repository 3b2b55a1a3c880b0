//! Integer and float arithmetic, and the small integer types and tuple
//! locals, agree between the CUDA C and the CPU backend.

use super::*;

pub(crate) fn integer_semantics_agree() {
    let i32s = [
        0,
        1,
        -1,
        7,
        -7,
        i32::MAX,
        i32::MIN,
        31,
        32,
        33,
        -33,
        1 << 20,
        123_456_789,
    ];
    let i32b = [3, -1, 1, 40, 2, i32::MAX, -1, 1, 31, 64, 5, -3, 7];
    let u32s = [0u32, 1, 7, u32::MAX, 1 << 31, 31, 32, 99, 12345, 3];
    let u32b = [1u32, 0, 33, 2, 3, 31, 64, 7, u32::MAX, 40];
    let u8s = [0u8, 1, 7, 255, 128, 31, 200, 9];
    let u8b = [255u8, 3, 9, 1, 128, 8, 100, 7];
    let i64s = [0i64, 1, -1, i64::MAX, i64::MIN, 63, 64, 1 << 40, -5];
    let i64b = [3i64, -1, 65, 2, -1, 1, 63, 3, 100];
    let u64s = [0u64, 1, u64::MAX, 1 << 63, 64, 65, 12345, 9];
    let u64b = [7u64, 0, 2, 3, 64, 1, 100, u64::MAX];
    let casts = [
        0i64,
        1,
        -1,
        255,
        256,
        -129,
        i32::MAX as i64 + 1,
        i64::MIN,
        i64::MAX,
        1 << 53,
        (1 << 53) + 1,
    ];
    let (nz_a, nz_b) = ([7i32, -7, i32::MIN, i32::MAX, 0, -1], [2i32, 2, -1, -1, 5, 3]);
    check(vec![
        (
            &wrap_i32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32s), v(&i32b), z::<i32>(&[7 * i32s.len()])],
            EXACT,
        ),
        (
            &wrap_u32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u32s), v(&u32b), z::<u32>(&[5 * u32s.len()])],
            EXACT,
        ),
        (
            &wrap_u8::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u8s), v(&u8b), z::<u8>(&[8 * u8s.len()])],
            EXACT,
        ),
        (
            &wrap_i64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i64s), v(&i64b), z::<i64>(&[8 * i64s.len()])],
            EXACT,
        ),
        (
            &wrap_u64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u64s), v(&u64b), z::<u64>(&[8 * u64s.len()])],
            EXACT,
        ),
        (
            &cast_ints::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![
                v(&casts),
                z::<u8>(&[11]),
                z::<i32>(&[11]),
                z::<u32>(&[11]),
                z::<u64>(&[11]),
                z::<f32>(&[11]),
                z::<f64>(&[11]),
            ],
            EXACT,
        ),
        (
            &divrem_i32::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&nz_a), v(&nz_b), z::<i32>(&[6]), z::<i32>(&[6])],
            EXACT,
        ),
        (
            &divrem_i64::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[7i64, -7, i64::MIN, 5]),
                v(&[2i64, 2, -1, -3]),
                z::<i64>(&[4]),
                z::<i64>(&[4]),
            ],
            EXACT,
        ),
        (
            &divrem_u::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[7u32, 300, u32::MAX, 9]),
                v(&[2u32, 7, 3, 260]),
                z::<u32>(&[4]),
                z::<u32>(&[4]),
                z::<u8>(&[4]),
            ],
            EXACT,
        ),
        (&math_int::KERNEL, lin(1), (8, 1, 1), math_int_args(), EXACT),
    ]);
}

pub(crate) fn math_int_args() -> Vec<Arg> {
    vec![
        v(&[3i32, -4, i32::MIN, 7, 0]),
        v(&[-2i32, 9, 5, 7, -1]),
        z::<i32>(&[15]),
        v(&[3u64, 9, u64::MAX, 0, 5]),
        v(&[5u64, 2, 1, 0, 5]),
        z::<u64>(&[10]),
    ]
}

pub(crate) fn float_semantics_agree() {
    let f32s = [
        0.0f32,
        -0.0,
        0.7,
        -1.5,
        2.5e9,
        -3e9,
        255.9,
        256.0,
        -0.99,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e20,
        4.3e9,
    ];
    let f64s = [
        0.0f64,
        0.7,
        -1.5,
        2.5e9,
        -3e9,
        255.9,
        256.0,
        f64::NAN,
        f64::INFINITY,
        -1e300,
        1.9e19,
        9.3e18,
    ];
    let n32 = f32s.len();
    let n64 = f64s.len();
    check(vec![
        (
            &cast_f32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f32s),
                z::<i32>(&[n32]),
                z::<u32>(&[n32]),
                z::<i64>(&[n32]),
                z::<u64>(&[n32]),
                z::<u8>(&[n32]),
            ],
            EXACT,
        ),
        (
            &cast_f64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f64s),
                z::<i32>(&[n64]),
                z::<u32>(&[n64]),
                z::<i64>(&[n64]),
                z::<u64>(&[n64]),
                z::<u8>(&[n64]),
            ],
            EXACT,
        ),
        (
            &scale_tenth_f32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&f32s), z::<f32>(&[n32])],
            EXACT,
        ),
        (
            &scale_tenth_f64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&f64s), z::<f64>(&[n64])],
            EXACT,
        ),
        (
            &store_seven_tenths::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![z::<f32>(&[4])],
            EXACT,
        ),
        (
            &math_f32::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0.5f32, 2.0, 9.0, 1.25]),
                v(&[1.5f32, -0.5, 3.0, 2.0]),
                z::<f32>(&[64]),
            ],
            Ulps(8),
        ),
        (
            &math_f64::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0.5f64, 2.0, 9.0, 1.25]),
                v(&[1.5f64, -0.5, 3.0, 2.0]),
                z::<f64>(&[64]),
            ],
            Ulps(8),
        ),
        (
            &axpy::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![s(1.5f64), v(&[1.0f64, 2.0, -3.0, 0.25, 7.0]), v(&[0.5f64; 5])],
            EXACT,
        ),
    ]);
}

/// Every pair of `vals` as two arrays.
pub(crate) fn all_pairs<T: Copy>(vals: &[T]) -> (Vec<T>, Vec<T>) {
    vals.iter().flat_map(|&x| vals.iter().map(move |&y| (x, y))).unzip()
}

/// `i8 i16 u16 bool`: C's promotion to `int` must not change a result; and
/// tuple locals and tuple arguments of device functions.
pub(crate) fn small_types_and_tuple_locals_agree() {
    use kernels::types::*;
    let (a8, b8) = all_pairs(&[i8::MIN, -127, -100, -9, -8, -1, 0, 1, 2, 7, 8, 9, 100, 127]);
    let (a16, b16) = all_pairs(&[i16::MIN, -32767, -300, -17, -1, 0, 1, 15, 16, 17, 256, 30000, i16::MAX]);
    let (au, bu) = all_pairs(&[0u16, 1, 2, 15, 16, 17, 255, 256, 32768, 40000, 65534, u16::MAX]);
    let f = [
        0.0f32,
        -0.9,
        1.5,
        127.9,
        128.0,
        -128.9,
        -129.0,
        255.0,
        32768.0,
        -32769.0,
        65535.0,
        65536.0,
        1e20,
        -1e20,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let bools: Vec<bool> = (0..100).map(|i| i % 3 == 0).collect();
    let bools2: Vec<bool> = (0..100).map(|i| i % 2 == 0).collect();
    let v16: Vec<i16> = (0..128).map(|i| (i * 997 % 65536 - 32768) as i16).collect();
    let blocks = |n: usize| lin(n.div_ceil(64) as u32);
    check(vec![
        (
            &wrap_i8::KERNEL,
            blocks(a8.len()),
            (64, 1, 1),
            vec![v(&a8), v(&b8), z::<i8>(&[16 * a8.len()]), z::<i32>(&[a8.len()])],
            EXACT,
        ),
        (
            &wrap_i16::KERNEL,
            blocks(a16.len()),
            (64, 1, 1),
            vec![v(&a16), v(&b16), z::<i16>(&[16 * a16.len()]), z::<i32>(&[a16.len()])],
            EXACT,
        ),
        (
            &wrap_u16::KERNEL,
            blocks(au.len()),
            (64, 1, 1),
            vec![v(&au), v(&bu), z::<u16>(&[16 * au.len()]), z::<u32>(&[au.len()])],
            EXACT,
        ),
        (
            &cast_small::KERNEL,
            ONE,
            (32, 1, 1),
            vec![
                v(&f),
                z::<i8>(&[2 * f.len()]),
                z::<i16>(&[2 * f.len()]),
                z::<u16>(&[2 * f.len()]),
            ],
            EXACT,
        ),
        (
            &small_scalars::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![
                s(-128i8),
                s(-32768i16),
                s(65535u16),
                s(false),
                v(&(0..100).collect::<Vec<i32>>()),
                z::<i32>(&[100]),
            ],
            EXACT,
        ),
        (
            &bool_arrays::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&bools), v(&bools2), z::<bool>(&[200]), z::<bool>(&[100])],
            EXACT,
        ),
        (
            &small_shared_and_views::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&v16), z::<i16>(&[2]), z::<u16>(&[9, 11])],
            EXACT,
        ),
        (
            &tuple_locals::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&(-60..60).collect::<Vec<i32>>()), z::<i32>(&[360])],
            EXACT,
        ),
        (
            &tuple_params::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&(-40..40).map(|v| v as f32).collect::<Vec<f32>>()), z::<f32>(&[160])],
            EXACT,
        ),
    ]);
}
