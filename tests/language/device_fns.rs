//! Device functions (`#[gpu_device]`): scalars, arrays and tuples as
//! arguments, tuple returns, self- and mutual recursion, device functions
//! calling device functions, in another module and another crate, with
//! `syncthreads()` inside; each kernel's CUDA C holds every device function
//! it reaches once, and compiles with NVRTC.

#![deny(unused_braces)]

use gpujit::prelude::*;
use gpujit_examples::device_fns::{clamp_to, range_sum};

use crate::common;
use common::Tool;

use crate::lucas;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    let nvrtc = Some(Tool::Nvrtc);
    cases![
        None => recursive_lucas_matches_iterative_kernel,
        None => arrays_and_tuples,
        None => mutual_recursion,
        None => device_calls_device_in_another_module,
        None => device_functions_from_another_crate,
        None => literals_take_the_callee_types,
        None => barrier_in_a_device_function,
        None => barrier_free_callees_keep_the_thread_loops,
        None => cuda_source_holds_each_device_function_once,
        None => host_code_calls_device_functions,
        nvrtc => kernels_with_device_functions_compile_with_nvrtc,
        None => recursion_a_hundred_deep_runs_on_every_path,
        Some(Tool::CpuBackend) => recursion_too_deep_for_the_stack_is_a_fault,
    ]
}

fn recursive_lucas_matches_iterative_kernel() -> gpujit::Result<()> {
    let rec = lucas::lucas_rec_table(30)?;
    let iter = lucas::lucas_table(30)?;
    assert_eq!(rec, iter);
    assert_eq!(rec[30], 1_860_498);
    Ok(())
}

/// Minimum and maximum of `x[lo..hi]`, and the index of the minimum.
#[gpu_device]
fn min_max(x: &[f32], lo: usize, hi: usize) -> (f32, f32, usize) {
    let mut mn = x[lo];
    let mut mx = x[lo];
    let mut at = lo;
    for i in lo + 1..hi {
        if x[i] < mn {
            mn = x[i];
            at = i;
        }
        mx = mx.max(x[i]);
    }
    (mn, mx, at)
}

/// Writes `v` into row `r` of `m` (a 2-D view passed whole).
#[gpu_device]
fn fill_row(m: ArrayViewMut2<f32>, r: usize, v: f32) {
    let (_, cols) = m.dim();
    for c in 0..cols {
        m[[r, c]] = v;
    }
}

/// For each window of 4: its min, max and argmin; row `w` of `rows` filled with the range.
#[gpu_kernel]
fn windows(x: &[f32], mins: &mut [f32], maxs: &mut [f32], at: &mut [u32], rows: ArrayViewMut2<f32>) {
    let w = grid(1);
    if w < mins.len() {
        let (mn, mx, i) = min_max(x, 4 * w, 4 * w + 4);
        mins[w] = mn;
        maxs[w] = mx;
        at[w] = i as u32;
        fill_row(rows, w, mx - mn);
    }
}

fn arrays_and_tuples() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..40).map(|i| ((i * 37) % 23) as f32 - 7.5).collect();
    let n = x.len() / 4;
    let d_x = gpujit::to_device(&x)?;
    let (mut mins, mut maxs) = (gpujit::zeros::<f32>(n)?, gpujit::zeros::<f32>(n)?);
    let mut at = gpujit::zeros::<u32>(n)?;
    let mut rows = gpujit::zeros::<f32>((n, 3))?;
    windows![1, 32](&d_x, &mut mins, &mut maxs, &mut at, &mut rows)?;
    let (mins, maxs, at, rows) = (
        mins.copy_to_host()?,
        maxs.copy_to_host()?,
        at.copy_to_host()?,
        rows.copy_to_host()?,
    );
    for w in 0..n {
        let win = &x[4 * w..4 * w + 4];
        let mn = win.iter().copied().fold(f32::INFINITY, f32::min);
        let mx = win.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let first_min = 4 * w + win.iter().position(|&v| v == mn).unwrap();
        assert_eq!((mins[w], maxs[w], at[w] as usize), (mn, mx, first_min), "window {w}");
        assert_eq!(rows[3 * w..3 * w + 3], [mx - mn; 3], "row {w}");
    }
    Ok(())
}

#[gpu_device]
fn is_even(n: u32) -> bool {
    if n == 0 {
        true
    } else {
        is_odd(n - 1)
    }
}

#[gpu_device]
fn is_odd(n: u32) -> bool {
    if n == 0 {
        false
    } else {
        is_even(n - 1)
    }
}

#[gpu_kernel]
fn parity(out: &mut [u8]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = if is_even(i as u32) {
            2
        } else if is_odd(i as u32) {
            1
        } else {
            0
        };
    }
}

fn mutual_recursion() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<u8>(100)?;
    parity![4, 32](&mut out)?;
    let want: Vec<u8> = (0..100).map(|i| if i % 2 == 0 { 2 } else { 1 }).collect();
    assert_eq!(out.copy_to_host()?, want);
    Ok(())
}

mod geometry {
    use gpujit::prelude::*;

    /// `x * x`, wrapping on overflow as kernels do.
    #[gpu_device]
    pub fn square(x: i32) -> i32 {
        x * x
    }

    /// The squared length of `(x, y)`, through another device function.
    #[gpu_device]
    pub fn norm2(x: i32, y: i32) -> i32 {
        square(x) + square(y)
    }
}

#[gpu_kernel]
fn norms(x: &[i32], y: &[i32], out: &mut [i32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = geometry::norm2(x[i], y[i]) - geometry::square(x[i]);
    }
}

fn device_calls_device_in_another_module() -> gpujit::Result<()> {
    let x: Vec<i32> = (0..50).map(|i| i * 1000 - 7).collect();
    let y: Vec<i32> = (0..50).map(|i| 3 - i * 977).collect();
    let mut out = gpujit::zeros::<i32>(50)?;
    norms![2, 32](&gpujit::to_device(&x)?, &gpujit::to_device(&y)?, &mut out)?;
    let want: Vec<i32> = (0..50).map(|i| y[i].wrapping_mul(y[i])).collect();
    assert_eq!(out.copy_to_host()?, want);
    Ok(())
}

#[gpu_kernel]
fn clamp_and_sum(x: &[f32], a: &[i32], clamped: &mut [f32], sums: &mut [i32]) {
    let i = grid(1);
    if i < clamped.len() {
        clamped[i] = clamp_to(x[i], -1.0, 1.0);
        sums[i] = range_sum(a, 0, i);
    }
}

fn device_functions_from_another_crate() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..30).map(|i| i as f32 * 0.1 - 1.5).collect();
    let a: Vec<i32> = (0..30).map(|i| i * 3 - 20).collect();
    let mut clamped = gpujit::zeros::<f32>(30)?;
    let mut sums = gpujit::zeros::<i32>(30)?;
    clamp_and_sum![1, 32](
        &gpujit::to_device(&x)?,
        &gpujit::to_device(&a)?,
        &mut clamped,
        &mut sums,
    )?;
    let want_c: Vec<f32> = x.iter().map(|v| v.clamp(-1.0, 1.0)).collect();
    let want_s: Vec<i32> = (0..30).map(|i| a[..i].iter().sum()).collect();
    assert_eq!(clamped.copy_to_host()?, want_c);
    assert_eq!(sums.copy_to_host()?, want_s);
    Ok(())
}

/// On one line, as rustfmt would not write it: the expansion must not draw
/// rustc's `unused_braces` at these braces (this file denies it).
#[rustfmt::skip]
#[gpu_device]
fn halve(x: f32) -> f32 { x * 0.5 }

#[gpu_device]
fn wrap_add(a: u8, b: u8) -> u8 {
    a + b
}

/// Literals meeting a device function's values take its types: `0.1` is an
/// `f32` here (a `double` would round differently), `200` a `u8` that wraps.
#[gpu_kernel]
fn callee_literals(x: &[f32], out: &mut [f32], bytes: &mut [u8]) {
    let i = grid(1);
    if i < out.len() {
        let h = halve(x[i]);
        out[i] = h + 0.1 + halve(0.3);
        bytes[i] = wrap_add(200, i as u8) + 100;
    }
}

fn literals_take_the_callee_types() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.37).collect();
    let mut out = gpujit::zeros::<f32>(64)?;
    let mut bytes = gpujit::zeros::<u8>(64)?;
    callee_literals![2, 32](&gpujit::to_device(&x)?, &mut out, &mut bytes)?;
    let want: Vec<f32> = x.iter().map(|v| v * 0.5 + 0.1f32 + 0.3f32 * 0.5).collect();
    let want_b: Vec<u8> = (0..64u8).map(|i| 200u8.wrapping_add(i).wrapping_add(100)).collect();
    assert_eq!(out.copy_to_host()?, want);
    assert_eq!(bytes.copy_to_host()?, want_b);
    Ok(())
}

/// Block-wide sum of `v` over a block of 32 threads, through global scratch
/// memory (`scratch[block * 32 + t]`), with barriers inside the function.
#[gpu_device]
fn block_sum(scratch: &mut [f32], v: f32) -> f32 {
    let t = thread_idx().x;
    let base = block_idx().x * 32;
    scratch[base + t] = v;
    syncthreads();
    let mut s = 0.0;
    for k in 0..32 {
        s += scratch[base + k];
    }
    syncthreads();
    s
}

#[gpu_kernel]
fn sums_via_device_barrier(x: &[f32], scratch: &mut [f32], out: &mut [f32]) {
    let i = grid(1);
    let total = block_sum(scratch, x[i]);
    out[i] = total - x[i];
}

fn barrier_in_a_device_function() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..96).map(|i| (i % 7) as f32).collect();
    let mut scratch = gpujit::zeros::<f32>(96)?;
    let mut out = gpujit::zeros::<f32>(96)?;
    sums_via_device_barrier![3, 32](&gpujit::to_device(&x)?, &mut scratch, &mut out)?;
    let out = out.copy_to_host()?;
    for b in 0..3 {
        let total: f32 = x[32 * b..32 * b + 32].iter().sum();
        for t in 0..32 {
            let i = 32 * b + t;
            assert_eq!(out[i], total - x[i], "block {b} thread {t}");
        }
    }
    if gpujit::detect().kind == gpujit::BackendKind::Cpu {
        assert_eq!(
            gpujit::__private::last_launch_coroutine_blocks(),
            3,
            "the coroutine path runs every block"
        );
    }
    Ok(())
}

fn barrier_free_callees_keep_the_thread_loops() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<u8>(64)?;
    parity![2, 32](&mut out)?;
    if gpujit::detect().kind == gpujit::BackendKind::Cpu {
        assert_eq!(gpujit::__private::last_launch_coroutine_blocks(), 0);
    }
    Ok(())
}

fn cuda_source_holds_each_device_function_once() {
    let src = parity::cuda_source();
    for f in ["gj_dev_is_even", "gj_dev_is_odd"] {
        assert_eq!(
            src.matches(&format!("__device__ {f}_ret {f}(unsigned int n);")).count(),
            1,
            "{f}:\n{src}"
        );
        assert_eq!(
            src.matches(&format!("__device__ {f}_ret {f}(unsigned int n) {{"))
                .count(),
            1,
            "{f}:\n{src}"
        );
    }
    // Forward declarations before any definition.
    assert!(
        src.find("gj_dev_is_odd(unsigned int n);").unwrap() < src.find(") {").unwrap(),
        "{src}"
    );
    let src = norms::cuda_source();
    assert_eq!(
        src.matches("gj_dev_square_ret gj_dev_square(int x) {").count(),
        1,
        "{src}"
    );
    assert_eq!(
        src.matches("gj_dev_norm2_ret gj_dev_norm2(int x, int y) {").count(),
        1,
        "{src}"
    );
    let src = lucas::lucas_recursive::cuda_source();
    assert!(
        src.contains("return gj_dev_lucas_rec(n - 1ull) + gj_dev_lucas_rec(n - 2ull);"),
        "{src}"
    );
    assert!(src.contains("out[n] = gj_dev_lucas_rec(n);"), "{src}");
    // Values of a callee's types are named by its typedefs, with Rust's semantics.
    let src = callee_literals::cuda_source();
    // (`h` is stored into an `f32` array: its type is known.)
    assert!(src.contains("const float h = gj_dev_halve(x[i]);"), "{src}");
    assert!(
        src.contains("gj_dev_halve(gj_lit<gj_dev_halve_arg0>(0.3f, 0.3))"),
        "{src}"
    );
    assert!(
        src.contains("gj_dev_wrap_add((gj_dev_wrap_add_arg0)200, (unsigned char)i)"),
        "{src}"
    );
    let src = windows::cuda_source();
    assert!(
        src.contains("typedef gj_tuple3<float, float, unsigned long long> gj_dev_min_max_ret;"),
        "{src}"
    );
    assert!(src.contains("gj_dev_fill_row(rows, rows_d0, rows_d1, "), "{src}");
}

fn host_code_calls_device_functions() {
    assert_eq!(lucas::lucas_rec(10), 123);
    assert!(is_even(10) && is_odd(7));
    assert_eq!(geometry::norm2(3, 4), 25);
    assert_eq!(clamp_to(7.0, 0.0, 1.0), 1.0);
}

fn kernels_with_device_functions_compile_with_nvrtc() {
    common::assert_compiles_with_nvrtc(
        "device_fns",
        &[
            &lucas::lucas_recursive::KERNEL,
            &windows::KERNEL,
            &parity::KERNEL,
            &norms::KERNEL,
            &clamp_and_sum::KERNEL,
            &callee_literals::KERNEL,
            &sums_via_device_barrier::KERNEL,
        ],
    );
}

/// `x * (depth + 1)` by recursion, with a 16-element local array in each
/// frame (the stack a recursion uses up on the CPU backend).
#[gpu_device]
fn deep_sum(depth: u32, x: f32) -> f32 {
    let pad = [x; 16];
    if depth == 0 {
        return pad[0];
    }
    pad[(depth % 16) as usize] + deep_sum(depth - 1, x)
}

/// `deep_sum` before a barrier (the coroutine path: a stack per thread).
#[gpu_kernel]
fn deep_with_barrier(depth: u32, out: &mut [f32]) {
    let i = grid(1);
    let v = deep_sum(depth, 1.0);
    syncthreads();
    if i < out.len() {
        out[i] = v;
    }
}

/// `deep_sum` without a barrier (the OS threads' stacks).
#[gpu_kernel]
fn deep_without_barrier(depth: u32, out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = deep_sum(depth, 1.0);
    }
}

fn recursion_a_hundred_deep_runs_on_every_path() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<f32>(40)?;
    deep_with_barrier![2, 32](100u32, &mut out)?;
    assert_eq!(out.copy_to_host()?, vec![101.0; 40]);
    let mut out = gpujit::zeros::<f32>(40)?;
    gpujit::__private::with_forced_coroutines(|| deep_with_barrier![2, 32](100u32, &mut out))?;
    assert_eq!(out.copy_to_host()?, vec![101.0; 40]);
    let mut out = gpujit::zeros::<f32>(40)?;
    deep_without_barrier![2, 32](100u32, &mut out)?;
    assert_eq!(out.copy_to_host()?, vec![101.0; 40]);
    Ok(())
}

/// A recursion deeper than the stack is a `KernelFault` that says what to
/// raise, on a coroutine's stack (which once died with a bare SIGSEGV) and
/// on an OS thread's (Rust's stack-overflow abort).
fn recursion_too_deep_for_the_stack_is_a_fault() {
    let mut out = gpujit::zeros::<f32>(4).unwrap();
    let r = gpujit::__private::with_forced_coroutines(|| deep_with_barrier![1, 4](200_000u32, &mut out));
    let (_, _, _, msg) = common::fault_of(r, "deep_with_barrier");
    assert!(msg.contains("device function `deep_sum`"), "{msg}");
    assert!(msg.contains("GPUJIT_CPU_STACK_BYTES"), "{msg}");
    // Not forced, the kernel may run split, on the OS threads' stacks.
    let r = deep_with_barrier![1, 4](200_000u32, &mut out);
    let (_, _, _, msg) = common::fault_of(r, "deep_with_barrier");
    assert!(msg.contains("device function `deep_sum`"), "{msg}");
    assert!(
        msg.contains("GPUJIT_CPU_STACK_BYTES") || msg.contains("RUST_MIN_STACK"),
        "{msg}"
    );
    let r = deep_without_barrier![1, 4](50_000_000u32, &mut out);
    let (_, _, _, msg) = common::fault_of(r, "deep_without_barrier");
    assert!(msg.contains("device function `deep_sum`"), "{msg}");
    assert!(msg.contains("the OS thread's stack"), "{msg}");
}
