//! A launch checked once, before any backend sees it.
//!
//! [`PreparedLaunch::prepare`] checks everything that does not depend on
//! which backend runs the kernel: the configuration against CUDA's limits,
//! the arguments against the kernel's parameters, and that the stream and
//! every array belong to the launch's backend and GPU. A [`PreparedLaunch`]
//! can only be made there, so [`Backend::run`] takes one as the proof and
//! does only its own work (CUDA: the GPU's limits and the kernel's
//! registers; CPU: the shared-memory limit the kernel's block function
//! states).

use super::handles::StreamImpl;
use super::Backend;
use crate::error::{Error, Result};
use crate::kernel_def::{check_args, KernelArg, KernelDef};
use crate::launch::LaunchConfig;

/// A launch of `kernel` that [`PreparedLaunch::prepare`] checked: its
/// configuration, arguments, stream and the GPU it runs on.
#[derive(Debug)]
pub struct PreparedLaunch<'l, 'a> {
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: &'l mut [KernelArg<'a>],
    stream: Option<&'l dyn StreamImpl>,
    device: Option<usize>,
}

impl<'l, 'a> PreparedLaunch<'l, 'a> {
    /// Checks a launch of `kernel` on the grid `cfg` with `args`, on `stream`
    /// or the backend's current GPU, in this order: the configuration
    /// ([`LaunchConfig::validate`]), then the backend (asked for only now, so
    /// that a bad grid is reported before a missing backend), the stream's
    /// backend, the arguments ([`check_args`]), and for each array in
    /// parameter order its backend and GPU.
    ///
    /// # Errors
    /// [`Error::InvalidLaunchConfig`]; what `backend` returns
    /// ([`Error::BackendUnavailable`]); [`Error::WrongBackend`] for a stream
    /// or an array of another backend; [`Error::ArgumentMismatch`];
    /// [`Error::WrongDevice`] for an array on another GPU than the stream
    /// (or the current GPU).
    pub fn prepare<'b, B: Backend + ?Sized>(
        backend: impl FnOnce() -> Result<&'b B>,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        args: &'l mut [KernelArg<'a>],
        stream: Option<&'l dyn StreamImpl>,
    ) -> Result<(&'b B, PreparedLaunch<'l, 'a>)> {
        cfg.validate()?;
        let backend = backend()?;
        let kind = backend.kind();
        if let Some(s) = stream {
            if s.backend() != kind {
                return Err(Error::WrongBackend {
                    array: format!("{} (the stream)", s.backend()),
                    launch: kind.to_string(),
                });
            }
        }
        let device = match stream {
            Some(s) => s.device(),
            None => backend.current_device()?,
        };
        check_args(kernel, args)?;
        for (param, arg) in kernel.params.iter().zip(args.iter()) {
            let KernelArg::Array(a) = arg else { continue };
            if a.backend != kind {
                return Err(Error::WrongBackend {
                    array: a.backend.to_string(),
                    launch: kind.to_string(),
                });
            }
            if let (Some(expected), Some(found)) = (device, a.buffer().device()) {
                if found != expected {
                    return Err(Error::WrongDevice {
                        what: format!("kernel `{}`, parameter `{}`", kernel.name, param.name),
                        expected,
                        found,
                    });
                }
            }
        }
        let launch = PreparedLaunch {
            kernel,
            cfg: *cfg,
            args,
            stream,
            device,
        };
        Ok((backend, launch))
    }

    /// The kernel.
    pub fn kernel(&self) -> &'static KernelDef {
        self.kernel
    }

    /// The grid and block, within CUDA's limits.
    pub fn config(&self) -> &LaunchConfig {
        &self.cfg
    }

    /// The arguments, matching the kernel's parameters; every array is of
    /// the launch's backend and GPU.
    pub fn args(&self) -> &[KernelArg<'a>] {
        self.args
    }

    /// The arguments, writable (CUDA hands a written array's slice to the
    /// driver as written).
    pub fn args_mut(&mut self) -> &mut [KernelArg<'a>] {
        self.args
    }

    /// The stream, of the launch's backend (`None`: the GPU's default stream).
    pub fn stream(&self) -> Option<&'l dyn StreamImpl> {
        self.stream
    }

    /// The GPU the launch runs on (`None` on the CPU backend).
    pub fn device(&self) -> Option<usize> {
        self.device
    }
}
