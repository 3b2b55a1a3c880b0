//! NVRTC, the CUDA runtime compiler: find `libnvrtc`, load it once, and
//! compile CUDA C to PTX.
//!
//! gpujit calls the NVRTC C API itself through [`libloading`] rather than
//! through `cudarc::nvrtc`, because cudarc 0.19 can only `dlopen` NVRTC by
//! bare file name (`libnvrtc.so`, `libnvrtc.so.13`, ...), so it only finds a
//! library on the loader path, and it panics when there is none. Here the
//! library is opened by the absolute path that [`find_nvrtc`] found, so the
//! pip wheel `nvidia-cuda-nvrtc` works without `LD_LIBRARY_PATH`, and every
//! failure is an [`Error`].
//!
//! Loading, in [`load`]:
//! 1. `dlopen(<found path>, RTLD_NOW | RTLD_GLOBAL)`.
//! 2. `nvrtcVersion` gives `M.m`; then `libnvrtc-builtins.so.M.m` is opened by
//!    absolute path from the folder of the library (or of its symlink target).
//!    libnvrtc opens the builtins library itself by bare name only when it
//!    compiles, and the wheel's libnvrtc has no RUNPATH, so without this step
//!    every compile fails with `NVRTC_ERROR_BUILTIN_OPERATION_FAILURE`. Because
//!    the loader matches a bare-name `dlopen` against the SONAMEs of libraries
//!    already loaded, libnvrtc then finds the preloaded one. The same holds
//!    for cudarc: once [`load`] succeeded, `cudarc::nvrtc` finds this
//!    library under its SONAME (unless a different `libnvrtc.so` is on the
//!    loader path, which cudarc tries first).
//!
//! NVRTC 13.0 has no `-Wall`/`-Werror` option (both are rejected as
//! `NVRTC_ERROR_INVALID_OPTION`): warnings such as `#177-D: variable "x" was
//! declared but never referenced` or `#2361-D: invalid narrowing conversion`
//! are on by default and land in the program log, which [`compile_ptx`]
//! returns in [`Ptx::log`] (see [`Ptx::has_warnings`]). `-w` would silence
//! them; `--diag-error=<n>,...` would turn chosen ones into errors.
//!
//! ```no_run
//! use gpujit::prelude::*;
//!
//! #[gpu_kernel]
//! fn add_one(v: &mut [f32]) {
//!     let i = grid(1);
//!     if i < v.len() {
//!         v[i] += 1.0;
//!     }
//! }
//!
//! # fn main() -> gpujit::Result<()> {
//! println!("NVRTC {:?} at {}", gpujit::nvrtc::version()?, gpujit::nvrtc::library_path()?.display());
//! let ptx = gpujit::nvrtc::compile_ptx(add_one::cuda_source(), "add_one", gpujit::nvrtc::TARGET_ARCH)?;
//! assert!(ptx.text.contains(".entry add_one"));
//! # Ok(())
//! # }
//! ```

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::{Error, Result};

/// The virtual architecture gpujit compiles for by default: `compute_90`
/// (Hopper, e.g. H200). Pass it as the `arch` of [`compile_ptx`].
pub const TARGET_ARCH: &str = "compute_90";

/// The oldest virtual architecture NVRTC 13.0 accepts: `compute_75` (Turing).
/// `nvrtcGetSupportedArchs` of 13.0 reports
/// `[75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]`; `compute_70` is
/// rejected with "invalid value for --gpu-architecture".
pub const OLDEST_ARCH: &str = "compute_75";

/// The environment variable naming the NVRTC library to use: a file
/// (`.../libnvrtc.so.13`) or a folder holding one. When set (and not empty) it
/// is the only place searched.
pub const ENV_NVRTC_PATH: &str = "GPUJIT_NVRTC_PATH";

/// The environment variable naming a folder NVRTC was installed into, e.g. by
/// `scripts/install-nvrtc.sh` (`pip install --target`): the folder itself and
/// its `lib`, `lib64` and `nvidia/*/lib` subfolders are searched.
pub const ENV_NVRTC_DIR: &str = "GPUJIT_NVRTC_DIR";

/// PTX text produced by [`compile_ptx`], with NVRTC's program log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ptx {
    /// The PTX assembly (`nvrtcGetPTX`), without the trailing NUL.
    pub text: String,
    /// The program log (`nvrtcGetProgramLog`) of the successful compile:
    /// warnings, or empty. Lines look like
    /// `kernel.cu(3): warning #177-D: variable "x" was declared but never referenced`.
    pub log: String,
}

impl Ptx {
    /// Whether NVRTC reported any warning (the log contains `warning`).
    pub fn has_warnings(&self) -> bool {
        self.log.contains("warning")
    }
}

// ---------------------------------------------------------------------------
// Finding the library
// ---------------------------------------------------------------------------

/// Finds the NVRTC shared library and returns its absolute path. Loads
/// nothing; every call searches again.
///
/// Accepted file names, best first in each folder: `libnvrtc.so.13`,
/// `libnvrtc.so.13.*`, `libnvrtc.so.12`, `libnvrtc.so.12.*`, `libnvrtc.so`.
/// Folders, in this order (the first folder holding one of those wins;
/// `*` matches every entry, highest version first):
///
/// 1. `$GPUJIT_NVRTC_PATH`, a file or folder. If set, nothing else is searched.
/// 2. `$GPUJIT_NVRTC_DIR` (`.`, `lib`, `lib64`, `nvidia/*/lib`).
/// 3. `$CUDA_HOME`, `$CUDA_PATH` (`lib64`, `lib`), `/usr/local/cuda/lib64`,
///    `/usr/local/cuda-*/lib64`, `/usr/lib/<arch>-linux-gnu` (`x86_64`, `aarch64`), `/usr/lib64`,
///    and each folder of `$LD_LIBRARY_PATH`.
/// 4. Python packages `nvidia/cu13/lib`, `nvidia/cuda_nvrtc/lib` and
///    `nvidia/*/lib` (the `nvidia-cuda-nvrtc` wheels) in the site-packages of
///    `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$PYTHONPATH`, `~/.local`, pyenv
///    (`~/.pyenv/versions/*`), `/usr/local`, `/usr`, `/opt/conda`;
///    also `$CONDA_PREFIX/lib`. Python is not run.
/// 5. The folders `scripts/install-nvrtc.sh` installs into:
///    `~/.cache/gpujit/nvrtc-*` and `.nvrtc` in the gpujit source checkout.
///
/// # Errors
/// [`Error::NvrtcUnavailable`] when no folder holds the library; `searched`
/// lists every folder (or, for a pattern that matched nothing, the pattern)
/// that was looked at.
pub fn find_nvrtc() -> Result<PathBuf> {
    let mut searched = Vec::new();

    if let Some(p) = env_path(ENV_NVRTC_PATH) {
        if p.is_file() {
            return Ok(absolute(&p));
        }
        searched.push(p.clone());
        if let Some(found) = find_in_dir(&p) {
            return Ok(found);
        }
        return Err(Error::NvrtcUnavailable {
            reason: format!(
                "{ENV_NVRTC_PATH}={} is neither a libnvrtc file nor a folder holding one",
                p.display()
            ),
            searched,
        });
    }

    for dir in candidate_dirs() {
        match dir {
            Candidate::Dir(d) => {
                if let Some(found) = find_in_dir(&d) {
                    return Ok(found);
                }
                searched.push(d);
            }
            Candidate::NoMatch(pattern) => searched.push(pattern),
        }
    }
    Err(Error::NvrtcUnavailable {
        reason: "no libnvrtc.so.13, libnvrtc.so.12 or libnvrtc.so found".into(),
        searched,
    })
}

enum Candidate {
    /// A folder to look in (may not exist).
    Dir(PathBuf),
    /// A wildcard pattern that matched no folder (reported as searched).
    NoMatch(PathBuf),
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn home() -> Option<PathBuf> {
    env_path("HOME")
}

/// Every folder [`find_nvrtc`] looks in after `$GPUJIT_NVRTC_PATH`, in order.
fn candidate_dirs() -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();

    // 2. Explicit install folder.
    if let Some(d) = env_path(ENV_NVRTC_DIR) {
        add_install_dir(&d, &mut out);
    }

    // 3. CUDA toolkits and system folders.
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(d) = env_path(var) {
            out.push(Candidate::Dir(d.join("lib64")));
            out.push(Candidate::Dir(d.join("lib")));
        }
    }
    out.push(Candidate::Dir("/usr/local/cuda/lib64".into()));
    push_glob("/usr/local/cuda-*/lib64".into(), &mut out);
    out.push(Candidate::Dir(
        format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH).into(),
    ));
    out.push(Candidate::Dir("/usr/lib64".into()));
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        for d in std::env::split_paths(&paths).filter(|d| !d.as_os_str().is_empty()) {
            out.push(Candidate::Dir(d));
        }
    }

    // 4. Python site-packages holding the nvidia-cuda-nvrtc wheels.
    let mut site: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(d) = env_path(var) {
            site.push(d.join("lib/python3*/site-packages"));
        }
    }
    if let Some(paths) = std::env::var_os("PYTHONPATH") {
        site.extend(std::env::split_paths(&paths).filter(|d| !d.as_os_str().is_empty()));
    }
    if let Some(h) = home() {
        site.push(h.join(".local/lib/python3*/site-packages"));
        site.push(h.join(".pyenv/versions/*/lib/python3*/site-packages"));
    }
    for prefix in ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"] {
        site.push(Path::new(prefix).join("python3*/site-packages"));
        site.push(Path::new(prefix).join("python3*/dist-packages"));
    }
    site.push("/usr/lib/python3/dist-packages".into());
    for s in site {
        for sub in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "nvidia/*/lib"] {
            push_glob(s.join(sub), &mut out);
        }
    }
    if let Some(d) = env_path("CONDA_PREFIX") {
        out.push(Candidate::Dir(d.join("lib")));
    }

    // 5. Where scripts/install-nvrtc.sh installs by default.
    if let Some(h) = home() {
        push_glob(h.join(".cache/gpujit/nvrtc-*/nvidia/*/lib"), &mut out);
    }
    if let Some(checkout) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() {
        push_glob(checkout.join(".nvrtc/nvidia/*/lib"), &mut out);
    }

    // Drop repeated folders, keeping the first.
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| match c {
        Candidate::Dir(d) | Candidate::NoMatch(d) => seen.insert(d.clone()),
    });
    out
}

/// Adds the folders matching `pattern`, or the pattern itself when nothing matches.
fn push_glob(pattern: PathBuf, out: &mut Vec<Candidate>) {
    let hits = expand(&pattern);
    if !hits.is_empty() {
        out.extend(hits.into_iter().map(Candidate::Dir));
    } else if pattern.to_string_lossy().contains('*') {
        out.push(Candidate::NoMatch(pattern));
    } else {
        out.push(Candidate::Dir(pattern));
    }
}

/// Adds a prefix that may hold the library itself or a `pip install --target` tree.
fn add_install_dir(d: &Path, out: &mut Vec<Candidate>) {
    out.push(Candidate::Dir(d.to_path_buf()));
    out.push(Candidate::Dir(d.join("lib")));
    out.push(Candidate::Dir(d.join("lib64")));
    push_glob(d.join("nvidia/cu13/lib"), out);
    push_glob(d.join("nvidia/cuda_nvrtc/lib"), out);
    push_glob(d.join("nvidia/*/lib"), out);
}

/// The best NVRTC library in `dir`, if any (see [`find_nvrtc`] for the order).
fn find_in_dir(dir: &Path) -> Option<PathBuf> {
    let names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let rank = |name: &str| -> Option<u8> {
        match name {
            "libnvrtc.so.13" => Some(0),
            n if n.starts_with("libnvrtc.so.13.") => Some(1),
            "libnvrtc.so.12" => Some(2),
            n if n.starts_with("libnvrtc.so.12.") => Some(3),
            "libnvrtc.so" => Some(4),
            _ => None,
        }
    };
    names
        .iter()
        .filter_map(|n| Some((rank(n)?, n)))
        .filter(|(_, n)| dir.join(n).is_file())
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| natural_cmp(b.1, a.1)))
        .map(|(_, n)| absolute(&dir.join(n)))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Expands `*` wildcards (each matching within one path component). Results
/// are sorted highest version first (`cuda-13.0` before `cuda-12.4`). A
/// pattern without `*` is returned as is when it exists.
fn expand(pattern: &Path) -> Vec<PathBuf> {
    let mut current = vec![PathBuf::new()];
    for comp in pattern.components() {
        let part = comp.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        for base in &current {
            if !part.contains('*') {
                next.push(base.join(comp.as_os_str()));
                continue;
            }
            let Ok(entries) = std::fs::read_dir(if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base
            }) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| wildcard_match(&part, n))
                .collect();
            names.sort_by(|a, b| natural_cmp(b, a));
            next.extend(names.into_iter().map(|n| base.join(n)));
        }
        current = next;
    }
    current.retain(|p| p.exists());
    current
}

/// `pattern` may hold `*` (any run of characters, none starting with `.`
/// when the pattern itself does not).
fn wildcard_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Compares strings with runs of digits compared as numbers
/// (`python3.12` > `python3.9`).
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ord = match (x, y) {
            ((true, x), (true, y)) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if ord.is_ne() {
            return ord;
        }
    }
    ca.len().cmp(&cb.len())
}

// ---------------------------------------------------------------------------
// Loading the library
// ---------------------------------------------------------------------------

type NvrtcResult = c_int;
type Program = *mut c_void;

const NVRTC_SUCCESS: NvrtcResult = 0;
const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: NvrtcResult = 7;

/// The NVRTC entry points gpujit uses (signatures from `nvrtc.h`).
struct Api {
    path: PathBuf,
    version: (i32, i32),
    get_error_string: unsafe extern "C" fn(NvrtcResult) -> *const c_char,
    get_num_supported_archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    get_supported_archs: unsafe extern "C" fn(*mut c_int) -> NvrtcResult,
    create_program: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> NvrtcResult,
    destroy_program: unsafe extern "C" fn(*mut Program) -> NvrtcResult,
    compile_program: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> NvrtcResult,
    get_ptx_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_ptx: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    get_program_log_size: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
    get_program_log: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
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
pub fn load() -> Result<()> {
    api().map(|_| ())
}

/// The path of the loaded NVRTC library, loading it first if needed.
///
/// # Errors
/// As [`load`].
pub fn library_path() -> Result<PathBuf> {
    api().map(|a| a.path.clone())
}

fn api() -> Result<&'static Api> {
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
    fn error_string(&self, r: NvrtcResult) -> String {
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

// ---------------------------------------------------------------------------
// Queries and compilation
// ---------------------------------------------------------------------------

/// The NVRTC version as `(major, minor)`, e.g. `(13, 0)`, from
/// `nvrtcVersion`. Loads NVRTC first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`].
pub fn version() -> Result<(i32, i32)> {
    api().map(|a| a.version)
}

/// The SM numbers NVRTC can compile for (`nvrtcGetNumSupportedArchs` +
/// `nvrtcGetSupportedArchs`), ascending, e.g. `[75, 80, 86, 87, 88, 89, 90,
/// 100, 103, 110, 120, 121]` for 13.0. Loads NVRTC first ([`load`]).
///
/// # Errors
/// [`Error::NvrtcUnavailable`] as for [`load`], or when either call fails.
pub fn supported_archs() -> Result<Vec<i32>> {
    let api = api()?;
    let fail = |what: &str, r| Error::NvrtcUnavailable {
        reason: format!("{what} failed: {}", api.error_string(r)),
        searched: vec![api.path.clone()],
    };
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer; then a buffer of exactly `n` ints.
    unsafe {
        let r = (api.get_num_supported_archs)(&mut n);
        if r != NVRTC_SUCCESS {
            return Err(fail("nvrtcGetNumSupportedArchs", r));
        }
        let mut archs = vec![0 as c_int; n.max(0) as usize];
        if !archs.is_empty() {
            let r = (api.get_supported_archs)(archs.as_mut_ptr());
            if r != NVRTC_SUCCESS {
                return Err(fail("nvrtcGetSupportedArchs", r));
            }
        }
        Ok(archs)
    }
}

/// Destroys the program when dropped.
struct ProgramGuard<'a> {
    api: &'a Api,
    prog: Program,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: `prog` came from a successful nvrtcCreateProgram.
        unsafe {
            (self.api.destroy_program)(&mut self.prog);
        }
    }
}

impl ProgramGuard<'_> {
    /// `nvrtcGetProgramLog`, without the trailing NUL.
    fn log(&self) -> String {
        self.read(self.api.get_program_log_size, self.api.get_program_log)
            .unwrap_or_default()
    }

    fn read(
        &self,
        size_fn: unsafe extern "C" fn(Program, *mut usize) -> NvrtcResult,
        get_fn: unsafe extern "C" fn(Program, *mut c_char) -> NvrtcResult,
    ) -> std::result::Result<String, NvrtcResult> {
        let mut size = 0usize;
        // SAFETY: the buffer is `size` bytes as NVRTC asked (it includes the NUL).
        unsafe {
            let r = size_fn(self.prog, &mut size);
            if r != NVRTC_SUCCESS {
                return Err(r);
            }
            let mut buf = vec![0u8; size.max(1)];
            let r = get_fn(self.prog, buf.as_mut_ptr().cast());
            if r != NVRTC_SUCCESS {
                return Err(r);
            }
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            buf.truncate(end);
            Ok(String::from_utf8_lossy(&buf).into_owned())
        }
    }
}

/// Compiles CUDA C++ `source` to PTX for the virtual architecture `arch`
/// (`"compute_90"`, see [`TARGET_ARCH`], [`OLDEST_ARCH`],
/// [`supported_archs`]). Mirrors `nvrtcCreateProgram` (program name
/// `<kernel_name>.cu`, no headers) + `nvrtcCompileProgram` with the options
/// `--gpu-architecture=<arch> -default-device --std=c++17` + `nvrtcGetPTX` +
/// `nvrtcGetProgramLog`. `kernel_name` names the program in messages only;
/// the source should declare its kernels `extern "C" __global__` so that
/// their PTX `.entry` names are unmangled. Warnings do not fail the compile:
/// they are in [`Ptx::log`] (NVRTC reports them without any flag).
/// Loads NVRTC first ([`load`]). Thread-safe.
///
/// # Errors
/// * [`Error::NvrtcUnavailable`] as for [`load`], or when NVRTC cannot use
///   its builtins library (`NVRTC_ERROR_BUILTIN_OPERATION_FAILURE`).
/// * [`Error::NvrtcCompile`] with NVRTC's log when the source does not
///   compile (`kernel.cu(1): error: expected a ";"`), when `arch` is invalid
///   or unsupported (`invalid value for --gpu-architecture`), when `source`
///   or `kernel_name` contains a NUL byte, or when another NVRTC call fails.
pub fn compile_ptx(source: &str, kernel_name: &str, arch: &str) -> Result<Ptx> {
    let api = api()?;
    let compile_err = |log: String| Error::NvrtcCompile {
        kernel: kernel_name.to_string(),
        log,
    };
    let c_source = CString::new(source).map_err(|_| compile_err("the CUDA source contains a NUL byte".into()))?;
    let c_name = CString::new(format!("{kernel_name}.cu"))
        .map_err(|_| compile_err("the kernel name contains a NUL byte".into()))?;
    let options = [
        format!("--gpu-architecture={arch}"),
        "-default-device".into(),
        "--std=c++17".into(),
    ];
    let c_options = options
        .iter()
        .map(|o| CString::new(o.as_str()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| compile_err(format!("the architecture {arch:?} contains a NUL byte")))?;
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();

    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: all strings are NUL-terminated and outlive the calls; no headers.
    let r = unsafe {
        (api.create_program)(
            &mut prog,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != NVRTC_SUCCESS {
        return Err(compile_err(format!(
            "nvrtcCreateProgram failed: {}",
            api.error_string(r)
        )));
    }
    let guard = ProgramGuard { api, prog };

    // SAFETY: `prog` is valid; `option_ptrs` holds `options.len()` C strings.
    let r = unsafe { (api.compile_program)(guard.prog, option_ptrs.len() as c_int, option_ptrs.as_ptr()) };
    let log = guard.log();
    if r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE {
        return Err(Error::NvrtcUnavailable {
            reason: format!("{} cannot use its builtins library: {}", api.path.display(), log.trim()),
            searched: vec![api.path.clone()],
        });
    }
    if r != NVRTC_SUCCESS {
        let log = if log.trim().is_empty() {
            api.error_string(r)
        } else {
            log
        };
        return Err(compile_err(log));
    }
    let text = guard
        .read(api.get_ptx_size, api.get_ptx)
        .map_err(|r| compile_err(format!("nvrtcGetPTX failed: {}\n{log}", api.error_string(r))))?;
    Ok(Ptx { text, log })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_natural_order() {
        assert!(wildcard_match("cuda-*", "cuda-12.4"));
        assert!(wildcard_match("python3*", "python3.11"));
        assert!(!wildcard_match("python3*", "python2.7"));
        assert!(wildcard_match("*", "cu13"));
        assert!(!wildcard_match("*", ".hidden"));
        assert!(wildcard_match("a*b*c", "axxbyyc"));
        assert!(!wildcard_match("a*b*c", "axxc"));
        assert!(natural_cmp("cuda-13.0", "cuda-12.4").is_gt());
        assert!(natural_cmp("python3.12", "python3.9").is_gt());
        assert!(natural_cmp("libnvrtc.so.13.0.88", "libnvrtc.so.13").is_gt());
    }

    #[test]
    fn find_in_dir_prefers_13_then_12_then_unversioned() {
        let dir = std::env::temp_dir().join(format!("gpujit-nvrtc-find-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let touch = |n: &str| std::fs::write(dir.join(n), b"").unwrap();
        assert_eq!(find_in_dir(&dir), None);
        touch("libnvrtc.alt.so.13");
        touch("libnvrtc-builtins.so.13.0");
        assert_eq!(find_in_dir(&dir), None);
        touch("libnvrtc.so");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so")));
        touch("libnvrtc.so.12.4.99");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.12.4.99")));
        touch("libnvrtc.so.13.0.88");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.13.0.88")));
        touch("libnvrtc.so.13");
        assert_eq!(find_in_dir(&dir), Some(dir.join("libnvrtc.so.13")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_library_is_an_error_listing_searched_paths() {
        // Only exercised through the pure search helpers: the environment of
        // the test process is shared, so it is not modified here.
        let nowhere = Path::new("/nonexistent/gpujit-test");
        assert_eq!(find_in_dir(nowhere), None);
        assert!(expand(&nowhere.join("*/lib")).is_empty());
        let e = Error::NvrtcUnavailable {
            reason: "x".into(),
            searched: vec![nowhere.into()],
        };
        assert!(e.to_string().contains("/nonexistent/gpujit-test"), "{e}");
    }

    // The tests that need NVRTC itself are in `tests/nvrtc_smoke.rs`, where a
    // missing NVRTC shows as ignored.
}
