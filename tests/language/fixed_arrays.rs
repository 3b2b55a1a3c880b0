//! Local arrays (`let mut a = [0.0f32; 8];`) and module `const` arrays
//! (`FILTER[i]`) against host references, their faults on the CPU backend,
//! the execution path a local array across a barrier takes, and the CUDA C
//! they become.

use crate::kernels;
use kernels::fixed_arrays::*;

use crate::common;
use common::{coroutines_forced, fault_of, Tool};

use gpujit::__private::{last_launch_coroutine_blocks, last_launch_lockstep_blocks, with_forced_coroutines};
use gpujit::{to_device, zeros, DeviceScalar};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, cpu, nvrtc) = (None, Some(Tool::CpuBackend), Some(Tool::Nvrtc));
    cases![
        any => local_arrays_of_every_element_type,
        any => zero_length_local_arrays,
        any => local_bool_arrays,
        any => local_lists_of_computed_elements,
        any => local_array_literals_take_the_inferred_type,
        any => local_2d_with_const_sizes_and_compound_assignment,
        any => local_3d_from_repeat_and_nested_list,
        cpu => local_out_of_range_is_a_fault_with_coordinates,
        cpu => local_2d_out_of_range_names_both_indices,
        cpu => local_array_across_a_barrier_runs_as_coroutines,
        cpu => local_arrays_between_barriers_stay_split,
        cpu => local_arrays_in_grid_stride_loops,
        any => device_functions_use_local_and_const_arrays,
        any => conv_with_a_const_filter,
        any => const_arrays_arrive_bit_for_bit,
        any => narrow_constants_cast_and_wrap_as_in_rust,
        cpu => const_out_of_range_is_a_fault_with_coordinates,
        any => cuda_c_of_local_and_const_arrays,
        nvrtc => const_arrays_are_in_constant_memory_in_ptx,
    ]
}

fn zero_length_local_arrays() {
    let mut out = gpujit::zeros::<i32>(40).unwrap();
    local_zero_length![2, 32](&mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap(), vec![1; 40]);
}

/// What `local_kernel!` computes: `a = [x, w[i % 3], w[(i + 1) % 3], x]`.
fn host_local<T: Copy>(x: &[T], w: [T; 3]) -> Vec<T> {
    x.iter()
        .enumerate()
        .flat_map(|(i, &v)| [v, w[i % 3], w[(i + 1) % 3], v])
        .collect()
}

macro_rules! check_local {
    ($kernel:ident, $t:ty, $x:expr, $w:expr) => {{
        let x: Vec<$t> = $x;
        let d_x = to_device(&x).unwrap();
        let mut d_out = zeros::<$t>(4 * x.len()).unwrap();
        $kernel![x.len().div_ceil(32), 32](&d_x, &mut d_out).unwrap();
        let got = d_out.copy_to_host().unwrap();
        let want = host_local(&x, $w);
        assert_eq!(bits(&got), bits(&want), "{}", stringify!($kernel));
    }};
}

/// The bytes of each element (so that `-0.0` and `0.0` differ).
fn bits<T: DeviceScalar>(v: &[T]) -> Vec<Vec<u8>> {
    v.iter()
        .map(|x| {
            let p = x as *const T as *const u8;
            // SAFETY: reads the `size_of::<T>()` bytes of a live, initialised
            // scalar (`DeviceScalar`s are plain integers and floats without padding).
            unsafe { std::slice::from_raw_parts(p, std::mem::size_of::<T>()) }.to_vec()
        })
        .collect()
}

fn local_arrays_of_every_element_type() {
    check_local!(local_u8, u8, (0..70).map(|i| (i * 3) as u8).collect(), [7, 200, 255]);
    check_local!(
        local_i32,
        i32,
        (0..70).map(|i| i * -1000 + 5).collect(),
        [-7, i32::MIN, 123_456]
    );
    check_local!(
        local_i64,
        i64,
        (0..70).map(|i| i << 35).collect(),
        [-7, i64::MIN, 1 << 40]
    );
    check_local!(local_u32, u32, (0..70).map(|i| i * 77).collect(), [7, u32::MAX, 65_536]);
    check_local!(
        local_u64,
        u64,
        (0..70).map(|i| i << 50).collect(),
        [7, u64::MAX, 1 << 40]
    );
    check_local!(
        local_usize,
        usize,
        (0..70).map(|i| i * 9).collect(),
        [7, usize::MAX, 1 << 40]
    );
    check_local!(
        local_f32,
        f32,
        (0..70).map(|i| i as f32 / 7.0).collect(),
        [0.1, -0.0, 1e-40]
    );
    check_local!(
        local_f64,
        f64,
        (0..70).map(|i| i as f64 / 7.0).collect(),
        [0.1, -0.0, 1e-310]
    );
}

fn local_bool_arrays() {
    let x: Vec<u8> = (0..50).map(|i| (i * 7 % 11) as u8).collect();
    let d_x = to_device(&x).unwrap();
    let mut d_out = zeros::<u8>(3 * x.len()).unwrap();
    local_bool![2, 32](&d_x, &mut d_out).unwrap();
    let want: Vec<u8> = x
        .iter()
        .enumerate()
        .flat_map(|(i, &v)| {
            let mut b = [false; 3];
            b[i % 3] = true;
            b[0] = b[0] || v % 2 == 1;
            b.map(u8::from)
        })
        .collect();
    assert_eq!(d_out.copy_to_host().unwrap(), want);
}

fn local_lists_of_computed_elements() {
    let x: Vec<u8> = (0..=255).collect();
    let d_x = to_device(&x).unwrap();
    let (mut b, mut n, mut f) = (
        zeros::<u8>(256).unwrap(),
        zeros::<i64>(256).unwrap(),
        zeros::<f32>(256).unwrap(),
    );
    local_computed_lists![8, 32](&d_x, &mut b, &mut n, &mut f).unwrap();
    let want_b: Vec<u8> = x
        .iter()
        .map(|&v| v.wrapping_add(1) ^ v.wrapping_mul(2) ^ (v >> 1))
        .collect();
    let want_n: Vec<i64> = x
        .iter()
        .map(|&v| (v as i64 - 300) + ((v as i64) << 40) - v as i64)
        .collect();
    let want_f: Vec<f32> = x.iter().map(|&v| v as f32 * 0.5 + 1.0 / (v as f32 + 1.0)).collect();
    assert_eq!(b.copy_to_host().unwrap(), want_b);
    assert_eq!(n.copy_to_host().unwrap(), want_n);
    assert_eq!(bits(&f.copy_to_host().unwrap()), bits(&want_f));
}

fn local_array_literals_take_the_inferred_type() {
    let x: Vec<f32> = (0..40).map(|i| i as f32 * 0.37).collect();
    let d_x = to_device(&x).unwrap();
    let mut d_out = zeros::<f32>(x.len()).unwrap();
    let mut d_n = zeros::<u64>(x.len()).unwrap();
    local_inferred![2, 32](&d_x, &mut d_out, &mut d_n).unwrap();
    let want: Vec<f32> = x.iter().map(|&v| v * 0.1f32 + (0.0f32 + v) + (0.0f32 - 2.5)).collect();
    assert_eq!(bits(&d_out.copy_to_host().unwrap()), bits(&want));
    // `u64` arithmetic: 3 * 10^10 does not fit the `i32` a default would give.
    let want_n: Vec<u64> = (0..40).map(|i| [1u64, 2, 3][i % 3] * 10_000_000_000).collect();
    assert_eq!(d_n.copy_to_host().unwrap(), want_n);
    assert!(local_inferred::cuda_source().contains("unsigned long long counts[3] = {1ull, 2ull, 3ull};"));
}

fn local_2d_with_const_sizes_and_compound_assignment() {
    let x: Vec<i32> = (0..45).map(|i| i * 31 - 600).collect();
    let d_x = to_device(&x).unwrap();
    let mut d_out = zeros::<i32>(x.len() * ROWS * COLS).unwrap();
    local_2d![2, 32](&d_x, &mut d_out).unwrap();
    let mut want = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        let mut m = [[0i32; COLS]; ROWS];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, e) in row.iter_mut().enumerate() {
                *e = v.wrapping_mul(r as i32).wrapping_add(c as i32);
            }
        }
        m[1][2] += 100;
        m[2][3] *= -2;
        m[i % ROWS][i % COLS] <<= 1;
        want.extend(m.iter().flatten());
    }
    assert_eq!(d_out.copy_to_host().unwrap(), want);
}

fn local_3d_from_repeat_and_nested_list() {
    let x: Vec<f64> = (0..33).map(|i| i as f64 * 0.3 - 2.0).collect();
    let d_x = to_device(&x).unwrap();
    let mut d_out = zeros::<f64>(x.len() * 12).unwrap();
    local_3d![2, 32](&d_x, &mut d_out).unwrap();
    let mut want = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        let mut c = [[[0.5f64; 2]; 3]; 2];
        c[i % 2][1][1] = v;
        for (a, plane) in c.iter_mut().enumerate() {
            for (b, row) in plane.iter_mut().enumerate() {
                for (d, e) in row.iter_mut().enumerate() {
                    *e += (a * 6 + b * 2 + d + 1) as f64 * v;
                    want.push(*e);
                }
            }
        }
    }
    assert_eq!(bits(&d_out.copy_to_host().unwrap()), bits(&want));
}

fn local_out_of_range_is_a_fault_with_coordinates() {
    let mut d_out = zeros::<f32>(64).unwrap();
    let r = local_oob![2, 32](4usize, &mut d_out);
    let (block, thread, faults, msg) = fault_of(r, "local_oob");
    assert_eq!((block, thread), ([0, 0, 0], [5, 0, 0]));
    // The write and the read of `a[4]` (the read of `a[0]` is in range).
    assert_eq!(faults, 2, "{msg}");
    assert_eq!(msg, "index [4] is out of bounds for local array `a` of shape [4]");
    // The faulting thread went on: its bad read gave 0, the bad write was dropped.
    let out = d_out.copy_to_host().unwrap();
    assert_eq!(out[5], 1.0);
    assert_eq!(out[6], 3.0);
    // In range everywhere: no fault.
    local_oob![2, 32](3usize, &mut d_out).unwrap();
}

fn local_2d_out_of_range_names_both_indices() {
    let mut d_out = zeros::<i32>(40).unwrap();
    let (block, thread, faults, msg) = fault_of(local_oob_2d![2, 32](2usize, &mut d_out), "local_oob_2d");
    assert_eq!((block, thread, faults), ([0, 0, 0], [3, 0, 0], 1));
    assert_eq!(msg, "index [1, 2] is out of bounds for local array `m` of shape [2, 2]");
    local_oob_2d![2, 32](1usize, &mut d_out).unwrap();
    let out = d_out.copy_to_host().unwrap();
    assert_eq!(&out[..5], &[1, 3, 1, 4, 1]);
}

fn across_barrier_host(x: &[f32], block: usize) -> Vec<f32> {
    x.chunks(block)
        .flat_map(|c| (0..block).map(move |t| c[t] + 3.0 + c[(t + 1) % block]))
        .collect()
}

fn local_array_across_a_barrier_runs_as_coroutines() {
    let x: Vec<f32> = (0..128).map(|i| i as f32 * 1.5).collect();
    let d_x = to_device(&x).unwrap();
    let run = || {
        let mut d_out = zeros::<f32>(x.len()).unwrap();
        local_across_barrier![2, 64](&d_x, &mut d_out).unwrap();
        d_out.copy_to_host().unwrap()
    };
    let plain = run();
    // `acc` lives across the barrier: the coroutine path, where each thread
    // keeps its own array (listed in README).
    assert_eq!(last_launch_coroutine_blocks(), 2);
    let forced = with_forced_coroutines(run);
    assert_eq!(plain, across_barrier_host(&x, 64));
    assert_eq!(forced, plain);
}

fn local_arrays_between_barriers_stay_split() {
    let x: Vec<f32> = (0..128).map(|i| (i * i) as f32 * 0.25).collect();
    let d_x = to_device(&x).unwrap();
    let run = || {
        let mut d_out = zeros::<f32>(x.len()).unwrap();
        local_between_barriers![2, 64](&d_x, &mut d_out).unwrap();
        d_out.copy_to_host().unwrap()
    };
    let split = run();
    if !coroutines_forced() {
        assert_eq!(last_launch_coroutine_blocks(), 0, "the split path ran coroutines");
    }
    let forced = with_forced_coroutines(run);
    assert!(last_launch_coroutine_blocks() > 0);
    let want: Vec<f32> = x
        .chunks(64)
        .flat_map(|c| {
            let s: Vec<f32> = c.iter().map(|&v| v + 2.0 * v).collect();
            (0..64).map(move |t| s[(t + 1) % 64] - s[(t + 63) % 64])
        })
        .collect();
    assert_eq!(split, want);
    assert_eq!(forced, want);
}

fn local_arrays_in_grid_stride_loops() {
    let x: Vec<f32> = (0..1000).map(|i| (i % 13) as f32 * 0.5).collect();
    let d_x = to_device(&x).unwrap();
    // 2 blocks of 32 threads: stride 64.
    let mut d_out = zeros::<f32>(128).unwrap();
    local_grid_stride![2, 32](&d_x, &mut d_out).unwrap();
    assert_eq!(
        last_launch_lockstep_blocks(),
        0,
        "an array across the loop must not be interleaved"
    );
    let mut want = Vec::new();
    for i in 0..64 {
        let (mut s, mut c) = (0.0f32, 0.0f32);
        for j in (i..x.len()).step_by(64) {
            s += x[j];
            c += 1.0;
        }
        want.extend([s, c]);
    }
    assert_eq!(d_out.copy_to_host().unwrap(), want);

    let mut d_out = zeros::<f32>(x.len()).unwrap();
    local_in_grid_stride![2, 32](&d_x, &mut d_out).unwrap();
    if !coroutines_forced() {
        assert!(
            last_launch_lockstep_blocks() > 0,
            "a loop-local array keeps the loop in lockstep"
        );
    }
    let want: Vec<f32> = x.iter().map(|&v| v + 0.5 * v).collect();
    assert_eq!(d_out.copy_to_host().unwrap(), want);
}

fn device_functions_use_local_and_const_arrays() {
    let x: Vec<f32> = (0..50).map(|i| i as f32 * 0.125 - 3.0).collect();
    let n = 6usize;
    let xi: Vec<i32> = (0..(n * n) as i32).map(|v| v * v % 17 - 8).collect();
    let d_x = to_device(&x).unwrap();
    let d_xi = to_device(&xi).unwrap();
    let mut d_out = zeros::<f32>(x.len()).unwrap();
    let mut d_st = zeros::<i32>((n - 2) * (n - 2)).unwrap();
    device_arrays![2, 32](&d_x, &d_xi, n, &mut d_out, &mut d_st).unwrap();
    let want: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let mut s = 0.0f32;
            for c in [0.25f32, 0.5, 1.0] {
                s = s * v + c;
            }
            s + FILTER[i % 5]
        })
        .collect();
    assert_eq!(bits(&d_out.copy_to_host().unwrap()), bits(&want));
    let mut want_st = Vec::new();
    for i in 0..n - 2 {
        for j in 0..n - 2 {
            let mut acc = 0;
            for (a, row) in STENCIL.iter().enumerate() {
                for (b, w) in row.iter().enumerate() {
                    acc += w * xi[(i + a) * n + j + b];
                }
            }
            want_st.push(acc);
        }
    }
    assert_eq!(d_st.copy_to_host().unwrap(), want_st);
    // In CUDA C each device function's `FILTER` is its own `__constant__` array.
    let src = device_arrays::cuda_source();
    assert!(
        src.contains("__constant__ float gj_dev_tap__FILTER[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};"),
        "{src}"
    );
    assert!(
        src.contains("__constant__ int gj_dev_stencil_at__STENCIL[3][3] = {{1, 2, 1}, {2, -12, 2}, {1, 2, 1}};"),
        "{src}"
    );
}

fn conv_with_a_const_filter() {
    let x: Vec<f32> = (0..1000).map(|i| ((i * 37) % 101) as f32 / 7.0).collect();
    let d_x = to_device(&x).unwrap();
    let mut d_y = zeros::<f32>(x.len()).unwrap();
    conv_filter![x.len().div_ceil(128), 128](&d_x, &mut d_y).unwrap();
    let want: Vec<f32> = (0..x.len())
        .map(|i| {
            let mut s = 0.0f32;
            for (k, w) in FILTER.iter().enumerate() {
                let j = i + k;
                if j >= 2 && j - 2 < x.len() {
                    s += w * x[j - 2];
                }
            }
            s
        })
        .collect();
    assert_eq!(bits(&d_y.copy_to_host().unwrap()), bits(&want));
}

fn const_arrays_arrive_bit_for_bit() {
    let mut f64s = zeros::<f64>(8).unwrap();
    let mut f32s = zeros::<f32>(6).unwrap();
    let mut u64s = zeros::<u64>(3).unwrap();
    let mut i64s = zeros::<i64>(3).unwrap();
    let mut small = zeros::<u32>(24).unwrap();
    const_copies![1, 32](&mut f64s, &mut f32s, &mut u64s, &mut i64s, &mut small).unwrap();
    assert_eq!(bits(&f64s.copy_to_host().unwrap()), bits(&TRICKY_F64));
    assert_eq!(bits(&f32s.copy_to_host().unwrap()), bits(&TRICKY_F32));
    assert_eq!(u64s.copy_to_host().unwrap(), BIG_U64);
    assert_eq!(i64s.copy_to_host().unwrap(), NEG_I64);
    let mut want: Vec<u32> = FLAGS.iter().map(|&b| b as u32).collect();
    want.extend(BYTES.iter().map(|&b| b as u32));
    want.extend(CUBE.iter().flatten().flatten());
    want.extend(STENCIL.iter().flatten().map(|&v| (v + 100) as u32));
    assert_eq!(small.copy_to_host().unwrap(), want);
}

/// `const_narrow`'s values, computed here with Rust's wrapping arithmetic
/// and `as` casts: the CUDA backend once refused the kernel (NVRTC: no
/// `gj_traits<short>`), while the CPU backend ran it.
fn narrow_constants_cast_and_wrap_as_in_rust() {
    let (mut o8, mut o16) = (zeros::<i8>(16).unwrap(), zeros::<i16>(16).unwrap());
    let (mut ou16, mut wide) = (zeros::<u16>(16).unwrap(), zeros::<i64>(7).unwrap());
    const_narrow![1, 32](&mut o8, &mut o16, &mut ou16, &mut wide).unwrap();
    let (a, b, c) = (NARROW_I8, NARROW_I16, NARROW_U16);
    let mut want8 = vec![0i8; 16];
    let mut want16 = vec![0i16; 16];
    let mut wantu16 = vec![0u16; 16];
    let mut want_wide = vec![0i64; 7];
    for i in 0..4 {
        want8[i] = WIDE_I32[i] as i8;
        want16[i] = WIDE_I32[i] as i16;
        wantu16[i] = WIDE_I32[i] as u16;
        want8[4 + i] = WIDE_F32[i] as i8;
        want16[4 + i] = WIDE_F32[i] as i16;
        wantu16[4 + i] = WIDE_F32[i] as u16;
        want8[8 + i] = a[i].wrapping_mul(3).wrapping_add(a[3 - i]);
        want16[8 + i] = b[i].wrapping_mul(5).wrapping_sub(b[3 - i]);
        wantu16[8 + i] = c[i].wrapping_mul(c[i]).wrapping_add(c[3 - i]);
        want8[12 + i] = a[i]
            .wrapping_div(a[(i + 2) % 4])
            .wrapping_add(a[i].wrapping_rem(a[(i + 3) % 4]))
            .wrapping_add(a[i] >> 2);
        want16[12 + i] = (b[i] << 9).wrapping_add(b[i].wrapping_div(-1)).wrapping_add(!b[3 - i]);
        wantu16[12 + i] = (c[i] >> 3).wrapping_add(!c[i]).wrapping_add(c[i] % 7);
        want_wide[i] = a[i] as i64 + b[i] as i64 * 1000 + c[i] as i64 * 1_000_000;
    }
    want_wide[4] = WIDE_U32 as u16 as i64;
    want_wide[5] = WIDE_U32 as i16 as i64;
    want_wide[6] = WIDE_U32 as i8 as i64;
    assert_eq!(o8.copy_to_host().unwrap(), want8);
    assert_eq!(o16.copy_to_host().unwrap(), want16);
    assert_eq!(ou16.copy_to_host().unwrap(), wantu16);
    assert_eq!(wide.copy_to_host().unwrap(), want_wide);
}

fn const_out_of_range_is_a_fault_with_coordinates() {
    let mut d_out = zeros::<f32>(40).unwrap();
    let (block, thread, faults, msg) = fault_of(const_oob![2, 32](5usize, &mut d_out), "const_oob");
    assert_eq!((block, thread, faults), ([0, 0, 0], [2, 0, 0], 1));
    assert_eq!(
        msg,
        "index [5] is out of bounds for constant array `FILTER` of shape [5]"
    );
    assert_eq!(d_out.copy_to_host().unwrap()[2], 0.0);
    const_oob![2, 32](4usize, &mut d_out).unwrap();
    assert_eq!(d_out.copy_to_host().unwrap()[2], FILTER[4]);
}

fn cuda_c_of_local_and_const_arrays() {
    let src = local_2d::cuda_source();
    assert!(src.contains("int m[COLS]") || src.contains("int m["), "{src}");
    assert!(src.contains("for (unsigned long long gj_i0 = 0; gj_i0 < "), "{src}");
    let src = local_3d::cuda_source();
    assert!(
        src.contains(
            "double l[2][3][2] = {{{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, {{7.0, 8.0}, {9.0, 10.0}, {11.0, 12.0}}};"
        ),
        "{src}"
    );
    let src = conv_filter::cuda_source();
    assert!(
        src.contains("__constant__ float FILTER[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};"),
        "{src}"
    );
    assert!(src.contains("FILTER[k]"), "{src}");
    let src = const_copies::cuda_source();
    assert!(
        src.contains("__constant__ unsigned int CUBE[2][2][2] = {{{1u, 2u}, {3u, 4u}}, {{5u, 6u}, {7u, 8u}}};"),
        "{src}"
    );
}

fn const_arrays_are_in_constant_memory_in_ptx() {
    for arch in [(7, 5), (9, 0)] {
        let ptx = conv_filter::ptx_for(arch).unwrap().text;
        assert!(ptx.contains(".const .align 4 .b8 FILTER[20]"), "{ptx}");
        assert!(ptx.contains("ld.const.f32"), "{ptx}");
        let ptx = device_arrays::ptx_for(arch).unwrap().text;
        assert!(
            ptx.contains(".const .align 4 .b8 gj_dev_stencil_at__STENCIL[36]"),
            "{ptx}"
        );
    }
}
