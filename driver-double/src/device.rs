//! Initialisation, devices and their attributes, contexts, error strings.

use std::ffi::{c_char, c_int, c_void};

use crate::errors::*;
use crate::state::{self, entry, put, Driver};

/// The name every device reports.
pub const DEVICE_NAME: &str = "gpujit driver double";
/// `cuDriverGetVersion`: CUDA 13.0 (driver 580).
pub const DRIVER_VERSION: c_int = 13000;
/// Streaming multiprocessors per device (as an H100/H200 SXM).
pub const SM_COUNT: c_int = 132;

/// `cuInit`: `CUDA_ERROR_NO_DEVICE` with `GPUJIT_DOUBLE_DEVICES=0` or
/// `GPUJIT_DOUBLE_FAIL=no-device`; `CUDA_ERROR_UNKNOWN` with `GPUJIT_DOUBLE_FAIL=init`.
#[no_mangle]
pub extern "C" fn cuInit(flags: u32) -> CuResult {
    entry("cuInit", |d| {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if d.config.faults.init {
            return Err(CUDA_ERROR_UNKNOWN);
        }
        if d.config.faults.no_device || d.config.devices == 0 {
            return Err(CUDA_ERROR_NO_DEVICE);
        }
        if !d.initialized {
            d.initialized = true;
            d.primary = (0..d.config.devices).map(|dev| d.new_context(dev, true, 0)).collect();
        }
        Ok(())
    })
}

/// `cuDriverGetVersion` (works before `cuInit`, as CUDA's does).
///
/// # Safety
/// `v` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(v: *mut c_int) -> CuResult {
    // SAFETY: out-pointer per the caller's contract; null is rejected.
    entry("cuDriverGetVersion", |_| unsafe { put(v, DRIVER_VERSION) })
}

/// `cuDeviceGet`: a device is its ordinal.
///
/// # Safety
/// `dev` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(dev: *mut c_int, ordinal: c_int) -> CuResult {
    entry("cuDeviceGet", |d| {
        let o = d.device(ordinal)?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(dev, o) }
    })
}

/// `cuDeviceGetCount`: `GPUJIT_DOUBLE_DEVICES` (default 1).
///
/// # Safety
/// `count` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CuResult {
    entry("cuDeviceGetCount", |d| {
        d.initialized()?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(count, d.config.devices) }
    })
}

/// `cuDeviceGetName`: "gpujit driver double", truncated to `len - 1` bytes.
///
/// # Safety
/// `name` is null or valid for `len` bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: c_int) -> CuResult {
    entry("cuDeviceGetName", |d| {
        d.device(dev)?;
        if name.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let n = DEVICE_NAME.len().min(len as usize - 1);
        // SAFETY: `name` holds `len` > `n` bytes by the caller's contract.
        unsafe {
            std::ptr::copy_nonoverlapping(DEVICE_NAME.as_ptr(), name.cast::<u8>(), n);
            *name.add(n) = 0;
        }
        Ok(())
    })
}

fn uuid(d: &Driver, out: *mut [u8; 16], dev: c_int) -> Result<(), CuResult> {
    d.device(dev)?;
    let mut u = *b"gpujit-double\0\0\0";
    u[15] = dev as u8;
    // SAFETY: out-pointer per the caller's contract; null is rejected.
    unsafe { put(out, u) }
}

/// `cuDeviceGetUuid`.
///
/// # Safety
/// `out` is null or valid for 16 bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(out: *mut [u8; 16], dev: c_int) -> CuResult {
    entry("cuDeviceGetUuid", |d| uuid(d, out, dev))
}

/// `cuDeviceGetUuid_v2`.
///
/// # Safety
/// `out` is null or valid for 16 bytes of writes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(out: *mut [u8; 16], dev: c_int) -> CuResult {
    entry("cuDeviceGetUuid_v2", |d| uuid(d, out, dev))
}

/// `cuDeviceTotalMem_v2`: `GPUJIT_DOUBLE_MEMORY` (default 16 GiB).
///
/// # Safety
/// `bytes` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: c_int) -> CuResult {
    entry("cuDeviceTotalMem_v2", |d| {
        d.device(dev)?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(bytes, d.memory.capacity) }
    })
}

/// A device attribute by its `CUdevice_attribute` number: the values of an
/// sm_90 part (H100/H200), with the compute capability from
/// `GPUJIT_DOUBLE_SM`; 0 for attributes of features the double lacks.
pub fn attribute(attrib: u32, sm: i32, dev: i32) -> Option<c_int> {
    Some(match attrib {
        1 => 1024,       // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,   // MAX_BLOCK_DIM_X, _Y
        4 => 64,         // MAX_BLOCK_DIM_Z
        5 => i32::MAX,   // MAX_GRID_DIM_X
        6 | 7 => 65535,  // MAX_GRID_DIM_Y, _Z
        8 => 48 << 10,   // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 << 10,   // TOTAL_CONSTANT_MEMORY
        10 => 32,        // WARP_SIZE
        11 => i32::MAX,  // MAX_PITCH
        12 => 65536,     // MAX_REGISTERS_PER_BLOCK
        13 => 1_980_000, // CLOCK_RATE (kHz)
        14 => 512,       // TEXTURE_ALIGNMENT
        15 => 1,         // GPU_OVERLAP
        16 => SM_COUNT,  // MULTIPROCESSOR_COUNT
        17 | 18 => 0,    // KERNEL_EXEC_TIMEOUT, INTEGRATED
        19 => 1,         // CAN_MAP_HOST_MEMORY
        20 => 0,         // COMPUTE_MODE (default)
        31 | 32 => 1,    // CONCURRENT_KERNELS, ECC_ENABLED
        33 => dev + 1,   // PCI_BUS_ID
        34 | 35 => 0,    // PCI_DEVICE_ID, TCC_DRIVER
        36 => 2_619_000, // MEMORY_CLOCK_RATE (kHz)
        37 => 5120,      // GLOBAL_MEMORY_BUS_WIDTH
        38 => 50 << 20,  // L2_CACHE_SIZE
        39 => 2048,      // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 3,         // ASYNC_ENGINE_COUNT
        41 => 1,         // UNIFIED_ADDRESSING
        50 => 0,         // PCI_DOMAIN_ID
        75 => sm / 10,   // COMPUTE_CAPABILITY_MAJOR
        76 => sm % 10,   // COMPUTE_CAPABILITY_MINOR
        78..=80 => 1,    // STREAM_PRIORITIES, GLOBAL_L1, LOCAL_L1
        81 => 228 << 10, // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => 65536,     // MAX_REGISTERS_PER_MULTIPROCESSOR
        95 => 0,         // COOPERATIVE_LAUNCH (not modelled)
        97 => 227 << 10, // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => 32,       // MAX_BLOCKS_PER_MULTIPROCESSOR
        111 => 1024,     // RESERVED_SHARED_MEMORY_PER_BLOCK
        115 => 1,        // MEMORY_POOLS_SUPPORTED (cuMemAllocAsync works)
        0 => return None,
        a if a < 150 => 0,
        _ => return None,
    })
}

/// `cuDeviceGetAttribute`; an attribute number CUDA does not have is `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pi` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(pi: *mut c_int, attrib: u32, dev: c_int) -> CuResult {
    entry("cuDeviceGetAttribute", |d| {
        d.device(dev)?;
        let v = attribute(attrib, d.config.sm, dev).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(pi, v) }
    })
}

/// `cuDevicePrimaryCtxRetain`.
///
/// # Safety
/// `pctx` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut *mut c_void, dev: c_int) -> CuResult {
    entry("cuDevicePrimaryCtxRetain", |d| {
        d.device(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let ctx = d.primary[dev as usize];
        d.contexts.get_mut(&ctx).expect("primary contexts exist").refs += 1;
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(pctx, ctx as *mut c_void) }
    })
}

/// `cuDevicePrimaryCtxRelease_v2`: the last release ends the context (its
/// memory, streams and modules go, and a sticky error is cleared).
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: c_int) -> CuResult {
    entry("cuDevicePrimaryCtxRelease_v2", |d| {
        d.device(dev)?;
        let ctx = d.primary[dev as usize];
        let c = d.contexts.get_mut(&ctx).expect("primary contexts exist");
        if c.refs == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        c.refs -= 1;
        if c.refs == 0 {
            d.retire_context(ctx);
        }
        Ok(())
    })
}

/// `cuDevicePrimaryCtxReset_v2`: ends the primary context now.
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: c_int) -> CuResult {
    entry("cuDevicePrimaryCtxReset_v2", |d| {
        d.device(dev)?;
        let ctx = d.primary[dev as usize];
        d.retire_context(ctx);
        Ok(())
    })
}

/// `cuDevicePrimaryCtxGetState`.
///
/// # Safety
/// The out-pointers are null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(dev: c_int, flags: *mut u32, active: *mut c_int) -> CuResult {
    entry("cuDevicePrimaryCtxGetState", |d| {
        d.device(dev)?;
        let refs = d.contexts[&d.primary[dev as usize]].refs;
        // SAFETY: out-pointers per the caller's contract; null is rejected.
        unsafe {
            put(flags, 0)?;
            put(active, (refs > 0) as c_int)
        }
    })
}

/// `cuCtxCreate_v4`: a new (non-primary) context, made current.
///
/// # Safety
/// `pctx` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut *mut c_void,
    _params: *mut c_void,
    _flags: u32,
    dev: c_int,
) -> CuResult {
    entry("cuCtxCreate_v4", |d| {
        d.device(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let ctx = d.new_context(dev, false, 1);
        state::push_current(ctx);
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(pctx, ctx as *mut c_void) }
    })
}

/// `cuCtxDestroy_v2` of a non-primary context.
#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(ctx: *mut c_void) -> CuResult {
    entry("cuCtxDestroy_v2", |d| {
        d.initialized()?;
        let h = ctx as usize;
        match d.contexts.get(&h) {
            Some(c) if !c.primary => {}
            _ => return Err(CUDA_ERROR_INVALID_CONTEXT),
        }
        d.retire_context(h);
        if state::current_handle() == h {
            state::pop_current();
        }
        Ok(())
    })
}

/// `cuCtxGetCurrent`: null when the thread has none.
///
/// # Safety
/// `pctx` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut *mut c_void) -> CuResult {
    entry("cuCtxGetCurrent", |d| {
        d.initialized()?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(pctx, state::current_handle() as *mut c_void) }
    })
}

/// `cuCtxSetCurrent`: null unbinds.
#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: *mut c_void) -> CuResult {
    entry("cuCtxSetCurrent", |d| {
        d.initialized()?;
        let h = ctx as usize;
        if h != 0 && !d.contexts.contains_key(&h) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        state::set_current(h);
        Ok(())
    })
}

/// `cuCtxPushCurrent_v2`.
#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: *mut c_void) -> CuResult {
    entry("cuCtxPushCurrent_v2", |d| {
        d.initialized()?;
        if !d.contexts.contains_key(&(ctx as usize)) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        state::push_current(ctx as usize);
        Ok(())
    })
}

/// `cuCtxPopCurrent_v2`.
///
/// # Safety
/// `pctx` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut *mut c_void) -> CuResult {
    entry("cuCtxPopCurrent_v2", |d| {
        d.initialized()?;
        let h = state::pop_current();
        if h == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        if !pctx.is_null() {
            // SAFETY: non-null, writable by the caller's contract.
            unsafe { put(pctx, h as *mut c_void) }?;
        }
        Ok(())
    })
}

/// `cuCtxGetDevice`.
///
/// # Safety
/// `dev` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut c_int) -> CuResult {
    entry("cuCtxGetDevice", |d| {
        let ctx = d.current()?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(dev, d.contexts[&ctx].device) }
    })
}

/// `cuCtxSynchronize`: runs all queued work of the current context; returns its sticky error.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CuResult {
    entry("cuCtxSynchronize", |d| {
        d.initialized()?;
        let ctx = state::current_handle();
        if !d.contexts.contains_key(&ctx) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        d.sync_context(ctx)
    })
}

/// `cuCtxSetFlags`: accepted (scheduling flags mean nothing here).
#[no_mangle]
pub extern "C" fn cuCtxSetFlags(_flags: u32) -> CuResult {
    entry("cuCtxSetFlags", |d| d.current().map(|_| ()))
}

/// `cuCtxGetFlags`.
///
/// # Safety
/// `flags` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut u32) -> CuResult {
    entry("cuCtxGetFlags", |d| {
        d.current()?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(flags, 0) }
    })
}

/// `cuCtxGetLimit`: what was set, else the defaults of CUDA (stack 1 KiB,
/// printf FIFO 1 MiB, malloc heap 8 MiB).
///
/// # Safety
/// `value` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: u32) -> CuResult {
    entry("cuCtxGetLimit", |d| {
        let ctx = d.current()?;
        let default = match limit {
            0 => 1024,
            1 => 1 << 20,
            2 => 8 << 20,
            3 => 2,
            4 => 2048,
            5 => 0,
            6 => 0,
            7 => 228 << 10,
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        let v = d.contexts[&ctx].limits.get(&limit).copied().unwrap_or(default);
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(value, v) }
    })
}

/// `cuCtxSetLimit`: remembered.
#[no_mangle]
pub extern "C" fn cuCtxSetLimit(limit: u32, value: usize) -> CuResult {
    entry("cuCtxSetLimit", |d| {
        let ctx = d.current()?;
        if limit > 7 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        d.contexts.get_mut(&ctx).expect("current").limits.insert(limit, value);
        Ok(())
    })
}

/// `cuCtxGetCacheConfig`.
///
/// # Safety
/// `config` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut u32) -> CuResult {
    entry("cuCtxGetCacheConfig", |d| {
        let ctx = d.current()?;
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(config, d.contexts[&ctx].cache_config) }
    })
}

/// `cuCtxSetCacheConfig`: remembered.
#[no_mangle]
pub extern "C" fn cuCtxSetCacheConfig(config: u32) -> CuResult {
    entry("cuCtxSetCacheConfig", |d| {
        let ctx = d.current()?;
        if config > 3 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        d.contexts.get_mut(&ctx).expect("current").cache_config = config;
        Ok(())
    })
}

/// `cuCtxGetStreamPriorityRange`: least 0, greatest -5.
///
/// # Safety
/// The out-pointers are null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CuResult {
    entry("cuCtxGetStreamPriorityRange", |d| {
        d.current()?;
        // SAFETY: CUDA allows either out-pointer to be null.
        unsafe {
            if !least.is_null() {
                put(least, 0)?;
            }
            if !greatest.is_null() {
                put(greatest, -5)?;
            }
        }
        Ok(())
    })
}

/// `cuGetExportTable`: the driver's private tables. Real NVRTC opens
/// `libcuda.so.1` while it compiles and asks for one; the double has none, so
/// it answers `CUDA_ERROR_INVALID_VALUE` with a null table (NVRTC then carries
/// on as without a driver). Works before `cuInit`.
///
/// # Safety
/// `table` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(table: *mut *const c_void, _id: *const c_void) -> CuResult {
    if !table.is_null() {
        // SAFETY: non-null, writable by the caller's contract.
        unsafe { *table = std::ptr::null() };
    }
    CUDA_ERROR_INVALID_VALUE
}

/// `cuGetErrorName`: `CUDA_ERROR_INVALID_VALUE` (and null) for an unknown code.
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: u32, out: *mut *const c_char) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { write_str(out, describe(error).map(|(n, _)| n)) }
}

/// `cuGetErrorString`: `CUDA_ERROR_INVALID_VALUE` (and null) for an unknown code.
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: u32, out: *mut *const c_char) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { write_str(out, describe(error).map(|(_, s)| s)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_of_an_sm90_part() {
        assert_eq!(attribute(75, 90, 0), Some(9));
        assert_eq!(attribute(76, 86, 0), Some(6));
        assert_eq!(attribute(10, 90, 0), Some(32));
        assert_eq!(attribute(97, 90, 0), Some(227 << 10));
        assert_eq!(attribute(115, 90, 0), Some(1));
        assert_eq!(attribute(100, 90, 0), Some(0));
        assert_eq!(attribute(0, 90, 0), None);
        assert_eq!(attribute(100_000, 90, 0), None);
    }
}
