//! Differential test of the emitted CUDA C without a GPU: every kernel of the
//! examples and `tests/kernels/` is compiled by the host C++ compiler against
//! `tests/cuda_host/shim.h` (threads of a block as OS threads, `__syncthreads`
//! as a barrier, the CUDA intrinsics written out as the PTX ISA documents
//! them), run on chosen inputs, and its outputs are compared with the CPU
//! backend's, bit for bit (within a few ulps for transcendental math).
//!
//! This checks what NVRTC cannot: that the C computes what the Rust kernel
//! computes (wrapping, casts, loop bounds, index math, shadowing, barriers).
//! Without `g++` the tests are reported as ignored, unless
//! `GPUJIT_REQUIRE_CXX=1` (set by `.ci/run`) makes that a failure.

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::OnceLock;

use gpujit::__private::ScalarValue;
use gpujit::__private::{KernelArg, KernelDef, ParamKind};
use gpujit::KernelScalar;
use gpujit::{DeviceArray, DeviceScalar, ScalarType};

#[path = "kernels/deep.rs"]
#[rustfmt::skip] // generated, and too deep for rustfmt to finish
#[allow(dead_code)]
mod deep;
#[path = "../examples/grayscale.rs"]
#[allow(dead_code)]
mod grayscale;
mod kernels;
#[path = "../examples/loop_test.rs"]
#[allow(dead_code)]
mod loop_test;
#[path = "../examples/lucas.rs"]
#[allow(dead_code)]
mod lucas;
#[path = "../examples/matmul.rs"]
#[allow(dead_code)]
mod matmul;
#[path = "../examples/saxpy.rs"]
#[allow(dead_code)]
mod saxpy;

use kernels::*;

#[macro_use]
mod common;

fn main() -> std::process::ExitCode {
    // The reference side is the CPU backend, whatever the environment asks
    // for (CI's second pass sets GPUJIT_BACKEND=cuda for every binary): set
    // before any gpujit call, while this process has a single thread.
    std::env::set_var("GPUJIT_BACKEND", "cpu");
    let cxx = Some(common::Tool::Cxx);
    common::run_tests(
        include_str!("cuda_on_host.rs"),
        cases![
            cxx => integer_semantics_agree,
            cxx => float_semantics_agree,
            cxx => control_flow_and_indices_agree,
            cxx => shared_memory_and_barriers_agree,
            cxx => match_rev_and_tuple_kernels_agree,
            cxx => seed_kernels_agree,
            cxx => naming_kernels_agree,
            cxx => deep_kernels_agree,
            cxx => adversarial_kernels_agree,
            cxx => powi_matches_rust_for_any_exponent,
            cxx => math_library_agrees,
            cxx => a_zero_step_traps_where_the_cpu_backend_faults,
            cxx => atomics_and_fences_agree,
            cxx => local_and_const_arrays_agree,
            cxx => small_types_and_tuple_locals_agree,
            cxx => side_effects_run_left_to_right_in_c,
            cxx => assignments_evaluate_the_value_before_the_index_in_c,
        ],
    )
}

// ------------------------------------------------------------- arguments

/// One launch argument, type-erased: a scalar, or an array's shape and bytes.
#[derive(Clone, Debug)]
enum Arg {
    Scalar(ScalarValue),
    Array {
        elem: ScalarType,
        shape: Vec<usize>,
        bytes: Vec<u8>,
    },
}

fn bytes_of<T: DeviceScalar>(data: &[T]) -> Vec<u8> {
    // SAFETY: `DeviceScalar` types are integers, floats and `bool`: no padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)).to_vec() }
}

fn values_of<T: DeviceScalar>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        // SAFETY: the bytes come from `bytes_of` valid `T`s (for `bool`, 0 or 1),
        // and any bit pattern is a valid numeric `T`; `read_unaligned` needs no alignment.
        .map(|c| unsafe { c.as_ptr().cast::<T>().read_unaligned() })
        .collect()
}

fn s<T: KernelScalar>(v: T) -> Arg {
    Arg::Scalar(v.to_value())
}

fn a<T: DeviceScalar>(shape: &[usize], data: &[T]) -> Arg {
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

fn v<T: DeviceScalar>(data: &[T]) -> Arg {
    a(&[data.len()], data)
}

fn z<T: DeviceScalar>(shape: &[usize]) -> Arg {
    a(shape, &vec![T::default(); shape.iter().product()])
}

// ------------------------------------------------------------- CPU backend

/// Runs `k` on the CPU backend; returns every array's bytes afterwards.
fn run_cpu(k: &'static KernelDef, grid: (u32, u32, u32), block: (u32, u32, u32), args: &[Arg]) -> Vec<Vec<u8>> {
    let (out, r) = try_run_cpu(k, grid, block, args);
    r.unwrap_or_else(|e| panic!("{}: CPU backend: {e}", k.name));
    out
}

/// Runs `k` on the CPU backend; returns every array's bytes afterwards and
/// the launch's result.
fn try_run_cpu(
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
        .map(|d| each!(d, x => bytes_of(&x.copy_to_host().expect("download"))))
        .collect();
    (out, r)
}

// ------------------------------------------------------------- host C++

/// The C++ launcher of one kernel: unpacks `args` (one pointer per C
/// parameter, as `cuLaunchKernel`'s `kernelParams`) and runs every block, one
/// after another, with one OS thread per CUDA thread. Returns 1 if a thread
/// called `__trap()` (no later block runs), else 0.
fn launcher(k: &KernelDef) -> String {
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

fn all_kernels() -> Vec<&'static KernelDef> {
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
fn library() -> &'static libloading::Library {
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
        let shim_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cuda_host");
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
fn run_cxx(
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

// ------------------------------------------------------------- comparison

/// Largest difference in units in the last place allowed for floats (0: bit-exact).
#[derive(Clone, Copy)]
struct Ulps(u64);

fn compare(k: &KernelDef, args: &[Arg], cpu: &[Vec<u8>], cxx: &[Vec<u8>], ulps: Ulps) -> Vec<String> {
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
fn float_diffs<F: Copy + std::fmt::Debug>(
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

/// Runs each case on both sides and collects every difference.
/// Grid or block size.
type Dims = (u32, u32, u32);

/// Kernel, grid, block, arguments, float tolerance.
type Case = (&'static KernelDef, Dims, Dims, Vec<Arg>, Ulps);

fn check(cases: Vec<Case>) {
    let lib = library();
    let mut problems = Vec::new();
    for (k, grid, block, args, ulps) in &cases {
        let cpu = run_cpu(k, *grid, *block, args);
        let (cxx, trapped) = run_cxx(lib, k, *grid, *block, args);
        if trapped {
            problems.push(format!("{}: the C called __trap()", k.name));
        }
        problems.extend(compare(k, args, &cpu, &cxx, *ulps));
    }
    assert!(
        problems.is_empty(),
        "the CUDA C and the CPU backend disagree:\n{}",
        problems.join("\n")
    );
    eprintln!("{} launches agree", cases.len());
}

const EXACT: Ulps = Ulps(0);
const ONE: (u32, u32, u32) = (1, 1, 1);

fn lin(n: u32) -> (u32, u32, u32) {
    (n, 1, 1)
}

// ------------------------------------------------------------- cases

fn integer_semantics_agree() {
    let i32s = [
        0,
        1,
        -1,
        7,
        -7,
        i32::MAX,
        i32::MIN,
        31,
        32,
        33,
        -33,
        1 << 20,
        123_456_789,
    ];
    let i32b = [3, -1, 1, 40, 2, i32::MAX, -1, 1, 31, 64, 5, -3, 7];
    let u32s = [0u32, 1, 7, u32::MAX, 1 << 31, 31, 32, 99, 12345, 3];
    let u32b = [1u32, 0, 33, 2, 3, 31, 64, 7, u32::MAX, 40];
    let u8s = [0u8, 1, 7, 255, 128, 31, 200, 9];
    let u8b = [255u8, 3, 9, 1, 128, 8, 100, 7];
    let i64s = [0i64, 1, -1, i64::MAX, i64::MIN, 63, 64, 1 << 40, -5];
    let i64b = [3i64, -1, 65, 2, -1, 1, 63, 3, 100];
    let u64s = [0u64, 1, u64::MAX, 1 << 63, 64, 65, 12345, 9];
    let u64b = [7u64, 0, 2, 3, 64, 1, 100, u64::MAX];
    let casts = [
        0i64,
        1,
        -1,
        255,
        256,
        -129,
        i32::MAX as i64 + 1,
        i64::MIN,
        i64::MAX,
        1 << 53,
        (1 << 53) + 1,
    ];
    let (nz_a, nz_b) = ([7i32, -7, i32::MIN, i32::MAX, 0, -1], [2i32, 2, -1, -1, 5, 3]);
    check(vec![
        (
            &wrap_i32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32s), v(&i32b), z::<i32>(&[7 * i32s.len()])],
            EXACT,
        ),
        (
            &wrap_u32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u32s), v(&u32b), z::<u32>(&[5 * u32s.len()])],
            EXACT,
        ),
        (
            &wrap_u8::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u8s), v(&u8b), z::<u8>(&[8 * u8s.len()])],
            EXACT,
        ),
        (
            &wrap_i64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i64s), v(&i64b), z::<i64>(&[8 * i64s.len()])],
            EXACT,
        ),
        (
            &wrap_u64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u64s), v(&u64b), z::<u64>(&[8 * u64s.len()])],
            EXACT,
        ),
        (
            &cast_ints::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![
                v(&casts),
                z::<u8>(&[11]),
                z::<i32>(&[11]),
                z::<u32>(&[11]),
                z::<u64>(&[11]),
                z::<f32>(&[11]),
                z::<f64>(&[11]),
            ],
            EXACT,
        ),
        (
            &divrem_i32::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&nz_a), v(&nz_b), z::<i32>(&[6]), z::<i32>(&[6])],
            EXACT,
        ),
        (
            &divrem_i64::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[7i64, -7, i64::MIN, 5]),
                v(&[2i64, 2, -1, -3]),
                z::<i64>(&[4]),
                z::<i64>(&[4]),
            ],
            EXACT,
        ),
        (
            &divrem_u::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[7u32, 300, u32::MAX, 9]),
                v(&[2u32, 7, 3, 260]),
                z::<u32>(&[4]),
                z::<u32>(&[4]),
                z::<u8>(&[4]),
            ],
            EXACT,
        ),
        (&math_int::KERNEL, lin(1), (8, 1, 1), math_int_args(), EXACT),
    ]);
}

fn math_int_args() -> Vec<Arg> {
    vec![
        v(&[3i32, -4, i32::MIN, 7, 0]),
        v(&[-2i32, 9, 5, 7, -1]),
        z::<i32>(&[15]),
        v(&[3u64, 9, u64::MAX, 0, 5]),
        v(&[5u64, 2, 1, 0, 5]),
        z::<u64>(&[10]),
    ]
}

fn float_semantics_agree() {
    let f32s = [
        0.0f32,
        -0.0,
        0.7,
        -1.5,
        2.5e9,
        -3e9,
        255.9,
        256.0,
        -0.99,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e20,
        4.3e9,
    ];
    let f64s = [
        0.0f64,
        0.7,
        -1.5,
        2.5e9,
        -3e9,
        255.9,
        256.0,
        f64::NAN,
        f64::INFINITY,
        -1e300,
        1.9e19,
        9.3e18,
    ];
    let n32 = f32s.len();
    let n64 = f64s.len();
    check(vec![
        (
            &cast_f32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f32s),
                z::<i32>(&[n32]),
                z::<u32>(&[n32]),
                z::<i64>(&[n32]),
                z::<u64>(&[n32]),
                z::<u8>(&[n32]),
            ],
            EXACT,
        ),
        (
            &cast_f64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f64s),
                z::<i32>(&[n64]),
                z::<u32>(&[n64]),
                z::<i64>(&[n64]),
                z::<u64>(&[n64]),
                z::<u8>(&[n64]),
            ],
            EXACT,
        ),
        (
            &scale_tenth_f32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&f32s), z::<f32>(&[n32])],
            EXACT,
        ),
        (
            &scale_tenth_f64::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&f64s), z::<f64>(&[n64])],
            EXACT,
        ),
        (
            &store_seven_tenths::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![z::<f32>(&[4])],
            EXACT,
        ),
        (
            &math_f32::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0.5f32, 2.0, 9.0, 1.25]),
                v(&[1.5f32, -0.5, 3.0, 2.0]),
                z::<f32>(&[64]),
            ],
            Ulps(8),
        ),
        (
            &math_f64::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0.5f64, 2.0, 9.0, 1.25]),
                v(&[1.5f64, -0.5, 3.0, 2.0]),
                z::<f64>(&[64]),
            ],
            Ulps(8),
        ),
        (
            &axpy::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![s(1.5f64), v(&[1.0f64, 2.0, -3.0, 0.25, 7.0]), v(&[0.5f64; 5])],
            EXACT,
        ),
    ]);
}

fn control_flow_and_indices_agree() {
    check(vec![
        (
            &ranges_i32::KERNEL,
            ONE,
            ONE,
            vec![s(-4i32), s(10i32), s(3usize), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &ranges_i32::KERNEL,
            ONE,
            ONE,
            vec![s(i32::MAX - 5), s(i32::MAX), s(2usize), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &ranges_u32::KERNEL,
            ONE,
            ONE,
            vec![s(u32::MAX - 6), s(u32::MAX), s(4usize), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &ranges_u32::KERNEL,
            ONE,
            ONE,
            vec![s(0u32), s(10u32), s((1usize << 32) + 1), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &stepped_i32::KERNEL,
            ONE,
            ONE,
            vec![s(i32::MIN), s(i32::MAX), s(1usize << 30), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &stepped_u32::KERNEL,
            ONE,
            ONE,
            vec![s(0u32), s(u32::MAX), s(1usize << 31), z::<u64>(&[8])],
            EXACT,
        ),
        (
            &step_count::KERNEL,
            ONE,
            ONE,
            vec![s(100u32), s(7usize), z::<u32>(&[1])],
            EXACT,
        ),
        (
            &loops::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&[0u32, 1, 5, 17, 60, 100, 3]), z::<u32>(&[64])],
            EXACT,
        ),
        (&early_return::KERNEL, lin(2), (8, 1, 1), vec![z::<i32>(&[16])], EXACT),
        (
            &branches::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&[-5i32, 0, 3, 10, 99, -100, 7]),
                z::<i32>(&[7]),
                z::<f64>(&[7]),
                z::<f32>(&[7]),
            ],
            EXACT,
        ),
        (
            &global_index::KERNEL,
            lin(3),
            (5, 1, 1),
            vec![z::<u64>(&[13]), z::<u64>(&[13])],
            EXACT,
        ),
        (
            &usize_index_math::KERNEL,
            ONE,
            ONE,
            vec![s(8_388_608usize), s(256usize), s(255usize), z::<u64>(&[1])],
            EXACT,
        ),
        (
            &coords3::KERNEL,
            (2, 2, 2),
            (2, 3, 2),
            vec![z::<u64>(&[18 * 96])],
            EXACT,
        ),
        (
            &coords2::KERNEL,
            (2, 3, 1),
            (4, 2, 1),
            vec![z::<u32>(&[5, 7]), z::<u32>(&[3])],
            EXACT,
        ),
        (&arrays3d::KERNEL, (2, 2, 2), (2, 2, 2), arrays3d_args(), EXACT),
        (&scalars::KERNEL, lin(1), (4, 1, 1), scalars_args(), EXACT),
        (
            &step::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![v(&[1i64, -2, 3, 40, 5, 6]), z::<i64>(&[6])],
            EXACT,
        ),
        (&mirror3d::KERNEL, (1, 1, 1), (2, 3, 4), vec![z::<u32>(&[64])], EXACT),
        (
            &opaque_loops::KERNEL,
            ONE,
            (4, 1, 1),
            vec![v(&[32.0f32, 64.0, -8.0])],
            EXACT,
        ),
    ]);
}

fn arrays3d_args() -> Vec<Arg> {
    let data: Vec<f32> = (0..3 * 4 * 3).map(|i| i as f32 * 0.5).collect();
    vec![a(&[3, 4, 3], &data), z::<f32>(&[3, 4, 3]), z::<u64>(&[16])]
}

fn scalars_args() -> Vec<Arg> {
    vec![
        s(true),
        s(false),
        s(-7i64),
        s(u64::MAX - 3),
        s(12usize),
        s(4_000_000_000u32),
        s(-3i32),
        s(200u8),
        s(1.25f32),
        s(-2.5f64),
        z::<i64>(&[4]),
        z::<u64>(&[4]),
        z::<f64>(&[4]),
    ]
}

fn shared_memory_and_barriers_agree() {
    let xs: Vec<i64> = (0..600).map(|i| (i * 37 % 101) - 50).collect();
    let fs: Vec<f32> = (0..600).map(|i| ((i * 13) % 17) as f32 * 0.25).collect();
    let m: Vec<f32> = (0..20 * 37).map(|i| ((i * 7) % 23) as f32 - 11.0).collect();
    check(vec![
        (
            &block_sum_i64::KERNEL,
            lin(3),
            (256, 1, 1),
            vec![v(&xs), z::<i64>(&[3])],
            EXACT,
        ),
        (
            &block_sum_f32::KERNEL,
            lin(3),
            (256, 1, 1),
            vec![v(&fs), z::<f32>(&[3])],
            EXACT,
        ),
        (
            &transpose::KERNEL,
            (3, 2, 1),
            (16, 16, 1),
            vec![a(&[20, 37], &m), z::<f32>(&[37, 20])],
            EXACT,
        ),
        (
            &votes::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&votes_input()), z::<u32>(&[192])],
            EXACT,
        ),
        (
            &votes_nested::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&votes_input()), z::<u32>(&[192])],
            EXACT,
        ),
    ]);
}

/// Local arrays (each element type, 1-3-D, across a barrier, in device
/// functions) and `__constant__` arrays (exact values, 1-3-D).
fn local_and_const_arrays_agree() {
    use kernels::fixed_arrays::*;
    let n = 70;
    let f32s: Vec<f32> = (0..n).map(|i| i as f32 / 7.0 - 3.0).collect();
    let f64s: Vec<f64> = (0..n).map(|i| i as f64 / 7.0 - 3.0).collect();
    let i32s: Vec<i32> = (0..n as i32).map(|i| i * -1000 + 5).collect();
    let u8s: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
    let xi: Vec<i32> = (0..36).map(|v| v * v % 17 - 8).collect();
    let mut cases: Vec<Case> = vec![
        (
            &local_u8::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[4 * n])],
            EXACT,
        ),
        (
            &local_i32::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&i32s), z::<i32>(&[4 * n])],
            EXACT,
        ),
        (
            &local_f32::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[4 * n])],
            EXACT,
        ),
        (
            &local_f64::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f64s), z::<f64>(&[4 * n])],
            EXACT,
        ),
        (
            &local_bool::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[3 * n])],
            EXACT,
        ),
        (
            &local_computed_lists::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&u8s), z::<u8>(&[n]), z::<i64>(&[n]), z::<f32>(&[n])],
            EXACT,
        ),
        (
            &local_inferred::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[n]), z::<u64>(&[n])],
            EXACT,
        ),
        (
            &local_2d::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&i32s), z::<i32>(&[n * 12])],
            EXACT,
        ),
        (
            &local_3d::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f64s), z::<f64>(&[n * 12])],
            EXACT,
        ),
        (
            &local_across_barrier::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&f32s[..64].repeat(2)), z::<f32>(&[128])],
            EXACT,
        ),
        (
            &local_between_barriers::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&f32s[..64].repeat(2)), z::<f32>(&[128])],
            EXACT,
        ),
        (
            &device_arrays::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), v(&xi), s(6usize), z::<f32>(&[n]), z::<i32>(&[16])],
            EXACT,
        ),
        (
            &conv_filter::KERNEL,
            lin(3),
            (32, 1, 1),
            vec![v(&f32s), z::<f32>(&[n])],
            EXACT,
        ),
        (
            &const_copies::KERNEL,
            lin(1),
            (32, 1, 1),
            vec![
                z::<f64>(&[8]),
                z::<f32>(&[6]),
                z::<u64>(&[3]),
                z::<i64>(&[3]),
                z::<u32>(&[24]),
            ],
            EXACT,
        ),
    ];
    // In range on both sides (out of range is undefined in CUDA C).
    cases.push((
        &local_oob::KERNEL,
        lin(2),
        (32, 1, 1),
        vec![s(3usize), z::<f32>(&[64])],
        EXACT,
    ));
    cases.push((
        &const_oob::KERNEL,
        lin(2),
        (32, 1, 1),
        vec![s(4usize), z::<f32>(&[64])],
        EXACT,
    ));
    check(cases);
}

/// 3 blocks of 64: block 1 has no zero and none >= 100; block 2 all zero.
fn votes_input() -> Vec<i32> {
    (0..192)
        .map(|i| match i / 64 {
            0 => (i * 37 % 211) - 60,
            1 => 1 + i % 90,
            _ => 0,
        })
        .collect()
}

/// `match`, reversed loops and tuple values (#8), at the edges of each type.
/// Two atomics (or device calls) in one expression: C's unspecified operand
/// order must not show.
fn side_effects_run_left_to_right_in_c() {
    use kernels::order::effects_in_order;
    let n = 100;
    check(vec![(
        &effects_in_order::KERNEL,
        lin(2),
        (64, 1, 1),
        vec![
            z::<u32>(&[n]),
            z::<u32>(&[n]),
            z::<u32>(&[n]),
            z::<i32>(&[2 * n]),
            z::<u32>(&[4 * n]),
        ],
        EXACT,
    )]);
}

fn assignments_evaluate_the_value_before_the_index_in_c() {
    use kernels::order::assign_value_before_index;
    let n = 100;
    check(vec![(
        &assign_value_before_index::KERNEL,
        lin(2),
        (64, 1, 1),
        vec![
            z::<u32>(&[3 * n]),
            z::<u32>(&[4 * n]),
            z::<u32>(&[4 * n]),
            z::<u32>(&[4 * n]),
        ],
        EXACT,
    )]);
}

/// Every pair of `vals` as two arrays.
fn all_pairs<T: Copy>(vals: &[T]) -> (Vec<T>, Vec<T>) {
    vals.iter().flat_map(|&x| vals.iter().map(move |&y| (x, y))).unzip()
}

/// `i8 i16 u16 bool`: C's promotion to `int` must not change a result; and
/// tuple locals and tuple arguments of device functions.
fn small_types_and_tuple_locals_agree() {
    use kernels::types::*;
    let (a8, b8) = all_pairs(&[i8::MIN, -127, -100, -9, -8, -1, 0, 1, 2, 7, 8, 9, 100, 127]);
    let (a16, b16) = all_pairs(&[i16::MIN, -32767, -300, -17, -1, 0, 1, 15, 16, 17, 256, 30000, i16::MAX]);
    let (au, bu) = all_pairs(&[0u16, 1, 2, 15, 16, 17, 255, 256, 32768, 40000, 65534, u16::MAX]);
    let f = [
        0.0f32,
        -0.9,
        1.5,
        127.9,
        128.0,
        -128.9,
        -129.0,
        255.0,
        32768.0,
        -32769.0,
        65535.0,
        65536.0,
        1e20,
        -1e20,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let bools: Vec<bool> = (0..100).map(|i| i % 3 == 0).collect();
    let bools2: Vec<bool> = (0..100).map(|i| i % 2 == 0).collect();
    let v16: Vec<i16> = (0..128).map(|i| (i * 997 % 65536 - 32768) as i16).collect();
    let blocks = |n: usize| lin(n.div_ceil(64) as u32);
    check(vec![
        (
            &wrap_i8::KERNEL,
            blocks(a8.len()),
            (64, 1, 1),
            vec![v(&a8), v(&b8), z::<i8>(&[16 * a8.len()]), z::<i32>(&[a8.len()])],
            EXACT,
        ),
        (
            &wrap_i16::KERNEL,
            blocks(a16.len()),
            (64, 1, 1),
            vec![v(&a16), v(&b16), z::<i16>(&[16 * a16.len()]), z::<i32>(&[a16.len()])],
            EXACT,
        ),
        (
            &wrap_u16::KERNEL,
            blocks(au.len()),
            (64, 1, 1),
            vec![v(&au), v(&bu), z::<u16>(&[16 * au.len()]), z::<u32>(&[au.len()])],
            EXACT,
        ),
        (
            &cast_small::KERNEL,
            ONE,
            (32, 1, 1),
            vec![
                v(&f),
                z::<i8>(&[2 * f.len()]),
                z::<i16>(&[2 * f.len()]),
                z::<u16>(&[2 * f.len()]),
            ],
            EXACT,
        ),
        (
            &small_scalars::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![
                s(-128i8),
                s(-32768i16),
                s(65535u16),
                s(false),
                v(&(0..100).collect::<Vec<i32>>()),
                z::<i32>(&[100]),
            ],
            EXACT,
        ),
        (
            &bool_arrays::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&bools), v(&bools2), z::<bool>(&[200]), z::<bool>(&[100])],
            EXACT,
        ),
        (
            &small_shared_and_views::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&v16), z::<i16>(&[2]), z::<u16>(&[9, 11])],
            EXACT,
        ),
        (
            &tuple_locals::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&(-60..60).collect::<Vec<i32>>()), z::<i32>(&[360])],
            EXACT,
        ),
        (
            &tuple_params::KERNEL,
            lin(2),
            (64, 1, 1),
            vec![v(&(-40..40).map(|v| v as f32).collect::<Vec<f32>>()), z::<f32>(&[160])],
            EXACT,
        ),
    ]);
}

fn match_rev_and_tuple_kernels_agree() {
    use kernels::control::*;
    let xi: Vec<i32> = (-120..40)
        .chain([i32::MIN, i32::MIN + 1, i32::MAX, -11, -10, -9])
        .collect();
    let xu: Vec<u8> = (0..=255).collect();
    let n = xi.len();
    let mut cases: Vec<Case> = vec![
        (
            &match_i32::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&xi), z::<i32>(&[n]), z::<i32>(&[n])],
            EXACT,
        ),
        (
            &match_u8_bool_loop::KERNEL,
            lin(4),
            (64, 1, 1),
            vec![v(&xu), z::<u32>(&[256])],
            EXACT,
        ),
        (
            &tuple_values::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&xi), z::<i32>(&[n])],
            EXACT,
        ),
        (
            &rev_barrier_sum::KERNEL,
            ONE,
            (64, 1, 1),
            vec![v(&(0..64u32).map(|i| i * 7).collect::<Vec<_>>()), z::<u32>(&[64])],
            EXACT,
        ),
    ];
    for mode in 0..4u32 {
        cases.push((
            &match_with_barrier::KERNEL,
            ONE,
            (64, 1, 1),
            vec![s(mode), z::<u32>(&[64])],
            EXACT,
        ));
    }
    for (a, b, st) in [
        (0i32, 10, 3usize),
        (5, 5, 1),
        (6, 5, 2),
        (-3, 4, 8),
        (i32::MIN, i32::MIN + 3, 1),
        (i32::MAX - 5, i32::MAX, 2),
    ] {
        cases.push((
            &rev_i32::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<i64>(&[37])],
            EXACT,
        ));
    }
    for (a, b, st) in [
        (0usize, 0, 1usize),
        (0, 5, 2),
        (1, 0, 1),
        (usize::MAX - 3, usize::MAX, 2),
    ] {
        cases.push((
            &rev_usize::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<u64>(&[36])],
            EXACT,
        ));
    }
    for (a, b, st) in [(0u8, 255u8, 100usize), (0, 255, 256), (250, 255, 1), (3, 2, 1)] {
        cases.push((
            &rev_u8::KERNEL,
            ONE,
            ONE,
            vec![s(a), s(b), s(st), z::<u32>(&[18])],
            EXACT,
        ));
    }
    check(cases);
}

fn seed_kernels_agree() {
    let a_m: Vec<f32> = (0..20 * 37).map(|i| ((i * 7) % 23) as f32 * 0.125 - 1.0).collect();
    let b_m: Vec<f32> = (0..37 * 5).map(|i| ((i * 11) % 19) as f32 * 0.25 - 2.0).collect();
    let rgb: Vec<u8> = (0..7 * 5 * 3).map(|i| (i * 53 % 256) as u8).collect();
    check(vec![
        (
            &loop_test::loop_kernel::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<f64>(&[50])],
            EXACT,
        ),
        (&lucas::lucas::KERNEL, lin(1), (64, 1, 1), vec![z::<u64>(&[41])], EXACT),
        // A recursive device function (`#[gpu_device]`), linked into the kernel's C.
        (
            &lucas::lucas_recursive::KERNEL,
            lin(1),
            (32, 1, 1),
            vec![z::<u64>(&[25])],
            EXACT,
        ),
        (
            &saxpy::saxpy::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![
                s(1.5f32),
                v(&(0..1000).map(|i| i as f32 * 0.25).collect::<Vec<_>>()),
                v(&[2.0f32; 1000]),
            ],
            EXACT,
        ),
        (
            &grayscale::rgb_to_grayscale::KERNEL,
            ONE,
            (16, 16, 1),
            vec![a(&[7, 5, 3], &rgb), z::<u8>(&[7, 5])],
            EXACT,
        ),
        (
            &matmul::matmul_naive::KERNEL,
            ONE,
            (16, 16, 1),
            vec![a(&[20, 37], &a_m), a(&[37, 5], &b_m), z::<f32>(&[20, 5])],
            EXACT,
        ),
        (
            &matmul::matmul_tiled::KERNEL,
            (1, 2, 1),
            (16, 16, 1),
            vec![a(&[20, 37], &a_m), a(&[37, 5], &b_m), z::<f32>(&[20, 5])],
            EXACT,
        ),
    ]);
}

fn naming_kernels_agree() {
    use kernels::naming::*;
    let x: Vec<f32> = (0..9).map(|i| (i * i) as f32 * 0.5).collect();
    check(vec![
        (
            &shadow_next_to_suffix::KERNEL,
            ONE,
            (8, 1, 1),
            vec![z::<i32>(&[8])],
            EXACT,
        ),
        (
            &inner_shadow::KERNEL,
            ONE,
            (16, 1, 1),
            vec![v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &float::KERNEL,
            ONE,
            (4, 1, 1),
            vec![
                s(1.0f32),
                s(2.0f32),
                s(3usize),
                s(4usize),
                s(0.5f32),
                s(4.0f32),
                z::<f32>(&[4]),
            ],
            EXACT,
        ),
        (&sqrt::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (
            &deferred_init::KERNEL,
            ONE,
            (16, 1, 1),
            vec![v(&[1.5f32, -2.0, 0.0, 3.0]), z::<f32>(&[4])],
            EXACT,
        ),
        (&const_names::KERNEL, ONE, (2, 1, 1), vec![z::<f32>(&[2])], EXACT),
        (
            &unused_on_purpose::KERNEL,
            ONE,
            ONE,
            vec![s(true), z::<f64>(&[2])],
            EXACT,
        ),
        (
            &gj_names::KERNEL,
            ONE,
            (8, 1, 1),
            vec![s(0.5f32), s(3.0f32), s(7.0f32), v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &r#fn::KERNEL,
            ONE,
            (16, 1, 1),
            vec![s(1.5f32), v(&x), z::<f32>(&[9])],
            EXACT,
        ),
        (
            &__global__::KERNEL,
            ONE,
            (8, 1, 1),
            vec![s(2.0f32), v(&x), z::<f32>(&[8]), s(3.0f32), s(0.125f32), s(5i32)],
            EXACT,
        ),
        (&erfc::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (&j0::KERNEL, ONE, (16, 1, 1), vec![v(&x)], EXACT),
        (&uint3_local::KERNEL, (2, 1, 1), (3, 1, 1), vec![z::<u32>(&[6])], EXACT),
        (
            &normcdf::KERNEL,
            (2, 1, 1),
            (8, 1, 1),
            vec![v(&x), z::<f32>(&[9]), s(7usize), s(0.25f32)],
            EXACT,
        ),
    ]);
}

fn deep_kernels_agree() {
    use deep::*;
    let xs: Vec<i32> = (-3..ELSE_IF_ARMS as i32 + 3).collect();
    let ks: Vec<u32> = (0..VALUE_ARMS as u32 + 5).chain([u32::MAX, 1 << 31]).collect();
    check(vec![
        (
            &sum_i32::KERNEL,
            ONE,
            (4, 1, 1),
            vec![z::<i32>(&[4]), s(123_457i32)],
            EXACT,
        ),
        (
            &sum_f32::KERNEL,
            ONE,
            (4, 1, 1),
            vec![v(&[0.1f32, -3.7, 1e-3, 12345.678]), z::<f32>(&[4])],
            EXACT,
        ),
        (
            &chains::KERNEL,
            ONE,
            (2, 1, 1),
            vec![z::<i64>(&[5]), z::<u8>(&[2]), s(-3i64), s(0x1234_5678_9abc_def1u64)],
            EXACT,
        ),
        (
            &right_nested::KERNEL,
            ONE,
            ONE,
            vec![z::<u32>(&[1]), z::<f64>(&[1]), s(4_000_000_007u32), s(0.3f64)],
            EXACT,
        ),
        (
            &else_if::KERNEL,
            (xs.len().div_ceil(64) as u32, 1, 1),
            (64, 1, 1),
            vec![v(&xs), z::<i32>(&[xs.len()])],
            EXACT,
        ),
        (
            &else_if_value::KERNEL,
            (ks.len().div_ceil(64) as u32, 1, 1),
            (64, 1, 1),
            vec![v(&ks), z::<f32>(&[ks.len()])],
            EXACT,
        ),
        (&nested_blocks::KERNEL, ONE, (16, 1, 1), vec![z::<i32>(&[10])], EXACT),
    ]);
}

// ------------------------------------------------------------- adversarial kernels

fn adversarial_cases() -> Vec<Case> {
    use kernels::adversarial::*;
    let i32a = [0, 1, -1, i32::MAX, i32::MIN, 12345, -7, 100, i32::MIN, 31];
    let i32b = [1, -1, 3, -1, -1, 7, 2, -100, 1, 33];
    let i32c = [3, 5, -2, 2, 1, -1, 9, 7, -1, 40];
    let u8a = [0u8, 1, 7, 255, 128, 31, 200, 9, 100, 254];
    let u8b = [1u8, 255, 9, 1, 128, 8, 100, 7, 3, 2];
    let f64s = [
        0.0f64,
        -0.0,
        -1.5,
        255.9,
        256.0,
        -129.7,
        1e20,
        -1e20,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        4294967295.5,
        16777217.0,
        9.3e18,
    ];
    let u64s = [
        0u64,
        1,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        (1 << 24) + 1,
        (1 << 53) + 1,
        0x8000_0080_0000_0001,
        u32::MAX as u64,
        0xffff_ff7f_ffff_ffff,
    ];
    let nf = f64s.len();
    let nu = u64s.len();
    let fa = [
        f32::NAN,
        1.0,
        f32::NAN,
        -0.0,
        -0.0,
        -7.5,
        7.5,
        -0.0,
        f32::INFINITY,
        5.0,
        f32::NEG_INFINITY,
        1e-45,
    ];
    let fb = [
        1.0f32,
        f32::NAN,
        f32::NAN,
        -0.0,
        0.5,
        2.0,
        -2.0,
        1.0,
        2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1e-45,
    ];
    let da: Vec<f64> = fa.iter().map(|&x| x as f64 * 1.25).collect();
    let db: Vec<f64> = fb.iter().map(|&x| x as f64 * 0.75).collect();
    let nfa = fa.len();
    let pa = [-1.0f32, -1.0, 2.0, 1.1, -1.1, 0.0, 0.0, 3.0, -2.5, 1.5, -1.0, 0.5];
    let pn = [
        i32::MAX - 1,
        16777216,
        -3,
        -7,
        -5,
        -1,
        0,
        i32::MIN,
        9,
        20,
        i32::MIN,
        -149,
    ];
    let a3: Vec<i32> = (0..2 * 3 * 5).map(|k| k * 7 - 50).collect();
    vec![
        (
            &adv_prec_i32::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32a), v(&i32b), v(&i32c), z::<i32>(&[16 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_prec_u8::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&u8a), v(&u8b), z::<u8>(&[14 * u8a.len()])],
            EXACT,
        ),
        (
            &adv_bools::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32a), v(&i32c), s(true), z::<i32>(&[6 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_bools::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&i32b), v(&i32a), s(false), z::<i32>(&[6 * i32a.len()])],
            EXACT,
        ),
        (
            &adv_cast_chain::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&f64s),
                z::<i64>(&[nf]),
                z::<u32>(&[nf]),
                z::<f32>(&[nf]),
                z::<i32>(&[nf]),
            ],
            EXACT,
        ),
        (
            &adv_cast_wide::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&u64s),
                z::<f32>(&[2 * nu]),
                z::<f64>(&[2 * nu]),
                z::<u64>(&[nu]),
                z::<i32>(&[nu]),
            ],
            EXACT,
        ),
        (
            &adv_cast_consts::KERNEL,
            ONE,
            (2, 1, 1),
            vec![s(true), z::<f64>(&[5]), z::<f32>(&[4]), z::<u64>(&[5]), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &adv_cast_consts::KERNEL,
            ONE,
            ONE,
            vec![s(false), z::<f64>(&[5]), z::<f32>(&[4]), z::<u64>(&[5]), z::<i64>(&[8])],
            EXACT,
        ),
        (
            &adv_loops::KERNEL,
            lin(2),
            (4, 1, 1),
            vec![v(&[0u32, 1, 2, 3, 7, 20, 50]), z::<u32>(&[28])],
            EXACT,
        ),
        (
            &adv_ranges::KERNEL,
            ONE,
            (2, 1, 1),
            vec![s(3i32), s(5i32), z::<i64>(&[14])],
            EXACT,
        ),
        (
            &adv_ranges::KERNEL,
            ONE,
            ONE,
            vec![s(-4i32), s(-4i32), z::<i64>(&[14])],
            EXACT,
        ),
        (
            &adv_loop_shadow::KERNEL,
            ONE,
            ONE,
            vec![s(10usize), z::<u64>(&[4])],
            EXACT,
        ),
        (
            &adv_shadow::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                s(u32::MAX - 2),
                s(-1.75f32),
                v(&[3, -4, 0, 1, i32::MIN, i32::MAX]),
                z::<f64>(&[18]),
            ],
            EXACT,
        ),
        (
            &adv_if_values::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&[-3, 0, 1, 3, 4, 6, 11, 2000, i32::MIN, -1]),
                z::<i32>(&[40]),
                z::<i32>(&[10]),
            ],
            EXACT,
        ),
        (
            &adv_nd::KERNEL,
            (2, 1, 1),
            (4, 3, 1),
            vec![a(&[2, 3, 5], &a3), z::<i64>(&[3, 7]), z::<u64>(&[5])],
            EXACT,
        ),
        (
            &adv_shared_mix::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<u8>(&[64]), z::<i64>(&[64]), z::<f64>(&[64])],
            EXACT,
        ),
        (
            &adv_dims3::KERNEL,
            (2, 3, 2),
            (3, 2, 2),
            vec![z::<u64>(&[2 * 144])],
            EXACT,
        ),
        (
            &adv_consts::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[0.0f64, -1.5, 1e300]), z::<f64>(&[3]), z::<i64>(&[12])],
            EXACT,
        ),
        (&adv_opaque_int::KERNEL, ONE, ONE, vec![z::<u32>(&[4])], EXACT),
        (&adv_opaque_float::KERNEL, ONE, ONE, vec![z::<f64>(&[2])], EXACT),
        (
            &adv_opaque_math::KERNEL,
            ONE,
            ONE,
            vec![z::<f64>(&[2]), z::<i64>(&[2])],
            EXACT,
        ),
        (
            &adv_opaque_cast::KERNEL,
            ONE,
            ONE,
            vec![z::<i32>(&[1]), z::<u32>(&[1])],
            EXACT,
        ),
        (
            &adv_float_edges::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![
                v(&fa),
                v(&fb),
                z::<f32>(&[5 * nfa]),
                v(&da),
                v(&db),
                z::<f64>(&[4 * nfa]),
            ],
            EXACT,
        ),
        (
            &adv_powi::KERNEL,
            lin(1),
            (16, 1, 1),
            vec![v(&pa), v(&pn), z::<f32>(&[pa.len()]), z::<f64>(&[pa.len()])],
            Ulps(8),
        ),
        (
            &adv_float_lits::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[0.0f32, 1.0, -3.5]), z::<f32>(&[12]), z::<f64>(&[6])],
            EXACT,
        ),
        (
            &adv_scalars::KERNEL,
            ONE,
            ONE,
            vec![
                s(i32::MIN),
                s(i64::MIN),
                s(u32::MAX),
                s(u64::MAX),
                s(0usize),
                s(255u8),
                s(f32::MAX),
                s(f64::MIN_POSITIVE),
                s(false),
                z::<i64>(&[8]),
                z::<u64>(&[6]),
                z::<f64>(&[4]),
            ],
            EXACT,
        ),
        (
            &adv_scalars::KERNEL,
            ONE,
            ONE,
            vec![
                s(i32::MAX),
                s(i64::MAX),
                s(64u32 + 63),
                s(1u64 << 63),
                s(usize::MAX),
                s(0u8),
                s(f32::NAN),
                s(-1e300f64),
                s(true),
                z::<i64>(&[8]),
                z::<u64>(&[6]),
                z::<f64>(&[4]),
            ],
            EXACT,
        ),
        (
            &adv_int_methods::KERNEL,
            lin(1),
            (8, 1, 1),
            vec![
                v(&[0u8, 3, 4, 255, 249, 250]),
                v(&[i64::MIN, -1, 0, 1, i64::MAX, 1]),
                z::<u8>(&[12]),
                z::<i64>(&[18]),
            ],
            EXACT,
        ),
        (
            &adv_const_inf::KERNEL,
            lin(1),
            (4, 1, 1),
            vec![v(&[1.0f32, f32::INFINITY, f32::NAN]), z::<f32>(&[3])],
            EXACT,
        ),
        (&adv_opaque_underscore::KERNEL, ONE, ONE, vec![z::<f64>(&[1])], EXACT),
    ]
}

fn adversarial_kernels_agree() {
    check(adversarial_cases());
}

/// `powi` follows Rust's square-and-multiply exactly, also for exponents a
/// `float` cannot hold (odd n > 2^24) and long products (1.0001^100000).
/// (`adv_float_edges` leaves out `min`/`max` of two signed zeros: Rust leaves
/// the sign of that result unspecified, and CUDA's `fminf` picks the other.)
/// The numeric methods (`tests/kernels/math.rs`) on edge-case inputs. The
/// transcendental ones within 4 ulps (the largest maximum error in the CUDA
/// Math API's tables for them: `tanf`, `acoshf`, `powf`; on the host both
/// sides call the host's libm, except Rust's own `asinh`/`acosh`/`atanh`),
/// everything else bit for bit.
fn math_library_agrees() {
    use kernels::math::*;
    let f32s = [
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        2.5,
        -2.5,
        -8.0,
        27.0,
        0.999,
        1e-3,
        100.0,
        1e30,
        -1e30,
        1e-40,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.7,
        -0.1,
    ];
    let f64s: Vec<f64> = f32s
        .iter()
        .map(|&x| x as f64)
        .chain([1e300, -5e-324, f64::MAX])
        .collect();
    let n32 = f32s.len();
    let n64 = f64s.len();
    let rev = |v: &[f32]| v.iter().rev().cloned().collect::<Vec<_>>();
    let rev64 = |v: &[f64]| v.iter().rev().cloned().collect::<Vec<_>>();
    let ks = |n: usize| (0..n as i32).map(|i| i % 7 - 3).collect::<Vec<_>>();
    let float_args = |w: usize| {
        (
            vec![
                v(&f32s),
                v(&rev(&f32s)),
                v(&f32s.map(|x| x * 0.5 + 1.0)),
                v(&ks(n32)),
                z::<f32>(&[n32 * w]),
            ],
            vec![
                v(&f64s),
                v(&rev64(&f64s)),
                v(&f64s.iter().map(|x| x * 0.5 + 1.0).collect::<Vec<_>>()),
                v(&ks(n64)),
                z::<f64>(&[n64 * w]),
            ],
        )
    };
    let mut cases: Vec<Case> = Vec::new();
    for (k32, k64, w, ulps) in [
        (&unary_f32::KERNEL, &unary_f64::KERNEL, 20, Ulps(4)),
        (&exact_f32::KERNEL, &exact_f64::KERNEL, 14, EXACT),
        (&binary_f32::KERNEL, &binary_f64::KERNEL, 3, Ulps(4)),
    ] {
        let (a32, a64) = float_args(w);
        cases.push((k32, lin(1), (32, 1, 1), a32, ulps));
        cases.push((k64, lin(1), (32, 1, 1), a64, ulps));
    }
    let (mut a32, mut a64) = float_args(0);
    a32[4] = z::<u8>(&[n32 * 3]);
    a64[4] = z::<u8>(&[n64 * 3]);
    cases.push((&pred_f32::KERNEL, lin(1), (32, 1, 1), a32, EXACT));
    cases.push((&pred_f64::KERNEL, lin(1), (32, 1, 1), a64, EXACT));
    let mm = [1.0f32, f32::NAN, 2.0, f32::NAN, -3.0, 5.0, -0.5, f32::INFINITY];
    let mm2 = [2.0f32, 1.0, f32::NAN, f32::NAN, -4.0, 5.0, -1.0, 0.0];
    let (lo, hi) = (
        [0.0f32, -1.0, 3.0, 0.0, -3.5, 5.0, 0.0, -1.0],
        [0.5f32, 1.0, 4.0, 1.0, 0.0, 5.0, 0.0, 1.0],
    );
    cases.push((
        &min_max_clamp_f32::KERNEL,
        ONE,
        (8, 1, 1),
        vec![v(&mm), v(&mm2), v(&lo), v(&hi), z::<f32>(&[24])],
        EXACT,
    ));
    let d = |a: &[f32]| v(&a.iter().map(|&x| x as f64).collect::<Vec<_>>());
    cases.push((
        &min_max_clamp_f64::KERNEL,
        ONE,
        (8, 1, 1),
        vec![d(&mm), d(&mm2), d(&lo), d(&hi), z::<f64>(&[24])],
        EXACT,
    ));
    cases.push((
        &call_form::KERNEL,
        ONE,
        (3, 1, 1),
        vec![
            v(&[0.5f32, -2.0, 3.0]),
            v(&[1.0f64, -4.0, 0.0]),
            z::<f32>(&[6]),
            z::<f64>(&[6]),
        ],
        Ulps(4),
    ));
    cases.push((
        &float_consts::KERNEL,
        ONE,
        ONE,
        vec![z::<f32>(&[5]), z::<f64>(&[5])],
        EXACT,
    ));
    cases.push((
        &int_misc::KERNEL,
        ONE,
        (8, 1, 1),
        vec![
            v(&[0u32, 1, 2, 3, 64, u32::MAX, 1 << 31, 7]),
            v(&[1u32, 0, 5, 3, 0, 0, 0, 8]),
            v(&[2u32, 0, 9, 3, 10, u32::MAX, 5, 9]),
            v(&[i32::MIN, -7, -1, 0, 1, 6, i32::MAX, -5]),
            z::<u32>(&[16]),
            z::<i32>(&[16]),
        ],
        EXACT,
    ));
    cases.push((
        &const_exprs::KERNEL,
        ONE,
        ONE,
        vec![
            v(&[u32::MAX, 3, 0x8000_0001, u32::MAX, 63, 0, 0x81]),
            z::<u32>(&[8]),
            z::<i64>(&[6]),
            z::<u8>(&[4]),
        ],
        EXACT,
    ));
    let shifts: Vec<u32> = (0..16).map(|i| SHIFTS[i % SHIFTS.len()]).collect();
    macro_rules! ints {
        ($t:ident, $u:ident, $xs:expr, $unw:expr, $($k:ident),*) => {{
            let x: Vec<$t> = $xs;
            let n = x.len();
            let y: Vec<$t> = x.iter().rev().cloned().collect();
            let zz: Vec<$t> = x.iter().map(|&q| if q == 0 { 3 as $t } else { q }).collect();
            let [bits, bin, un, ad, sh] = [$(&$k::KERNEL),*];
            let args = |out: Arg| vec![v(&x), v(&y), v(&zz), v(&vec![0i32; n]), out];
            cases.push((bits, ONE, (32, 1, 1), args(z::<u32>(&[n * 4])), EXACT));
            cases.push((bin, ONE, (32, 1, 1), args(z::<$t>(&[n * 9])), EXACT));
            cases.push((un, ONE, (32, 1, 1), args(z::<$t>(&[n * $unw])), EXACT));
            cases.push((ad, ONE, (32, 1, 1), args(z::<$u>(&[n])), EXACT));
            cases.push((sh, ONE, (32, 1, 1), vec![v(&x), v(&shifts[..n]), z::<$t>(&[n * 6])], EXACT));
        }};
    }
    ints!(
        i32,
        u32,
        EDGE_I32.to_vec(),
        5,
        bits_i32,
        bin_i32,
        un_i32,
        ad_i32,
        sh_i32
    );
    ints!(
        i64,
        u64,
        EDGE_I64.to_vec(),
        5,
        bits_i64,
        bin_i64,
        un_i64,
        ad_i64,
        sh_i64
    );
    ints!(
        u32,
        u32,
        EDGE_U32.to_vec(),
        3,
        bits_u32,
        bin_u32,
        un_u32,
        ad_u32,
        sh_u32
    );
    ints!(
        u64,
        u64,
        EDGE_U64.to_vec(),
        3,
        bits_u64,
        bin_u64,
        un_u64,
        ad_u64,
        sh_u64
    );
    ints!(
        usize,
        usize,
        EDGE_USIZE.to_vec(),
        3,
        bits_usize,
        bin_usize,
        un_usize,
        ad_usize,
        sh_usize
    );
    ints!(u8, u8, EDGE_U8.to_vec(), 3, bits_u8, bin_u8, un_u8, ad_u8, sh_u8);
    check(cases);
}

fn powi_matches_rust_for_any_exponent() {
    use kernels::adversarial::*;
    check(vec![(
        &adv_powi::KERNEL,
        ONE,
        (4, 1, 1),
        vec![
            v(&[-1.0f32, -1.0, -1.0, 1.0001]),
            v(&[i32::MAX, 16777217, i32::MIN + 1, 100000]),
            z::<f32>(&[4]),
            z::<f64>(&[4]),
        ],
        EXACT,
    )]);
}

/// A zero `step_by` step: the CPU backend reports a `KernelFault`, the CUDA C
/// traps (a device fault on a GPU) instead of looping forever; with a nonzero
/// step both sides agree and neither faults.
fn a_zero_step_traps_where_the_cpu_backend_faults() {
    let lib = library();
    let cases: Vec<(&'static KernelDef, Dims, Dims, Vec<Arg>)> = vec![
        (&step_count::KERNEL, ONE, ONE, vec![s(10u32), s(0usize), z::<u32>(&[1])]),
        (
            &step_zero_thread0::KERNEL,
            lin(2),
            lin(4),
            vec![s(0usize), z::<u32>(&[8])],
        ),
        (
            &step_zero_sync::KERNEL,
            lin(3),
            lin(4),
            vec![s(0usize), z::<u32>(&[12])],
        ),
        (
            &every_thread_faults::KERNEL,
            lin(2),
            lin(8),
            vec![s(0u32), v(&[1u32]), z::<u32>(&[16])],
        ),
    ];
    for (k, grid, block, args) in cases {
        let (_, r) = try_run_cpu(k, grid, block, &args);
        match r {
            Err(gpujit::Error::KernelFault { message, .. }) => {
                assert!(message.contains("zero"), "{}: {message}", k.name)
            }
            other => panic!("{}: expected a KernelFault from the CPU backend, got {other:?}", k.name),
        }
        let (_, trapped) = run_cxx(lib, k, grid, block, &args);
        assert!(trapped, "{}: the C did not trap", k.name);
    }
    check(vec![
        (
            &step_zero_thread0::KERNEL,
            lin(2),
            lin(4),
            vec![s(3usize), z::<u32>(&[8])],
            EXACT,
        ),
        (
            &step_zero_sync::KERNEL,
            lin(3),
            lin(4),
            vec![s(2usize), z::<u32>(&[12])],
            EXACT,
        ),
    ]);
}

// ------------------------------------------------------------- atomics

/// Arguments of `uncontended_T` for 12 threads: `a` holds edge values, `b`
/// the operands (another rotation), `c` the compare values of `atomic_cas`
/// (equal to the old value for every other thread).
macro_rules! uncontended_args {
    ($t:ty, $slots:expr) => {{
        let n = EDGE_INTS.len();
        let a: Vec<$t> = (0..n * $slots).map(|k| EDGE_INTS[k % n] as $t).collect();
        let b: Vec<$t> = (0..n).map(|i| EDGE_INTS[(i * 5 + 3) % n] as $t).collect();
        let c: Vec<$t> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    a[i * $slots + 5]
                } else {
                    EDGE_INTS[(i + 1) % n] as $t
                }
            })
            .collect();
        vec![v(&a), v(&b), v(&c), z::<$t>(&[n * $slots])]
    }};
}

/// Arguments of `contended_T`: 300 operands, each order-independent result
/// starting from a value the operands change.
macro_rules! contended_args {
    ($t:ty) => {{
        let b: Vec<$t> = (0..300)
            .map(|i| EDGE_INTS[i % 12].wrapping_mul(i as i128 + 1) as $t)
            .collect();
        let a: Vec<$t> = vec![
            3 as $t,
            5 as $t,
            0 as $t,
            0 as $t,
            !(0 as $t),
            0 as $t,
            0 as $t,
            999 as $t,
            5 as $t,
        ];
        vec![v(&a), v(&b)]
    }};
}

fn atomics_and_fences_agree() {
    use kernels::atomics::*;
    let floats32: Vec<f32> = vec![
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
        -f32::MIN_POSITIVE / 2.0,
        1e30,
        f32::MAX,
        3.0,
    ];
    let floats64: Vec<f64> = floats32
        .iter()
        .map(|&x| x as f64)
        .chain([f64::MIN_POSITIVE / 8.0])
        .collect();
    let rot = |n: usize, k: usize| (k * 7 + 2) % n;
    let fa32: Vec<f32> = (0..12 * FLOAT_SLOTS).map(|k| floats32[k % 12]).collect();
    let fb32: Vec<f32> = (0..12).map(|i| floats32[rot(12, i)]).collect();
    let fa64: Vec<f64> = (0..13 * FLOAT_SLOTS).map(|k| floats64[k % 13]).collect();
    let fb64: Vec<f64> = (0..13).map(|i| floats64[rot(13, i)]).collect();
    // Small integers and halves: sums are exact in any order; no zeros (a
    // `-0.0`/`0.0` tie in min/max keeps whichever came first).
    let fc32: Vec<f32> = (0..300).map(|i| ((i * 37 % 101) as f32 - 50.5) * 0.5).collect();
    let fc64: Vec<f64> = fc32.iter().map(|&x| x as f64 * 4.0).collect();
    let bytes: Vec<u32> = (0..5000u32).map(|i| (i * i * 31 + i / 7) % 256).collect();
    let grid_vals: Vec<i64> = (0..24 * 20).map(|i| (i * 7919 % 1000) as i64 - 500).collect();
    check(vec![
        (
            &uncontended_i32::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(i32, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_u32::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(u32, U32_SLOTS),
            EXACT,
        ),
        (
            &uncontended_i64::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(i64, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_u64::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(u64, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_usize::KERNEL,
            lin(2),
            (8, 1, 1),
            uncontended_args!(usize, INT_SLOTS),
            EXACT,
        ),
        (
            &uncontended_f32::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![v(&fa32), v(&fb32), z::<f32>(&[fa32.len()])],
            EXACT,
        ),
        (
            &uncontended_f64::KERNEL,
            lin(2),
            (8, 1, 1),
            vec![v(&fa64), v(&fb64), z::<f64>(&[fa64.len()])],
            EXACT,
        ),
        (&contended_i32::KERNEL, lin(3), (128, 1, 1), contended_args!(i32), EXACT),
        (&contended_u32::KERNEL, lin(3), (128, 1, 1), contended_args!(u32), EXACT),
        (&contended_i64::KERNEL, lin(3), (128, 1, 1), contended_args!(i64), EXACT),
        (&contended_u64::KERNEL, lin(3), (128, 1, 1), contended_args!(u64), EXACT),
        (
            &contended_usize::KERNEL,
            lin(3),
            (128, 1, 1),
            contended_args!(usize),
            EXACT,
        ),
        (
            &contended_f32::KERNEL,
            lin(3),
            (128, 1, 1),
            vec![v(&[0.5f32, 1.0, 1e9, -1e9]), v(&fc32)],
            EXACT,
        ),
        (
            &contended_f64::KERNEL,
            lin(3),
            (128, 1, 1),
            vec![v(&[0.5f64, 1.0, 1e9, -1e9]), v(&fc64)],
            EXACT,
        ),
        (&add_ones_f32::KERNEL, lin(4), (64, 1, 1), vec![v(&[0.0f32])], EXACT),
        (
            &shared_histogram::KERNEL,
            lin(3),
            (64, 1, 1),
            vec![v(&bytes), z::<u32>(&[256])],
            EXACT,
        ),
        (
            &atomics_2d_3d::KERNEL,
            (3, 3, 1),
            (8, 8, 1),
            vec![
                a(&[20, 24], &grid_vals),
                a(&[4, 4], &[i64::MAX; 16]),
                a(&[4, 4], &[i64::MIN; 16]),
                z::<f64>(&[2, 4, 4]),
            ],
            EXACT,
        ),
        (
            &fences::KERNEL,
            lin(2),
            (32, 1, 1),
            vec![z::<u32>(&[3]), z::<u32>(&[1]), z::<u32>(&[1])],
            EXACT,
        ),
    ]);
}
