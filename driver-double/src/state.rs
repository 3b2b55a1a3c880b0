//! The driver's state: one process-wide [`Driver`] behind a mutex, the
//! configuration read from the environment once, handles, contexts and the
//! calling thread's context stack.
//!
//! Every entry point runs inside [`entry`], which takes the lock, so the
//! double is thread-safe the simple way: one driver call at a time, and the
//! work a call runs (copies, kernels) runs under the lock too. That also means
//! no memory is freed while a kernel or copy is using it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::errors::*;
use crate::memory::Memory;
use crate::module::{Function, Module};
use crate::stream::{Event, Stream};

/// What the environment asked for, read at the first driver call.
#[derive(Debug, Clone)]
pub struct Config {
    /// `GPUJIT_DOUBLE_DEVICES` (default 1).
    pub devices: i32,
    /// `GPUJIT_DOUBLE_SM`, e.g. `86` (default 90: compute capability 9.0).
    pub sm: i32,
    /// `GPUJIT_DOUBLE_MEMORY`: bytes of "device" memory per device (default 16 GiB).
    pub memory: usize,
    /// `GPUJIT_DOUBLE_DEFER=1`: stream work waits until something synchronizes.
    pub defer: bool,
    /// `GPUJIT_DOUBLE_THREADS`: threads that run a kernel's blocks (default: cores, at most 8).
    pub threads: u32,
    /// `GPUJIT_DOUBLE_FAIL`.
    pub faults: Faults,
}

impl Config {
    fn from_env() -> Config {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let num = |name: &str| {
            var(name).and_then(|v| match v.trim().parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    eprintln!("gpujit-driver-double: {name}={v:?} is not a number; ignored");
                    None
                }
            })
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        Config {
            devices: num("GPUJIT_DOUBLE_DEVICES").unwrap_or(1).min(64) as i32,
            sm: num("GPUJIT_DOUBLE_SM").unwrap_or(90).clamp(10, 999) as i32,
            memory: num("GPUJIT_DOUBLE_MEMORY").unwrap_or(16 << 30) as usize,
            defer: var("GPUJIT_DOUBLE_DEFER").is_some_and(|v| v != "0"),
            threads: num("GPUJIT_DOUBLE_THREADS").unwrap_or(cores.min(8)).clamp(1, 256) as u32,
            faults: Faults::parse(&var("GPUJIT_DOUBLE_FAIL").unwrap_or_default()),
        }
    }
}

/// One context: the primary context of a device, or one made by `cuCtxCreate`.
#[derive(Debug)]
pub struct Context {
    pub device: i32,
    pub primary: bool,
    /// Retains of a primary context; a released primary context is inactive
    /// until retained again (its handle stays the same, as CUDA's does).
    pub refs: u32,
    /// An error that every later call in this context returns
    /// (`CUDA_ERROR_ILLEGAL_ADDRESS` after a faulting kernel).
    pub sticky: Option<CuResult>,
    /// The legacy default stream (`NULL`, `CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD`).
    pub default_stream: usize,
    pub limits: HashMap<u32, usize>,
    pub cache_config: u32,
}

/// Everything the double knows. Handles are keys into these maps.
pub struct Driver {
    pub config: Config,
    pub initialized: bool,
    next_handle: usize,
    /// The primary context of each device (created at `cuInit`).
    pub primary: Vec<usize>,
    pub contexts: HashMap<usize, Context>,
    pub streams: HashMap<usize, Stream>,
    pub events: HashMap<usize, Event>,
    pub modules: HashMap<usize, Module>,
    pub functions: HashMap<usize, Function>,
    pub memory: Memory,
}

static DRIVER: LazyLock<Mutex<Driver>> = LazyLock::new(|| {
    let config = Config::from_env();
    Mutex::new(Driver {
        memory: Memory::new(config.memory),
        config,
        initialized: false,
        next_handle: 0x1000,
        primary: Vec::new(),
        contexts: HashMap::new(),
        streams: HashMap::new(),
        events: HashMap::new(),
        modules: HashMap::new(),
        functions: HashMap::new(),
    })
});

thread_local! {
    /// The calling thread's context stack; the last entry is the current context.
    static CURRENT: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Locks the driver (a panic in an earlier call does not poison it for good:
/// the state is only changed by complete steps).
pub fn lock() -> MutexGuard<'static, Driver> {
    DRIVER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the body of the entry point `name` under the lock and turns its
/// outcome into a `CUresult`; injects `unsupported:<name>`.
pub fn entry(name: &str, body: impl FnOnce(&mut Driver) -> Result<(), CuResult>) -> CuResult {
    let mut d = lock();
    if d.config.faults.unsupported.iter().any(|n| n == name) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    match body(&mut d) {
        Ok(()) => CUDA_SUCCESS,
        Err(code) => code,
    }
}

/// Writes `value` through the out-pointer `out`, or fails with `CUDA_ERROR_INVALID_VALUE` when it is null.
///
/// # Safety
/// `out` is null or valid for one write of `T`.
pub unsafe fn put<T>(out: *mut T, value: T) -> Result<(), CuResult> {
    if out.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-null and, by the caller's contract, writable; `write` does not drop the old value (plain data).
    unsafe { out.write(value) };
    Ok(())
}

/// The current context's handle, or 0.
pub fn current_handle() -> usize {
    CURRENT.with(|c| c.borrow().last().copied().unwrap_or(0))
}

/// `cuCtxSetCurrent`: replaces the top of the stack (0 pops it).
pub fn set_current(ctx: usize) {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        c.pop();
        if ctx != 0 {
            c.push(ctx);
        }
    })
}

pub fn push_current(ctx: usize) {
    CURRENT.with(|c| c.borrow_mut().push(ctx))
}

pub fn pop_current() -> usize {
    CURRENT.with(|c| c.borrow_mut().pop().unwrap_or(0))
}

impl Driver {
    /// A fresh handle, never 0, 1 or 2 (CUDA's special stream handles).
    pub fn handle(&mut self) -> usize {
        self.next_handle += 16;
        self.next_handle
    }

    /// `CUDA_ERROR_NOT_INITIALIZED` before a successful `cuInit`.
    pub fn initialized(&self) -> Result<(), CuResult> {
        if self.initialized {
            Ok(())
        } else {
            Err(CUDA_ERROR_NOT_INITIALIZED)
        }
    }

    /// A device ordinal that exists.
    pub fn device(&self, dev: i32) -> Result<i32, CuResult> {
        self.initialized()?;
        if (0..self.config.devices).contains(&dev) {
            Ok(dev)
        } else {
            Err(CUDA_ERROR_INVALID_DEVICE)
        }
    }

    /// A live context by handle, with its sticky error.
    pub fn context(&self, ctx: usize) -> Result<&Context, CuResult> {
        self.initialized()?;
        let c = self.contexts.get(&ctx).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if c.refs == 0 {
            return Err(CUDA_ERROR_CONTEXT_IS_DESTROYED);
        }
        match c.sticky {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }

    /// The calling thread's current context (`CUDA_ERROR_INVALID_CONTEXT` when none).
    pub fn current(&self) -> Result<usize, CuResult> {
        self.initialized()?;
        let ctx = current_handle();
        if ctx == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        self.context(ctx).map(|_| ctx)
    }

    /// Makes `ctx`'s error sticky (the first one stays).
    pub fn poison(&mut self, ctx: usize, code: CuResult) {
        if let Some(c) = self.contexts.get_mut(&ctx) {
            c.sticky.get_or_insert(code);
        }
    }

    /// A new context on `device` with its default stream.
    pub fn new_context(&mut self, device: i32, primary: bool, refs: u32) -> usize {
        let ctx = self.handle();
        let default_stream = self.handle();
        self.streams.insert(default_stream, Stream::new(ctx));
        self.contexts.insert(
            ctx,
            Context {
                device,
                primary,
                refs,
                sticky: None,
                default_stream,
                limits: HashMap::new(),
                cache_config: 0,
            },
        );
        ctx
    }

    /// Ends a context's life: runs its queued work, then drops its streams,
    /// events, modules and memory (CUDA frees them with the context). A
    /// primary context's handle stays, inactive, for the next retain.
    pub fn retire_context(&mut self, ctx: usize) {
        let streams: Vec<usize> = self
            .streams
            .iter()
            .filter(|(_, s)| s.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        for s in &streams {
            let _ = self.flush(*s);
        }
        let default_stream = self.contexts.get(&ctx).map(|c| c.default_stream);
        self.streams.retain(|h, s| s.ctx != ctx || Some(*h) == default_stream);
        self.events.retain(|_, e| e.ctx != ctx);
        let modules: Vec<usize> = self
            .modules
            .iter()
            .filter(|(_, m)| m.ctx == ctx)
            .map(|(h, _)| *h)
            .collect();
        for m in modules {
            self.modules.remove(&m);
            self.functions.retain(|_, f| f.module != m);
        }
        self.memory.free_context(ctx);
        match self.contexts.get_mut(&ctx) {
            Some(c) if c.primary => {
                c.refs = 0;
                c.sticky = None;
                c.limits.clear();
            }
            _ => {
                self.contexts.remove(&ctx);
                if let Some(s) = default_stream {
                    self.streams.remove(&s);
                }
            }
        }
    }
}
