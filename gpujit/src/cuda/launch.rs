//! A kernel launch on a GPU: the GPU's own checks (its limits, the kernel's
//! registers and shared memory; everything else `PreparedLaunch::prepare`
//! checked), argument packing in the parameter ABI of the emitted CUDA C,
//! and the low-occupancy warning.
//!
//! The ABI (see `gpujit-macros/src/emit_cuda.rs` and `tests/snapshots/*.cu`):
//! in parameter order, an array is its element pointer followed by one
//! `unsigned long long` per dimension; a scalar is passed by value with its C
//! type (`bool`, `unsigned char`, `int`, `long long`, `unsigned int`,
//! `unsigned long long`, `float`, `double`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::{CudaStream, LaunchConfig as CuConfig, PushKernelArg};

use super::buffer::CudaBuffer;
use super::device::Device;
use crate::backend::PreparedLaunch;
use crate::error::{Error, Result};
use crate::kernel_def::{BufArg, KernelArg, KernelDef};
use crate::launch::LaunchConfig;
use crate::scalar::ScalarValue;

/// The environment variable that silences the low-occupancy warning when
/// `0` (Numba: `NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0`). On the CUDA backend a
/// launch whose grid has fewer blocks than twice the GPU's multiprocessors
/// logs one warning per kernel and GPU through the `log` crate (shown by any
/// `log` logger, e.g. `env_logger`); the CPU backend never warns.
///
/// ```
/// // As `GPUJIT_LOW_OCCUPANCY_WARNINGS=0 cargo run` would, for a program
/// // that launches small grids on purpose:
/// std::env::set_var(gpujit::ENV_LOW_OCCUPANCY_WARNINGS, "0");
/// ```
pub const ENV_LOW_OCCUPANCY_WARNINGS: &str = "GPUJIT_LOW_OCCUPANCY_WARNINGS";

/// A scalar's bytes, zero-extended to 8: the driver reads the parameter's
/// size (1, 2, 4 or 8 bytes) from the start of the word, which on the
/// little-endian hosts CUDA runs on holds exactly the value's bytes.
fn scalar_word(v: ScalarValue) -> u64 {
    match v {
        ScalarValue::U8(x) => u64::from(x),
        ScalarValue::I8(x) => u64::from(x as u8),
        ScalarValue::I16(x) => u64::from(x as u16),
        ScalarValue::U16(x) => u64::from(x),
        ScalarValue::I32(x) => u64::from(x as u32),
        ScalarValue::I64(x) => x as u64,
        ScalarValue::U32(x) => u64::from(x),
        ScalarValue::U64(x) => x,
        ScalarValue::Usize(x) => x as u64,
        ScalarValue::F32(x) => u64::from(x.to_bits()),
        ScalarValue::F64(x) => x.to_bits(),
        ScalarValue::Bool(x) => u64::from(x),
    }
}

/// Launches a prepared launch on `device`'s `stream` (the GPU and stream
/// `prepare` checked its arrays against). Asynchronous: a fault in the
/// kernel is reported by the next synchronizing call.
pub(crate) fn launch(device: &Arc<Device>, stream: &Arc<CudaStream>, mut launch: PreparedLaunch<'_, '_>) -> Result<()> {
    let (kernel, cfg) = (launch.kernel(), *launch.config());
    let cfg = &cfg;
    device.check_config(cfg)?;
    let args = launch.args_mut();
    let loaded = device.modules.get(&device.ctx, device.cc, kernel)?;
    if cfg.block.volume() > u64::from(loaded.max_threads_per_block) {
        return Err(Error::InvalidLaunchConfig(format!(
            "kernel `{}` can run at most {} threads per block on GPU {} (its registers limit it), {} were asked for; use smaller blocks",
            kernel.name,
            loaded.max_threads_per_block,
            device.ordinal,
            cfg.block.volume()
        )));
    }
    if loaded.shared_bytes > device.limits.max_shared_per_block {
        return Err(Error::InvalidLaunchConfig(format!(
            "kernel `{}` uses {} bytes of shared memory per block, more than the {} bytes of GPU {}; use smaller shared arrays",
            kernel.name, loaded.shared_bytes, device.limits.max_shared_per_block, device.ordinal
        )));
    }
    warn_low_occupancy(device, kernel, cfg, &loaded.warned);

    // The by-value words (dimensions and scalars), in parameter order; they
    // must not move while the builder points at them.
    let mut words: Vec<u64> = Vec::with_capacity(args.len() * 3);
    for arg in args.iter() {
        match arg {
            KernelArg::Scalar(v) => words.push(scalar_word(*v)),
            KernelArg::Array(a) => words.extend(a.shape.iter().map(|&d| d as u64)),
        }
    }
    let mut builder = stream.launch_builder(&loaded.func);
    let mut next = 0;
    for arg in args.iter_mut() {
        match arg {
            KernelArg::Scalar(_) => {
                builder.arg(&words[next]);
                next += 1;
            }
            KernelArg::Array(a) => {
                let ndim = a.shape.len();
                // `prepare` checked that every array is of this backend: a
                // `CudaBuffer` (an error otherwise, never a skipped argument).
                match &mut a.buf {
                    BufArg::Read(b) => builder.arg(&CudaBuffer::of(*b)?.slice),
                    BufArg::Write(b) => builder.arg(&mut CudaBuffer::of_mut(*b)?.slice),
                };
                for w in &words[next..next + ndim] {
                    builder.arg(w);
                }
                next += ndim;
            }
        }
    }
    let cu_cfg = CuConfig {
        grid_dim: (cfg.grid.x, cfg.grid.y, cfg.grid.z),
        block_dim: (cfg.block.x, cfg.block.y, cfg.block.z),
        shared_mem_bytes: 0,
    };
    device.set_last_kernel(kernel.name);
    // SAFETY (cudarc's three conditions for `launch`):
    // 1. The arguments match the function: `check_args` (in
    //    `PreparedLaunch::prepare`, the only maker of a launch) checked count, types,
    //    element types and dimensions against the `KernelDef` the macro
    //    generated together with the CUDA C, and the packing above follows
    //    that C's parameter list (pointer, then one u64 per dimension;
    //    scalars by value in 8-byte words read from their start).
    // 2. Mutability: a parameter the kernel writes is `mutable` in the
    //    `KernelDef`, and `check_args` requires a `&mut DeviceArray` (a
    //    `BufArg::Write`) for it, pushed as `&mut CudaSlice` so cudarc orders
    //    it as a write; read-only parameters are `const` in the C.
    // 3. Out-of-bounds accesses by the kernel touch GPU memory only, never
    //    host memory Rust owns: a fault is reported as an error (sticky).
    //    Every slice outlives its use: cudarc records the launch in each
    //    slice's events, and a slice's drop waits for them before freeing.
    let r = unsafe { builder.launch(cu_cfg) };
    r.map(|_| ())
        .map_err(|e| device.err(&format!("launch kernel `{}`", kernel.name), e))
}

/// Numba's fixed threshold: since 0.57 it warns below 128 blocks on any GPU.
const NUMBA_MIN_GRID: u64 = 128;

/// The fewest blocks a launch needs to avoid the warning: twice the
/// multiprocessors (each then has a second block to switch to), but at most
/// Numba's 128, so the seed's advice holds on large GPUs too. With 132
/// multiprocessors (H100, H200) that is 128: the seed's `loop_test` warns at
/// 40 blocks (256 threads per block) and not at 157 (64 threads), as under
/// Numba; 2 × 132 = 264 would warn at both.
pub(crate) fn min_grid_without_warning(multiprocessors: u32) -> u64 {
    (2 * u64::from(multiprocessors)).min(NUMBA_MIN_GRID)
}

/// Numba's `NumbaPerformanceWarning`, once per kernel and device, through
/// `log::warn!`, when the grid has fewer blocks than
/// [`min_grid_without_warning`].
fn warn_low_occupancy(device: &Device, kernel: &KernelDef, cfg: &LaunchConfig, warned: &std::sync::atomic::AtomicBool) {
    let blocks = cfg.blocks();
    let min_grid = min_grid_without_warning(device.limits.multiprocessors);
    if blocks >= min_grid || warned.load(Ordering::Relaxed) {
        return;
    }
    if warned.swap(true, Ordering::Relaxed) || !occupancy_warnings_enabled() {
        return;
    }
    log::warn!(
        "gpujit performance warning: kernel `{}`: grid size {blocks} will likely result in GPU under-utilization due to low occupancy ({} has {} multiprocessors; launch at least {min_grid} blocks, e.g. with fewer threads per block). Set {ENV_LOW_OCCUPANCY_WARNINGS}=0 to silence.",
        kernel.name,
        device.name,
        device.limits.multiprocessors,
    );
}

fn occupancy_warnings_enabled() -> bool {
    std::env::var(ENV_LOW_OCCUPANCY_WARNINGS).map_or(true, |v| v.trim() != "0")
}

#[cfg(test)]
mod tests {
    use super::min_grid_without_warning;

    #[test]
    fn low_occupancy_threshold_is_twice_the_multiprocessors_at_most_numbas_128() {
        // H100/H200 (132), A100 (108): Numba's 128; T4 (40), a 4-SM part: 2 × SMs.
        assert_eq!(min_grid_without_warning(132), 128);
        assert_eq!(min_grid_without_warning(108), 128);
        assert_eq!(min_grid_without_warning(64), 128);
        assert_eq!(min_grid_without_warning(40), 80);
        assert_eq!(min_grid_without_warning(4), 8);
        // The seed's loop_test on an H200: 40 blocks warn, 157 do not.
        assert!(40 < min_grid_without_warning(132) && 157 >= min_grid_without_warning(132));
    }
}
