//! Across and around launches: `&mut` arguments carry over, constants from
//! outside the kernel, and the CPU backend's time limit.

use super::*;

pub(crate) fn mut_arguments_carry_over_between_launches() {
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

pub(crate) fn loops_over_outside_constants() {
    let host = [32.0f32, 64.0, -8.0];
    let mut d = gpujit::to_device(&host).unwrap();
    opaque_loops![1, 4](&mut d).unwrap();
    let want: Vec<f32> = host.iter().map(|&v| v * 0.5f32.powi(5) + 3.0).collect();
    assert_eq!(d.copy_to_host().unwrap(), want);
}

pub(crate) fn arithmetic_on_outside_constants_wraps_and_faults() {
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

/// Runs `launch` under a 200 ms CPU time limit; asserts `LaunchTimeout` naming
/// `kernel`, within a generous bound.
pub(crate) fn times_out(kernel: &str, launch: impl FnOnce() -> gpujit::Result<()>) {
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

pub(crate) fn run_away_kernels_stop_at_the_time_limit() {
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

pub(crate) fn a_time_limit_leaves_finishing_kernels_alone() {
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
