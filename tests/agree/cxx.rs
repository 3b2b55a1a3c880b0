//! The host C++ side: every kernel's CUDA C compiled once by g++ against
//! `driver-double/shim.h` into a shared library, and a launch of one
//! kernel in it.

use super::*;

/// The C++ launcher of one kernel: unpacks `args` (one pointer per C
/// parameter, as `cuLaunchKernel`'s `kernelParams`) and runs every block, one
/// after another, with one OS thread per CUDA thread. Returns 1 if a thread
/// called `__trap()` (no later block runs), else 0.
pub(crate) fn launcher(k: &KernelDef) -> String {
    let mut params = Vec::new();
    let mut slot = 0;
    for p in k.params {
        match p.kind {
            ParamKind::Scalar(t) => {
                params.push(format!("*({}*)args[{slot}]", t.c_name()));
                slot += 1;
            }
            ParamKind::Array { elem, ndim, .. } => {
                params.push(format!("*({}**)args[{slot}]", elem.c_name()));
                slot += 1;
                for _ in 0..ndim {
                    params.push(format!("*(unsigned long long*)args[{slot}]"));
                    slot += 1;
                }
            }
        }
    }
    format!(
        r#"
extern "C" __attribute__((visibility("default"))) int gj_launch_{entry}(const unsigned* g, const unsigned* b, void** args) {{
    std::lock_guard<std::mutex> one_launch_at_a_time(gj_launch_mutex);
    gridDim = {{g[0], g[1], g[2]}};
    blockDim = {{b[0], b[1], b[2]}};
    gj_trapped.store(false);
    const unsigned n = b[0] * b[1] * b[2];
    for (unsigned bz = 0; bz < g[2]; bz++) for (unsigned by = 0; by < g[1]; by++) for (unsigned bx = 0; bx < g[0]; bx++) {{
        if (gj_trapped.load()) return 1;
        gj_block_sync bar(n);
        std::vector<std::thread> threads;
        for (unsigned tz = 0; tz < b[2]; tz++) for (unsigned ty = 0; ty < b[1]; ty++) for (unsigned tx = 0; tx < b[0]; tx++) {{
            threads.emplace_back([&, tx, ty, tz] {{
                threadIdx = {{tx, ty, tz}};
                blockIdx = {{bx, by, bz}};
                gj_block_barrier = &bar;
                gj_vote_round = 0;
                try {{
                    gj_{entry}::{entry}({params});
                }} catch (gj_trapped_t) {{
                }}
                bar.arrive_and_drop();
            }});
        }}
        for (auto& t : threads) t.join();
    }}
    return gj_trapped.load() ? 1 : 0;
}}
"#,
        entry = k.entry,
        params = params.join(", ")
    )
}

pub(crate) fn all_kernels() -> Vec<&'static KernelDef> {
    let mut all: Vec<&'static KernelDef> = vec![
        &loop_test::loop_kernel::KERNEL,
        &lucas::lucas::KERNEL,
        &lucas::lucas_recursive::KERNEL,
        &grayscale::rgb_to_grayscale::KERNEL,
        &matmul::matmul_naive::KERNEL,
        &matmul::matmul_tiled::KERNEL,
        &saxpy::saxpy::KERNEL,
    ];
    all.extend(kernels::all());
    all.extend(deep::all());
    all
}

/// Compiles every kernel with its launcher into one shared library, once.
/// (Runs in a case that needs [`common::Tool::Cxx`]: a failure here is a bug.)
pub(crate) fn library() -> &'static libloading::Library {
    static LIB: OnceLock<Result<libloading::Library, String>> = OnceLock::new();
    let lib = LIB.get_or_init(|| {
        let mut src = String::from("#include \"shim.h\"\n#include <thread>\n#include <vector>\n");
        for k in all_kernels() {
            // A namespace per kernel keeps their `static constexpr` constants apart.
            src.push_str(&format!("namespace gj_{} {{\n{}}}\n", k.entry, (k.cuda_source)()));
            src.push_str(&launcher(k));
        }
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cuda_on_host");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let cu = dir.join("kernels.cpp");
        let so = dir.join("kernels.so");
        std::fs::write(&cu, &src).map_err(|e| e.to_string())?;
        // The driver double owns the shim; this test compiles against the same file.
        let shim_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../driver-double");
        let out = std::process::Command::new("g++")
            .args([
                "-std=c++20",
                "-O1",
                "-shared",
                "-fPIC",
                "-pthread",
                "-w",
                "-fvisibility=hidden",
                "-I",
            ])
            .arg(&shim_dir)
            .arg(&cu)
            .arg("-o")
            .arg(&so)
            .output()
            .map_err(|e| format!("cannot run g++: {e}"))?;
        if !out.status.success() {
            panic!(
                "g++ rejected the emitted CUDA C ({}):\n{}",
                cu.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // (Hidden visibility: a kernel named like a libc function, e.g. `step`,
        // must call itself, not libc's; only the launchers are exported.)
        // SAFETY: the library is ours, built just now; loading it runs no code but static initialisers.
        unsafe { libloading::Library::new(&so) }.map_err(|e| e.to_string())
    });
    match lib {
        Ok(lib) => lib,
        Err(e) => panic!("the host C++ build of the emitted CUDA C failed: {e}"),
    }
}

/// Runs the emitted CUDA C of `k` on the host; returns every array's bytes
/// and whether a thread called `__trap()`.
pub(crate) fn run_cxx(
    lib: &libloading::Library,
    k: &KernelDef,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> (Vec<Vec<u8>>, bool) {
    // Arrays live in u64 words so that every element type is aligned.
    let mut buffers: Vec<Vec<u64>> = args
        .iter()
        .filter_map(|arg| match arg {
            Arg::Array { bytes, .. } => {
                let mut words = vec![0u64; bytes.len().div_ceil(8)];
                // SAFETY: `words` has at least `bytes.len()` bytes.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast::<u8>(), bytes.len()) };
                Some(words)
            }
            Arg::Scalar(_) => None,
        })
        .collect();
    // One 8-byte slot per C parameter (little-endian: narrower values sit at the start).
    let mut slots: Vec<u64> = Vec::new();
    let mut next_buffer = 0;
    for arg in args {
        match arg {
            Arg::Scalar(v) => slots.push(match *v {
                ScalarValue::U8(x) => x as u64,
                ScalarValue::I8(x) => x as u8 as u64,
                ScalarValue::I16(x) => x as u16 as u64,
                ScalarValue::U16(x) => x as u64,
                ScalarValue::I32(x) => x as u32 as u64,
                ScalarValue::I64(x) => x as u64,
                ScalarValue::U32(x) => x as u64,
                ScalarValue::U64(x) => x,
                ScalarValue::Usize(x) => x as u64,
                ScalarValue::F32(x) => x.to_bits() as u64,
                ScalarValue::F64(x) => x.to_bits(),
                ScalarValue::Bool(x) => x as u64,
            }),
            Arg::Array { shape, .. } => {
                slots.push(buffers[next_buffer].as_mut_ptr() as u64);
                next_buffer += 1;
                slots.extend(shape.iter().map(|&d| d as u64));
            }
        }
    }
    let mut ptrs: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast::<c_void>()).collect();
    let name = format!("gj_launch_{}", k.entry);
    type Launch = unsafe extern "C" fn(*const u32, *const u32, *mut *mut c_void) -> i32;
    // SAFETY: every launcher has this signature (see `launcher`).
    let f = unsafe { lib.get::<Launch>(name.as_bytes()) }.expect("launcher symbol");
    let (g, b) = ([grid.0, grid.1, grid.2], [block.0, block.1, block.2]);
    // SAFETY: `ptrs` holds one valid pointer per C parameter, arrays are as large as their shapes say.
    let trapped = unsafe { f(g.as_ptr(), b.as_ptr(), ptrs.as_mut_ptr()) } != 0;
    let out = args
        .iter()
        .filter_map(|arg| match arg {
            Arg::Array { bytes, .. } => Some(bytes.len()),
            Arg::Scalar(_) => None,
        })
        .zip(&buffers)
        // SAFETY: each buffer holds at least `len` bytes.
        .map(|(len, words)| unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), len).to_vec() })
        .collect();
    (out, trapped)
}
