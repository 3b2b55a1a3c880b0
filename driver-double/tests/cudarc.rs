//! The double against cudarc's safe API, the way gpujit's CUDA backend will
//! use it. cudarc opens `libcuda.so` by name at its first call, so each test
//! runs in a child process (this binary again, `GJ_DOUBLE_CASE=<test>`) whose
//! `LD_LIBRARY_PATH` holds a folder of symlinks to the built double:
//! `libcuda.so`, `libcuda.so.1`, `libnvrtc.so` (with the real
//! `libnvrtc-builtins` beside them); `GPUJIT_NVRTC_PATH` points gpujit's
//! NVRTC loader at the double too. Kernels are gpujit kernels: their CUDA C
//! goes through the double's NVRTC into a module, runs through
//! `cuLaunchKernel`, and must give the CPU backend's result bit for bit.
//!
//! Tests that need NVRTC or g++ show as ignored where they are missing
//! (`GPUJIT_REQUIRE_NVRTC=1` / `GPUJIT_REQUIRE_CXX=1` make that a failure),
//! as in the workspace's `tests/common`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{result, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use gpujit::prelude::*;

const TILE: usize = 16;

/// `c = a · b` with TILE×TILE tiles in shared memory (examples/matmul.rs):
/// `__shared__` and `__syncthreads`.
#[gpu_kernel]
fn matmul_tiled(a: ArrayView2<f32>, b: ArrayView2<f32>, c: ArrayViewMut2<f32>) {
    let sa = shared_array::<[[f32; TILE]; TILE]>();
    let sb = shared_array::<[[f32; TILE]; TILE]>();
    let (col, row) = grid(2);
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let (n, k) = a.dim();
    let m = b.shape()[1];
    let mut acc = 0.0;
    for t in 0..(k + TILE - 1) / TILE {
        let ka = t * TILE + tx;
        let kb = t * TILE + ty;
        sa[ty][tx] = if row < n && ka < k { a[[row, ka]] } else { 0.0 };
        sb[ty][tx] = if kb < k && col < m { b[[kb, col]] } else { 0.0 };
        syncthreads();
        for j in 0..TILE {
            acc += sa[ty][j] * sb[j][tx];
        }
        syncthreads();
    }
    if row < n && col < m {
        c[[row, col]] = acc;
    }
}

/// Scalars of several widths and a 1-D array, no barrier (blocks in parallel).
#[gpu_kernel]
fn mix(flag: bool, k: i64, s: u8, f: f32, out: &mut [i64]) {
    let i = grid(1);
    if i < out.len() {
        let v = (i as i64) * k + s as i64;
        out[i] = if flag { v + (f * i as f32) as i64 } else { -v };
    }
}

/// Issue #19's store: one element past the end in every thread past `a.len()`.
#[gpu_kernel]
fn store_past_end(a: &mut [f32]) {
    a[grid(1)] = 1.0;
}

/// The same between barriers (a block's threads as OS threads).
#[gpu_kernel]
fn store_past_end_synced(a: &mut [f32]) {
    syncthreads();
    a[grid(1)] = 2.0;
    syncthreads();
}

/// A load one element past the end of `x` when `x` is no longer than `out`.
#[gpu_kernel]
fn load_shifted(x: &[f32], out: &mut [f32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = x[i + 1];
    }
}

/// A store `k` elements from the start of `a` (thread 0 only).
#[gpu_kernel]
fn store_at(k: usize, a: &mut [f32]) {
    if grid(1) == 0 {
        a[k] = 3.0;
    }
}

// ------------------------------------------------------------------ helpers (child side)

fn code<T: std::fmt::Debug>(r: Result<T, DriverError>) -> CUresult {
    match r {
        Ok(v) => panic!("expected a CUDA error, got Ok({v:?})"),
        Err(e) => e.0,
    }
}

fn ctx0() -> (Arc<CudaContext>, Arc<CudaStream>) {
    let ctx = CudaContext::new(0).expect("context on device 0");
    let s = ctx.default_stream();
    (ctx, s)
}

/// Compiles a gpujit kernel's CUDA C with NVRTC through the double and loads it as PTX.
fn load_ptx(ctx: &Arc<CudaContext>, k: &gpujit::__private::KernelDef) -> CudaFunction {
    let ptx = gpujit::nvrtc::compile_ptx((k.cuda_source)(), k.entry, gpujit::nvrtc::TARGET_ARCH).expect("NVRTC");
    assert!(ptx.text.contains("// gpujit-driver-double: CUDA C source follows"));
    let m = ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(ptx.text))
        .expect("load module");
    m.load_function(k.entry).expect("function")
}

fn matrices() -> (Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..20 * 37).map(|i| ((i * 7) % 23) as f32 * 0.125 - 1.0).collect();
    let b: Vec<f32> = (0..37 * 5).map(|i| ((i * 11) % 19) as f32 * 0.25 - 2.0).collect();
    (a, b)
}

fn matmul_on_cpu(a: &[f32], b: &[f32]) -> Vec<f32> {
    let da = gpujit::to_device(a).and_then(|d| d.reshape((20, 37))).unwrap();
    let db = gpujit::to_device(b).and_then(|d| d.reshape((37, 5))).unwrap();
    let mut dc = gpujit::device_array::<f32>((20, 5)).unwrap();
    matmul_tiled![(1, 2), (16, 16)](&da, &db, &mut dc).unwrap();
    dc.copy_to_host().unwrap()
}

/// Launches `matmul_tiled` through cudarc with the given `c` buffer and extents.
fn launch_matmul(
    s: &Arc<CudaStream>,
    f: &CudaFunction,
    a: &cudarc::driver::CudaSlice<f32>,
    b: &cudarc::driver::CudaSlice<f32>,
    c: &mut cudarc::driver::CudaSlice<f32>,
    block: (u32, u32, u32),
) -> Result<(), DriverError> {
    let (a0, a1, b0, b1, c0, c1) = (20u64, 37u64, 37u64, 5u64, 20u64, 5u64);
    let mut l = s.launch_builder(f);
    l.arg(a)
        .arg(&a0)
        .arg(&a1)
        .arg(b)
        .arg(&b0)
        .arg(&b1)
        .arg(c)
        .arg(&c0)
        .arg(&c1);
    let cfg = LaunchConfig {
        grid_dim: (1, 2, 1),
        block_dim: block,
        shared_mem_bytes: 0,
    };
    // SAFETY: the arguments match the kernel's C signature.
    unsafe { l.launch(cfg) }.map(|_| ())
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

// ------------------------------------------------------------------ cases (child side)

fn context_device_and_attributes() {
    let (ctx, _) = ctx0();
    assert_eq!(CudaContext::device_count().unwrap(), 1);
    assert_eq!(ctx.name().unwrap(), "gpujit driver double");
    assert_eq!(ctx.compute_capability().unwrap(), (9, 0));
    let attr = |a| ctx.attribute(a).unwrap();
    assert_eq!(
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
        1024
    );
    assert_eq!(attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    assert_eq!(attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y), 65535);
    assert_eq!(attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    assert_eq!(attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 132);
    assert_eq!(
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
        48 << 10
    );
    assert_eq!(
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
        227 << 10
    );
    assert!(ctx.has_async_alloc());
    assert_eq!(ctx.total_mem().unwrap(), 16 << 30);
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) }
        .result()
        .unwrap();
    assert_eq!(version, 13000);
    let (free, total) = ctx.mem_get_info().unwrap();
    assert_eq!((free, total), (16 << 30, 16 << 30));
    assert_eq!(code(CudaContext::new(1)), CUresult::CUDA_ERROR_INVALID_DEVICE);
}

fn copies_round_trip() {
    let (_ctx, s) = ctx0();
    let host: Vec<u32> = (0..1000u32).map(|i| i.wrapping_mul(2654435761u32)).collect();
    let mut d = s.clone_htod(&host).unwrap();
    assert_eq!(s.clone_dtoh(&d).unwrap(), host);
    // Fresh memory is not zeroed (as cuMemAlloc's is not); memset makes it so.
    let mut z = unsafe { s.alloc::<u32>(10) }.unwrap();
    assert_eq!(s.clone_dtoh(&z).unwrap(), vec![0xA5A5A5A5; 10]);
    s.memset_zeros(&mut z).unwrap();
    assert_eq!(s.clone_dtoh(&z).unwrap(), vec![0; 10]);
    let e = s.clone_dtod(&d).unwrap();
    assert_eq!(s.clone_dtoh(&e).unwrap(), host);
    s.memcpy_htod(&[7u32, 8, 9], &mut d.slice_mut(500..503)).unwrap();
    let back = s.clone_dtoh(&d.slice(499..504)).unwrap();
    assert_eq!(back, [host[499], 7, 8, 9, host[503]]);
    let zeros = s.alloc_zeros::<f64>(3).unwrap();
    assert_eq!(s.clone_dtoh(&zeros).unwrap(), [0.0; 3]);
}

fn streams_and_events() {
    let (ctx, _) = ctx0();
    let s1 = ctx.new_stream().unwrap();
    let s2 = ctx.new_stream().unwrap();
    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let start = s1.record_event(timing).unwrap();
    let mut pinned = unsafe { ctx.alloc_pinned::<f32>(4096) }.unwrap();
    pinned
        .as_mut_slice()
        .unwrap()
        .iter_mut()
        .enumerate()
        .for_each(|(i, x)| *x = i as f32);
    let mut d = s1.alloc_zeros::<f32>(4096).unwrap();
    s1.memcpy_htod(&pinned, &mut d).unwrap();
    let end = s1.record_event(timing).unwrap();
    s2.join(&s1).unwrap();
    let back = s2.clone_dtoh(&d).unwrap();
    assert_eq!(back[4095], 4095.0);
    let ms = start.elapsed_ms(&end).unwrap();
    assert!((0.0..60_000.0).contains(&ms), "{ms}");
    assert!(end.is_complete());
    s1.synchronize().unwrap();
    ctx.synchronize().unwrap();
    // Events without timing cannot be timed, as in CUDA.
    let a = s1.record_event(None).unwrap();
    let b = s1.record_event(None).unwrap();
    assert_eq!(code(a.elapsed_ms(&b)), CUresult::CUDA_ERROR_INVALID_HANDLE);
}

/// Kernels with shared memory and barriers, and with scalars of every
/// width, run through NVRTC (PTX), the double's module loader and
/// `cuLaunchKernel`, and agree with the CPU backend bit for bit.
fn kernels_match_cpu_backend() {
    let (ctx, s) = ctx0();
    let (a, b) = matrices();
    let f = load_ptx(&ctx, &matmul_tiled::KERNEL);
    let da = s.clone_htod(&a).unwrap();
    let db = s.clone_htod(&b).unwrap();
    let mut dc = s.alloc_zeros::<f32>(100).unwrap();
    launch_matmul(&s, &f, &da, &db, &mut dc, (16, 16, 1)).unwrap();
    let cpu = matmul_on_cpu(&a, &b);
    assert_eq!(bits(&s.clone_dtoh(&dc).unwrap()), bits(&cpu));
    assert!(cpu.iter().any(|&x| x != 0.0));

    let g = load_ptx(&ctx, &mix::KERNEL);
    for (flag, k, sv, fv) in [(true, -3i64, 200u8, 1.5f32), (false, i64::MAX, 0, -2.0)] {
        let mut out = s.alloc_zeros::<i64>(1000).unwrap();
        let n = 1000u64;
        let mut l = s.launch_builder(&g);
        l.arg(&flag).arg(&k).arg(&sv).arg(&fv).arg(&mut out).arg(&n);
        // SAFETY: the arguments match `mix`'s C signature.
        unsafe { l.launch(LaunchConfig::for_num_elems(1000)) }.unwrap();
        let mut cpu = gpujit::device_array::<i64>(1000).unwrap();
        mix![8, 128](flag, k, sv, fv, &mut cpu).unwrap();
        assert_eq!(s.clone_dtoh(&out).unwrap(), cpu.copy_to_host().unwrap());
    }
}

/// nvrtcGetCUBIN through the double gives the container; it loads and runs;
/// the PTX is the real NVRTC's, unchanged, before the appended source.
fn cubin_container_and_ptx_passthrough() {
    type Prog = *mut std::ffi::c_void;
    let double = std::env::var("GPUJIT_NVRTC_PATH").unwrap();
    let real = std::env::var("GPUJIT_DOUBLE_REAL_NVRTC").unwrap();
    let src = std::ffi::CString::new(matmul_tiled::cuda_source()).unwrap();
    // (sm_90 gives a CUBIN; compute_90 gives PTX only.)
    let compile = |lib: &libloading::Library, arch: &str| -> (Vec<u8>, Vec<u8>) {
        // SAFETY: NVRTC's C API with its documented signatures and buffers of the sizes it reports.
        unsafe {
            let create: libloading::Symbol<
                unsafe extern "C" fn(*mut Prog, *const i8, *const i8, i32, *const *const i8, *const *const i8) -> i32,
            > = lib.get(b"nvrtcCreateProgram").unwrap();
            let comp: libloading::Symbol<unsafe extern "C" fn(Prog, i32, *const *const i8) -> i32> =
                lib.get(b"nvrtcCompileProgram").unwrap();
            let size = |n: &[u8]| lib.get::<unsafe extern "C" fn(Prog, *mut usize) -> i32>(n).unwrap();
            let get = |n: &[u8]| lib.get::<unsafe extern "C" fn(Prog, *mut i8) -> i32>(n).unwrap();
            let mut p: Prog = std::ptr::null_mut();
            assert_eq!(
                create(
                    &mut p,
                    src.as_ptr(),
                    c"k.cu".as_ptr(),
                    0,
                    std::ptr::null(),
                    std::ptr::null()
                ),
                0
            );
            let opt = std::ffi::CString::new(format!("--gpu-architecture={arch}")).unwrap();
            assert_eq!(comp(p, 1, [opt.as_ptr()].as_ptr()), 0);
            let read = |s: &[u8], g: &[u8]| {
                let mut n = 0;
                if size(s)(p, &mut n) != 0 {
                    return Vec::new();
                }
                let mut v = vec![0u8; n];
                assert_eq!(get(g)(p, v.as_mut_ptr().cast()), 0);
                v
            };
            let ptx = read(b"nvrtcGetPTXSize", b"nvrtcGetPTX");
            let cubin = read(b"nvrtcGetCUBINSize", b"nvrtcGetCUBIN");
            (ptx, cubin)
        }
    };
    // SAFETY: loading NVRTC (real, and the double that forwards to it).
    let (d, r) = unsafe {
        (
            libloading::Library::new(&double).unwrap(),
            libloading::Library::new(&real).unwrap(),
        )
    };
    let (ptx_d, cubin_d) = compile(&d, "sm_90");
    let (ptx_r, cubin_r) = compile(&r, "sm_90");
    assert!(cubin_r.starts_with(b"\x7fELF"));
    assert!(ptx_r.ends_with(b"\0") && ptx_d.ends_with(b"\0"));
    assert_eq!(
        ptx_d[..ptx_r.len() - 1],
        ptx_r[..ptx_r.len() - 1],
        "the real PTX comes first, unchanged"
    );
    assert!(cubin_d.starts_with(b"GJDOUBLE"));
    assert!(cubin_d.ends_with(&cubin_r), "the real CUBIN is at the end");

    let (ctx, s) = ctx0();
    let m = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin_d)).unwrap();
    let f = m.load_function("matmul_tiled").unwrap();
    assert_eq!(code(m.load_function("nope")), CUresult::CUDA_ERROR_NOT_FOUND);
    let (a, b) = matrices();
    let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
    let mut dc = s.alloc_zeros::<f32>(100).unwrap();
    launch_matmul(&s, &f, &da, &db, &mut dc, (16, 16, 1)).unwrap();
    assert_eq!(bits(&s.clone_dtoh(&dc).unwrap()), bits(&matmul_on_cpu(&a, &b)));
    // A real CUBIN carries no source: CUDA_ERROR_INVALID_IMAGE.
    assert_eq!(
        code(ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin_r))),
        CUresult::CUDA_ERROR_INVALID_IMAGE
    );
}

/// Launch limits give CUDA's codes; an array argument shorter than its
/// extents is an illegal address, sticky for the context.
fn launch_errors() {
    let (ctx, s) = ctx0();
    let f = load_ptx(&ctx, &matmul_tiled::KERNEL);
    let (a, b) = matrices();
    let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
    let mut dc = s.alloc_zeros::<f32>(100).unwrap();
    for block in [(1025, 1, 1), (64, 32, 1), (1, 1, 65), (0, 1, 1)] {
        let r = launch_matmul(&s, &f, &da, &db, &mut dc, block);
        assert_eq!(code(r), CUresult::CUDA_ERROR_INVALID_VALUE, "block {block:?}");
    }
    let mut l = s.launch_builder(&f);
    let dims = [20u64, 37, 37, 5, 20, 5];
    l.arg(&da)
        .arg(&dims[0])
        .arg(&dims[1])
        .arg(&db)
        .arg(&dims[2])
        .arg(&dims[3])
        .arg(&mut dc);
    l.arg(&dims[4]).arg(&dims[5]);
    let big = LaunchConfig {
        grid_dim: (1, 2, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 48 << 10 | 1,
    };
    // SAFETY: matching arguments; the shared memory request is what is wrong.
    assert_eq!(code(unsafe { l.launch(big) }), CUresult::CUDA_ERROR_INVALID_VALUE);
    // `c` holds 100 floats; extents claiming 20 x 6 need 120.
    let mut short = s.alloc_zeros::<f32>(100).unwrap();
    let (a0, a1, b0, b1, c0, c1) = (20u64, 37u64, 37u64, 5u64, 20u64, 6u64);
    let mut l = s.launch_builder(&f);
    l.arg(&da)
        .arg(&a0)
        .arg(&a1)
        .arg(&db)
        .arg(&b0)
        .arg(&b1)
        .arg(&mut short)
        .arg(&c0)
        .arg(&c1);
    let cfg = LaunchConfig {
        grid_dim: (1, 2, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matching types; the extents are the bug under test.
    assert_eq!(code(unsafe { l.launch(cfg) }), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(code(ctx.synchronize()), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, "sticky");
    assert_eq!(
        code(s.alloc_zeros::<f32>(4)),
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
        "sticky"
    );
}

/// Copies and frees with pointers the double did not hand out, or freed.
fn bad_pointers_and_use_after_free() {
    let (_ctx, _s) = ctx0();
    let host = [1u8; 64];
    let mut back = [0u8; 64];
    // SAFETY (all below): raw driver calls with valid host buffers; the device pointers are the test.
    unsafe {
        let p = result::malloc_sync(64).unwrap();
        result::memcpy_htod_sync(p, &host).unwrap();
        assert_eq!(
            code(result::memcpy_htod_sync(p + 1, &host)),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            code(result::memcpy_dtoh_sync(&mut back, 0x1000)),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            code(result::memcpy_dtod_sync(p, p + 32, 64)),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        result::free_sync(p).unwrap();
        assert_eq!(
            code(result::memcpy_dtoh_sync(&mut back, p)),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            code(result::free_sync(p)),
            CUresult::CUDA_ERROR_INVALID_VALUE,
            "double free"
        );
        assert_eq!(
            code(result::memset_d8_sync(p, 0, 1)),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(code(result::malloc_sync(0)), CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(code(result::malloc_sync(17 << 30)), CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    }
    assert_eq!(back, [0; 64], "nothing was written through a bad pointer");
}

fn fail_no_device() {
    assert_eq!(code(result::init()), CUresult::CUDA_ERROR_NO_DEVICE);
    assert_eq!(code(CudaContext::new(0)), CUresult::CUDA_ERROR_NO_DEVICE);
    assert_eq!(code(result::device::get_count()), CUresult::CUDA_ERROR_NOT_INITIALIZED);
}

fn fail_init() {
    assert_eq!(code(result::init()), CUresult::CUDA_ERROR_UNKNOWN);
    assert_eq!(code(result::device::get(0)), CUresult::CUDA_ERROR_NOT_INITIALIZED);
}

fn fail_oom() {
    let (ctx, s) = ctx0();
    assert_eq!(code(s.alloc_zeros::<f32>(4)), CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    assert_eq!(
        code(unsafe { ctx.alloc_pinned::<f32>(4) }),
        CUresult::CUDA_ERROR_OUT_OF_MEMORY
    );
    // SAFETY: a raw allocation call.
    assert_eq!(
        code(unsafe { result::malloc_sync(4) }),
        CUresult::CUDA_ERROR_OUT_OF_MEMORY
    );
}

fn fail_illegal_address() {
    let (ctx, s) = ctx0();
    let f = load_ptx(&ctx, &matmul_tiled::KERNEL);
    let (a, b) = matrices();
    let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
    let mut dc = s.alloc_zeros::<f32>(100).unwrap();
    let r = launch_matmul(&s, &f, &da, &db, &mut dc, (16, 16, 1));
    assert_eq!(code(r), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(code(s.synchronize()), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
}

/// Deferred streams: the fault shows at the synchronization, and a pinned
/// source is read when the stream runs, not at the call.
fn deferred_streams() {
    let (ctx, s) = ctx0();
    let st = ctx.new_stream().unwrap();
    let mut pinned = unsafe { ctx.alloc_pinned::<u32>(4) }.unwrap();
    let mut d = st.alloc_zeros::<u32>(4).unwrap();
    pinned.as_mut_slice().unwrap().copy_from_slice(&[1, 2, 3, 4]);
    let raw = pinned.as_mut_ptr().unwrap();
    st.memcpy_htod(&pinned, &mut d).unwrap();
    // SAFETY: a write into live pinned memory behind cudarc's back while the
    // copy is queued: the race a backend must not have; here it shows when
    // the copy read its source.
    unsafe { *raw = 99 };
    assert_eq!(st.clone_dtoh(&d).unwrap()[0], 99, "the copy ran after the write");
    if std::env::var("GPUJIT_DOUBLE_FAIL").is_ok() {
        let f = load_ptx(&ctx, &matmul_tiled::KERNEL);
        let (a, b) = matrices();
        let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
        let mut dc = s.alloc_zeros::<f32>(100).unwrap();
        launch_matmul(&s, &f, &da, &db, &mut dc, (16, 16, 1)).expect("deferred: the launch itself succeeds");
        assert_eq!(code(s.synchronize()), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    }
}

fn launch_1d(
    s: &Arc<CudaStream>,
    f: &CudaFunction,
    arrays: &mut [&mut cudarc::driver::CudaSlice<f32>],
    grid: u32,
    block: u32,
) -> Result<(), DriverError> {
    let lens: Vec<u64> = arrays.iter().map(|a| a.len() as u64).collect();
    let mut l = s.launch_builder(f);
    for (a, n) in arrays.iter_mut().zip(&lens) {
        l.arg(&mut **a).arg(n);
    }
    let cfg = LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: each array is passed with its length, as the kernels take them;
    // what the kernels do with them is the test.
    unsafe { l.launch(cfg) }.map(|_| ())
}

/// Asserts that a launch faulted with an illegal address: at the call, or
/// with `GPUJIT_DOUBLE_DEFER=1` at the next synchronization (the launch
/// itself succeeds, as an asynchronous launch does on a GPU).
fn assert_illegal_address(r: Result<(), DriverError>, s: &Arc<CudaStream>) {
    if std::env::var("GPUJIT_DOUBLE_DEFER").as_deref() == Ok("1") {
        r.expect("deferred: the launch itself succeeds");
    } else {
        assert_eq!(code(r), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    }
    assert_eq!(code(s.synchronize()), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, "sticky");
}

/// A kernel that reads or writes past the end of an array reaches the guard
/// page behind it: `CUDA_ERROR_ILLEGAL_ADDRESS`, sticky for the context as on
/// a GPU, and the process lives on. Once the context is gone (the last
/// release of the primary context destroys it, as CUDA's does), a new one
/// runs kernels again.
fn out_of_bounds_accesses_are_illegal_addresses() {
    let cases: [(&gpujit::__private::KernelDef, &[usize], u32, u32); 4] = [
        // One block, its threads one after another on the launching thread.
        (&store_past_end::KERNEL, &[10], 1, 16),
        // Blocks in parallel on the double's worker threads.
        (&store_past_end::KERNEL, &[50], 4, 16),
        // A block's threads as OS threads meeting at barriers.
        (&store_past_end_synced::KERNEL, &[10], 1, 16),
        (&load_shifted::KERNEL, &[10, 10], 1, 16),
    ];
    for (k, lens, grid, block) in cases {
        let (ctx, s) = ctx0();
        let f = load_ptx(&ctx, k);
        let mut arrays: Vec<_> = lens.iter().map(|&n| s.alloc_zeros::<f32>(n).unwrap()).collect();
        let mut refs: Vec<_> = arrays.iter_mut().collect();
        assert_illegal_address(launch_1d(&s, &f, &mut refs, grid, block), &s);
        assert_eq!(
            code(s.alloc_zeros::<f32>(4)),
            CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            "{}: sticky",
            k.entry
        );
        // Everything of the context is dropped here (the frees fail, sticky,
        // and cudarc records the errors), then the context itself.
    }
    let (ctx, s) = ctx0();
    let f = load_ptx(&ctx, &load_shifted::KERNEL);
    let host: Vec<f32> = (0..11).map(|i| i as f32 * 1.5).collect();
    let mut x = s.clone_htod(&host).unwrap();
    let mut out = s.alloc_zeros::<f32>(10).unwrap();
    launch_1d(&s, &f, &mut [&mut x, &mut out], 1, 16).unwrap();
    s.synchronize().unwrap();
    assert_eq!(s.clone_dtoh(&out).unwrap(), host[1..], "a fresh context runs kernels");
    // In bounds up to the last element: no fault.
    let f = load_ptx(&ctx, &store_past_end::KERNEL);
    let mut a = s.alloc_zeros::<f32>(64).unwrap();
    launch_1d(&s, &f, &mut [&mut a], 4, 16).unwrap();
    assert_eq!(s.clone_dtoh(&a).unwrap(), [1.0; 64]);
}

/// A fault that is not in a guard page is not the double's to hide: the
/// process dies of it. Runs `helper_store_far_out_of_bounds` in a child.
fn faults_outside_guard_pages_still_crash() {
    use std::os::unix::process::ExitStatusExt;
    let out = Command::new(std::env::current_exe().unwrap())
        .env("GJ_DOUBLE_CASE", "helper_store_far_out_of_bounds")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // SIGBUS where x86 reports the non-canonical address as a stack-segment
    // fault (the compiler may address the array through %rbp).
    assert!(
        matches!(out.status.signal(), Some(libc::SIGSEGV | libc::SIGBUS)),
        "{}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("ILLEGAL_ADDRESS"), "{stderr}");
}

/// A store 2^45 elements past the start of a 10-element array: far from
/// every allocation (here: not even a canonical address).
fn store_far_out_of_bounds() {
    let (ctx, s) = ctx0();
    let f = load_ptx(&ctx, &store_at::KERNEL);
    let mut a = s.alloc_zeros::<f32>(10).unwrap();
    let (k, n) = (1u64 << 45, 10u64);
    let mut l = s.launch_builder(&f);
    l.arg(&k).arg(&mut a).arg(&n);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matching arguments; the wild store is the test (it must kill this process).
    let r = unsafe { l.launch(cfg) };
    let _ = s.synchronize();
    panic!("the process survived a wild store: {r:?}");
}

fn two_devices() {
    assert_eq!(CudaContext::device_count().unwrap(), 2);
    let c0 = CudaContext::new(0).unwrap();
    let c1 = CudaContext::new(1).unwrap();
    assert_ne!(c0.cu_ctx(), c1.cu_ctx());
    let (s0, s1) = (c0.default_stream(), c1.default_stream());
    let x = s0.clone_htod(&[1.5f32, 2.5, 3.5]).unwrap();
    let mut y = s1.alloc_zeros::<f32>(3).unwrap();
    s1.memcpy_dtod(&x, &mut y).unwrap();
    assert_eq!(s1.clone_dtoh(&y).unwrap(), [1.5, 2.5, 3.5]);
    // A kernel on device 0 given device 1's memory faults.
    let f = load_ptx(&c0, &matmul_tiled::KERNEL);
    let (a, b) = matrices();
    let (da, db) = (s0.clone_htod(&a).unwrap(), s0.clone_htod(&b).unwrap());
    let mut dc1 = s1.alloc_zeros::<f32>(100).unwrap();
    c0.bind_to_thread().unwrap();
    let r = launch_matmul(&s0, &f, &da, &db, &mut dc1, (16, 16, 1));
    assert_eq!(code(r), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
    // Device 1's context is unharmed.
    assert_eq!(s1.clone_dtoh(&y).unwrap(), [1.5, 2.5, 3.5]);
}

// ------------------------------------------------------------------ runner (parent side)

#[derive(Clone, Copy, PartialEq)]
enum Needs {
    Nothing,
    NvrtcAndCxx,
}

struct Case {
    name: &'static str,
    run: fn(),
    env: &'static [(&'static str, &'static str)],
    needs: Needs,
}

fn cases() -> Vec<Case> {
    use Needs::*;
    let c = |name, run, env, needs| Case { name, run, env, needs };
    vec![
        c(
            "context_device_and_attributes",
            context_device_and_attributes as fn(),
            &[][..],
            Nothing,
        ),
        c("copies_round_trip", copies_round_trip, &[], Nothing),
        c("streams_and_events", streams_and_events, &[], Nothing),
        c(
            "bad_pointers_and_use_after_free",
            bad_pointers_and_use_after_free,
            &[],
            Nothing,
        ),
        c("kernels_match_cpu_backend", kernels_match_cpu_backend, &[], NvrtcAndCxx),
        c(
            "kernels_match_cpu_backend_deferred",
            kernels_match_cpu_backend,
            &[("GPUJIT_DOUBLE_DEFER", "1")],
            NvrtcAndCxx,
        ),
        c(
            "cubin_container_and_ptx_passthrough",
            cubin_container_and_ptx_passthrough,
            &[],
            NvrtcAndCxx,
        ),
        c("launch_errors", launch_errors, &[], NvrtcAndCxx),
        c(
            "fail_no_device",
            fail_no_device,
            &[("GPUJIT_DOUBLE_FAIL", "no-device")],
            Nothing,
        ),
        c(
            "fail_zero_devices",
            fail_no_device,
            &[("GPUJIT_DOUBLE_DEVICES", "0")],
            Nothing,
        ),
        c("fail_init", fail_init, &[("GPUJIT_DOUBLE_FAIL", "init")], Nothing),
        c("fail_oom", fail_oom, &[("GPUJIT_DOUBLE_FAIL", "oom")], Nothing),
        c(
            "fail_illegal_address",
            fail_illegal_address,
            &[("GPUJIT_DOUBLE_FAIL", "illegal-address")],
            NvrtcAndCxx,
        ),
        c(
            "deferred_streams",
            deferred_streams,
            &[("GPUJIT_DOUBLE_DEFER", "1")],
            Nothing,
        ),
        c(
            "deferred_streams_report_faults_at_sync",
            deferred_streams,
            &[("GPUJIT_DOUBLE_DEFER", "1"), ("GPUJIT_DOUBLE_FAIL", "illegal-address")],
            NvrtcAndCxx,
        ),
        c(
            "out_of_bounds_accesses_are_illegal_addresses",
            out_of_bounds_accesses_are_illegal_addresses,
            &[],
            NvrtcAndCxx,
        ),
        c(
            "out_of_bounds_accesses_are_illegal_addresses_deferred",
            out_of_bounds_accesses_are_illegal_addresses,
            &[("GPUJIT_DOUBLE_DEFER", "1")],
            NvrtcAndCxx,
        ),
        c(
            "faults_outside_guard_pages_still_crash",
            faults_outside_guard_pages_still_crash,
            &[],
            NvrtcAndCxx,
        ),
        c(
            "two_devices",
            two_devices,
            &[("GPUJIT_DOUBLE_DEVICES", "2")],
            NvrtcAndCxx,
        ),
    ]
}

/// Cases that only other cases run (in a child of their own), never the harness.
fn helper_cases() -> Vec<Case> {
    vec![Case {
        name: "helper_store_far_out_of_bounds",
        run: store_far_out_of_bounds,
        env: &[],
        needs: Needs::NvrtcAndCxx,
    }]
}

/// The built double: next to this test binary (`target/<profile>/deps`) or one folder up.
fn double_library() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let deps = exe.parent().ok_or("no folder")?;
    [deps.to_path_buf(), deps.parent().unwrap_or(deps).to_path_buf()]
        .iter()
        .map(|d| d.join("libgpujit_driver_double.so"))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("libgpujit_driver_double.so is not next to {}", exe.display()))
}

/// A folder of symlinks that makes the double `libcuda.so` and `libnvrtc.so`;
/// returns it and the real NVRTC (when found).
fn link_folder(double: &Path) -> (PathBuf, Option<PathBuf>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("driver-double-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["libcuda.so", "libcuda.so.1", "libnvrtc.so"] {
        std::os::unix::fs::symlink(double, dir.join(name)).unwrap();
    }
    let real = real_nvrtc();
    // The builtins library the real NVRTC loads at run time, found beside
    // the name it was opened by (the folder in LD_LIBRARY_PATH).
    let folder = real
        .as_deref()
        .and_then(|r| if r.is_dir() { Some(r) } else { r.parent() });
    if let Some(folder) = folder {
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with("libnvrtc-builtins") {
                let _ = std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name()));
            }
        }
    }
    (dir, real)
}

/// The real NVRTC (a file, or a folder as the double accepts), never the
/// double: `GPUJIT_DOUBLE_REAL_NVRTC` when set (in
/// an environment made by `scripts/driver-double.sh`, as CI's second pass
/// runs the suite, `GPUJIT_NVRTC_PATH` names the double's forwarder), else
/// what gpujit's loader finds.
fn real_nvrtc() -> Option<PathBuf> {
    let real = match std::env::var_os("GPUJIT_DOUBLE_REAL_NVRTC") {
        Some(p) => PathBuf::from(p),
        None => gpujit::nvrtc::library_path().ok()?,
    };
    std::fs::canonicalize(&real).ok()
}

fn main() -> ExitCode {
    if let Ok(name) = std::env::var("GJ_DOUBLE_CASE") {
        let case = cases()
            .into_iter()
            .chain(helper_cases())
            .find(|c| c.name == name)
            .expect("known case");
        (case.run)();
        return ExitCode::SUCCESS;
    }
    let args = libtest_mimic::Arguments::from_args();
    let double = double_library();
    let (dir, real) = match &double {
        Ok(so) => link_folder(so),
        Err(_) => (PathBuf::new(), None),
    };
    let cxx = Command::new("g++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let required = |var: &str| std::env::var(var).as_deref() == Ok("1");
    let mut notes = Vec::new();
    let trials = cases()
        .into_iter()
        .map(|case| {
            let missing = match case.needs {
                _ if double.is_err() => double.clone().err(),
                Needs::NvrtcAndCxx if real.is_none() => {
                    Some("NVRTC not found: run `bash scripts/install-nvrtc.sh`".to_string())
                }
                Needs::NvrtcAndCxx if !cxx => Some("g++ not found: install it".to_string()),
                _ => None,
            };
            let require = required("GPUJIT_REQUIRE_NVRTC") || required("GPUJIT_REQUIRE_CXX");
            if let Some(why) = missing {
                if !notes.contains(&why) {
                    notes.push(why.clone());
                }
                return if require {
                    libtest_mimic::Trial::test(case.name, move || Err(format!("{why} (required)").into()))
                } else {
                    libtest_mimic::Trial::test(case.name, || Ok(())).with_ignored_flag(true)
                };
            }
            let (dir, real, name, env) = (dir.clone(), real.clone(), case.name, case.env);
            libtest_mimic::Trial::test(name, move || {
                let mut cmd = Command::new(std::env::current_exe().unwrap());
                cmd.env("GJ_DOUBLE_CASE", name)
                    .env("LD_LIBRARY_PATH", &dir)
                    .env("GPUJIT_NVRTC_PATH", dir.join("libnvrtc.so"))
                    .env(
                        "GPUJIT_DOUBLE_CACHE",
                        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("driver-double-cache"),
                    )
                    .env_remove("GPUJIT_DOUBLE_FAIL")
                    .env_remove("GPUJIT_DOUBLE_DEFER")
                    .env_remove("GPUJIT_DOUBLE_DEVICES")
                    .env_remove("GPUJIT_LOW_OCCUPANCY_WARNINGS")
                    // Its comparisons run gpujit's CPU backend.
                    .env("GPUJIT_BACKEND", "cpu");
                if let Some(real) = &real {
                    cmd.env("GPUJIT_DOUBLE_REAL_NVRTC", real);
                }
                cmd.envs(env.iter().copied());
                let out = cmd.output().map_err(|e| e.to_string())?;
                if out.status.success() {
                    Ok(())
                } else {
                    Err(format!(
                        "child ({}) failed:\n{}{}",
                        out.status,
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    )
                    .into())
                }
            })
        })
        .collect();
    for n in notes {
        println!("note: tests ignored: {n}");
    }
    libtest_mimic::run(&args, trials).exit_code()
}
