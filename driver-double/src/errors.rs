//! CUDA's error codes (`CUresult`, values from `cuda.h`), their names and
//! descriptions for `cuGetErrorName`/`cuGetErrorString`, and the faults the
//! double can be told to inject (`GPUJIT_DOUBLE_FAIL`).

use std::ffi::{c_char, CStr};

/// `CUresult`: a C enum, passed as a 32-bit unsigned integer. Kept as plain
/// integers so that no value a caller passes can be an invalid Rust enum.
pub type CuResult = u32;

pub const CUDA_SUCCESS: CuResult = 0;
pub const CUDA_ERROR_INVALID_VALUE: CuResult = 1;
pub const CUDA_ERROR_OUT_OF_MEMORY: CuResult = 2;
pub const CUDA_ERROR_NOT_INITIALIZED: CuResult = 3;
pub const CUDA_ERROR_NO_DEVICE: CuResult = 100;
pub const CUDA_ERROR_INVALID_DEVICE: CuResult = 101;
pub const CUDA_ERROR_INVALID_IMAGE: CuResult = 200;
pub const CUDA_ERROR_INVALID_CONTEXT: CuResult = 201;
pub const CUDA_ERROR_INVALID_PTX: CuResult = 218;
pub const CUDA_ERROR_JIT_COMPILER_NOT_FOUND: CuResult = 221;
pub const CUDA_ERROR_FILE_NOT_FOUND: CuResult = 301;
pub const CUDA_ERROR_INVALID_HANDLE: CuResult = 400;
pub const CUDA_ERROR_NOT_FOUND: CuResult = 500;
pub const CUDA_ERROR_NOT_READY: CuResult = 600;
pub const CUDA_ERROR_ILLEGAL_ADDRESS: CuResult = 700;
pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: CuResult = 701;
pub const CUDA_ERROR_CONTEXT_IS_DESTROYED: CuResult = 709;
pub const CUDA_ERROR_LAUNCH_FAILED: CuResult = 719;
pub const CUDA_ERROR_NOT_SUPPORTED: CuResult = 801;
pub const CUDA_ERROR_UNKNOWN: CuResult = 999;

/// Every code the double knows by name: what `cuGetErrorName` and
/// `cuGetErrorString` answer (a few codes it never returns are listed so that
/// a caller can name them too). NUL-terminated for C.
const TABLE: &[(CuResult, &str, &str)] = &[
    (CUDA_SUCCESS, "CUDA_SUCCESS\0", "no error\0"),
    (
        CUDA_ERROR_INVALID_VALUE,
        "CUDA_ERROR_INVALID_VALUE\0",
        "invalid argument\0",
    ),
    (
        CUDA_ERROR_OUT_OF_MEMORY,
        "CUDA_ERROR_OUT_OF_MEMORY\0",
        "out of memory\0",
    ),
    (
        CUDA_ERROR_NOT_INITIALIZED,
        "CUDA_ERROR_NOT_INITIALIZED\0",
        "initialization error\0",
    ),
    (4, "CUDA_ERROR_DEINITIALIZED\0", "driver shutting down\0"),
    (
        CUDA_ERROR_NO_DEVICE,
        "CUDA_ERROR_NO_DEVICE\0",
        "no CUDA-capable device is detected\0",
    ),
    (
        CUDA_ERROR_INVALID_DEVICE,
        "CUDA_ERROR_INVALID_DEVICE\0",
        "invalid device ordinal\0",
    ),
    (
        CUDA_ERROR_INVALID_IMAGE,
        "CUDA_ERROR_INVALID_IMAGE\0",
        "device kernel image is invalid\0",
    ),
    (
        CUDA_ERROR_INVALID_CONTEXT,
        "CUDA_ERROR_INVALID_CONTEXT\0",
        "invalid device context\0",
    ),
    (
        CUDA_ERROR_INVALID_PTX,
        "CUDA_ERROR_INVALID_PTX\0",
        "a PTX JIT compilation failed\0",
    ),
    (
        CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND\0",
        "PTX JIT compiler library not found\0",
    ),
    (
        CUDA_ERROR_FILE_NOT_FOUND,
        "CUDA_ERROR_FILE_NOT_FOUND\0",
        "file not found\0",
    ),
    (
        CUDA_ERROR_INVALID_HANDLE,
        "CUDA_ERROR_INVALID_HANDLE\0",
        "invalid resource handle\0",
    ),
    (
        CUDA_ERROR_NOT_FOUND,
        "CUDA_ERROR_NOT_FOUND\0",
        "named symbol not found\0",
    ),
    (CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY\0", "device not ready\0"),
    (
        CUDA_ERROR_ILLEGAL_ADDRESS,
        "CUDA_ERROR_ILLEGAL_ADDRESS\0",
        "an illegal memory access was encountered\0",
    ),
    (
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\0",
        "too many resources requested for launch\0",
    ),
    (
        CUDA_ERROR_CONTEXT_IS_DESTROYED,
        "CUDA_ERROR_CONTEXT_IS_DESTROYED\0",
        "context is destroyed\0",
    ),
    (
        CUDA_ERROR_LAUNCH_FAILED,
        "CUDA_ERROR_LAUNCH_FAILED\0",
        "unspecified launch failure\0",
    ),
    (
        CUDA_ERROR_NOT_SUPPORTED,
        "CUDA_ERROR_NOT_SUPPORTED\0",
        "operation not supported\0",
    ),
    (CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN\0", "unknown error\0"),
];

/// `(name, description)` of a known code, as NUL-terminated static strings.
pub fn describe(code: CuResult) -> Option<(&'static CStr, &'static CStr)> {
    TABLE.iter().find(|(c, _, _)| *c == code).map(|(_, name, text)| {
        (
            CStr::from_bytes_with_nul(name.as_bytes()).expect("table entries end in one NUL"),
            CStr::from_bytes_with_nul(text.as_bytes()).expect("table entries end in one NUL"),
        )
    })
}

/// The faults `GPUJIT_DOUBLE_FAIL` (a comma-separated list) injects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    /// `no-device`: `cuInit` returns `CUDA_ERROR_NO_DEVICE`.
    pub no_device: bool,
    /// `init`: `cuInit` returns `CUDA_ERROR_UNKNOWN` (a broken driver install).
    pub init: bool,
    /// `oom`: every device or pinned allocation returns `CUDA_ERROR_OUT_OF_MEMORY`.
    pub oom: bool,
    /// `illegal-address`: every kernel faults as if it read outside its
    /// buffers: `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky for the context.
    pub illegal_address: bool,
    /// `unsupported:<cuName>`: that entry point returns `CUDA_ERROR_NOT_SUPPORTED`.
    pub unsupported: Vec<String>,
}

impl Faults {
    /// Parses `GPUJIT_DOUBLE_FAIL`; an unknown word is reported on stderr and ignored.
    pub fn parse(spec: &str) -> Faults {
        let mut f = Faults::default();
        for word in spec.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "no-device" => f.no_device = true,
                "init" => f.init = true,
                "oom" => f.oom = true,
                "illegal-address" => f.illegal_address = true,
                _ => match word.strip_prefix("unsupported:") {
                    Some(name) => f.unsupported.push(name.to_string()),
                    None => eprintln!(
                        "gpujit-driver-double: GPUJIT_DOUBLE_FAIL: unknown fault {word:?} ignored \
                         (known: no-device, init, oom, illegal-address, unsupported:<cuName>)"
                    ),
                },
            }
        }
        f
    }
}

/// Writes a static C string through an out-pointer of `cuGetError*`.
///
/// # Safety
/// `out` is null or valid for one pointer write.
pub unsafe fn write_str(out: *mut *const c_char, s: Option<&'static CStr>) -> CuResult {
    if out.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-null and, by the caller's contract, writable.
    unsafe { *out = s.map_or(std::ptr::null(), CStr::as_ptr) };
    if s.is_some() {
        CUDA_SUCCESS
    } else {
        CUDA_ERROR_INVALID_VALUE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_entry_is_one_c_string() {
        for (code, _, _) in TABLE {
            let (name, text) = describe(*code).unwrap();
            assert!(name.to_str().unwrap().starts_with("CUDA_"));
            assert!(!text.to_bytes().is_empty());
        }
        assert_eq!(
            describe(CUDA_ERROR_ILLEGAL_ADDRESS).unwrap().0,
            c"CUDA_ERROR_ILLEGAL_ADDRESS"
        );
        assert!(describe(12345).is_none());
    }

    #[test]
    fn faults_parse() {
        let f = Faults::parse("oom, illegal-address,unsupported:cuMemAllocAsync");
        assert!(f.oom && f.illegal_address && !f.no_device && !f.init);
        assert_eq!(f.unsupported, ["cuMemAllocAsync"]);
        assert_eq!(Faults::parse(""), Faults::default());
    }
}
