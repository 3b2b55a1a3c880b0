//! The CPU backend's fast loops vectorize (issue #7): the machine code of
//! this binary's own kernels has packed float arithmetic where their block
//! spans run.
//!
//! Why read machine code: whether LLVM vectorizes a span loop hangs on
//! small things in the runtime (a select in `dim`, a hint that only held
//! when LLVM connected two tests), and losing it costs 1.3-1.7x with every
//! result still right, so no other test notices. Timing would be noisy; the
//! instructions are deterministic for a given compiler.
//!
//! What is checked: the block function of each kernel (its
//! `gj_cpu_entry::{{closure}}`, where the macro's thread loops are inlined)
//! contains at least one packed multiply and one packed add (`mulps`,
//! `addps`, their AVX forms, or a packed FMA). The checked loop never has
//! them (its accesses are calls and atomics), so they come from the span
//! loop. This needs an optimised x86-64 build and objdump (`Tool::Objdump`;
//! elsewhere the case is reported as ignored, and CI requires it).

use gpujit::ndarray::{Array2, Array3};
use gpujit::prelude::*;
use gpujit::{to_device, zeros};

use crate::common;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        // A debug build has no packed loops to find: `Tool::Release` there.
        Some(if cfg!(debug_assertions) { common::Tool::Release } else { common::Tool::Objdump }) => span_loops_use_packed_float_arithmetic,
    ]
}

/// bench/workloads' one-element saxpy.
#[gpu_kernel]
fn saxpy_one(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// examples/grayscale.rs's kernel: a 2-D launch, stride-3 `u8` loads, a
/// saturating cast.
#[gpu_kernel]
fn grayscale(rgb: ArrayView3<u8>, gray: ArrayViewMut2<u8>) {
    let (x, y) = grid(2);
    let (height, width) = gray.dim();
    if y < height && x < width {
        let r = rgb[[y, x, 0]] as f32;
        let g = rgb[[y, x, 1]] as f32;
        let b = rgb[[y, x, 2]] as f32;
        gray[[y, x]] = (0.299 * r + 0.587 * g + 0.114 * b) as u8;
    }
}

/// bench/workloads' 5-point stencil: offsets on both axes, a border
/// branch that interior blocks never take.
#[gpu_kernel]
fn stencil5(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (h, w) = out.dim();
    if y < h && x < w {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            out[[y, x]] = 0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]]);
        } else {
            out[[y, x]] = a[[y, x]];
        }
    }
}

/// Runs each kernel once (so that its code is in the binary, and is right).
fn launch_each() -> gpujit::Result<()> {
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut dy = to_device(&vec![1.0f32; n])?;
    saxpy_one![n.div_ceil(256), 256](2.0, &to_device(&x)?, &mut dy)?;
    let want: Vec<f32> = x.iter().map(|x| 2.0 * x + 1.0).collect();
    assert_eq!(dy.copy_to_host()?, want);

    let (h, w) = (40, 50);
    let rgb = Array3::from_shape_fn((h, w, 3), |(y, x, c)| ((y * 7 + x * 3 + c * 50) % 256) as u8);
    let mut d_gray = zeros::<u8>((h, w))?;
    grayscale![(w.div_ceil(16), h.div_ceil(16)), (16, 16)](&to_device(&rgb)?, &mut d_gray)?;
    let gray: Array2<u8> = d_gray.copy_to_ndarray()?;
    let want = Array2::from_shape_fn((h, w), |(y, x)| {
        let [r, g, b] = [0, 1, 2].map(|c| f32::from(rgb[[y, x, c]]));
        (0.299 * r + 0.587 * g + 0.114 * b) as u8
    });
    assert_eq!(gray, want);

    let a = Array2::from_shape_fn((h, w), |(y, x)| (y * w + x) as f32 * 0.5);
    let mut d_out = zeros::<f32>((h, w))?;
    stencil5![(w.div_ceil(16), h.div_ceil(16)), (16, 16)](&to_device(&a)?, &mut d_out)?;
    let out: Array2<f32> = d_out.copy_to_ndarray()?;
    let want = Array2::from_shape_fn((h, w), |(y, x)| {
        if y > 0 && y + 1 < h && x > 0 && x + 1 < w {
            0.2 * (a[[y, x]] + a[[y - 1, x]] + a[[y + 1, x]] + a[[y, x - 1]] + a[[y, x + 1]])
        } else {
            a[[y, x]]
        }
    });
    assert_eq!(out, want);
    Ok(())
}

/// Packed multiplies and adds (SSE, AVX, FMA) in each `(symbol, lines)`.
fn packed_ops(disassembly: &str, symbol: &str) -> Option<(usize, usize)> {
    let start = format!("<{symbol}>:");
    // A kernel's fast and checked block functions are both closures of its
    // entry, which demangle to one name: the fast one is the one with the
    // packed arithmetic (the checked one calls the shadow memory at each
    // access), so the most packed of them counts.
    disassembly
        .split("\n\n")
        .filter(|f| f.lines().next().is_some_and(|l| l.ends_with(&start)))
        .map(|body| {
            let mnemonics = body
                .lines()
                .filter_map(|l| l.split('\t').nth(1)?.split_whitespace().next());
            let (mut mul, mut add) = (0, 0);
            for m in mnemonics {
                let m = m.strip_prefix('v').unwrap_or(m);
                if m.starts_with("fmadd") && m.ends_with("ps") {
                    mul += 1;
                    add += 1;
                } else if m == "mulps" {
                    mul += 1;
                } else if m == "addps" {
                    add += 1;
                }
            }
            (mul, add)
        })
        .max_by_key(|&(mul, add)| mul.min(add))
}

fn span_loops_use_packed_float_arithmetic() {
    launch_each().expect("the kernels run");
    let exe = std::env::current_exe().expect("this test's binary");
    let out = std::process::Command::new("objdump")
        .args(["-d", "-C", "--no-show-raw-insn"])
        .arg(&exe)
        .output()
        .expect("objdump runs");
    assert!(
        out.status.success(),
        "objdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut failures = Vec::new();
    for kernel in ["saxpy_one", "grayscale", "stencil5"] {
        // This file is a module of the `toolchain` binary: its path prefixes the kernels'.
        let symbol = format!("{}::{kernel}::gj_cpu_entry::{{{{closure}}}}", module_path!());
        match packed_ops(&text, &symbol) {
            Some((mul, add)) if mul > 0 && add > 0 => eprintln!("{kernel}: {mul} packed multiplies, {add} packed adds"),
            Some((mul, add)) => failures.push(format!(
                "{kernel}: its span loop does not vectorize ({mul} packed multiplies, {add} packed adds in `{symbol}`)"
            )),
            None => failures.push(format!("{kernel}: no function `{symbol}` in {}", exe.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
