//! Modules: from an image to kernels that run on the host.
//!
//! The image (`cuModuleLoadData`) is what the double's `nvrtcGetCUBIN` or
//! `nvrtcGetPTX` produced (see [`crate::nvrtc`]): the CUBIN container
//! `GJDOUBLE` + source + real CUBIN, or PTX text followed by the source as
//! `//|` comment lines. The CUDA C source is taken out, every
//! `extern "C" __global__ void` in it is parsed, a launcher is generated for
//! each, and the lot is compiled by `g++` against `driver-double/shim.h`
//! into a shared library (cached by a hash of its text, see [`build`]) and
//! loaded. An image without source (a real CUBIN, a fatbin, plain PTX) is
//! `CUDA_ERROR_INVALID_IMAGE`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::errors::*;
use crate::state::{entry, put, Driver};

/// The first bytes of the double's CUBIN container.
pub const CUBIN_MAGIC: &[u8; 8] = b"GJDOUBLE";
/// The line after which PTX carries the source.
pub const PTX_MARKER: &str = "// gpujit-driver-double: CUDA C source follows";
/// The prefix of each source line in PTX.
pub const PTX_LINE: &str = "//|";

/// The shim the kernels are compiled against (`driver-double/shim.h`, which
/// `tests/agree/` compiles the emitted C against too).
const SHIM: &str = include_str!("../shim.h");
/// Runs one launch: the blocks (in parallel when the kernel has no
/// `__shared__` arrays, which the shim keeps in statics), and in each block the
/// threads, as OS threads meeting at a barrier when the kernel calls
/// `__syncthreads`, else one after another.
///
/// While the threads run, a `SIGSEGV`/`SIGBUS` handler is installed: a fault
/// at an address in a guard page of a live device allocation (the table the
/// driver passes, see `memory`), taken by a thread while it runs the kernel's
/// body, ends that CUDA thread (`siglongjmp` back to `thread_body`), records
/// the address, and makes the launch an illegal address: no further block
/// starts, and the driver returns `CUDA_ERROR_ILLEGAL_ADDRESS`. Any other
/// fault goes to the handler that was installed before (Rust's, which tells a
/// stack overflow and otherwise restores the default action) or, where there
/// was none, to the default action: the process dies as it would have.
const RUNNER: &str = r#"
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <pthread.h>
#include <thread>
#include <vector>
namespace gj_double {
// The guard pages of the live device allocations, sorted [start, end) pairs,
// for the length of one launch (launches are serialized by the driver lock,
// and no allocation changes while one runs).
static const unsigned long long* gj_guards = nullptr;
static unsigned long long gj_nguards = 0;
// The first guard address a kernel thread touched in this launch, 0 if none.
static std::atomic<unsigned long long> gj_fault_addr{0};
// Where a fault in the kernel's body resumes this thread; null outside it.
static thread_local sigjmp_buf* gj_fault_jmp = nullptr;
static struct sigaction gj_old_segv, gj_old_bus;

static bool in_guard(unsigned long long a) {
    unsigned long long lo = 0, hi = gj_nguards;
    while (lo < hi) {
        const unsigned long long mid = lo + (hi - lo) / 2;
        if (gj_guards[2 * mid] <= a) lo = mid + 1; else hi = mid;
    }
    return lo > 0 && a < gj_guards[2 * (lo - 1) + 1];
}

// Async-signal-safe: reads the table (plain memory, unchanged during the
// launch), then this thread's jump buffer (set before the body runs, so its
// TLS exists), an atomic compare-exchange, siglongjmp, sigaction.
static void on_fault(int sig, siginfo_t* info, void* uc) {
    const unsigned long long a = (unsigned long long)info->si_addr;
    if (in_guard(a) && gj_fault_jmp != nullptr) {
        unsigned long long none = 0;
        gj_fault_addr.compare_exchange_strong(none, a);
        siglongjmp(*gj_fault_jmp, 1);
    }
    const struct sigaction& old = sig == SIGBUS ? gj_old_bus : gj_old_segv;
    if (old.sa_flags & SA_SIGINFO) {
        if (old.sa_sigaction != nullptr) {
            old.sa_sigaction(sig, info, uc);
            return;
        }
    } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
        old.sa_handler(sig);
        return;
    }
    // No handler before ours: the default action. Returning re-runs the
    // faulting access, which now ends the process.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
}

// Installs `on_fault` for one launch and puts the previous handlers back.
struct fault_handler {
    fault_handler(const unsigned long long* guards, unsigned long long n) {
        gj_guards = guards;
        gj_nguards = n;
        gj_fault_addr.store(0);
        struct sigaction sa {};
        sa.sa_sigaction = on_fault;
        // SA_ONSTACK: on a thread with an alternate signal stack (Rust's
        // threads), a stack overflow still reaches Rust's handler.
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &gj_old_segv);
        sigaction(SIGBUS, &sa, &gj_old_bus);
    }
    ~fault_handler() {
        sigaction(SIGSEGV, &gj_old_segv, nullptr);
        sigaction(SIGBUS, &gj_old_bus, nullptr);
        gj_guards = nullptr;
        gj_nguards = 0;
    }
};

// Runs one thread of the kernel; a `__trap()` ends it (and, through
// `gj_trapped`, the launch: no further block starts), and so does an access
// to a guard page (`on_fault` jumps back here). The jump skips only the
// kernel's frames, whose locals (scalars and arrays of scalars) have no
// destructors; the emitted code takes no locks.
template <class Body>
void thread_body(const Body& body) {
    sigjmp_buf resume;
    // 0: the signal mask is not saved (a syscall per CUDA thread); the fault
    // path unblocks the signal itself.
    if (sigsetjmp(resume, 0) == 0) {
        gj_fault_jmp = &resume;
        // The body cannot see `gj_fault_jmp`, so without these fences the
        // compiler may move the store past the body's accesses (or drop it).
        std::atomic_signal_fence(std::memory_order_seq_cst);
        try {
            body();
        } catch (const gj_trapped_t&) {
        }
        std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGSEGV);
        sigaddset(&s, SIGBUS);
        pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
        gj_trapped.store(true);
    }
    gj_fault_jmp = nullptr;
}
// 0: done; 1: the host could not start its threads; 2: a thread trapped;
// 3: a thread touched a guard page (the first such address in `*fault`).
template <class Body>
int run(const unsigned* g, const unsigned* b, bool barrier, bool parallel, unsigned workers,
        const unsigned long long* guards, unsigned long long nguards, unsigned long long* fault, const Body& body) {
    try {
        std::lock_guard<std::mutex> one_launch_at_a_time(gj_launch_mutex);
        gj_trapped.store(false);
        gridDim = {g[0], g[1], g[2]};
        blockDim = {b[0], b[1], b[2]};
        const unsigned long long blocks = (unsigned long long)g[0] * g[1] * g[2];
        const unsigned n = b[0] * b[1] * b[2];
        fault_handler handler(guards, nguards);
        auto block = [&](unsigned long long i) {
            if (gj_trapped.load()) return;
            const uint3 bi = {(unsigned)(i % g[0]), (unsigned)(i / g[0] % g[1]), (unsigned)(i / g[0] / g[1])};
            if (barrier) {
                gj_block_sync bar(n);
                std::vector<std::thread> threads;
                threads.reserve(n);
                for (unsigned tz = 0; tz < b[2]; tz++) for (unsigned ty = 0; ty < b[1]; ty++) for (unsigned tx = 0; tx < b[0]; tx++)
                    threads.emplace_back([&, tx, ty, tz] {
                        threadIdx = {tx, ty, tz};
                        blockIdx = bi;
                        gj_block_barrier = &bar;
                        gj_vote_round = 0;
                        thread_body(body);
                        bar.arrive_and_drop();
                    });
                for (auto& t : threads) t.join();
            } else {
                blockIdx = bi;
                for (unsigned tz = 0; tz < b[2]; tz++) for (unsigned ty = 0; ty < b[1]; ty++) for (unsigned tx = 0; tx < b[0]; tx++) {
                    threadIdx = {tx, ty, tz};
                    thread_body(body);
                }
            }
        };
        if (parallel && workers > 1 && blocks > 1) {
            std::atomic<unsigned long long> next{0};
            std::vector<std::thread> pool;
            for (unsigned w = 0; w < workers && w < blocks; w++)
                pool.emplace_back([&] {
                    for (unsigned long long i; (i = next.fetch_add(1)) < blocks;) block(i);
                });
            for (auto& t : pool) t.join();
        } else {
            for (unsigned long long i = 0; i < blocks; i++) block(i);
        }
        if (const unsigned long long a = gj_fault_addr.load()) {
            *fault = a;
            return 3;
        }
        return gj_trapped.load() ? 2 : 0;
    } catch (...) {
        return 1;
    }
}
}
"#;
/// Changes whenever the generated C++ changes, so that old cache entries are not reused.
const BUILD_VERSION: &str = "gpujit-driver-double build 4; g++ -std=c++20 -O2 -frounding-math";

/// A kernel parameter's C type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CType {
    /// `[const] T* __restrict__`: an array.
    Pointer {
        elem: &'static str,
        size: usize,
        is_const: bool,
    },
    /// A scalar by value.
    Scalar { name: &'static str, size: usize },
}

/// The scalar C types the emitter writes (`ScalarType::c_name`), with their sizes.
const SCALARS: &[(&str, usize)] = &[
    ("unsigned long long", 8),
    ("long long", 8),
    ("unsigned int", 4),
    ("unsigned char", 1),
    ("signed char", 1),
    ("unsigned short", 2),
    ("short", 2),
    ("int", 4),
    ("float", 4),
    ("double", 8),
    ("bool", 1),
];

/// One C parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CParam {
    pub name: String,
    pub ty: CType,
    /// For a pointer: the indices of the parameters that hold its extents
    /// (`x_len`, or `a_d0`, `a_d1`, ..., as the emitter names them).
    pub dims: Vec<usize>,
}

impl CParam {
    /// Bytes its value occupies in `kernelParams`.
    pub fn size(&self) -> usize {
        match self.ty {
            CType::Pointer { .. } => 8,
            CType::Scalar { size, .. } => size,
        }
    }

    fn c_type(&self) -> String {
        match &self.ty {
            CType::Pointer { elem, is_const, .. } => format!("{}{elem}*", if *is_const { "const " } else { "" }),
            CType::Scalar { name, .. } => name.to_string(),
        }
    }
}

/// One `__global__` function as the source declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub params: Vec<CParam>,
}

/// Parses one parameter declaration such as `const float* __restrict__ x`.
fn parse_param(decl: &str) -> Option<(String, CType)> {
    let decl = decl.split_whitespace().collect::<Vec<_>>().join(" ");
    let (ty, name) = decl.rsplit_once(' ')?;
    let valid = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid(name) {
        return None;
    }
    let ty = ty.trim_end_matches("__restrict__").trim();
    if let Some(elem) = ty.strip_suffix('*') {
        let elem = elem.trim();
        let (elem, is_const) = match elem.strip_prefix("const ") {
            Some(e) => (e.trim(), true),
            None => (elem, false),
        };
        let &(elem, size) = SCALARS.iter().find(|(n, _)| *n == elem)?;
        return Some((name.to_string(), CType::Pointer { elem, size, is_const }));
    }
    let &(ty, size) = SCALARS.iter().find(|(n, _)| *n == ty)?;
    Some((name.to_string(), CType::Scalar { name: ty, size }))
}

/// Whether `name` is the emitter's name for extent `k` of array `p`: the base
/// (`p_len` for 1-D, `p_d{k}`) or a renamed one (`p_len_`, `p_len_2`, ...).
fn is_dim_name(name: &str, p: &str, k: usize, one_d: bool) -> bool {
    let base = if one_d { format!("{p}_len") } else { format!("{p}_d{k}") };
    match name.strip_prefix(&base) {
        Some("") | Some("_") => true,
        Some(rest) => rest
            .strip_prefix('_')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// Every `extern "C" __global__ void NAME(...)` in `source`, or why one
/// cannot be read.
pub fn signatures(source: &str) -> Result<Vec<Signature>, String> {
    const HEAD: &str = "extern \"C\" __global__ void ";
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find(HEAD) {
        rest = &rest[at + HEAD.len()..];
        let open = rest.find('(').ok_or("a kernel without `(`")?;
        let name = rest[..open].trim().to_string();
        let close = rest[open..].find(')').ok_or("a kernel without `)`")? + open;
        let list = rest[open + 1..close].trim();
        let mut params: Vec<CParam> = Vec::new();
        if !list.is_empty() && list != "void" {
            for decl in list.split(',') {
                let (pname, ty) = parse_param(decl)
                    .ok_or_else(|| format!("kernel `{name}`: cannot read the parameter `{}`", decl.trim()))?;
                params.push(CParam {
                    name: pname,
                    ty,
                    dims: Vec::new(),
                });
            }
        }
        // Give each pointer the extents that follow it.
        let u64_named = |p: &CParam| {
            p.ty == CType::Scalar {
                name: "unsigned long long",
                size: 8,
            }
        };
        for i in 0..params.len() {
            if !matches!(params[i].ty, CType::Pointer { .. }) {
                continue;
            }
            let p = params[i].name.clone();
            let mut dims = Vec::new();
            let one_d = params
                .get(i + 1)
                .is_some_and(|q| u64_named(q) && is_dim_name(&q.name, &p, 0, true));
            while let Some(q) = params.get(i + 1 + dims.len()) {
                let k = dims.len();
                if !u64_named(q) || !is_dim_name(&q.name, &p, k, one_d) || (one_d && k == 1) || k == 3 {
                    break;
                }
                dims.push(i + 1 + k);
            }
            params[i].dims = dims;
        }
        out.push(Signature { name, params });
        rest = &rest[close..];
    }
    Ok(out)
}

/// The CUDA C source an image carries, `Err(CUDA_ERROR_INVALID_IMAGE)` when it carries none.
///
/// # Safety
/// `image` points to a CUBIN container (self-describing lengths) or to
/// NUL-terminated text, as `cuModuleLoadData` requires of its image.
pub unsafe fn source_of_image(image: *const c_void) -> Result<String, CuResult> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let p = image.cast::<u8>();
    // SAFETY: any image is at least 8 bytes long, or NUL-terminated before:
    // stop at the first NUL so as not to read past a short text.
    let head: Vec<u8> = unsafe {
        let mut h = Vec::new();
        for i in 0..8 {
            let b = *p.add(i);
            h.push(b);
            if b == 0 {
                break;
            }
        }
        h
    };
    if head.as_slice() == CUBIN_MAGIC {
        // SAFETY: a container: magic, u64 LE source length, the source (read as bytes).
        let src = unsafe {
            let len = u64::from_le_bytes(std::ptr::read_unaligned(p.add(8).cast::<[u8; 8]>())) as usize;
            std::slice::from_raw_parts(p.add(16), len)
        };
        return String::from_utf8(src.to_vec()).map_err(|_| CUDA_ERROR_INVALID_IMAGE);
    }
    // SAFETY: not a container: text, NUL-terminated by the caller's contract
    // (a binary image has a NUL within its first bytes).
    let text = unsafe { CStr::from_ptr(image.cast::<c_char>()) };
    source_of_ptx(&text.to_string_lossy()).ok_or(CUDA_ERROR_INVALID_IMAGE)
}

/// The source the double's `nvrtcGetPTX` appended to PTX text.
pub fn source_of_ptx(ptx: &str) -> Option<String> {
    let (_, tail) = ptx.split_once(PTX_MARKER)?;
    let mut src = String::new();
    for line in tail.lines().skip(1) {
        let Some(l) = line.strip_prefix(PTX_LINE) else { break };
        src.push_str(l.strip_prefix(' ').unwrap_or(l));
        src.push('\n');
    }
    Some(src)
}

/// The PTX annotation carrying `source`: appended to real PTX by `nvrtcGetPTX`.
pub fn ptx_annotation(source: &str) -> String {
    let mut a = format!("\n{PTX_MARKER}\n");
    for line in source.lines() {
        a.push_str(PTX_LINE);
        a.push(' ');
        a.push_str(line);
        a.push('\n');
    }
    a
}

/// The C++ translation unit for a module: the shim, the runner, the source
/// in its own namespace, and one `gj_double_launch_NAME` per kernel.
pub fn translation_unit(source: &str, sigs: &[Signature]) -> String {
    let mut t = String::from("#include \"shim.h\"\n");
    t.push_str(RUNNER);
    t.push_str("namespace gj_module {\n");
    t.push_str(source);
    t.push_str("\n}\n");
    // A block's threads run as OS threads where they wait for each other:
    // at a barrier, or at a warp intrinsic (the shim's meeting of lanes).
    let barrier = [
        "__syncthreads",
        "__shfl_",
        "__ballot_sync",
        "__all_sync",
        "__any_sync",
        "__uni_sync",
        "__match_any_sync",
        "__match_all_sync",
        "__activemask",
        "__syncwarp",
    ]
    .iter()
    .any(|call| source.contains(call));
    let parallel = !source.contains("__shared__");
    for s in sigs {
        let args: Vec<String> = s
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| format!("*({}*)args[{i}]", p.c_type()))
            .collect();
        t.push_str(&format!(
            "extern \"C\" __attribute__((visibility(\"default\"))) int gj_double_launch_{name}(const unsigned* g, const unsigned* b, void** args, unsigned workers, const unsigned long long* guards, unsigned long long nguards, unsigned long long* fault) {{\n    return gj_double::run(g, b, {barrier}, {parallel}, workers, guards, nguards, fault, [&] {{ gj_module::{name}({args}); }});\n}}\n",
            name = s.name,
            args = args.join(", "),
        ));
    }
    t
}

/// FNV-1a, 128 bits: a stable name for a cache entry (std's hasher may
/// change between Rust versions; no hashing crate is in the lock file).
fn fnv128(parts: &[&str]) -> u128 {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for part in parts {
        for &b in part.as_bytes().iter().chain([0xffu8].iter()) {
            h ^= b as u128;
            h = h.wrapping_mul(0x0000000001000000000000000000013B);
        }
    }
    h
}

/// The folder compiled modules are cached in: `GPUJIT_DOUBLE_CACHE`, else
/// `<temp>/gpujit-driver-double-<uid>`.
fn cache_dir() -> PathBuf {
    match std::env::var_os("GPUJIT_DOUBLE_CACHE").filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        // SAFETY: getuid has no preconditions and cannot fail.
        None => std::env::temp_dir().join(format!("gpujit-driver-double-{}", unsafe { libc::getuid() })),
    }
}

/// Compiles a translation unit into `<cache>/<hash>.so`, unless it is there
/// already. Safe when several processes build the same module at once: each
/// writes its own temporary files and renames the library into place.
pub fn build(tu: &str) -> Result<PathBuf, (CuResult, String)> {
    let dir = cache_dir();
    let key = format!("{:032x}", fnv128(&[BUILD_VERSION, SHIM, tu]));
    let so = dir.join(format!("{key}.so"));
    if so.is_file() {
        return Ok(so);
    }
    let io = |e: std::io::Error| (CUDA_ERROR_INVALID_IMAGE, format!("cache folder {}: {e}", dir.display()));
    std::fs::create_dir_all(&dir).map_err(io)?;
    let unique = format!(
        "{key}.{}.{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let shim_dir = dir.join(format!("shim.{unique}"));
    std::fs::create_dir_all(&shim_dir).map_err(io)?;
    std::fs::write(shim_dir.join("shim.h"), SHIM).map_err(io)?;
    let cpp = dir.join(format!("{unique}.cpp"));
    let tmp = dir.join(format!("{unique}.so"));
    std::fs::write(&cpp, tu).map_err(io)?;
    let cxx = std::env::var("GPUJIT_DOUBLE_CXX").unwrap_or_else(|_| "g++".into());
    let out = std::process::Command::new(&cxx)
        .args([
            "-std=c++20",
            "-O2",
            // Without it g++ (12 at least, at -O0 too) folds `0.0 - (double)i`
            // to `-(double)i`, which is -0.0 for i = 0 where a GPU gives +0.0
            // (found by the fuzzer, seed 208). With it g++ makes no fold that
            // holds only in round-to-nearest; LLVM under NVRTC makes this one
            // only with no-signed-zeros, which gpujit's options never ask for.
            "-frounding-math",
            "-shared",
            "-fPIC",
            "-pthread",
            "-w",
            "-fvisibility=hidden",
            "-I",
        ])
        .arg(&shim_dir)
        .arg(&cpp)
        .arg("-o")
        .arg(&tmp)
        .output();
    let _ = std::fs::remove_dir_all(&shim_dir);
    let result = match out {
        Err(e) => Err((
            CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
            format!("cannot run `{cxx}` (install g++, or set GPUJIT_DOUBLE_CXX): {e}"),
        )),
        Ok(o) if !o.status.success() => Err((
            CUDA_ERROR_INVALID_PTX,
            format!(
                "`{cxx}` rejected the kernel source ({}):\n{}",
                cpp.display(),
                String::from_utf8_lossy(&o.stderr)
            ),
        )),
        Ok(_) => std::fs::rename(&tmp, &so).map(|_| so.clone()).map_err(io),
    };
    if result.is_ok() {
        let _ = std::fs::remove_file(&cpp);
    }
    let _ = std::fs::remove_file(&tmp);
    result
}

/// The launcher every kernel of a compiled module exports: grid, block,
/// argument slots, worker threads, the guard table (sorted `[start, end)`
/// pairs) and its length in pairs, and where the first faulting guard address
/// goes.
pub type LaunchFn =
    unsafe extern "C" fn(*const u32, *const u32, *mut *mut c_void, u32, *const u64, u64, *mut u64) -> c_int;

/// A kernel ready to run: its signature and launcher, and the library that holds it.
pub struct Kernel {
    pub sig: Signature,
    pub launch: LaunchFn,
    _lib: Arc<libloading::Library>,
}

pub struct Module {
    pub ctx: usize,
    pub kernels: Vec<Arc<Kernel>>,
}

pub struct Function {
    pub module: usize,
    pub kernel: Arc<Kernel>,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
    pub max_dynamic_shared: usize,
}

/// Builds and loads the kernels of one source (no driver state involved, so
/// it runs outside the lock).
fn load_source(source: &str) -> Result<Vec<Arc<Kernel>>, CuResult> {
    let sigs = signatures(source).map_err(|e| {
        eprintln!("gpujit-driver-double: cuModuleLoadData: {e}");
        CUDA_ERROR_INVALID_IMAGE
    })?;
    let so = build(&translation_unit(source, &sigs)).map_err(|(code, msg)| {
        eprintln!("gpujit-driver-double: cuModuleLoadData: {msg}");
        code
    })?;
    // SAFETY: a library we compiled from the shim and generated code; loading
    // it runs only static initialisers of the C++ standard library.
    let lib = Arc::new(unsafe { libloading::Library::new(&so) }.map_err(|e| {
        eprintln!("gpujit-driver-double: cannot load {}: {e}", so.display());
        CUDA_ERROR_INVALID_IMAGE
    })?);
    sigs.into_iter()
        .map(|sig| {
            let sym = format!("gj_double_launch_{}", sig.name);
            // SAFETY: the generated launcher has exactly the `LaunchFn` signature.
            let launch: LaunchFn = *unsafe { lib.get::<LaunchFn>(sym.as_bytes()) }.map_err(|e| {
                eprintln!("gpujit-driver-double: {}: {e}", so.display());
                CUDA_ERROR_INVALID_IMAGE
            })?;
            Ok(Arc::new(Kernel {
                sig,
                launch,
                _lib: lib.clone(),
            }))
        })
        .collect()
}

fn register(module_out: *mut *mut c_void, kernels: Vec<Arc<Kernel>>) -> Result<(), CuResult> {
    let mut d = crate::state::lock();
    let ctx = d.current()?;
    let h = d.handle();
    d.modules.insert(h, Module { ctx, kernels });
    // SAFETY: out-pointer per the caller's contract; null is rejected.
    unsafe { put(module_out, h as *mut c_void) }
}

fn load(module_out: *mut *mut c_void, source: Result<String, CuResult>, name: &str) -> CuResult {
    let pre = entry(name, |d| {
        d.current()?;
        if module_out.is_null() {
            Err(CUDA_ERROR_INVALID_VALUE)
        } else {
            Ok(())
        }
    });
    if pre != CUDA_SUCCESS {
        return pre;
    }
    match source
        .and_then(|s| load_source(&s))
        .and_then(|k| register(module_out, k))
    {
        Ok(()) => CUDA_SUCCESS,
        Err(code) => code,
    }
}

/// `cuModuleLoadData`: the image must come from the double's NVRTC.
///
/// # Safety
/// `module` is null or valid for one write; `image` is a valid image (see [`source_of_image`]).
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut *mut c_void, image: *const c_void) -> CuResult {
    // SAFETY: forwarded contract.
    load(module, unsafe { source_of_image(image) }, "cuModuleLoadData")
}

/// `cuModuleLoadDataEx`: as `cuModuleLoadData`; JIT options are ignored.
///
/// # Safety
/// As `cuModuleLoadData`.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut *mut c_void,
    image: *const c_void,
    _num_options: u32,
    _options: *mut c_void,
    _values: *mut *mut c_void,
) -> CuResult {
    // SAFETY: forwarded contract.
    load(module, unsafe { source_of_image(image) }, "cuModuleLoadDataEx")
}

/// `cuModuleLoad`: an image file (container or annotated PTX).
///
/// # Safety
/// `module` is null or valid for one write; `fname` is null or a C string.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut *mut c_void, fname: *const c_char) -> CuResult {
    let source = if fname.is_null() {
        Err(CUDA_ERROR_INVALID_VALUE)
    } else {
        // SAFETY: a C string by the caller's contract.
        let path = unsafe { CStr::from_ptr(fname) }.to_string_lossy().into_owned();
        std::fs::read(Path::new(&path))
            .map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)
            .and_then(|mut bytes| {
                bytes.push(0);
                // SAFETY: NUL-terminated, and a container carries its own lengths.
                unsafe { source_of_image(bytes.as_ptr().cast()) }
            })
    };
    load(module, source, "cuModuleLoad")
}

/// `cuModuleUnload`: its functions become invalid handles.
#[no_mangle]
pub extern "C" fn cuModuleUnload(module: *mut c_void) -> CuResult {
    entry("cuModuleUnload", |d| {
        d.initialized()?;
        let h = module as usize;
        d.modules.remove(&h).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        d.functions.retain(|_, f| f.module != h);
        Ok(())
    })
}

/// `cuModuleGetFunction`: `CUDA_ERROR_NOT_FOUND` for a name the source does not define.
///
/// # Safety
/// `out` is null or valid for one write; `name` is null or a C string.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    out: *mut *mut c_void,
    module: *mut c_void,
    name: *const c_char,
) -> CuResult {
    entry("cuModuleGetFunction", |d| {
        d.initialized()?;
        if name.is_null() || out.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: a C string by the caller's contract.
        let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        let m = d.modules.get(&(module as usize)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let kernel = m
            .kernels
            .iter()
            .find(|k| k.sig.name == name)
            .cloned()
            .ok_or(CUDA_ERROR_NOT_FOUND)?;
        let h = d.handle();
        d.functions.insert(
            h,
            Function {
                module: module as usize,
                kernel,
                max_dynamic_shared: 48 << 10,
            },
        );
        // SAFETY: checked non-null; writable by the caller's contract.
        unsafe { put(out, h as *mut c_void) }
    })
}

/// `cuModuleGetGlobal_v2`: kernels from gpujit have no `__device__` globals.
#[no_mangle]
pub extern "C" fn cuModuleGetGlobal_v2(
    _dptr: *mut u64,
    _bytes: *mut usize,
    module: *mut c_void,
    _name: *const c_char,
) -> CuResult {
    entry("cuModuleGetGlobal_v2", |d| {
        d.initialized()?;
        d.modules.get(&(module as usize)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        Err(CUDA_ERROR_NOT_FOUND)
    })
}

impl Driver {
    pub fn function(&self, f: usize) -> Result<&Function, CuResult> {
        self.initialized()?;
        self.functions.get(&f).ok_or(CUDA_ERROR_INVALID_HANDLE)
    }
}

/// Opt-in shared memory limit per block: 227 KiB (as on sm_90).
pub const MAX_SHARED_OPTIN: usize = 227 << 10;

/// `cuFuncGetAttribute`.
///
/// # Safety
/// `pi` is null or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(pi: *mut c_int, attrib: u32, f: *mut c_void) -> CuResult {
    entry("cuFuncGetAttribute", |d| {
        let func = d.function(f as usize)?;
        let sm = d.config.sm;
        let v = match attrib {
            0 => 1024,                             // MAX_THREADS_PER_BLOCK
            1..=3 => 0,                            // SHARED, CONST, LOCAL sizes
            4 => 32,                               // NUM_REGS
            5 | 6 => sm,                           // PTX_VERSION, BINARY_VERSION
            7 => 0,                                // CACHE_MODE_CA
            8 => func.max_dynamic_shared as c_int, // MAX_DYNAMIC_SHARED_SIZE_BYTES
            9 => -1,                               // PREFERRED_SHARED_MEMORY_CARVEOUT
            10..=16 => 0,                          // cluster attributes
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        };
        // SAFETY: out-pointer per the caller's contract; null is rejected.
        unsafe { put(pi, v) }
    })
}

/// `cuFuncSetAttribute`: `MAX_DYNAMIC_SHARED_SIZE_BYTES` up to 227 KiB; others accepted.
#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(f: *mut c_void, attrib: u32, value: c_int) -> CuResult {
    entry("cuFuncSetAttribute", |d| {
        d.function(f as usize)?;
        if attrib == 8 {
            if value < 0 || value as usize > MAX_SHARED_OPTIN {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            d.functions.get_mut(&(f as usize)).expect("checked").max_dynamic_shared = value as usize;
        } else if attrib > 16 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(())
    })
}

/// `cuFuncSetCacheConfig`: accepted, no effect.
#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(f: *mut c_void, _config: u32) -> CuResult {
    entry("cuFuncSetCacheConfig", |d| d.function(f as usize).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TILED: &str = include_str!("../../tests/snapshots/matmul_tiled.cu");
    const GRAY: &str = include_str!("../../tests/snapshots/rgb_to_grayscale.cu");

    #[test]
    fn reads_the_emitters_signatures() {
        let s = signatures(GRAY).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].name, "rgb_to_grayscale");
        let p = &s[0].params;
        assert_eq!(p.len(), 7);
        assert_eq!(
            p[0].ty,
            CType::Pointer {
                elem: "unsigned char",
                size: 1,
                is_const: true
            }
        );
        assert_eq!(p[0].dims, [1, 2, 3]);
        assert_eq!(p[4].dims, [5, 6]);
        assert!(matches!(p[4].ty, CType::Pointer { is_const: false, .. }));
        let t = signatures(TILED).unwrap();
        assert_eq!(
            t[0].params.iter().map(|p| p.dims.len()).collect::<Vec<_>>(),
            [2, 0, 0, 2, 0, 0, 2, 0, 0]
        );
    }

    #[test]
    fn extents_are_told_from_scalars_by_name() {
        let src = "extern \"C\" __global__ void k(float* __restrict__ x, unsigned long long x_len_1, unsigned long long n, \
                   const double* __restrict__ a, unsigned long long a_d0, unsigned long long a_d1, unsigned long long a_d0x, bool f) {}";
        let s = &signatures(src).unwrap()[0];
        assert_eq!(s.params[0].dims, [1]);
        assert_eq!(s.params[3].dims, [4, 5]);
        assert_eq!(
            s.params[2].ty,
            CType::Scalar {
                name: "unsigned long long",
                size: 8
            }
        );
        assert_eq!(s.params[7].size(), 1);
        let bad = "extern \"C\" __global__ void k(half* __restrict__ x) {}";
        assert!(signatures(bad).unwrap_err().contains("half* __restrict__ x"));
        assert_eq!(signatures("extern \"C\" __global__ void e() {}").unwrap()[0].params, []);
    }

    #[test]
    fn sources_travel_in_ptx_and_containers() {
        let ptx = format!(".version 9.0\n.entry k()\n{}", ptx_annotation(GRAY));
        assert_eq!(source_of_ptx(&ptx).unwrap().trim_end(), GRAY.trim_end());
        assert_eq!(source_of_ptx(".version 9.0\n"), None);
        let mut c = CUBIN_MAGIC.to_vec();
        c.extend((TILED.len() as u64).to_le_bytes());
        c.extend(TILED.as_bytes());
        c.extend(3u64.to_le_bytes());
        c.extend(b"\x7fEL");
        // SAFETY: a well-formed container.
        assert_eq!(unsafe { source_of_image(c.as_ptr().cast()) }.unwrap(), TILED);
        let elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0";
        // SAFETY: NUL within the first bytes.
        assert_eq!(
            unsafe { source_of_image(elf.as_ptr().cast()) },
            Err(CUDA_ERROR_INVALID_IMAGE)
        );
        let short = b"ab\0";
        // SAFETY: NUL-terminated.
        assert_eq!(
            unsafe { source_of_image(short.as_ptr().cast()) },
            Err(CUDA_ERROR_INVALID_IMAGE)
        );
    }

    #[test]
    fn launchers_unpack_by_c_type() {
        let tu = translation_unit(TILED, &signatures(TILED).unwrap());
        assert!(
            tu.contains("*(const float**)args[0], *(unsigned long long*)args[1]"),
            "{tu}"
        );
        assert!(tu.contains("run(g, b, true, false, workers"), "{tu}");
        let tu = translation_unit(GRAY, &signatures(GRAY).unwrap());
        assert!(tu.contains("run(g, b, false, true, workers"), "{tu}");
        assert_ne!(fnv128(&["a", "bc"]), fnv128(&["ab", "c"]));
    }
}
