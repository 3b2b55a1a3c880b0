//! The GPUs of the machine and which one new work goes to (Numba's
//! `cuda.gpus`, `cuda.list_devices()` and `cuda.select_device`).

use crate::error::{Error, Result};
use crate::stream::cuda_backend;

/// One GPU, as [`gpus`] lists it (Numba: an entry of `cuda.gpus`; the
/// fields are `cuDeviceGetName` and `cuDeviceGetAttribute`'s compute
/// capability and multiprocessor count).
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// // The GPU with the most multiprocessors, if any (none on the CPU backend).
/// let biggest = gpujit::gpus()?.into_iter().max_by_key(|g| g.multiprocessors);
/// if let Some(g) = biggest {
///     gpujit::select_device(g.id)?;
///     println!("{} (compute capability {}.{})", g.name, g.compute_capability.0, g.compute_capability.1);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// Its number (CUDA ordinal), for [`select_device`].
    pub id: usize,
    /// The product name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
}

/// The GPUs of the CUDA backend (opening each); empty on the CPU backend.
///
/// # Errors
/// [`Error::BackendUnavailable`]; CUDA driver errors.
///
/// ```
/// for g in gpujit::gpus().unwrap() {
///     println!("GPU {}: {} (sm_{}{})", g.id, g.name, g.compute_capability.0, g.compute_capability.1);
/// }
/// ```
pub fn gpus() -> Result<Vec<GpuInfo>> {
    let Some(b) = cuda_backend()? else {
        return Ok(Vec::new());
    };
    (0..b.device_count())
        .map(|id| {
            let d = b.device(id)?;
            Ok(GpuInfo {
                id,
                name: d.name.clone(),
                compute_capability: d.cc,
                multiprocessors: d.limits.multiprocessors,
            })
        })
        .collect()
}

/// Makes GPU `id` the one that new arrays, streams, events and launches
/// without a stream use, for the whole process (Numba's
/// `cuda.select_device(id)`, which is per thread). Arrays keep the GPU they
/// were made on; a launch mixing GPUs is an [`Error::WrongDevice`].
///
/// # Errors
/// [`Error::OutOfRange`] for a GPU that does not exist, or on the CPU
/// backend; CUDA driver errors.
///
/// ```
/// if !gpujit::gpus().unwrap().is_empty() {
///     gpujit::select_device(0).unwrap();
/// }
/// ```
pub fn select_device(id: usize) -> Result<()> {
    match cuda_backend()? {
        Some(b) => b.select(id),
        None => Err(Error::OutOfRange(format!(
            "there is no GPU {id}: kernels run on the CPU backend ({})",
            crate::detect()
        ))),
    }
}
