//! What `#[gpu_kernel]` generates for each kernel: its description, and the
//! type-erased arguments a launch hands to a backend (the ABI between the
//! generated code, the front and the backends).
//!
//! The CPU part of it lives here too, because a [`KernelDef`] names it: the
//! [`CpuLaunch`] its CPU entry receives (whose methods are the CPU executor's,
//! `cpu/exec.rs`) and the [`ArgClaim`] each array argument carries (whose
//! meaning is `cpu/owned.rs`'s). `KernelArg::array` and `array_mut` are
//! `array.rs`'s, where a `DeviceArray`'s buffer is.

use std::sync::atomic::AtomicUsize;

use crate::buffer::DeviceBuffer;
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::scalar::{KernelScalar, ScalarType, ScalarValue};

/// The CPU version of a kernel: unpacks the arguments and runs the body on
/// every thread of the grid through [`CpuLaunch::run`].
pub type CpuEntry = fn(&CpuLaunch<'_>, &[KernelArg<'_>]) -> Result<()>;

/// One kernel, as the macro describes it to the runtime.
#[derive(Debug)]
pub struct KernelDef {
    /// The Rust name of the kernel.
    pub name: &'static str,
    /// The `extern "C" __global__` function in the CUDA C: the Rust name, or
    /// `{name}_kernel` where the name is reserved in CUDA C (`float`, `min`).
    pub entry: &'static str,
    /// Parameters in declaration order.
    pub params: &'static [ParamDef],
    /// The CUDA C translation unit (built once, on first call).
    pub cuda_source: fn() -> &'static str,
    /// The same with `#line` directives pointing at the Rust source: the
    /// text to hand to NVRTC ([`KernelDef::cubin`]).
    pub nvrtc_source: fn() -> &'static str,
    /// The native Rust version for the CPU backend.
    pub cpu: CpuEntry,
    /// Whether the kernel calls `syncthreads()` (the CPU backend then runs the
    /// threads of a block as coroutines that meet at each barrier).
    pub uses_barrier: bool,
    /// Whether a device function the kernel reaches is (mutually) recursive
    /// (known at run time only: see [`crate::device_fn::reaches_recursion`]).
    pub recursive: fn() -> bool,
}

/// One launch of a kernel on the CPU backend, handed to the kernel's generated
/// CPU entry ([`KernelDef::cpu`]), which unpacks its arguments and calls
/// [`CpuLaunch::run`].
#[derive(Debug)]
pub struct CpuLaunch<'a> {
    pub(crate) kernel: &'a KernelDef,
    pub(crate) cfg: LaunchConfig,
    /// Whether `cfg` was checked already: by `PreparedLaunch::prepare`, for
    /// a launch through the backend. A hand-made launch ([`CpuLaunch::new`],
    /// the executor's own tests) is checked when it runs.
    pub(crate) checked: bool,
    /// The most work one thread does, where the macro can bound it
    /// ([`CpuLaunch::with_thread_work`]); `None` where it cannot.
    pub(crate) thread_work: Option<u32>,
}

impl<'a> CpuLaunch<'a> {
    /// A launch of `kernel` with the configuration `cfg` (checked against
    /// CUDA's limits when it runs).
    pub fn new(kernel: &'a KernelDef, cfg: LaunchConfig) -> Self {
        CpuLaunch {
            kernel,
            cfg,
            checked: false,
            thread_work: None,
        }
    }

    /// The launch the CPU backend runs for a prepared launch, whose
    /// configuration `PreparedLaunch::prepare` checked.
    pub(crate) fn prepared(kernel: &'a KernelDef, cfg: LaunchConfig) -> Self {
        CpuLaunch {
            kernel,
            cfg,
            checked: true,
            thread_work: None,
        }
    }

    /// This launch of a kernel whose threads each do at most `units` of
    /// work (about a nanosecond each, as the macro estimates for a kernel
    /// without loops or device function calls). A launch whose whole work is
    /// less than what handing it to the thread pool costs runs its blocks
    /// one after another on the calling thread (`cpu::exec::runs_inline`).
    pub fn with_thread_work(&self, units: u32) -> CpuLaunch<'a> {
        CpuLaunch {
            thread_work: Some(units),
            ..*self
        }
    }

    /// The kernel being launched.
    pub fn kernel(&self) -> &'a KernelDef {
        self.kernel
    }

    /// The grid and block size.
    pub fn config(&self) -> &LaunchConfig {
        &self.cfg
    }
}

/// One kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamDef {
    /// The parameter's name in the kernel.
    pub name: &'static str,
    /// What it takes.
    pub kind: ParamKind,
}

/// What a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A scalar by value.
    Scalar(ScalarType),
    /// An array of `ndim` dimensions (1-3), read-only (`&[T]`, `ArrayViewN`) or
    /// written (`&mut [T]`, `ArrayViewMutN`).
    Array {
        /// Element type.
        elem: ScalarType,
        /// Number of dimensions, 1 to 3.
        ndim: usize,
        /// Whether the kernel writes it (the launch then takes `&mut`).
        mutable: bool,
    },
}

/// The buffer of an array argument, borrowed as the launch borrows the array.
#[derive(Debug)]
pub(crate) enum BufArg<'a> {
    /// `&DeviceArray`: read by the kernel.
    Read(&'a dyn DeviceBuffer),
    /// `&mut DeviceArray`: written by the kernel (exclusive for the launch).
    Write(&'a mut dyn DeviceBuffer),
}

/// Which kind of view a written array argument hands out on the CPU backend:
/// relaxed atomic views, or one launch's own-index views, decided by the
/// first view made and never going back, so plain and atomic accesses to
/// one array never meet (the states and their use: `cpu/owned.rs`).
#[derive(Debug, Default)]
pub struct ArgClaim(pub(crate) AtomicUsize);

/// An array argument: the borrowed buffer, shape in elements (C order),
/// element type.
///
/// Only [`KernelArg::array`] and [`KernelArg::array_mut`] make one, from a
/// live [`DeviceArray`](crate::DeviceArray) borrow: backends trust its buffer and shape.
#[derive(Debug)]
pub struct ArrayArg<'a> {
    pub(crate) buf: BufArg<'a>,
    pub(crate) shape: &'a [usize],
    pub(crate) elem: ScalarType,
    pub(crate) mutable: bool,
    /// Which backend owns the memory (`BackendKind` name), for error messages.
    pub(crate) backend: crate::detect::BackendKind,
    /// Whether the CPU backend hands out shared (atomic) views of a written
    /// array or one launch's own-index views (see `cpu::owned`).
    pub(crate) claim: ArgClaim,
}

impl ArrayArg<'_> {
    /// The buffer, read-only.
    pub(crate) fn buffer(&self) -> &dyn DeviceBuffer {
        match &self.buf {
            BufArg::Read(b) => *b,
            BufArg::Write(b) => &**b,
        }
    }

    /// Where the elements live (CPU backend: the host address).
    pub(crate) fn ptr(&self) -> crate::buffer::ArgPtr {
        self.buffer().arg_ptr()
    }
}

/// A type-erased launch argument. Made by the generated `launch` function;
/// the borrows it was made from outlive the launch. Not `Clone`: a written
/// array's argument holds its exclusive borrow.
#[derive(Debug)]
pub enum KernelArg<'a> {
    /// A scalar by value.
    Scalar(ScalarValue),
    /// An array, by buffer and shape.
    Array(ArrayArg<'a>),
}

impl<'a> KernelArg<'a> {
    /// A scalar passed by value.
    pub fn scalar<T: KernelScalar>(value: T) -> Self {
        KernelArg::Scalar(value.to_value())
    }

    /// The scalar value as `T` (the default value if the argument is not a `T`,
    /// which [`check_args`] rules out before any backend runs).
    pub fn get_scalar<T: KernelScalar>(&self) -> T {
        match self {
            KernelArg::Scalar(v) => T::from_value(*v).unwrap_or_default(),
            KernelArg::Array(_) => T::default(),
        }
    }
}

/// Checks launch arguments against the kernel's parameters: count, scalar
/// types, array element types, dimensions and mutability.
///
/// # Errors
/// [`Error::ArgumentMismatch`] naming the parameter.
pub fn check_args(kernel: &KernelDef, args: &[KernelArg<'_>]) -> Result<()> {
    let mismatch = |param: &str, message: String| Error::ArgumentMismatch {
        kernel: kernel.name.to_string(),
        param: param.to_string(),
        message,
    };
    if args.len() != kernel.params.len() {
        return Err(mismatch(
            "(all)",
            format!(
                "the kernel takes {} arguments, {} were given",
                kernel.params.len(),
                args.len()
            ),
        ));
    }
    for (param, arg) in kernel.params.iter().zip(args) {
        match (param.kind, arg) {
            (ParamKind::Scalar(t), KernelArg::Scalar(v)) if v.scalar_type() == t => {}
            (ParamKind::Array { elem, ndim, mutable }, KernelArg::Array(a)) => {
                if a.elem != elem {
                    return Err(mismatch(
                        param.name,
                        format!(
                            "expects elements of type {}, got {}",
                            elem.rust_name(),
                            a.elem.rust_name()
                        ),
                    ));
                }
                if a.shape.len() != ndim {
                    return Err(mismatch(
                        param.name,
                        format!(
                            "expects a {ndim}-D array, got a {}-D array of shape {:?}; reshape it (DeviceArray::reshape) or change the parameter type",
                            a.shape.len(),
                            a.shape
                        ),
                    ));
                }
                if mutable && !a.mutable {
                    return Err(mismatch(
                        param.name,
                        "is written by the kernel: pass it as `&mut`".into(),
                    ));
                }
            }
            (kind, _) => return Err(mismatch(param.name, format!("expects {kind:?}, got {arg:?}"))),
        }
    }
    Ok(())
}
