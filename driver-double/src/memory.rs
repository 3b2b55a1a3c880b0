//! "Device" memory and pinned host memory, both in host RAM.
//!
//! A `CUdeviceptr` is the host address of its allocation, so that the
//! host-compiled kernels can dereference it. Every allocation is in a
//! registry; copies, memsets, frees and launches check their pointers against
//! it and fail with CUDA's error code instead of touching memory that is not
//! a live allocation. Freed blocks go to a quarantine first (up to 256 MiB
//! and 4096 blocks), so that a stale pointer is recognised as freed rather
//! than landing in a newer allocation at the same address.
//!
//! Fresh device memory is filled with `0xA5` bytes, not zeros: `cuMemAlloc`
//! does not clear memory, and a backend that forgets to must not pass here.
//!
//! **Guard pages.** Each device allocation is a mapping of its own,
//! `[guard][data pages][guard]`, with both guards `PROT_NONE` and the buffer
//! placed so that it *ends* exactly where the trailing guard begins. A kernel
//! that reads or writes one element past the end of an array touches the
//! guard; the launcher (`module::RUNNER`) turns that fault into the end of the
//! faulting CUDA thread and the launch fails with `CUDA_ERROR_ILLEGAL_ADDRESS`,
//! as a GPU reports an access to unmapped memory. What is caught and what not:
//! * past the end: every access from the first byte after the buffer up to the
//!   guard's size (the buffer's size rounded up to pages, at least 64 KiB, at
//!   most 1 GiB);
//! * before the start: only accesses more than the slack below it (the
//!   buffer's size rounded up to pages, minus its size: the mapped bytes in
//!   front of it), up to the guard's size further down;
//! * further away: whatever lies there: another allocation's guard (also an
//!   illegal address), other memory (a silent corruption), or nothing (the
//!   process dies: a fault outside a guard page is never hidden).
//!
//! Placing the end at the guard costs CUDA's 256-byte alignment: a buffer is
//! aligned to the largest power of two that divides its size (up to a page).
//! That is 256 bytes or more when the size is a multiple of 256, and always at
//! least the element size of an array of any type (its size is a multiple of
//! it), which is all the emitted kernels rely on. Real GPUs map memory in
//! pages of 64 KiB and more and do not fault on a small overrun at all; the
//! double is stricter on purpose. Only device allocations are guarded: a
//! kernel's `__shared__` arrays (statics of its compiled module), local
//! arrays (its thread's stack) and `__constant__` arrays are not, and neither
//! is pinned host memory (kernels never get it). When the host refuses a
//! mapping (e.g. past the process's limit on mappings) a device allocation
//! falls back to unguarded heap memory, with one note on stderr.

use std::alloc::Layout;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::errors::*;
use crate::state::{entry, put, Driver};
use crate::stream::{HostSrc, Op};

/// The byte fresh device memory is filled with.
pub const FILL: u8 = 0xA5;
const QUARANTINE_BYTES: usize = 256 << 20;
/// Freed blocks kept at most: each guarded one holds three memory mappings,
/// and Linux allows a process 65530 by default.
const QUARANTINE_BLOCKS: usize = 4096;
/// The smallest and largest guard (bytes of address space, no memory).
const GUARD_MIN: usize = 64 << 10;
const GUARD_MAX: usize = 1 << 30;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Host memory owned by one allocation.
enum Block {
    /// Heap memory: pinned host memory, and device memory when no mapping
    /// could be made.
    Heap { ptr: NonNull<u8>, layout: Layout },
    /// Device memory in a mapping of its own: `guard` bytes of `PROT_NONE`,
    /// the data pages, `guard` bytes of `PROT_NONE`; `base` is where the
    /// buffer starts, so that it ends at the trailing guard.
    Guarded {
        map: NonNull<u8>,
        map_len: usize,
        guard: usize,
        base: NonNull<u8>,
    },
}

// SAFETY: `Block` is a uniquely owned allocation (like `Box<[u8]>`); every
// access to its bytes from the driver happens under the driver lock.
unsafe impl Send for Block {}

impl Block {
    fn heap(size: usize, align: usize) -> Option<Block> {
        let layout = Layout::from_size_align(size.max(1), align).ok()?;
        // SAFETY: the layout's size is not zero.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(Block::Heap { ptr, layout })
    }

    /// A guarded mapping for `size` bytes, `None` when the host refuses it.
    fn guarded(size: usize) -> Option<Block> {
        let page = page_size();
        let data = size.max(1).checked_next_multiple_of(page)?;
        let guard = data.clamp(GUARD_MIN, GUARD_MAX).next_multiple_of(page);
        let map_len = guard.checked_mul(2)?.checked_add(data)?;
        // SAFETY: a new private anonymous mapping at an address of the
        // kernel's choosing: no existing memory is affected.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let map = NonNull::new(map.cast::<u8>())?;
        // SAFETY: `[map + guard, map + guard + data)` lies inside the mapping
        // just made (`map_len = 2 * guard + data`), which nothing else uses.
        let data_start = unsafe { map.as_ptr().add(guard) };
        // SAFETY: as above: the data pages of our own mapping.
        if unsafe { libc::mprotect(data_start.cast(), data, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
            // SAFETY: the whole mapping made above, unmapped once.
            unsafe { libc::munmap(map.as_ptr().cast(), map_len) };
            return None;
        }
        // SAFETY: `size <= data`: the buffer's start is inside the data pages.
        let base = NonNull::new(unsafe { data_start.add(data - size) })?;
        Some(Block::Guarded {
            map,
            map_len,
            guard,
            base,
        })
    }

    fn ptr(&self) -> *mut u8 {
        match self {
            Block::Heap { ptr, .. } => ptr.as_ptr(),
            Block::Guarded { base, .. } => base.as_ptr(),
        }
    }

    /// The leading and trailing guard, as `[start, end)` address ranges.
    fn guards(&self) -> Option<[(u64, u64); 2]> {
        match *self {
            Block::Heap { .. } => None,
            Block::Guarded {
                map, map_len, guard, ..
            } => {
                let (start, end) = (map.as_ptr() as u64, map.as_ptr() as u64 + map_len as u64);
                Some([(start, start + guard as u64), (end - guard as u64, end)])
            }
        }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        match *self {
            // SAFETY: allocated in `Block::heap` with this very layout, freed once.
            Block::Heap { ptr, layout } => unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) },
            Block::Guarded { map, map_len, .. } => {
                // SAFETY: the mapping made in `Block::guarded`, unmapped once;
                // no kernel runs (we hold the driver lock) and no pointer into
                // it is used after a free (every use is checked against the
                // registry first).
                unsafe { libc::munmap(map.as_ptr().cast(), map_len) };
            }
        }
    }
}

/// Whether the note about a refused guard mapping was printed.
static UNGUARDED_NOTED: AtomicBool = AtomicBool::new(false);

/// One allocation: device memory (`cuMemAlloc*`) or pinned host memory (`cuMemHostAlloc`).
pub struct Alloc {
    block: Block,
    pub size: usize,
    pub ctx: usize,
    pub device: i32,
    pub pinned: bool,
    /// A `cuMemFreeAsync` of it is queued: a second free is an error.
    pub free_queued: bool,
}

impl Alloc {
    fn base(&self) -> u64 {
        self.block.ptr() as u64
    }
}

/// The registry of live and recently freed allocations.
pub struct Memory {
    live: BTreeMap<u64, Alloc>,
    quarantine: VecDeque<Alloc>,
    quarantined: usize,
    /// Bytes in use per device, against `capacity`.
    used: HashMap<i32, usize>,
    pub capacity: usize,
    /// The guard pages of the live allocations, sorted `[start, end)` pairs
    /// flattened (what the launcher's fault handler searches); `None` after
    /// an allocation or free, until the next launch asks.
    guard_table: Option<Vec<u64>>,
}

/// A fault address in the guard of a live allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardHit {
    pub base: u64,
    pub size: usize,
    /// Bytes from the buffer's end to the address (`false`: from the address
    /// to the buffer's start).
    pub after: bool,
    pub distance: u64,
}

/// How a checked range failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    /// Not in any allocation the double made.
    Unknown,
    /// In an allocation that was freed.
    Freed,
    /// In a live allocation, but the range runs past its end (by how many bytes).
    TooShort(usize),
    /// Device memory where host memory was expected, or the other way round.
    WrongKind,
    /// Memory of another device.
    OtherDevice(i32),
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bad::Unknown => write!(f, "is not in any allocation"),
            Bad::Freed => write!(f, "points into freed memory"),
            Bad::TooShort(n) => write!(f, "runs {n} bytes past the end of its allocation"),
            Bad::WrongKind => write!(f, "is the wrong kind of memory (device vs. pinned host)"),
            Bad::OtherDevice(d) => write!(f, "is memory of device {d}"),
        }
    }
}

impl Memory {
    pub fn new(capacity: usize) -> Memory {
        Memory {
            live: BTreeMap::new(),
            quarantine: VecDeque::new(),
            quarantined: 0,
            used: HashMap::new(),
            capacity,
            guard_table: None,
        }
    }

    /// A new allocation of `size` bytes; `CUDA_ERROR_OUT_OF_MEMORY` past the
    /// device's capacity or when the host has no memory.
    pub fn alloc(&mut self, ctx: usize, device: i32, size: usize, pinned: bool) -> Result<u64, CuResult> {
        let used = self.used.get(&device).copied().unwrap_or(0);
        if !pinned && size > self.capacity.saturating_sub(used) {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        if size > isize::MAX as usize / 2 {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        let block = if pinned {
            Block::heap(size, 4096)
        } else {
            Block::guarded(size).or_else(|| {
                if !UNGUARDED_NOTED.swap(true, Ordering::Relaxed) {
                    eprintln!(
                        "gpujit-driver-double: cannot map guard pages ({}); device allocations \
                         without them are not checked for out-of-bounds accesses",
                        std::io::Error::last_os_error()
                    );
                }
                Block::heap(size, 256)
            })
        }
        .ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
        self.guard_table = None;
        if !pinned {
            // SAFETY: the block holds at least `size` bytes from its start.
            unsafe { std::ptr::write_bytes(block.ptr(), FILL, size) };
            *self.used.entry(device).or_default() += size;
        }
        let a = Alloc {
            block,
            size,
            ctx,
            device,
            pinned,
            free_queued: false,
        };
        let base = a.base();
        self.live.insert(base, a);
        Ok(base)
    }

    /// The live allocation holding address `p` (its end counts, for empty ranges).
    fn containing(&self, p: u64) -> Option<&Alloc> {
        let (_, a) = self.live.range(..=p).next_back()?;
        (p <= a.base() + a.size as u64).then_some(a)
    }

    fn was_freed(&self, p: u64) -> bool {
        self.quarantine
            .iter()
            .any(|a| (a.base()..=a.base() + a.size as u64).contains(&p))
    }

    /// Checks that `[p, p + len)` lies in one live allocation of the given
    /// kind (and device, when given). An empty range needs no memory.
    pub fn check(&self, p: u64, len: usize, pinned: bool, device: Option<i32>) -> Result<(), Bad> {
        if len == 0 {
            return Ok(());
        }
        let Some(a) = self.containing(p) else {
            return Err(if self.was_freed(p) { Bad::Freed } else { Bad::Unknown });
        };
        if a.pinned != pinned {
            return Err(Bad::WrongKind);
        }
        if let Some(d) = device {
            if a.device != d {
                return Err(Bad::OtherDevice(a.device));
            }
        }
        let end = a.base() + a.size as u64;
        match p.checked_add(len as u64) {
            Some(e) if e <= end => Ok(()),
            Some(e) => Err(Bad::TooShort((e - end) as usize)),
            None => Err(Bad::TooShort(usize::MAX)),
        }
    }

    /// Whether `[p, p + len)` is pinned host memory the double allocated.
    pub fn is_pinned(&self, p: u64, len: usize) -> bool {
        len > 0 && self.check(p, len, true, None).is_ok()
    }

    /// Marks a device allocation's asynchronous free as queued; it must be
    /// the base address of a live allocation not already being freed.
    pub fn queue_free(&mut self, base: u64) -> Result<(), CuResult> {
        match self.live.get_mut(&base) {
            Some(a) if !a.pinned && !a.free_queued => {
                a.free_queued = true;
                Ok(())
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    }

    /// Frees the allocation at `base` (of the given kind) into the quarantine.
    pub fn free(&mut self, base: u64, pinned: bool) -> Result<(), CuResult> {
        match self.live.get(&base) {
            Some(a) if a.pinned == pinned => {}
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        }
        let a = self.live.remove(&base).expect("checked above");
        self.guard_table = None;
        if !a.pinned {
            if let Some(u) = self.used.get_mut(&a.device) {
                *u -= a.size;
            }
        }
        self.quarantined += a.size;
        self.quarantine.push_back(a);
        while self.quarantined > QUARANTINE_BYTES || self.quarantine.len() > QUARANTINE_BLOCKS {
            match self.quarantine.pop_front() {
                Some(old) => self.quarantined -= old.size,
                None => break,
            }
        }
        Ok(())
    }

    /// Frees everything a context owned (the context ends).
    pub fn free_context(&mut self, ctx: usize) {
        let bases: Vec<(u64, bool)> = self
            .live
            .values()
            .filter(|a| a.ctx == ctx)
            .map(|a| (a.base(), a.pinned))
            .collect();
        for (b, pinned) in bases {
            let _ = self.free(b, pinned);
        }
    }

    /// The guard pages of every live allocation, sorted `[start, end)` pairs
    /// flattened into one slice.
    pub fn guard_table(&mut self) -> &[u64] {
        let live = &self.live;
        self.guard_table.get_or_insert_with(|| {
            // Allocations do not overlap and each one's guards lie inside its
            // own mapping, so their order by base is the guards' order.
            live.values()
                .filter_map(|a| a.block.guards())
                .flatten()
                .flat_map(|(start, end)| [start, end])
                .collect()
        })
    }

    /// The live allocation whose guard holds address `p`.
    pub fn guard_hit(&self, p: u64) -> Option<GuardHit> {
        self.live.values().find_map(|a| {
            let [lead, trail] = a.block.guards()?;
            let hit = |after, distance| GuardHit {
                base: a.base(),
                size: a.size,
                after,
                distance,
            };
            if (lead.0..lead.1).contains(&p) {
                Some(hit(false, a.base() - p))
            } else if (trail.0..trail.1).contains(&p) {
                Some(hit(true, p - (a.base() + a.size as u64)))
            } else {
                None
            }
        })
    }

    /// `(free, total)` bytes of a device.
    pub fn info(&self, device: i32) -> (usize, usize) {
        let used = self.used.get(&device).copied().unwrap_or(0);
        (self.capacity.saturating_sub(used), self.capacity)
    }
}

// ------------------------------------------------------------------ entry points

fn device_of(d: &Driver, ctx: usize) -> Result<i32, CuResult> {
    d.context(ctx).map(|c| c.device)
}

fn alloc_device(d: &mut Driver, size: usize) -> Result<u64, CuResult> {
    let ctx = d.current()?;
    let device = device_of(d, ctx)?;
    if d.config.faults.oom {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    d.memory.alloc(ctx, device, size, false)
}

/// `cuMemAlloc_v2`: `bytesize` 0 is `CUDA_ERROR_INVALID_VALUE`, as in CUDA.
///
/// # Safety
/// `dptr` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, bytesize: usize) -> CuResult {
    entry("cuMemAlloc_v2", |d| {
        if bytesize == 0 || dptr.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let p = alloc_device(d, bytesize)?;
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(dptr, p) }
    })
}

/// `cuMemAllocAsync`: the allocation exists when the call returns (a valid
/// stream order); `bytesize` 0 gives a distinct empty allocation.
///
/// # Safety
/// `dptr` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(dptr: *mut u64, bytesize: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemAllocAsync", |d| {
        if dptr.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        d.stream(stream as usize)?;
        let p = alloc_device(d, bytesize)?;
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(dptr, p) }
    })
}

/// `cuMemFree_v2`: synchronizes the context first, as CUDA does.
#[no_mangle]
pub extern "C" fn cuMemFree_v2(dptr: u64) -> CuResult {
    entry("cuMemFree_v2", |d| {
        let ctx = d.current()?;
        d.sync_context(ctx)?;
        match d.memory.live.get(&dptr) {
            Some(a) if !a.pinned && !a.free_queued => d.memory.free(dptr, false),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// `cuMemFreeAsync`: the memory is freed when the stream reaches the free.
#[no_mangle]
pub extern "C" fn cuMemFreeAsync(dptr: u64, stream: *mut c_void) -> CuResult {
    entry("cuMemFreeAsync", |d| {
        let s = d.stream(stream as usize)?;
        d.memory.queue_free(dptr)?;
        d.enqueue(s, Op::Free { ptr: dptr })
    })
}

fn alloc_pinned(d: &mut Driver, pp: *mut *mut c_void, bytesize: usize) -> Result<(), CuResult> {
    let ctx = d.current()?;
    let device = device_of(d, ctx)?;
    if pp.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    if d.config.faults.oom {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    let p = d.memory.alloc(ctx, device, bytesize, true)?;
    // SAFETY: checked non-null; writable by the caller's contract.
    unsafe { put(pp, p as *mut c_void) }
}

/// `cuMemHostAlloc`: page-locked host memory (here: 4 KiB-aligned host memory
/// that copies treat as truly asynchronous).
///
/// # Safety
/// `pp` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, _flags: u32) -> CuResult {
    entry("cuMemHostAlloc", |d| alloc_pinned(d, pp, bytesize))
}

/// `cuMemAllocHost_v2`: as `cuMemHostAlloc` with no flags.
///
/// # Safety
/// `pp` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) -> CuResult {
    entry("cuMemAllocHost_v2", |d| alloc_pinned(d, pp, bytesize))
}

/// `cuMemFreeHost`: synchronizes the context first (queued copies may use it).
#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CuResult {
    entry("cuMemFreeHost", |d| {
        let ctx = d.current()?;
        d.sync_context(ctx)?;
        d.memory.free(p as u64, true)
    })
}

/// `cuMemGetInfo_v2` of the current context's device.
///
/// # Safety
/// `free` and `total` are null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CuResult {
    entry("cuMemGetInfo_v2", |d| {
        let ctx = d.current()?;
        let (f, t) = d.memory.info(device_of(d, ctx)?);
        // SAFETY: out-pointers per the caller's contract; null is rejected.
        unsafe {
            put(free, f)?;
            put(total, t)
        }
    })
}

/// Checks a device range at the call (`CUDA_ERROR_INVALID_VALUE`, as CUDA
/// answers a copy with a pointer it does not know).
fn check_device(d: &Driver, p: u64, len: usize, what: &str) -> Result<(), CuResult> {
    d.memory.check(p, len, false, None).map_err(|bad| {
        eprintln!("gpujit-driver-double: {what}: device pointer {p:#x} (+{len} bytes) {bad}");
        CUDA_ERROR_INVALID_VALUE
    })
}

fn htod(d: &mut Driver, stream: usize, dst: u64, src: *const c_void, n: usize, what: &str) -> Result<(), CuResult> {
    let s = d.stream(stream)?;
    check_device(d, dst, n, what)?;
    if n > 0 && src.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let src = if d.memory.is_pinned(src as u64, n) {
        // Truly asynchronous: read when the stream gets there.
        HostSrc::Pinned(src as u64)
    } else {
        // Pageable memory is staged before the call returns, as CUDA does.
        // SAFETY: the caller guarantees `src` is valid for `n` bytes (CUDA's contract).
        HostSrc::Owned(unsafe { std::slice::from_raw_parts(src.cast::<u8>(), n) }.to_vec())
    };
    d.enqueue(s, Op::HtoD { dst, src, len: n })
}

fn dtoh(d: &mut Driver, stream: usize, dst: *mut c_void, src: u64, n: usize, what: &str) -> Result<(), CuResult> {
    let s = d.stream(stream)?;
    check_device(d, src, n, what)?;
    if n > 0 && dst.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let pinned = d.memory.is_pinned(dst as u64, n);
    d.enqueue(
        s,
        Op::DtoH {
            dst: dst as u64,
            src,
            len: n,
            pinned,
        },
    )?;
    if !pinned {
        // A copy into pageable memory is complete when the call returns.
        d.flush(s)?;
    }
    Ok(())
}

fn dtod(d: &mut Driver, stream: usize, dst: u64, src: u64, n: usize, what: &str) -> Result<(), CuResult> {
    let s = d.stream(stream)?;
    check_device(d, dst, n, what)?;
    check_device(d, src, n, what)?;
    d.enqueue(s, Op::DtoD { dst, src, len: n })
}

/// The synchronous copies run on the legacy default stream, after all other
/// work of the context, and are done when they return.
fn sync_stream(d: &mut Driver) -> Result<usize, CuResult> {
    let ctx = d.current()?;
    d.sync_context(ctx)?;
    Ok(0)
}

/// `cuMemcpyHtoD_v2`.
///
/// # Safety
/// `src` is valid for `n` bytes (CUDA's contract).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, n: usize) -> CuResult {
    entry("cuMemcpyHtoD_v2", |d| {
        let s = sync_stream(d)?;
        htod(d, s, dst, src, n, "cuMemcpyHtoD")?;
        d.flush(d.stream(s)?)
    })
}

/// `cuMemcpyDtoH_v2`.
///
/// # Safety
/// `dst` is valid for `n` bytes of writes (CUDA's contract).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, n: usize) -> CuResult {
    entry("cuMemcpyDtoH_v2", |d| {
        let s = sync_stream(d)?;
        dtoh(d, s, dst, src, n, "cuMemcpyDtoH")?;
        d.flush(d.stream(s)?)
    })
}

/// `cuMemcpyDtoD_v2`.
#[no_mangle]
pub extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, n: usize) -> CuResult {
    entry("cuMemcpyDtoD_v2", |d| {
        let s = sync_stream(d)?;
        dtod(d, s, dst, src, n, "cuMemcpyDtoD")?;
        d.flush(d.stream(s)?)
    })
}

/// `cuMemcpyHtoDAsync_v2`: pageable `src` is copied before the call returns;
/// pinned `src` is read when the stream reaches the copy.
///
/// # Safety
/// `src` is valid for `n` bytes (CUDA's contract; for pinned memory until the copy ran).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(dst: u64, src: *const c_void, n: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemcpyHtoDAsync_v2", |d| {
        htod(d, stream as usize, dst, src, n, "cuMemcpyHtoDAsync")
    })
}

/// `cuMemcpyDtoHAsync_v2`: into pageable `dst` it is complete when it
/// returns; into pinned `dst` when the stream reaches it.
///
/// # Safety
/// `dst` is valid for `n` bytes of writes (CUDA's contract).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: u64, n: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemcpyDtoHAsync_v2", |d| {
        dtoh(d, stream as usize, dst, src, n, "cuMemcpyDtoHAsync")
    })
}

/// `cuMemcpyDtoDAsync_v2`.
#[no_mangle]
pub extern "C" fn cuMemcpyDtoDAsync_v2(dst: u64, src: u64, n: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemcpyDtoDAsync_v2", |d| {
        dtod(d, stream as usize, dst, src, n, "cuMemcpyDtoDAsync")
    })
}

/// `cuMemcpyPeerAsync`: with unified addressing, a device-to-device copy.
#[no_mangle]
pub extern "C" fn cuMemcpyPeerAsync(
    dst: u64,
    dst_ctx: *mut c_void,
    src: u64,
    src_ctx: *mut c_void,
    n: usize,
    stream: *mut c_void,
) -> CuResult {
    entry("cuMemcpyPeerAsync", |d| {
        d.context(dst_ctx as usize)?;
        d.context(src_ctx as usize)?;
        dtod(d, stream as usize, dst, src, n, "cuMemcpyPeerAsync")
    })
}

fn memset(
    d: &mut Driver,
    stream: usize,
    dst: u64,
    value: u32,
    width: usize,
    count: usize,
    sync: bool,
) -> Result<(), CuResult> {
    let s = if sync { sync_stream(d)? } else { stream };
    let s = d.stream(s)?;
    if width == 4 && dst & 3 != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let len = count.checked_mul(width).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    check_device(d, dst, len, "cuMemset")?;
    d.enqueue(
        s,
        Op::Memset {
            dst,
            value,
            width,
            count,
        },
    )?;
    if sync {
        d.flush(s)?;
    }
    Ok(())
}

/// `cuMemsetD8_v2`.
#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, n: usize) -> CuResult {
    entry("cuMemsetD8_v2", |d| memset(d, 0, dst, value as u32, 1, n, true))
}

/// `cuMemsetD8Async`.
#[no_mangle]
pub extern "C" fn cuMemsetD8Async(dst: u64, value: u8, n: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemsetD8Async", |d| {
        memset(d, stream as usize, dst, value as u32, 1, n, false)
    })
}

/// `cuMemsetD32_v2` (`dst` 4-byte aligned).
#[no_mangle]
pub extern "C" fn cuMemsetD32_v2(dst: u64, value: u32, n: usize) -> CuResult {
    entry("cuMemsetD32_v2", |d| memset(d, 0, dst, value, 4, n, true))
}

/// `cuMemsetD32Async` (`dst` 4-byte aligned).
#[no_mangle]
pub extern "C" fn cuMemsetD32Async(dst: u64, value: u32, n: usize, stream: *mut c_void) -> CuResult {
    entry("cuMemsetD32Async", |d| {
        memset(d, stream as usize, dst, value, 4, n, false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_against_live_allocations() {
        let mut m = Memory::new(1 << 20);
        let a = m.alloc(1, 0, 100, false).unwrap();
        assert_eq!(m.check(a, 100, false, Some(0)), Ok(()));
        assert_eq!(m.check(a + 40, 60, false, None), Ok(()));
        assert_eq!(m.check(a + 40, 61, false, None), Err(Bad::TooShort(1)));
        assert_eq!(m.check(a, 1, false, Some(1)), Err(Bad::OtherDevice(0)));
        assert_eq!(m.check(a, 1, true, None), Err(Bad::WrongKind));
        assert_eq!(m.check(8, 1, false, None), Err(Bad::Unknown));
        assert_eq!(m.check(a + 100, 0, false, None), Ok(()));
        // SAFETY: `a` is a live 100-byte allocation.
        assert_eq!(unsafe { *(a as *const u8).add(99) }, FILL);
        assert_eq!(m.free(a + 1, false), Err(CUDA_ERROR_INVALID_VALUE));
        assert_eq!(m.free(a, true), Err(CUDA_ERROR_INVALID_VALUE));
        m.free(a, false).unwrap();
        assert_eq!(m.check(a + 3, 4, false, None), Err(Bad::Freed));
        assert_eq!(m.free(a, false), Err(CUDA_ERROR_INVALID_VALUE));
    }

    #[test]
    fn capacity_is_enforced_and_returned() {
        let mut m = Memory::new(1000);
        let a = m.alloc(1, 0, 600, false).unwrap();
        assert_eq!(m.alloc(1, 0, 600, false), Err(CUDA_ERROR_OUT_OF_MEMORY));
        assert!(m.alloc(1, 1, 600, false).is_ok(), "capacity is per device");
        assert_eq!(m.info(0), (400, 1000));
        m.free(a, false).unwrap();
        assert_eq!(m.info(0), (1000, 1000));
        let p = m.alloc(7, 0, 10, true).unwrap();
        assert!(m.is_pinned(p + 2, 8) && !m.is_pinned(p + 2, 9));
        m.free_context(7);
        assert!(!m.is_pinned(p, 1));
    }

    #[test]
    fn device_buffers_end_at_a_guard_page() {
        let mut m = Memory::new(1 << 30);
        let page = page_size() as u64;
        for (size, align) in [(40usize, 8u64), (3, 1), (1024, 1024), (4096, 4096), (10_000, 16)] {
            let a = m.alloc(1, 0, size, false).unwrap();
            assert_eq!(a % align, 0, "{size} bytes at {a:#x}");
            let table = m.guard_table().to_vec();
            let end = a + size as u64;
            // The trailing guard starts at the buffer's end.
            assert!(table.chunks(2).any(|g| g[0] == end && g[1] > end), "{table:x?}");
            assert_eq!(
                m.guard_hit(end),
                Some(GuardHit {
                    base: a,
                    size,
                    after: true,
                    distance: 0
                })
            );
            assert_eq!(m.guard_hit(end - 1), None, "the last byte is data");
            let lead = (a - (a % page)) - 1;
            assert!(matches!(m.guard_hit(lead), Some(GuardHit { after: false, .. })));
            // SAFETY: the first and last byte of a live allocation.
            unsafe {
                assert_eq!(*(a as *const u8), FILL);
                *((end - 1) as *mut u8) = 7;
            }
        }
        let table = m.guard_table().to_vec();
        // Sorted and disjoint (neighbouring mappings may touch).
        assert!(table.windows(2).all(|w| w[0] <= w[1]), "{table:x?}");
        assert!(table.chunks(2).all(|g| g[0] < g[1]), "{table:x?}");
        assert_eq!(table.len(), 5 * 4);
        // Pinned memory has none; a free drops the allocation's guards.
        let p = m.alloc(1, 0, 40, true).unwrap();
        assert_eq!(m.guard_hit(p + 40), None);
        let first = m.live.keys().copied().find(|&b| b != p).unwrap();
        m.free(first, false).unwrap();
        assert_eq!(m.guard_table().len(), 4 * 4);
        m.free_context(1);
        assert!(m.guard_table().is_empty());
    }
}
