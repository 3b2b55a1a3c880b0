//! Running a kernel's emitted CUDA C on the host and comparing it with the
//! CPU backend, for the differential tests (`tests/agree/`, the fuzzer in
//! `fuzz/`): a kernel's arguments ([`Arg`]), a run on the CPU backend, the
//! CUDA C of some kernels compiled by g++ against `driver-double/shim.h` into
//! one shared library, a launch of one kernel in it, and the comparison of
//! every output array (bit for bit, or within some ulps).
#![allow(dead_code)]

use std::ffi::c_void;
use std::path::Path;

use gpujit::__private::{KernelArg, KernelDef, ParamKind, ScalarValue};
use gpujit::{DeviceArray, DeviceScalar, KernelScalar, ScalarType};
/// One launch argument, type-erased: a scalar, or an array's shape and bytes.
#[derive(Clone, Debug)]
pub(crate) enum Arg {
    Scalar(ScalarValue),
    Array {
        elem: ScalarType,
        shape: Vec<usize>,
        bytes: Vec<u8>,
    },
}

pub(crate) fn bytes_of<T: DeviceScalar>(data: &[T]) -> Vec<u8> {
    // SAFETY: `DeviceScalar` types are integers, floats and `bool`: no padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)).to_vec() }
}

pub(crate) fn values_of<T: DeviceScalar>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        // SAFETY: the bytes come from `bytes_of` valid `T`s (for `bool`, 0 or 1),
        // and any bit pattern is a valid numeric `T`; `read_unaligned` needs no alignment.
        .map(|c| unsafe { c.as_ptr().cast::<T>().read_unaligned() })
        .collect()
}

pub(crate) fn s<T: KernelScalar>(v: T) -> Arg {
    Arg::Scalar(v.to_value())
}

pub(crate) fn a<T: DeviceScalar>(shape: &[usize], data: &[T]) -> Arg {
    assert_eq!(
        shape.iter().product::<usize>(),
        data.len(),
        "test data does not fill its shape"
    );
    Arg::Array {
        elem: T::TYPE,
        shape: shape.to_vec(),
        bytes: bytes_of(data),
    }
}

pub(crate) fn v<T: DeviceScalar>(data: &[T]) -> Arg {
    a(&[data.len()], data)
}

pub(crate) fn z<T: DeviceScalar>(shape: &[usize]) -> Arg {
    a(shape, &vec![T::default(); shape.iter().product()])
}

/// Runs `k` on the CPU backend; returns every array's bytes afterwards.
pub(crate) fn run_cpu(
    k: &'static KernelDef,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> Vec<Vec<u8>> {
    let (out, r) = try_run_cpu(k, grid, block, args);
    r.unwrap_or_else(|e| panic!("{}: CPU backend: {e}", k.name));
    out
}

/// Runs `k` on the CPU backend; returns every array's bytes afterwards and
/// the launch's result.
pub(crate) fn try_run_cpu(
    k: &'static KernelDef,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> (Vec<Vec<u8>>, gpujit::Result<()>) {
    enum Dev {
        U8(DeviceArray<u8>),
        I8(DeviceArray<i8>),
        I16(DeviceArray<i16>),
        U16(DeviceArray<u16>),
        Bool(DeviceArray<bool>),
        I32(DeviceArray<i32>),
        I64(DeviceArray<i64>),
        U32(DeviceArray<u32>),
        U64(DeviceArray<u64>),
        Usize(DeviceArray<usize>),
        F32(DeviceArray<f32>),
        F64(DeviceArray<f64>),
    }
    macro_rules! each {
        ($dev:expr, $a:ident => $body:expr) => {
            match $dev {
                Dev::U8($a) => $body,
                Dev::I8($a) => $body,
                Dev::I16($a) => $body,
                Dev::U16($a) => $body,
                Dev::Bool($a) => $body,
                Dev::I32($a) => $body,
                Dev::I64($a) => $body,
                Dev::U32($a) => $body,
                Dev::U64($a) => $body,
                Dev::Usize($a) => $body,
                Dev::F32($a) => $body,
                Dev::F64($a) => $body,
            }
        };
    }
    fn upload<T: DeviceScalar>(shape: &[usize], bytes: &[u8]) -> DeviceArray<T> {
        let host: Vec<T> = values_of(bytes);
        gpujit::to_device(&host).and_then(|d| d.reshape(shape)).expect("upload")
    }
    let mut devs: Vec<Option<Dev>> = args
        .iter()
        .map(|arg| match arg {
            Arg::Scalar(_) => None,
            Arg::Array { elem, shape, bytes } => Some(match elem {
                ScalarType::U8 => Dev::U8(upload(shape, bytes)),
                ScalarType::I32 => Dev::I32(upload(shape, bytes)),
                ScalarType::I64 => Dev::I64(upload(shape, bytes)),
                ScalarType::U32 => Dev::U32(upload(shape, bytes)),
                ScalarType::U64 => Dev::U64(upload(shape, bytes)),
                ScalarType::Usize => Dev::Usize(upload(shape, bytes)),
                ScalarType::F32 => Dev::F32(upload(shape, bytes)),
                ScalarType::F64 => Dev::F64(upload(shape, bytes)),
                ScalarType::I8 => Dev::I8(upload(shape, bytes)),
                ScalarType::I16 => Dev::I16(upload(shape, bytes)),
                ScalarType::U16 => Dev::U16(upload(shape, bytes)),
                ScalarType::Bool => Dev::Bool(upload(shape, bytes)),
            }),
        })
        .collect();
    let mut kernel_args: Vec<KernelArg<'_>> = args
        .iter()
        .zip(devs.iter_mut())
        .zip(k.params)
        .map(|((arg, dev), param)| match (arg, dev) {
            (Arg::Scalar(v), _) => KernelArg::Scalar(*v),
            (_, Some(d)) => {
                let mutable = matches!(param.kind, ParamKind::Array { mutable: true, .. });
                if mutable {
                    each!(d, x => KernelArg::array_mut(x))
                } else {
                    each!(d, x => KernelArg::array(&*x))
                }
            }
            (_, None) => unreachable!("arrays have a device copy"),
        })
        .collect();
    let r = gpujit::__private::launch_kernel(k, grid, block, &mut kernel_args);
    drop(kernel_args);
    let out = devs
        .iter()
        .flatten()
        // (After a sticky CUDA error the copy fails too: no bytes then; the
        // launch's error says what happened.)
        .map(|d| each!(d, x => x.copy_to_host().map(|h| bytes_of(&h)).unwrap_or_default()))
        .collect();
    (out, r)
}

/// Largest difference in units in the last place allowed for floats (0: bit-exact).
#[derive(Clone, Copy)]
pub(crate) struct Ulps(pub(crate) u64);

pub(crate) fn compare(k: &KernelDef, args: &[Arg], cpu: &[Vec<u8>], cxx: &[Vec<u8>], ulps: Ulps) -> Vec<String> {
    let arrays = args.iter().filter_map(|arg| match arg {
        Arg::Array { elem, .. } => Some(*elem),
        Arg::Scalar(_) => None,
    });
    let names = k
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Array { .. }))
        .map(|p| p.name);
    let mut problems = Vec::new();
    for (((elem, name), c), x) in arrays.zip(names).zip(cpu).zip(cxx) {
        let diffs: Vec<String> = match elem {
            ScalarType::F32 => float_diffs(&values_of::<f32>(c), &values_of::<f32>(x), ulps, |v| {
                (v.to_bits() as i64, v.is_nan())
            }),
            ScalarType::F64 => float_diffs(&values_of::<f64>(c), &values_of::<f64>(x), ulps, |v| {
                (v.to_bits() as i64, v.is_nan())
            }),
            _ => c
                .iter()
                .zip(x)
                .enumerate()
                .filter(|(_, (p, q))| p != q)
                .map(|(i, _)| format!("byte {i}"))
                .collect(),
        };
        if !diffs.is_empty() {
            problems.push(format!(
                "{}: `{name}` differs at {}",
                k.name,
                diffs.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    problems
}

/// Positions where `c` and `x` differ by more than `ulps`; `bits` gives a
/// value's bit pattern and whether it is NaN (any NaN matches any NaN).
pub(crate) fn float_diffs<F: Copy + std::fmt::Debug>(
    c: &[F],
    x: &[F],
    ulps: Ulps,
    bits: impl Fn(F) -> (i64, bool),
) -> Vec<String> {
    c.iter()
        .zip(x)
        .enumerate()
        .filter(|(_, (p, q))| {
            let ((pb, pnan), (qb, qnan)) = (bits(**p), bits(**q));
            !(pnan && qnan) && pb.abs_diff(qb) > ulps.0
        })
        .map(|(i, (p, q))| format!("[{i}] CPU {p:?} vs C {q:?}"))
        .collect()
}

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

/// Compiles the CUDA C of `kernels`, each with its [`launcher`], into one
/// shared library in `dir` (g++ against `driver-double/shim.h`, found from
/// `shim_dir`), and loads it.
pub(crate) fn build_library(
    kernels: &[&KernelDef],
    dir: &Path,
    shim_dir: &Path,
) -> Result<libloading::Library, String> {
    let mut src = String::from("#include \"shim.h\"\n#include <thread>\n#include <vector>\n");
    for k in kernels {
        // A namespace per kernel keeps their `static constexpr` constants apart.
        src.push_str(&format!("namespace gj_{} {{\n{}}}\n", k.entry, (k.cuda_source)()));
        src.push_str(&launcher(k));
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let cu = dir.join("kernels.cpp");
    let so = dir.join("kernels.so");
    std::fs::write(&cu, &src).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("g++")
        .args([
            "-std=c++20",
            "-O1",
            // g++ folds `0.0 - (double)i` to `-(double)i` (-0.0 for i = 0,
            // where a GPU gives +0.0) unless told the rounding mode may
            // change (the driver double's build says more).
            "-frounding-math",
            "-shared",
            "-fPIC",
            "-pthread",
            "-w",
            "-fvisibility=hidden",
            "-I",
        ])
        .arg(shim_dir)
        .arg(&cu)
        .arg("-o")
        .arg(&so)
        .output()
        .map_err(|e| format!("cannot run g++: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "g++ rejected the emitted CUDA C ({}):\n{}",
            cu.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // (Hidden visibility: a kernel named like a libc function, e.g. `step`,
    // must call itself, not libc's; only the launchers are exported.)
    // SAFETY: the library is ours, built just now; loading it runs no code but static initialisers.
    unsafe { libloading::Library::new(&so) }.map_err(|e| e.to_string())
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
