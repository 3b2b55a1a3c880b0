//! The CUDA backend: kernels run on NVIDIA GPUs through the CUDA driver
//! (cudarc, loaded at run time) and NVRTC.
//!
//! Layers, each using only those below it:
//! - `error`: driver errors as [`crate::Error`] values (the `CUresult` kept);
//! - `module_cache`: a kernel compiled and loaded once per device;
//! - `device`: one GPU (context, default stream, limits, loaded kernels);
//! - `buffer`: a `DeviceArray`'s GPU memory (a cudarc slice);
//! - `pinned`: a `PinnedArray`'s page-locked memory;
//! - `stream`: streams, events and the copies a stream queues;
//! - `launch`: the GPU's own checks, argument packing, the occupancy warning;
//! - `occupancy`: the driver's occupancy calculator;
//! - this file: [`CudaBackend`], the devices of the process and the current one.

mod buffer;
mod device;
mod error;
mod launch;
mod module_cache;
mod occupancy;
mod pinned;
mod stream;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use buffer::CudaBuffer;
use device::Device;
pub use launch::ENV_LOW_OCCUPANCY_WARNINGS;
use pinned::PinnedHost;
use stream::{DeviceEvent, DeviceStream};

use crate::backend::{Backend, EventImpl, GpuInfo, PinnedBuffer, PreparedLaunch, StreamImpl};
use crate::buffer::sealed::Sealed;
use crate::buffer::DeviceBuffer;
use crate::detect::BackendKind;
use crate::error::{Error, Result};
use crate::kernel_def::KernelDef;
use crate::launch::LaunchConfig;
use crate::occupancy::{Occupancy, SuggestedBlockSize};

/// The CUDA backend of this process: its GPUs, opened on first use, and the
/// one selected for new arrays, streams and launches without a stream.
#[derive(Debug)]
pub struct CudaBackend {
    devices: Vec<OnceLock<Arc<Device>>>,
    open_lock: Mutex<()>,
    current: AtomicUsize,
}

impl CudaBackend {
    /// A backend over `count` devices (found by [`crate::probe`]).
    pub(crate) fn new(count: usize) -> CudaBackend {
        CudaBackend {
            devices: (0..count).map(|_| OnceLock::new()).collect(),
            open_lock: Mutex::new(()),
            current: AtomicUsize::new(0),
        }
    }

    /// Number of GPUs.
    pub(crate) fn device_count(&self) -> usize {
        self.devices.len()
    }

    /// GPU `ordinal`, opened on first use.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] for a GPU that does not exist; driver errors.
    pub(crate) fn device(&self, ordinal: usize) -> Result<&Arc<Device>> {
        let slot = self.devices.get(ordinal).ok_or_else(|| {
            Error::OutOfRange(format!(
                "there is no GPU {ordinal}: this machine has {} (numbered from 0)",
                self.devices.len()
            ))
        })?;
        if let Some(d) = slot.get() {
            return Ok(d);
        }
        let _guard = self.open_lock.lock().unwrap_or_else(|p| p.into_inner());
        if slot.get().is_none() {
            let _ = slot.set(Arc::new(Device::open(ordinal)?));
        }
        slot.get()
            .ok_or_else(|| Error::OutOfRange(format!("GPU {ordinal} could not be opened")))
    }

    /// The GPU selected for new work.
    pub(crate) fn current(&self) -> Result<&Arc<Device>> {
        self.device(self.current.load(Ordering::Relaxed))
    }

    /// Selects GPU `ordinal` for new work (process-wide).
    pub(crate) fn select(&self, ordinal: usize) -> Result<()> {
        self.device(ordinal)?;
        self.current.store(ordinal, Ordering::Relaxed);
        Ok(())
    }

    /// Waits for all work on every opened GPU.
    fn synchronize_all(&self) -> Result<()> {
        for d in self.devices.iter().filter_map(|s| s.get()) {
            d.ctx.synchronize().map_err(|e| d.err("cuCtxSynchronize", e))?;
            d.ctx
                .check_err()
                .map_err(|e| d.err("an earlier asynchronous operation", e))?;
        }
        Ok(())
    }
}

impl Sealed for CudaBackend {}

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn description(&self) -> String {
        match self.current() {
            Ok(d) => format!(
                "CUDA GPU {} {} (compute capability {}.{})",
                d.ordinal, d.name, d.cc.0, d.cc.1
            ),
            Err(e) => format!("CUDA ({e})"),
        }
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<Box<dyn DeviceBuffer>> {
        Ok(Box::new(CudaBuffer::new_zeroed(self.current()?, bytes)?))
    }

    fn run(&self, launch: PreparedLaunch<'_, '_>) -> Result<()> {
        match launch.stream() {
            Some(s) => {
                let q = DeviceStream::of(s)?;
                launch::launch(&q.device, &q.stream, launch)
            }
            None => {
                // The GPU `prepare` checked the arrays against.
                let d = match launch.device() {
                    Some(ordinal) => self.device(ordinal)?,
                    None => self.current()?,
                };
                launch::launch(d, &d.stream, launch)
            }
        }
    }

    fn current_device(&self) -> Result<Option<usize>> {
        Ok(Some(self.current()?.ordinal))
    }

    fn synchronize(&self) -> Result<()> {
        self.synchronize_all()
    }

    fn new_stream(&self) -> Result<Box<dyn StreamImpl>> {
        Ok(Box::new(DeviceStream::new(self.current()?)?))
    }

    fn new_event(&self) -> Result<Box<dyn EventImpl>> {
        Ok(Box::new(DeviceEvent::new(self.current()?)?))
    }

    fn alloc_pinned(&self, bytes: usize) -> Result<Box<dyn PinnedBuffer>> {
        Ok(Box::new(PinnedHost::zeroed(self.current()?, bytes)?))
    }

    fn occupancy(
        &self,
        kernel: &'static KernelDef,
        cfg: &LaunchConfig,
        dynamic_shared_bytes: usize,
    ) -> Result<Occupancy> {
        occupancy::occupancy(self.current()?, kernel, cfg, dynamic_shared_bytes)
    }

    fn suggested_block_size(&self, kernel: &'static KernelDef) -> Result<SuggestedBlockSize> {
        occupancy::suggested_block_size(self.current()?, kernel)
    }

    fn gpus(&self) -> Result<Vec<GpuInfo>> {
        (0..self.device_count())
            .map(|id| {
                let d = self.device(id)?;
                Ok(GpuInfo {
                    id,
                    name: d.name.clone(),
                    compute_capability: d.cc,
                    multiprocessors: d.limits.multiprocessors,
                })
            })
            .collect()
    }

    fn select_device(&self, id: usize) -> Result<()> {
        self.select(id)
    }
}
