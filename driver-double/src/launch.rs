//! `cuLaunchKernel`: CUDA's launch limits, the `kernelParams` layout checked
//! against the kernel's C signature, and the run on the host; occupancy.

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use crate::errors::*;
use crate::module::{CType, Kernel, MAX_SHARED_OPTIN};
use crate::state::{entry, put, Driver};
use crate::stream::Op;

/// A queued launch: the argument values were copied at the call, as CUDA does.
pub struct Launch {
    pub kernel: Arc<Kernel>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// One 8-byte slot per C parameter (narrower values at its start).
    pub args: Vec<u64>,
}

/// CUDA's limits (sm_90): `CUDA_ERROR_INVALID_VALUE` outside them.
fn check_config(grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
    if grid.contains(&0) || block.contains(&0) {
        return Err(format!("grid {grid:?} or block {block:?} has a zero extent"));
    }
    if grid[0] > i32::MAX as u32 || grid[1] > 65535 || grid[2] > 65535 {
        return Err(format!("grid {grid:?} exceeds (2147483647, 65535, 65535)"));
    }
    if block[0] > 1024 || block[1] > 1024 || block[2] > 64 {
        return Err(format!("block {block:?} exceeds (1024, 1024, 64)"));
    }
    let threads = block.iter().map(|&b| b as u64).product::<u64>();
    if threads > 1024 {
        return Err(format!("block {block:?} has {threads} threads, more than 1024"));
    }
    Ok(())
}

/// Runs a launch on the host, after checking every array argument against
/// the allocation it points into: the kernel may read
/// `product(extents) * sizeof(element)` bytes from its pointer, and they
/// must be live memory of the launching device. A failed check is
/// `CUDA_ERROR_ILLEGAL_ADDRESS` (what the kernel would have hit on a GPU),
/// and the kernel does not run.
pub fn run(d: &mut Driver, ctx: usize, l: &Launch) -> Result<(), CuResult> {
    let name = &l.kernel.sig.name;
    if d.config.faults.illegal_address {
        eprintln!("gpujit-driver-double: kernel `{name}`: injected fault (GPUJIT_DOUBLE_FAIL=illegal-address)");
        return Err(CUDA_ERROR_ILLEGAL_ADDRESS);
    }
    let device = d
        .contexts
        .get(&ctx)
        .map(|c| c.device)
        .ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
    for (idx, p) in l.kernel.sig.params.iter().enumerate() {
        let CType::Pointer { size, .. } = p.ty else { continue };
        let ptr = l.args[idx];
        let count = p
            .dims
            .iter()
            .try_fold(1u64, |acc, &i| acc.checked_mul(l.args[i]))
            .unwrap_or(u64::MAX);
        // A pointer without extents must still hold one element.
        let count = if p.dims.is_empty() { 1 } else { count };
        let bytes = usize::try_from(count.saturating_mul(size as u64)).unwrap_or(usize::MAX);
        if let Err(bad) = d.memory.check(ptr, bytes, false, Some(device)) {
            let dims: Vec<u64> = p.dims.iter().map(|&i| l.args[i]).collect();
            eprintln!(
                "gpujit-driver-double: kernel `{name}`: argument `{}` = {ptr:#x} with extents {dims:?} \
                 ({bytes} bytes) {bad}: CUDA_ERROR_ILLEGAL_ADDRESS",
                p.name
            );
            return Err(CUDA_ERROR_ILLEGAL_ADDRESS);
        }
    }
    let mut slots = l.args.clone();
    let mut ptrs: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast::<c_void>()).collect();
    let threads = d.config.threads;
    let guards = d.memory.guard_table();
    let mut fault = 0u64;
    // SAFETY: the launcher was generated for this signature: it reads one
    // value of each parameter's C type from each slot (8 bytes, aligned, the
    // value at its start on this little-endian host); every pointer argument
    // was checked above to cover the elements its extents allow the kernel to
    // read; an access past an array's end reaches a guard page, which the
    // launcher turns into a fault of the launch (see `memory`), and the guard
    // table it searches (`guards.len() / 2` pairs) stays unchanged and alive
    // while it runs, as does all memory: we hold the driver lock. `fault` is
    // valid for one write.
    let r = unsafe {
        (l.kernel.launch)(
            l.grid.as_ptr(),
            l.block.as_ptr(),
            ptrs.as_mut_ptr(),
            threads,
            guards.as_ptr(),
            (guards.len() / 2) as u64,
            &mut fault,
        )
    };
    match r {
        0 => Ok(()),
        // `__trap()`: on a GPU an unspecified launch failure, sticky for the context.
        2 => {
            eprintln!("gpujit-driver-double: kernel `{name}`: a thread executed __trap(): CUDA_ERROR_LAUNCH_FAILED");
            Err(CUDA_ERROR_LAUNCH_FAILED)
        }
        // A guard page: on a GPU an access to unmapped memory, sticky too.
        3 => {
            eprintln!(
                "gpujit-driver-double: kernel `{name}`: a thread accessed {fault:#x}, {}: CUDA_ERROR_ILLEGAL_ADDRESS",
                describe_fault(d, l, fault)
            );
            Err(CUDA_ERROR_ILLEGAL_ADDRESS)
        }
        _ => {
            eprintln!("gpujit-driver-double: kernel `{name}`: the host could not start its threads");
            Err(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        }
    }
}

/// Where a faulting address lies: how far past the end (or before the
/// start) of which allocation, and the array arguments that point into it.
fn describe_fault(d: &Driver, l: &Launch, addr: u64) -> String {
    let Some(hit) = d.memory.guard_hit(addr) else {
        return "in a guard page".to_string();
    };
    let args: Vec<String> = l
        .kernel
        .sig
        .params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            matches!(p.ty, CType::Pointer { .. }) && (hit.base..=hit.base + hit.size as u64).contains(&l.args[*i])
        })
        .map(|(_, p)| format!("`{}`", p.name))
        .collect();
    let whose = match args.len() {
        0 => String::new(),
        1 => format!(", argument {}", args[0]),
        _ => format!(", arguments {}", args.join(", ")),
    };
    if hit.after {
        format!(
            "offset {} of the {}-byte allocation at {:#x}, past its end{whose}",
            hit.distance + hit.size as u64,
            hit.size,
            hit.base
        )
    } else {
        format!(
            "{} bytes before the {}-byte allocation at {:#x}{whose}",
            hit.distance, hit.size, hit.base
        )
    }
}

/// Copies the argument values out of `kernelParams`.
///
/// # Safety
/// `params` holds one valid pointer per parameter of `kernel`, each to a
/// value of that parameter's C type (CUDA's contract for `kernelParams`).
unsafe fn read_args(kernel: &Kernel, params: *mut *mut c_void) -> Result<Vec<u64>, CuResult> {
    let n = kernel.sig.params.len();
    if n > 0 && params.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let mut args = Vec::with_capacity(n);
    for (i, p) in kernel.sig.params.iter().enumerate() {
        // SAFETY: `params` has `n` entries by the caller's contract.
        let v = unsafe { *params.add(i) };
        if v.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut slot = [0u8; 8];
        // SAFETY: `v` points to a value of `p.size()` bytes (caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(v.cast::<u8>(), slot.as_mut_ptr(), p.size()) };
        if matches!(p.ty, CType::Scalar { name: "bool", .. }) {
            // Only 0 and 1 are `bool`s in C++; normalise as the GPU's `setp.ne` would read it.
            slot[0] = (slot[0] != 0) as u8;
        }
        args.push(u64::from_le_bytes(slot));
    }
    Ok(args)
}

/// `cuLaunchKernel`. Errors: `CUDA_ERROR_INVALID_VALUE` for a grid or block
/// outside CUDA's limits, dynamic shared memory over the function's limit
/// (48 KiB unless raised by `cuFuncSetAttribute`), a null argument pointer or
/// a non-null `extra`; `CUDA_ERROR_INVALID_HANDLE` for an unknown function;
/// `CUDA_ERROR_ILLEGAL_ADDRESS` (sticky) when an array argument does not
/// cover its extents in live memory of this device or the kernel touches the
/// guard page of an allocation (reads or writes past an array's end),
/// reported by this call or, with `GPUJIT_DOUBLE_DEFER=1`, by the next
/// synchronization; `CUDA_ERROR_LAUNCH_FAILED` (sticky) for a `__trap()`.
///
/// # Safety
/// `params` as CUDA requires: one pointer per kernel parameter, each to a
/// value of the parameter's type.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernel(
    f: *mut c_void,
    grid_x: u32,
    grid_y: u32,
    grid_z: u32,
    block_x: u32,
    block_y: u32,
    block_z: u32,
    shared_mem_bytes: u32,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    entry("cuLaunchKernel", |d| {
        let s = d.stream(stream as usize)?;
        let func = d.function(f as usize)?;
        let kernel = func.kernel.clone();
        let name = &kernel.sig.name;
        let module_ctx = d.modules.get(&func.module).map(|m| m.ctx);
        if module_ctx != Some(d.streams[&s].ctx) {
            eprintln!("gpujit-driver-double: kernel `{name}`: its module belongs to another context");
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let (grid, block) = ([grid_x, grid_y, grid_z], [block_x, block_y, block_z]);
        if let Err(why) = check_config(grid, block) {
            eprintln!("gpujit-driver-double: kernel `{name}`: {why}: CUDA_ERROR_INVALID_VALUE");
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if shared_mem_bytes as usize > func.max_dynamic_shared {
            eprintln!(
                "gpujit-driver-double: kernel `{name}`: {shared_mem_bytes} bytes of dynamic shared memory, \
                 more than its limit {} (raise it with cuFuncSetAttribute)",
                func.max_dynamic_shared
            );
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if !extra.is_null() {
            eprintln!("gpujit-driver-double: kernel `{name}`: `extra` is not supported; pass kernelParams");
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: forwarded contract of `params`.
        let args = unsafe { read_args(&kernel, params) }?;
        d.enqueue(
            s,
            Op::Launch(Box::new(Launch {
                kernel,
                grid,
                block,
                args,
            })),
        )
    })
}

/// `cuLaunchCooperativeKernel`: grid-wide sync is not modelled: `CUDA_ERROR_NOT_SUPPORTED`.
#[no_mangle]
pub extern "C" fn cuLaunchCooperativeKernel(
    _f: *mut c_void,
    _gx: u32,
    _gy: u32,
    _gz: u32,
    _bx: u32,
    _by: u32,
    _bz: u32,
    _shared: u32,
    _stream: *mut c_void,
    _params: *mut *mut c_void,
) -> CuResult {
    entry("cuLaunchCooperativeKernel", |_| Err(CUDA_ERROR_NOT_SUPPORTED))
}

// ------------------------------------------------------------------ occupancy

/// Resident blocks per SM for a block size (sm_90: 2048 threads, 32 blocks,
/// 228 KiB shared memory with 1 KiB reserved per block).
fn blocks_per_sm(block_size: i32, dynamic_smem: usize) -> i32 {
    if block_size <= 0 || block_size > 1024 {
        return 0;
    }
    let warps = (block_size + 31) / 32;
    let by_threads = 64 / warps;
    let by_smem = (228 << 10) / (dynamic_smem + 1024);
    by_threads.min(32).min(by_smem as i32)
}

fn occupancy(
    d: &Driver,
    num_blocks: *mut c_int,
    f: *mut c_void,
    block_size: c_int,
    smem: usize,
) -> Result<(), CuResult> {
    d.function(f as usize)?;
    if smem > MAX_SHARED_OPTIN {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: out-pointer per the caller's contract; null is rejected.
    unsafe { put(num_blocks, blocks_per_sm(block_size, smem)) }
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
///
/// # Safety
/// `num_blocks` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    f: *mut c_void,
    block_size: c_int,
    smem: usize,
) -> CuResult {
    entry("cuOccupancyMaxActiveBlocksPerMultiprocessor", |d| {
        occupancy(d, num_blocks, f, block_size, smem)
    })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` (flags ignored).
///
/// # Safety
/// `num_blocks` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    num_blocks: *mut c_int,
    f: *mut c_void,
    block_size: c_int,
    smem: usize,
    _flags: u32,
) -> CuResult {
    entry("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", |d| {
        occupancy(d, num_blocks, f, block_size, smem)
    })
}

type B2DSize = Option<unsafe extern "C" fn(c_int) -> usize>;

fn potential(
    d: &Driver,
    min_grid: *mut c_int,
    block: *mut c_int,
    f: *mut c_void,
    to_smem: B2DSize,
    smem: usize,
    limit: c_int,
) -> Result<(), CuResult> {
    d.function(f as usize)?;
    let limit = if limit <= 0 { 1024 } else { limit.min(1024) };
    let mut best = (0, 0); // (active threads per SM, block size)
    let mut size = limit - limit % 32;
    while size > 0 {
        // SAFETY: CUDA's contract: the callback maps a block size to bytes of dynamic shared memory.
        let s = to_smem.map_or(smem, |cb| unsafe { cb(size) });
        let active = blocks_per_sm(size, s) * size;
        if active > best.0 {
            best = (active, size);
        }
        size -= 32;
    }
    let sms = 132;
    // SAFETY: out-pointers per the caller's contract; null is rejected.
    unsafe {
        put(min_grid, if best.1 > 0 { best.0 / best.1 * sms } else { 0 })?;
        put(block, best.1)
    }
}

/// `cuOccupancyMaxPotentialBlockSize`.
///
/// # Safety
/// The out-pointers are null or valid for one write; the callback, if any, is callable.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: *mut c_void,
    to_smem: B2DSize,
    smem: usize,
    limit: c_int,
) -> CuResult {
    entry("cuOccupancyMaxPotentialBlockSize", |d| {
        potential(d, min_grid, block, f, to_smem, smem, limit)
    })
}

/// `cuOccupancyMaxPotentialBlockSizeWithFlags` (flags ignored).
///
/// # Safety
/// As `cuOccupancyMaxPotentialBlockSize`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: *mut c_void,
    to_smem: B2DSize,
    smem: usize,
    limit: c_int,
    _flags: u32,
) -> CuResult {
    entry("cuOccupancyMaxPotentialBlockSizeWithFlags", |d| {
        potential(d, min_grid, block, f, to_smem, smem, limit)
    })
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`.
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    out: *mut usize,
    f: *mut c_void,
    num_blocks: c_int,
    block_size: c_int,
) -> CuResult {
    entry("cuOccupancyAvailableDynamicSMemPerBlock", |d| {
        d.function(f as usize)?;
        if num_blocks <= 0 || blocks_per_sm(block_size, 0) < num_blocks {
            // SAFETY: out-pointer per the caller's contract; null is rejected.
            return unsafe { put(out, 0) };
        }
        let per_block = ((228usize << 10) / num_blocks as usize)
            .saturating_sub(1024)
            .min(MAX_SHARED_OPTIN);
        // SAFETY: as above.
        unsafe { put(out, per_block) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_limits_are_cudas() {
        assert!(check_config([1, 1, 1], [1024, 1, 1]).is_ok());
        assert!(check_config([i32::MAX as u32, 65535, 65535], [32, 32, 1]).is_ok());
        assert!(check_config([1, 1, 1], [1025, 1, 1]).is_err());
        assert!(check_config([1, 1, 1], [64, 32, 1]).is_err());
        assert!(check_config([1, 1, 1], [1, 1, 65]).is_err());
        assert!(check_config([1, 65536, 1], [1, 1, 1]).is_err());
        assert!(check_config([0, 1, 1], [1, 1, 1]).is_err());
    }

    #[test]
    fn occupancy_follows_sm90() {
        assert_eq!(blocks_per_sm(1024, 0), 2);
        assert_eq!(blocks_per_sm(256, 0), 8);
        assert_eq!(blocks_per_sm(32, 0), 32);
        assert_eq!(blocks_per_sm(256, 100 << 10), 2);
        assert_eq!(blocks_per_sm(0, 0), 0);
    }
}
