//! Tests of the CPU executor with hand-written kernel bodies: the
//! executor (coordinates, barriers, shared memory, batches), faults (bounds,
//! division, panics, time limits), and the own-index views and spans.

mod executor;
mod faults;
mod views;

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::backend::Backend;
use crate::cpu::exec::{parse_time_limit, MAX_SHARED_BYTES, SCOPED_LIMIT, TIME_LIMIT_ENV};
use crate::cpu::{with_cpu_time_limit, CpuBackend, Idx3, SharedLayout, View};
use crate::error::{Error, Result};
use crate::kernel_def::{CpuLaunch, KernelArg, KernelDef};
use crate::kernel_def::{ParamDef, ParamKind};
use crate::launch::LaunchConfig;
use crate::scalar::ScalarType;
use crate::DeviceArray;

/// Arrays in the CPU backend's host memory whatever `GPUJIT_BACKEND`
/// says: these tests run the CPU executor directly.
fn cpu_zeros<T: crate::DeviceScalar>(shape: impl Into<crate::Shape>) -> Result<DeviceArray<T>> {
    DeviceArray::zeros_on(&CpuBackend, shape)
}

fn cpu_filled<T: crate::DeviceScalar>(data: &[T]) -> DeviceArray<T> {
    let mut a = cpu_zeros::<T>(data.len()).unwrap();
    a.copy_from_host(data).unwrap();
    a
}

fn no_source() -> &'static str {
    ""
}

const fn kernel(
    name: &'static str,
    params: &'static [ParamDef],
    cpu: crate::kernel_def::CpuEntry,
    uses_barrier: bool,
) -> KernelDef {
    KernelDef {
        name,
        entry: name,
        params,
        cuda_source: no_source,
        nvrtc_source: no_source,
        cpu,
        uses_barrier,
        recursive: || false,
    }
}

const fn array(name: &'static str, elem: ScalarType, ndim: usize, mutable: bool) -> ParamDef {
    ParamDef {
        name,
        kind: ParamKind::Array { elem, ndim, mutable },
    }
}

fn cfg(grid: impl crate::IntoDim3, block: impl crate::IntoDim3) -> LaunchConfig {
    LaunchConfig::new(grid, block).unwrap()
}
