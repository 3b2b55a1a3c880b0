//! Integer arithmetic wraps as in Rust's release builds, for every width;
//! division truncates, and a division by zero is a fault.

use super::*;

pub(crate) const I32S: [i32; 10] = [0, 1, -1, 7, i32::MAX, i32::MIN, 46341, -46341, 65536, 123_456_789];
pub(crate) const SHIFTS_I32: [i32; 8] = [0, 1, 31, 32, 33, 64, 100, -1];

pub(crate) fn i32_arithmetic_wraps() {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &I32S {
        for &y in I32S.iter().chain(&SHIFTS_I32) {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let (da, db) = (dev(&a), dev(&b));
    let mut out = zeros::<i32>(n * 7).unwrap();
    wrap_i32![n.div_ceil(64), 64](&da, &db, &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
            x.wrapping_abs(),
        ];
        assert_eq!(&got[i * 7..i * 7 + 7], &want, "x = {x}, y = {y}");
    }
    // The C does the arithmetic in unsigned (signed overflow is UB in C) and masks shifts.
    let src = wrap_i32::cuda_source();
    assert!(src.contains("(unsigned int)x + (unsigned int)y"), "{src}");
    assert!(src.contains("(y & 31)"), "{src}");
}

pub(crate) fn u32_arithmetic_wraps() {
    let vals = [
        0u32,
        1,
        2,
        31,
        32,
        33,
        1000,
        u32::MAX,
        u32::MAX - 1,
        1 << 31,
        65536,
        4_000_000_000,
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let mut out = zeros::<u32>(n * 5).unwrap();
    wrap_u32![n.div_ceil(32), 32](&dev(&a), &dev(&b), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_shl(y),
            x.wrapping_shr(y),
        ];
        assert_eq!(&got[i * 5..i * 5 + 5], &want, "x = {x}, y = {y}");
    }
}

pub(crate) fn u8_arithmetic_wraps() {
    let vals = [0u8, 1, 2, 7, 8, 9, 15, 16, 100, 127, 128, 200, 255];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let mut out = zeros::<u8>(n * 6).unwrap();
    wrap_u8![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
            x.wrapping_add(200).wrapping_mul(3),
        ];
        assert_eq!(&got[i * 6..i * 6 + 6], &want, "x = {x}, y = {y}");
    }
    let src = wrap_u8::cuda_source();
    assert!(
        src.contains("(unsigned char)(x + y)"),
        "u8 result not truncated:\n{src}"
    );
    assert!(src.contains("(y & 7)"), "{src}");
}

/// The 16 results of `wrap_i8`/`wrap_i16`/`wrap_u16` for one pair, as Rust
/// computes them (slots a kernel leaves alone are 0).
macro_rules! small_want {
    ($x:expr, $y:expr, $acc_add:expr, $acc_mul:expr, $neg:expr, $abs:expr) => {{
        let (x, y) = ($x, $y);
        let acc = x.wrapping_add($acc_add).wrapping_mul($acc_mul);
        [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            $neg(x),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
            if y != 0 { x.wrapping_div(y) } else { 0 },
            if y != 0 { x.wrapping_rem(y) } else { 0 },
            !x,
            x & y,
            x | y,
            x ^ y,
            acc,
            $abs(x),
            x.min(y),
            x.max(y),
        ]
    }};
}

pub(crate) fn i8_i16_u16_arithmetic_wraps_like_rust() {
    fn pairs<T: Copy>(vals: &[T]) -> (Vec<T>, Vec<T>) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for &x in vals {
            for &y in vals {
                a.push(x);
                b.push(y);
            }
        }
        (a, b)
    }
    let (a, b) = pairs(&[i8::MIN, -127, -100, -9, -8, -1, 0, 1, 2, 7, 8, 9, 15, 100, 127]);
    let n = a.len();
    let (mut out, mut wide) = (zeros::<i8>(n * 16).unwrap(), zeros::<i32>(n).unwrap());
    wrap_i8![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out, &mut wide).unwrap();
    let (got, gw) = (host(&out), host(&wide));
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(
            &got[i * 16..i * 16 + 16],
            &small_want!(x, y, 100i8, 3, i8::wrapping_neg, i8::wrapping_abs),
            "i8: x = {x}, y = {y}"
        );
        assert_eq!(
            gw[i],
            x.wrapping_mul(y) as i32 + x as i32 * y as i32,
            "i8: x = {x}, y = {y}"
        );
    }

    let (a, b) = pairs(&[
        i16::MIN,
        -32767,
        -300,
        -17,
        -16,
        -1,
        0,
        1,
        15,
        16,
        17,
        255,
        256,
        30000,
        i16::MAX,
    ]);
    let n = a.len();
    let (mut out, mut wide) = (zeros::<i16>(n * 16).unwrap(), zeros::<i32>(n).unwrap());
    wrap_i16![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out, &mut wide).unwrap();
    let (got, gw) = (host(&out), host(&wide));
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(
            &got[i * 16..i * 16 + 16],
            &small_want!(x, y, 30000i16, 3, i16::wrapping_neg, i16::wrapping_abs),
            "i16: x = {x}, y = {y}"
        );
        assert_eq!(
            gw[i],
            x.wrapping_mul(y) as i32 + x as i32 * y as i32,
            "i16: x = {x}, y = {y}"
        );
    }

    let (a, b) = pairs(&[
        0u16,
        1,
        2,
        15,
        16,
        17,
        255,
        256,
        1000,
        32767,
        32768,
        40000,
        65534,
        u16::MAX,
    ]);
    let n = a.len();
    let (mut out, mut wide) = (zeros::<u16>(n * 16).unwrap(), zeros::<u32>(n).unwrap());
    wrap_u16![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out, &mut wide).unwrap();
    let (got, gw) = (host(&out), host(&wide));
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        assert_eq!(
            &got[i * 16..i * 16 + 16],
            &small_want!(x, y, 60000u16, x, |_| 0, |_| 0),
            "u16: x = {x}, y = {y}"
        );
        assert_eq!(
            gw[i],
            (x.wrapping_mul(y) as u32).wrapping_add(x as u32 * y as u32),
            "u16: x = {x}, y = {y}"
        );
    }
    let src = wrap_u16::cuda_source();
    assert!(
        src.contains("(unsigned short)((unsigned int)x * (unsigned int)y)"),
        "{src}"
    );
}

pub(crate) fn i64_and_u64_arithmetic_wraps() {
    let vals = [
        0i64,
        1,
        -1,
        63,
        64,
        65,
        127,
        i64::MAX,
        i64::MIN,
        3_037_000_500,
        -3_037_000_500,
        1 << 40,
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &vals {
        for &y in &vals {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let mut out = zeros::<i64>(n * 6).unwrap();
    wrap_i64![n.div_ceil(32), 32](&dev(&a), &dev(&b), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
        ];
        assert_eq!(&got[i * 6..i * 6 + 6], &want, "x = {x}, y = {y}");
    }

    let ua: Vec<u64> = a.iter().map(|&v| v as u64).collect();
    let ub: Vec<u64> = b.iter().map(|&v| v as u64).collect();
    let mut out = zeros::<u64>(n * 5).unwrap();
    wrap_u64![n.div_ceil(32), 32](&dev(&ua), &dev(&ub), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (x, y) = (ua[i], ub[i]);
        let want = [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
        ];
        assert_eq!(&got[i * 5..i * 5 + 5], &want, "x = {x}, y = {y}");
    }
}

pub(crate) fn signed_division_truncates_and_min_by_minus_one_wraps() {
    let vals = [0i32, 1, -1, 2, -2, 3, -3, 7, -7, 100, i32::MAX, i32::MIN, i32::MIN + 1];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &vals {
        for &y in vals.iter().filter(|&&y| y != 0) {
            a.push(x);
            b.push(y);
        }
    }
    let n = a.len();
    let mut q = zeros::<i32>(n).unwrap();
    let mut r = zeros::<i32>(n).unwrap();
    divrem_i32![n.div_ceil(32), 32](&dev(&a), &dev(&b), &mut q, &mut r).unwrap();
    let (gq, gr) = (host(&q), host(&r));
    for i in 0..n {
        assert_eq!(gq[i], a[i].wrapping_div(b[i]), "{} / {}", a[i], b[i]);
        assert_eq!(gr[i], a[i].wrapping_rem(b[i]), "{} % {}", a[i], b[i]);
    }
    assert!(a.iter().zip(&b).any(|(&x, &y)| x == i32::MIN && y == -1));

    let a64: Vec<i64> = a
        .iter()
        .map(|&v| v as i64 * 3_000_000_001)
        .chain([i64::MIN, i64::MIN, -7])
        .collect();
    let b64: Vec<i64> = b.iter().map(|&v| v as i64).chain([-1, 1, 2]).collect();
    let n = a64.len();
    let mut q = zeros::<i64>(n).unwrap();
    let mut r = zeros::<i64>(n).unwrap();
    divrem_i64![n.div_ceil(32), 32](&dev(&a64), &dev(&b64), &mut q, &mut r).unwrap();
    let (gq, gr) = (host(&q), host(&r));
    for i in 0..n {
        assert_eq!(gq[i], a64[i].wrapping_div(b64[i]), "{} / {}", a64[i], b64[i]);
        assert_eq!(gr[i], a64[i].wrapping_rem(b64[i]), "{} % {}", a64[i], b64[i]);
    }
    // The C guards the `/ -1` case (INT_MIN / -1 traps or is UB in C).
    assert!(divrem_i32::cuda_source().contains("b == -1"));
}

pub(crate) fn unsigned_division() {
    let a = [0u32, 1, 7, 100, 255, 256, 1000, u32::MAX, u32::MAX, 513];
    let b = [1u32, 1, 2, 7, 16, 3, 257, 1, u32::MAX, 2];
    let n = a.len();
    let mut q = zeros::<u32>(n).unwrap();
    let mut r = zeros::<u32>(n).unwrap();
    let mut q8 = zeros::<u8>(n).unwrap();
    divrem_u![1, 16](&dev(&a), &dev(&b), &mut q, &mut r, &mut q8).unwrap();
    for i in 0..n {
        assert_eq!(host(&q)[i], a[i] / b[i]);
        assert_eq!(host(&r)[i], a[i] % b[i]);
        // b[i] as u8 is never 0 in this table.
        assert_eq!(host(&q8)[i], (a[i] as u8) / (b[i] as u8), "{} / {} in u8", a[i], b[i]);
    }
}

pub(crate) fn division_by_zero_is_a_kernel_fault_naming_the_thread() {
    // 8 threads per block; element 11 (block 1, thread 3) divides by zero.
    let n = 20;
    let a: Vec<i32> = (0..n).map(|i| i * 10 + 1).collect();
    let mut b = vec![3i32; n as usize];
    b[11] = 0;
    let mut q = zeros::<i32>(n as usize).unwrap();
    let mut r = zeros::<i32>(n as usize).unwrap();
    let res = divrem_i32![3, 8](&dev(&a), &dev(&b), &mut q, &mut r);
    let (block, thread, faults, message) = fault_of(res, "divrem_i32");
    assert_eq!(block, [1, 0, 0]);
    assert_eq!(thread, [3, 0, 0]);
    assert!(faults >= 1);
    assert!(message.contains("division by zero"), "{message}");
    let shown = Error::KernelFault {
        kernel: "divrem_i32".into(),
        block,
        thread,
        message: message.clone(),
        faults,
    }
    .to_string();
    assert!(shown.contains("block (1, 0, 0) thread (3, 0, 0)"), "{shown}");
    // The other threads still ran.
    let gq = host(&q);
    for i in (0..n as usize).filter(|&i| i != 11) {
        assert_eq!(gq[i], a[i] / 3);
    }

    // Unsigned `%` by zero in the second block of a 2-D-free launch: block 0, thread 0.
    let mut q = zeros::<u32>(2).unwrap();
    let mut r = zeros::<u32>(2).unwrap();
    let mut q8 = zeros::<u8>(2).unwrap();
    let res = divrem_u![1, 2](&dev(&[5u32, 6]), &dev(&[0u32, 2]), &mut q, &mut r, &mut q8);
    let (block, thread, _, message) = fault_of(res, "divrem_u");
    assert_eq!((block, thread), ([0, 0, 0], [0, 0, 0]));
    assert!(message.contains("division by zero"), "{message}");
    assert_eq!(host(&q)[1], 3);

    // u8 division by a value whose low byte is 0 (256 as u8 == 0) faults too.
    let res = divrem_u![1, 2](&dev(&[5u32, 6]), &dev(&[1u32, 256]), &mut q, &mut r, &mut q8);
    let (_, thread, _, _) = fault_of(res, "divrem_u");
    assert_eq!(thread, [1, 0, 0]);
}

pub(crate) fn integer_min_max_abs() {
    let a = [0i32, 5, -5, i32::MAX, i32::MIN, -1, 7];
    let b = [1i32, -5, 5, i32::MIN, i32::MAX, -1, 3];
    let ua = [0u64, 5, u64::MAX, 1 << 40, 3, 9, 0];
    let ub = [1u64, 4, 0, (1 << 40) + 1, 3, 2, u64::MAX];
    let n = a.len();
    let mut out = zeros::<i32>(3 * n).unwrap();
    let mut uout = zeros::<u64>(2 * n).unwrap();
    math_int![1, 8](&dev(&a), &dev(&b), &mut out, &dev(&ua), &dev(&ub), &mut uout).unwrap();
    let (g, gu) = (host(&out), host(&uout));
    for i in 0..n {
        assert_eq!(
            &g[3 * i..3 * i + 3],
            &[a[i].min(b[i]), a[i].max(b[i]), a[i].wrapping_abs()]
        );
        assert_eq!(&gu[2 * i..2 * i + 2], &[ua[i].min(ub[i]), ua[i].max(ub[i])]);
    }
}
