//! Adversarial kernels (edge cases of every construct), `powi` and a zero
//! `step_by` step, which traps in the C where the CPU backend faults.

use super::*;

pub(crate) fn adversarial_cases() -> Vec<Case> {
    use kernels::adversarial::*;
    let i32a = [0, 1, -1, i32::MAX, i32::MIN, 12345, -7, 100, i32::MIN, 31];
    let i32b = [1, -1, 3, -1, -1, 7, 2, -100, 1, 33];
    let i32c = [3, 5, -2, 2, 1, -1, 9, 7, -1, 40];
    let u8a = [0u8, 1, 7, 255, 128, 31, 200, 9, 100, 254];
    let u8b = [1u8, 255, 9, 1, 128, 8, 100, 7, 3, 2];
    let f64s = [
        0.0f64,
        -0.0,
        -1.5,
        255.9,
        256.0,
        -129.7,
        1e20,
        -1e20,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        4294967295.5,
        16777217.0,
        9.3e18,
    ];
    let u64s = [
        0u64,
        1,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        (1 << 24) + 1,
        (1 << 53) + 1,
        0x8000_0080_0000_0001,
        u32::MAX as u64,
        0xffff_ff7f_ffff_ffff,
    ];
    let nf = f64s.len();
    let nu = u64s.len();
    let fa = [
        f32::NAN,
        1.0,
        f32::NAN,
        -0.0,
        -0.0,
        -7.5,
        7.5,
        -0.0,
        f32::INFINITY,
        5.0,
        f32::NEG_INFINITY,
        1e-45,
    ];
    let fb = [
        1.0f32,
        f32::NAN,
        f32::NAN,
        -0.0,
        0.5,
        2.0,
        -2.0,
        1.0,
        2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1e-45,
    ];
    let da: Vec<f64> = fa.iter().map(|&x| x as f64 * 1.25).collect();
    let db: Vec<f64> = fb.iter().map(|&x| x as f64 * 0.75).collect();
    let nfa = fa.len();
    let pa = [-1.0f32, -1.0, 2.0, 1.1, -1.1, 0.0, 0.0, 3.0, -2.5, 1.5, -1.0, 0.5];
    let pn = [
        i32::MAX - 1,
        16777216,
        -3,
        -7,
        -5,
        -1,
        0,
        i32::MIN,
        9,
        20,
        i32::MIN,
        -149,
    ];
    let a3: Vec<i32> = (0..2 * 3 * 5).map(|k| k * 7 - 50).collect();
    vec![
        (
            &adv_prec_i32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32a), v(&i32b), v(&i32c), z::<i32>(&[16 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_prec_u8::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u8a), v(&u8b), z::<u8>(&[14 * u8a.len()])],
            EXACT,
        ),
        (
            &adv_bools::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32a), v(&i32c), s(true), z::<i32>(&[6 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_bools::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32b), v(&i32a), s(false), z::<i32>(&[6 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_cast_chain::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f64s),
                z::<i64>(&[nf]),
                z::<u32>(&[nf]),
                z::<f32>(&[nf]),
                z::<i32>(&[nf]),
            ],
            EXACT,
        ),
        (
            &adv_cast_wide::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&u64s),
                z::<f32>(&[2 * nu]),
                z::<f64>(&[2 * nu]),
                z::<u64>(&[nu]),
                z::<i32>(&[nu]),
            ],
            EXACT,
        ),
        (
            &adv_cast_consts::KERNEL,
            ONE,
            (2, 1, 1),
            vec![s(true), z::<f64>(&[5]), z::<f32>(&[4]), z::<u64>(&[5]), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &adv_cast_consts::KERNEL,
            ONE,
            ONE,
            vec![s(false), z::<f64>(&[5]), z::<f32>(&[4]), z::<u64>(&[5]), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &adv_loops::KERNEL,
            lin(2),
            (4, 1, 1),
            vec![v(&[0u32, 1, 2, 3, 7, 20, 50]), z::<u32>(&[28])],
            EXACT,
        ),
        (
            &adv_ranges::KERNEL,
            ONE,
            (2, 1, 1),
            vec![s(3i32), s(5i32), z::<i64>(&[14])],
            EXACT,
        ),
        (
            &adv_ranges::KERNEL,
            ONE,
            ONE,
            vec![s(-4i32), s(-4i32), z::<i64>(&[14])],
            EXACT,
        ),
        (
            &adv_loop_shadow::KERNEL,
            ONE,
            ONE,
            vec![s(10usize), z::<u64>(&[4])],
            EXACT,
        ),
        (
            &adv_shadow::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                s(u32::MAX - 2),
                s(-1.75f32),
                v(&[3, -4, 0, 1, i32::MIN, i32::MAX]),
                z::<f64>(&[18]),
            ],
            EXACT,
        ),
        (
            &adv_if_values::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&[-3, 0, 1, 3, 4, 6, 11, 2000, i32::MIN, -1]),
                z::<i32>(&[40]),
                z::<i32>(&[10]),
            ],
            EXACT,
        ),
        (
            &adv_nd::KERNEL,
            (2, 1, 1),
            (4, 3, 1),
            vec![a(&[2, 3, 5], &a3), z::<i64>(&[3, 7]), z::<u64>(&[5])],
            EXACT,
        ),
        (
            &adv_shared_mix::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<u8>(&[64]), z::<i64>(&[64]), z::<f64>(&[64])],
            EXACT,
        ),
        (
            &adv_dims3::KERNEL,
            (2, 3, 2),
            (3, 2, 2),
            vec![z::<u64>(&[2 * 144])],
            EXACT,
        ),
        (
            &adv_consts::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[0.0f64, -1.5, 1e300]), z::<f64>(&[3]), z::<i64>(&[12])],
            EXACT,
        ),
        (&adv_opaque_int::KERNEL, ONE, ONE, vec![z::<u32>(&[4])], EXACT),
        (&adv_opaque_float::KERNEL, ONE, ONE, vec![z::<f64>(&[2])], EXACT),
        (
            &adv_opaque_math::KERNEL,
            ONE,
            ONE,
            vec![z::<f64>(&[2]), z::<i64>(&[2])],
            EXACT,
        ),
        (
            &adv_opaque_cast::KERNEL,
            ONE,
            ONE,
            vec![z::<i32>(&[1]), z::<u32>(&[1])],
            EXACT,
        ),
        (
            &adv_float_edges::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&fa),
                v(&fb),
                z::<f32>(&[5 * nfa]),
                v(&da),
                v(&db),
                z::<f64>(&[4 * nfa]),
            ],
            EXACT,
        ),
        (
            &adv_powi::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&pa), v(&pn), z::<f32>(&[pa.len()]), z::<f64>(&[pa.len()])],
            Ulps(8),
        ),
        (
            &adv_float_lits::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[0.0f32, 1.0, -3.5]), z::<f32>(&[12]), z::<f64>(&[6])],
            EXACT,
        ),
        (
            &adv_scalars::KERNEL,
            ONE,
            ONE,
            vec![
                s(i32::MIN),
                s(i64::MIN),
                s(u32::MAX),
                s(u64::MAX),
                s(0usize),
                s(255u8),
                s(f32::MAX),
                s(f64::MIN_POSITIVE),
                s(false),
                z::<i64>(&[8]),
                z::<u64>(&[6]),
                z::<f64>(&[4]),
            ],
            EXACT,
        ),
        (
            &adv_scalars::KERNEL,
            ONE,
            ONE,
            vec![
                s(i32::MAX),
                s(i64::MAX),
                s(64u32 + 63),
                s(1u64 << 63),
                s(usize::MAX),
                s(0u8),
                s(f32::NAN),
                s(-1e300f64),
                s(true),
                z::<i64>(&[8]),
                z::<u64>(&[6]),
                z::<f64>(&[4]),
            ],
            EXACT,
        ),
        (
            &adv_int_methods::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0u8, 3, 4, 255, 249, 250]),
                v(&[i64::MIN, -1, 0, 1, i64::MAX, 1]),
                z::<u8>(&[12]),
                z::<i64>(&[18]),
            ],
            EXACT,
        ),
        (
            &adv_const_inf::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[1.0f32, f32::INFINITY, f32::NAN]), z::<f32>(&[3])],
            EXACT,
        ),
        (&adv_opaque_underscore::KERNEL, ONE, ONE, vec![z::<f64>(&[1])], EXACT),
    ]
}

pub(crate) fn adversarial_kernels_agree() {
    check(adversarial_cases());
}

pub(crate) fn powi_matches_rust_for_any_exponent() {
    use kernels::adversarial::*;
    check(vec![(
        &adv_powi::KERNEL,
        ONE,
        (4, 1, 1),
        vec![
            v(&[-1.0f32, -1.0, -1.0, 1.0001]),
            v(&[i32::MAX, 16777217, i32::MIN + 1, 100000]),
            z::<f32>(&[4]),
            z::<f64>(&[4]),
        ],
        EXACT,
    )]);
}

/// A zero `step_by` step: the CPU backend reports a `KernelFault`, the CUDA C
/// traps (a device fault on a GPU) instead of looping forever; with a nonzero
/// step both sides agree and neither faults.
pub(crate) fn a_zero_step_traps_where_the_cpu_backend_faults() {
    let lib = library();
    let cases: Vec<(&'static KernelDef, Dims, Dims, Vec<Arg>)> = vec![
        (&step_count::KERNEL, ONE, ONE, vec![s(10u32), s(0usize), z::<u32>(&[1])]),
        (
            &step_zero_thread0::KERNEL,
            lin(2),
            lin(4),
            vec![s(0usize), z::<u32>(&[8])],
        ),
        (
            &step_zero_sync::KERNEL,
            lin(3),
            lin(4),
            vec![s(0usize), z::<u32>(&[12])],
        ),
        (
            &every_thread_faults::KERNEL,
            lin(2),
            lin(8),
            vec![s(0u32), v(&[1u32]), z::<u32>(&[16])],
        ),
    ];
    for (k, grid, block, args) in cases {
        let (_, r) = try_run_cpu(k, grid, block, &args);
        match r {
            Err(gpujit::Error::KernelFault { message, .. }) => {
                assert!(message.contains("zero"), "{}: {message}", k.name)
            }
            other => panic!("{}: expected a KernelFault from the CPU backend, got {other:?}", k.name),
        }
        let (_, trapped) = run_cxx(lib, k, grid, block, &args);
        assert!(trapped, "{}: the C did not trap", k.name);
    }
    check(vec![
        (
            &step_zero_thread0::KERNEL,
            lin(2),
            lin(4),
            vec![s(3usize), z::<u32>(&[8])],
            EXACT,
        ),
        (
            &step_zero_sync::KERNEL,
            lin(3),
            lin(4),
            vec![s(2usize), z::<u32>(&[12])],
            EXACT,
        ),
    ]);
}
