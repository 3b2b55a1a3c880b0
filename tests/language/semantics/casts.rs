//! Float literals take the Rust type; casts saturate (float to int) and
//! wrap (int to int) as in Rust.

use super::*;

pub(crate) fn unsuffixed_float_literal_takes_the_rust_type() {
    let src = scale_tenth_f32::cuda_source();
    assert!(src.contains("0.1f"), "{src}");
    assert!(
        !src.replace("0.1f", "").contains("0.1"),
        "a bare double `0.1` in an f32 kernel:\n{src}"
    );
    // In an f64 kernel the literal stays a double.
    let src64 = scale_tenth_f64::cuda_source();
    assert!(src64.contains("* 0.1;") && !src64.contains("0.1f"), "{src64}");
    assert!(store_seven_tenths::cuda_source().contains("0.7f"));

    // `x[i] = 0.7` into f32 stores the f32 value.
    let mut x = zeros::<f32>(5).unwrap();
    store_seven_tenths![1, 32](&mut x).unwrap();
    for v in host(&x) {
        assert_eq!(v as f64, 0.7f32 as f64);
        assert_eq!(v as f64, 0.699999988079071);
    }

    // `x[i] * 0.1` with x = 0.7f32 is an f32 multiply.
    let xs = dev(&[0.7f32; 3]);
    let mut out = zeros::<f32>(3).unwrap();
    scale_tenth_f32![1, 3](&xs, &mut out).unwrap();
    for v in host(&out) {
        assert_eq!(v as f64, (0.7f32 * 0.1f32) as f64);
        assert_eq!(v as f64, 0.07000000029802322);
    }
    // And in f64 it is the f64 product.
    let xs = dev(&[0.7f64; 2]);
    let mut out = zeros::<f64>(2).unwrap();
    scale_tenth_f64![1, 2](&xs, &mut out).unwrap();
    assert_eq!(host(&out), [0.7f64 * 0.1f64; 2]);
}

pub(crate) fn small_int_casts_saturate_and_wrap_like_rust() {
    let f = [
        0.0f32,
        -0.0,
        0.9,
        -0.9,
        1.5,
        -1.5,
        127.0,
        127.9,
        128.0,
        -128.0,
        -128.9,
        -129.0,
        255.0,
        256.0,
        32767.0,
        32768.0,
        -32768.0,
        -32769.0,
        65535.0,
        65536.0,
        70000.7,
        -70000.7,
        1e20,
        -1e20,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let n = f.len();
    let (mut o8, mut o16, mut ou16) = (
        zeros::<i8>(2 * n).unwrap(),
        zeros::<i16>(2 * n).unwrap(),
        zeros::<u16>(2 * n).unwrap(),
    );
    cast_small![1, 64](&dev(&f), &mut o8, &mut o16, &mut ou16).unwrap();
    let (g8, g16, gu16) = (host(&o8), host(&o16), host(&ou16));
    for (i, &x) in f.iter().enumerate() {
        let w = x as i32;
        assert_eq!([g8[2 * i], g8[2 * i + 1]], [x as i8, w as i8], "{x}");
        assert_eq!([g16[2 * i], g16[2 * i + 1]], [x as i16, w as i16], "{x}");
        assert_eq!([gu16[2 * i], gu16[2 * i + 1]], [x as u16, w as u16], "{x}");
    }
}

pub(crate) fn float_to_int_casts_saturate_like_rust() {
    let f64s = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        -0.9,
        1.9,
        -1.9,
        2.5,
        255.0,
        255.9,
        256.0,
        300.0,
        -1.0,
        -200.0,
        2_147_483_647.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_649.0,
        4_294_967_295.0,
        4_294_967_296.0,
        3e9,
        -3e9,
        9.2e18,
        9.3e18,
        -9.3e18,
        1.8e19,
        1.9e19,
        1e20,
        -1e20,
        1e300,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    let n = f64s.len();
    let mut oi32 = zeros::<i32>(n).unwrap();
    let mut ou32 = zeros::<u32>(n).unwrap();
    let mut oi64 = zeros::<i64>(n).unwrap();
    let mut ou64 = zeros::<u64>(n).unwrap();
    let mut ou8 = zeros::<u8>(n).unwrap();
    cast_f64![1, 64](&dev(&f64s), &mut oi32, &mut ou32, &mut oi64, &mut ou64, &mut ou8).unwrap();
    let (gi32, gu32, gi64, gu64, gu8) = (host(&oi32), host(&ou32), host(&oi64), host(&ou64), host(&ou8));
    for (i, &v) in f64s.iter().enumerate() {
        assert_eq!(gi32[i], v as i32, "{v} as i32");
        assert_eq!(gu32[i], v as u32, "{v} as u32");
        assert_eq!(gi64[i], v as i64, "{v} as i64");
        assert_eq!(gu64[i], v as u64, "{v} as u64");
        assert_eq!(gu8[i], v as u8, "{v} as u8");
    }

    let f32s: Vec<f32> = f64s
        .iter()
        .map(|&v| v as f32)
        .chain([f32::MAX, f32::MIN, 16_777_217.0, 2_147_483_520.0, 4_294_967_040.0])
        .collect();
    let n = f32s.len();
    let mut oi32 = zeros::<i32>(n).unwrap();
    let mut ou32 = zeros::<u32>(n).unwrap();
    let mut oi64 = zeros::<i64>(n).unwrap();
    let mut ou64 = zeros::<u64>(n).unwrap();
    let mut ou8 = zeros::<u8>(n).unwrap();
    cast_f32![1, 64](&dev(&f32s), &mut oi32, &mut ou32, &mut oi64, &mut ou64, &mut ou8).unwrap();
    let (gi32, gu32, gi64, gu64, gu8) = (host(&oi32), host(&ou32), host(&oi64), host(&ou64), host(&ou8));
    for (i, &v) in f32s.iter().enumerate() {
        assert_eq!(gi32[i], v as i32, "{v} as i32");
        assert_eq!(gu32[i], v as u32, "{v} as u32");
        assert_eq!(gi64[i], v as i64, "{v} as i64");
        assert_eq!(gu64[i], v as u64, "{v} as u64");
        assert_eq!(gu8[i], v as u8, "{v} as u8");
    }
    // The C uses the saturating round-toward-zero intrinsics, never a plain C cast
    // (which is UB out of range).
    let src = cast_f32::cuda_source();
    for f in ["__float2int_rz", "__float2uint_rz", "__float2ll_rz", "__float2ull_rz"] {
        assert!(src.contains(f), "no {f} in\n{src}");
    }
}

pub(crate) fn int_to_int_and_int_to_float_casts() {
    let xs = [
        0i64,
        1,
        -1,
        255,
        256,
        -256,
        i32::MAX as i64,
        i32::MAX as i64 + 1,
        i32::MIN as i64,
        u32::MAX as i64,
        u32::MAX as i64 + 5,
        i64::MAX,
        i64::MIN,
        16_777_217,
        (1 << 53) + 1,
    ];
    let n = xs.len();
    let mut ou8 = zeros::<u8>(n).unwrap();
    let mut oi32 = zeros::<i32>(n).unwrap();
    let mut ou32 = zeros::<u32>(n).unwrap();
    let mut ou64 = zeros::<u64>(n).unwrap();
    let mut of32 = zeros::<f32>(n).unwrap();
    let mut of64 = zeros::<f64>(n).unwrap();
    cast_ints![1, 32](
        &dev(&xs),
        &mut ou8,
        &mut oi32,
        &mut ou32,
        &mut ou64,
        &mut of32,
        &mut of64,
    )
    .unwrap();
    for (i, &v) in xs.iter().enumerate() {
        assert_eq!(host(&ou8)[i], v as u8, "{v}");
        assert_eq!(host(&oi32)[i], v as i32, "{v}");
        assert_eq!(host(&ou32)[i], v as u32, "{v}");
        assert_eq!(host(&ou64)[i], (v as i32) as u64, "{v}");
        assert_eq!(host(&of32)[i], v as f32, "{v}");
        assert_eq!(host(&of64)[i], (v as u64) as f64, "{v}");
    }
}
