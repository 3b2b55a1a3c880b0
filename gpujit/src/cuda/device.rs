//! One GPU: its context, default stream, limits (read from the device) and
//! loaded kernels.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUdevice_attribute as A;
use cudarc::driver::{CudaContext, CudaStream, DriverError};

use super::error::driver_error;
use super::module_cache::ModuleCache;
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;

/// The launch limits of a device, as `cuDeviceGetAttribute` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_threads_per_block: u32,
    pub max_block: [u32; 3],
    pub max_grid: [u32; 3],
    pub max_shared_per_block: u32,
    pub multiprocessors: u32,
}

/// A GPU in use by this process.
#[derive(Debug)]
pub(crate) struct Device {
    pub ordinal: usize,
    pub ctx: Arc<CudaContext>,
    /// The stream of launches and copies that name none.
    pub stream: Arc<CudaStream>,
    pub name: String,
    pub cc: (u32, u32),
    pub limits: Limits,
    pub modules: ModuleCache,
    /// The kernel launched last on this device, named by a device fault
    /// (CUDA reports faults at a later synchronizing call).
    last_kernel: Mutex<&'static str>,
}

impl Device {
    /// Retains the primary context of GPU `ordinal` and reads its limits.
    pub fn open(ordinal: usize) -> Result<Device> {
        let err = |op: &'static str| move |e: DriverError| driver_error(op, e, "(none)");
        let ctx = CudaContext::new(ordinal).map_err(err("open the GPU (cuDevicePrimaryCtxRetain)"))?;
        let attr = |a| {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(err("cuDeviceGetAttribute"))
        };
        let limits = Limits {
            max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        };
        let cc = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let name = ctx.name().map_err(err("cuDeviceGetName"))?;
        let stream = ctx.default_stream();
        Ok(Device {
            ordinal,
            ctx,
            stream,
            name,
            cc,
            limits,
            modules: ModuleCache::default(),
            last_kernel: Mutex::new("(none launched yet)"),
        })
    }

    /// Records `name` as the kernel launched last.
    pub fn set_last_kernel(&self, name: &'static str) {
        *self.last_kernel.lock().unwrap_or_else(|p| p.into_inner()) = name;
    }

    /// The error of driver call `op`, naming the last kernel for a fault.
    pub fn err(&self, op: &str, e: DriverError) -> Error {
        let kernel = *self.last_kernel.lock().unwrap_or_else(|p| p.into_inner());
        driver_error(op, e, kernel)
    }

    /// Checks `cfg` against this device's limits (before the driver sees it).
    pub fn check_config(&self, cfg: &LaunchConfig) -> Result<()> {
        let l = &self.limits;
        let axes = ["x", "y", "z"];
        for (what, dim, limits) in [("grid", cfg.grid, l.max_grid), ("block", cfg.block, l.max_block)] {
            for (i, (value, limit)) in [dim.x, dim.y, dim.z].into_iter().zip(limits).enumerate() {
                if value > limit {
                    return Err(Error::InvalidLaunchConfig(format!(
                        "{what}.{} = {value} exceeds the limit of {limit} of GPU {} ({})",
                        axes[i], self.ordinal, self.name
                    )));
                }
            }
        }
        if cfg.block.volume() > u64::from(l.max_threads_per_block) {
            return Err(Error::InvalidLaunchConfig(format!(
                "a block of {} threads exceeds the limit of {} threads per block of GPU {} ({})",
                cfg.block.volume(),
                l.max_threads_per_block,
                self.ordinal,
                self.name
            )));
        }
        Ok(())
    }
}
