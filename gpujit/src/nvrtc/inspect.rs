//! What NVRTC makes of one `#[gpu_kernel]`: its CUBIN (for a launch), its
//! PTX and its resource report (for people), each through the on-disk cache.

use super::{Cache, Cubin, Ptx, Resources};
use crate::kernel_def::KernelDef;
use crate::Result;

impl KernelDef {
    /// The kernel's CUBIN for the compute capability `arch`, compiled from
    /// [`KernelDef::nvrtc_source`] through [`Cache::from_env`]: what a launch
    /// on a device of that capability loads.
    ///
    /// # Errors
    /// As [`super::compile_cubin`].
    pub fn cubin(&self, arch: (u32, u32)) -> Result<Cubin> {
        Cache::from_env().compile_cubin((self.nvrtc_source)(), self.entry, arch)
    }

    /// The kernel's PTX for `compute_XY` of `arch`, through the cache.
    ///
    /// # Errors
    /// As [`super::compile_ptx`].
    pub fn ptx(&self, arch: (u32, u32)) -> Result<Ptx> {
        Cache::from_env().compile_ptx((self.nvrtc_source)(), self.entry, arch)
    }

    /// ptxas's resource report of the kernel's CUBIN for `arch`.
    ///
    /// # Errors
    /// As [`KernelDef::cubin`], or no report in the log.
    pub fn resources(&self, arch: (u32, u32)) -> Result<Resources> {
        self.cubin(arch)?.resources()
    }
}
