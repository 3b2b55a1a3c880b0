//! Kernels compiled and loaded once per device: the first launch of a kernel
//! on a device compiles its CUDA C with NVRTC for the device's architecture
//! and loads the module; later launches find it by the address of the
//! kernel's `&'static KernelDef` (a hash lookup and an `Arc` clone: no
//! compile work, no formatting, no allocation). Modules are never unloaded:
//! queued work may still use them (cubecl does the same).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUfunction_attribute, CUlimit};
use cudarc::driver::{CudaContext, CudaFunction};

use super::error::driver_error;
use crate::error::{Error, Result};
use crate::kernel_def::KernelDef;

/// A kernel loaded on one device, with what launches check against.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub func: CudaFunction,
    /// Most threads per block this kernel can run with (registers limit it
    /// below the device's 1024 for big kernels).
    pub max_threads_per_block: u32,
    /// Static `__shared__` bytes per block.
    pub shared_bytes: u32,
    /// Whether the low-occupancy warning was given for this kernel.
    pub warned: std::sync::atomic::AtomicBool,
}

/// The loaded kernels of one device.
#[derive(Debug, Default)]
pub(crate) struct ModuleCache {
    map: Mutex<HashMap<usize, Arc<Loaded>>>,
}

impl ModuleCache {
    /// The kernel loaded on `ctx` (compute capability `cc`), compiling and
    /// loading it on first use. Holds the cache's lock while compiling, so a
    /// kernel is compiled once even when threads race to launch it.
    pub fn get(&self, ctx: &Arc<CudaContext>, cc: (u32, u32), kernel: &'static KernelDef) -> Result<Arc<Loaded>> {
        let key = kernel as *const KernelDef as usize;
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = map.get(&key) {
            return Ok(l.clone());
        }
        let image = module_image(kernel, cc)?;
        let load_err = |e| driver_error(&format!("load the module of kernel `{}`", kernel.name), e, kernel.name);
        if (kernel.recursive)() {
            ensure_stack(ctx, RECURSION_STACK_BYTES).map_err(|e| {
                driver_error(
                    &format!(
                        "raise the per-thread stack to {RECURSION_STACK_BYTES} bytes for the recursive kernel `{}`",
                        kernel.name
                    ),
                    e,
                    kernel.name,
                )
            })?;
        }
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image))
            .map_err(load_err)?;
        let func = module.load_function(kernel.entry).map_err(load_err)?;
        let attr = |a| func.get_attribute(a).map_err(load_err);
        let max_threads_per_block = attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?.max(0) as u32;
        let shared_bytes = attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?.max(0) as u32;
        let loaded = Arc::new(Loaded {
            func,
            max_threads_per_block,
            shared_bytes,
            warned: Default::default(),
        });
        map.insert(key, loaded.clone());
        Ok(loaded)
    }
}

/// The per-thread stack, in bytes, that a kernel reaching a recursive device
/// function gets at least (CUDA's default is 1 KiB; ptxas cannot size a
/// recursive call chain). A mutual recursion 100 calls deep overflowed the
/// default on an H200 (`CUDA_ERROR_ILLEGAL_ADDRESS`). The driver reserves
/// this for every thread the device can hold at once: on an H200
/// (132 × 2048 threads) 8 KiB is 2.2 GB of its 141 GB.
pub(crate) const RECURSION_STACK_BYTES: usize = 8 * 1024;

/// Raises the context's per-thread stack (`cuCtxSetLimit(CU_LIMIT_STACK_SIZE)`,
/// CUDA C's `cudaDeviceSetLimit(cudaLimitStackSize, ..)`) to at least `bytes`;
/// never lowers it.
fn ensure_stack(ctx: &Arc<CudaContext>, bytes: usize) -> std::result::Result<(), cudarc::driver::DriverError> {
    let limit = CUlimit::CU_LIMIT_STACK_SIZE;
    if ctx.get_limit(limit)? < bytes {
        ctx.set_limit(limit, bytes)?;
    }
    Ok(())
}

/// The module image of `kernel` for a device of compute capability
/// `(major, minor)`, through NVRTC's on-disk cache: a CUBIN for the device's
/// own architecture when this NVRTC knows it (no JIT, and no "PTX too new for
/// this driver"), otherwise NUL-terminated PTX for the newest virtual
/// architecture NVRTC supports below it, which the driver JIT-compiles.
fn module_image(kernel: &KernelDef, (major, minor): (u32, u32)) -> Result<Vec<u8>> {
    let device_arch = (major * 10 + minor) as i32;
    let archs = crate::nvrtc::supported_archs()?;
    if archs.contains(&device_arch) {
        return Ok(kernel.cubin((major, minor))?.image);
    }
    let arch = archs.into_iter().filter(|&a| a <= device_arch).max().ok_or_else(|| Error::NvrtcCompile {
        kernel: kernel.name.to_string(),
        log: format!(
            "this NVRTC supports no architecture up to the GPU's compute capability {major}.{minor}; use an NVRTC that supports it (GPUJIT_NVRTC_PATH)"
        ),
    })?;
    let ptx = kernel.ptx(((arch / 10) as u32, (arch % 10) as u32))?;
    let mut image = ptx.text.into_bytes();
    image.push(0);
    Ok(image)
}
