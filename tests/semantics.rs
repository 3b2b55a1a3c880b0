//! CUDA semantics of the kernel language, checked against independent host
//! computations on the backend of the process (the CPU backend, or CUDA under
//! `GPUJIT_BACKEND=cuda`), and (where the point is the emitted C) on the text
//! of `cuda_source()`. Tests of what only the CPU backend does (per-thread
//! `KernelFault` reports for out-of-bounds indices, ÷0 and `step_by(0)`, the
//! CPU time limit) need `Tool::CpuBackend`: on CUDA an out-of-bounds access
//! or ÷0 is undefined and a trap is a sticky fault for the whole process.

mod kernels;
use kernels::control::{
    match_i32, match_u8_bool_loop, match_with_barrier, rev_barrier_sum, rev_i32, rev_u8, rev_usize, tuple_values,
};
use kernels::types::{
    bool_arrays, cast_small, small_scalars, small_shared_and_views, tuple_locals, tuple_params, wrap_i16, wrap_i8,
    wrap_u16,
};
use kernels::*;

#[macro_use]
mod common;
use common::{fault_of, Tool};

use gpujit::{to_device, zeros, DeviceArray, DeviceScalar, Error};

fn main() -> std::process::ExitCode {
    let (any, cpu) = (None, Some(Tool::CpuBackend));
    common::run_tests(
        include_str!("semantics.rs"),
        cases![
            any => all_lists_every_kernel_once_with_its_cuda_entry,
            any => grid1_is_computed_in_64_bits,
            any => grid3_gridsize3_and_index_fields,
            any => grid2_tuple_and_gridsize2,
            any => unsuffixed_float_literal_takes_the_rust_type,
            any => i32_arithmetic_wraps,
            any => u32_arithmetic_wraps,
            any => u8_arithmetic_wraps,
            any => i8_i16_u16_arithmetic_wraps_like_rust,
            any => small_int_casts_saturate_and_wrap_like_rust,
            any => small_scalar_parameters,
            any => bool_arrays_in_out_and_shared,
            any => small_shared_arrays_and_views,
            any => side_effects_run_left_to_right,
            any => assignments_evaluate_the_value_before_the_index,
            any => tuple_locals_fields_and_destructuring,
            any => tuples_as_device_function_arguments,
            any => i64_and_u64_arithmetic_wraps,
            any => float_to_int_casts_saturate_like_rust,
            any => int_to_int_and_int_to_float_casts,
            any => signed_division_truncates_and_min_by_minus_one_wraps,
            any => unsigned_division,
            cpu => division_by_zero_is_a_kernel_fault_naming_the_thread,
            cpu => out_of_bounds_write_is_a_fault_with_coordinates,
            cpu => out_of_bounds_read_is_a_fault,
            cpu => out_of_bounds_2d_index_faults_per_axis,
            cpu => first_fault_is_the_lowest_block_then_thread_and_all_are_counted,
            cpu => shared_array_out_of_bounds_is_a_fault,
            cpu => step_by_zero_is_a_fault,
            cpu => a_zero_step_faults_only_its_own_thread,
            cpu => fault_counts_are_exact,
            any => fault_kernels_without_a_fault_give_the_rust_results,
            any => range_loops_match_rust_including_ends_at_max,
            any => step_by_over_the_whole_range_does_not_overflow,
            any => step_by_wider_than_the_loop_type,
            any => while_loop_break_continue,
            any => early_return_skips_the_rest,
            any => if_chains_if_expressions_shadowing_and_constants,
            any => three_d_arrays_index_dim_shape_len,
            any => math_methods_match_the_host_within_a_few_ulps,
            any => integer_min_max_abs,
            any => scalar_parameters_of_every_type,
            any => block_reduction_with_shared_memory_and_barriers,
            any => two_d_shared_tile_transpose,
            any => three_d_shared_array_sees_other_threads_writes,
            any => mut_arguments_carry_over_between_launches,
            any => loops_over_outside_constants,
            any => match_on_integers_and_bool_matches_rust,
            any => match_arms_with_barriers,
            any => rev_loops_match_rust,
            any => rev_loops_with_barriers,
            cpu => rev_step_by_zero_is_a_fault,
            any => tuples_as_values,
            cpu => faults_print_nothing,
            cpu => arithmetic_on_outside_constants_wraps_and_faults,
            cpu => run_away_kernels_stop_at_the_time_limit,
            cpu => a_time_limit_leaves_finishing_kernels_alone,
        ],
    )
}

// ---------------------------------------------------------------- helpers

fn dev<T: DeviceScalar>(v: &[T]) -> DeviceArray<T> {
    to_device(v).unwrap()
}

fn host<T: DeviceScalar>(a: &DeviceArray<T>) -> Vec<T> {
    a.copy_to_host().unwrap()
}

/// Distance in units in the last place between two finite f64s (NaN == NaN).
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.signum() != b.signum() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() || a.signum() != b.signum() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits()) as u64
}

// ---------------------------------------------------------------- the kernel list

fn all_lists_every_kernel_once_with_its_cuda_entry() {
    let ks = all();
    let mut names: Vec<&str> = ks.iter().map(|k| k.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "duplicate kernels in all()");
    for k in ks {
        let src = (k.cuda_source)();
        let entry = format!("extern \"C\" __global__ void {}(", k.entry);
        assert!(src.contains(&entry), "{}: no `{entry}` in\n{src}", k.name);
    }
}

// ---------------------------------------------------------------- 64-bit index math

fn grid1_is_computed_in_64_bits() {
    // The emitted C widens before multiplying, so block 8,388,608 × 256 + 255
    // gives 2,147,483,903 rather than wrapping at 2^31 / 2^32.
    let src = global_index::cuda_source();
    assert!(
        src.contains("(unsigned long long)blockIdx.x * blockDim.x"),
        "grid(1) not widened before the multiply:\n{src}"
    );
    // `block_idx().x * block_dim().x` written by hand is widened too.
    assert!(
        src.contains("((unsigned long long)blockIdx.x) * ((unsigned long long)blockDim.x)"),
        "{src}"
    );

    // Small grid, odd size: grid(1) and the manual formula agree with i.
    let n = 3 * 256 + 17;
    let mut out = zeros::<u64>(n).unwrap();
    let mut manual = zeros::<u64>(n).unwrap();
    global_index![n.div_ceil(256), 256](&mut out, &mut manual).unwrap();
    let want: Vec<u64> = (0..n as u64).collect();
    assert_eq!(host(&out), want);
    assert_eq!(host(&manual), want);

    // The same index arithmetic on usize scalars (block 8,388,608, 256
    // threads, thread 255) is 64-bit on the CPU backend, and usize is
    // `unsigned long long` in the C.
    let mut r = zeros::<u64>(1).unwrap();
    usize_index_math![1, 1](8_388_608, 256, 255, &mut r).unwrap();
    assert_eq!(host(&r), [8_388_608u64 * 256 + 255]);
    assert_eq!(host(&r), [2_147_483_903]);
    usize_index_math![1, 1](1 << 33, 1024, 1023, &mut r).unwrap();
    assert_eq!(host(&r), [(1u64 << 33) * 1024 + 1023]);
    assert!(
        usize_index_math::cuda_source().contains("unsigned long long b, unsigned long long d, unsigned long long t")
    );
}

fn grid3_gridsize3_and_index_fields() {
    let grid = (3usize, 2usize, 2usize);
    let block = (4usize, 3usize, 2usize);
    let (nx, ny, nz) = (grid.0 * block.0, grid.1 * block.1, grid.2 * block.2);
    let mut info = zeros::<u64>(nx * ny * nz * 18).unwrap();
    coords3![grid, block](&mut info).unwrap();
    let got = host(&info);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let lin = (z * ny + y) * nx + x;
                let want = [
                    x,
                    y,
                    z,
                    nx,
                    ny,
                    nz,
                    x % block.0,
                    y % block.1,
                    z % block.2,
                    x / block.0,
                    y / block.1,
                    z / block.2,
                    block.0,
                    block.1,
                    block.2,
                    grid.0,
                    grid.1,
                    grid.2,
                ]
                .map(|v| v as u64);
                assert_eq!(&got[lin * 18..lin * 18 + 18], &want, "thread ({x}, {y}, {z})");
            }
        }
    }
}

fn grid2_tuple_and_gridsize2() {
    let (rows, cols) = (23usize, 37usize);
    let mut out = zeros::<u32>((rows, cols)).unwrap();
    let mut sizes = zeros::<u32>(3).unwrap();
    let grid = (cols.div_ceil(8), rows.div_ceil(4));
    coords2![grid, (8, 4)](&mut out, &mut sizes).unwrap();
    let got = host(&out);
    for y in 0..rows {
        for x in 0..cols {
            assert_eq!(got[y * cols + x], (y * 1000 + x) as u32, "({y}, {x})");
        }
    }
    assert_eq!(
        host(&sizes),
        [(grid.0 * 8) as u32, (grid.1 * 4) as u32, (grid.0 * 8) as u32]
    );
}

// ---------------------------------------------------------------- float literals

fn unsuffixed_float_literal_takes_the_rust_type() {
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

// ---------------------------------------------------------------- integer wrapping

const I32S: [i32; 10] = [0, 1, -1, 7, i32::MAX, i32::MIN, 46341, -46341, 65536, 123_456_789];
const SHIFTS_I32: [i32; 8] = [0, 1, 31, 32, 33, 64, 100, -1];

fn i32_arithmetic_wraps() {
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

fn u32_arithmetic_wraps() {
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

fn u8_arithmetic_wraps() {
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

fn i8_i16_u16_arithmetic_wraps_like_rust() {
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

fn small_int_casts_saturate_and_wrap_like_rust() {
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

fn small_scalar_parameters() {
    let a: Vec<i32> = (0..70).collect();
    let mut out = zeros::<i32>(a.len()).unwrap();
    small_scalars![2, 64](-128i8, -32768i16, 65535u16, true, &dev(&a), &mut out).unwrap();
    let want: Vec<i32> = a.iter().map(|v| v - 128 - 32768 + 65535).collect();
    assert_eq!(host(&out), want);
    small_scalars![2, 64](127i8, 32767i16, 7u16, false, &dev(&a), &mut out).unwrap();
    let want: Vec<i32> = a.iter().map(|v| -(v + 127 + 32767 + 7)).collect();
    assert_eq!(host(&out), want);
}

fn bool_arrays_in_out_and_shared() {
    let n = 100;
    let a: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
    let b: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
    let (mut out, mut nb) = (zeros::<bool>(2 * n).unwrap(), zeros::<bool>(n).unwrap());
    bool_arrays![n.div_ceil(64), 64](&dev(&a), &dev(&b), &mut out, &mut nb).unwrap();
    let (got, gn) = (host(&out), host(&nb));
    for i in 0..n {
        assert_eq!([got[2 * i], got[2 * i + 1]], [a[i] ^ b[i], a[i] && !b[i]], "i = {i}");
        // The neighbour in the block; threads past `n` leave their slot false.
        let j = i / 64 * 64 + (i % 64 + 1) % 64;
        assert_eq!(gn[i], j < n && a[j], "i = {i}");
    }
    // ndarray round trip of a `bool` array.
    let m = gpujit::ndarray::Array2::from_shape_fn((3, 4), |(r, c)| (r + c) % 2 == 1);
    let d = to_device(&m).unwrap();
    assert_eq!(d.copy_to_ndarray::<gpujit::ndarray::Ix2>().unwrap(), m);
}

fn small_shared_arrays_and_views() {
    let v: Vec<i16> = (0..128).map(|i| (i * 997 % 65536 - 32768) as i16).collect();
    let mut sums = zeros::<i16>(2).unwrap();
    let mut g2 = zeros::<u16>((9, 11)).unwrap();
    small_shared_and_views![2, 64](&dev(&v), &mut sums, &mut g2).unwrap();
    let want: Vec<i16> = v
        .chunks(64)
        .map(|c| c.iter().fold(0i16, |s, &x| s.wrapping_add(x)))
        .collect();
    assert_eq!(host(&sums), want);
    let g: Vec<u16> = host(&g2);
    for y in 0..9usize {
        for x in 0..11usize {
            assert_eq!(g[y * 11 + x], ((x * y) as u16).wrapping_mul(1000), "({y}, {x})");
        }
    }
}

fn tuple_locals_fields_and_destructuring() {
    let x: Vec<i32> = (-60..60).collect();
    let mut out = zeros::<i32>(3 * x.len()).unwrap();
    tuple_locals![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<i32> = x
        .iter()
        .flat_map(|&v| [v * 2 + (v - 1), v - 1 + v * 2 + 7, v * 2 + (v - 1) - v])
        .collect();
    assert_eq!(host(&out), want);
}

fn tuples_as_device_function_arguments() {
    let x: Vec<f32> = (-40..40).map(|v| v as f32).collect();
    let mut out = zeros::<f32>(2 * x.len()).unwrap();
    tuple_params![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<f32> = x.iter().flat_map(|&v| [v + 1.0, 3.0 * v * v + 12.0]).collect();
    assert_eq!(host(&out), want);
}

fn side_effects_run_left_to_right() {
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

fn assignments_evaluate_the_value_before_the_index() {
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

fn i64_and_u64_arithmetic_wraps() {
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

// ---------------------------------------------------------------- casts

fn float_to_int_casts_saturate_like_rust() {
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

fn int_to_int_and_int_to_float_casts() {
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

// ---------------------------------------------------------------- division

fn signed_division_truncates_and_min_by_minus_one_wraps() {
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

fn unsigned_division() {
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

fn division_by_zero_is_a_kernel_fault_naming_the_thread() {
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

// ---------------------------------------------------------------- out of bounds

fn out_of_bounds_write_is_a_fault_with_coordinates() {
    let n = 4 * 32;
    let mut out = zeros::<i32>(n).unwrap();
    let res = oob_write![4, 32](&mut out, 2, 5);
    let (block, thread, faults, message) = fault_of(res, "oob_write");
    assert_eq!(block, [2, 0, 0]);
    assert_eq!(thread, [5, 0, 0]);
    assert_eq!(faults, 1);
    assert!(message.contains("out of bounds"), "{message}");
    assert!(message.contains(&format!("{}", n + 3)), "index not named: {message}");
    assert!(message.contains("out"), "array not named: {message}");
    // Every other thread wrote its element; the faulting one wrote nothing.
    let got = host(&out);
    for (i, &v) in got.iter().enumerate() {
        let want = if i == 2 * 32 + 5 { 0 } else { 7 };
        assert_eq!(v, want, "element {i}");
    }

    // No fault when the bad thread does not exist.
    let mut out = zeros::<i32>(n).unwrap();
    oob_write![4, 32](&mut out, 9, 0).unwrap();
    assert_eq!(host(&out), vec![7; n]);
}

fn out_of_bounds_read_is_a_fault() {
    let x: Vec<f32> = (0..40).map(|i| i as f32).collect();
    let mut out = zeros::<f32>(40).unwrap();
    let res = oob_read![5, 8](&dev(&x), &mut out, 37);
    let (block, thread, faults, _) = fault_of(res, "oob_read");
    assert_eq!((block, thread, faults), ([4, 0, 0], [5, 0, 0], 1));
    let got = host(&out);
    for i in 0..40 {
        if i != 37 {
            assert_eq!(got[i], x[i]);
        }
    }
}

fn out_of_bounds_2d_index_faults_per_axis() {
    // a is 4 × 4: [[0, 5]] has a linear offset inside the array but column 5
    // is out of range, which is a panic in ndarray and must be a fault here.
    let a: Vec<i32> = (0..16).collect();
    let da = to_device(&a).unwrap().reshape((4, 4)).unwrap();
    let mut out = zeros::<i32>(1).unwrap();
    oob_2d![1, 1](&da, 2, 3, &mut out).unwrap();
    assert_eq!(host(&out), [11]);
    let res = oob_2d![1, 1](&da, 0, 5, &mut out);
    let (_, _, _, message) = fault_of(res, "oob_2d");
    assert!(message.contains("[0, 5]"), "{message}");
    assert!(fault_of(oob_2d![1, 1](&da, 4, 0, &mut out), "oob_2d")
        .3
        .contains("[4, 0]"));
}

fn first_fault_is_the_lowest_block_then_thread_and_all_are_counted() {
    // Zeros at elements 45 (block 5, thread 5), 13 (block 1, thread 5) and
    // 10 (block 1, thread 2); each faults twice (`/` and `%`).
    let n = 64;
    let a = vec![1i32; n];
    let mut b = vec![1i32; n];
    for z in [45, 13, 10] {
        b[z] = 0;
    }
    let mut q = zeros::<i32>(n).unwrap();
    let mut r = zeros::<i32>(n).unwrap();
    for _ in 0..5 {
        let res = divrem_i32![8, 8](&dev(&a), &dev(&b), &mut q, &mut r);
        let (block, thread, faults, _) = fault_of(res, "divrem_i32");
        assert_eq!((block, thread), ([1, 0, 0], [2, 0, 0]));
        assert_eq!(faults, 6);
    }
}

fn shared_array_out_of_bounds_is_a_fault() {
    let mut out = zeros::<i32>(2).unwrap();
    shared_oob![1, 2](7, 4, &mut out).unwrap();
    assert_eq!(host(&out), [5, 6]);
    let (block, thread, _, m) = fault_of(shared_oob![1, 2](8, 0, &mut out), "shared_oob");
    assert_eq!((block, thread), ([0, 0, 0], [1, 0, 0]));
    assert!(m.contains("out of bounds") && m.contains('8'), "{m}");
    // [0][5] is inside the 4 × 5 array linearly but past the inner dimension.
    let (_, thread, _, m) = fault_of(shared_oob![1, 2](0, 5, &mut out), "shared_oob");
    assert_eq!(thread, [1, 0, 0]);
    assert!(m.contains("[0, 5]"), "{m}");
}

fn step_by_zero_is_a_fault() {
    let mut out = zeros::<u32>(1).unwrap();
    step_count![1, 1](10, 4, &mut out).unwrap();
    assert_eq!(host(&out), [(0..10u32).step_by(4).count() as u32]);
    let (block, thread, faults, m) = fault_of(step_count![1, 1](10, 0, &mut out), "step_count");
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 1));
    assert!(m.contains("step") && m.contains("zero"), "{m}");
    // The loop ran no iterations and the thread went on to store its count.
    assert_eq!(host(&out), [0]);
}

fn a_zero_step_faults_only_its_own_thread() {
    // Issue 5.6: thread 0 of each block steps by 0; the others must still write.
    let mut out = zeros::<u32>(8).unwrap();
    let (block, thread, faults, m) = fault_of(step_zero_thread0![2, 4](0, &mut out), "step_zero_thread0");
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 2));
    assert!(m.contains("zero"), "{m}");
    assert_eq!(host(&out), [0, 1, 1, 1, 0, 1, 1, 1]);
    step_zero_thread0![2, 4](3, &mut out).unwrap();
    assert_eq!(host(&out), [1; 8]);
    // Inclusive ranges (one ending at u8::MAX), with a barrier: coroutine path.
    let mut out = zeros::<u32>(12).unwrap();
    let (block, thread, faults, _) = fault_of(step_zero_sync![3, 4](0, &mut out), "step_zero_sync");
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 6));
    assert_eq!(host(&out), [0, 252, 252, 252, 0, 252, 252, 252, 0, 252, 252, 252]);
}

fn fault_counts_are_exact() {
    // 16 blocks × 256 threads, every thread faults once: 4096 faults, the first
    // at block 0 thread 0, every thread still writes 1; with and without a
    // barrier, for each kind of fault and a mix of them.
    let a = dev(&[5u32; 3]);
    for kind in 0..4u32 {
        for sync in [false, true] {
            let mut out = zeros::<u32>(4096).unwrap();
            let (name, r) = if sync {
                (
                    "every_thread_faults_sync",
                    every_thread_faults_sync![16, 256](kind, &a, &mut out),
                )
            } else {
                ("every_thread_faults", every_thread_faults![16, 256](kind, &a, &mut out))
            };
            let (block, thread, faults, m) = fault_of(r, name);
            let what = format!("kind {kind}, sync {sync}: {m}");
            assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 4096), "{what}");
            let first = ["zero", "out of bounds", "division by zero", "zero"][kind as usize];
            assert!(m.contains(first), "{what}");
            assert!(host(&out).iter().all(|&x| x == 1), "{what}");
        }
    }
}

/// The kernels of the fault tests above, launched with arguments that make
/// no thread fault: on every backend they give what Rust computes. (The
/// faulting launches are CPU-backend tests; on CUDA an out-of-bounds access
/// or ÷0 is undefined and `step_by(0)` traps, see `tests/cuda_backend.rs`.)
fn fault_kernels_without_a_fault_give_the_rust_results() {
    // The bad thread (block 9) does not exist: every element is written.
    let n = 4 * 32;
    let mut out = zeros::<i32>(n).unwrap();
    oob_write![4, 32](&mut out, 9, 0).unwrap();
    assert_eq!(host(&out), vec![7; n]);

    let x: Vec<f32> = (0..40).map(|i| i as f32).collect();
    let mut out = zeros::<f32>(40).unwrap();
    oob_read![5, 8](&dev(&x), &mut out, 40).unwrap();
    assert_eq!(host(&out), x);

    let a: Vec<i32> = (0..16).collect();
    let da = to_device(&a).unwrap().reshape((4, 4)).unwrap();
    let mut out = zeros::<i32>(1).unwrap();
    oob_2d![1, 1](&da, 2, 3, &mut out).unwrap();
    assert_eq!(host(&out), [11]);
    oob_2d![1, 1](&da, 3, 0, &mut out).unwrap();
    assert_eq!(host(&out), [12]);

    let mut out = zeros::<i32>(2).unwrap();
    shared_oob![1, 2](7, 4, &mut out).unwrap();
    assert_eq!(host(&out), [5, 6]);

    let mut out = zeros::<u32>(1).unwrap();
    for step in [1, 3, 4, 11] {
        step_count![1, 1](10, step, &mut out).unwrap();
        assert_eq!(host(&out), [(0..10u32).step_by(step).count() as u32], "step {step}");
    }
    let mut out = zeros::<u32>(8).unwrap();
    step_zero_thread0![2, 4](3, &mut out).unwrap();
    assert_eq!(host(&out), [1; 8]);
    // Thread 0 of each block steps by 2 (1 + 126 iterations), the others by 1.
    let mut out = zeros::<u32>(12).unwrap();
    step_zero_sync![3, 4](2, &mut out).unwrap();
    assert_eq!(host(&out), [127, 252, 252, 252, 127, 252, 252, 252, 127, 252, 252, 252]);
}

// ---------------------------------------------------------------- control flow

fn host_ranges_i32(a: i32, b: i32, s: usize) -> [i64; 8] {
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

fn host_ranges_u32(a: u32, b: u32, s: usize) -> [u64; 8] {
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

fn range_loops_match_rust_including_ends_at_max() {
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

fn step_by_over_the_whole_range_does_not_overflow() {
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

fn host_ranges_i32_stepped(a: i32, b: i32, s: usize) -> Vec<i64> {
    let (x, y): (Vec<i32>, Vec<i32>) = ((a..b).step_by(s).collect(), (a..=b).step_by(s).collect());
    let sum = |v: &[i32]| v.iter().map(|&k| k as i64).sum::<i64>();
    vec![sum(&x), x.len() as i64, sum(&y), y.len() as i64]
}

fn host_ranges_u32_stepped(a: u32, b: u32, s: usize) -> Vec<u64> {
    let (x, y): (Vec<u32>, Vec<u32>) = ((a..b).step_by(s).collect(), (a..=b).step_by(s).collect());
    let sum = |v: &[u32]| v.iter().map(|&k| k as u64).sum::<u64>();
    vec![sum(&x), x.len() as u64, sum(&y), y.len() as u64]
}

/// A `usize` step larger than the range's type: Rust yields only the first
/// element. The CUDA C must keep the step in 64 bits: narrowed to the loop
/// type, 2^32 would become 0 (an endless loop on the GPU) and 2^32 + 1 would be 1.
fn step_by_wider_than_the_loop_type() {
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

fn host_loops(v: u32) -> [u32; 4] {
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
        c = if c.is_multiple_of(2) { c / 2 } else { 3 * c + 1 };
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

fn while_loop_break_continue() {
    let xs: Vec<u32> = (0..70).chain([97, 200, 1000, 4095]).collect();
    let n = xs.len();
    let mut out = zeros::<u32>(4 * n).unwrap();
    loops![n.div_ceil(16), 16](&dev(&xs), &mut out).unwrap();
    let got = host(&out);
    for (i, &v) in xs.iter().enumerate() {
        assert_eq!(&got[4 * i..4 * i + 4], &host_loops(v), "v = {v}");
    }
}

fn early_return_skips_the_rest() {
    let n = 45;
    let mut out = zeros::<i32>(n).unwrap();
    early_return![3, 16](&mut out).unwrap();
    let want: Vec<i32> = (0..n).map(|i| if i % 2 == 0 { 1 } else { 2 }).collect();
    assert_eq!(host(&out), want);
}

fn if_chains_if_expressions_shadowing_and_constants() {
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

fn three_d_arrays_index_dim_shape_len() {
    let (d0, d1, d2) = (3usize, 5usize, 7usize);
    let a = ndarray::Array3::<f32>::from_shape_fn((d0, d1, d2), |(i, j, k)| (i * 7 + j * 3 + k) as f32 * 0.25 - 2.0);
    let da = to_device(&a).unwrap();
    let mut db = zeros::<f32>((d0, d1, d2)).unwrap();
    let mut sizes = zeros::<u64>(9).unwrap();
    arrays3d![(2, 2, 2), (4, 4, 2)](&da, &mut db, &mut sizes).unwrap();
    let b: ndarray::Array3<f32> = db.copy_to_ndarray().unwrap();
    for ((i, j, k), &v) in b.indexed_iter() {
        assert_eq!(v, 2.0 * a[[i, j, k]] + (100 * i + 10 * j + k) as f32, "[{i}, {j}, {k}]");
    }
    let n = (d0 * d1 * d2) as u64;
    assert_eq!(host(&sizes), [3, 5, 7, 3, 5, 7, n, n, 7]);
}

fn math_methods_match_the_host_within_a_few_ulps() {
    let xs = [
        0.0,
        0.3,
        -0.3,
        1.0,
        -1.0,
        2.5,
        -2.5,
        3.7,
        -7.25,
        10.0,
        100.5,
        1e-3,
        -1e5,
        6.0,
        f64::NAN,
    ];
    let ys = [
        1.0,
        2.0,
        -0.5,
        0.5,
        3.0,
        -3.0,
        2.5,
        0.0,
        7.0,
        -10.0,
        1.5,
        2.0,
        0.1,
        f64::NAN,
        1.0,
    ];
    let n = xs.len();
    let mut out = zeros::<f64>(n * 13).unwrap();
    math_f64![1, 32](&dev(&xs), &dev(&ys), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (a, b) = (xs[i], ys[i]);
        let want = [
            a.abs().sqrt(),
            a.abs(),
            a.min(b),
            a.max(b),
            a.mul_add(b, 0.25),
            a.floor(),
            a.ceil(),
            (a / 4.0).exp(),
            a.abs().ln(),
            a.sin(),
            a.cos(),
            a.abs().powf(b),
            a.powi(3),
        ];
        for (m, (&g, &w)) in got[i * 13..i * 13 + 13].iter().zip(&want).enumerate() {
            assert!(ulps64(g, w) <= 4, "f64 method {m} of ({a}, {b}): got {g}, want {w}");
        }
    }

    let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
    let ys32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
    let mut out = zeros::<f32>(n * 13).unwrap();
    math_f32![1, 32](&dev(&xs32), &dev(&ys32), &mut out).unwrap();
    let got = host(&out);
    for i in 0..n {
        let (a, b) = (xs32[i], ys32[i]);
        let want = [
            a.abs().sqrt(),
            a.abs(),
            a.min(b),
            a.max(b),
            a.mul_add(b, 0.25),
            a.floor(),
            a.ceil(),
            (a / 4.0).exp(),
            a.abs().ln(),
            a.sin(),
            a.cos(),
            a.abs().powf(b),
            a.powi(3),
        ];
        for (m, (&g, &w)) in got[i * 13..i * 13 + 13].iter().zip(&want).enumerate() {
            assert!(ulps32(g, w) <= 4, "f32 method {m} of ({a}, {b}): got {g}, want {w}");
        }
    }
    // f32 kernels call the float versions of the C math functions.
    let src = math_f32::cuda_source();
    for f in ["sqrtf(", "fminf(", "fmaf(", "expf(", "logf(", "sinf(", "powf("] {
        assert!(src.contains(f), "no {f} in\n{src}");
    }
}

fn integer_min_max_abs() {
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

fn scalar_parameters_of_every_type() {
    let n = 10;
    for (flag, neg) in [(false, false), (true, false), (false, true), (true, true)] {
        let (a, b, c, d, e, f, g, h) = (
            -3_000_000_000i64,
            u64::MAX - 5,
            1usize << 35,
            4_000_000_000u32,
            -7i32,
            250u8,
            0.1f32,
            -2.75f64,
        );
        let mut oi = zeros::<i64>(n).unwrap();
        let mut ou = zeros::<u64>(n).unwrap();
        let mut of = zeros::<f64>(n).unwrap();
        scalars![1, 16](flag, neg, a, b, c, d, e, f, g, h, &mut oi, &mut ou, &mut of).unwrap();
        for i in 0..n {
            let k = i as i64;
            let mut v = a.wrapping_mul(k).wrapping_add(e as i64);
            if flag && !neg {
                v += 1;
            } else if flag || neg {
                v -= 1;
            }
            let v = if neg { v.wrapping_neg() } else { v };
            assert_eq!(host(&oi)[i], v, "flag {flag} neg {neg} i {i}");
            let u = b
                .wrapping_add(c.wrapping_mul(i) as u64)
                .wrapping_add(d as u64)
                .wrapping_add(f as u64);
            assert_eq!(host(&ou)[i], u);
            assert_eq!(host(&of)[i], g as f64 * k as f64 + h);
        }
    }
}

// ---------------------------------------------------------------- shared memory

fn block_reduction_with_shared_memory_and_barriers() {
    // 5 blocks of 256 threads; the last one is partly outside the data.
    let n: usize = 4 * 256 + 77;
    let blocks = n.div_ceil(RED_THREADS);
    let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 400 + (i << 20)).collect();
    let mut partial = zeros::<i64>(blocks).unwrap();
    block_sum_i64![blocks, RED_THREADS](&dev(&x), &mut partial).unwrap();
    let want: Vec<i64> = x.chunks(RED_THREADS).map(|c| c.iter().sum()).collect();
    assert_eq!(host(&partial), want);

    // f32 with integer values below 2^24: exact in any order.
    let xf: Vec<f32> = (0..n).map(|i| ((i * 31) % 97) as f32 - 40.0).collect();
    let mut partial = zeros::<f32>(blocks).unwrap();
    block_sum_f32![blocks, RED_THREADS](&dev(&xf), &mut partial).unwrap();
    let want: Vec<f32> = xf.chunks(RED_THREADS).map(|c| c.iter().sum()).collect();
    assert_eq!(host(&partial), want);

    let src = block_sum_i64::cuda_source();
    assert!(src.contains("__shared__ long long cache[RED_THREADS];"), "{src}");
    assert!(src.matches("__syncthreads();").count() >= 2, "{src}");
}

fn two_d_shared_tile_transpose() {
    for (rows, cols) in [(37usize, 21usize), (16, 16), (1, 33), (40, 1)] {
        let a = ndarray::Array2::<f32>::from_shape_fn((rows, cols), |(i, j)| (i * 1000 + j) as f32);
        let mut out = zeros::<f32>((cols, rows)).unwrap();
        let grid = (cols.div_ceil(TR_TILE), rows.div_ceil(TR_TILE));
        transpose![grid, (TR_TILE, TR_TILE)](&to_device(&a).unwrap(), &mut out).unwrap();
        let got: ndarray::Array2<f32> = out.copy_to_ndarray().unwrap();
        assert_eq!(got, a.t(), "{rows} x {cols}");
    }
    assert!(transpose::cuda_source().contains("__shared__ float tile[TR_TILE][(TR_TILE + 1ull)];"));
}

fn three_d_shared_array_sees_other_threads_writes() {
    let blocks = 3;
    let mut out = zeros::<u32>(blocks * 64).unwrap();
    mirror3d![blocks, (4, 4, 4)](&mut out).unwrap();
    let got = host(&out);
    for b in 0..blocks {
        for z in 0..4 {
            for y in 0..4 {
                for x in 0..4 {
                    let lin = (z * 4 + y) * 4 + x;
                    let mirror = ((3 - z) * 4 + (3 - y)) * 4 + (3 - x);
                    assert_eq!(
                        got[b * 64 + lin],
                        (mirror + 1000 * b) as u32,
                        "block {b} thread ({x}, {y}, {z})"
                    );
                }
            }
        }
    }
    assert!(mirror3d::cuda_source().contains("__shared__ unsigned int s[4][4][4];"));
}

// ---------------------------------------------------------------- &mut arguments

fn mut_arguments_carry_over_between_launches() {
    let n = 37;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let y0: Vec<f64> = (0..n).map(|i| 100.0 - i as f64).collect();
    let dx = dev(&x);
    let mut dy = dev(&y0);
    axpy![2, 32](2.0, &dx, &mut dy).unwrap();
    axpy![2, 32](-0.5, &dx, &mut dy).unwrap();
    let want: Vec<f64> = (0..n).map(|i| -0.5 * x[i] + (2.0 * x[i] + y0[i])).collect();
    assert_eq!(host(&dy), want);

    // Ping-pong: the output of one launch is the input of the next.
    let a0: Vec<i64> = (0..n as i64).map(|i| i - 10).collect();
    let mut da = dev(&a0);
    let mut db = zeros::<i64>(n).unwrap();
    step![1, 64](&da, &mut db).unwrap();
    step![1, 64](&db, &mut da).unwrap();
    step::launch(1, 64, &da, &mut db).unwrap();
    let f = |v: &[i64]| -> Vec<i64> { v.iter().enumerate().map(|(i, &e)| e * 3 + i as i64).collect() };
    let want_a = f(&f(&a0));
    assert_eq!(host(&da), want_a);
    assert_eq!(host(&db), f(&want_a));
}

fn loops_over_outside_constants() {
    let host = [32.0f32, 64.0, -8.0];
    let mut d = gpujit::to_device(&host).unwrap();
    opaque_loops![1, 4](&mut d).unwrap();
    let want: Vec<f32> = host.iter().map(|&v| v * 0.5f32.powi(5) + 3.0).collect();
    assert_eq!(d.copy_to_host().unwrap(), want);
}

fn faults_print_nothing() {
    // The fault tests again, each in a child process with output not
    // captured: no panic message (or anything else) may reach stderr.
    for test in [
        "fault_counts_are_exact",
        "a_zero_step_faults_only_its_own_thread",
        "arithmetic_on_outside_constants_wraps_and_faults",
    ] {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "--nocapture", "--test-threads=1", test])
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&child.stdout),
            String::from_utf8_lossy(&child.stderr),
        );
        assert!(
            child.status.success() && stdout.contains("1 passed"),
            "{test}: {stdout}{stderr}"
        );
        assert!(stderr.trim().is_empty(), "{test} printed to stderr:\n{stderr}");
    }
}

fn arithmetic_on_outside_constants_wraps_and_faults() {
    // Wrapping +, *, unary -, abs and << on types only rustc knows, and one
    // ÷0 fault per iteration, in debug and release builds alike.
    let mut out = zeros::<i64>(4).unwrap();
    let (_, thread, faults, m) = fault_of(opaque_arith![1, 1](&mut out), "opaque_arith");
    assert_eq!(
        (thread, faults, m.as_str()),
        ([0, 0, 0], ITERS, "integer division by zero")
    );
    let x = (0..ITERS).fold(0usize, |x, i| x.wrapping_add(i.wrapping_mul(usize::MAX)));
    assert_eq!(host(&out), [x as i64, i32::MIN as i64, 0, 0]);
}

// ---------------------------------------------------------------- time limit

/// Runs `launch` under a 200 ms CPU time limit; asserts `LaunchTimeout` naming
/// `kernel`, within a generous bound.
fn times_out(kernel: &str, launch: impl FnOnce() -> gpujit::Result<()>) {
    let limit = std::time::Duration::from_millis(200);
    let start = std::time::Instant::now();
    let r = gpujit::with_cpu_time_limit(limit, launch);
    let took = start.elapsed();
    match r {
        Err(Error::LaunchTimeout { kernel: k, limit_ms }) => {
            assert_eq!((k.as_str(), limit_ms), (kernel, 200));
            let text = Error::LaunchTimeout { kernel: k, limit_ms }.to_string();
            assert!(text.contains(kernel) && text.contains("200 ms"), "{text}");
        }
        other => panic!("expected Err(LaunchTimeout) from `{kernel}`, got {other:?}"),
    }
    assert!(
        took >= limit && took < std::time::Duration::from_secs(20),
        "{kernel}: {took:?}"
    );
}

fn run_away_kernels_stop_at_the_time_limit() {
    let mut out = zeros::<u32>(64).unwrap();
    times_out("spin_loop", || spin_loop![2, 32](&mut out));
    times_out("spin_while", || spin_while![2, 32](&mut out));
    // Threads parked at the barrier when the limit passes end too.
    times_out("spin_sync", || spin_sync![2, 32](&mut out));
    // Far more blocks of short threads than 200 ms can run: the blocks not
    // yet started are skipped.
    let mut sums = zeros::<u64>(16).unwrap();
    times_out("short_threads", || {
        short_threads![(65_535, 1024), 1024](1000u64, &mut sums)
    });
    // The largest grids CUDA allows: once cancelled, the launch stops handing
    // out blocks instead of visiting each of 2^31 - 1 (or 2.8 * 10^14) indices.
    times_out("short_threads", || short_threads![i32::MAX as u32, 1](1u64, &mut sums));
    times_out("short_threads", || {
        short_threads![(i32::MAX as u32, 65_535, 65_535), 1](1u64, &mut sums)
    });
}

fn a_time_limit_leaves_finishing_kernels_alone() {
    let limit = std::time::Duration::from_secs(60);
    let mut sums = zeros::<u64>(4096).unwrap();
    gpujit::with_cpu_time_limit(limit, || short_threads![16, 256](100u64, &mut sums)).unwrap();
    assert!(host(&sums).iter().all(|&x| x == 4950));
    let mut out = zeros::<u32>(12).unwrap();
    gpujit::with_cpu_time_limit(limit, || step_zero_sync![3, 4](2, &mut out)).unwrap();
    // Thread 0 of each block steps by 2 (1 + 126 iterations), the others by 1.
    assert_eq!(host(&out), [127, 252, 252, 252, 127, 252, 252, 252, 127, 252, 252, 252]);
    // Faults are still reported under a limit.
    let a = dev(&[5u32; 3]);
    let mut out = zeros::<u32>(4096).unwrap();
    let r = gpujit::with_cpu_time_limit(limit, || every_thread_faults![16, 256](3, &a, &mut out));
    assert_eq!(fault_of(r, "every_thread_faults").2, 4096);
}

// ---------------------------------------------------------------- match, rev loops, tuples (#8)

fn match_i32_host(x: i32) -> (i32, i32) {
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

fn match_on_integers_and_bool_matches_rust() {
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

fn match_arms_with_barriers() {
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
fn first8<T: Copy + Default>(it: impl Iterator<Item = T>, out: &mut Vec<T>, cast: impl Fn(usize) -> T) {
    let items: Vec<T> = it.take(100_000).collect();
    let mut head = vec![T::default(); 8];
    for (h, v) in head.iter_mut().zip(&items) {
        *h = *v;
    }
    out.extend(head);
    out.push(cast(items.len()));
}

fn rev_loops_match_rust() {
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

fn rev_loops_with_barriers() {
    let x: Vec<u32> = (0..64).map(|v| v * 3 + 1).collect();
    let mut out = zeros::<u32>(64).unwrap();
    rev_barrier_sum![1, 64](&dev(&x), &mut out).unwrap();
    let want = x.iter().sum::<u32>() + (1..=8u32).rev().step_by(3).sum::<u32>();
    assert_eq!(host(&out), vec![want; 64]);
}

fn rev_step_by_zero_is_a_fault() {
    let mut out = zeros::<i64>(37).unwrap();
    let (block, thread, faults, m) = fault_of(rev_i32![1, 1](0, 10, 0, &mut out), "rev_i32");
    // Two loops step by zero; the thread goes on after each.
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 2));
    assert!(m.contains("step") && m.contains("zero"), "{m}");
    let got = host(&out);
    assert_eq!((got[26], got[35], got[8]), (0, 0, 10));
}

fn tuples_as_values() {
    let x: Vec<i32> = (-50..50).collect();
    let mut out = zeros::<i32>(x.len()).unwrap();
    tuple_values![2, 64](&dev(&x), &mut out).unwrap();
    let want: Vec<i32> = x
        .iter()
        .map(|&v| {
            let (a, b) = (v * 2, v + 1);
            a * 1000 + b * 10 + (a - b)
        })
        .collect();
    assert_eq!(host(&out), want);
}
