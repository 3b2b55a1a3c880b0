//! The GPUs of the machine and which one new work goes to (Numba's
//! `cuda.gpus`, `cuda.list_devices()` and `cuda.select_device`).

use crate::backend::GpuInfo;
use crate::error::Result;
use crate::select::current_backend;

/// The GPUs of the CUDA backend (opening each); empty on the CPU backend.
///
/// # Errors
/// [`Error::BackendUnavailable`]; CUDA driver errors.
///
/// [`Error::BackendUnavailable`]: crate::Error::BackendUnavailable
///
/// ```
/// for g in gpujit::gpus().unwrap() {
///     println!("GPU {}: {} (sm_{}{})", g.id, g.name, g.compute_capability.0, g.compute_capability.1);
/// }
/// ```
pub fn gpus() -> Result<Vec<GpuInfo>> {
    current_backend()?.gpus()
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
///
/// [`Error::WrongDevice`]: crate::Error::WrongDevice
/// [`Error::OutOfRange`]: crate::Error::OutOfRange
pub fn select_device(id: usize) -> Result<()> {
    current_backend()?.select_device(id)
}
