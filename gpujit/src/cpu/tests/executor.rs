//! The executor: coordinates, arguments, barriers, shared memory, batches
//! of blocks.

use super::*;

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
pub(super) static WRITE_GRID2: KernelDef = kernel(
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
            assert!(
                message.contains("finished without reaching a syncthreads()"),
                "{message}"
            );
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
    let block_fn = |b: &crate::cpu::Block<'_>| {
        if b.idx[0] == 700 || b.idx[0] == 2100 {
            panic!("block {}", b.idx[0]);
        }
        b.threads(|t| v.st(t, t.grid1(), 1));
    };
    let err = CpuLaunch::new(&k, cfg(blocks, 1))
        .run_blocks(SharedLayout::default(), &block_fn, &block_fn)
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

/// Which launches run on the calling thread: only kernels whose work per
/// thread is bounded, and only while the estimate stays below the pool's
/// hand-off plus its share of the work; with one worker, every bounded one.
#[test]
fn small_bounded_launches_run_inline() {
    use crate::cpu::exec::runs_inline;
    let none = SharedLayout::default();
    // The bench's empty launch: 1000 blocks of 1 thread, 17,000 units.
    assert!(runs_inline(Some(0), 1000, 1, none, 2));
    // Unbounded work (a loop, a call) never runs inline, however small.
    assert!(!runs_inline(None, 1, 1, none, 2));
    assert!(!runs_inline(None, 1, 1, none, 1));
    // Grayscale's 8M threads do not.
    assert!(!runs_inline(Some(20), 32_400, 256, none, 2));
    // The bound: 2 workers, 32,768 units; 16 workers, 17,476 (a block of
    // 256 threads of `w` units is `256 * (w + 1) + 16`).
    assert!(runs_inline(Some(126), 1, 256, none, 2));
    assert!(!runs_inline(Some(127), 1, 256, none, 2));
    assert!(runs_inline(Some(67), 1, 256, none, 16));
    assert!(!runs_inline(Some(68), 1, 256, none, 16));
    // Shared memory to zero counts.
    let big = SharedLayout {
        bytes: 48 * 1024,
        align: 4,
    };
    assert!(runs_inline(Some(0), 1, 256, big, 2));
    assert!(!runs_inline(Some(0), 20, 256, big, 2));
    // One worker: the pool would only add its hand-off.
    assert!(runs_inline(Some(u32::MAX), usize::MAX, 1024, none, 1));
    // Saturating, never wrapping to a small estimate.
    assert!(!runs_inline(Some(u32::MAX), usize::MAX, 1024, none, 2));
}

#[test]
fn merged_runs_keep_the_cores_busy() {
    use crate::cpu::merge::Runs;
    // Too few blocks per grid row to merge.
    assert!(Runs::new([5, 100, 1], 256).is_none());
    // The loop test's launch: one grid row of 40 blocks of 256 threads,
    // 9,728 threads inside, was one run on one core; now 9 runs of 4 or
    // more blocks, plus the row's first and last block.
    assert_eq!(Runs::new([40, 1, 1], 256).map(Runs::items), Some(11));
    // A 4K image in 16×16 blocks: one run per grid row (135 rows).
    assert_eq!(Runs::new([240, 135, 1], 256).map(Runs::items), Some(135 * 3));
    // The one-element saxpy: one row of 39,063 blocks, cut by threads.
    assert_eq!(Runs::new([39_063, 1, 1], 256).map(Runs::items), Some(153 + 2));
    // Every cut leaves runs of at least 4 blocks.
    for gx in 6..200 {
        for rows in [1, 2, 3, 7, 64, 100] {
            let r = Runs::new([gx, rows, 1], 32).expect("mergeable");
            assert!((gx - 2) / (r.items() / rows - 2) >= 4, "gx {gx}, rows {rows}");
            assert!(
                r.items() >= (64usize).min(rows * (2 + (gx - 2) / 4)),
                "gx {gx}, rows {rows}"
            );
        }
    }
}
