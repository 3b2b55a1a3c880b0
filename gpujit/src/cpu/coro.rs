//! The coroutine path of the CPU backend: each thread of a block is a
//! stackful coroutine (corosensei) and `syncthreads()` suspends it until
//! every live thread of the block reached the barrier. Only kernels the macro
//! cannot split at their barriers (see `block.rs`) run here, or any kernel
//! with barriers under `GPUJIT_CPU_EXEC=coroutines`.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::OnceLock;

use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::cpu::block::Block;
use crate::cpu::ctx::panic_message;
use crate::cpu::thread::Thread;
use crate::cpu::warp::{self, Suspend, Wait};
use crate::error::{Error, Result};

/// Default stack size of a coroutine thread (kernels with barriers), in bytes.
pub const DEFAULT_STACK_BYTES: usize = 256 * 1024;

thread_local! {
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// The lowest address the running coroutine's code may reach (its
    /// stack's limit plus [`STACK_MARGIN`]), or 0 on the OS thread's stack.
    static COROUTINE_FLOOR: Cell<usize> = const { Cell::new(0) };
    /// The same for the OS thread's own stack, found on first use.
    static THREAD_FLOOR: Cell<usize> = const { Cell::new(0) };
}

/// Stack left free below the deepest device-function call: room for the
/// panic that ends the thread to format its message and unwind.
const STACK_MARGIN: usize = 64 * 1024;

/// At the entry of a device function that calls device functions (and so
/// may recurse): where the stack is nearly used up, the thread ends with a
/// panic (a `KernelFault` naming what to raise) instead of running into the
/// guard page, which kills the process with a bare SIGSEGV on a coroutine's
/// stack.
#[inline]
pub fn stack_check(function: &'static str) {
    let probe = 0u8;
    let here = std::hint::black_box(std::ptr::addr_of!(probe)) as usize;
    let floor = match COROUTINE_FLOOR.with(Cell::get) {
        0 => thread_floor(),
        f => f,
    };
    if here < floor {
        stack_exhausted(function);
    }
}

/// The OS thread's [`COROUTINE_FLOOR`]: 1 (no check) where its bounds are
/// unknown.
fn thread_floor() -> usize {
    THREAD_FLOOR.with(|f| {
        if f.get() == 0 {
            let probe = 0u8;
            let here = std::hint::black_box(std::ptr::addr_of!(probe)) as usize;
            f.set(match stacker::remaining_stack() {
                Some(left) => here.saturating_sub(left).saturating_add(STACK_MARGIN).max(1),
                None => 1,
            });
        }
        f.get()
    })
}

#[cold]
#[inline(never)]
fn stack_exhausted(function: &'static str) -> ! {
    let raise = if COROUTINE_FLOOR.with(Cell::get) != 0 {
        format!(
            "GPUJIT_CPU_STACK_BYTES (the stack of each thread of a kernel with syncthreads(), {} KiB by default)",
            DEFAULT_STACK_BYTES / 1024
        )
    } else {
        "the OS thread's stack (RUST_MIN_STACK for the CPU backend's worker threads, 2 MiB by default; `ulimit -s` for a launch that runs on the main thread)".into()
    };
    panic!("the stack is used up in device function `{function}`: recursion too deep for the CPU backend; raise {raise}, or recurse less deeply");
}

/// Sets [`COROUTINE_FLOOR`] while a coroutine runs; back to the OS
/// thread's when dropped.
struct OnCoroutineStack;

impl OnCoroutineStack {
    fn enter(floor: usize) -> Self {
        COROUTINE_FLOOR.with(|f| f.set(floor));
        OnCoroutineStack
    }
}

impl Drop for OnCoroutineStack {
    fn drop(&mut self) {
        COROUTINE_FLOOR.with(|f| f.set(0));
    }
}

impl<'a> Block<'a> {
    /// Runs `body` once per thread of the block, each thread a coroutine
    /// suspended at every [`Thread::syncthreads`] until all live threads of
    /// the block reach a barrier.
    ///
    /// A barrier that only some threads reach (others wait at another
    /// `syncthreads()`, or finished) is a divergent barrier: recorded as a
    /// fault naming two threads that disagreed, and the block ends.
    pub fn coroutines(&'a self, body: &(dyn Fn(&Thread<'_>) + 'a)) {
        self.launch.coroutine_blocks.fetch_add(1, Ordering::Relaxed);
        let n = self.thread_count();
        let stack_bytes = self.launch.stack_bytes;
        let mut coros: Vec<Option<Coro>> = Vec::with_capacity(n);
        let mut floors: Vec<usize> = Vec::with_capacity(n);
        for lin in 0..n {
            let tid = self.tid_of(lin);
            let stack = match StackPool::take(stack_bytes) {
                Ok(s) => s,
                Err(e) => {
                    self.record(
                        tid,
                        format_args!(
                            "cannot allocate a {stack_bytes}-byte coroutine stack for a thread of a kernel with syncthreads(): {e}; set GPUJIT_CPU_STACK_BYTES lower or use smaller blocks"
                        ),
                    );
                    // The coroutines made so far never started: dropping them
                    // just drops their closures.
                    return;
                }
            };
            floors.push(stack.limit().get().saturating_add(STACK_MARGIN));
            // SAFETY: the closure borrows `self` and `body`, which outlive every
            // coroutine: all of them live in `coros`, which is dropped (after
            // each coroutine completed, or early, which force-unwinds the
            // suspended ones) before this function returns.
            let coro = unsafe {
                Coro::with_stack_unchecked(stack, move |y: &Yielder<u64, Suspend>, _: u64| {
                    let t = Thread {
                        block: self,
                        tid,
                        base: self.base,
                        lin,
                        cancel: &self.launch.cancel,
                        yielder: Some(y),
                    };
                    let run = || with_stack_colour(lin, || body(&t));
                    if let Err(payload) = catch_unwind(AssertUnwindSafe(run)) {
                        match panic_message(&*payload) {
                            Some(m) => t.fault(format_args!("kernel panicked: {m}")),
                            // Not a panic of the kernel body (e.g. corosensei's
                            // forced unwind): let it go on.
                            None => resume_unwind(payload),
                        }
                    }
                })
            };
            coros.push(Some(coro));
        }
        self.schedule(&mut coros, &floors);
    }

    /// Runs the block's coroutines to the end: every thread that can go on
    /// runs until it suspends or finishes; then the warp intrinsics whose
    /// lanes are all there complete (`warp.rs`), or, where none does, the
    /// barrier every live thread waits at is passed. Anything else is a
    /// divergent barrier or warp: recorded as a fault naming two threads
    /// that disagreed, and the block ends.
    fn schedule(&self, coros: &mut [Option<Coro>], floors: &[usize]) {
        let mut wait = vec![Wait::Ready(0); coros.len()];
        let mut live = coros.len();
        while live > 0 {
            for (lin, slot) in coros.iter_mut().enumerate() {
                let (Wait::Ready(input), Some(coro)) = (wait[lin], slot.as_mut()) else {
                    continue;
                };
                let on_stack = OnCoroutineStack::enter(floors[lin]);
                let resumed = coro.resume(input);
                drop(on_stack);
                wait[lin] = match resumed {
                    CoroutineResult::Return(()) => {
                        if let Some(done) = slot.take() {
                            StackPool::give_back(done.into_stack());
                        }
                        live -= 1;
                        Wait::Done
                    }
                    CoroutineResult::Yield(Suspend::Barrier { site, vote }) => Wait::Barrier { site, vote },
                    CoroutineResult::Yield(Suspend::Warp(a)) => Wait::Warp(a),
                };
            }
            if live == 0 {
                return;
            }
            match warp::complete(&mut wait) {
                Ok(done) if done.any => {
                    if done.syncwarp {
                        // Checked mode: accesses on either side of a
                        // `syncwarp` are ordered (coarsely: for every warp).
                        self.pass_barrier();
                    }
                    continue;
                }
                Ok(_) => {}
                Err((lin, message)) => {
                    if !self.cancelled() {
                        self.divergent(lin, format_args!("{message}"));
                    }
                    return;
                }
            }
            if let Some((lin, message)) = warp::stuck(&wait) {
                if !self.cancelled() {
                    self.divergent(lin, format_args!("{message}"));
                }
                return;
            }
            if !self.barrier_passes(&mut wait) {
                return;
            }
        }
    }

    /// Passes the barrier every live thread waits at (each resumes with
    /// `waiting << 32 | yes`: how many threads waited and how many voted
    /// true), or records the divergent barrier and returns false.
    fn barrier_passes(&self, wait: &mut [Wait]) -> bool {
        let first = wait.iter().enumerate().find_map(|(lin, w)| match w {
            Wait::Barrier { site, .. } => Some((lin, *site)),
            _ => None,
        });
        let finished = wait.iter().position(|w| matches!(w, Wait::Done));
        let Some((first, s)) = first else { return true };
        let other = wait.iter().enumerate().find_map(|(lin, w)| match w {
            Wait::Barrier { site, .. } if *site != s => Some((lin, *site)),
            _ => None,
        });
        if let Some((lin, at)) = other {
            if !self.cancelled() {
                self.divergent(
                    lin,
                    format_args!(
                        "divergent barrier: thread {:?} waits at syncthreads() number {} of the kernel but thread {:?} of the same block at number {}; on a GPU this hangs or corrupts",
                        self.tid_of(first), s + 1, self.tid_of(lin), at + 1
                    ),
                );
            }
            return false;
        }
        if let Some(f) = finished {
            if !self.cancelled() {
                self.divergent(
                    f,
                    format_args!(
                        "divergent barrier: thread {:?} finished without reaching a syncthreads() that thread {:?} of the same block reached (it returned, or skipped the branch or loop around that barrier); on a GPU this hangs or corrupts",
                        self.tid_of(f),
                        self.tid_of(first)
                    ),
                );
            }
            return false;
        }
        let (mut arrived, mut yes) = (0u64, 0u64);
        for w in wait.iter() {
            if let Wait::Barrier { vote, .. } = w {
                arrived += 1;
                yes += u64::from(*vote);
            }
        }
        for w in wait.iter_mut() {
            if matches!(w, Wait::Barrier { .. }) {
                *w = Wait::Ready((arrived << 32) | yes);
            }
        }
        self.pass_barrier();
        true
    }
}

/// A thread as a coroutine: it suspends with a [`Suspend`] and is resumed
/// with what that says.
type Coro = Coroutine<u64, Suspend, (), DefaultStack>;

/// Runs `f` below a padding of `(i % 8) * 512` bytes on the current stack.
///
/// Every coroutine stack starts page-aligned, so without padding the hot
/// frames of all threads of a block sit at the same offsets within a page and
/// compete for the same few L1 cache sets on every switch.
#[inline(never)]
fn with_stack_colour(i: usize, f: impl FnOnce()) {
    #[inline(never)]
    fn pad<const N: usize>(f: impl FnOnce()) {
        // Uninitialised: reserving the space is the point, not filling it.
        let padding = std::mem::MaybeUninit::<[u8; N]>::uninit();
        std::hint::black_box(&padding);
        f();
    }
    match i % 8 {
        0 => f(),
        1 => pad::<512>(f),
        2 => pad::<1024>(f),
        3 => pad::<1536>(f),
        4 => pad::<2048>(f),
        5 => pad::<2560>(f),
        6 => pad::<3072>(f),
        _ => pad::<3584>(f),
    }
}

/// Stack size of a coroutine thread: `GPUJIT_CPU_STACK_BYTES` or 256 KiB.
pub(super) fn stack_size() -> Result<usize> {
    static SIZE: OnceLock<std::result::Result<usize, String>> = OnceLock::new();
    SIZE.get_or_init(|| match std::env::var("GPUJIT_CPU_STACK_BYTES") {
        Err(_) => Ok(DEFAULT_STACK_BYTES),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (16 * 1024..=1 << 30).contains(&n) => Ok(n),
            _ => Err(format!(
                "GPUJIT_CPU_STACK_BYTES=`{v}` is not a stack size in bytes between 16384 and 1073741824; unset it for the default of {DEFAULT_STACK_BYTES}"
            )),
        },
    })
    .clone()
    .map_err(Error::InvalidLaunchConfig)
}

/// Coroutine stacks reused across blocks on the same OS thread (an `mmap` per
/// coroutine would dominate the cost of small blocks).
struct StackPool;

impl StackPool {
    fn take(bytes: usize) -> std::io::Result<DefaultStack> {
        let pooled = STACKS
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
            .ok()
            .flatten();
        match pooled {
            Some(s) => Ok(s),
            None => DefaultStack::new(bytes),
        }
    }

    fn give_back(stack: DefaultStack) {
        let mut stack = Some(stack);
        let _ = STACKS.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                // At most one stack per thread of the largest block.
                if s.len() < crate::launch::MAX_THREADS_PER_BLOCK as usize {
                    s.extend(stack.take());
                }
            }
        });
    }
}
