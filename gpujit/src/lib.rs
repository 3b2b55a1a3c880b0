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
//! - [`gpu_kernel`] translates the function (the kernel language is described
//!   in [`kernel`]) and generates the launch macro `saxpy![grid, block](...)`
//!   and the module `saxpy` with `launch`, `cuda_source` and `KERNEL`.
//! - [`DeviceArray`] holds 1-3-D arrays on the current backend ([`to_device`],
//!   [`device_array`], [`zeros`], [`DeviceArray::copy_to_host`]).
//! - [`LaunchConfig`] validates grid and block sizes against CUDA's limits.
//! - [`detect`] tells which backend runs and why (`GPUJIT_BACKEND=cpu|cuda|auto`).
//! - [`nvrtc`] finds and drives NVRTC to compile the emitted CUDA C to PTX.

pub mod array;
pub mod backend;
pub mod cpu;
pub mod error;
pub mod kernel;
pub mod kernel_def;
pub mod launch;
pub mod nvrtc;
pub mod scalar;

pub use array::{device_array, to_device, zeros, DeviceArray, HostData, Shape};
pub use backend::{current_backend, detect, Backend, BackendKind, Detection, DeviceBuffer};
pub use cpu::{with_cpu_time_limit, Idx3};
pub use error::{Error, Result};
pub use gpujit_macros::gpu_kernel;
pub use launch::{Dim3, IntoDim3, LaunchConfig};
pub use scalar::{DeviceScalar, ScalarType};

/// `use gpujit::prelude::*;` brings the attribute, the array type, the launch
/// configuration types and the kernel parameter types into scope.
pub mod prelude {
    // The intrinsics (`grid`, `syncthreads`, ...) need no import: the macro
    // translates them. Only the parameter types are here, for readers.
    pub use crate::kernel::{ArrayView1, ArrayView2, ArrayView3, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3};
    pub use crate::{gpu_kernel, DeviceArray, Dim3, Error, LaunchConfig};
}

/// Items used by the code that `#[gpu_kernel]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::cpu::{CpuLaunch, SharedLayout, Thread, View};
    pub use crate::kernel::typecheck;
    pub use crate::kernel_def::*;
    pub use crate::launch::IntoDim3;
    pub use crate::scalar::CudaConst;

    /// `offset` rounded up to a multiple of `align` (a power of two): the
    /// offset of the next shared array.
    pub const fn align_up(offset: usize, align: usize) -> usize {
        offset.div_ceil(align) * align
    }

    /// The larger of `a` and `b` (`Ord::max` is not `const`).
    pub const fn max_usize(a: usize, b: usize) -> usize {
        if a > b {
            a
        } else {
            b
        }
    }

    /// The generated `launch`: validates the configuration and launches on
    /// the current backend.
    ///
    /// # Errors
    /// [`crate::Error::InvalidLaunchConfig`], [`crate::Error::BackendUnavailable`]
    /// and whatever [`crate::Backend::launch`] returns.
    pub fn launch_kernel(
        kernel: &crate::kernel_def::KernelDef,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: &[crate::kernel_def::KernelArg<'_>],
    ) -> crate::Result<()> {
        let cfg = crate::LaunchConfig::new(grid, block)?;
        crate::current_backend()?.launch(kernel, &cfg, args)
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
