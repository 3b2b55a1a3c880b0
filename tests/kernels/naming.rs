//! Kernels whose names the translation must keep apart (see `tests/language/naming.rs`):
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

/// Parameters, locals and a shadow spelled like the translator's own
/// generated names (`gj_` prefix, `GJ_SHARED_OFFSET_N`, `gj_index_N`).
#[gpu_kernel]
pub fn gj_names(gj_x: f32, gj_thread: f32, GJ_SHARED_OFFSET_0: f32, gj_arg_0: &[f32], out: &mut [f32]) {
    let gj_index_0 = grid(1);
    let gj_shared = shared_array::<[f32; 4]>();
    if gj_index_0 < out.len() && gj_index_0 < gj_arg_0.len() {
        let gj_src = gj_arg_0[gj_index_0];
        let gj_x = gj_x + gj_src;
        let gj_x_1 = 10.0;
        let gj_args = gj_x * gj_thread + GJ_SHARED_OFFSET_0 + gj_x_1;
        gj_shared[gj_index_0 % 4] = 0.0;
        out[gj_index_0] = gj_args;
        out[gj_index_0] += gj_shared[gj_index_0 % 4] + 1.0;
    }
}

/// A constant spelled like a generated name and one spelled with `r#`.
pub const GJ_SHARED_OFFSET_1: usize = 4;
#[allow(non_upper_case_globals)]
pub const r#loop: f32 = 0.25;

/// Raw identifiers everywhere: the kernel, parameters, locals, a body
/// `const`, a shared array, and a raw name read back without `r#`.
#[gpu_kernel]
pub fn r#fn(r#fn: f32, r#match: &[f32], r#type: &mut [f32]) {
    const r#TWO: f32 = 2.0;
    let r#let = grid(1);
    let r#in = shared_array::<[f32; GJ_SHARED_OFFSET_1]>();
    let r#plain = 3.0f32;
    if r#let < r#type.len() && r#let < r#match.len() {
        r#in[r#let % 4] = r#loop;
        let r#where = r#match[r#let] * TWO;
        r#type[r#let] = r#where + r#fn + plain + r#in[r#let % 4];
    }
}

/// A constant whose name C reserves to the implementation.
#[allow(non_upper_case_globals)]
pub const _Tile: usize = 4;

/// Names C, C++ or CUDA reserve: implementation names (`__x`, `_X`),
/// keywords, built-in variables, math functions the emitted code calls and
/// names the generic helpers use, a non-ASCII name, as parameters, locals and
/// a shared array.
#[gpu_kernel]
pub fn __global__(
    __global__: f32,
    __restrict__: &[f32],
    __shared__: &mut [f32],
    __syncthreads: f32,
    _Reserved: f32,
    threadIdx: i32,
) {
    let blockDim = shared_array::<[f32; _Tile]>();
    let warpSize = thread_idx().x;
    let class = 2.0f32;
    let float = -3.0f32;
    let new = 1;
    let template = 0.5f32;
    let (T, U) = (1.0f32, 2.0f32);
    let fabsf = -1.0f32;
    let gj_traits = 4.0f32;
    let min = (threadIdx * new) as f32;
    let __x = 8.0f32;
    let café = 0.0f32;
    if warpSize < _Tile {
        blockDim[warpSize] = float.abs() + fabsf;
    }
    syncthreads();
    if warpSize < __shared__.len() && warpSize < __restrict__.len() {
        let x = __restrict__[warpSize];
        let y = x.abs().max(template) * class + float.min(T) + U;
        __shared__[warpSize] =
            y + __global__ * __syncthreads + _Reserved + gj_traits + min + __x + café + blockDim[warpSize % _Tile];
    }
}

/// Outside constants named like CUDA math functions (the attack's `y1`, and
/// `lgamma`, `normcdff`): in C they live at global scope beside NVRTC's
/// declarations.
#[allow(non_upper_case_globals)]
pub const y1: f32 = 2.0;
#[allow(non_upper_case_globals)]
pub const lgamma: f32 = 0.5;
#[allow(non_upper_case_globals)]
pub const normcdff: i32 = 3;

/// A kernel named like a CUDA math function NVRTC declares (`erfc`), reading
/// an outside constant named like another (`y1`).
#[gpu_kernel]
pub fn erfc(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = x[i] + y1;
    }
}

/// A kernel named like a Bessel function.
#[gpu_kernel]
pub fn j0(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] += 1.0;
    }
}

/// A local named like the vector type the emitted code declares
/// `thread_idx()` with (`uint3`), and one named like `dim3`.
#[gpu_kernel]
pub fn uint3_local(out: &mut [u32]) {
    let uint3 = 1u32;
    let t = thread_idx();
    let dim3 = block_dim();
    let i = grid(1);
    if i < out.len() {
        out[i] = t.x as u32 + uint3 + 10 * dim3.x as u32;
    }
}

/// A kernel named like a math function (`normcdf`), with parameters, locals, a
/// shared array and outside constants named like vector types, math
/// functions, `make_` constructors, atomics, C types and runtime API names.
#[gpu_kernel]
pub fn normcdf(rhypot: &[f32], float4: &mut [f32], size_t: usize, cudaMalloc: f32) {
    let int2 = shared_array::<[f32; 8]>();
    let make_int2 = thread_idx().x;
    let atomicAdd = lgamma * 2.0;
    let sinpi = normcdff as f32;
    let printf = 1.5f32;
    if make_int2 < 8 {
        int2[make_int2] = printf;
    }
    syncthreads();
    let i = grid(1);
    if i < float4.len() && i < rhypot.len() {
        float4[i] = rhypot[i] * atomicAdd + sinpi + size_t as f32 + cudaMalloc + int2[make_int2 % 8];
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
        &gj_names::KERNEL,
        &r#fn::KERNEL,
        &__global__::KERNEL,
        &erfc::KERNEL,
        &j0::KERNEL,
        &uint3_local::KERNEL,
        &normcdf::KERNEL,
    ]
}
