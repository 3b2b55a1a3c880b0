//! The backend of this process: the only file that names both backends.
//!
//! [`crate::detect`] says which kind of backend runs and why; this file keeps
//! the one CPU backend and the CUDA backend (opened on first use) and hands
//! out the one a [`Detection`] selects. Everything above it (arrays, streams,
//! copies, pinned memory, occupancy, launches) asks [`current_backend`] and
//! talks to the [`Backend`] trait, never to a backend's own types.

use std::sync::OnceLock;

use crate::backend::Backend;
use crate::cpu::CpuBackend;
use crate::cuda::CudaBackend;
use crate::detect::{detect, Detection, Outcome};
use crate::error::{Error, Result};

static CPU_BACKEND: CpuBackend = CpuBackend;
static CUDA_BACKEND: OnceLock<CudaBackend> = OnceLock::new();

impl Detection {
    /// The backend this detection selects.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] with the reason and the advice to set
    /// `GPUJIT_BACKEND=cpu`, if the requested backend cannot run or the
    /// value of `GPUJIT_BACKEND` is invalid.
    pub(crate) fn backend(&self) -> Result<&'static dyn Backend> {
        match self.outcome {
            Outcome::Cpu => Ok(&CPU_BACKEND),
            Outcome::Cuda(devices) => Ok(CUDA_BACKEND.get_or_init(|| CudaBackend::new(devices))),
            Outcome::Unavailable => Err(Error::BackendUnavailable {
                requested: self.requested.clone(),
                reason: format!("{}; set GPUJIT_BACKEND=cpu to run kernels on the CPU", self.reason),
            }),
        }
    }
}

static DETECTION: OnceLock<Detection> = OnceLock::new();

/// The detection [`current_backend`] uses: [`detect`], run once per process.
pub(crate) fn current_detection() -> &'static Detection {
    DETECTION.get_or_init(detect)
}

/// The backend that arrays are allocated on and kernels run on, chosen once per
/// process (see [`detect`]).
///
/// # Errors
/// [`Error::BackendUnavailable`] if `GPUJIT_BACKEND` is invalid, or asks for a
/// backend that cannot run here (the message says to set `GPUJIT_BACKEND=cpu`).
pub fn current_backend() -> Result<&'static dyn Backend> {
    current_detection().backend()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::BackendKind;
    use crate::probe::Found;

    fn h200() -> std::result::Result<Found, String> {
        Ok(Found {
            devices: 2,
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            driver_version: 13000,
        })
    }

    #[test]
    fn detection_outcomes() {
        let d = Detection::from_request(None, || Err("no CUDA driver (libcuda.so) was found".into()));
        assert_eq!((d.kind, d.requested.as_str()), (BackendKind::Cpu, "auto"));
        assert!(d.reason.contains("no CUDA driver"), "{d}");
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);

        let d = Detection::from_request(Some("auto"), h200);
        assert_eq!((d.kind, d.outcome), (BackendKind::Cuda, Outcome::Cuda(2)));
        assert!(
            d.reason
                .contains("NVIDIA H200 (compute capability 9.0), driver CUDA 13.0, 2 devices"),
            "{d}"
        );

        let d = Detection::from_request(Some("auto"), || Err("cuInit failed with CUDA_ERROR_UNKNOWN".into()));
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);
        assert!(d.to_string().contains("cuInit failed"), "{d}");

        let d = Detection::from_request(Some("cpu"), || panic!("must not probe for CUDA when cpu is requested"));
        assert_eq!(d.backend().unwrap().kind(), BackendKind::Cpu);

        let d = Detection::from_request(Some("cuda"), || Err("the CUDA driver reports no device".into()));
        assert_eq!(d.kind, BackendKind::Cuda);
        let err = d.backend().unwrap_err();
        assert!(
            matches!(&err, Error::BackendUnavailable { requested, .. } if requested == "cuda"),
            "{err}"
        );
        assert!(err.to_string().contains("GPUJIT_BACKEND=cpu"), "{err}");
        assert!(err.to_string().contains("reports no device"), "{err}");

        let d = Detection::from_request(Some("tpu"), || Err(String::new()));
        let err = d.backend().unwrap_err().to_string();
        assert!(err.contains("`auto`, `cpu`, `cuda`"), "{err}");
    }
}
