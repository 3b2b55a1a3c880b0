//! Loading NVRTC: `dlopen` by absolute path, the table of entry points
//! gpujit calls (every one resolved when the library is loaded), and
//! `libnvrtc-builtins` preloading (see the parent module's docs).

use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::find::find_nvrtc;
use crate::Error;
use crate::Result;

pub(super) type NvrtcResult = c_int;
pub(super) type Program = *mut c_void;

pub(super) const NVRTC_SUCCESS: NvrtcResult = 0;
pub(super) const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: NvrtcResult = 7;

/// The NVRTC entry points gpujit uses (signatures from `nvrtc.h`).
pub(super) struct Api {
    pub(super) path: PathBuf,
    pub(super) version: (i32, i32),
    pub(super) get_error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    pub(super) get_num_supported_archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    pub(super) get_supported_archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    pub(super) create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    pub(super) destroy_program: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
    pub(super) compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    pub(super) get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    pub(super) get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    pub(super) get_cubin_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    pub(super) get_cubin: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    pub(super) get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    pub(super) get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
}

/// Why loading failed, kept so that every later call reports it again.
struct LoadFailure {
    reason: String,
    searched: Vec<PathBuf>,
}

static API: OnceLock<std::result::Result<Api, LoadFailure>> = OnceLock::new();

/// Finds ([`find_nvrtc`]) and loads NVRTC, once per process; later calls
/// return the first call's outcome (also a failure: install NVRTC, then
/// restart the process). Loads `libnvrtc` and its `libnvrtc-builtins`
/// companion by absolute path (see the module docs) and checks that the
/// entry points gpujit needs exist. Never panics.
///
/// # Errors
/// [`Error::NvrtcUnavailable`] when the library is not found, cannot be
/// opened (wrong architecture, missing dependency), lacks an entry point,
/// `nvrtcVersion` fails, or `libnvrtc-builtins.so.<major>.<minor>` is neither
/// next to it nor on the loader path.
///
/// Every NVRTC function here loads it on first use, so calling `load` is
/// only needed to check up front, e.g. at startup, that NVRTC is usable:
///
/// ```
/// if let Err(e) = gpujit::nvrtc::load() {
///     // e.g. "NVRTC is not available: no libnvrtc.so.13, ... found (searched: ...)"
///     eprintln!("{e}\nInstall it with: bash scripts/install-nvrtc.sh");
/// }
/// ```
pub fn load() -> Result<()> {
    api().map(|_| ())
}

/// The absolute path of the loaded NVRTC library, loading it first if
/// needed: which NVRTC (and so which CUDA version) compiles the kernels,
/// for diagnosing a wrong or missing one (see [`find_nvrtc`] for the
/// search order and [`ENV_NVRTC_PATH`](super::ENV_NVRTC_PATH) to choose one).
///
/// # Errors
/// As [`load`].
///
/// ```
/// match gpujit::nvrtc::library_path() {
///     Ok(path) => assert!(path.is_absolute()),
///     Err(e) => println!("no NVRTC: {e}"),
/// }
/// ```
pub fn library_path() -> Result<PathBuf> {
    api().map(|a| a.path.clone())
}

pub(super) fn api() -> Result<&'static Api> {
    let loaded = API.get_or_init(|| {
        let path = find_nvrtc().map_err(|e| match e {
            Error::NvrtcUnavailable { reason, searched } => LoadFailure { reason, searched },
            other => LoadFailure {
                reason: other.to_string(),
                searched: Vec::new(),
            },
        })?;
        // A panic (there should be none) must not escape to the user either.
        std::panic::catch_unwind(|| unsafe { open(&path) })
            .unwrap_or_else(|_| Err(format!("loading {} panicked", path.display())))
            .map_err(|reason| LoadFailure {
                reason,
                searched: vec![path.clone()],
            })
    });
    loaded.as_ref().map_err(|f| Error::NvrtcUnavailable {
        reason: f.reason.clone(),
        searched: f.searched.clone(),
    })
}

#[cfg(unix)]
unsafe fn dlopen(path: &Path) -> std::result::Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL).map(Into::into)
}

#[cfg(not(unix))]
unsafe fn dlopen(path: &Path) -> std::result::Result<libloading::Library, libloading::Error> {
    libloading::Library::new(path)
}

/// libloading's message with its cause (`dlerror()`), which its `Display` omits.
fn dl_error(e: &libloading::Error) -> String {
    use std::error::Error as _;
    match e.source() {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// Opens the library at `path` and its builtins; the handles are leaked on
/// purpose (NVRTC stays loaded for the life of the process).
unsafe fn open(path: &Path) -> std::result::Result<Api, String> {
    let lib = dlopen(path).map_err(|e| format!("cannot load {}: {}", path.display(), dl_error(&e)))?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));

    macro_rules! sym {
        ($name:literal) => {
            *lib.get(concat!($name, "\0").as_bytes()).map_err(|e| {
                format!(
                    "{} has no `{}` (not NVRTC, or too old): {e}",
                    path.display(),
                    $name
                )
            })?
        };
    }
    let version_fn: unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult = sym!("nvrtcVersion");
    let mut api = Api {
        path: path.to_path_buf(),
        version: (0, 0),
        get_error_string: sym!("nvrtcGetErrorString"),
        get_num_supported_archs: sym!("nvrtcGetNumSupportedArchs"),
        get_supported_archs: sym!("nvrtcGetSupportedArchs"),
        create_program: sym!("nvrtcCreateProgram"),
        destroy_program: sym!("nvrtcDestroyProgram"),
        compile_program: sym!("nvrtcCompileProgram"),
        get_ptx_size: sym!("nvrtcGetPTXSize"),
        get_ptx: sym!("nvrtcGetPTX"),
        get_cubin_size: sym!("nvrtcGetCUBINSize"),
        get_cubin: sym!("nvrtcGetCUBIN"),
        get_program_log_size: sym!("nvrtcGetProgramLogSize"),
        get_program_log: sym!("nvrtcGetProgramLog"),
    };
    let (mut major, mut minor) = (0, 0);
    let r = version_fn(&mut major, &mut minor);
    if r != NVRTC_SUCCESS {
        return Err(format!("nvrtcVersion failed: {}", api.error_string(r)));
    }
    api.version = (major, minor);

    // libnvrtc opens libnvrtc-builtins.so.M.m by bare name on its first
    // compile; preload it by absolute path so that the loader finds it.
    let builtins = format!("libnvrtc-builtins.so.{major}.{minor}");
    let mut dirs: Vec<PathBuf> = path.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(real) = std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    {
        if !dirs.contains(&real) {
            dirs.push(real);
        }
    }
    let mut errors = Vec::new();
    let mut loaded = false;
    for dir in &dirs {
        let candidate = dir.join(&builtins);
        if candidate.is_file() {
            match dlopen(&candidate) {
                Ok(b) => {
                    Box::leak(Box::new(b));
                    loaded = true;
                    break;
                }
                Err(e) => errors.push(format!("cannot load {}: {}", candidate.display(), dl_error(&e))),
            }
        }
    }
    if !loaded {
        // Maybe it is on the loader path (a CUDA toolkit in ld.so.conf).
        match dlopen(Path::new(&builtins)) {
            Ok(b) => {
                Box::leak(Box::new(b));
            }
            Err(e) => {
                errors.push(format!(
                    "{builtins} is not next to {} nor on the loader path ({})",
                    path.display(),
                    dl_error(&e)
                ));
                return Err(errors.join("; "));
            }
        }
    }
    Ok(api)
}

impl Api {
    pub(super) fn error_string(&self, r: NvrtcResult) -> String {
        // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string
        // for every value (or "NVRTC_ERROR unknown").
        unsafe {
            let p = (self.get_error_string)(r);
            if p.is_null() {
                format!("NVRTC error {r}")
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        }
    }
}
