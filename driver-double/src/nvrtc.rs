//! `libnvrtc.so` forwarding: every `nvrtc*` call goes to the real NVRTC, so
//! the CUDA C is still checked by it, but the double remembers each
//! program's source and makes the compiled output carry it:
//!
//! * `nvrtcGetPTX` returns the real PTX followed by the source as `//|`
//!   comment lines (PTX is text, so a real driver would accept it too);
//! * `nvrtcGetCUBIN` returns the container `GJDOUBLE`, the source's length
//!   (u64 little-endian), the source, the real CUBIN's length, the real CUBIN.
//!
//! The real library is `GPUJIT_DOUBLE_REAL_NVRTC` (a file, or a folder
//! holding `libnvrtc.so.13`/`.12`/`libnvrtc.so`), else the copy that
//! `scripts/install-nvrtc.sh` puts in `~/.cache/gpujit/`. It is opened
//! `RTLD_LOCAL` (not `RTLD_DEEPBIND`, with which NVRTC 13 crashes while
//! compiling), and its `libnvrtc-builtins.so.M.m` is preloaded from its folder
//! (NVRTC opens it by bare name; the pip wheel has no RUNPATH). NVRTC's own
//! calls do not go through its exported `nvrtc*` names (the tests compare the
//! forwarded PTX with the real one byte for byte).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::module::{ptx_annotation, CUBIN_MAGIC};

type NvrtcResult = c_int;
type Program = *mut c_void;

const NVRTC_SUCCESS: NvrtcResult = 0;
const NVRTC_ERROR_INVALID_INPUT: NvrtcResult = 3;
const NVRTC_ERROR_INVALID_PROGRAM: NvrtcResult = 4;
const NVRTC_ERROR_INTERNAL_ERROR: NvrtcResult = 11;

type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult;
type GetFn = unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult;

/// The real NVRTC's entry points.
struct Real {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult,
    error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    num_archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    destroy: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    ptx_size: SizeFn,
    ptx: GetFn,
    cubin_size: Option<SizeFn>,
    cubin: Option<GetFn>,
    log_size: SizeFn,
    log: GetFn,
    add_name: Option<unsafe extern "C" fn(Program, *const c_char) -> NvrtcResult>,
    lowered_name: Option<unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> NvrtcResult>,
}

/// Where the real NVRTC is.
fn real_path() -> PathBuf {
    let given = std::env::var_os("GPUJIT_DOUBLE_REAL_NVRTC")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".cache/gpujit/nvrtc-13.0.88/nvidia/cu13/lib")
        });
    if given.is_dir() {
        for name in ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"] {
            if given.join(name).is_file() {
                return given.join(name);
            }
        }
    }
    given
}

fn open(path: &Path, flags: c_int) -> Result<libloading::Library, String> {
    // SAFETY: opening NVRTC (or its builtins) runs its static initialisers,
    // which make no calls back into this library.
    unsafe { libloading::os::unix::Library::open(Some(path), flags) }
        .map(Into::into)
        .map_err(|e| format!("cannot load {}: {e}", path.display()))
}

fn load() -> Result<Real, String> {
    let path = real_path();
    let lib = open(&path, libc::RTLD_NOW | libc::RTLD_LOCAL)?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the type is the entry point's signature in nvrtc.h.
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .map_err(|e| format!("{} has no `{}`: {e}", path.display(), $name))?
        };
    }
    macro_rules! opt {
        ($name:literal) => {
            // SAFETY: as above; absent in old NVRTC versions.
            unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                .ok()
                .map(|s| *s)
        };
    }
    let real = Real {
        version: sym!("nvrtcVersion"),
        error_string: sym!("nvrtcGetErrorString"),
        num_archs: sym!("nvrtcGetNumSupportedArchs"),
        archs: sym!("nvrtcGetSupportedArchs"),
        create: sym!("nvrtcCreateProgram"),
        destroy: sym!("nvrtcDestroyProgram"),
        compile: sym!("nvrtcCompileProgram"),
        ptx_size: sym!("nvrtcGetPTXSize"),
        ptx: sym!("nvrtcGetPTX"),
        cubin_size: opt!("nvrtcGetCUBINSize"),
        cubin: opt!("nvrtcGetCUBIN"),
        log_size: sym!("nvrtcGetProgramLogSize"),
        log: sym!("nvrtcGetProgramLog"),
        add_name: opt!("nvrtcAddNameExpression"),
        lowered_name: opt!("nvrtcGetLoweredName"),
    };
    if real.version as *const () == nvrtcVersion as *const () {
        return Err(format!("{} is this driver double, not NVRTC", path.display()));
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid out-pointers.
    if unsafe { (real.version)(&mut major, &mut minor) } != NVRTC_SUCCESS {
        return Err(format!("{}: nvrtcVersion failed", path.display()));
    }
    let builtins = format!("libnvrtc-builtins.so.{major}.{minor}");
    let mut dirs: Vec<PathBuf> = path.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(real_dir) = std::fs::canonicalize(&path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    {
        dirs.push(real_dir);
    }
    // Best effort: with the builtins on the loader path, a bare name works too.
    if let Some(b) = dirs.iter().map(|d| d.join(&builtins)).find(|p| p.is_file()) {
        Box::leak(Box::new(open(&b, libc::RTLD_NOW | libc::RTLD_GLOBAL)?));
    }
    Ok(real)
}

fn real() -> Option<&'static Real> {
    static REAL: OnceLock<Result<Real, String>> = OnceLock::new();
    REAL.get_or_init(|| {
        load().inspect_err(|e| {
            eprintln!(
                "gpujit-driver-double: no real NVRTC to forward to: {e} \
                 (set GPUJIT_DOUBLE_REAL_NVRTC, or run scripts/install-nvrtc.sh)"
            )
        })
    })
    .as_ref()
    .ok()
}

/// Each live program's source, by program handle.
fn sources() -> &'static Mutex<HashMap<usize, String>> {
    static S: OnceLock<Mutex<HashMap<usize, String>>> = OnceLock::new();
    S.get_or_init(Default::default)
}

fn source_of(prog: Program) -> Option<String> {
    sources()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&(prog as usize))
        .cloned()
}

/// Reads one of NVRTC's size+get outputs into bytes, without the trailing NUL
/// when `text`.
///
/// # Safety
/// `prog` is a program of the real NVRTC.
unsafe fn read(prog: Program, size: SizeFn, get: GetFn, text: bool) -> Result<Vec<u8>, NvrtcResult> {
    let mut n = 0usize;
    // SAFETY: valid out-pointer; then a buffer of the size NVRTC asked for.
    unsafe {
        let r = size(prog, &mut n);
        if r != NVRTC_SUCCESS {
            return Err(r);
        }
        let mut buf = vec![0u8; n.max(1)];
        let r = get(prog, buf.as_mut_ptr().cast());
        if r != NVRTC_SUCCESS {
            return Err(r);
        }
        buf.truncate(n);
        if text {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            buf.truncate(end);
        }
        Ok(buf)
    }
}

/// The PTX with the source appended, NUL-terminated.
///
/// # Safety
/// `prog` is a program of the real NVRTC.
unsafe fn annotated_ptx(real: &Real, prog: Program) -> Result<Vec<u8>, NvrtcResult> {
    // SAFETY: forwarded contract.
    let mut ptx = unsafe { read(prog, real.ptx_size, real.ptx, true) }?;
    ptx.extend(ptx_annotation(&source_of(prog).ok_or(NVRTC_ERROR_INVALID_PROGRAM)?).as_bytes());
    ptx.push(0);
    Ok(ptx)
}

/// The CUBIN container.
///
/// # Safety
/// `prog` is a program of the real NVRTC.
unsafe fn container(real: &Real, prog: Program) -> Result<Vec<u8>, NvrtcResult> {
    let (Some(size), Some(get)) = (real.cubin_size, real.cubin) else {
        return Err(NVRTC_ERROR_INVALID_INPUT);
    };
    // SAFETY: forwarded contract.
    let cubin = unsafe { read(prog, size, get, false) }?;
    let src = source_of(prog).ok_or(NVRTC_ERROR_INVALID_PROGRAM)?;
    let mut c = CUBIN_MAGIC.to_vec();
    c.extend((src.len() as u64).to_le_bytes());
    c.extend(src.as_bytes());
    c.extend((cubin.len() as u64).to_le_bytes());
    c.extend(cubin);
    Ok(c)
}

/// Writes `bytes` to `out` (sized by the matching `...Size` call).
///
/// # Safety
/// `out` is null or valid for `bytes.len()` bytes of writes.
unsafe fn emit(out: *mut c_char, bytes: Result<Vec<u8>, NvrtcResult>) -> NvrtcResult {
    match bytes {
        Ok(_) if out.is_null() => NVRTC_ERROR_INVALID_INPUT,
        Ok(b) => {
            // SAFETY: the caller sized `out` with our `...Size` answer.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), out.cast::<u8>(), b.len()) };
            NVRTC_SUCCESS
        }
        Err(r) => r,
    }
}

/// Writes a size through an out-pointer.
///
/// # Safety
/// `out` is null or valid for one write.
unsafe fn emit_size(out: *mut usize, bytes: Result<Vec<u8>, NvrtcResult>) -> NvrtcResult {
    match bytes {
        Ok(_) if out.is_null() => NVRTC_ERROR_INVALID_INPUT,
        Ok(b) => {
            // SAFETY: non-null, writable by the caller's contract.
            unsafe { *out = b.len() };
            NVRTC_SUCCESS
        }
        Err(r) => r,
    }
}

/// `nvrtcVersion`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcVersion(major: *mut c_int, minor: *mut c_int) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.version)(major, minor) })
}

/// `nvrtcGetErrorString`, forwarded.
#[no_mangle]
pub extern "C" fn nvrtcGetErrorString(result: NvrtcResult) -> *const c_char {
    match real() {
        // SAFETY: takes any value and returns a static string.
        Some(r) => unsafe { (r.error_string)(result) },
        None => c"NVRTC_ERROR_INTERNAL_ERROR (gpujit-driver-double: no real NVRTC)".as_ptr(),
    }
}

/// `nvrtcGetNumSupportedArchs`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetNumSupportedArchs(n: *mut c_int) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.num_archs)(n) })
}

/// `nvrtcGetSupportedArchs`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetSupportedArchs(archs: *mut c_int) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.archs)(archs) })
}

/// `nvrtcCreateProgram`, forwarded; the source is remembered.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcCreateProgram(
    prog: *mut Program,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: forwarded contract.
    let res = unsafe { (r.create)(prog, src, name, num_headers, headers, include_names) };
    if res == NVRTC_SUCCESS {
        // SAFETY: NVRTC succeeded, so `prog` was written and `src` is a C string.
        let (p, s) = unsafe {
            (
                *prog as usize,
                std::ffi::CStr::from_ptr(src).to_string_lossy().into_owned(),
            )
        };
        sources().lock().unwrap_or_else(|e| e.into_inner()).insert(p, s);
    }
    res
}

/// `nvrtcDestroyProgram`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcDestroyProgram(prog: *mut Program) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    if !prog.is_null() {
        // SAFETY: non-null, readable by the caller's contract.
        let p = unsafe { *prog } as usize;
        sources().lock().unwrap_or_else(|e| e.into_inner()).remove(&p);
    }
    // SAFETY: forwarded contract.
    unsafe { (r.destroy)(prog) }
}

/// `nvrtcCompileProgram`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcCompileProgram(prog: Program, n: c_int, options: *const *const c_char) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.compile)(prog, n, options) })
}

/// `nvrtcGetPTXSize`: the real size plus the source annotation.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetPTXSize(prog: Program, size: *mut usize) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: forwarded contract.
    unsafe { emit_size(size, annotated_ptx(r, prog)) }
}

/// `nvrtcGetPTX`: the real PTX, then the source as `//|` lines.
///
/// # Safety
/// As NVRTC's: `ptx` holds `nvrtcGetPTXSize` bytes.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetPTX(prog: Program, ptx: *mut c_char) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: forwarded contract.
    unsafe { emit(ptx, annotated_ptx(r, prog)) }
}

/// `nvrtcGetCUBINSize`: the container's size.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBINSize(prog: Program, size: *mut usize) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: forwarded contract.
    unsafe { emit_size(size, container(r, prog)) }
}

/// `nvrtcGetCUBIN`: the container (magic, source, real CUBIN).
///
/// # Safety
/// As NVRTC's: `cubin` holds `nvrtcGetCUBINSize` bytes.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBIN(prog: Program, cubin: *mut c_char) -> NvrtcResult {
    let Some(r) = real() else {
        return NVRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: forwarded contract.
    unsafe { emit(cubin, container(r, prog)) }
}

/// `nvrtcGetProgramLogSize`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetProgramLogSize(prog: Program, size: *mut usize) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.log_size)(prog, size) })
}

/// `nvrtcGetProgramLog`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetProgramLog(prog: Program, log: *mut c_char) -> NvrtcResult {
    // SAFETY: forwarded contract.
    real().map_or(NVRTC_ERROR_INTERNAL_ERROR, |r| unsafe { (r.log)(prog, log) })
}

/// `nvrtcAddNameExpression`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcAddNameExpression(prog: Program, name: *const c_char) -> NvrtcResult {
    match real().and_then(|r| r.add_name) {
        // SAFETY: forwarded contract.
        Some(f) => unsafe { f(prog, name) },
        None => NVRTC_ERROR_INTERNAL_ERROR,
    }
}

/// `nvrtcGetLoweredName`, forwarded.
///
/// # Safety
/// As NVRTC's.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetLoweredName(
    prog: Program,
    name: *const c_char,
    lowered: *mut *const c_char,
) -> NvrtcResult {
    match real().and_then(|r| r.lowered_name) {
        // SAFETY: forwarded contract.
        Some(f) => unsafe { f(prog, name, lowered) },
        None => NVRTC_ERROR_INTERNAL_ERROR,
    }
}
