//! Whole programs: the seed kernels (examples), kernels with names CUDA C
//! reserves, and the generated deep kernels.

use super::*;

pub(crate) fn seed_kernels_agree() {
    let a_m: Vec<f32> = (0..20 * 37).map(|i| ((i * 7) % 23) as f32 * 0.125 - 1.0).collect();
    let b_m: Vec<f32> = (0..37 * 5).map(|i| ((i * 11) % 19) as f32 * 0.25 - 2.0).collect();
    let rgb: Vec<u8> = (0..7 * 5 * 3).map(|i| (i * 53 % 256) as u8).collect();
    check(vec![
        (
            &loop_test::loop_kernel::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<f64>(&[50])],
            EXACT,
        ),
        (&lucas::lucas::KERNEL, lin(1), (64, 1, 1), vec![z::<u64>(&[41])], EXACT),
        // A recursive device function (`#[gpu_device]`), linked into the kernel's C.
        (
            &lucas::lucas_recursive::KERNEL,
            lin(1),
            (32, 1, 1),
            vec![z::<u64>(&[25])],
            EXACT,
        ),
        (
            &saxpy::saxpy::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![
                s(1.5f32),
                v(&(0..1000).map(|i| i as f32 * 0.25).collect::<Vec<_>>()),
                v(&[2.0f32; 1000]),
            ],
            EXACT,
        ),
        (
            &grayscale::rgb_to_grayscale::KERNEL,
            ONE,
            (16, 16, 1),
            vec![a(&[7, 5, 3], &rgb), z::<u8>(&[7, 5])],
            EXACT,
        ),
        (
            &matmul::matmul_naive::KERNEL,
            ONE,
            (16, 16, 1),
            vec![a(&[20, 37], &a_m), a(&[37, 5], &b_m), z::<f32>(&[20, 5])],
            EXACT,
        ),
        (
            &matmul::matmul_tiled::KERNEL,
            (1, 2, 1),
            (16, 16, 1),
            vec![a(&[20, 37], &a_m), a(&[37, 5], &b_m), z::<f32>(&[20, 5])],
            EXACT,
        ),
    ]);
}

pub(crate) fn naming_kernels_agree() {
    use kernels::naming::*;
    let x: Vec<f32> = (0..9).map(|i| (i * i) as f32 * 0.5).collect();
    check(vec![
        (
            &shadow_next_to_suffix::KERNEL,
            ONE,
            (8, 1, 1),
            vec![z::<i32>(&[8])],
            EXACT,
        ),
        (
            &inner_shadow::KERNEL,
            ONE,
            (16, 1, 1),
            vec![v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &float::KERNEL,
            ONE,
            (4, 1, 1),
            vec![
                s(1.0f32),
                s(2.0f32),
                s(3usize),
                s(4usize),
                s(0.5f32),
                s(4.0f32),
                z::<f32>(&[4]),
            ],
            EXACT,
        ),
        (&sqrt::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (
            &deferred_init::KERNEL,
            ONE,
            (16, 1, 1),
            vec![v(&[1.5f32, -2.0, 0.0, 3.0]), z::<f32>(&[4])],
            EXACT,
        ),
        (&const_names::KERNEL, ONE, (2, 1, 1), vec![z::<f32>(&[2])], EXACT),
        (
            &unused_on_purpose::KERNEL,
            ONE,
            ONE,
            vec![s(true), z::<f64>(&[2])],
            EXACT,
        ),
        (
            &gj_names::KERNEL,
            ONE,
            (8, 1, 1),
            vec![s(0.5f32), s(3.0f32), s(7.0f32), v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &r#fn::KERNEL,
            ONE,
            (16, 1, 1),
            vec![s(1.5f32), v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &__global__::KERNEL,
            ONE,
            (8, 1, 1),
            vec![s(2.0f32), v(&x), z::<f32>(&[8]), s(3.0f32), s(0.125f32), s(5i32)],
            EXACT,
        ),
        (&erfc::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (&j0::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (&uint3_local::KERNEL, (2, 1, 1), (3, 1, 1), vec![z::<u32>(&[6])], EXACT),
        (
            &normcdf::KERNEL,
            (2, 1, 1),
            (8, 1, 1),
            vec![v(&x), z::<f32>(&[9]), s(7usize), s(0.25f32)],
            EXACT,
        ),
    ]);
}

pub(crate) fn deep_kernels_agree() {
    use deep::*;
    let xs: Vec<i32> = (-3..ELSE_IF_ARMS as i32 + 3).collect();
    let ks: Vec<u32> = (0..VALUE_ARMS as u32 + 5).chain([u32::MAX, 1 << 31]).collect();
    check(vec![
        (
            &sum_i32::KERNEL,
            ONE,
            (4, 1, 1),
            vec![z::<i32>(&[4]), s(123_457i32)],
            EXACT,
        ),
        (
            &sum_f32::KERNEL,
            ONE,
            (4, 1, 1),
            vec![v(&[0.1f32, -3.7, 1e-3, 12345.678]), z::<f32>(&[4])],
            EXACT,
        ),
        (
            &chains::KERNEL,
            ONE,
            (2, 1, 1),
            vec![z::<i64>(&[5]), z::<u8>(&[2]), s(-3i64), s(0x1234_5678_9abc_def1u64)],
            EXACT,
        ),
        (
            &right_nested::KERNEL,
            ONE,
            ONE,
            vec![z::<u32>(&[1]), z::<f64>(&[1]), s(4_000_000_007u32), s(0.3f64)],
            EXACT,
        ),
        (
            &else_if::KERNEL,
            (xs.len().div_ceil(64) as u32, 1, 1),
            (64, 1, 1),
            vec![v(&xs), z::<i32>(&[xs.len()])],
            EXACT,
        ),
        (
            &else_if_value::KERNEL,
            (ks.len().div_ceil(64) as u32, 1, 1),
            (64, 1, 1),
            vec![v(&ks), z::<f32>(&[ks.len()])],
            EXACT,
        ),
        (&nested_blocks::KERNEL, ONE, (16, 1, 1), vec![z::<i32>(&[10])], EXACT),
    ]);
}
