//! Which backend runs, and why: `GPUJIT_BACKEND` read and, where CUDA is a
//! candidate, the CUDA driver probed ([`crate::probe`]).
//!
//! The backend is chosen once per process from the environment variable
//! `GPUJIT_BACKEND` (like Numba's `NUMBA_ENABLE_CUDASIM`):
//!
//! | value | backend |
//! |---|---|
//! | `auto` (default, also when unset or empty) | CUDA if it can run here, else the CPU |
//! | `cpu` | the CPU backend: every core, CUDA semantics |
//! | `cuda` | CUDA, or an error if it cannot run |
//!
//! `auto` selects CUDA when the driver loads and reports a device, else the
//! CPU (and says why); `cuda` makes `current_backend` fail, with the reason
//! and advice to use `GPUJIT_BACKEND=cpu`, when CUDA cannot run.
//!
//! This file names no backend: a [`Detection`] says which kind was chosen,
//! and `select.rs` turns it into the backend itself. So the backends may
//! name the detection in their messages (the CPU backend's "occupancy is a
//! GPU notion" says why the CPU runs).

use std::fmt;

use crate::error::{Error, Result};
use crate::probe::Found;

/// The kinds of backend (see [`detect`]).
///
/// ```
/// let kind = gpujit::detect().kind;
/// println!("kernels run on the {kind} backend"); // "CPU" or "CUDA"
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// Native Rust on all CPU cores (rayon), with CUDA's block/thread semantics.
    Cpu,
    /// An NVIDIA GPU through the CUDA driver and NVRTC.
    Cuda,
}

impl fmt::Display for BackendKind {
    /// `CPU` or `CUDA`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "CPU",
            BackendKind::Cuda => "CUDA",
        })
    }
}

/// The value of `GPUJIT_BACKEND`, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Requested {
    /// `auto`, empty or unset: CUDA when it can run, else the CPU.
    Auto,
    /// `cpu`.
    Cpu,
    /// `cuda`.
    Cuda,
}

impl Requested {
    /// Parses a `GPUJIT_BACKEND` value (`None` = unset). Case and surrounding
    /// whitespace are ignored; empty means `auto`.
    ///
    /// # Errors
    /// [`Error::BackendUnavailable`] naming the accepted values.
    pub fn parse(value: Option<&str>) -> Result<Requested> {
        let Some(raw) = value else {
            return Ok(Requested::Auto);
        };
        match raw.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(Requested::Auto),
            "cpu" => Ok(Requested::Cpu),
            "cuda" => Ok(Requested::Cuda),
            _ => Err(Error::BackendUnavailable {
                requested: raw.to_string(),
                reason: format!("GPUJIT_BACKEND=`{raw}` is not one of `auto`, `cpu`, `cuda`"),
            }),
        }
    }

    /// `"auto"`, `"cpu"` or `"cuda"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Requested::Auto => "auto",
            Requested::Cpu => "cpu",
            Requested::Cuda => "cuda",
        }
    }
}

/// Which backend gpujit chose, what was asked for, and why: the result of
/// [`detect`]. Its `Display` is one line for logs.
///
/// ```
/// let d = gpujit::detect();
/// println!("kind {}, GPUJIT_BACKEND={}, because {}", d.kind, d.requested, d.reason);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The backend selected (for `GPUJIT_BACKEND=cuda` this is CUDA even when it
    /// cannot run; \[`current_backend`\] then fails).
    pub kind: BackendKind,
    /// The value of `GPUJIT_BACKEND`: `"auto"`, `"cpu"`, `"cuda"` (or the
    /// invalid value that was found).
    pub requested: String,
    /// Why this backend was selected, or why it cannot run.
    pub reason: String,
    pub(crate) outcome: Outcome,
}

/// What `current_backend` returns for a [`Detection`] (`select.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Cpu,
    /// CUDA with this many devices.
    Cuda(usize),
    Unavailable,
}

impl Detection {
    /// Detection for a `GPUJIT_BACKEND` value (`None` = unset); `probe_cuda`
    /// (what CUDA device was found, or why CUDA cannot run) is asked only
    /// when CUDA is a candidate.
    pub(crate) fn from_request(
        value: Option<&str>,
        probe_cuda: impl FnOnce() -> std::result::Result<Found, String>,
    ) -> Detection {
        let requested = match Requested::parse(value) {
            Ok(r) => r,
            Err(e) => {
                let reason = match e {
                    Error::BackendUnavailable { reason, .. } => reason,
                    other => other.to_string(),
                };
                return Detection {
                    kind: BackendKind::Cpu,
                    requested: value.unwrap_or_default().to_string(),
                    reason,
                    outcome: Outcome::Unavailable,
                };
            }
        };
        let (kind, reason, outcome) = match requested {
            Requested::Cpu => (
                BackendKind::Cpu,
                "requested with GPUJIT_BACKEND=cpu".to_string(),
                Outcome::Cpu,
            ),
            Requested::Auto | Requested::Cuda => match probe_cuda() {
                Ok(found) => (BackendKind::Cuda, found.describe(), Outcome::Cuda(found.devices)),
                Err(why) if requested == Requested::Auto => (BackendKind::Cpu, why, Outcome::Cpu),
                Err(why) => (BackendKind::Cuda, why, Outcome::Unavailable),
            },
        };
        Detection {
            kind,
            requested: requested.as_str().to_string(),
            reason,
            outcome,
        }
    }
}

impl fmt::Display for Detection {
    /// E.g. `CPU backend (GPUJIT_BACKEND=auto: no CUDA driver (libcuda.so) was found)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Unavailable => {
                write!(
                    f,
                    "no usable backend (GPUJIT_BACKEND={}: {})",
                    self.requested, self.reason
                )
            }
            Outcome::Cpu | Outcome::Cuda(_) => write!(
                f,
                "{} backend (GPUJIT_BACKEND={}: {})",
                self.kind, self.requested, self.reason
            ),
        }
    }
}

/// Reads the environment variable `GPUJIT_BACKEND` and says which backend
/// gpujit would use and why (probing for the CUDA driver when CUDA is a
/// candidate), like checking Numba's `NUMBA_ENABLE_CUDASIM`:
///
/// | value | backend |
/// |---|---|
/// | `auto` (default, also when unset or empty) | CUDA if it can run here, else the CPU |
/// | `cpu` | the CPU backend: every core, CUDA semantics |
/// | `cuda` | CUDA, or an error if it cannot run |
///
/// CUDA can run when the driver (`libcuda.so`) loads, has every entry point
/// gpujit uses, initialises, and reports a device; the reason then names the
/// first GPU, its compute capability and the driver version. Otherwise
/// `auto` selects the CPU and the reason says why CUDA cannot run; with
/// `cuda`, allocations and launches fail with [`Error::BackendUnavailable`]
/// advising `GPUJIT_BACKEND=cpu`. Probing never panics.
///
/// Not cached: arrays and launches use the backend detected at their first
/// use in the process. Never fails; an invalid value is reported in the
/// returned [`Detection`] (and makes allocations fail).
///
/// ```
/// let d = gpujit::detect();
/// println!("{d}"); // e.g. "CPU backend (GPUJIT_BACKEND=auto: no CUDA driver (libcuda.so) was found)"
/// if d.kind == gpujit::BackendKind::Cpu {
///     assert!(!d.reason.is_empty());
/// }
/// ```
pub fn detect() -> Detection {
    let value = std::env::var("GPUJIT_BACKEND").map_err(|e| match e {
        std::env::VarError::NotPresent => None,
        std::env::VarError::NotUnicode(v) => Some(v.to_string_lossy().into_owned()),
    });
    match value {
        Ok(v) => Detection::from_request(Some(&v), crate::probe::probe),
        Err(None) => Detection::from_request(None, crate::probe::probe),
        Err(Some(v)) => Detection::from_request(Some(&v), crate::probe::probe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_backend_values() {
        assert_eq!(Requested::parse(None).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some("")).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some(" AUTO ")).unwrap(), Requested::Auto);
        assert_eq!(Requested::parse(Some("cpu")).unwrap(), Requested::Cpu);
        assert_eq!(Requested::parse(Some("Cuda")).unwrap(), Requested::Cuda);
        let err = Requested::parse(Some("gpu")).unwrap_err().to_string();
        assert!(err.contains("`auto`, `cpu`, `cuda`"), "{err}");
        assert!(err.contains("gpu"), "{err}");
    }
}
