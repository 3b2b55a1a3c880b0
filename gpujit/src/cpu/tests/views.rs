//! Own-index views and spans (`owned.rs`, `span.rs`), through the same
//! `__private` items the generated code uses: whatever a caller does with
//! them, a refused access is a fault, never a plain racing access.

use super::executor::WRITE_GRID2;
use super::*;

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
        let block_fn = |b: &crate::cpu::Block<'_>| {
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
        };
        launch.run_blocks(SharedLayout::default(), &block_fn, &block_fn)
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
        // `threadIdx` positions are shared arrays' (in range here: 32 < 64).
        assert!(
            xv.span(b, [(crate::cpu::TID_X, 0, 0)]).is_none(),
            "a global span at threadIdx"
        );
        assert!(
            v.span([(crate::cpu::TID_X, 0, 0)]).is_none(),
            "an own-index span at threadIdx"
        );
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

// Spans of shared arrays at `threadIdx` plus an offset, for the whole block
// and for a narrowed loop's range of threads.
fn shared_spans_cpu(l: &CpuLaunch<'_>, args: &[KernelArg<'_>]) -> Result<()> {
    use crate::cpu::{CONST, TID_X};
    let out = View::<u32>::from_arg(&args[0], "out");
    let block_fn = |b: &crate::cpu::Block<'_>| {
        let s = b.shared::<u32>(0, &[64], "s");
        // 64 threads: `tid + 1` and the constant 64 are past the array.
        assert!(s.span(b, [(TID_X, 0, 1)]).is_none());
        assert!(s.span(b, [(CONST, 64, 64)]).is_none());
        // Own positions are global arrays' (in range here: block 0's
        // own indices are its thread indices).
        assert!(
            s.span(b, [(crate::cpu::OWN_X, 0, 0)]).is_none(),
            "a shared span at the own index"
        );
        assert!(s.span_x(b, b.x_range(0, 8), [(crate::cpu::OWN_X, 0, 0)]).is_none());
        let Some(all) = s.span(b, [(TID_X, 0, 0)]) else {
            panic!("in-range span refused");
        };
        b.threads(|t| all.st(t, [(TID_X, 0)], t.thread_idx().x as u32 * 3));
        // Threads 0..32 may reach `tid + 32`; 0..33 may not; an empty range
        // gets no span.
        let x = b.x_range(0, 32);
        assert!(s.span_x(b, b.x_range(0, 33), [(TID_X, 0, 32)]).is_none());
        assert!(s.span_x(b, b.x_range(5, 5), [(TID_X, 0, 0)]).is_none());
        let Some(low) = s.span_x(b, x, [(TID_X, 0, 32)]) else {
            panic!("in-range narrowed span refused");
        };
        b.threads_x_range(x, |t| {
            low.st(t, [(TID_X, 0)], low.ld(t, [(TID_X, 0)]) + low.ld(t, [(TID_X, 32)]));
        });
        // A thread outside the range: refused (a fault), nothing read.
        b.threads(|t| {
            if t.thread_idx().x == 40 {
                assert_eq!(low.ld(t, [(TID_X, 0)]), 0);
            }
        });
        b.threads(|t| out.st(t, t.grid1(), all.ld(t, [(TID_X, 0)])));
    };
    let shared = SharedLayout {
        bytes: 64 * 4,
        align: 4,
    };
    l.run_blocks(shared, &block_fn, &block_fn)
}
static SHARED_SPANS: KernelDef = kernel(
    "shared_spans",
    &[array("out", ScalarType::U32, 1, true)],
    shared_spans_cpu,
    false,
);

#[test]
fn shared_spans_check_their_threads() {
    let mut out = cpu_zeros::<u32>(2 * 64).unwrap();
    let r = CpuBackend.launch(&SHARED_SPANS, &cfg(2, 64), &mut [KernelArg::array_mut(&mut out)], None);
    match r {
        Err(Error::KernelFault {
            message,
            faults,
            thread,
            ..
        }) => {
            assert_eq!((faults, thread), (2, [40, 0, 0]));
            assert!(message.contains("outside the block span"), "{message}");
        }
        other => panic!("expected faults, got {other:?}"),
    }
    let want: Vec<u32> = (0..128)
        .map(|i| {
            let t = (i % 64) as u32;
            if t < 32 {
                3 * t + 3 * (t + 32)
            } else {
                3 * t
            }
        })
        .collect();
    assert_eq!(out.copy_to_host().unwrap(), want);
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
