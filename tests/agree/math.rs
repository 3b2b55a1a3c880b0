//! The numeric methods (`tests/kernels/math.rs`) on edge-case inputs.

use super::*;

/// `powi` follows Rust's square-and-multiply exactly, also for exponents a
/// `float` cannot hold (odd n > 2^24) and long products (1.0001^100000).
/// (`adv_float_edges` leaves out `min`/`max` of two signed zeros: Rust leaves
/// the sign of that result unspecified, and CUDA's `fminf` picks the other.)
/// The numeric methods (`tests/kernels/math.rs`) on edge-case inputs. The
/// transcendental ones within 4 ulps (the largest maximum error in the CUDA
/// Math API's tables for them: `tanf`, `acoshf`, `powf`; on the host both
/// sides call the host's libm, except Rust's own `asinh`/`acosh`/`atanh`),
/// everything else bit for bit.
pub(crate) fn math_library_agrees() {
    use kernels::math::*;
    let f32s = [
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.5,
        -2.5,
        -8.0,
        27.0,
        0.999,
        1e-3,
        100.0,
        1e30,
        -1e30,
        1e-40,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.7,
        -0.1,
    ];
    let f64s: Vec<f64> = f32s
        .iter()
        .map(|&x| x as f64)
        .chain([1e300, -5e-324, f64::MAX])
        .collect();
    let n32 = f32s.len();
    let n64 = f64s.len();
    let rev = |v: &[f32]| v.iter().rev().cloned().collect::<Vec<_>>();
    let rev64 = |v: &[f64]| v.iter().rev().cloned().collect::<Vec<_>>();
    let ks = |n: usize| (0..n as i32).map(|i| i % 7 - 3).collect::<Vec<_>>();
    let float_args = |w: usize| {
        (
            vec![
                v(&f32s),
                v(&rev(&f32s)),
                v(&f32s.map(|x| x * 0.5 + 1.0)),
                v(&ks(n32)),
                z::<f32>(&[n32 * w]),
            ],
            vec![
                v(&f64s),
                v(&rev64(&f64s)),
                v(&f64s.iter().map(|x| x * 0.5 + 1.0).collect::<Vec<_>>()),
                v(&ks(n64)),
                z::<f64>(&[n64 * w]),
            ],
        )
    };
    let mut cases: Vec<Case> = Vec::new();
    for (k32, k64, w, ulps) in [
        (&unary_f32::KERNEL, &unary_f64::KERNEL, 20, Ulps(4)),
        (&exact_f32::KERNEL, &exact_f64::KERNEL, 14, EXACT),
        (&binary_f32::KERNEL, &binary_f64::KERNEL, 3, Ulps(4)),
    ] {
        let (a32, a64) = float_args(w);
        cases.push((k32, lin(1), (32, 1, 1), a32, ulps));
        cases.push((k64, lin(1), (32, 1, 1), a64, ulps));
    }
    let (mut a32, mut a64) = float_args(0);
    a32[4] = z::<u8>(&[n32 * 3]);
    a64[4] = z::<u8>(&[n64 * 3]);
    cases.push((&pred_f32::KERNEL, lin(1), (32, 1, 1), a32, EXACT));
    cases.push((&pred_f64::KERNEL, lin(1), (32, 1, 1), a64, EXACT));
    let mm = [1.0f32, f32::NAN, 2.0, f32::NAN, -3.0, 5.0, -0.5, f32::INFINITY];
    let mm2 = [2.0f32, 1.0, f32::NAN, f32::NAN, -4.0, 5.0, -1.0, 0.0];
    let (lo, hi) = (
        [0.0f32, -1.0, 3.0, 0.0, -3.5, 5.0, 0.0, -1.0],
        [0.5f32, 1.0, 4.0, 1.0, 0.0, 5.0, 0.0, 1.0],
    );
    cases.push((
        &min_max_clamp_f32::KERNEL,
        ONE,
        (8, 1, 1),
        vec![v(&mm), v(&mm2), v(&lo), v(&hi), z::<f32>(&[24])],
        EXACT,
    ));
    let d = |a: &[f32]| v(&a.iter().map(|&x| x as f64).collect::<Vec<_>>());
    cases.push((
        &min_max_clamp_f64::KERNEL,
        ONE,
        (8, 1, 1),
        vec![d(&mm), d(&mm2), d(&lo), d(&hi), z::<f64>(&[24])],
        EXACT,
    ));
    // Zeros of both signs (found by the fuzzer, seed 201: C's fmaxf(-0.0,
    // +0.0) gave -0.0 where the CPU backend gave +0.0): -0.0 is below +0.0
    // on every backend, also beside a NaN.
    let z1 = [-0.0f32, 0.0, -0.0, 0.0, 0.0, -0.0, f32::NAN, -0.0];
    let z2 = [0.0f32, -0.0, -0.0, 0.0, f32::NAN, f32::NAN, -0.0, 1.0];
    let (lo, hi) = ([-0.0f32; 8], [0.0f32; 8]);
    cases.push((
        &min_max_clamp_f32::KERNEL,
        ONE,
        (8, 1, 1),
        vec![v(&z1), v(&z2), v(&lo), v(&hi), z::<f32>(&[24])],
        EXACT,
    ));
    cases.push((
        &min_max_clamp_f64::KERNEL,
        ONE,
        (8, 1, 1),
        vec![d(&z1), d(&z2), d(&lo), d(&hi), z::<f64>(&[24])],
        EXACT,
    ));
    // g++ folded `0.0 - i as f64` to `-(i as f64)` (-0.0 for 0; seed 208).
    cases.push((
        &zero_minus_int::KERNEL,
        ONE,
        (8, 1, 1),
        vec![
            v(&[0i32, 1, -1, 0, i32::MIN]),
            v(&[0u8, 2, 0, 255, 0]),
            z::<f64>(&[20]),
            z::<f32>(&[10]),
        ],
        EXACT,
    ));
    cases.push((
        &call_form::KERNEL,
        ONE,
        (3, 1, 1),
        vec![
            v(&[0.5f32, -2.0, 3.0]),
            v(&[1.0f64, -4.0, 0.0]),
            z::<f32>(&[6]),
            z::<f64>(&[6]),
        ],
        Ulps(4),
    ));
    cases.push((
        &float_consts::KERNEL,
        ONE,
        ONE,
        vec![z::<f32>(&[5]), z::<f64>(&[5])],
        EXACT,
    ));
    cases.push((
        &int_misc::KERNEL,
        ONE,
        (8, 1, 1),
        vec![
            v(&[0u32, 1, 2, 3, 64, u32::MAX, 1 << 31, 7]),
            v(&[1u32, 0, 5, 3, 0, 0, 0, 8]),
            v(&[2u32, 0, 9, 3, 10, u32::MAX, 5, 9]),
            v(&[i32::MIN, -7, -1, 0, 1, 6, i32::MAX, -5]),
            z::<u32>(&[16]),
            z::<i32>(&[16]),
        ],
        EXACT,
    ));
    cases.push((
        &const_exprs::KERNEL,
        ONE,
        ONE,
        vec![
            v(&[u32::MAX, 3, 0x8000_0001, u32::MAX, 63, 0, 0x81]),
            z::<u32>(&[8]),
            z::<i64>(&[6]),
            z::<u8>(&[4]),
        ],
        EXACT,
    ));
    let shifts: Vec<u32> = (0..16).map(|i| SHIFTS[i % SHIFTS.len()]).collect();
    macro_rules! ints {
        ($t:ident, $u:ident, $xs:expr, $unw:expr, $($k:ident),*) => {{
            let x: Vec<$t> = $xs;
            let n = x.len();
            let y: Vec<$t> = x.iter().rev().cloned().collect();
            let zz: Vec<$t> = x.iter().map(|&q| if q == 0 { 3 as $t } else { q }).collect();
            let [bits, bin, un, ad, sh] = [$(&$k::KERNEL),*];
            let args = |out: Arg| vec![v(&x), v(&y), v(&zz), v(&vec![0i32; n]), out];
            cases.push((bits, ONE, (32, 1, 1), args(z::<u32>(&[n * 4])), EXACT));
            cases.push((bin, ONE, (32, 1, 1), args(z::<$t>(&[n * 9])), EXACT));
            cases.push((un, ONE, (32, 1, 1), args(z::<$t>(&[n * $unw])), EXACT));
            cases.push((ad, ONE, (32, 1, 1), args(z::<$u>(&[n])), EXACT));
            cases.push((sh, ONE, (32, 1, 1), vec![v(&x), v(&shifts[..n]), z::<$t>(&[n * 6])], EXACT));
        }};
    }
    ints!(
        i32,
        u32,
        EDGE_I32.to_vec(),
        5,
        bits_i32,
        bin_i32,
        un_i32,
        ad_i32,
        sh_i32
    );
    ints!(
        i64,
        u64,
        EDGE_I64.to_vec(),
        5,
        bits_i64,
        bin_i64,
        un_i64,
        ad_i64,
        sh_i64
    );
    ints!(
        u32,
        u32,
        EDGE_U32.to_vec(),
        3,
        bits_u32,
        bin_u32,
        un_u32,
        ad_u32,
        sh_u32
    );
    ints!(
        u64,
        u64,
        EDGE_U64.to_vec(),
        3,
        bits_u64,
        bin_u64,
        un_u64,
        ad_u64,
        sh_u64
    );
    ints!(
        usize,
        usize,
        EDGE_USIZE.to_vec(),
        3,
        bits_usize,
        bin_usize,
        un_usize,
        ad_usize,
        sh_usize
    );
    ints!(u8, u8, EDGE_U8.to_vec(), 3, bits_u8, bin_u8, un_u8, ad_u8, sh_u8);
    check(cases);
}
