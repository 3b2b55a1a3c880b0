//! The CPU backend as a [`Backend`]: host memory (`memory.rs`), the
//! executor (`exec.rs`), streams and events that run their work at once
//! (`stream.rs`), and the answers to GPU-only questions (no GPUs, occupancy
//! is an error that says why).

use crate::backend::{Backend, EventImpl, GpuInfo, PinnedBuffer, PreparedLaunch, StreamImpl};
use crate::buffer::sealed::Sealed;
use crate::buffer::DeviceBuffer;
use crate::cpu::memory::{CpuPinned, HostBuffer};
use crate::cpu::stream::{CpuEvent, CpuStream};
use crate::detect::{detect, BackendKind};
use crate::error::{Error, Result};
use crate::kernel_def::CpuLaunch;
use crate::kernel_def::KernelDef;
use crate::launch::LaunchConfig;
use crate::occupancy::{Occupancy, SuggestedBlockSize};

/// The CPU backend: host memory and the executor. Launches are
/// synchronous (they return when every thread has finished).
#[derive(Debug, Default, Clone, Copy)]
pub struct CpuBackend;

impl Sealed for CpuBackend {}

/// The error of an occupancy query on the CPU backend (blocks there run one
/// after another on each core, so there is no occupancy to compute).
fn gpu_notion(what: &str) -> Error {
    Error::BackendUnavailable {
        requested: "cuda".into(),
        reason: format!(
            "{what} is a GPU notion and kernels run on the CPU backend ({}); use a fixed block size such as 256 there",
            detect()
        ),
    }
}

impl Backend for CpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn description(&self) -> String {
        format!("CPU ({} worker threads, rayon)", rayon::current_num_threads())
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn DeviceBuffer>> {
        Ok(Box::new(HostBuffer::new_zeroed(bytes)?))
    }

    fn run(&self, launch: PreparedLaunch<'_, '_>) -> Result<()> {
        // A CPU stream runs its work at once: nothing to queue behind.
        let kernel = launch.kernel();
        let cpu = CpuLaunch::prepared(kernel, *launch.config());
        (kernel.cpu)(&cpu, launch.args())
    }

    fn current_device(&self) -> Result<Option<usize>> {
        Ok(None)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn new_stream(&self) -> Result<Box<dyn StreamImpl>> {
        Ok(Box::new(CpuStream))
    }

    fn new_event(&self) -> Result<Box<dyn EventImpl>> {
        Ok(Box::new(CpuEvent::default()))
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Box<dyn PinnedBuffer>> {
        Ok(Box::new(CpuPinned::zeroed(bytes)))
    }

    fn occupancy(&self, _: &'static KernelDef, _: &LaunchConfig, _: usize) -> Result<Occupancy> {
        Err(gpu_notion("occupancy"))
    }

    fn suggested_block_size(&self, _: &'static KernelDef) -> Result<SuggestedBlockSize> {
        Err(gpu_notion("a suggested block size"))
    }

    fn gpus(&self) -> Result<Vec<GpuInfo>> {
        Ok(Vec::new())
    }

    fn select_device(&self, id: usize) -> Result<()> {
        Err(Error::OutOfRange(format!(
            "there is no GPU {id}: kernels run on the CPU backend ({})",
            detect()
        )))
    }
}
