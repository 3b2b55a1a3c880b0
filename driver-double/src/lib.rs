//! # gpujit-driver-double: a stand-in for `libcuda.so`, for tests
//!
//! No machine of the project has a GPU, so gpujit's CUDA backend is proven
//! against this library instead of NVIDIA's driver. Built as a `cdylib`
//! (`libgpujit_driver_double.so`) and found under the names `libcuda.so`,
//! `libcuda.so.1` and `libnvrtc.so` (symlinks made by
//! `scripts/driver-double.sh`), it exports the part of the CUDA driver API
//! that cudarc's safe API calls, with CUDA's C ABI and error codes, and the
//! NVRTC API, forwarded to the real NVRTC. Never published; test machinery only.
//!
//! How it behaves:
//! * **Memory** (`memory`): "device" memory is host RAM; a `CUdeviceptr` is
//!   a host address. Every pointer a copy, memset, free or launch gets is
//!   checked against the live allocations: a bad or freed pointer is
//!   `CUDA_ERROR_INVALID_VALUE` at the call (`CUDA_ERROR_ILLEGAL_ADDRESS`,
//!   sticky, if it goes bad before the stream runs the work). Each device
//!   allocation ends at a `PROT_NONE` guard page: a kernel that reads or
//!   writes past the end of an array is `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky,
//!   and the process lives on (see `memory` for what is caught and what not).
//! * **Streams and events** (`stream`) run their work in order, at once, or
//!   with `GPUJIT_DOUBLE_DEFER=1` only when something synchronizes.
//! * **Modules** (`module`) carry their CUDA C source (the forwarding NVRTC
//!   (`nvrtc`) appends it to the PTX and wraps it into the CUBIN); loading
//!   compiles it with `g++` against `driver-double/shim.h`.
//! * **Launches** (`launch`) check CUDA's limits and every array argument
//!   against its extents and run the kernel on the host: blocks in parallel
//!   unless the kernel has `__shared__` arrays, a block's threads as OS
//!   threads when it calls `__syncthreads`, else in a loop. While a kernel
//!   runs, a `SIGSEGV`/`SIGBUS` handler turns an access to a guard page into
//!   the end of that CUDA thread and an illegal address for the launch; any
//!   other fault goes to the handler installed before (or kills the process).
//!   A context with a kernel fault keeps returning its error, as CUDA's does,
//!   until it is destroyed (`cuCtxDestroy`, the last release of a primary
//!   context, `cuDevicePrimaryCtxReset`); a new context works.
//!
//! Environment (read at the first driver call):
//!
//! | variable | effect |
//! |---|---|
//! | `GPUJIT_DOUBLE_DEVICES=N` | N devices (default 1; 0: `cuInit` fails with `CUDA_ERROR_NO_DEVICE`) |
//! | `GPUJIT_DOUBLE_SM=90` | compute capability ×10 (default 90) |
//! | `GPUJIT_DOUBLE_MEMORY=bytes` | memory per device (default 16 GiB); more is `CUDA_ERROR_OUT_OF_MEMORY` |
//! | `GPUJIT_DOUBLE_DEFER=1` | stream work waits until a synchronize, query, event wait or pageable copy |
//! | `GPUJIT_DOUBLE_THREADS=N` | threads that run blocks in parallel (default: cores, at most 8) |
//! | `GPUJIT_DOUBLE_FAIL=...` | comma-separated faults: `no-device`, `init`, `oom`, `illegal-address`, `unsupported:<cuName>` (see `errors::Faults`) |
//! | `GPUJIT_DOUBLE_REAL_NVRTC=path` | the real NVRTC (file or folder); default: `~/.cache/gpujit/nvrtc-13.0.88/nvidia/cu13/lib` |
//! | `GPUJIT_DOUBLE_CXX=g++` | the host C++20 compiler |
//! | `GPUJIT_DOUBLE_CACHE=dir` | where compiled modules are cached (default `$TMPDIR/gpujit-driver-double-<uid>`) |
//!
//! Exported driver symbols: `cuInit cuDriverGetVersion cuGetExportTable cuGetErrorName
//! cuGetErrorString cuDeviceGet cuDeviceGetCount cuDeviceGetName
//! cuDeviceGetUuid cuDeviceGetUuid_v2 cuDeviceGetAttribute
//! cuDeviceTotalMem_v2 cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease_v2
//! cuDevicePrimaryCtxReset_v2 cuDevicePrimaryCtxGetState cuCtxCreate_v4
//! cuCtxDestroy_v2 cuCtxGetCurrent cuCtxSetCurrent cuCtxPushCurrent_v2
//! cuCtxPopCurrent_v2 cuCtxGetDevice cuCtxSynchronize cuCtxSetFlags
//! cuCtxGetFlags cuCtxGetLimit cuCtxSetLimit cuCtxGetCacheConfig
//! cuCtxSetCacheConfig cuCtxGetStreamPriorityRange cuStreamCreate
//! cuStreamCreateWithPriority cuStreamDestroy_v2 cuStreamSynchronize
//! cuStreamQuery cuStreamWaitEvent cuStreamIsCapturing cuLaunchHostFunc
//! cuEventCreate cuEventRecord cuEventSynchronize cuEventQuery
//! cuEventElapsedTime cuEventElapsedTime_v2 cuEventDestroy_v2 cuMemAlloc_v2
//! cuMemAllocAsync cuMemFree_v2 cuMemFreeAsync cuMemHostAlloc
//! cuMemAllocHost_v2 cuMemFreeHost cuMemGetInfo_v2 cuMemcpyHtoD_v2
//! cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2
//! cuMemcpyDtoDAsync_v2 cuMemcpyPeerAsync cuMemsetD8_v2 cuMemsetD8Async
//! cuMemsetD32_v2 cuMemsetD32Async cuModuleLoad cuModuleLoadData
//! cuModuleLoadDataEx cuModuleUnload cuModuleGetFunction cuModuleGetGlobal_v2
//! cuFuncGetAttribute cuFuncSetAttribute cuFuncSetCacheConfig cuLaunchKernel
//! cuLaunchCooperativeKernel cuOccupancyMaxActiveBlocksPerMultiprocessor
//! cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
//! cuOccupancyMaxPotentialBlockSize cuOccupancyMaxPotentialBlockSizeWithFlags
//! cuOccupancyAvailableDynamicSMemPerBlock`.
//!
//! Exported NVRTC symbols: `nvrtcVersion nvrtcGetErrorString
//! nvrtcGetNumSupportedArchs nvrtcGetSupportedArchs nvrtcCreateProgram
//! nvrtcDestroyProgram nvrtcCompileProgram nvrtcGetPTXSize nvrtcGetPTX
//! nvrtcGetCUBINSize nvrtcGetCUBIN nvrtcGetProgramLogSize nvrtcGetProgramLog
//! nvrtcAddNameExpression nvrtcGetLoweredName`.
//!
//! Not modelled (cudarc's safe API has them, gpujit does not use them):
//! graphs and stream capture, memory pools, managed memory, external memory,
//! cooperative launches (`CUDA_ERROR_NOT_SUPPORTED`), `__device__` globals
//! (`CUDA_ERROR_NOT_FOUND`). A symbol cudarc looks up that is not exported
//! makes cudarc panic ("Missing symbol"), so such a gap shows loudly.
//!
//! Use: `eval "$(bash scripts/driver-double.sh)"` exports `LD_LIBRARY_PATH`,
//! `GPUJIT_NVRTC_PATH` and `GPUJIT_DOUBLE_REAL_NVRTC`; then every process
//! started from that shell that loads `libcuda.so` gets the double.

// CUDA's entry points keep CUDA's names.
#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)] // each entry point's doc has a `# Safety` section or takes no pointer it dereferences

mod device;
mod errors;
mod launch;
mod memory;
mod module;
mod nvrtc;
mod state;
mod stream;
