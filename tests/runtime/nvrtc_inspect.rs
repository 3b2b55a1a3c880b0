//! NVRTC for real devices and what it tells about a kernel, without a GPU:
//! - `compile_cubin` makes an ELF CUBIN for `sm_75` and `sm_90`, and refuses
//!   an architecture NVRTC does not support;
//! - the on-disk cache: miss then hit, a corrupt or foreign entry is compiled
//!   again and replaced, concurrent processes and threads agree, `GPUJIT_CACHE=0`
//!   and `GPUJIT_CACHE_DIR` work and the default folder is the platform's;
//! - per kernel: `ptx()`, `resources()` (the tiled matmul's 2 × 16×16 f32 =
//!   2048 shared bytes) and `#line` directives that make NVRTC's messages name
//!   the Rust file and line.
//!
//! The cache tests never touch the user's cache: `main` points
//! `GPUJIT_CACHE_DIR` at a temporary folder for the whole process, and the
//! tests that need another environment run this binary again as a child
//! (`GPUJIT_TEST_CACHE_CHILD`).

use std::path::{Path, PathBuf};
use std::process::Command;

use gpujit::nvrtc::{self, Cache, ENV_CACHE, ENV_CACHE_DIR};
use gpujit::prelude::*;
use gpujit::Error;

use crate::common;
use common::Tool;

use crate::kernels;
use crate::matmul;
#[path = "../../examples/saxpy.rs"]
#[allow(dead_code)]
mod saxpy;

/// What a child process does, read from `GPUJIT_TEST_CACHE_CHILD`.
const CHILD: &str = "GPUJIT_TEST_CACHE_CHILD";

/// In a child process this file started (`GPUJIT_TEST_CACHE_CHILD` set):
/// does that child's part and returns its exit code.
pub fn child() -> Option<std::process::ExitCode> {
    std::env::var(CHILD).ok().map(|role| child_role(&role))
}

/// Points the environment's compile cache of this process at a temporary
/// folder (dropped at the end of the run). Call it before any thread exists.
pub fn scratch_cache() -> tempfile::TempDir {
    let scratch = tempfile::tempdir().expect("a temporary folder");
    std::env::set_var(ENV_CACHE_DIR, scratch.path());
    std::env::remove_var(ENV_CACHE);
    scratch
}

/// The tests of this file, for the crate's harness (after [`scratch_cache`]).
pub fn cases() -> Vec<common::Case> {
    let nvrtc = Some(Tool::Nvrtc);
    cases![
            nvrtc => cubin_for_oldest_and_target_arch_is_elf_for_cuda,
            nvrtc => unsupported_arch_is_an_error,
            nvrtc => cache_miss_then_hit,
            nvrtc => corrupt_entry_is_compiled_again,
            nvrtc => foreign_entry_is_never_trusted,
            nvrtc => concurrent_processes_and_threads_agree,
            nvrtc => env_dir_disabled_and_default_folder,
            nvrtc => resources_of_shared_memory_kernels,
            nvrtc => ptx_of_a_kernel,
            nvrtc => nvrtc_errors_name_the_rust_line,
            None => nvrtc_source_is_cuda_source_with_line_directives,
    ]
}

const FILL: &str = r#"extern "C" __global__ void fill(float* v, float x) { v[threadIdx.x] = x; }"#;
const TWICE: &str = r#"extern "C" __global__ void twice(float* v) { v[threadIdx.x] *= 2.0f; }"#;

/// The ELF image in a CUBIN: the image itself, or the real CUBIN inside the
/// container of the CUDA driver double (`driver-double/src/nvrtc.rs`:
/// `GJDOUBLE`, source length, source, CUBIN length, CUBIN) when the tests run
/// against it.
fn elf_of(image: &[u8]) -> &[u8] {
    let Some(rest) = image.strip_prefix(b"GJDOUBLE") else {
        return image;
    };
    let len = |b: &[u8]| u64::from_le_bytes(b[..8].try_into().unwrap()) as usize;
    let rest = &rest[8 + len(rest)..];
    &rest[8..8 + len(rest)]
}

/// Checks the ELF header: magic, 64-bit, little-endian, `e_machine` EM_CUDA (190).
fn assert_cuda_elf(image: &[u8], what: &str) {
    let elf = elf_of(image);
    assert!(
        elf.starts_with(b"\x7fELF"),
        "{what}: not an ELF image: {:?}",
        &elf[..elf.len().min(16)]
    );
    assert_eq!(elf[4], 2, "{what}: not ELF64");
    assert_eq!(elf[5], 1, "{what}: not little-endian");
    assert_eq!(
        u16::from_le_bytes([elf[18], elf[19]]),
        190,
        "{what}: e_machine is not EM_CUDA"
    );
}

fn cubin_for_oldest_and_target_arch_is_elf_for_cuda() {
    for arch in [(7, 5), (9, 0)] {
        let cubin = Cache::disabled().compile_cubin(FILL, "fill", arch).unwrap();
        assert_cuda_elf(&cubin.image, &format!("{arch:?}"));
        assert!(!cubin.from_cache);
        assert_eq!((cubin.arch, cubin.entry.as_str()), (arch, "fill"));
        assert!(!cubin.has_warnings(), "{}", cubin.log);
        let sm = nvrtc::sm_name(arch);
        assert!(cubin.log.contains(&format!("for '{sm}'")), "{sm}: {}", cubin.log);
        assert_eq!(cubin.resources().unwrap().arch, sm);
    }
}

fn unsupported_arch_is_an_error() {
    // NVRTC 13 starts at sm_75; 12 at sm_50. Neither knows sm_10 or sm_99.
    for arch in [(1, 0), (9, 9)] {
        match Cache::disabled().compile_cubin(FILL, "fill", arch) {
            Err(Error::NvrtcCompile { kernel, log }) => {
                assert_eq!(kernel, "fill");
                assert!(log.contains("gpu-architecture"), "{arch:?}: {log}");
            }
            other => panic!("{arch:?}: expected NvrtcCompile, got {other:?}"),
        }
    }
}

/// The names of the files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|it| it.map(|e| e.unwrap().file_name().into_string().unwrap()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn cache_miss_then_hit() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::in_dir(dir.path().join("nested/folder"));
    let first = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
    assert!(!first.from_cache);
    let names = files(cache.dir().unwrap());
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].ends_with(".cubin") && names[0].len() == 64 + 6, "{names:?}");

    let again = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
    assert!(again.from_cache);
    assert!(
        again.image == first.image && again.log == first.log,
        "the hit differs from the miss"
    );
    assert_eq!(again.resources().unwrap(), first.resources().unwrap());

    // Each input is part of the key: another arch, source or entry misses.
    assert!(!cache.compile_cubin(FILL, "fill", (7, 5)).unwrap().from_cache);
    assert!(
        !cache
            .compile_cubin(&format!("{FILL}\n"), "fill", (9, 0))
            .unwrap()
            .from_cache
    );
    assert!(!cache.compile_cubin(FILL, "fill2", (9, 0)).unwrap().from_cache);
    // PTX is cached apart from CUBIN.
    let ptx = cache.compile_ptx(FILL, "fill", (9, 0)).unwrap();
    assert!(!ptx.from_cache && ptx.text.contains(".entry fill"), "{ptx}");
    let ptx_again = cache.compile_ptx(FILL, "fill", (9, 0)).unwrap();
    assert!(ptx_again.from_cache);
    assert!(ptx_again.text == ptx.text);
    assert_eq!(files(cache.dir().unwrap()).len(), 5);

    assert_eq!(cache.clear().unwrap(), 5);
    assert!(!cache.compile_cubin(FILL, "fill", (9, 0)).unwrap().from_cache);
}

/// The one entry in `dir`.
fn only_entry(dir: &Path) -> PathBuf {
    let names = files(dir);
    assert_eq!(names.len(), 1, "{names:?}");
    dir.join(&names[0])
}

fn corrupt_entry_is_compiled_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::in_dir(dir.path());
    let good = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
    let entry = only_entry(dir.path());
    let bytes = std::fs::read(&entry).unwrap();
    assert!(bytes.ends_with(&good.image));
    let last = bytes.len() - 1;
    let corruptions: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("a flipped byte in the image", {
            let mut b = bytes.clone();
            b[last] ^= 1;
            b
        }),
        ("a flipped byte in the header", {
            let mut b = bytes.clone();
            b[3] ^= 1;
            b
        }),
        ("garbage", vec![0xAB; bytes.len()]),
    ];
    for (what, bad) in corruptions {
        std::fs::write(&entry, &bad).unwrap();
        let again = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
        assert!(!again.from_cache, "{what}: a corrupt entry was trusted");
        assert!(again.image == good.image, "{what}: another image");
        // Replaced by a good entry (its log's "Compile time" differs, so not
        // byte for byte the first one).
        assert!(
            std::fs::read(&entry).unwrap() != bad,
            "{what}: the entry was not replaced"
        );
        let hit = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
        assert!(
            hit.from_cache && hit.image == good.image,
            "{what}: no valid entry after the compile"
        );
    }
}

fn foreign_entry_is_never_trusted() {
    // A well-formed entry of another compile, moved to this compile's file
    // name (as a truncated hash or a copied folder could do), is not used.
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::in_dir(dir.path());
    let twice = cache.compile_cubin(TWICE, "twice", (9, 0)).unwrap();
    let twice_entry = only_entry(dir.path());
    let fill = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
    let fill_entry = files(dir.path())
        .into_iter()
        .map(|n| dir.path().join(n))
        .find(|p| *p != twice_entry)
        .unwrap();
    std::fs::copy(&twice_entry, &fill_entry).unwrap();
    let again = cache.compile_cubin(FILL, "fill", (9, 0)).unwrap();
    assert!(!again.from_cache, "another compile's entry was trusted");
    assert!(
        again.image == fill.image && again.image != twice.image,
        "not FILL's image"
    );
    assert!(again.log.contains("'fill'"), "{}", again.log);
}

/// Child processes: `writer <dir>` compiles FILL through a cache in `<dir>`
/// 20 times and prints the image's length and checksum; `env` prints what
/// `Cache::from_env()` and two `compile_cubin`s see.
fn child_role(role: &str) -> std::process::ExitCode {
    let result = match role.split_once(' ') {
        Some(("writer", dir)) => (|| -> gpujit::Result<String> {
            let cache = Cache::in_dir(dir);
            let mut seen = Vec::new();
            for _ in 0..20 {
                seen.push(cache.compile_cubin(FILL, "fill", (9, 0))?.image);
            }
            assert!(
                seen.windows(2).all(|w| w[0] == w[1]),
                "results differ within one process"
            );
            Ok(format!("{} {}", seen[0].len(), checksum(&seen[0])))
        })(),
        _ if role == "env" => (|| -> gpujit::Result<String> {
            let dir = Cache::from_env().dir().map(|d| d.display().to_string());
            let first = nvrtc::compile_cubin(FILL, "fill", (9, 0))?.from_cache;
            let second = nvrtc::compile_cubin(FILL, "fill", (9, 0))?.from_cache;
            Ok(format!("dir={dir:?} first={first} second={second}"))
        })(),
        _ => panic!("unknown child role {role:?}"),
    };
    match result {
        Ok(line) => {
            println!("{line}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// FNV-1a, only to compare images across processes in a line of text.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// This binary run as a child with `role` and extra environment; its stdout.
fn run_child(role: &str, env: &[(&str, &Path)], remove: &[&str]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.env(CHILD, role);
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in remove {
        cmd.env_remove(k);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "child {role:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn concurrent_processes_and_threads_agree() {
    let dir = tempfile::tempdir().unwrap();
    let role = format!("writer {}", dir.path().display());
    let expected = Cache::disabled().compile_cubin(FILL, "fill", (9, 0)).unwrap().image;
    let expected = format!("{} {}", expected.len(), checksum(&expected));
    let outputs: Vec<String> = std::thread::scope(|s| {
        let children: Vec<_> = (0..4).map(|_| s.spawn(|| run_child(&role, &[], &[]))).collect();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let cache = Cache::in_dir(dir.path());
                    let images: Vec<Vec<u8>> = (0..20)
                        .map(|_| cache.compile_cubin(FILL, "fill", (9, 0)).unwrap().image)
                        .collect();
                    assert!(images.windows(2).all(|w| w[0] == w[1]));
                    format!("{} {}", images[0].len(), checksum(&images[0]))
                })
            })
            .collect();
        children.into_iter().chain(threads).map(|h| h.join().unwrap()).collect()
    });
    for out in &outputs {
        assert_eq!(out, &expected);
    }
    // One entry, no temporary file left behind, and it is a valid hit.
    let names = files(dir.path());
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        Cache::in_dir(dir.path())
            .compile_cubin(FILL, "fill", (9, 0))
            .unwrap()
            .from_cache
    );
}

fn env_dir_disabled_and_default_folder() {
    let dir = tempfile::tempdir().unwrap();
    let explicit = dir.path().join("explicit");
    let out = run_child("env", &[(ENV_CACHE_DIR, &explicit)], &[ENV_CACHE]);
    assert_eq!(
        out,
        format!("dir={:?} first=false second=true", Some(explicit.display().to_string()))
    );
    assert_eq!(files(&explicit).len(), 1);

    for off in ["0", "false", "OFF", "no"] {
        let disabled = dir.path().join(format!("disabled-{off}"));
        let out = run_child("env", &[(ENV_CACHE_DIR, &disabled), (ENV_CACHE, Path::new(off))], &[]);
        assert_eq!(out, "dir=None first=false second=false", "GPUJIT_CACHE={off}");
        assert!(!disabled.exists(), "GPUJIT_CACHE={off} wrote {}", disabled.display());
    }

    // No GPUJIT_CACHE_DIR: the platform's cache folder (on Linux
    // $XDG_CACHE_HOME), under gpujit/nvrtc.
    if cfg!(target_os = "linux") {
        let xdg = dir.path().join("xdg");
        let out = run_child("env", &[("XDG_CACHE_HOME", &xdg)], &[ENV_CACHE_DIR, ENV_CACHE]);
        let folder = xdg.join("gpujit").join("nvrtc");
        assert_eq!(
            out,
            format!("dir={:?} first=false second=true", Some(folder.display().to_string()))
        );
        assert_eq!(files(&folder).len(), 1);
    }
}

fn resources_of_shared_memory_kernels() {
    for arch in [(7, 5), (9, 0)] {
        // 2 tiles of 16 × 16 f32.
        let tiled = matmul::matmul_tiled::resources_for(arch).unwrap();
        assert_eq!(tiled.shared_bytes, 2 * 16 * 16 * 4, "{arch:?}: {tiled:?}");
        assert_eq!(tiled.arch, nvrtc::sm_name(arch));
        assert!((8..=255).contains(&tiled.registers), "{arch:?}: {tiled:?}");
        assert_eq!(tiled.barriers, 1, "{arch:?}: {tiled:?}");
        assert_eq!(
            (tiled.spill_store_bytes, tiled.spill_load_bytes, tiled.local_bytes),
            (0, 0, 0)
        );
        // 32 u8, then 32 i64 (aligned to 8), then 8 × 4 f64.
        let mix = kernels::adversarial::adv_shared_mix::resources_for(arch).unwrap();
        assert_eq!(mix.shared_bytes, 32 + 32 * 8 + 8 * 4 * 8, "{arch:?}: {mix:?}");
        // No shared memory, no barrier.
        let saxpy = saxpy::saxpy::resources_for(arch).unwrap();
        assert_eq!((saxpy.shared_bytes, saxpy.barriers), (0, 0), "{arch:?}: {saxpy:?}");
        assert!(
            saxpy.registers > 0 && saxpy.registers < tiled.registers + 32,
            "{saxpy:?}"
        );
    }
    // The default architecture is sm_90.
    assert_eq!(
        matmul::matmul_tiled::resources().unwrap(),
        matmul::matmul_tiled::resources_for((9, 0)).unwrap()
    );
}

fn ptx_of_a_kernel() {
    let ptx = saxpy::saxpy::ptx().unwrap();
    assert!(ptx.text.contains(".entry saxpy("), "{ptx}");
    assert!(ptx.text.contains(".target sm_90"), "{ptx}");
    assert_eq!(ptx.to_string(), ptx.text);
    let again = saxpy::saxpy::ptx().unwrap();
    assert!(again.from_cache, "the second ptx() was compiled again");
    assert!(again.text == ptx.text);
    let old = saxpy::saxpy::ptx_for((7, 5)).unwrap();
    assert!(old.text.contains(".target sm_75"), "{old}");
    let tiled = matmul::matmul_tiled::ptx().unwrap();
    assert!(
        tiled.text.contains(".entry matmul_tiled(") && tiled.text.contains("bar.sync"),
        "{tiled}"
    );
    assert!(!tiled.has_warnings(), "{}", tiled.log);
    assert!(matches!(saxpy::saxpy::ptx_for((1, 0)), Err(Error::NvrtcCompile { .. })));
}

/// A kernel whose lines the test finds in this file.
#[gpu_kernel]
fn line_probe(x: &[f32], out: &mut [f32], n: usize) {
    let i = grid(1);
    if i < out.len() {
        let mut acc = 0.0f32;
        for k in 0..n {
            acc += x[k] * 0.5; // probe: loop body
        }
        out[i] = acc; // probe: assignment
    }
}

/// The 1-based line of this file holding `marker` (once).
fn line_of(marker: &str) -> usize {
    let src = include_str!("nvrtc_inspect.rs");
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker) && !l.contains("line_of("))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "{marker:?} on lines {hits:?}");
    hits[0]
}

/// NVRTC's log for `line_probe`'s `nvrtc_source` with `from` replaced by `to`.
fn log_with(from: &str, to: &str) -> String {
    let source = line_probe::nvrtc_source();
    assert!(source.contains(from), "{from:?} not in\n{source}");
    match nvrtc::compile_ptx(&source.replacen(from, to, 1), "line_probe", nvrtc::TARGET_ARCH) {
        Err(Error::NvrtcCompile { log, .. }) => log,
        other => panic!("expected NvrtcCompile, got {other:?}"),
    }
}

fn nvrtc_errors_name_the_rust_line() {
    let file = "tests/runtime/nvrtc_inspect.rs";
    // An error in a statement, in a loop body, and in the signature.
    let cases = [
        (
            "out[i] = acc;",
            "out[i] = acc + undefined_a;",
            line_of("probe: assignment"),
        ),
        (
            "acc += x[k] * 0.5f;",
            "acc += undefined_b;",
            line_of("probe: loop body"),
        ),
        ("unsigned long long n)", "undefined_type n)", line_of("fn line_probe(")),
    ];
    for (from, to, line) in cases {
        let log = log_with(from, to);
        let at = format!("{file}({line}): error");
        assert!(log.contains(&at), "expected `{at}` for {to:?} in:\n{log}");
    }
}

fn nvrtc_source_is_cuda_source_with_line_directives() {
    let mut all: Vec<&gpujit::__private::KernelDef> = kernels::all();
    all.extend([
        &matmul::matmul_tiled::KERNEL,
        &matmul::matmul_naive::KERNEL,
        &saxpy::saxpy::KERNEL,
        &line_probe::KERNEL,
    ]);
    for k in all {
        let (cuda, with_lines) = ((k.cuda_source)(), (k.nvrtc_source)());
        assert!(!cuda.contains("#line"), "{}: cuda_source has #line", k.name);
        let directives: Vec<&str> = with_lines.lines().filter(|l| l.starts_with("#line ")).collect();
        let stripped: String = with_lines
            .lines()
            .filter(|l| !l.starts_with("#line "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(stripped, cuda, "{}: nvrtc_source is not cuda_source plus #line", k.name);
        // The first names the file (and precedes the signature); the others
        // carry it over. Their lines lie in the kernel's file.
        let first = directives.first().unwrap_or_else(|| panic!("{}: no #line", k.name));
        assert!(first.ends_with(".rs\""), "{}: {first}", k.name);
        assert!(directives.len() > 1, "{}: no statement lines", k.name);
        for d in &directives[1..] {
            let n: usize = d["#line ".len()..]
                .parse()
                .unwrap_or_else(|_| panic!("{}: {d}", k.name));
            assert!(n > 0, "{}: {d}", k.name);
        }
    }
    let probe = line_probe::nvrtc_source();
    let first_line = line_of("fn line_probe(");
    assert!(
        probe.contains(&format!(
            "#line {first_line} \"tests/runtime/nvrtc_inspect.rs\"\nextern \"C\""
        )),
        "{probe}"
    );
    assert!(
        probe.contains(&format!("#line {}\n", line_of("probe: assignment"))),
        "{probe}"
    );
}
