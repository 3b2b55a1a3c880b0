//! Is CUDA usable here? Loads the driver, resolves every entry point gpujit
//! uses and asks for devices, all inside `catch_unwind`: cudarc panics on a
//! missing library or symbol, and that panic must never reach a user.
//!
//! Detection ([`crate::detect`]) asks this before any backend exists, and the
//! CPU backend's messages name what it found, so it sits below both backends
//! and needs nothing of the CUDA backend: only the driver library.

use std::ffi::c_void;

use cudarc::driver::sys;

/// Every driver entry point the CUDA backend reaches through cudarc's safe
/// API (with the `cuda-13000` bindings). Resolved once at detection, so an
/// old driver that lacks one is a clear fallback reason, not a panic later.
pub(crate) const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemsetD8Async",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuModuleLoadData",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuFuncGetAttribute",
    "cuLaunchKernel",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuOccupancyMaxPotentialBlockSizeWithFlags",
];

/// What detection found: the first device, for [`crate::detect`]'s reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub devices: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    /// `cuDriverGetVersion`, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
}

impl Found {
    /// E.g. `NVIDIA H200 (compute capability 9.0), driver CUDA 13.0, 1 device`.
    pub fn describe(&self) -> String {
        format!(
            "{} (compute capability {}.{}), driver CUDA {}.{}, {} device{}",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.driver_version / 1000,
            self.driver_version % 1000 / 10,
            self.devices,
            if self.devices == 1 { "" } else { "s" }
        )
    }
}

/// Probes the driver. `Err` says why CUDA cannot run. Never panics.
pub(crate) fn probe() -> Result<Found, String> {
    // SAFETY: `is_culib_present` only `dlopen`s the library and closes it.
    let present = std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
    if !present {
        return Err("no CUDA driver (libcuda.so) was found".into());
    }
    match std::panic::catch_unwind(probe_loaded) {
        Ok(r) => r,
        Err(_) => Err("the CUDA driver library could not be used (loading it failed)".into()),
    }
}

fn probe_loaded() -> Result<Found, String> {
    // SAFETY: `culib` loads the library (present, checked by the caller; a
    // failure panics, which the caller catches); `get` only looks a symbol
    // up, and the pointer is not called.
    let lib = unsafe { sys::culib() };
    let missing: Vec<&str> = DRIVER_SYMBOLS
        .iter()
        .copied()
        .filter(|name| unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the CUDA driver lacks {} (it is older than CUDA 12.8, which gpujit needs); update the NVIDIA driver",
            missing.join(", ")
        ));
    }
    // `{:?}` of a `CUresult` is its name (`CUDA_ERROR_NO_DEVICE`), as in the
    // CUDA backend's errors.
    let fail = |what: &str, e: cudarc::driver::DriverError| format!("{what} failed with {:?}", e.0);
    cudarc::driver::result::init().map_err(|e| fail("cuInit", e))?;
    let count = cudarc::driver::result::device::get_count().map_err(|e| fail("cuDeviceGetCount", e))?;
    if count <= 0 {
        return Err("the CUDA driver reports no device".into());
    }
    let dev = cudarc::driver::result::device::get(0).map_err(|e| fail("cuDeviceGet", e))?;
    let name = cudarc::driver::result::device::get_name(dev).map_err(|e| fail("cuDeviceGetName", e))?;
    let attr = |a| {
        // SAFETY: `dev` is a valid device handle from `cuDeviceGet`.
        unsafe { cudarc::driver::result::device::get_attribute(dev, a) }.map_err(|e| fail("cuDeviceGetAttribute", e))
    };
    let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let mut version = 0;
    // SAFETY: the symbol was resolved above; the pointer is to a live `i32`.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| fail("cuDriverGetVersion", e))?;
    Ok(Found {
        devices: count as usize,
        name,
        compute_capability: (major, minor),
        driver_version: version,
    })
}
