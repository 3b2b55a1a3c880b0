//! CUDA driver errors as [`Error`] values, with the `CUresult` kept and advice.

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

use crate::error::Error;

/// Whether `code` is a fault of a running kernel: sticky, the context is lost.
pub(crate) fn is_device_fault(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
    )
}

/// What a `CUresult` means for a gpujit user.
fn advice(code: CUresult) -> &'static str {
    match code {
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
            "the GPU is out of memory; drop arrays you no longer need or use smaller ones"
        }
        CUresult::CUDA_ERROR_NO_DEVICE => "no CUDA GPU is visible (check CUDA_VISIBLE_DEVICES); set GPUJIT_BACKEND=cpu",
        CUresult::CUDA_ERROR_NOT_INITIALIZED | CUresult::CUDA_ERROR_DEINITIALIZED => {
            "the CUDA driver is not initialised; check the driver installation (nvidia-smi), or set GPUJIT_BACKEND=cpu"
        }
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => {
            "the NVIDIA driver is older than the NVRTC that compiled the kernel; update the driver or point GPUJIT_NVRTC_PATH at an NVRTC no newer than the driver (see README, \"NVRTC and driver versions\")"
        }
        CUresult::CUDA_ERROR_INVALID_VALUE => {
            "the driver rejected a value (this is a gpujit bug if gpujit's checks passed: please report it)"
        }
        CUresult::CUDA_ERROR_NOT_SUPPORTED => "the driver or GPU does not support this operation",
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
            "the kernel needs more registers or shared memory than the GPU has for this block size; use fewer threads per block"
        }
        CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU | CUresult::CUDA_ERROR_INVALID_PTX | CUresult::CUDA_ERROR_INVALID_IMAGE => {
            "the driver cannot load the compiled kernel for this GPU; check that NVRTC supports this GPU's architecture"
        }
        c if is_device_fault(c) => {
            "a kernel faulted on the GPU; the context is unusable in this process (sticky error), restart it"
        }
        _ => "see the CUDA driver API documentation for this code",
    }
}

/// The `CUresult` name, e.g. `CUDA_ERROR_OUT_OF_MEMORY` (no driver call).
pub(crate) fn code_name(code: CUresult) -> String {
    format!("{code:?}")
}

/// `e` from driver call `op` as an [`Error::Cuda`], or as an
/// [`Error::DeviceFault`] naming `kernel` for a kernel fault.
pub(crate) fn driver_error(op: &str, e: DriverError, kernel: &str) -> Error {
    if is_device_fault(e.0) {
        return Error::DeviceFault {
            kernel: kernel.to_string(),
            name: code_name(e.0),
            code: e.0 as u32,
        };
    }
    Error::Cuda {
        op: op.to_string(),
        name: code_name(e.0),
        code: e.0 as u32,
        advice: advice(e.0).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_code_and_advises() {
        let e = driver_error("cuMemAlloc", DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY), "k");
        assert!(
            matches!(&e, Error::Cuda { name, code: 2, .. } if name == "CUDA_ERROR_OUT_OF_MEMORY"),
            "{e}"
        );
        assert!(e.to_string().contains("out of memory"), "{e}");
        let e = driver_error(
            "cuStreamSynchronize",
            DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
            "saxpy",
        );
        assert!(
            matches!(&e, Error::DeviceFault { kernel, code: 700, .. } if kernel == "saxpy"),
            "{e}"
        );
        assert!(e.to_string().contains("sticky"), "{e}");
    }
}
