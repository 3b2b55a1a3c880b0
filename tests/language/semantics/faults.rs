//! Out-of-range accesses and zero steps are kernel faults with the block
//! and thread; the first fault is reported, all are counted, nothing is
//! printed.

use super::*;

pub(crate) fn out_of_bounds_write_is_a_fault_with_coordinates() {
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

pub(crate) fn out_of_bounds_read_is_a_fault() {
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

pub(crate) fn out_of_bounds_2d_index_faults_per_axis() {
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

pub(crate) fn first_fault_is_the_lowest_block_then_thread_and_all_are_counted() {
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

pub(crate) fn shared_array_out_of_bounds_is_a_fault() {
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

pub(crate) fn step_by_zero_is_a_fault() {
    let mut out = zeros::<u32>(1).unwrap();
    step_count![1, 1](10, 4, &mut out).unwrap();
    assert_eq!(host(&out), [(0..10u32).step_by(4).count() as u32]);
    let (block, thread, faults, m) = fault_of(step_count![1, 1](10, 0, &mut out), "step_count");
    assert_eq!((block, thread, faults), ([0, 0, 0], [0, 0, 0], 1));
    assert!(m.contains("step") && m.contains("zero"), "{m}");
    // The loop ran no iterations and the thread went on to store its count.
    assert_eq!(host(&out), [0]);
}

pub(crate) fn a_zero_step_faults_only_its_own_thread() {
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

pub(crate) fn fault_counts_are_exact() {
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
/// or ÷0 is undefined and `step_by(0)` traps, see `tests/runtime/cuda_backend.rs`.)
pub(crate) fn fault_kernels_without_a_fault_give_the_rust_results() {
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

pub(crate) fn faults_print_nothing() {
    // The fault tests again, each in a child process with output not
    // captured: no panic message (or anything else) may reach stderr.
    for test in [
        "fault_counts_are_exact",
        "a_zero_step_faults_only_its_own_thread",
        "arithmetic_on_outside_constants_wraps_and_faults",
    ] {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            // (The name in the `language` binary: `semantics::` and the test.)
            .args([
                "--exact",
                "--nocapture",
                "--test-threads=1",
                &format!("semantics::{test}"),
            ])
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
