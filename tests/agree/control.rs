//! Control flow, indices, `match`, reversed loops and the order of
//! evaluation agree between the CUDA C and the CPU backend.

use super::*;

pub(crate) fn control_flow_and_indices_agree() {
    check(vec![
        (
            &ranges_i32::KERNEL,
            ONE,
            ONE,
            vec![s(-4i32), s(10i32), s(3usize), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &ranges_i32::KERNEL,
            ONE,
            ONE,
            vec![s(i32::MAX - 5), s(i32::MAX), s(2usize), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &ranges_u32::KERNEL,
            ONE,
            ONE,
            vec![s(u32::MAX - 6), s(u32::MAX), s(4usize), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &ranges_u32::KERNEL,
            ONE,
            ONE,
            vec![s(0u32), s(10u32), s((1usize << 32) + 1), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &stepped_i32::KERNEL,
            ONE,
            ONE,
            vec![s(i32::MIN), s(i32::MAX), s(1usize << 30), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &stepped_u32::KERNEL,
            ONE,
            ONE,
            vec![s(0u32), s(u32::MAX), s(1usize << 31), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &step_count::KERNEL,
            ONE,
            ONE,
            vec![s(100u32), s(7usize), z::<u32>(&[1])],
            EXACT,
        ),
        (
            &loops::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&[0u32, 1, 5, 17, 60, 100, 3]), z::<u32>(&[64])],
            EXACT,
        ),
        (&early_return::KERNEL, lin(2), (8, 1, 1), vec![z::<i32>(&[16])], EXACT),
        (
            &branches::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&[-5i32, 0, 3, 10, 99, -100, 7]),
                z::<i32>(&[7]),
                z::<f64>(&[7]),
                z::<f32>(&[7]),
            ],
            EXACT,
        ),
        (
            &global_index::KERNEL,
            lin(3),
            (5, 1, 1),
            vec![z::<u64>(&[13]), z::<u64>(&[13])],
            EXACT,
        ),
        (
            &usize_index_math::KERNEL,
            ONE,
            ONE,
            vec![s(8_388_608usize), s(256usize), s(255usize), z::<u64>(&[1])],
            EXACT,
        ),
        (
            &coords3::KERNEL,
            (2, 2, 2),
            (2, 3, 2),
            vec![z::<u64>(&[18 * 96])],
            EXACT,
        ),
        (
            &coords2::KERNEL,
            (2, 3, 1),
            (4, 2, 1),
            vec![z::<u32>(&[5, 7]), z::<u32>(&[3])],
            EXACT,
        ),
        (&arrays3d::KERNEL, (2, 2, 2), (2, 2, 2), arrays3d_args(), EXACT),
        (&scalars::KERNEL, lin(1), (4, 1, 1), scalars_args(), EXACT),
        (
            &step::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&[1i64, -2, 3, 40, 5, 6]), z::<i64>(&[6])],
            EXACT,
        ),
        (&mirror3d::KERNEL, (1, 1, 1), (2, 3, 4), vec![z::<u32>(&[64])], EXACT),
        (
            &opaque_loops::KERNEL,
            ONE,
            (4, 1, 1),
            vec![v(&[32.0f32, 64.0, -8.0])],
            EXACT,
        ),
    ]);
}

pub(crate) fn arrays3d_args() -> Vec<Arg> {
    let data: Vec<f32> = (0..3 * 4 * 3).map(|i| i as f32 * 0.5).collect();
    vec![a(&[3, 4, 3], &data), z::<f32>(&[3, 4, 3]), z::<u64>(&[16])]
}

pub(crate) fn scalars_args() -> Vec<Arg> {
    vec![
        s(true),
        s(false),
        s(-7i64),
        s(u64::MAX - 3),
        s(12usize),
        s(4_000_000_000u32),
        s(-3i32),
        s(200u8),
        s(1.25f32),
        s(-2.5f64),
        z::<i64>(&[4]),
        z::<u64>(&[4]),
        z::<f64>(&[4]),
    ]
}

/// `match`, reversed loops and tuple values (#8), at the edges of each type.
/// Two atomics (or device calls) in one expression: C's unspecified operand
/// order must not show.
pub(crate) fn side_effects_run_left_to_right_in_c() {
    use kernels::order::effects_in_order;
    let n = 100;
    check(vec![(
        &effects_in_order::KERNEL,
        lin(2),
        (64, 1, 1),
        vec![
            z::<u32>(&[n]),
            z::<u32>(&[n]),
            z::<u32>(&[n]),
            z::<i32>(&[2 * n]),
            z::<u32>(&[4 * n]),
        ],
        EXACT,
    )]);
}

pub(crate) fn assignments_evaluate_the_value_before_the_index_in_c() {
    use kernels::order::assign_value_before_index;
    let n = 100;
    check(vec![(
        &assign_value_before_index::KERNEL,
        lin(2),
        (64, 1, 1),
        vec![
            z::<u32>(&[3 * n]),
            z::<u32>(&[4 * n]),
            z::<u32>(&[4 * n]),
            z::<u32>(&[4 * n]),
        ],
        EXACT,
    )]);
}

pub(crate) fn match_rev_and_tuple_kernels_agree() {
    use kernels::control::*;
    let xi: Vec<i32> = (-120..40)
        .chain([i32::MIN, i32::MIN + 1, i32::MAX, -11, -10, -9])
        .collect();
    let xu: Vec<u8> = (0..=255).collect();
    let n = xi.len();
    let mut cases: Vec<Case> = vec![
        (
            &match_i32::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&xi), z::<i32>(&[n]), z::<i32>(&[n])],
            EXACT,
        ),
        (
            &match_u8_bool_loop::KERNEL,
            lin(4),
            (64, 1, 1),
            vec![v(&xu), z::<u32>(&[256])],
            EXACT,
        ),
        (
            &tuple_values::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&xi), z::<i32>(&[n])],
            EXACT,
        ),
        (
            &early_returns::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&xi), z::<i32>(&[6 * n])],
            EXACT,
        ),
        (
            &rev_barrier_sum::KERNEL,
            ONE,
            (64, 1, 1),
            vec![v(&(0..64u32).map(|i| i * 7).collect::<Vec<_>>()), z::<u32>(&[64])],
            EXACT,
        ),
    ];
    for mode in 0..4u32 {
        cases.push((
            &match_with_barrier::KERNEL,
            ONE,
            (64, 1, 1),
            vec![s(mode), z::<u32>(&[64])],
            EXACT,
        ));
    }
    for (a, b, st) in [
        (0i32, 10, 3usize),
        (5, 5, 1),
        (6, 5, 2),
        (-3, 4, 8),
        (i32::MIN, i32::MIN + 3, 1),
        (i32::MAX - 5, i32::MAX, 2),
    ] {
        cases.push((
            &rev_i32::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<i64>(&[37])],
            EXACT,
        ));
    }
    for (a, b, st) in [
        (0usize, 0, 1usize),
        (0, 5, 2),
        (1, 0, 1),
        (usize::MAX - 3, usize::MAX, 2),
    ] {
        cases.push((
            &rev_usize::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<u64>(&[36])],
            EXACT,
        ));
    }
    for (a, b, st) in [(0u8, 255u8, 100usize), (0, 255, 256), (250, 255, 1), (3, 2, 1)] {
        cases.push((
            &rev_u8::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<u32>(&[18])],
            EXACT,
        ));
    }
    check(cases);
}
