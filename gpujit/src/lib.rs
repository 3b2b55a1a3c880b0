#![warn(missing_docs)]
//! gpujit: write GPU kernels as Rust functions and launch them as Numba's
//! `@cuda.jit` does.
//!
//! ```
//! use gpujit::prelude::*;
//!
//! /// `y = a * x + y`, one thread per element.
//! #[gpu_kernel]
//! fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
//!     let i = grid(1);
//!     if i < y.len() {
//!         y[i] = a * x[i] + y[i];
//!     }
//! }
//!
//! # fn main() -> gpujit::Result<()> {
//! let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
//! let d_x = gpujit::to_device(&x)?;
//! let mut d_y = gpujit::zeros::<f32>(1000)?;
//! let threads = 256;
//! saxpy![x.len().div_ceil(threads), threads](2.0, &d_x, &mut d_y)?; // Numba: saxpy[blocks, threads](...)
//! let y = d_y.copy_to_host()?;
//! assert_eq!(y[10], 20.0);
//! println!("{}", saxpy::cuda_source()); // the CUDA C translation
//! # Ok(())
//! # }
//! ```
//!
//! - [`gpu_kernel`] translates the function (every construct, intrinsic,
//!   atomic and math function, with its CUDA C and Numba counterparts and the
//!   semantic choices, is in the language reference, [`mod@reference`]) and
//!   generates the launch macro `saxpy![grid, block](...)`
//!   and the module `saxpy` with `launch`, `cuda_source`, `ptx`, `resources`,
//!   `occupancy`, `suggested_block_size` and `KERNEL`.
//! - [`DeviceArray`] holds 1-3-D arrays on the current backend ([`to_device`],
//!   [`device_array`], [`zeros`], [`DeviceArray::copy_to_host`]).
//! - [`LaunchConfig`] validates grid and block sizes against CUDA's limits;
//!   [`launch::blocks_for`] computes how many blocks cover `n` elements.
//! - [`detect`] tells which backend runs and why (`GPUJIT_BACKEND=cpu|cuda|auto`):
//!   a CUDA GPU when the driver loads and reports one, else the CPU.
//! - [`stream()`], [`event`], [`synchronize`], [`to_device_on`],
//!   [`pinned_array`] mirror Numba's streams, events and pinned memory (the
//!   soundness rules are in [`mod@stream`]); [`gpus`] and [`select_device`]
//!   choose among several GPUs.
//! - [`ndarray`] is the ndarray release gpujit works with (0.17), re-exported.
//! - [`mod@occupancy`]: a kernel's active blocks per multiprocessor and a
//!   suggested block size on the current GPU (`name::occupancy(block)`,
//!   `name::suggested_block_size()`).
//! - [`nvrtc`] finds and drives NVRTC: CUBIN and PTX for any architecture,
//!   an on-disk cache, and each kernel's `ptx()` and `resources()`.
//!
//! ## Layers
//!
//! The runtime's modules import in one direction, as cudarc's
//! `sys → result → safe` do: a module imports (`crate::`, `super::`) only
//! modules of lower layers, and no file imports one that imports it back,
//! but the one pair below. In five groups: leaves (0-1), the launch ABI
//! (2-3), what a backend implements (4), the backends (5) and the front
//! (6-8), where only `select` names a backend.
//!
//! | layer | modules | what |
//! |---|---|---|
//! | 0 | `error`, `scalar`, `device_fn`, `occupancy`, `probe`, `typecheck_methods`, `reference` | leaves (std, and the driver library for `probe`): errors, element types, device-function linking, occupancy results, can CUDA run here, type-checking stand-ins, the language reference |
//! | 1 | `launch`, `detect` | `Dim3` and `LaunchConfig`; which backend runs and why (`GPUJIT_BACKEND`, the probe) |
//! | 2 | `buffer` | ABI: `DeviceBuffer`, a backend's memory (sealed), and `ArgPtr` |
//! | 3 | `kernel_def` | ABI: `KernelDef` and its parameters, `KernelArg`, `check_args`, the CPU entry's `CpuLaunch` |
//! | 4 | `backend`, `nvrtc` | the `Backend` trait and the stream, event and pinned-buffer objects a backend returns; `PreparedLaunch`, a launch checked once; NVRTC (CUBIN, PTX, cache) |
//! | 5 | `cpu`, `cuda` | the backends; neither imports the other or the front |
//! | 6 | `select` | the backend of the process: the only module naming both backends |
//! | 7 | `array`, `pinned`, `stream`, `gpus`, `kernel` | the front: arrays, pinned arrays, streams and events, GPUs, the kernel language |
//! | 8 | `copies` | the front: copies between arrays, pinned arrays and streams |
//!
//! The one cycle left is a block and its threads: a block runs its threads,
//! and a thread asks its block for its coordinates, shared memory and barriers.
//!
//! inherent pair: `cpu::block` <-> `cpu::thread`

pub mod array;
// Machinery, not user API: reachable for generated code through `__private`
// only (the user-facing items are re-exported below).
mod backend;
mod buffer;
mod copies;
mod cpu;
mod cuda;
mod detect;
mod device_fn;
pub mod error;
mod gpus;
pub mod kernel;
mod kernel_def;
pub mod launch;
pub mod nvrtc;
pub mod occupancy;
mod pinned;
mod probe;
pub mod reference;
mod scalar;
mod select;
pub mod stream;
mod typecheck_methods;

pub use array::{device_array, to_device, zeros, DeviceArray, HostData, Shape};
pub use backend::GpuInfo;
pub use copies::to_device_on;
pub use cpu::{with_checks, with_cpu_time_limit, Checks, Idx3, WarpValue};
pub use cuda::ENV_LOW_OCCUPANCY_WARNINGS;
pub use detect::{detect, BackendKind, Detection};
pub use error::{Error, Result};
/// Marks a device function, as Numba's `@cuda.jit(device=True)` does: a
/// plain function that kernels and other device functions call.
///
/// - **Parameters**: scalars (`i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64 bool`) and
///   arrays as kernels take them (`&[T]`, `&mut [T]`, `ArrayView1/2/3<T>`,
///   `ArrayViewMut1/2/3<T>`; a kernel passes its array parameter whole: `f(x, i)`).
///   In CUDA C an array is its pointer plus its extents.
/// - **Returns**: nothing, a scalar, or a tuple of 2 to 4 scalars (CUDA C: a
///   small struct), destructured with `let (a, b) = f(x);`. A reference is a
///   compile error.
/// - **Body**: the kernel language (see [`mod@reference`]), with `return value;` or a
///   tail value; it may call `syncthreads()` (all threads of the block must
///   reach it, as in CUDA), other device functions, and itself: self- and
///   mutual recursion are allowed (CUDA allows both; Numba only
///   self-recursion). A kernel may not call itself.
/// - **Where**: any module or crate; import it with `use` like any function
///   (`use other_crate::clamp;`) or call it by path (`geometry::norm2(x, y)`).
///   The function stays callable from host code.
///
/// A kernel's [`cuda_source`](gpu_kernel) holds every device function it
/// reaches, once each, after forward declarations; the CPU backend calls the
/// native Rust version. A kernel that reaches a device function calling
/// `syncthreads()` runs its threads as coroutines on the CPU backend (see the
/// README's execution model). Types: the kernel's macro cannot see a device
/// function's signature, so rustc checks each call, and a literal meeting a
/// device function's value takes its type. `#[gpu_kernel(device)]` is a
/// compile error that names this attribute.
///
/// ```
/// use gpujit::prelude::*;
///
/// /// L(n), the seed's recursive definition.
/// #[gpu_device]
/// fn lucas(n: u64) -> u64 {
///     if n == 0 {
///         2
///     } else if n == 1 {
///         1
///     } else {
///         lucas(n - 1) + lucas(n - 2)
///     }
/// }
///
/// /// Smallest and largest of `x[a]` and `x[b]`.
/// #[gpu_device]
/// fn min_max(x: &[f32], a: usize, b: usize) -> (f32, f32) {
///     (x[a].min(x[b]), x[a].max(x[b]))
/// }
///
/// #[gpu_kernel]
/// fn table(x: &[f32], out: &mut [u64], spread: &mut [f32]) {
///     let n = grid(1);
///     if n < out.len() {
///         out[n] = lucas(n as u64);
///         let (lo, hi) = min_max(x, n, n + 1);
///         spread[n] = hi - lo;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let x = gpujit::to_device(&[1.0f32, 4.0, 2.0, 8.0, 3.0])?;
/// let mut out = gpujit::zeros::<u64>(4)?;
/// let mut spread = gpujit::zeros::<f32>(4)?;
/// table![1, 32](&x, &mut out, &mut spread)?;
/// assert_eq!(out.copy_to_host()?, [2, 1, 3, 4]);
/// assert_eq!(spread.copy_to_host()?, [3.0, 2.0, 6.0, 5.0]);
/// assert_eq!(lucas(5), 11); // also a host function
/// assert!(table::cuda_source().contains("__device__"));
/// # Ok(())
/// # }
/// ```
pub use gpujit_macros::gpu_device;
/// Marks a function as a GPU kernel, as Numba's `@cuda.jit` does.
///
/// The function (the kernel language is described in [`mod@reference`]) is
/// translated to CUDA C and to native Rust for the CPU backend. Next to it
/// the attribute generates:
/// - the launch macro `name![grid, block](args...)`, Numba's
///   `name[grid, block](args...)`, returning [`Result<()>`](Result): `grid`
///   (blocks) and `block` (threads per block) are an integer, a 2- or 3-tuple
///   or a [`Dim3`]; arrays are passed as `&DeviceArray` (read) or
///   `&mut DeviceArray` (written), scalars by value;
/// - a module `name` with `launch(grid, block, args...)` (the same as a
///   function), `cuda_source()` (the CUDA C), `nvrtc_source()` (the same
///   with `#line` directives to the Rust source), `ptx()` / `ptx_for(arch)`
///   and `resources()` / `resources_for(arch)` (through NVRTC, see
///   [`nvrtc`]), `occupancy(block)`, `occupancy_with_shared(block, bytes)`
///   and `suggested_block_size()` (the driver's occupancy calculator, see
///   [`mod@occupancy`]) and `KERNEL`.
///
/// A construct the translator does not support is a compile error at its
/// span, with a `help:` line.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn scale(v: &mut [f64], factor: f64) {
///     let i = grid(1);
///     if i < v.len() {
///         v[i] *= factor;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let mut v = gpujit::to_device(&[1.0, 2.0, 3.0])?;
/// scale![1, 32](&mut v, 10.0)?;            // the launch macro
/// scale::launch(1, 32, &mut v, 0.5)?;      // the same, as a function
/// assert_eq!(v.copy_to_host()?, [5.0, 10.0, 15.0]);
/// assert!(scale::cuda_source().contains("__global__"));
/// # Ok(())
/// # }
/// ```
#[doc(inline)]
pub use gpujit_macros::gpu_kernel;
pub use gpus::{gpus, select_device};
pub use launch::{Dim3, IntoDim3, LaunchConfig};
/// The ndarray version gpujit's [`HostData`] and
/// [`DeviceArray::copy_to_ndarray`] work with; use it (or the same version)
/// for the arrays you pass to [`to_device`].
pub use ndarray;
pub use occupancy::{Occupancy, SuggestedBlockSize};
pub use pinned::{pinned_array, PinnedArray};
pub use scalar::{DeviceScalar, KernelScalar, PodScalar, ScalarType};
pub use stream::{event, stream, synchronize, Event, Stream};

/// `use gpujit::prelude::*;` brings the attribute, the array type, the launch
/// configuration types and the kernel parameter types into scope.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn copy_2d(src: ArrayView2<i32>, dst: ArrayViewMut2<i32>) {
///     let (x, y) = grid(2);
///     let (rows, cols) = dst.dim();
///     if y < rows && x < cols {
///         dst[[y, x]] = src[[y, x]];
///     }
/// }
///
/// # fn main() -> Result<(), Error> {
/// let src: DeviceArray<i32> = gpujit::to_device(&gpujit::ndarray::array![[1, 2], [3, 4]])?;
/// let mut dst = gpujit::zeros::<i32>((2, 2))?;
/// let cfg = LaunchConfig::new(1, Dim3::new(2, 2, 1))?;
/// copy_2d![cfg.grid, cfg.block](&src, &mut dst)?;
/// assert_eq!(dst.copy_to_host()?, [1, 2, 3, 4]);
/// # Ok(())
/// # }
/// ```
pub mod prelude {
    // The intrinsics (`grid`, `syncthreads`, ...) need no import: the macro
    // translates them. Only the parameter types are here, for readers.
    pub use crate::kernel::{ArrayView1, ArrayView2, ArrayView3, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3};
    pub use crate::{gpu_device, gpu_kernel, DeviceArray, Dim3, Error, LaunchConfig};
}

/// Items used by the code that `#[gpu_kernel]` generates (and by gpujit's own
/// tests). Not a public API, but reachable from safe code, so every item here
/// must be sound for any use: views borrow what they point into, array
/// arguments can only be made from `DeviceArray` borrows, the backend traits
/// are sealed.
#[doc(hidden)]
pub mod __private {
    pub use crate::backend::{Backend, EventImpl, PinnedBuffer, PreparedLaunch, StreamImpl};
    pub use crate::buffer::{ArgPtr, DeviceBuffer};
    pub use crate::cpu::{common_range, common_step, full_rounds, LoopState, StrideIndex};
    pub use crate::cpu::{fixed_ld, fixed_st, FixedArray};
    pub use crate::cpu::{
        last_launch_coroutine_blocks, last_launch_inline_blocks, last_launch_inner_blocks, last_launch_lockstep_blocks,
        last_launch_merged_blocks, last_launch_narrowed_blocks, last_launch_narrowed_loops, last_launch_row_blocks,
        last_launch_span_blocks, last_launch_span_loops, note_coroutines, with_cpu_strategies_off,
        with_forced_coroutines, Block, CpuBackend, GlobalMem, IntDiv, IntEuclid, IntRoot, IntRound, KernelMinMax, Mem,
        OwnedArg, OwnedView, SharedLayout, SharedMem, Shuffle, Space, Strategies, Thread, View, XRange,
    };
    pub use crate::cpu::{stack_check, threadfence, threadfence_block, AtomicOp, AtomicScalar};
    pub use crate::cpu::{Span, SpanAxis, StackSlots, CONST, OWN_X, OWN_Y, OWN_Z, TID_X, TID_Y, TID_Z, UNIFORM};
    pub use crate::device_fn::{link, reaches_barrier, reaches_recursion, DeviceFn, Piece};
    pub use crate::kernel::typecheck;
    pub use crate::kernel_def::*;
    pub use crate::launch::IntoDim3;
    pub use crate::scalar::{CudaConst, CudaConstArray, ScalarValue};
    pub use crate::select::current_backend;

    /// `offset` rounded up to a multiple of `align` (a power of two): the
    /// offset of the next shared array.
    pub const fn align_up(offset: usize, align: usize) -> usize {
        offset.div_ceil(align) * align
    }

    /// CUDA's static shared memory per block, in bytes (48 KiB): the most a
    /// kernel's shared arrays may take together, a compile error past it
    /// (and, should a layout ever differ, a launch error on both backends).
    pub const MAX_SHARED_BYTES: usize = crate::cpu::MAX_SHARED_BYTES;

    /// The most bytes of local arrays (`let a = [0.0f32; N];`) one kernel or
    /// device function may declare: the CPU backend keeps them on the
    /// thread's stack (a coroutine's is 256 KiB by default). A larger array
    /// is a compile error.
    pub const LOCAL_ARRAY_BYTES: usize = 64 * 1024;

    /// CUDA's constant memory, in bytes: the most that a kernel's (or a
    /// device function's) `const` arrays may take together. NVRTC's CUBIN
    /// compile fails past it with a log that names no cause.
    pub const CONSTANT_MEMORY_BYTES: usize = 64 * 1024;

    /// The size of a value's type (`size_of_val` for a `const` by reference).
    pub const fn size_of_ref<T>(_: &T) -> usize {
        core::mem::size_of::<T>()
    }

    /// A message built during `const` evaluation, where `format!` is not
    /// available: the compile-time limit checks give their figures with it.
    pub struct ConstMsg {
        buf: [u8; 1024],
        len: usize,
    }

    impl ConstMsg {
        /// An empty message.
        pub const fn new() -> Self {
            ConstMsg { buf: [0; 1024], len: 0 }
        }

        /// `s` appended (cut at the buffer's end).
        pub const fn text(mut self, s: &str) -> Self {
            let b = s.as_bytes();
            let mut i = 0;
            while i < b.len() && self.len < self.buf.len() {
                self.buf[self.len] = b[i];
                self.len += 1;
                i += 1;
            }
            self
        }

        /// `n` in decimal, appended.
        pub const fn num(mut self, mut n: usize) -> Self {
            let mut digits = [0u8; 20];
            let mut k = 0;
            loop {
                digits[k] = b'0' + (n % 10) as u8;
                n /= 10;
                k += 1;
                if n == 0 {
                    break;
                }
            }
            while k > 0 && self.len < self.buf.len() {
                k -= 1;
                self.buf[self.len] = digits[k];
                self.len += 1;
            }
            self
        }

        /// The message (up to the last whole character, if it was cut).
        pub const fn as_str(&self) -> &str {
            let (head, _) = self.buf.split_at(self.len);
            match core::str::from_utf8(head) {
                Ok(s) => s,
                Err(e) => match core::str::from_utf8(head.split_at(e.valid_up_to()).0) {
                    Ok(s) => s,
                    Err(_) => "",
                },
            }
        }
    }

    impl Default for ConstMsg {
        fn default() -> Self {
            Self::new()
        }
    }

    /// The larger of `a` and `b` (`Ord::max` is not `const`).
    pub const fn max_usize(a: usize, b: usize) -> usize {
        if a > b {
            a
        } else {
            b
        }
    }

    /// The generated `launch`: checks the launch once
    /// ([`PreparedLaunch::prepare`]) and runs it on the current backend.
    ///
    /// # Errors
    /// [`crate::Error::InvalidLaunchConfig`], [`crate::Error::BackendUnavailable`]
    /// and whatever [`Backend::launch`] returns.
    pub fn launch_kernel(
        kernel: &'static crate::kernel_def::KernelDef,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: &mut [crate::kernel_def::KernelArg<'_>],
    ) -> crate::Result<()> {
        let cfg = crate::LaunchConfig::unchecked(grid, block)?;
        let (backend, launch) = PreparedLaunch::prepare(current_backend, kernel, &cfg, args, None)?;
        backend.run(launch)
    }

    /// The generated `launch_on`: as [`launch_kernel`], queued on `stream`.
    ///
    /// # Errors
    /// As [`launch_kernel`]; [`crate::Error::WrongBackend`] or
    /// [`crate::Error::WrongDevice`] for a stream of another backend or GPU.
    pub fn launch_kernel_on(
        kernel: &'static crate::kernel_def::KernelDef,
        stream: &crate::Stream,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: &mut [crate::kernel_def::KernelArg<'_>],
    ) -> crate::Result<()> {
        let cfg = crate::LaunchConfig::unchecked(grid, block)?;
        let (backend, launch) = PreparedLaunch::prepare(current_backend, kernel, &cfg, args, Some(stream.handle()))?;
        backend.run(launch)
    }

    /// The generated `occupancy` and `occupancy_with_shared`.
    ///
    /// # Errors
    /// See [`crate::occupancy`].
    pub fn kernel_occupancy(
        kernel: &'static crate::kernel_def::KernelDef,
        block: impl IntoDim3,
        dynamic_shared_bytes: usize,
    ) -> crate::Result<crate::Occupancy> {
        let cfg = crate::LaunchConfig::new(1, block)?;
        current_backend()?.occupancy(kernel, &cfg, dynamic_shared_bytes)
    }

    /// The generated `suggested_block_size`.
    ///
    /// # Errors
    /// See [`crate::occupancy`].
    pub fn kernel_suggested_block_size(
        kernel: &'static crate::kernel_def::KernelDef,
    ) -> crate::Result<crate::SuggestedBlockSize> {
        current_backend()?.suggested_block_size(kernel)
    }

    /// The error of a CPU entry handed the wrong number of arguments.
    pub fn arg_count_error(kernel: &crate::kernel_def::KernelDef, given: usize) -> crate::Error {
        crate::Error::ArgumentMismatch {
            kernel: kernel.name.to_string(),
            param: "(all)".to_string(),
            message: format!("the kernel takes {} arguments, {given} were given", kernel.params.len()),
        }
    }
}
