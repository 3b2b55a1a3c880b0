//! The driver's occupancy calculator for a loaded kernel (see
//! [`crate::occupancy`]).

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute as A;

use super::device::Device;
use crate::error::{Error, Result};
use crate::kernel_def::KernelDef;
use crate::launch::LaunchConfig;
use crate::occupancy::{Occupancy, SuggestedBlockSize};

/// Active blocks per multiprocessor of `kernel` on `device` for `cfg`'s block.
pub(crate) fn occupancy(
    device: &Arc<Device>,
    kernel: &'static KernelDef,
    cfg: &LaunchConfig,
    dynamic_shared_bytes: usize,
) -> Result<Occupancy> {
    device.check_config(cfg)?;
    let loaded = device.modules.get(&device.ctx, device.cc, kernel)?;
    let block_size = cfg.block.volume() as u32; // at most 1024: checked above
    if block_size > loaded.max_threads_per_block {
        return Err(Error::InvalidLaunchConfig(format!(
            "kernel `{}` can run at most {} threads per block on GPU {} (its registers limit it), {block_size} were asked about",
            kernel.name, loaded.max_threads_per_block, device.ordinal
        )));
    }
    let err = |op: &str| {
        let op = format!("{op} for kernel `{}`", kernel.name);
        move |e| device.err(&op, e)
    };
    let active = loaded
        .func
        .occupancy_max_active_blocks_per_multiprocessor(block_size, dynamic_shared_bytes, None)
        .map_err(err("cuOccupancyMaxActiveBlocksPerMultiprocessor"))?;
    let max_threads = device
        .ctx
        .attribute(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        .map_err(err("cuDeviceGetAttribute"))?;
    Ok(Occupancy {
        block_size,
        dynamic_shared_bytes,
        active_blocks_per_multiprocessor: active,
        multiprocessors: device.limits.multiprocessors,
        max_threads_per_multiprocessor: max_threads.max(0) as u32,
    })
}

/// No dynamic shared memory at any block size (gpujit kernels have only
/// static `__shared__` arrays, which the driver counts itself).
extern "C" fn no_dynamic_shared(_block_size: std::ffi::c_int) -> usize {
    0
}

/// `cuOccupancyMaxPotentialBlockSize` for `kernel` on `device`.
pub(crate) fn suggested_block_size(device: &Arc<Device>, kernel: &'static KernelDef) -> Result<SuggestedBlockSize> {
    let loaded = device.modules.get(&device.ctx, device.cc, kernel)?;
    let (min_grid_size, block_size) = loaded
        .func
        .occupancy_max_potential_block_size(no_dynamic_shared, 0, loaded.max_threads_per_block, None)
        .map_err(|e| {
            device.err(
                &format!("cuOccupancyMaxPotentialBlockSize for kernel `{}`", kernel.name),
                e,
            )
        })?;
    Ok(SuggestedBlockSize {
        block_size,
        min_grid_size,
    })
}
