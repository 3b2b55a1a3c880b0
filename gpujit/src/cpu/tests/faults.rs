//! Faults: out-of-bounds accesses, division by zero, panics, time limits.

use super::*;

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
