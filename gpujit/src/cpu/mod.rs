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
//! - `View<'a, T>`: `View::from_arg(&KernelArg<'a>, name)` (a view lives as long as the array borrow), `len()`, `dim(k)`, `dim2()`, `dim3()`,
//!   `ld(t, i)`, `st(t, i, v)`, `ld2(t, i, j)`, `st2(t, i, j, v)`, `ld3(t, i, j, k)`, `st3(t, i, j, k, v)`.
//!   Out-of-bounds is a fault (read yields `T::default()`, write is dropped), never UB.

mod exec;
mod math;
mod ops;
mod view;

pub use exec::{with_cpu_time_limit, CpuBackend, CpuLaunch, SharedLayout, Thread};
pub use math::IntEuclid;
pub use ops::{KernelArith, KernelShift};
pub use view::{GlobalMem, IntDiv, Mem, SharedMem, Space, View};

/// A `threadIdx`/`blockIdx`/`blockDim`/`gridDim` value with `usize`
/// components: what [`thread_idx`](crate::kernel::thread_idx) and its
/// siblings return in a kernel (see there for an example).
///
/// ```
/// let i = gpujit::Idx3 { x: 3, y: 1, z: 0 };
/// assert_eq!((i.x, i.y, i.z), (3, 1, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Idx3 {
    /// `.x`, fastest-varying.
    pub x: usize,
    /// `.y`.
    pub y: usize,
    /// `.z`, slowest-varying.
    pub z: usize,
}
