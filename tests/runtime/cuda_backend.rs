//! The CUDA backend against the driver double (`driver-double/`, a test-only
//! `libcuda.so` that runs the emitted CUDA C on the host). The backend is
//! chosen once per process and the double reads its environment once, so
//! each case runs in a child process (this binary again, `GJ_CUDA_CASE=<case>`)
//! with `LD_LIBRARY_PATH` pointing at the double and its own environment.
//! Without the built double, NVRTC or g++ the cases show as ignored
//! (`GPUJIT_REQUIRE_DRIVER_DOUBLE=1` makes that a failure).

use crate::common;

use std::process::{Command, ExitCode};
use std::sync::Arc;

use gpujit::prelude::*;
use gpujit::{BackendKind, Stream};

#[gpu_kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// Scalars of every width and a 2-D array: checks the parameter packing.
#[gpu_kernel]
fn mix(flag: bool, k: i64, s: u8, u: u32, w: u64, f: f32, d: f64, out: ArrayViewMut2<f64>) {
    let (x, y) = grid(2);
    let (rows, cols) = out.dim();
    if y < rows && x < cols {
        let base = (y * cols + x) as f64;
        let v = if flag { base * d + f as f64 } else { -base };
        out[[y, x]] = v + k as f64 + s as f64 + u as f64 + w as f64;
    }
}

/// Counts `(0..n).step_by(s)`; thread 0 of each block steps by `s`, the
/// others by 1 (so a zero `s` traps in some threads only).
#[gpu_kernel]
fn step_count(n: u32, s: usize, out: &mut [u32]) {
    let i = grid(1);
    let step = if thread_idx().x == 0 { s } else { 1 };
    let mut c: u32 = 0;
    for _ in (0..n).step_by(step) {
        c += 1;
    }
    if i < out.len() {
        out[i] = c;
    }
}

/// Depth `n` of a mutual recursion through two device functions.
#[gpu_device]
fn down_a(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 + down_b(n - 1)
    }
}

#[gpu_device]
fn down_b(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        1 + down_a(n - 1)
    }
}

#[gpu_device]
fn plus_one(n: u32) -> u32 {
    n + 1
}

#[gpu_kernel]
fn recursion_depth(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = down_a(i as u32 * 10);
    }
}

#[gpu_kernel]
fn no_recursion(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = plus_one(plus_one(i as u32));
    }
}

/// Issue #19's store: no bounds check, so threads past `a.len()` store past its end.
#[gpu_kernel]
fn store_past_end(a: &mut [f32]) {
    a[grid(1)] = 1.0;
}

/// Reads one element past the end of `x` when `x` is no longer than `out`.
#[gpu_kernel]
fn load_shifted(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = x[i + 1];
    }
}

fn mix_host(rows: usize, cols: usize) -> Vec<f64> {
    (0..rows * cols)
        .map(|i| i as f64 * 0.5 + 1.25 + (-3.0) + 7.0 + 4e9 + 5e10)
        .collect()
}

fn launch_mix(out: &mut DeviceArray<f64>) -> gpujit::Result<()> {
    mix![(3, 2), (8, 4)](true, -3, 7, 4_000_000_000, 50_000_000_000, 1.25, 0.5, out)
}

fn backend_is_cuda() {
    let d = gpujit::detect();
    assert_eq!(d.kind, BackendKind::Cuda, "{d}");
    assert!(
        d.reason
            .contains("gpujit driver double (compute capability 9.0), driver CUDA"),
        "{d}"
    );
}

// ------------------------------------------------------------------ cases (child side)

fn detect_finds_the_double() {
    backend_is_cuda();
    assert!(gpujit::detect()
        .to_string()
        .starts_with("CUDA backend (GPUJIT_BACKEND=auto: "));
}

fn kernels_give_the_cpu_results() {
    backend_is_cuda();
    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.25).collect();
    let y0: Vec<f32> = (0..1000).map(|i| 1000.0 - i as f32).collect();
    let d_x = gpujit::to_device(&x).unwrap();
    let mut d_y = gpujit::to_device(&y0).unwrap();
    assert_eq!(d_y.device(), Some(0));
    saxpy![4, 256](2.0, &d_x, &mut d_y).unwrap();
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 2.0 * x + y).collect();
    assert_eq!(d_y.copy_to_host().unwrap(), want);
    // Second launch: from the module cache.
    saxpy::launch(4, 256, -2.0, &d_x, &mut d_y).unwrap();
    assert_eq!(d_y.copy_to_host().unwrap(), y0);

    let mut out = gpujit::zeros::<f64>((8, 24)).unwrap();
    launch_mix(&mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap(), mix_host(8, 24));

    // Device-to-device copy and a zero-length array.
    let mut copy = gpujit::zeros::<f64>((8, 24)).unwrap();
    copy.copy_from_device(&out).unwrap();
    assert_eq!(copy.copy_to_host().unwrap(), mix_host(8, 24));
    let empty = gpujit::zeros::<f32>(0).unwrap();
    assert!(empty.copy_to_host().unwrap().is_empty());
    gpujit::synchronize().unwrap();
}

fn no_device_falls_back_to_the_cpu() {
    let d = gpujit::detect();
    assert_eq!(d.kind, BackendKind::Cpu, "{d}");
    assert!(
        d.reason.contains("CUDA_ERROR_NO_DEVICE") || d.reason.contains("no device"),
        "{d}"
    );
    let mut y = gpujit::zeros::<f32>(4).unwrap();
    let x = gpujit::to_device(&[1.0f32; 4]).unwrap();
    saxpy![1, 4](3.0, &x, &mut y).unwrap();
    assert_eq!(y.copy_to_host().unwrap(), [3.0; 4]);
}

fn forced_cuda_without_device_is_an_error() {
    let err = gpujit::to_device(&[1.0f32]).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, gpujit::Error::BackendUnavailable { .. }), "{text}");
    assert!(text.contains("GPUJIT_BACKEND=cpu"), "{text}");
    let expected = std::env::var("GJ_EXPECT").unwrap();
    assert!(text.contains(&expected), "{text} lacks {expected}");
}

fn out_of_memory_keeps_the_code() {
    backend_is_cuda();
    let err = gpujit::zeros::<f32>(1 << 20).unwrap_err();
    match &err {
        gpujit::Error::Cuda { name, code, advice, .. } => {
            assert_eq!((name.as_str(), *code), ("CUDA_ERROR_OUT_OF_MEMORY", 2), "{err}");
            assert!(advice.contains("out of memory"), "{err}");
        }
        other => panic!("expected Error::Cuda, got {other}"),
    }
}

fn illegal_address_names_the_kernel() {
    backend_is_cuda();
    let x = gpujit::to_device(&[1.0f32; 64]).unwrap();
    let mut y = gpujit::zeros::<f32>(64).unwrap();
    // Launches are asynchronous: the fault shows at the next synchronizing call.
    let launched = saxpy![1, 64](1.0, &x, &mut y);
    let err = launched.and_then(|()| y.copy_to_host().map(drop)).unwrap_err();
    match &err {
        gpujit::Error::DeviceFault { kernel, name, .. } => {
            assert_eq!(
                (kernel.as_str(), name.as_str()),
                ("saxpy", "CUDA_ERROR_ILLEGAL_ADDRESS"),
                "{err}"
            );
        }
        other => panic!("expected Error::DeviceFault, got {other}"),
    }
    assert!(err.to_string().contains("sticky"), "{err}");
    // Sticky: later calls fail too, with an error, never a panic.
    assert!(gpujit::synchronize().is_err());
}

/// Asserts that `err` is the CUDA backend's illegal-address fault of `kernel`.
fn assert_illegal_address(err: &gpujit::Error, kernel: &str) {
    match err {
        gpujit::Error::DeviceFault { kernel: k, name, code } => {
            assert_eq!(
                (k.as_str(), name.as_str(), *code),
                (kernel, "CUDA_ERROR_ILLEGAL_ADDRESS", 700),
                "{err}"
            );
        }
        other => panic!("expected Error::DeviceFault, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "kernel `{kernel}` faulted on the GPU with CUDA_ERROR_ILLEGAL_ADDRESS (700)"
        )) && text.contains("sticky"),
        "{text}"
    );
}

/// A real out-of-bounds store (the double's guard page behind every device
/// array, not an injected fault): an illegal address naming the kernel, the
/// process lives on, and the context stays faulted (sticky, as on a GPU:
/// CUDA keeps returning the error until the context is destroyed, and gpujit
/// keeps its context for the process).
fn out_of_bounds_store_is_an_illegal_address() {
    backend_is_cuda();
    let mut a = gpujit::zeros::<f32>(10).unwrap();
    store_past_end![1, 10](&mut a).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), [1.0; 10], "in bounds: no fault");
    let err = store_past_end![1, 16](&mut a)
        .and_then(|()| gpujit::synchronize())
        .unwrap_err();
    assert_illegal_address(&err, "store_past_end");
    // Sticky: every later call fails, with an error, never a crash.
    let again = a.copy_to_host().unwrap_err();
    assert!(matches!(again, gpujit::Error::DeviceFault { code: 700, .. }), "{again}");
    assert!(store_past_end![1, 10](&mut a)
        .and_then(|()| gpujit::synchronize())
        .is_err());
    assert!(gpujit::zeros::<f32>(4).is_err());
}

/// A load one element past the end of an array, after a launch that reads
/// up to its last element.
fn out_of_bounds_load_is_an_illegal_address() {
    backend_is_cuda();
    let host: Vec<f32> = (0..11).map(|i| i as f32 * 0.5).collect();
    let x = gpujit::to_device(&host).unwrap();
    let mut out = gpujit::zeros::<f32>(10).unwrap();
    load_shifted![1, 16](&x, &mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap(), host[1..]);
    let short = gpujit::to_device(&host[..10]).unwrap();
    let err = load_shifted![1, 16](&short, &mut out)
        .and_then(|()| out.copy_to_host().map(drop))
        .unwrap_err();
    assert_illegal_address(&err, "load_shifted");
    assert!(gpujit::synchronize().is_err(), "sticky");
}

/// `step_by(0)` traps on CUDA (the CPU backend reports a `KernelFault`
/// instead, tests/semantics/): an unspecified launch failure naming the
/// kernel, sticky for the rest of the process.
fn a_zero_step_is_a_sticky_launch_failure() {
    backend_is_cuda();
    let mut out = gpujit::zeros::<u32>(8).unwrap();
    step_count![2, 4](10, 3, &mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap(), [4, 10, 10, 10, 4, 10, 10, 10]);
    let err = step_count![2, 4](10, 0, &mut out)
        .and_then(|()| gpujit::synchronize())
        .unwrap_err();
    match &err {
        gpujit::Error::DeviceFault { kernel, name, .. } => {
            assert_eq!(
                (kernel.as_str(), name.as_str()),
                ("step_count", "CUDA_ERROR_LAUNCH_FAILED"),
                "{err}"
            );
        }
        other => panic!("expected Error::DeviceFault, got {other}"),
    }
    assert!(out.copy_to_host().is_err());
    assert!(step_count![2, 4](10, 3, &mut out)
        .and_then(|()| gpujit::synchronize())
        .is_err());
}

fn launches_are_checked_against_the_device_limits() {
    backend_is_cuda();
    let x = gpujit::to_device(&[1.0f32; 4]).unwrap();
    let mut y = gpujit::zeros::<f32>(4).unwrap();
    let err = saxpy![(1, 65536), 32](1.0, &x, &mut y).unwrap_err();
    assert!(matches!(err, gpujit::Error::InvalidLaunchConfig(_)), "{err}");
    let err = saxpy![1, (32, 1, 65)](1.0, &x, &mut y).unwrap_err();
    assert!(err.to_string().contains("block.z = 65"), "{err}");
    let err = saxpy![1, 2048](1.0, &x, &mut y).unwrap_err();
    assert!(err.to_string().contains("2048"), "{err}");
    // Nothing was launched: the array is untouched and the context healthy.
    assert_eq!(y.copy_to_host().unwrap(), [0.0; 4]);
}

fn mixing_devices_is_an_error() {
    backend_is_cuda();
    let gpus = gpujit::gpus().unwrap();
    assert_eq!(gpus.len(), 2, "{gpus:?}");
    let x0 = gpujit::to_device(&[1.0f32; 4]).unwrap();
    gpujit::select_device(1).unwrap();
    let mut y1 = gpujit::zeros::<f32>(4).unwrap();
    assert_eq!((x0.device(), y1.device()), (Some(0), Some(1)));
    let err = saxpy![1, 4](1.0, &x0, &mut y1).unwrap_err();
    match &err {
        gpujit::Error::WrongDevice { what, expected, found } => {
            assert_eq!((*expected, *found), (1, 0), "{err}");
            assert!(what.contains("parameter `x`"), "{err}");
        }
        other => panic!("expected Error::WrongDevice, got {other}"),
    }
    // On one device it works, and a stream of device 1 refuses device 0's array.
    let x1 = gpujit::to_device(&[2.0f32; 4]).unwrap();
    saxpy![1, 4](1.0, &x1, &mut y1).unwrap();
    assert_eq!(y1.copy_to_host().unwrap(), [2.0; 4]);
    let s1 = gpujit::stream().unwrap();
    assert!(matches!(
        x0.copy_to_host_on(&s1),
        Err(gpujit::Error::WrongDevice { .. })
    ));
    assert!(gpujit::select_device(2).is_err());
}

/// The seed's overlap pattern with `GPUJIT_DOUBLE_DEFER=1` (queued work runs
/// only when something waits for it).
fn streams_events_and_pinned_copies() {
    backend_is_cuda();
    let stream: Stream = gpujit::stream().unwrap();
    let x: Vec<f32> = (0..512).map(|i| i as f32).collect();
    let d_x = gpujit::to_device_on(&x, &stream).unwrap();
    let mut pinned_y = gpujit::pinned_array::<f32>(512).unwrap();
    pinned_y.as_mut_slice().unwrap().fill(1.0);
    let mut d_y = gpujit::zeros::<f32>(512).unwrap();
    d_y.copy_from_pinned(&pinned_y, &stream).unwrap();
    let (start, end) = (gpujit::event().unwrap(), gpujit::event().unwrap());
    // Never recorded: the CPU backend's advice, not CUDA's bare
    // CUDA_ERROR_INVALID_HANDLE.
    let e = start.elapsed_time(&end).unwrap_err().to_string();
    assert!(e.contains("call record(&stream) on both events first"), "{e}");
    start.record(&stream).unwrap();
    saxpy![2, 256, &stream](3.0, &d_x, &mut d_y).unwrap();
    saxpy::launch_on(&stream, 2, 256, 1.0, &d_x, &mut d_y).unwrap();
    end.record(&stream).unwrap();
    d_y.copy_to_pinned(&mut pinned_y, &stream).unwrap();
    // as_slice waits for the copy (and so for the launches before it).
    let want: Vec<f32> = x.iter().map(|x| 4.0 * x + 1.0).collect();
    assert_eq!(pinned_y.as_slice().unwrap(), &want[..]);
    end.synchronize().unwrap();
    assert!(start.elapsed_time(&end).unwrap() >= 0.0);
    stream.synchronize().unwrap();
    assert_eq!(d_y.copy_to_host_on(&stream).unwrap(), want);
}

/// An array dropped while queued work still uses it is freed after that work
/// (`GPUJIT_DOUBLE_DEFER=1`: the double reports a use after free as
/// `CUDA_ERROR_ILLEGAL_ADDRESS`).
fn dropping_an_array_with_queued_work() {
    backend_is_cuda();
    let stream = gpujit::stream().unwrap();
    let mut kept = gpujit::zeros::<f32>(256).unwrap();
    {
        let x = gpujit::to_device(&[2.0f32; 256]).unwrap();
        let mut tmp = gpujit::zeros::<f32>(256).unwrap();
        saxpy![1, 256, &stream](1.0, &x, &mut tmp).unwrap();
        saxpy![1, 256, &stream](1.0, &x, &mut kept).unwrap();
        // `x` and `tmp` are dropped here, before the stream has run.
    }
    stream.synchronize().unwrap();
    gpujit::synchronize().unwrap();
    assert_eq!(kept.copy_to_host().unwrap(), [2.0; 256]);
}

fn occupancy_warning_once_per_kernel() {
    backend_is_cuda();
    let keep = common::KeepLog::install();
    let sms = gpujit::gpus().unwrap()[0].multiprocessors as usize;
    assert_eq!(sms, 132, "the double reports an H100's multiprocessors");
    // Twice the multiprocessors, capped at Numba's 128 blocks.
    let min_grid = (2 * sms).min(128);
    let x = gpujit::to_device(&vec![1.0f32; 64 * 4 * sms]).unwrap();
    let mut y = gpujit::zeros::<f32>(64 * 4 * sms).unwrap();
    saxpy![min_grid, 64](1.0, &x, &mut y).unwrap(); // enough blocks: no warning
    saxpy![min_grid - 1, 64](1.0, &x, &mut y).unwrap();
    saxpy![1, 64](1.0, &x, &mut y).unwrap(); // once per kernel
    gpujit::synchronize().unwrap();
    let got = keep.messages().clone();
    let silenced = std::env::var(gpujit::ENV_LOW_OCCUPANCY_WARNINGS).as_deref() == Ok("0");
    if silenced {
        assert!(got.is_empty(), "{got:?}");
    } else {
        assert_eq!(got.len(), 1, "{got:?}");
        let want = format!(
            "grid size {} will likely result in GPU under-utilization due to low occupancy",
            min_grid - 1
        );
        assert!(got[0].contains(&want) && got[0].contains("`saxpy`"), "{got:?}");
    }
}

// ------------------------------------------------------------------ runner (parent side)

/// The context's per-thread stack (`cuCtxGetLimit`): gpujit and cudarc share
/// the device's primary context.
fn stack_limit() -> usize {
    let ctx = cudarc::driver::CudaContext::new(0).expect("the double's device 0");
    ctx.get_limit(cudarc::driver::sys::CUlimit::CU_LIMIT_STACK_SIZE)
        .expect("cuCtxGetLimit")
}

fn recursive_kernels_get_a_bigger_stack() {
    backend_is_cuda();
    let mut out = gpujit::zeros::<u32>(20).unwrap();
    no_recursion![1, 32](&mut out).unwrap();
    assert_eq!(
        out.copy_to_host().unwrap(),
        (0..20).map(|i| i + 2).collect::<Vec<u32>>()
    );
    assert_eq!(
        stack_limit(),
        1024,
        "CUDA's default stays for a kernel without recursion"
    );
    recursion_depth![1, 32](&mut out).unwrap();
    assert_eq!(
        out.copy_to_host().unwrap(),
        (0..20).map(|i| i * 10).collect::<Vec<u32>>()
    );
    assert_eq!(stack_limit(), 8192, "a kernel reaching a recursive device function");
}

struct Case {
    name: &'static str,
    env: &'static [(&'static str, &'static str)],
    run: fn(),
}

fn child_cases() -> Vec<Case> {
    vec![
        Case {
            name: "detect_finds_the_double",
            env: &[("GPUJIT_BACKEND", "auto")],
            run: detect_finds_the_double,
        },
        Case {
            name: "kernels_give_the_cpu_results",
            env: &[],
            run: kernels_give_the_cpu_results,
        },
        Case {
            name: "no_device_falls_back_to_the_cpu",
            env: &[("GPUJIT_BACKEND", "auto"), ("GPUJIT_DOUBLE_FAIL", "no-device")],
            run: no_device_falls_back_to_the_cpu,
        },
        Case {
            name: "zero_devices_falls_back_to_the_cpu",
            env: &[("GPUJIT_BACKEND", "auto"), ("GPUJIT_DOUBLE_DEVICES", "0")],
            run: no_device_falls_back_to_the_cpu,
        },
        Case {
            name: "forced_cuda_without_device_is_an_error",
            env: &[
                ("GPUJIT_DOUBLE_FAIL", "no-device"),
                ("GJ_EXPECT", "CUDA_ERROR_NO_DEVICE"),
            ],
            run: forced_cuda_without_device_is_an_error,
        },
        Case {
            name: "forced_cuda_with_failing_init_is_an_error",
            env: &[("GPUJIT_DOUBLE_FAIL", "init"), ("GJ_EXPECT", "cuInit failed")],
            run: forced_cuda_without_device_is_an_error,
        },
        Case {
            name: "out_of_memory_keeps_the_code",
            env: &[("GPUJIT_DOUBLE_FAIL", "oom")],
            run: out_of_memory_keeps_the_code,
        },
        Case {
            name: "illegal_address_names_the_kernel",
            env: &[("GPUJIT_DOUBLE_FAIL", "illegal-address")],
            run: illegal_address_names_the_kernel,
        },
        Case {
            name: "out_of_bounds_store_is_an_illegal_address",
            env: &[],
            run: out_of_bounds_store_is_an_illegal_address,
        },
        Case {
            name: "out_of_bounds_store_is_an_illegal_address_deferred",
            env: &[("GPUJIT_DOUBLE_DEFER", "1")],
            run: out_of_bounds_store_is_an_illegal_address,
        },
        Case {
            name: "out_of_bounds_load_is_an_illegal_address",
            env: &[],
            run: out_of_bounds_load_is_an_illegal_address,
        },
        Case {
            name: "a_zero_step_is_a_sticky_launch_failure",
            env: &[],
            run: a_zero_step_is_a_sticky_launch_failure,
        },
        Case {
            name: "launches_are_checked_against_the_device_limits",
            env: &[],
            run: launches_are_checked_against_the_device_limits,
        },
        Case {
            name: "mixing_devices_is_an_error",
            env: &[("GPUJIT_DOUBLE_DEVICES", "2")],
            run: mixing_devices_is_an_error,
        },
        Case {
            name: "streams_events_and_pinned_copies_deferred",
            env: &[("GPUJIT_DOUBLE_DEFER", "1")],
            run: streams_events_and_pinned_copies,
        },
        Case {
            name: "dropping_an_array_with_queued_work_deferred",
            env: &[("GPUJIT_DOUBLE_DEFER", "1")],
            run: dropping_an_array_with_queued_work,
        },
        Case {
            name: "recursive_kernels_get_a_bigger_stack",
            env: &[],
            run: recursive_kernels_get_a_bigger_stack,
        },
        Case {
            name: "occupancy_warning_once_per_kernel",
            env: &[],
            run: occupancy_warning_once_per_kernel,
        },
        Case {
            name: "occupancy_warning_switched_off",
            env: &[("GPUJIT_LOW_OCCUPANCY_WARNINGS", "0")],
            run: occupancy_warning_once_per_kernel,
        },
    ]
}

/// In a child process this file started (`GJ_CUDA_CASE` set): runs that one
/// case and returns its exit code.
pub fn child() -> Option<ExitCode> {
    let name = std::env::var("GJ_CUDA_CASE").ok()?;
    let case = child_cases().into_iter().find(|c| c.name == name).expect("known case");
    (case.run)();
    Some(ExitCode::SUCCESS)
}

/// The tests of this file, for the crate's harness: each runs its case in a
/// child process.
pub fn cases() -> Vec<common::Case> {
    let double = Arc::new(common::DriverDouble::find());
    let trials = child_cases()
        .into_iter()
        .map(|case| {
            let double = double.clone();
            common::Case {
                name: case.name,
                needs: Some(common::Tool::DriverDouble),
                run: Box::new(move || {
                    let dd = double.as_ref().as_ref().expect("probed by the harness");
                    let mut cmd = Command::new(std::env::current_exe().unwrap());
                    dd.configure(&mut cmd);
                    cmd.env("GJ_CUDA_CASE", case.name).env("GPUJIT_BACKEND", "cuda");
                    cmd.envs(case.env.iter().copied());
                    let out = cmd.output().expect("run the child");
                    assert!(
                        out.status.success(),
                        "child {} failed ({}):\n{}{}",
                        case.name,
                        out.status,
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                }),
            }
        })
        .collect();
    trials
}
