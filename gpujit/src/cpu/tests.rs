//! Tests of the CPU executor with hand-written kernel bodies.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::backend::Backend;
use crate::cpu::exec::{parse_time_limit, MAX_SHARED_BYTES, SCOPED_LIMIT, TIME_LIMIT_ENV};
use crate::cpu::{with_cpu_time_limit, CpuBackend, CpuLaunch, Idx3, SharedLayout, View};
use crate::error::{Error, Result};
use crate::kernel_def::{KernelArg, KernelDef};
use crate::kernel_def::{ParamDef, ParamKind};
use crate::launch::LaunchConfig;
use crate::scalar::ScalarType;
use crate::DeviceArray;

/// Arrays in the CPU backend's host memory whatever `GPUJIT_BACKEND`
/// says: these tests run the CPU executor directly.
fn cpu_zeros<T: crate::DeviceScalar>(shape: impl Into<crate::array::Shape>) -> Result<DeviceArray<T>> {
    DeviceArray::zeros_on(&CpuBackend, shape)
}

fn cpu_filled<T: crate::DeviceScalar>(data: &[T]) -> DeviceArray<T> {
    let mut a = cpu_zeros::<T>(data.len()).unwrap();
    a.copy_from_host(data).unwrap();
    a
}

fn no_source() -> &'static str {
    ""
}

const fn kernel(
    name: &'static str,
    params: &'static [ParamDef],
    cpu: crate::kernel_def::CpuEntry,
    uses_barrier: bool,
) -> KernelDef {
    KernelDef {
        name,
        entry: name,
        params,
        cuda_source: no_source,
        nvrtc_source: no_source,
        cpu,
        uses_barrier,
        recursive: || false,
    }
}

const fn array(name: &'static str, elem: ScalarType, ndim: usize, mutable: bool) -> ParamDef {
    ParamDef {
        name,
        kind: ParamKind::Array { elem, ndim, mutable },
    }
}

fn cfg(grid: impl crate::IntoDim3, block: impl crate::IntoDim3) -> LaunchConfig {
    LaunchConfig::new(grid, block).unwrap()
}

// (a) every thread of a 2-D grid writes its grid2 index.
fn write_grid2_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let out = View::<u64>::from_arg(&args[0], "out");
    l.run(SharedLayout::default(), false, &|t| {
        let (x, y) = t.grid2();
        let (ny, nx) = out.dim2();
        if y < ny && x < nx {
            let (tid, bid, bdim) = (t.thread_idx(), t.block_idx(), t.block_dim());
            assert_eq!(x, bid.x * bdim.x + tid.x);
            assert_eq!(y, bid.y * bdim.y + tid.y);
            out.st2(t, y, x, (x as u64) | ((y as u64) << 32));
        }
    })
}
static WRITE_GRID2: KernelDef = kernel(
    "write_grid2",
    &[array("out", ScalarType::U64, 2, true)],
    write_grid2_cpu,
    false,
);

#[test]
fn grid2_indices() {
    let (ny, nx) = (37, 50);
    let mut out = cpu_zeros::<u64>((ny, nx)).unwrap();
    let c = cfg(
        (crate::launch::blocks_for(nx, 16), crate::launch::blocks_for(ny, 8)),
        (16, 8),
    );
    CpuBackend
        .launch(&WRITE_GRID2, &c, &mut [KernelArg::array_mut(&mut out)], None)
        .unwrap();
    let host = out.copy_to_host().unwrap();
    for y in 0..ny {
        for x in 0..nx {
            assert_eq!(host[y * nx + x], (x as u64) | ((y as u64) << 32), "element [{y}, {x}]");
        }
    }
}

#[test]
fn launch_checks_arguments() {
    let out = cpu_zeros::<u64>((2, 2)).unwrap();
    let err = CpuBackend
        .launch(&WRITE_GRID2, &cfg(1, 1), &mut [KernelArg::array(&out)], None)
        .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
    let mut flat = cpu_zeros::<u64>(4).unwrap();
    let err = CpuBackend
        .launch(&WRITE_GRID2, &cfg(1, 1), &mut [KernelArg::array_mut(&mut flat)], None)
        .unwrap_err();
    assert!(matches!(err, Error::ArgumentMismatch { .. }), "{err}");
}

// (b) neighbour exchange through shared memory, correct only with a barrier.
fn neighbour_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let out = View::<u32>::from_arg(&args[0], "out");
    l.run(
        SharedLayout {
            bytes: 256 * 4,
            align: 4,
        },
        true,
        &|t| {
            let s = t.block().shared::<u32>(0, &[256], "s");
            let tid = t.thread_idx().x;
            let blk = t.block_idx().x as u32;
            s.st(t, tid, blk * 1000 + tid as u32);
            t.syncthreads(0);
            out.st(t, t.grid1(), s.ld(t, (tid + 1) % 256));
        },
    )
}
static NEIGHBOUR: KernelDef = kernel(
    "neighbour",
    &[array("out", ScalarType::U32, 1, true)],
    neighbour_cpu,
    true,
);

#[test]
fn barrier_neighbour_exchange() {
    let blocks = 8;
    let mut out = cpu_zeros::<u32>(blocks * 256).unwrap();
    CpuBackend
        .launch(
            &NEIGHBOUR,
            &cfg(blocks, 256),
            &mut [KernelArg::array_mut(&mut out)],
            None,
        )
        .unwrap();
    let host = out.copy_to_host().unwrap();
    for b in 0..blocks {
        for tid in 0..256 {
            assert_eq!(
                host[b * 256 + tid],
                (b * 1000 + (tid + 1) % 256) as u32,
                "block {b} thread {tid}"
            );
        }
    }
}

// (c) barriers in a loop, a 2-D block, and threads that finish early.
const ROUNDS: usize = 5;
fn rotate_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let out = View::<i64>::from_arg(&args[0], "out");
    l.run(
        SharedLayout {
            bytes: 64 * 8,
            align: 8,
        },
        true,
        &|t| {
            let s = t.block().shared::<i64>(0, &[4, 16], "s");
            let (x, y) = (t.thread_idx().x, t.thread_idx().y);
            let n = 64;
            let tid = y * 16 + x;
            let blk = t.block_idx().x as i64;
            let mut v = blk * 100 + tid as i64;
            for _ in 0..ROUNDS {
                s.st2(t, y, x, v);
                t.syncthreads(1);
                let next = (tid + 1) % n;
                v = s.ld2(t, next / 16, next % 16) + 1000;
                t.syncthreads(2);
            }
            out.st(t, t.block_idx().x * n + tid, v);
            s.st(t, tid, 7);
            t.syncthreads(3);
            t.syncthreads(4);
        },
    )
}
static ROTATE: KernelDef = kernel("rotate", &[array("out", ScalarType::I64, 1, true)], rotate_cpu, true);

#[test]
fn barrier_in_loop() {
    let blocks = 3;
    let mut out = cpu_zeros::<i64>(blocks * 64).unwrap();
    CpuBackend
        .launch(
            &ROTATE,
            &cfg(blocks, (16, 4)),
            &mut [KernelArg::array_mut(&mut out)],
            None,
        )
        .unwrap();
    let host = out.copy_to_host().unwrap();
    for b in 0..blocks {
        for tid in 0..64 {
            let expect = (b * 100 + (tid + ROUNDS) % 64) as i64 + 1000 * ROUNDS as i64;
            assert_eq!(host[b * 64 + tid], expect, "block {b} thread {tid}");
        }
    }
}

// (d) out-of-bounds reads.
fn copy_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let src = View::<f32>::from_arg(&args[0], "src");
    let dst = View::<f32>::from_arg(&args[1], "dst");
    l.run(SharedLayout::default(), false, &|t| {
        let i = t.grid1();
        let v = src.ld(t, i);
        if i < dst.len() {
            dst.st(t, i, v + 1.0);
        }
    })
}
static COPY: KernelDef = kernel(
    "copy",
    &[
        array("src", ScalarType::F32, 1, false),
        array("dst", ScalarType::F32, 1, true),
    ],
    copy_cpu,
    false,
);

#[test]
fn out_of_bounds_read_faults() {
    let src = cpu_filled(&[1.0f32; 10]);
    let mut dst = cpu_zeros::<f32>(16).unwrap();
    let err = CpuBackend
        .launch(
            &COPY,
            &cfg(2, 8),
            &mut [KernelArg::array(&src), KernelArg::array_mut(&mut dst)],
            None,
        )
        .unwrap_err();
    match &err {
        Error::KernelFault {
            kernel,
            block,
            thread,
            message,
            faults,
        } => {
            assert_eq!(kernel, "copy");
            assert_eq!(*block, [1, 0, 0]);
            assert_eq!(*thread, [2, 0, 0]);
            assert_eq!(*faults, 6);
            assert_eq!(
                message,
                "index [10] is out of bounds for global array `src` of shape [10]"
            );
        }
        other => panic!("expected a kernel fault, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("block (1, 0, 0) thread (2, 0, 0)") && text.contains("6 faults in all"),
        "{text}"
    );
    // The other threads ran; faulting reads yielded 0.
    let host = dst.copy_to_host().unwrap();
    assert_eq!(&host[..10], &[2.0; 10]);
    assert_eq!(&host[10..], &[1.0; 6]);
}

fn oob2_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let a = View::<f32>::from_arg(&args[0], "a");
    l.run(SharedLayout::default(), false, &|t| {
        // Column 3 is out of bounds even though the flat offset 1 * 3 + 3 = 6 < 9 is not.
        let _ = a.ld2(t, t.grid1(), 3);
    })
}
static OOB2: KernelDef = kernel("oob2", &[array("a", ScalarType::F32, 2, false)], oob2_cpu, false);

#[test]
fn every_index_is_checked_against_its_dimension() {
    let a = cpu_zeros::<f32>((3, 3)).unwrap();
    let err = CpuBackend
        .launch(&OOB2, &cfg(3, 1), &mut [KernelArg::array(&a)], None)
        .unwrap_err();
    match err {
        Error::KernelFault {
            block, message, faults, ..
        } => {
            // The first fault is the lowest block, whatever the scheduling.
            assert_eq!(block, [0, 0, 0]);
            assert_eq!(faults, 3);
            assert_eq!(
                message,
                "index [0, 3] is out of bounds for global array `a` of shape [3, 3]"
            );
        }
        other => panic!("expected a kernel fault, got {other}"),
    }
}

// (e) integer division by zero.
fn div_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let out = View::<i32>::from_arg(&args[0], "out");
    let d = args[1].get_scalar::<i32>();
    l.run(SharedLayout::default(), false, &|t| {
        let i = t.grid1();
        let q = t.div(100, d - i as i32);
        let r = t.rem(100, d - i as i32);
        out.st(t, i, q * 1000 + r);
    })
}
static DIV: KernelDef = kernel(
    "div",
    &[
        array("out", ScalarType::I32, 1, true),
        ParamDef {
            name: "d",
            kind: ParamKind::Scalar(ScalarType::I32),
        },
    ],
    div_cpu,
    false,
);

#[test]
fn division_by_zero_faults() {
    let mut out = cpu_zeros::<i32>(4).unwrap();
    let err = CpuBackend
        .launch(
            &DIV,
            &cfg(1, 4),
            &mut [KernelArg::array_mut(&mut out), KernelArg::scalar(2i32)],
            None,
        )
        .unwrap_err();
    match err {
        Error::KernelFault {
            thread,
            message,
            faults,
            ..
        } => {
            assert_eq!(thread, [2, 0, 0]);
            assert_eq!(message, "integer division by zero");
            assert_eq!(faults, 2, "div and rem both fault");
        }
        other => panic!("expected a kernel fault, got {other}"),
    }
    assert_eq!(out.copy_to_host().unwrap(), vec![50_000, 100_000, 0, -100_000]);
}

fn scalar_cpu(l: &CpuLaunch<'_>, _args: &[KernelArg<'_>]) -> Result<()> {
    l.run(SharedLayout::default(), false, &|t| {
        assert_eq!(t.div(i32::MIN, -1), i32::MIN);
        assert_eq!(t.rem(i32::MIN, -1), 0);
        assert_eq!(t.div(-7i64, 2), -3);
        assert_eq!(t.rem(-7i64, 2), -1);
        assert_eq!(t.div(7usize, 2), 3);
        assert_eq!(t.rem(250u8, 7), 5);
        assert_eq!(t.gridsize1(), 6);
        assert_eq!(t.gridsize3(), (6, 1, 1));
        assert_eq!(t.grid_dim(), Idx3 { x: 2, y: 1, z: 1 });
    })
}
static SCALAR: KernelDef = kernel("scalar", &[], scalar_cpu, false);

#[test]
fn integer_semantics_and_sizes() {
    CpuBackend.launch(&SCALAR, &cfg(2, 3), &mut [], None).unwrap();
}

fn panics_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    let barrier = args[0].get_scalar::<bool>();
    l.run(SharedLayout::default(), barrier, &|t| {
        if barrier {
            t.syncthreads(5);
        }
        if t.grid1() == 5 {
            panic!("boom at {}", t.grid1());
        }
    })
}
static PANICS: KernelDef = kernel(
    "panics",
    &[ParamDef {
        name: "barrier",
        kind: ParamKind::Scalar(ScalarType::Bool),
    }],
    panics_cpu,
    false,
);

#[test]
fn panics_become_faults() {
    for barrier in [false, true] {
        let err = CpuBackend
            .launch(&PANICS, &cfg(2, 4), &mut [KernelArg::scalar(barrier)], None)
            .unwrap_err();
        match err {
            Error::KernelFault {
                block, thread, message, ..
            } => {
                assert_eq!((block, thread), ([1, 0, 0], [1, 0, 0]), "barrier: {barrier}");
                assert_eq!(message, "kernel panicked: boom at 5");
            }
            other => panic!("expected a kernel fault, got {other}"),
        }
    }
}

#[test]
fn a_panic_ends_only_its_own_thread() {
    // Threads with an even x panic (a gpujit bug would be the only cause in
    // generated code); the odd ones still write, and each panic counts once.
    for barrier in [false, true] {
        let k = kernel("half_panic", &[], |_, _| Ok(()), barrier);
        let mut out = cpu_zeros::<u32>(8).unwrap();
        let arg = KernelArg::array_mut(&mut out);
        let v = View::<u32>::from_arg(&arg, "out");
        let err = CpuLaunch::new(&k, cfg(2, 4))
            .run(SharedLayout::default(), barrier, &|t| {
                if barrier {
                    t.syncthreads(6);
                }
                if t.thread_idx().x % 2 == 0 {
                    panic!("even");
                }
                v.st(t, t.grid1(), 7);
            })
            .unwrap_err();
        match err {
            Error::KernelFault {
                block,
                thread,
                message,
                faults,
                ..
            } => {
                assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 4), "barrier: {barrier}");
                assert_eq!(message, "kernel panicked: even");
            }
            other => panic!("expected a kernel fault, got {other}"),
        }
        assert_eq!(
            out.copy_to_host().unwrap(),
            [0, 7, 0, 7, 0, 7, 0, 7],
            "barrier: {barrier}"
        );
    }
}

#[test]
fn time_limit_values() {
    assert_eq!(parse_time_limit("250"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_time_limit(" 1 "), Ok(Duration::from_millis(1)));
    for bad in ["0", "", "-5", "1.5", "ten", "1ms"] {
        let e = parse_time_limit(bad).unwrap_err();
        assert!(e.contains(TIME_LIMIT_ENV) && e.contains(&format!("`{bad}`")), "{e}");
    }
}

#[test]
fn the_time_limit_is_scoped_to_its_closure_and_thread() {
    assert_eq!(SCOPED_LIMIT.with(Cell::get), None);
    let l = Duration::from_millis(5);
    with_cpu_time_limit(l, || {
        assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(l));
        with_cpu_time_limit(2 * l, || assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(2 * l)));
        assert_eq!(SCOPED_LIMIT.with(Cell::get), Some(l));
        std::thread::spawn(|| assert_eq!(SCOPED_LIMIT.with(Cell::get), None))
            .join()
            .unwrap();
    });
    assert_eq!(SCOPED_LIMIT.with(Cell::get), None);
}

#[test]
fn syncthreads_without_barrier_support_faults() {
    let k = kernel("no_barrier", &[], |_, _| Ok(()), false);
    let l = CpuLaunch::new(&k, cfg(1, 2));
    let err = l
        .run(SharedLayout::default(), false, &|t| t.syncthreads(7))
        .unwrap_err();
    assert!(err.to_string().contains("outside the coroutine path"), "{err}");
}

/// Runs `body` as coroutines in one block of 32 threads.
fn run_coroutines(body: &(dyn Fn(&crate::cpu::Thread<'_>) + Sync)) -> Result<()> {
    static K: KernelDef = kernel("diverge", &[], |_, _| Ok(()), true);
    CpuLaunch::new(&K, cfg(2, 32)).run(SharedLayout::default(), true, &|t| body(t))
}

#[test]
fn coroutine_path_reports_divergent_barriers() {
    // Some threads return, the others wait at a barrier.
    let err = run_coroutines(&|t| {
        if t.thread_idx().x < 4 {
            return;
        }
        t.syncthreads(0);
    })
    .unwrap_err();
    match err {
        Error::KernelFault {
            message,
            thread,
            faults,
            ..
        } => {
            assert!(message.contains("ended (returned) before a syncthreads()"), "{message}");
            assert_eq!(thread, [0, 0, 0]);
            assert_eq!(faults, 2, "one fault per block");
        }
        other => panic!("expected a kernel fault, got {other}"),
    }
    // Threads wait at two different barriers.
    let err = run_coroutines(&|t| {
        if t.thread_idx().x < 16 {
            t.syncthreads(0);
        } else {
            t.syncthreads(1);
        }
    })
    .unwrap_err();
    assert!(err.to_string().contains("waits at syncthreads() number 1"), "{err}");
    assert!(err.to_string().contains("[16, 0, 0]"), "{err}");
    // A return that no thread takes is fine.
    run_coroutines(&|t| {
        if t.thread_idx().x > 1000 {
            return;
        }
        t.syncthreads(0);
    })
    .unwrap();
}

#[test]
fn shared_memory_is_checked_and_zeroed_per_block() {
    let k = kernel("shared", &[], |_, _| Ok(()), false);
    let l = CpuLaunch::new(&k, cfg(4, 2));
    // Every block sees zeroed shared memory, even after a previous block wrote it.
    l.run(SharedLayout { bytes: 24, align: 8 }, false, &|t| {
        let s = t.block().shared::<u64>(8, &[2], "s");
        assert_eq!(s.ld(t, t.thread_idx().x), 0);
        s.st(t, t.thread_idx().x, 99);
    })
    .unwrap();
    let err = l.run(SharedLayout { bytes: 16, align: 8 }, false, &|t| {
        let s = t.block().shared::<u64>(8, &[2], "s");
        assert!(s.is_empty());
    });
    assert!(err.unwrap_err().to_string().contains("does not fit"));
    let err = l.run(
        SharedLayout {
            bytes: MAX_SHARED_BYTES + 1,
            align: 8,
        },
        false,
        &|_| {},
    );
    assert!(matches!(err, Err(Error::InvalidLaunchConfig(_))));
}

#[test]
fn run_validates_a_hand_made_config() {
    let k = kernel("unvalidated", &[], |_, _| Ok(()), true);
    let huge = LaunchConfig {
        grid: crate::Dim3::new(1, 1, 1),
        block: crate::Dim3::new(1 << 20, 1 << 10, 1),
    };
    let ran = AtomicUsize::new(0);
    let err = CpuLaunch::new(&k, huge)
        .run(SharedLayout::default(), true, &|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap_err();
    assert!(matches!(err, Error::InvalidLaunchConfig(_)), "{err}");
    assert_eq!(ran.load(Ordering::Relaxed), 0);
}

#[test]
fn many_threads_fast_path() {
    let k = kernel("trivial", &[], |_, _| Ok(()), false);
    let mut out = cpu_zeros::<u32>(1024 * 1024).unwrap();
    let arg = KernelArg::array_mut(&mut out);
    let v = View::<u32>::from_arg(&arg, "out");
    // Speed is measured by benches/cpu_backend.rs, not asserted here: a timed
    // assertion fails on a loaded machine.
    let l = CpuLaunch::new(&k, cfg(4096, 256));
    l.run(SharedLayout::default(), false, &|t| {
        let i = t.grid1();
        v.st(t, i, i as u32);
    })
    .unwrap();
    let host = out.copy_to_host().unwrap();
    assert!(host.iter().enumerate().all(|(i, &x)| x == i as u32));
}

#[test]
fn many_threads_barrier_path() {
    let k = kernel("trivial_sync", &[], |_, _| Ok(()), true);
    let l = CpuLaunch::new(&k, cfg(256, 1024));
    // Every thread must see all 1024 of its block's arrivals after the barrier.
    let arrived: Vec<AtomicUsize> = (0..256).map(|_| AtomicUsize::new(0)).collect();
    let saw_all = AtomicUsize::new(0);
    l.run(SharedLayout::default(), true, &|t| {
        let b = t.block_idx().x;
        arrived[b].fetch_add(1, Ordering::Relaxed);
        t.syncthreads(8);
        if arrived[b].load(Ordering::Relaxed) == 1024 {
            saw_all.fetch_add(1, Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(saw_all.load(Ordering::Relaxed), 256 * 1024);
}

/// Many one-thread blocks run in batches per rayon job: each block must
/// still get its own coordinates (computed without divisions from the
/// previous block's) and zeroed shared memory.
#[test]
fn batched_blocks_get_their_coordinates_and_zeroed_shared_memory() {
    let k = kernel("batched", &[], |_, _| Ok(()), false);
    for grid in [(7, 5, 3), (5000, 1, 1), (1, 1000, 2), (3, 1, 700)] {
        let blocks = grid.0 * grid.1 * grid.2;
        let mut out = cpu_zeros::<u64>(blocks).unwrap();
        let arg = KernelArg::array_mut(&mut out);
        let v = View::<u64>::from_arg(&arg, "out");
        CpuLaunch::new(&k, cfg(grid, 1))
            .run(SharedLayout { bytes: 8, align: 8 }, false, &|t| {
                let s = t.block().shared::<u64>(0, &[1], "s");
                let b = t.block_idx();
                let lin = (b.z * grid.1 + b.y) * grid.0 + b.x;
                let code = ((b.z as u64) << 40) | ((b.y as u64) << 20) | b.x as u64;
                // Bit 63: the block found its shared memory dirty.
                v.st(t, lin, code | (u64::from(s.ld(t, 0) != 0) << 63));
                s.st(t, 0, 99);
            })
            .unwrap();
        let want: Vec<u64> = (0..blocks)
            .map(|l| {
                let (x, y, z) = (l % grid.0, (l / grid.0) % grid.1, l / (grid.0 * grid.1));
                ((z as u64) << 40) | ((y as u64) << 20) | x as u64
            })
            .collect();
        assert!(out.copy_to_host().unwrap() == want, "grid {grid:?}");
    }
}

/// A panic of the block function itself (a gpujit bug) ends only its block:
/// the other blocks of its batch still run, and the report names the lowest
/// such block; faults in many blocks are counted exactly.
#[test]
fn faults_and_panics_in_batched_blocks_are_per_block() {
    let k = kernel("batched_faults", &[], |_, _| Ok(()), false);
    let blocks = 3000;
    let mut out = cpu_zeros::<u32>(blocks).unwrap();
    let arg = KernelArg::array_mut(&mut out);
    let v = View::<u32>::from_arg(&arg, "out");
    let err = CpuLaunch::new(&k, cfg(blocks, 1))
        .run_blocks(SharedLayout::default(), &|b| {
            if b.idx[0] == 700 || b.idx[0] == 2100 {
                panic!("block {}", b.idx[0]);
            }
            b.threads(|t| v.st(t, t.grid1(), 1));
        })
        .unwrap_err();
    match err {
        Error::KernelFault {
            block,
            thread,
            message,
            faults,
            ..
        } => {
            assert_eq!((block, thread, faults), ([700, 0, 0], [0, 0, 0], 2));
            assert_eq!(message, "kernel panicked: block 700");
        }
        other => panic!("expected a kernel fault, got {other}"),
    }
    let host = out.copy_to_host().unwrap();
    let ran: Vec<usize> = (0..blocks).filter(|&i| host[i] == 0).collect();
    assert_eq!(ran, [700, 2100], "blocks that did not run");
    // Every third block reads out of range: 1000 faults, the first in block 1.
    let data = cpu_zeros::<u32>(blocks).unwrap();
    let arg = KernelArg::array(&data);
    let d = View::<u32>::from_arg(&arg, "data");
    let err = CpuLaunch::new(&k, cfg(blocks, 1))
        .run(SharedLayout::default(), false, &|t| {
            let i = t.grid1();
            let _ = d.ld(t, if i % 3 == 1 { blocks + i } else { i });
        })
        .unwrap_err();
    match err {
        Error::KernelFault {
            block, thread, faults, ..
        } => assert_eq!((block, thread, faults), ([1, 0, 0], [0, 0, 0], 1000)),
        other => panic!("expected a kernel fault, got {other}"),
    }
}

/// The batch length: enough blocks for about 4096 threads, but at least
/// four jobs per worker when there are that many blocks, and never zero.
#[test]
fn batch_lengths() {
    use crate::cpu::exec::batch_len;
    for (blocks, tpb, workers) in [
        (1000, 1, 2),
        (65536, 256, 2),
        (1, 1024, 2),
        (10, 1, 64),
        (1 << 31, 1, 16),
    ] {
        let len = batch_len(blocks, tpb, workers);
        assert!(len >= 1);
        assert!(len == 1 || len * tpb <= 4096, "{blocks} {tpb} {workers}: {len}");
        assert!(
            len == 1 || blocks / len >= 4 * workers,
            "{blocks} {tpb} {workers}: {len}"
        );
    }
    assert_eq!(batch_len(1000, 1, 2), 125);
    assert_eq!(batch_len(65536, 256, 2), 16);
}

// Own-index views and spans (`owned.rs`, `span.rs`), through the same
// `__private` items the generated code uses: whatever a caller does with
// them, a refused access is a fault, never a plain racing access.

/// Runs `body` once per block on a launch of `grid` x `block` over a
/// written array of `n` `u32`s (all 7); returns the launch's result, the
/// array, and whether the first block's own-index view was plain.
fn with_owned(
    n: usize,
    grid: impl crate::IntoDim3,
    block: impl crate::IntoDim3,
    view_first: bool,
    body: &(dyn Fn(&crate::cpu::Block<'_>, &crate::cpu::OwnedView<'_, u32>) + Sync),
) -> (Result<()>, Vec<u32>, bool) {
    let mut a = cpu_filled(&vec![7u32; n]);
    let plain = std::sync::atomic::AtomicBool::new(false);
    let r = {
        let arg = KernelArg::array_mut(&mut a);
        let early = view_first.then(|| View::<u32>::from_arg(&arg, "a"));
        let owned = crate::cpu::OwnedArg::<u32>::from_arg(&arg, "a");
        let launch = CpuLaunch::new(&WRITE_GRID2, cfg(grid, block));
        launch.run_blocks(SharedLayout::default(), &|b| {
            let v = owned.block(b);
            if b.idx == [0, 0, 0] {
                plain.store(v.is_plain(), Ordering::Relaxed);
            }
            body(b, &v);
            // A view made after the claim is empty: every access faults.
            if !view_first && b.idx == [0, 0, 0] {
                let late = View::<u32>::from_arg(&arg, "a");
                b.threads(|t| {
                    if t.lin() == 0 {
                        late.st(t, 0, 99);
                    }
                });
            }
            let _ = early;
        })
    };
    (r, a.copy_to_host().unwrap(), plain.load(Ordering::Relaxed))
}

#[test]
fn own_index_views_are_plain_only_in_injective_launches() {
    let write = |b: &crate::cpu::Block<'_>, v: &crate::cpu::OwnedView<'_, u32>| {
        b.threads(|t| {
            let i = t.grid1();
            if i < v.len() {
                v.st_own(t, i, v.ld_own(t, i) + 1);
            }
        })
    };
    // 1-D, injective: plain; the late view's store is refused.
    let (r, a, plain) = with_owned(64, 2, 32, false, &write);
    assert!(plain);
    assert_eq!(a, vec![8; 64]);
    match r {
        Err(Error::KernelFault { message, faults, .. }) => {
            assert_eq!(faults, 1);
            assert!(
                message.contains("out of bounds for global array `a` of shape [0]"),
                "{message}"
            );
        }
        other => panic!("expected the late view's fault, got {other:?}"),
    }
    // gridDim.y = 2 or blockDim.y = 2: two threads per own index, atomics.
    for (grid, block) in [((2, 2), (32, 1)), ((2, 1), (32, 2))] {
        let (_, a, plain) = with_owned(64, grid, block, false, &write);
        assert!(!plain, "{grid:?} {block:?}");
        // Every element was incremented by both of its threads, in order
        // (threads of one block run in order, blocks may race: 8 or 9).
        assert!(a.iter().all(|&v| v == 9 || v == 8), "{a:?}");
    }
    // A view made before the claim: atomics.
    let (r, a, plain) = with_owned(64, 2, 32, true, &write);
    assert!(!plain);
    assert!(r.is_ok());
    assert_eq!(a, vec![8; 64]);
}

#[test]
fn other_indices_of_own_index_views_are_faults() {
    let (r, a, _) = with_owned(64, 2, 32, true, &|b, v| {
        b.threads(|t| {
            let i = t.grid1();
            // The neighbour's element: refused, nothing written or read.
            if i + 1 < v.len() {
                v.st_own(t, i + 1, 1);
                assert_eq!(v.ld_own(t, i + 1), 0);
            }
            // A 2-D accessor on a 1-D array: refused.
            v.st2_own(t, 0, i, 2);
        })
    });
    assert_eq!(a, vec![7; 64]);
    match r {
        Err(Error::KernelFault { message, faults, .. }) => {
            assert_eq!(faults, 63 * 2 + 64);
            assert!(message.contains("is not the own index"), "{message}");
        }
        other => panic!("expected faults, got {other:?}"),
    }
}

#[test]
fn spans_check_their_block_and_positions() {
    let x = cpu_filled(&(0..64u32).collect::<Vec<_>>());
    let xa = KernelArg::array(&x);
    let xv = View::<u32>::from_arg(&xa, "x");
    let hits = AtomicUsize::new(0);
    let (r, a, _) = with_owned(64, 2, 32, false, &|b, v| {
        use crate::cpu::{CONST, OWN_X};
        // Offsets -1..=1 do not fit the first block (0 - 1 < 0) nor the
        // last (63 + 1 >= 64).
        assert!(xv.span(b, [(OWN_X, -1, 1)]).is_none());
        assert!(xv.span(b, [(CONST, 0, 64)]).is_none());
        assert!(v.span([(OWN_X, 0, 1)]).is_none(), "writable spans are own-index only");
        let (Some(sx), Some(sv)) = (xv.span(b, [(OWN_X, 0, 0)]), v.span([(OWN_X, 0, 0)])) else {
            panic!("in-range spans refused");
        };
        assert!(xv.span(b, [(OWN_X, 0, 0), (OWN_X, 0, 0)]).is_none(), "wrong dimensions");
        b.threads(|t| {
            sv.st(t, [(OWN_X, 0)], sx.ld(t, [(OWN_X, 0)]) * 2);
            // A position the span was not checked for: refused.
            assert_eq!(sx.ld(t, [(OWN_X, 1)]), 0);
            sx.st(t, [(OWN_X, 0)], 5);
            hits.fetch_add(1, Ordering::Relaxed);
        });
    });
    assert_eq!(hits.load(Ordering::Relaxed), 64);
    let want: Vec<u32> = (0..64).map(|i| i * 2).collect();
    assert_eq!(a, want);
    match r {
        Err(Error::KernelFault { message, faults, .. }) => {
            // Per thread: the unchecked position and the read-only store; and
            // the late view's store.
            assert_eq!(faults, 64 * 2 + 1);
            assert!(message.contains("outside the block span"), "{message}");
        }
        other => panic!("expected faults, got {other:?}"),
    }
}

#[test]
fn threads_within_runs_no_thread_where_its_bounds_do_not_hold() {
    use crate::cpu::OWN_X;
    let ran = AtomicUsize::new(0);
    // 2 blocks of 32 threads over 48 elements: the second block's indices
    // 32..64 pass 48, so bounds against 48 hold for block 0 only.
    let (r, _, _) = with_owned(48, 2, 32, true, &|b, _| {
        b.threads_within(&[(OWN_X, 0, 0, 48)], |_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
    });
    assert_eq!(ran.load(Ordering::Relaxed), 32, "only block 0's threads run");
    match r {
        Err(Error::KernelFault { message, faults, .. }) => {
            assert_eq!(faults, 32, "one fault per thread of block 1");
            assert!(message.contains("bounds do not hold"), "{message}");
        }
        other => panic!("expected faults, got {other:?}"),
    }
}
