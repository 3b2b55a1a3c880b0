//! Launch configurations: `Dim3`, conversions from integers and tuples, and
//! validation against the CUDA limits (the `[griddim, blockdim]` of Numba's
//! launch). Grids count blocks, blocks count threads.
//!
//! ```
//! use gpujit::launch::{blocks_for, MAX_THREADS_PER_BLOCK};
//! use gpujit::LaunchConfig;
//!
//! let n = 1_000_000; // elements, one thread each
//! let cfg = LaunchConfig::new(blocks_for(n, 256), 256).unwrap();
//! assert!(cfg.blocks() * cfg.threads_per_block() >= n as u64);
//! assert!(LaunchConfig::new(1, MAX_THREADS_PER_BLOCK + 1).is_err());
//! ```

use crate::error::{Error, Result};

/// A grid or block size in threads (block) or blocks (grid), as CUDA's `dim3`.
///
/// ```
/// let block = gpujit::Dim3::new(16, 16, 1);
/// assert_eq!(block.volume(), 256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent along x (the fastest-varying index).
    pub x: u32,
    /// Extent along y.
    pub y: u32,
    /// Extent along z.
    pub z: u32,
}

impl Dim3 {
    /// `Dim3 { x, y, z }`.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    /// `x * y * z` as `u64` (cannot overflow).
    pub fn volume(&self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// Anything accepted as a grid or block size: an integer (`u32`, `usize`,
/// `i32`, ...), a 2- or 3-tuple of integers, or a [`Dim3`]. Missing dimensions
/// are 1. A value that does not fit in `u32` (or is negative) is an
/// [`Error::InvalidLaunchConfig`].
///
/// ```
/// use gpujit::{Dim3, IntoDim3};
///
/// assert_eq!(256usize.into_dim3("block").unwrap(), Dim3::new(256, 1, 1));
/// assert_eq!((4, 2).into_dim3("grid").unwrap(), Dim3::new(4, 2, 1));
/// assert!((-1i32).into_dim3("grid").is_err());
/// ```
pub trait IntoDim3 {
    /// Converts, naming `what` ("grid" or "block") in the error.
    fn into_dim3(self, what: &str) -> Result<Dim3>;
}

/// One integer component of a grid or block size: `u8` to `u64`, `usize`,
/// `i8` to `i64`, `isize`.
///
/// ```
/// use gpujit::launch::DimComponent;
///
/// assert_eq!(7i64.to_u32("grid.x").unwrap(), 7);
/// assert!(u64::MAX.to_u32("grid.x").is_err());
/// ```
pub trait DimComponent: Copy {
    /// The value as `u32`, or an error naming `what` (e.g. "grid.x").
    fn to_u32(self, what: &str) -> Result<u32>;
}

macro_rules! dim_component {
    ($($t:ty),*) => {$(
        impl DimComponent for $t {
            fn to_u32(self, what: &str) -> Result<u32> {
                #[allow(unused_comparisons)]
                let advice = if self < 0 {
                    "a grid or block size cannot be negative"
                } else {
                    "compute fewer blocks, or cover the data with a grid-stride loop (`gridsize(1)`)"
                };
                u32::try_from(self).map_err(|_| Error::InvalidLaunchConfig(format!(
                    "{what} = {self} is not a CUDA dimension (1..=4294967295): {advice}"
                )))
            }
        }
        impl IntoDim3 for $t {
            fn into_dim3(self, what: &str) -> Result<Dim3> {
                Ok(Dim3::new(axis(self, what, 'x')?, 1, 1))
            }
        }
    )*};
}
dim_component!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Component `axis` of `what` as `u32`. A launch formats nothing: the name
/// (`grid.y`) is only spelled out for the error.
fn axis<C: DimComponent>(v: C, what: &str, axis: char) -> Result<u32> {
    v.to_u32("").or_else(|_| v.to_u32(&format!("{what}.{axis}")))
}

impl IntoDim3 for Dim3 {
    fn into_dim3(self, _what: &str) -> Result<Dim3> {
        Ok(self)
    }
}

impl<A: DimComponent, B: DimComponent> IntoDim3 for (A, B) {
    fn into_dim3(self, what: &str) -> Result<Dim3> {
        Ok(Dim3::new(axis(self.0, what, 'x')?, axis(self.1, what, 'y')?, 1))
    }
}

impl<A: DimComponent, B: DimComponent, C: DimComponent> IntoDim3 for (A, B, C) {
    fn into_dim3(self, what: &str) -> Result<Dim3> {
        Ok(Dim3::new(
            axis(self.0, what, 'x')?,
            axis(self.1, what, 'y')?,
            axis(self.2, what, 'z')?,
        ))
    }
}

/// Most threads in one block (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
///
/// ```
/// # use gpujit::launch::{MAX_BLOCK_DIM, MAX_GRID_DIM, MAX_THREADS_PER_BLOCK};
/// assert!(gpujit::LaunchConfig::new(1, MAX_THREADS_PER_BLOCK).is_ok());
/// assert!(gpujit::LaunchConfig::new(MAX_GRID_DIM[0], MAX_BLOCK_DIM[0]).is_ok());
/// ```
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Largest block size per dimension, in threads
/// (`CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X/Y/Z`); the product must also stay
/// within [`MAX_THREADS_PER_BLOCK`].
///
/// ```
/// use gpujit::launch::MAX_BLOCK_DIM;
///
/// assert!(gpujit::LaunchConfig::new(1, (1, 1, MAX_BLOCK_DIM[2])).is_ok());
/// assert!(gpujit::LaunchConfig::new(1, (1, 1, MAX_BLOCK_DIM[2] + 1)).is_err());
/// ```
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
/// Largest grid size per dimension, in blocks
/// (`CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z`): `2^31 - 1` along x, 65 535
/// along y and z.
///
/// ```
/// use gpujit::launch::MAX_GRID_DIM;
///
/// assert!(gpujit::LaunchConfig::new((1, MAX_GRID_DIM[1]), 1).is_ok());
/// assert!(gpujit::LaunchConfig::new((1, MAX_GRID_DIM[1] + 1), 1).is_err()); // use x for long grids
/// ```
pub const MAX_GRID_DIM: [u32; 3] = [2_147_483_647, 65_535, 65_535];

/// A validated launch configuration: grid size in blocks, block size in threads.
///
/// Mirrors the `[griddim, blockdim]` of Numba's `kernel[griddim, blockdim](...)`
/// and the `gridDim`/`blockDim` of `cuLaunchKernel`.
///
/// ```
/// use gpujit::LaunchConfig;
///
/// let cfg = LaunchConfig::new((8, 4), (32, 8)).unwrap();
/// assert_eq!((cfg.blocks(), cfg.threads_per_block()), (32, 256));
/// assert!(LaunchConfig::new(1, 2048).is_err()); // more than 1024 threads per block
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid (`gridDim`).
    pub grid: Dim3,
    /// Threads in a block (`blockDim`).
    pub block: Dim3,
}

impl LaunchConfig {
    /// Converts and validates a grid and block size with the CUDA driver's rules:
    /// every dimension ≥ 1; block x, y ≤ 1024, z ≤ 64, x·y·z ≤ 1024 threads;
    /// grid x ≤ 2³¹−1, y, z ≤ 65535.
    ///
    /// # Errors
    /// [`Error::InvalidLaunchConfig`] naming the broken limit.
    pub fn new(grid: impl IntoDim3, block: impl IntoDim3) -> Result<Self> {
        let cfg = LaunchConfig::unchecked(grid, block)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// `grid` and `block` converted, not yet checked against the limits: a
    /// launch's configuration, which `PreparedLaunch::prepare` checks.
    ///
    /// # Errors
    /// As [`IntoDim3::into_dim3`].
    pub(crate) fn unchecked(grid: impl IntoDim3, block: impl IntoDim3) -> Result<Self> {
        Ok(LaunchConfig {
            grid: grid.into_dim3("grid")?,
            block: block.into_dim3("block")?,
        })
    }

    /// Checks the limits listed at [`LaunchConfig::new`].
    pub fn validate(&self) -> Result<()> {
        let axes = ["x", "y", "z"];
        for (what, dim, limits) in [("grid", self.grid, MAX_GRID_DIM), ("block", self.block, MAX_BLOCK_DIM)] {
            for (axis, (value, limit)) in axes.iter().zip([dim.x, dim.y, dim.z].into_iter().zip(limits)) {
                if value == 0 {
                    return Err(Error::InvalidLaunchConfig(format!(
                        "{what}.{axis} is 0; every grid and block dimension must be at least 1"
                    )));
                }
                if value > limit {
                    return Err(Error::InvalidLaunchConfig(format!(
                        "{what}.{axis} = {value} exceeds the CUDA limit of {limit} for {what} dimension {axis}"
                    )));
                }
            }
        }
        let threads = self.block.volume();
        if threads > MAX_THREADS_PER_BLOCK {
            return Err(Error::InvalidLaunchConfig(format!(
                "block ({}, {}, {}) has {threads} threads, more than the CUDA limit of {MAX_THREADS_PER_BLOCK} threads per block",
                self.block.x, self.block.y, self.block.z
            )));
        }
        Ok(())
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.volume()
    }

    /// Total number of blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.volume()
    }
}

/// Blocks needed to cover `n` elements with `threads_per_block` threads each
/// (`ceil(n / threads_per_block)`), the usual `(n + tpb - 1) / tpb`.
/// Returns 0 when `threads_per_block` is 0 (the launch then reports the error).
///
/// ```
/// use gpujit::launch::blocks_for;
///
/// assert_eq!(blocks_for(1000, 256), 4); // Numba: (n + tpb - 1) // tpb
/// assert_eq!(blocks_for(1024, 256), 4);
/// assert_eq!(blocks_for(0, 256), 0);
/// ```
pub fn blocks_for(n: usize, threads_per_block: usize) -> usize {
    if threads_per_block == 0 {
        0
    } else {
        n.div_ceil(threads_per_block)
    }
}
