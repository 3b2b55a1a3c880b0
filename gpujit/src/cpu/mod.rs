//! The CPU backend: runs a kernel's native Rust version on all cores with CUDA
//! semantics for blocks, threads, shared memory and `syncthreads()`.
//!
//! CONTRACT (used by macro-generated code; keep these names and signatures):
//! - `CpuLaunch::run(&self, shared: SharedLayout, uses_barrier: bool, body: &(dyn Fn(&Thread<'_>) + Sync)) -> Result<()>`
//! - `Thread` methods: `grid1/2/3`, `gridsize1/2/3`, `thread_idx`, `block_idx`, `block_dim`, `grid_dim`
//!   (all `usize` / tuples of `usize` / `Idx3`), `syncthreads()`, `shared::<T>(byte_offset, dims)`,
//!   `fault(msg)`, `div(a, b)`, `rem(a, b)` (integer; ÷0 is a fault that yields 0),
//!   `arith_add/sub/mul/div/rem/neg/abs/shl/shr` (the same for types only rustc knows),
//!   `step_by(a, b, s)` / `step_by_inclusive(a, b, s)` (`s == 0` is a fault, the loop runs
//!   no iterations), `cancelled()` (polled at every loop iteration; true: return from the thread).
//! - `View<T>`: `View::from_arg(&KernelArg, name)`, `len()`, `dim(k)`, `dim2()`, `dim3()`,
//!   `ld(t, i)`, `st(t, i, v)`, `ld2(t, i, j)`, `st2(t, i, j, v)`, `ld3(t, i, j, k)`, `st3(t, i, j, k, v)`.
//!   Out-of-bounds is a fault (read yields `T::default()`, write is dropped), never UB.

mod exec;
mod ops;
mod view;

pub use exec::{with_cpu_time_limit, CpuBackend, CpuLaunch, SharedLayout, Thread, TIME_LIMIT_ENV};
pub use ops::{KernelArith, KernelShift};
pub use view::{IntDiv, Space, View};

/// A `threadIdx`/`blockIdx`/`blockDim`/`gridDim` value with 64-bit components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Idx3 {
    /// `.x`, fastest-varying.
    pub x: usize,
    /// `.y`.
    pub y: usize,
    /// `.z`, slowest-varying.
    pub z: usize,
}
