//! Control flow as in Rust: ranges to the ends of their types, `step_by`,
//! `while`/`loop`/`break`/`continue`, early returns, `if` chains, `match`,
//! reversed loops, and the order of evaluation.

use super::*;

pub(crate) fn side_effects_run_left_to_right() {
    use kernels::order::effects_in_order;
    let n = 100;
    let (mut c, mut d, mut c2) = (
        zeros::<u32>(n).unwrap(),
        zeros::<u32>(n).unwrap(),
        zeros::<u32>(n).unwrap(),
    );
    let (mut e, mut out) = (zeros::<i32>(2 * n).unwrap(), zeros::<u32>(4 * n).unwrap());
    effects_in_order![2, 64](&mut c, &mut d, &mut c2, &mut e, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(&host(&out)[4 * i..4 * i + 4], &[1, 203, 0, 79], "thread {i}");
        assert_eq!([host(&c)[i], host(&d)[i], host(&c2)[i]], [4, 1, 1], "thread {i}");
        assert_eq!(&host(&e)[2 * i..2 * i + 2], &[5, 0], "thread {i}");
    }
}

pub(crate) fn assignments_evaluate_the_value_before_the_index() {
    use kernels::order::assign_value_before_index;
    let n = 100;
    let mut c = zeros::<u32>(3 * n).unwrap();
    let (mut y, mut ys, mut yl) = (
        zeros::<u32>(4 * n).unwrap(),
        zeros::<u32>(4 * n).unwrap(),
        zeros::<u32>(4 * n).unwrap(),
    );
    assign_value_before_index![2, 64](&mut c, &mut y, &mut ys, &mut yl).unwrap();
    for i in 0..n {
        assert_eq!(&host(&y)[4 * i..4 * i + 4], &[0, 10, 0, 10], "global, thread {i}");
        assert_eq!(&host(&ys)[4 * i..4 * i + 4], &[0, 10, 0, 12], "shared, thread {i}");
        assert_eq!(&host(&yl)[4 * i..4 * i + 4], &[0, 12, 0, 14], "local, thread {i}");
        assert_eq!(&host(&c)[3 * i..3 * i + 3], &[6, 2, 4], "thread {i}");
    }
}

pub(crate) fn host_ranges_i32(a: i32, b: i32, s: usize) -> [i64; 8] {
    let mut r = [0i64; 8];
    for k in a..b {
        r[0] += k as i64;
        r[1] += 1;
    }
    for k in a..=b {
        r[2] += k as i64;
        r[3] += 1;
    }
    for k in (a..b).step_by(s) {
        r[4] += k as i64;
        r[5] += 1;
    }
    for k in (a..=b).step_by(s) {
        r[6] += k as i64;
        r[7] += 1;
    }
    r
}

pub(crate) fn host_ranges_u32(a: u32, b: u32, s: usize) -> [u64; 8] {
    let mut r = [0u64; 8];
    for k in a..b {
        r[0] += k as u64;
        r[1] += 1;
    }
    for k in a..=b {
        r[2] += k as u64;
        r[3] += 1;
    }
    for k in (a..b).step_by(s) {
        r[4] += k as u64;
        r[5] += 1;
    }
    for k in (a..=b).step_by(s) {
        r[6] += k as u64;
        r[7] += 1;
    }
    r
}

pub(crate) fn range_loops_match_rust_including_ends_at_max() {
    let cases_i32: &[(i32, i32, usize)] = &[
        (0, 10, 3),
        (-5, 5, 2),
        (5, 5, 1),
        (6, 5, 1),
        (-3, 4, 7),
        (-3, 4, 8),
        (i32::MAX - 5, i32::MAX, 2),
        (i32::MAX - 5, i32::MAX, 5),
        (i32::MAX - 5, i32::MAX, 6),
        (i32::MAX - 1, i32::MAX, 1),
        (i32::MAX, i32::MAX, 1),
        (i32::MIN, i32::MIN + 3, 1),
        (i32::MAX - 100, i32::MAX, 1 << 31),
        (i32::MIN, i32::MIN + 100, 1 << 31),
    ];
    let mut out = zeros::<i64>(8).unwrap();
    for &(a, b, s) in cases_i32 {
        ranges_i32![1, 1](a, b, s, &mut out).unwrap();
        assert_eq!(host(&out), host_ranges_i32(a, b, s), "i32: a = {a}, b = {b}, step {s}");
    }
    let cases_u32: &[(u32, u32, usize)] = &[
        (0, 10, 3),
        (0, 0, 1),
        (1, 0, 1),
        (u32::MAX - 5, u32::MAX, 1),
        (u32::MAX - 5, u32::MAX, 4),
        (u32::MAX - 5, u32::MAX, 5),
        (u32::MAX - 5, u32::MAX, 6),
        (u32::MAX, u32::MAX, 1),
        (u32::MAX - 1, u32::MAX, 3),
        (u32::MAX - 100, u32::MAX, 1 << 31),
        (u32::MAX - 100, u32::MAX, u32::MAX as usize),
    ];
    let mut out = zeros::<u64>(8).unwrap();
    for &(a, b, s) in cases_u32 {
        ranges_u32![1, 1](a, b, s, &mut out).unwrap();
        assert_eq!(host(&out), host_ranges_u32(a, b, s), "u32: a = {a}, b = {b}, step {s}");
    }
}

pub(crate) fn step_by_over_the_whole_range_does_not_overflow() {
    let mut out = zeros::<i64>(4).unwrap();
    for (a, b, s) in [
        (i32::MIN, i32::MAX, 1usize << 31),
        (i32::MIN, i32::MAX, 1 << 30),
        (i32::MIN, i32::MAX, (1 << 31) - 1),
        (i32::MIN, i32::MAX, u32::MAX as usize),
        (i32::MIN + 1, i32::MAX, 1 << 28),
    ] {
        stepped_i32![1, 1](a, b, s, &mut out).unwrap();
        let r = host_ranges_i32_stepped(a, b, s);
        assert_eq!(host(&out), r, "i32: a = {a}, b = {b}, step {s}");
    }
    let mut out = zeros::<u64>(4).unwrap();
    for (a, b, s) in [
        (0, u32::MAX, 1usize << 31),
        (0, u32::MAX, (1 << 31) + 1),
        (0, u32::MAX, u32::MAX as usize),
        (1, u32::MAX, 1 << 28),
        (5, u32::MAX, 3 << 29),
    ] {
        stepped_u32![1, 1](a, b, s, &mut out).unwrap();
        let r = host_ranges_u32_stepped(a, b, s);
        assert_eq!(host(&out), r, "u32: a = {a}, b = {b}, step {s}");
    }
}

pub(crate) fn host_ranges_i32_stepped(a: i32, b: i32, s: usize) -> Vec<i64> {
    let (x, y): (Vec<i32>, Vec<i32>) = ((a..b).step_by(s).collect(), (a..=b).step_by(s).collect());
    let sum = |v: &[i32]| v.iter().map(|&k| k as i64).sum::<i64>();
    vec![sum(&x), x.len() as i64, sum(&y), y.len() as i64]
}

pub(crate) fn host_ranges_u32_stepped(a: u32, b: u32, s: usize) -> Vec<u64> {
    let (x, y): (Vec<u32>, Vec<u32>) = ((a..b).step_by(s).collect(), (a..=b).step_by(s).collect());
    let sum = |v: &[u32]| v.iter().map(|&k| k as u64).sum::<u64>();
    vec![sum(&x), x.len() as u64, sum(&y), y.len() as u64]
}

/// A `usize` step larger than the range's type: Rust yields only the first
/// element. The CUDA C must keep the step in 64 bits: narrowed to the loop
/// type, 2^32 would become 0 (an endless loop on the GPU) and 2^32 + 1 would be 1.
pub(crate) fn step_by_wider_than_the_loop_type() {
    // CPU backend: checked against Rust.
    let mut out = zeros::<u64>(8).unwrap();
    for s in [1usize << 32, (1 << 32) + 1, usize::MAX] {
        ranges_u32![1, 1](0, 10, s, &mut out).unwrap();
        assert_eq!(host(&out), host_ranges_u32(0, 10, s), "step {s}");
    }
    let mut out = zeros::<i64>(8).unwrap();
    for s in [1usize << 32, (1 << 32) + 1] {
        ranges_i32![1, 1](-4, 10, s, &mut out).unwrap();
        assert_eq!(host(&out), host_ranges_i32(-4, 10, s), "step {s}");
    }
    // CUDA C: the step must not be narrowed to 32 bits.
    let src = ranges_u32::cuda_source();
    assert!(!src.contains("_step = (unsigned int)s"), "step narrowed to u32:\n{src}");
    let src = ranges_i32::cuda_source();
    assert!(!src.contains("_step = (int)s"), "step narrowed to i32:\n{src}");
}

pub(crate) fn host_loops(v: u32) -> [u32; 4] {
    let mut s = 0u32;
    for k in 0..v {
        if k % 3 == 0 {
            continue;
        }
        if k > 50 {
            break;
        }
        s += k;
    }
    let mut c = v + 1;
    let mut steps = 0;
    while c != 1 {
        c = if c % 2 == 0 { c / 2 } else { 3 * c + 1 };
        steps += 1;
    }
    let mut p = 1u32;
    let mut round = 0u32;
    loop {
        round += 1;
        if p >= v {
            break;
        }
        if round % 2 == 1 {
            continue;
        }
        p *= 2;
    }
    let odd = (0..=v).step_by(3).filter(|k| k % 2 != 0).count() as u32;
    [s, steps, p, odd]
}

pub(crate) fn while_loop_break_continue() {
    let xs: Vec<u32> = (0..70).chain([97, 200, 1000, 4095]).collect();
    let n = xs.len();
    let mut out = zeros::<u32>(4 * n).unwrap();
    loops![n.div_ceil(16), 16](&dev(&xs), &mut out).unwrap();
    let got = host(&out);
    for (i, &v) in xs.iter().enumerate() {
        assert_eq!(&got[4 * i..4 * i + 4], &host_loops(v), "v = {v}");
    }
}

pub(crate) fn early_return_skips_the_rest() {
    let n = 45;
    let mut out = zeros::<i32>(n).unwrap();
    early_return![3, 16](&mut out).unwrap();
    let want: Vec<i32> = (0..n).map(|i| if i % 2 == 0 { 1 } else { 2 }).collect();
    assert_eq!(host(&out), want);
}

pub(crate) fn if_chains_if_expressions_shadowing_and_constants() {
    let xs = [-20i32, -7, -1, 0, 1, 2, 9, 10, 11, 1000, i32::MIN + 1, -2];
    let n = xs.len();
    let mut cls = zeros::<i32>(n).unwrap();
    let mut val = zeros::<f64>(n).unwrap();
    let mut big = zeros::<f32>(n).unwrap();
    branches![1, 32](&dev(&xs), &mut cls, &mut val, &mut big).unwrap();
    for (i, &v) in xs.iter().enumerate() {
        let c = if v < 0 {
            -1
        } else if v == 0 {
            0
        } else if v < 10 {
            1
        } else {
            2
        };
        assert_eq!(host(&cls)[i], c, "v = {v}");
        let w = if v % 2 == 0 {
            v / 2
        } else if v > 0 {
            v.wrapping_mul(3).wrapping_add(1)
        } else {
            3
        };
        let v1 = w.wrapping_add(3) as f64 * SCALE;
        let r = (v1 + std::f64::consts::PI) * 2.0;
        let want = r - v1;
        assert_eq!(host(&val)[i], want, "v = {v}");
        let b = if want > 0.0 { f32::MAX } else { f32::MIN_POSITIVE };
        assert_eq!(host(&big)[i], b, "v = {v}");
    }
    let src = branches::cuda_source();
    assert!(src.contains("3.141592653589793"), "{src}");
    assert!(src.contains("SCALE = 2.5"), "{src}");
}

pub(crate) fn match_i32_host(x: i32) -> (i32, i32) {
    let out = match x.wrapping_sub(1) {
        0 => 10,
        -1 | 1 => 20,
        2..=9 => 30,
        -100..-10 => 40,
        i32::MAX => 50,
        _ => 60,
    };
    let kind = match x {
        0 => 1,
        1..=3 => 2,
        4..=7 if x % 2 == 0 => 3,
        4..=7 => 4,
        _ => 5,
    };
    (out, kind)
}

pub(crate) fn match_on_integers_and_bool_matches_rust() {
    let x: Vec<i32> = (-120..40)
        .chain([i32::MIN, i32::MIN + 1, i32::MAX, -11, -10, -9])
        .collect();
    let (mut out, mut kind) = (zeros::<i32>(x.len()).unwrap(), zeros::<i32>(x.len()).unwrap());
    match_i32![(x.len() as u32).div_ceil(64), 64](&dev(&x), &mut out, &mut kind).unwrap();
    let want: Vec<(i32, i32)> = x.iter().map(|&v| match_i32_host(v)).collect();
    let got: Vec<(i32, i32)> = host(&out).into_iter().zip(host(&kind)).collect();
    assert_eq!(got, want);

    let x: Vec<u8> = (0..=255).collect();
    let mut out = zeros::<u32>(256).unwrap();
    match_u8_bool_loop![4, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<u32> = x
        .iter()
        .map(|&v| {
            let band = match v {
                0..=99 => 1,
                100..=199 => 2,
                _ => 3,
            };
            let big = if v > 127 { 100 } else { 0 };
            let mut acc = 0;
            for k in 0..20u32 {
                match k % 4 {
                    0 => continue,
                    3 => {
                        if k > v as u32 % 16 {
                            break;
                        }
                    }
                    _ => acc += k,
                }
            }
            band + big + acc * 1000
        })
        .collect();
    assert_eq!(host(&out), want);
}

pub(crate) fn match_arms_with_barriers() {
    for mode in 0..8u32 {
        let mut out = zeros::<u32>(64).unwrap();
        match_with_barrier![1, 64](mode, &mut out).unwrap();
        let want: Vec<u32> = (0..64u32)
            .map(|t| match mode % 4 {
                0 => 63 - t,
                1 | 2 => ((63 - t + 1) % 64) * 2,
                _ => 7,
            })
            .collect();
        assert_eq!(host(&out), want, "mode {mode}");
    }
}

/// The first 8 elements and the count of `it`, as the rev kernels store them.
pub(crate) fn first8<T: Copy + Default>(it: impl Iterator<Item = T>, out: &mut Vec<T>, cast: impl Fn(usize) -> T) {
    let items: Vec<T> = it.take(100_000).collect();
    let mut head = vec![T::default(); 8];
    for (h, v) in head.iter_mut().zip(&items) {
        *h = *v;
    }
    out.extend(head);
    out.push(cast(items.len()));
}

pub(crate) fn rev_loops_match_rust() {
    let cases_i32: &[(i32, i32, usize)] = &[
        (0, 10, 3),
        (-5, 5, 2),
        (5, 5, 1),
        (6, 5, 1),
        (-3, 4, 7),
        (-3, 4, 8),
        (i32::MIN, i32::MIN + 3, 1),
        (i32::MAX - 5, i32::MAX, 2),
        (-100, 100, 1 << 40),
    ];
    for &(a, b, s) in cases_i32 {
        let mut out = zeros::<i64>(37).unwrap();
        rev_i32![1, 1](a, b, s, &mut out).unwrap();
        let mut want = Vec::new();
        first8((a..b).rev().map(i64::from), &mut want, |n| n as i64);
        first8((a..=b).rev().map(i64::from), &mut want, |n| n as i64);
        first8((a..b).rev().step_by(s).map(i64::from), &mut want, |n| n as i64);
        first8((a..=b).rev().step_by(s).map(i64::from), &mut want, |n| n as i64);
        want.push((a..b).filter(|i| i % 2 != 0).count() as i64);
        assert_eq!(host(&out), want, "i32 {a} {b} {s}");
    }
    let cases_usize: &[(usize, usize, usize)] = &[
        (0, 0, 1),
        (0, 1, 1),
        (0, 5, 2),
        (1, 0, 1),
        (0, 7, 7),
        (0, 7, 8),
        (usize::MAX - 3, usize::MAX, 2),
    ];
    for &(a, b, s) in cases_usize {
        let mut out = zeros::<u64>(36).unwrap();
        rev_usize![1, 1](a, b, s, &mut out).unwrap();
        let mut want = Vec::new();
        first8((a..b).rev().map(|v| v as u64), &mut want, |n| n as u64);
        first8((a..=b).rev().map(|v| v as u64), &mut want, |n| n as u64);
        first8((a..b).rev().step_by(s).map(|v| v as u64), &mut want, |n| n as u64);
        first8((a..=b).rev().step_by(s).map(|v| v as u64), &mut want, |n| n as u64);
        assert_eq!(host(&out), want, "usize {a} {b} {s}");
    }
    for &(a, b, s) in &[
        (0u8, 255u8, 100usize),
        (0, 255, 255),
        (0, 255, 256),
        (250, 255, 1),
        (3, 2, 1),
        (0, 0, 1),
    ] {
        let mut out = zeros::<u32>(18).unwrap();
        rev_u8![1, 1](a, b, s, &mut out).unwrap();
        let mut want = Vec::new();
        first8((a..b).rev().step_by(s).map(u32::from), &mut want, |n| n as u32);
        first8((a..=b).rev().step_by(s).map(u32::from), &mut want, |n| n as u32);
        assert_eq!(host(&out), want, "u8 {a} {b} {s}");
    }
}

pub(crate) fn rev_loops_with_barriers() {
    let x: Vec<u32> = (0..64).map(|v| v * 3 + 1).collect();
    let mut out = zeros::<u32>(64).unwrap();
    rev_barrier_sum![1, 64](&dev(&x), &mut out).unwrap();
    let want = x.iter().sum::<u32>() + (1..=8u32).rev().step_by(3).sum::<u32>();
    assert_eq!(host(&out), vec![want; 64]);
}

pub(crate) fn rev_step_by_zero_is_a_fault() {
    let mut out = zeros::<i64>(37).unwrap();
    let (block, thread, faults, m) = fault_of(rev_i32![1, 1](0, 10, 0, &mut out), "rev_i32");
    // Two loops step by zero; the thread goes on after each.
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 2));
    assert!(m.contains("step") && m.contains("zero"), "{m}");
    let got = host(&out);
    assert_eq!((got[26], got[35], got[8]), (0, 0, 10));
}
