//! gpujit: write GPU kernels as Rust functions, launch them like Numba's `@cuda.jit`.
//!
//! (crate docs are written by the runtime author; see README.md)

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
pub use cpu::Idx3;
pub use error::{Error, Result};
pub use gpujit_macros::gpu_kernel;
pub use launch::{Dim3, IntoDim3, LaunchConfig};
pub use scalar::{DeviceScalar, ScalarType};

/// `use gpujit::prelude::*;` brings the attribute, the array type, the launch
/// configuration types and the kernel-language intrinsics into scope.
pub mod prelude {
    pub use crate::kernel::{
        block_dim, block_idx, grid, grid_dim, gridsize, shared_array, syncthreads, thread_idx, ArrayView1, ArrayView2,
        ArrayView3, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3,
    };
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
