//! Atomics and fences (`atomic_add(&mut a[i], v)` & co., `threadfence()`):
//! every operation and element type against host references written here,
//! on the backend of the process (the CPU backend, or CUDA under
//! `GPUJIT_BACKEND=cuda`); the ticket and float-count tests; a
//! shared-memory histogram; and, on the CPU backend, blocks that really run
//! on several OS threads at once while they hammer the same elements.

use crate::kernels;
use kernels::atomics::*;

use crate::common;
use common::Tool;

use gpujit::{to_device, zeros, DeviceArray, DeviceScalar, Error};

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let (any, cpu) = (None, Some(Tool::CpuBackend));
    cases![
        any => integer_atomics_match_the_host_for_every_type,
        any => float_atomics_match_the_host_including_nan_zero_and_subnormals,
        any => contended_atomics_give_the_host_totals,
        any => ticket_test_gives_a_permutation,
        any => f32_atomic_adds_of_one_are_exact,
        any => shared_memory_histogram_is_exact,
        any => atomics_on_2d_3d_views_and_2d_shared_arrays,
        any => fences_run_and_order_nothing_away,
        cpu => blocks_on_several_os_threads_meet_and_count_exactly,
        cpu => an_out_of_bounds_atomic_is_a_fault_that_writes_nothing,
        any => cuda_c_uses_cudas_atomics_with_the_right_types,
    ]
}

fn dev<T: DeviceScalar>(v: &[T]) -> DeviceArray<T> {
    to_device(v).unwrap()
}

fn host<T: DeviceScalar>(d: &DeviceArray<T>) -> Vec<T> {
    d.copy_to_host().unwrap()
}

/// Runs `uncontended_T` on edge values and checks each slot's old and new
/// value against Rust's integer operations (CUDA's definitions for inc/dec).
macro_rules! check_uncontended_int {
    ($t:ident, $slots:expr) => {{
        let n = EDGE_INTS.len();
        let a0: Vec<$t> = (0..n * $slots).map(|k| EDGE_INTS[(k * 5 + 1) % n] as $t).collect();
        let b: Vec<$t> = (0..n).map(|i| EDGE_INTS[(i * 7 + 3) % n] as $t).collect();
        let c: Vec<$t> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    a0[i * $slots + 5]
                } else {
                    EDGE_INTS[(i + 1) % n] as $t
                }
            })
            .collect();
        let mut a = dev(&a0);
        let mut old = zeros::<$t>(n * $slots).unwrap();
        $t::launch(2, 8, &mut a, &dev(&b), &dev(&c), &mut old).unwrap();
        let (a1, old) = (host(&a), host(&old));
        assert_eq!(old, a0, "{}: every atomic returns the old value", stringify!($t));
        for i in 0..n {
            let o = i * $slots;
            let (x, v) = (&a0[o..o + $slots], b[i]);
            let mut want = vec![
                x[0].wrapping_add(v),
                x[1].wrapping_sub(v),
                x[2].min(v),
                x[3].max(v),
                v,
                if x[5] == c[i] { v } else { x[5] },
                x[6] & v,
                x[7] | v,
                x[8] ^ v,
            ];
            if $slots > 9 {
                // CUDA's atomicInc / atomicDec (u32 only).
                want.push(if x[9] >= v { 0 } else { x[9] + 1 });
                want.push(if x[10] == 0 || x[10] > v { v } else { x[10] - 1 });
            }
            assert_eq!(
                &a1[o..o + $slots],
                &want[..],
                "{} thread {i}: a = {x:?}, b = {v}",
                stringify!($t)
            );
        }
    }};
}

mod i32 {
    pub use super::uncontended_i32::launch;
}
mod u32 {
    pub use super::uncontended_u32::launch;
}
mod i64 {
    pub use super::uncontended_i64::launch;
}
mod u64 {
    pub use super::uncontended_u64::launch;
}
mod usize {
    pub use super::uncontended_usize::launch;
}

fn integer_atomics_match_the_host_for_every_type() {
    check_uncontended_int!(i32, INT_SLOTS);
    check_uncontended_int!(u32, U32_SLOTS);
    check_uncontended_int!(i64, INT_SLOTS);
    check_uncontended_int!(u64, INT_SLOTS);
    check_uncontended_int!(usize, INT_SLOTS);
    // atomic_inc / atomic_dec where they wrap: thread 0 with limit 5, thread 1
    // with limit u32::MAX (slots 9 and 10 of each: inc, then dec).
    let mut a0 = [0u32; 22];
    (a0[9], a0[10], a0[20], a0[21]) = (5, 0, u32::MAX, 7);
    let mut a = dev(&a0);
    let mut old = zeros::<u32>(22).unwrap();
    uncontended_u32::launch(1, 2, &mut a, &dev(&[5u32, u32::MAX]), &dev(&[1u32, 1]), &mut old).unwrap();
    let a1 = host(&a);
    assert_eq!(
        (a1[9], a1[10]),
        (0, 5),
        "inc at the limit wraps to 0, dec of 0 wraps to the limit"
    );
    assert_eq!(
        (a1[20], a1[21]),
        (0, 6),
        "inc of u32::MAX with limit u32::MAX wraps to 0"
    );
    assert_eq!((host(&old)[9], host(&old)[21]), (5, 7));
}

/// `x` with subnormals flushed to a zero of the same sign.
fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn float_atomics_match_the_host_including_nan_zero_and_subnormals() {
    let vals = [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        -f32::MIN_POSITIVE / 2.0,
        1e30,
        f32::MAX,
        3.0,
    ];
    let n = vals.len();
    let a0: Vec<f32> = (0..n * FLOAT_SLOTS).map(|k| vals[k % n]).collect();
    let b: Vec<f32> = (0..n).map(|i| vals[(i * 7 + 2) % n]).collect();
    let mut a = dev(&a0);
    let mut old = zeros::<f32>(a0.len()).unwrap();
    uncontended_f32![2, 8](&mut a, &dev(&b), &mut old).unwrap();
    let (a1, old) = (host(&a), host(&old));
    for (i, &v) in b.iter().enumerate() {
        let o = i * FLOAT_SLOTS;
        let x = &a0[o..o + FLOAT_SLOTS];
        // min/max (Numba's): the element stays if either is NaN; nanmin/
        // nanmax: a NaN operand loses; an equal value keeps the old one.
        let want = [
            ftz(ftz(x[0]) + ftz(v)),
            ftz(ftz(x[1]) - ftz(v)),
            if v < x[2] { v } else { x[2] },
            if v > x[3] { v } else { x[3] },
            v,
            if x[5].is_nan() || v < x[5] { v } else { x[5] },
            if x[6].is_nan() || v > x[6] { v } else { x[6] },
        ];
        for s in 0..FLOAT_SLOTS {
            assert!(
                same_f32(old[o + s], x[s]),
                "f32 thread {i} slot {s}: old {} vs {}",
                old[o + s],
                x[s]
            );
            assert!(
                same_f32(a1[o + s], want[s]),
                "f32 thread {i} slot {s}: a = {}, b = {v}: got {:?}, want {:?}",
                x[s],
                a1[o + s],
                want[s]
            );
        }
    }
    // The flush is f32's only: f64 keeps subnormals.
    let vals64: Vec<f64> = vals
        .iter()
        .map(|&x| x as f64)
        .chain([f64::MIN_POSITIVE / 8.0])
        .collect();
    let n = vals64.len();
    let a0: Vec<f64> = (0..n * FLOAT_SLOTS).map(|k| vals64[(k * 3) % n]).collect();
    let b: Vec<f64> = (0..n).map(|i| vals64[(i * 5 + 1) % n]).collect();
    let mut a = dev(&a0);
    let mut old = zeros::<f64>(a0.len()).unwrap();
    uncontended_f64![2, 8](&mut a, &dev(&b), &mut old).unwrap();
    let (a1, old) = (host(&a), host(&old));
    for (i, &v) in b.iter().enumerate() {
        let o = i * FLOAT_SLOTS;
        let x = &a0[o..o + FLOAT_SLOTS];
        let want = [
            x[0] + v,
            x[1] - v,
            if v < x[2] { v } else { x[2] },
            if v > x[3] { v } else { x[3] },
            v,
            if x[5].is_nan() || v < x[5] { v } else { x[5] },
            if x[6].is_nan() || v > x[6] { v } else { x[6] },
        ];
        for s in 0..FLOAT_SLOTS {
            assert!(same_f64(old[o + s], x[s]), "f64 thread {i} slot {s}");
            assert!(
                same_f64(a1[o + s], want[s]),
                "f64 thread {i} slot {s}: a = {}, b = {v}: got {:?}, want {:?}",
                x[s],
                a1[o + s],
                want[s]
            );
        }
    }
    // A subnormal sum: f32 flushes it, f64 keeps it.
    let tiny = f32::MIN_POSITIVE / 4.0;
    let mut a = dev(&[tiny, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let mut old = zeros::<f32>(FLOAT_SLOTS).unwrap();
    uncontended_f32![1, 1](&mut a, &dev(&[tiny]), &mut old).unwrap();
    assert_eq!(host(&a)[0].to_bits(), 0, "f32 atomic_add flushes subnormals to +0");
}

/// Runs `contended_T` with 384 threads on 300 operands and compares the
/// order-independent totals with the host's.
macro_rules! check_contended_int {
    ($t:ident, $k:ident) => {{
        let b: Vec<$t> = (0..300)
            .map(|i| EDGE_INTS[i % 12].wrapping_mul(i as i128 + 1) as $t)
            .collect();
        let a0: Vec<$t> = vec![3, 5, 0, 0, !0, 0, 0, 999, 5];
        let mut a = dev(&a0);
        $k![3, 128](&mut a, &dev(&b)).unwrap();
        let got = host(&a);
        let mut want = a0.clone();
        for &v in &b {
            want[0] = want[0].wrapping_add(v);
            want[1] = want[1].wrapping_sub(v);
            want[2] = want[2].min(v);
            want[3] = want[3].max(v);
            want[4] &= v;
            want[5] |= v;
            want[6] ^= v;
        }
        if stringify!($t) == "u32" {
            // 300 increments of 999 with limit 1000 wrap: (999 + 300) % 1001;
            // 300 decrements of 5: 5, 4, .., 0, then 1000, 999, ...
            want[7] = ((999 + 300) % 1001) as $t;
            want[8] = (1000 - (300 - 6)) as $t;
        }
        assert_eq!(got, want, "contended {}", stringify!($t));
    }};
}

fn contended_atomics_give_the_host_totals() {
    check_contended_int!(i32, contended_i32);
    check_contended_int!(u32, contended_u32);
    check_contended_int!(i64, contended_i64);
    check_contended_int!(u64, contended_u64);
    check_contended_int!(usize, contended_usize);
    let b: Vec<f32> = (0..300).map(|i| ((i * 37 % 101) as f32 - 50.5) * 0.5).collect();
    let mut a = dev(&[0.5f32, 1.0, 1e9, -1e9]);
    contended_f32![3, 128](&mut a, &dev(&b)).unwrap();
    let sum: f32 = b.iter().sum();
    let (lo, hi) = b
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    assert_eq!(host(&a), [0.5 + sum, 1.0 - sum, lo, hi]);
    let b: Vec<f64> = b.iter().map(|&x| x as f64 * 4.0).collect();
    let mut a = dev(&[0.5f64, 1.0, 1e9, -1e9]);
    contended_f64![3, 128](&mut a, &dev(&b)).unwrap();
    let sum: f64 = b.iter().sum();
    let (lo, hi) = b
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
    assert_eq!(host(&a), [0.5 + sum, 1.0 - sum, lo, hi]);
}

fn ticket_test_gives_a_permutation() {
    let mut counter = zeros::<u32>(1).unwrap();
    let mut out = zeros::<u32>(128).unwrap();
    tickets![2, 64](&mut counter, &mut out).unwrap();
    assert_eq!(host(&counter), [128]);
    let mut t = host(&out);
    t.sort_unstable();
    assert_eq!(t, (0..128).collect::<Vec<u32>>(), "each ticket exactly once");
}

fn f32_atomic_adds_of_one_are_exact() {
    let mut acc = zeros::<f32>(1).unwrap();
    add_ones_f32![64, 256](&mut acc).unwrap();
    assert_eq!(host(&acc), [16384.0f32]);
}

fn shared_memory_histogram_is_exact() {
    // Skewed: most values fall in a few bins, so many threads contend per bin.
    let x: Vec<u32> = (0..200_000u32)
        .map(|i| {
            if i % 3 == 0 {
                i % 7
            } else {
                (i.wrapping_mul(2_654_435_761) >> 13) % 256
            }
        })
        .collect();
    let mut want = vec![0u32; 256];
    for &v in &x {
        want[v as usize] += 1;
    }
    let mut hist = zeros::<u32>(256).unwrap();
    shared_histogram![16, 256](&dev(&x), &mut hist).unwrap();
    assert_eq!(host(&hist), want);
}

fn atomics_on_2d_3d_views_and_2d_shared_arrays() {
    let (rows, cols) = (20usize, 24usize);
    let v: Vec<i64> = (0..rows * cols).map(|i| (i as i64 * 7919 % 1000) - 500).collect();
    let m = gpujit::ndarray::Array2::from_shape_vec((rows, cols), v.clone()).unwrap();
    let mut lo = to_device(&gpujit::ndarray::Array2::from_elem((4, 4), i64::MAX)).unwrap();
    let mut hi = to_device(&gpujit::ndarray::Array2::from_elem((4, 4), i64::MIN)).unwrap();
    let mut sums = zeros::<f64>((2, 4, 4)).unwrap();
    atomics_2d_3d![(3, 3), (8, 8)](&to_device(&m).unwrap(), &mut lo, &mut hi, &mut sums).unwrap();
    let (mut wlo, mut whi, mut wsum) = (vec![i64::MAX; 16], vec![i64::MIN; 16], vec![0.0f64; 32]);
    for y in 0..rows {
        for x in 0..cols {
            let c = (y % 4) * 4 + x % 4;
            wlo[c] = wlo[c].min(v[y * cols + x]);
            whi[c] = whi[c].max(v[y * cols + x]);
            wsum[((y / 8) % 2) * 16 + c] += v[y * cols + x] as f64;
        }
    }
    assert_eq!(host(&lo), wlo);
    assert_eq!(host(&hi), whi);
    assert_eq!(host(&sums), wsum);
}

fn fences_run_and_order_nothing_away() {
    let mut data = zeros::<u32>(3).unwrap();
    let mut flag = zeros::<u32>(1).unwrap();
    let mut count = zeros::<u32>(1).unwrap();
    fences![2, 32](&mut data, &mut flag, &mut count).unwrap();
    assert_eq!(
        (host(&data), host(&flag), host(&count)),
        (vec![7, 8, 9], vec![1], vec![64])
    );
}

fn blocks_on_several_os_threads_meet_and_count_exactly() {
    // A pool of 4 workers even on a 1-core machine: blocks are rayon tasks.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    pool.install(|| {
        // Block 0 waits for block 1 (and vice versa): both set `met` only if
        // they ran at the same time.
        let mut arrived = zeros::<u32>(1).unwrap();
        let mut met = zeros::<u32>(2).unwrap();
        blocks_meet![2, 32](&mut arrived, &mut met, 200_000_000u64).unwrap();
        assert_eq!(host(&met), [1, 1], "the two blocks did not run at the same time");

        let (blocks, threads, reps) = (64u32, 256u32, 64u32);
        let mut counters = zeros::<u64>(8).unwrap();
        let mut signed = dev(&[0i32]);
        let mut sum = zeros::<f64>(1).unwrap();
        hammer![blocks, threads](&mut counters, &mut signed, &mut sum, reps).unwrap();
        let total = u64::from(blocks * threads * reps);
        assert_eq!(host(&counters), vec![total / 8; 8]);
        assert_eq!(host(&signed), [-(total as i32)]);
        assert_eq!(host(&sum), [total as f64 * 0.5]);
    });
}

fn an_out_of_bounds_atomic_is_a_fault_that_writes_nothing() {
    let mut a = dev(&[1u32, 2, 3]);
    let mut got = zeros::<u32>(1).unwrap();
    match atomic_out_of_bounds![1, 4](&mut a, &mut got) {
        Err(Error::KernelFault { faults, message, .. }) => {
            assert_eq!(faults, 1);
            assert!(message.contains("out of bounds") && message.contains('a'), "{message}");
        }
        other => panic!("expected a KernelFault, got {other:?}"),
    }
    assert_eq!(host(&a), [1, 2, 3]);
    assert_eq!(host(&got), [1], "a faulting atomic returns 0");
}

fn cuda_c_uses_cudas_atomics_with_the_right_types() {
    let src = |k: &gpujit::__private::KernelDef| (k.cuda_source)();
    let i32s = src(&uncontended_i32::KERNEL);
    for f in [
        "atomicAdd(&a[",
        "atomicSub(&a[",
        "atomicMin(&a[",
        "atomicCAS(&a[",
        "atomicXor(&a[",
    ] {
        assert!(i32s.contains(f), "{f} missing in\n{i32s}");
    }
    let i64s = src(&uncontended_i64::KERNEL);
    for f in [
        "(long long)atomicAdd((unsigned long long*)&a[",
        "(long long)atomicAdd((unsigned long long*)&a[o + 1ull], 0ull - (unsigned long long)(",
        "atomicMin(&a[",
        "(long long)atomicCAS((unsigned long long*)&a[",
    ] {
        assert!(i64s.contains(f), "{f} missing in\n{i64s}");
    }
    let u64s = src(&uncontended_u64::KERNEL);
    assert!(u64s.contains("atomicAdd(&a[o + 1ull], 0ull - ("), "{u64s}");
    let u32s = src(&uncontended_u32::KERNEL);
    assert!(
        u32s.contains("atomicInc(&a[") && u32s.contains("atomicDec(&a["),
        "{u32s}"
    );
    let f32s = src(&uncontended_f32::KERNEL);
    for f in [
        "atomicAdd(&a[o + 1ull], -(",
        "gj_atomic_min_f32(&a[",
        "gj_atomic_max_f32(&a[",
        "atomicExch(&a[",
    ] {
        assert!(f32s.contains(f), "{f} missing in\n{f32s}");
    }
    assert_eq!(
        f32s.matches("static __device__ __forceinline__ float gj_atomic_min_f32")
            .count(),
        1
    );
    let f64s = src(&uncontended_f64::KERNEL);
    assert!(
        f64s.contains("__longlong_as_double((long long)atomicExch((unsigned long long*)&a["),
        "{f64s}"
    );
    assert!(f64s.contains("gj_atomic_max_f64(&a["), "{f64s}");
    let shared = src(&shared_histogram::KERNEL);
    assert!(
        shared.contains("atomicAdd(&bins[") && shared.contains("atomicAdd(&hist["),
        "{shared}"
    );
    let f = src(&fences::KERNEL);
    for fence in ["__threadfence_block();", "__threadfence();", "__threadfence_system();"] {
        assert!(f.contains(fence), "{fence} missing in\n{f}");
    }
}
