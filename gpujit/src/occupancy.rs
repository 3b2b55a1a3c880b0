//! Occupancy: how many blocks of a kernel fit on one multiprocessor of the
//! current GPU, and which block size fills it best, from the CUDA driver's
//! occupancy calculator (`cuOccupancyMaxActiveBlocksPerMultiprocessor`,
//! `cuOccupancyMaxPotentialBlockSize`; CUDA runtime:
//! `cudaOccupancyMaxActiveBlocksPerMultiprocessor`,
//! `cudaOccupancyMaxPotentialBlockSize`). Numba has no direct equivalent.
//!
//! Every kernel's module has `occupancy(block)`,
//! `occupancy_with_shared(block, bytes)` and `suggested_block_size()`:
//!
//! ```
//! use gpujit::prelude::*;
//!
//! #[gpu_kernel]
//! fn square(x: &mut [f32]) {
//!     let i = grid(1);
//!     if i < x.len() {
//!         x[i] *= x[i];
//!     }
//! }
//!
//! match square::occupancy(256) {
//!     Ok(o) => println!(
//!         "{} blocks of 256 per multiprocessor, {:.0}% of its threads",
//!         o.active_blocks_per_multiprocessor,
//!         100.0 * o.fraction()
//!     ),
//!     // The CPU backend: occupancy is a GPU notion.
//!     Err(e) => println!("{e}"),
//! }
//! let threads = square::suggested_block_size().map_or(256, |s| s.block_size);
//! # assert!(threads > 0);
//! ```
//!
//! On the CPU backend both queries return [`Error::BackendUnavailable`]
//! (blocks there run one after another on each core, so there is no
//! occupancy to compute); portable code falls back to a fixed size, as above.
//!
//! [`Error::BackendUnavailable`]: crate::Error::BackendUnavailable

/// The occupancy of one kernel at one block size on the current GPU
/// (returned by the generated `name::occupancy(block)`).
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn fill(out: &mut [f32]) {
///     let i = grid(1);
///     if i < out.len() {
///         out[i] = 1.0;
///     }
/// }
///
/// match fill::occupancy(256) {
///     // On a GPU: resident blocks per multiprocessor for 256 threads each.
///     Ok(o) => println!("{} blocks of 256 per SM", o.active_blocks_per_multiprocessor),
///     // On the CPU backend occupancy is a GPU notion: an error says so.
///     Err(e) => println!("{e}"),
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// Threads per block that were asked about.
    pub block_size: u32,
    /// Dynamic shared memory per block that was asked about, in bytes.
    pub dynamic_shared_bytes: usize,
    /// Blocks of this kernel that can be resident on one multiprocessor at
    /// once (limited by threads, registers and shared memory); 0 if none fits.
    pub active_blocks_per_multiprocessor: u32,
    /// Multiprocessors of the GPU.
    pub multiprocessors: u32,
    /// Threads one multiprocessor can hold (2048 on sm_80/sm_90).
    pub max_threads_per_multiprocessor: u32,
}

impl Occupancy {
    /// Resident threads over the multiprocessor's maximum, from 0.0 to 1.0
    /// (what CUDA's occupancy calculator calls theoretical occupancy).
    pub fn fraction(&self) -> f64 {
        if self.max_threads_per_multiprocessor == 0 {
            return 0.0;
        }
        let active = u64::from(self.active_blocks_per_multiprocessor) * u64::from(self.block_size);
        active as f64 / f64::from(self.max_threads_per_multiprocessor)
    }

    /// Blocks resident on the whole GPU at once: a grid of at least this many
    /// blocks keeps every multiprocessor as busy as this block size allows.
    pub fn resident_blocks(&self) -> u64 {
        u64::from(self.active_blocks_per_multiprocessor) * u64::from(self.multiprocessors)
    }
}

/// The block size that gives a kernel the highest occupancy on the current
/// GPU (returned by the generated `name::suggested_block_size()`).
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn fill(out: &mut [f32]) {
///     let i = grid(1);
///     if i < out.len() {
///         out[i] = 1.0;
///     }
/// }
///
/// match fill::suggested_block_size() {
///     Ok(s) => println!("{s:?}"), // on a GPU: the block size to launch with
///     Err(e) => println!("{e}"),  // the CPU backend has no occupancy
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuggestedBlockSize {
    /// Threads per block (the largest of the sizes with the highest occupancy).
    pub block_size: u32,
    /// The smallest grid, in blocks, that reaches that occupancy on every
    /// multiprocessor.
    pub min_grid_size: u32,
}
