//! Kernels whose names the translation must keep apart (see `tests/naming.rs`):
//! shadowed bindings next to user variables that look like generated names,
//! kernels and parameters named like C keywords, CUDA builtins or the
//! generated code's own items, deferred initialisation, outside constants
//! whose C names could collide, and deliberately unused bindings.

use gpujit::prelude::*;

/// Shadowing `v` twice next to a user variable `v_1`.
#[gpu_kernel]
pub fn shadow_next_to_suffix(out: &mut [i32]) {
    let i = grid(1);
    if i < out.len() {
        let v = 1;
        let v_1 = 100;
        let v = v + 1;
        let v = v + 10;
        out[i] = v + v_1;
    }
}

/// A shadow in an inner scope whose initializer reads user variables `x_1`, `x_2`.
#[gpu_kernel]
pub fn inner_shadow(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i + 1 < x.len() {
        let x_1 = x[i];
        let x_2 = x[i + 1];
        let mut acc = 0.0;
        for _k in 0..2 {
            let x = x_2 - x_1;
            acc += x;
        }
        out[i] = acc;
    }
}

/// A kernel named like a C keyword, with parameters named like C keywords,
/// CUDA builtins and the launch function's own parameters.
#[gpu_kernel]
pub fn float(int: f32, int_: f32, block: usize, grid: usize, shared: f32, launch: f32, min: &mut [f32]) {
    let i = thread_idx().x;
    if i < min.len() {
        min[i] = int + int_ + (block + grid) as f32 + shared * launch;
    }
}

/// A kernel named like a CUDA math function.
#[gpu_kernel]
pub fn sqrt(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = x[i].sqrt();
    }
}

/// `let y;` assigned on one path only.
#[gpu_kernel]
pub fn deferred_init(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        let y;
        if x[i] > 0.0 {
            y = 2.0 * x[i];
        } else {
            y = -x[i];
        }
        out[i] = y;
    }
}

/// A user constant spelled like the C name of `f32::MAX`.
#[allow(non_upper_case_globals)]
pub const f32_MAX: f32 = 1.0;

#[gpu_kernel]
pub fn const_names(out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = if i == 0 { f32::MAX } else { f32_MAX };
    }
}

/// Bindings that are unused on purpose (`_name`) draw no NVRTC warning.
#[gpu_kernel]
pub fn unused_on_purpose(flag: bool, out: &mut [f64]) {
    let _i = grid(1);
    let (_x, _y) = (1.0, 2.0);
    if flag && out.len() > 1 {
        out[0] = 1.0;
    }
}

/// Every kernel of this module.
pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {
    vec![
        &shadow_next_to_suffix::KERNEL,
        &inner_shadow::KERNEL,
        &float::KERNEL,
        &sqrt::KERNEL,
        &deferred_init::KERNEL,
        &const_names::KERNEL,
        &unused_on_purpose::KERNEL,
    ]
}
