//! Streams and events.
//!
//! Each stream runs its work in order. By default an operation runs when it
//! is enqueued (a valid CUDA schedule). With `GPUJIT_DOUBLE_DEFER=1` it waits
//! in the stream's queue until something needs it: a synchronize, a query, a
//! wait on an event recorded behind it, a free that synchronizes, or a copy
//! into pageable memory on the same stream. Then a backend that lets go of a
//! buffer (pinned host memory, kernel arguments) before the stream used it
//! reads wrong data in tests, as it would on a GPU.
//!
//! Every queued operation's own dependencies on other streams were met when it
//! was enqueued (waits run the awaited stream at once), so running any queue
//! early is always a valid schedule.

use std::collections::VecDeque;
use std::ffi::c_void;
use std::time::Instant;

use crate::errors::*;
use crate::launch::Launch;
use crate::state::{entry, put, Driver};

/// `CU_STREAM_NON_BLOCKING`: no implicit ordering with the legacy default stream.
const CU_STREAM_NON_BLOCKING: u32 = 1;
/// `CU_EVENT_DISABLE_TIMING`.
const CU_EVENT_DISABLE_TIMING: u32 = 2;

/// Where a host-to-device copy reads from.
pub enum HostSrc {
    /// Pageable memory, copied when the call was made.
    Owned(Vec<u8>),
    /// Pinned memory, read when the copy runs.
    Pinned(u64),
}

/// One piece of stream work.
pub enum Op {
    HtoD {
        dst: u64,
        src: HostSrc,
        len: usize,
    },
    DtoH {
        dst: u64,
        src: u64,
        len: usize,
        pinned: bool,
    },
    DtoD {
        dst: u64,
        src: u64,
        len: usize,
    },
    Memset {
        dst: u64,
        value: u32,
        width: usize,
        count: usize,
    },
    Launch(Box<Launch>),
    Free {
        ptr: u64,
    },
    Record {
        event: usize,
        generation: u64,
    },
    Host {
        f: unsafe extern "C" fn(*mut c_void),
        data: usize,
    },
}

pub struct Stream {
    pub ctx: usize,
    pub flags: u32,
    pub priority: i32,
    queue: VecDeque<Op>,
}

impl Stream {
    pub fn new(ctx: usize) -> Stream {
        Stream {
            ctx,
            flags: 0,
            priority: 0,
            queue: VecDeque::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventState {
    Unrecorded,
    Pending { stream: usize },
    Done(Instant),
}

pub struct Event {
    pub ctx: usize,
    pub flags: u32,
    /// Counts records: only the latest record completes the event.
    pub generation: u64,
    pub state: EventState,
}

impl Driver {
    /// Resolves a stream handle: `NULL`, `CU_STREAM_LEGACY` (1) and
    /// `CU_STREAM_PER_THREAD` (2) are the current context's default stream.
    pub fn stream(&self, h: usize) -> Result<usize, CuResult> {
        let s = if h <= 2 {
            let ctx = self.current()?;
            self.contexts[&ctx].default_stream
        } else {
            h
        };
        let stream = self.streams.get(&s).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        self.context(stream.ctx)?;
        Ok(s)
    }

    fn is_default(&self, s: usize) -> bool {
        self.streams
            .get(&s)
            .is_some_and(|st| self.contexts.get(&st.ctx).is_some_and(|c| c.default_stream == s))
    }

    /// Adds `op` to stream `s` (resolved), or runs it now when not deferring.
    pub fn enqueue(&mut self, s: usize, op: Op) -> Result<(), CuResult> {
        let ctx = self.streams[&s].ctx;
        self.context(ctx)?;
        // The legacy default stream and blocking streams wait for each other.
        let others: Vec<usize> = if self.is_default(s) {
            self.streams
                .iter()
                .filter(|(h, st)| st.ctx == ctx && **h != s && st.flags & CU_STREAM_NON_BLOCKING == 0)
                .map(|(h, _)| *h)
                .collect()
        } else if self.streams[&s].flags & CU_STREAM_NON_BLOCKING == 0 {
            vec![self.contexts[&ctx].default_stream]
        } else {
            Vec::new()
        };
        for o in others {
            self.flush(o)?;
        }
        self.streams.get_mut(&s).expect("resolved").queue.push_back(op);
        if !self.config.defer {
            self.flush(s)?;
        }
        Ok(())
    }

    /// Runs everything queued on stream `s`. The first failure poisons the
    /// context (sticky, as on a GPU) and drops the rest of the queue.
    pub fn flush(&mut self, s: usize) -> Result<(), CuResult> {
        let Some(ctx) = self.streams.get(&s).map(|st| st.ctx) else {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        };
        while let Some(op) = self.streams.get_mut(&s).and_then(|st| st.queue.pop_front()) {
            if let Err(code) = self.execute(ctx, op) {
                self.poison(ctx, code);
                if let Some(st) = self.streams.get_mut(&s) {
                    st.queue.clear();
                }
            }
        }
        self.context(ctx).map(|_| ())
    }

    /// Runs every stream of a context (`cuCtxSynchronize`).
    pub fn sync_context(&mut self, ctx: usize) -> Result<(), CuResult> {
        let streams: Vec<usize> = self
            .streams
            .iter()
            .filter(|(_, s)| s.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        for s in streams {
            let _ = self.flush(s);
        }
        self.context(ctx).map(|_| ())
    }

    fn execute(&mut self, ctx: usize, op: Op) -> Result<(), CuResult> {
        // Pointers were checked when the work was enqueued; they are checked
        // again here because a free may have run in between (a stream-order
        // bug of the caller), which on a GPU is an illegal address.
        let fault = |what: &str, p: u64, bad: crate::memory::Bad| {
            eprintln!("gpujit-driver-double: {what}: {p:#x} {bad} when the stream ran it");
            CUDA_ERROR_ILLEGAL_ADDRESS
        };
        let m = &self.memory;
        match op {
            Op::HtoD { dst, src, len } => {
                m.check(dst, len, false, None)
                    .map_err(|b| fault("copy to device", dst, b))?;
                let from = match &src {
                    HostSrc::Owned(v) => v.as_ptr(),
                    HostSrc::Pinned(p) => {
                        m.check(*p, len, true, None)
                            .map_err(|b| fault("copy from pinned memory", *p, b))?;
                        *p as *const u8
                    }
                };
                // SAFETY: both ranges were just checked (or are our own buffer of `len` bytes).
                unsafe { std::ptr::copy(from, dst as *mut u8, len) };
            }
            Op::DtoH { dst, src, len, pinned } => {
                m.check(src, len, false, None)
                    .map_err(|b| fault("copy from device", src, b))?;
                if pinned {
                    m.check(dst, len, true, None)
                        .map_err(|b| fault("copy to pinned memory", dst, b))?;
                }
                // SAFETY: `src` was just checked; pinned `dst` too; pageable `dst`
                // is valid because such a copy runs before its call returns.
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) };
            }
            Op::DtoD { dst, src, len } => {
                m.check(src, len, false, None)
                    .map_err(|b| fault("copy from device", src, b))?;
                m.check(dst, len, false, None)
                    .map_err(|b| fault("copy to device", dst, b))?;
                // SAFETY: both ranges were just checked; `copy` allows overlap.
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) };
            }
            Op::Memset {
                dst,
                value,
                width,
                count,
            } => {
                m.check(dst, width * count, false, None)
                    .map_err(|b| fault("memset", dst, b))?;
                if width == 1 {
                    // SAFETY: the range was just checked.
                    unsafe { std::ptr::write_bytes(dst as *mut u8, value as u8, count) };
                } else {
                    for i in 0..count {
                        // SAFETY: in the checked range; `dst` is 4-byte aligned (checked at the call).
                        unsafe { (dst as *mut u32).add(i).write(value) };
                    }
                }
            }
            Op::Launch(l) => crate::launch::run(self, ctx, &l)?,
            Op::Free { ptr } => self.memory.free(ptr, false)?,
            Op::Record { event, generation } => {
                if let Some(e) = self.events.get_mut(&event) {
                    if e.generation == generation {
                        e.state = EventState::Done(Instant::now());
                    }
                }
            }
            // SAFETY: CUDA's contract for host functions: `f` may be called
            // with `data` once the stream reaches it (and makes no CUDA call).
            Op::Host { f, data } => unsafe { f(data as *mut c_void) },
        }
        Ok(())
    }

    /// Runs the stream an event waits behind, so that the event is complete.
    fn complete(&mut self, event: usize) -> Result<(), CuResult> {
        let e = self.events.get(&event).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let ctx = e.ctx;
        if let EventState::Pending { stream } = e.state {
            self.flush(stream)?;
        }
        self.context(ctx).map(|_| ())
    }
}

// ------------------------------------------------------------------ entry points

fn create_stream(d: &mut Driver, out: *mut *mut c_void, flags: u32, priority: i32) -> Result<(), CuResult> {
    let ctx = d.current()?;
    if out.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let h = d.handle();
    let mut s = Stream::new(ctx);
    s.flags = flags;
    s.priority = priority;
    d.streams.insert(h, s);
    // SAFETY: checked non-null; writable by the caller's contract.
    unsafe { put(out, h as *mut c_void) }
}

/// `cuStreamCreate`.
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(out: *mut *mut c_void, flags: u32) -> CuResult {
    entry("cuStreamCreate", |d| create_stream(d, out, flags, 0))
}

/// `cuStreamCreateWithPriority` (priorities are kept, not used).
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(out: *mut *mut c_void, flags: u32, priority: i32) -> CuResult {
    entry("cuStreamCreateWithPriority", |d| create_stream(d, out, flags, priority))
}

/// `cuStreamDestroy_v2`: queued work still runs (here: before it returns).
#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(stream: *mut c_void) -> CuResult {
    entry("cuStreamDestroy_v2", |d| {
        let h = stream as usize;
        if h <= 2 || d.is_default(h) {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let s = d.stream(h)?;
        let r = d.flush(s);
        d.streams.remove(&s);
        r
    })
}

/// `cuStreamSynchronize`.
#[no_mangle]
pub extern "C" fn cuStreamSynchronize(stream: *mut c_void) -> CuResult {
    entry("cuStreamSynchronize", |d| {
        let s = d.stream(stream as usize)?;
        d.flush(s)
    })
}

/// `cuStreamQuery`: runs the queue, then reports it complete.
#[no_mangle]
pub extern "C" fn cuStreamQuery(stream: *mut c_void) -> CuResult {
    entry("cuStreamQuery", |d| {
        let s = d.stream(stream as usize)?;
        d.flush(s)
    })
}

/// `cuStreamWaitEvent`: the awaited work runs now (a valid order).
#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(stream: *mut c_void, event: *mut c_void, _flags: u32) -> CuResult {
    entry("cuStreamWaitEvent", |d| {
        d.stream(stream as usize)?;
        d.complete(event as usize)
    })
}

/// `cuStreamIsCapturing`: never (graphs are not supported).
///
/// # Safety
/// `status` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(stream: *mut c_void, status: *mut u32) -> CuResult {
    entry("cuStreamIsCapturing", |d| {
        d.stream(stream as usize)?;
        // SAFETY: out-pointer per the caller's contract. 0 = CU_STREAM_CAPTURE_STATUS_NONE.
        unsafe { put(status, 0) }
    })
}

/// `cuLaunchHostFunc`: `f(data)` runs when the stream reaches it (it must
/// not call the driver, as in CUDA: here that would deadlock).
#[no_mangle]
pub extern "C" fn cuLaunchHostFunc(
    stream: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CuResult {
    entry("cuLaunchHostFunc", |d| {
        let s = d.stream(stream as usize)?;
        let f = f.ok_or(CUDA_ERROR_INVALID_VALUE)?;
        d.enqueue(s, Op::Host { f, data: data as usize })
    })
}

/// `cuEventCreate`.
///
/// # Safety
/// `out` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(out: *mut *mut c_void, flags: u32) -> CuResult {
    entry("cuEventCreate", |d| {
        let ctx = d.current()?;
        if out.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = d.handle();
        d.events.insert(
            h,
            Event {
                ctx,
                flags,
                generation: 0,
                state: EventState::Unrecorded,
            },
        );
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(out, h as *mut c_void) }
    })
}

/// `cuEventRecord`: the event completes when the stream reaches it.
#[no_mangle]
pub extern "C" fn cuEventRecord(event: *mut c_void, stream: *mut c_void) -> CuResult {
    entry("cuEventRecord", |d| {
        let s = d.stream(stream as usize)?;
        let e = d.events.get_mut(&(event as usize)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        e.generation += 1;
        e.state = EventState::Pending { stream: s };
        let generation = e.generation;
        d.enqueue(
            s,
            Op::Record {
                event: event as usize,
                generation,
            },
        )
    })
}

/// `cuEventSynchronize`.
#[no_mangle]
pub extern "C" fn cuEventSynchronize(event: *mut c_void) -> CuResult {
    entry("cuEventSynchronize", |d| d.complete(event as usize))
}

/// `cuEventQuery`: runs the work before the event, then reports it complete.
#[no_mangle]
pub extern "C" fn cuEventQuery(event: *mut c_void) -> CuResult {
    entry("cuEventQuery", |d| d.complete(event as usize))
}

fn elapsed(d: &mut Driver, ms: *mut f32, start: usize, end: usize) -> Result<(), CuResult> {
    let times: Vec<Instant> = [start, end]
        .iter()
        .map(|h| {
            let e = d.events.get(h).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            d.context(e.ctx)?;
            if e.flags & CU_EVENT_DISABLE_TIMING != 0 {
                return Err(CUDA_ERROR_INVALID_HANDLE);
            }
            match e.state {
                EventState::Done(t) => Ok(t),
                EventState::Pending { .. } => Err(CUDA_ERROR_NOT_READY),
                EventState::Unrecorded => Err(CUDA_ERROR_INVALID_HANDLE),
            }
        })
        .collect::<Result<_, _>>()?;
    let v = if times[1] >= times[0] {
        (times[1] - times[0]).as_secs_f64() * 1e3
    } else {
        -((times[0] - times[1]).as_secs_f64() * 1e3)
    };
    // SAFETY: out-pointer per the caller's contract; null is rejected.
    unsafe { put(ms, v as f32) }
}

/// `cuEventElapsedTime`: milliseconds between two completed timing events.
///
/// # Safety
/// `ms` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CuResult {
    entry("cuEventElapsedTime", |d| elapsed(d, ms, start as usize, end as usize))
}

/// `cuEventElapsedTime_v2` (CUDA 12.8+): as `cuEventElapsedTime`.
///
/// # Safety
/// `ms` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, start: *mut c_void, end: *mut c_void) -> CuResult {
    entry("cuEventElapsedTime_v2", |d| {
        elapsed(d, ms, start as usize, end as usize)
    })
}

/// `cuEventDestroy_v2`: a pending record may still complete; nothing waits on it.
#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(event: *mut c_void) -> CuResult {
    entry("cuEventDestroy_v2", |d| {
        d.initialized()?;
        d.events
            .remove(&(event as usize))
            .map(|_| ())
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })
}
