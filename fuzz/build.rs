//! Generates the fuzzer's kernels into `$OUT_DIR/kernels.rs`: one module
//! per kernel (`gpujit-fuzz-gen`), every regression in `regressions/`, and
//! the table the runner reads.
//!
//! - `GPUJIT_FUZZ_SEED` (default 1) and `GPUJIT_FUZZ_KERNELS` (default
//!   [`DEFAULT_KERNELS`]): kernel `i` comes from the choices of seed
//!   `SEED * 1_000_003 + i`.
//! - `GPUJIT_FUZZ_REPLAY=<file>`: instead, the kernels of that file, one a
//!   line, `name: choice choice ..` (the shrinker writes it).

use std::fmt::Write;
use std::path::Path;

use gpujit_fuzz_gen::{generate, Choices};

/// Sized so that CI's run stays well under its 5 minutes (see BENCHMARKS.md).
const DEFAULT_KERNELS: u64 = 120;

fn main() {
    for var in ["GPUJIT_FUZZ_SEED", "GPUJIT_FUZZ_KERNELS", "GPUJIT_FUZZ_REPLAY"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=regressions");
    let number = |var: &str, default: u64| match std::env::var(var) {
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("{var}=`{v}` is not a number")),
        Err(_) => default,
    };
    let seed = number("GPUJIT_FUZZ_SEED", 1);
    let mut kernels = Vec::new();
    match std::env::var("GPUJIT_FUZZ_REPLAY") {
        Ok(file) => {
            println!("cargo:rerun-if-changed={file}");
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("GPUJIT_FUZZ_REPLAY={file}: {e}"));
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let (name, list) = line.split_once(':').expect("`name: choices` per line");
                let choices = list.split_whitespace().map(|w| w.parse().expect("a choice")).collect();
                kernels.push(generate(name.trim(), &mut Choices::replay(choices)));
            }
        }
        Err(_) => {
            for i in 0..number("GPUJIT_FUZZ_KERNELS", DEFAULT_KERNELS) {
                let mut c = Choices::random(seed.wrapping_mul(1_000_003).wrapping_add(i));
                kernels.push(generate(&format!("fz{i}"), &mut c));
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "pub const SEED: u64 = {seed};");
    let mut names = Vec::new();
    let mut table = String::new();
    for k in &kernels {
        out.push_str(&k.source);
        names.push(k.name.clone());
        let list: Vec<String> = k.choices.iter().map(u64::to_string).collect();
        let _ = writeln!(table, "    (\"{}\", &[{}]),", k.name, list.join(", "));
    }
    // Regressions: kept as the source the shrinker wrote, so that they stay
    // the same kernels when the generator changes.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a regression file");
        let name = f.file_stem().expect("a name").to_string_lossy().into_owned();
        out.push_str(&text);
        out.push('\n');
        names.push(name);
    }
    let _ = writeln!(out, "/// Every kernel's launch, generated ones first.");
    let _ = writeln!(out, "pub fn cases() -> Vec<Case> {{");
    let _ = writeln!(
        out,
        "    vec![{}]",
        names
            .iter()
            .map(|n| format!("{n}::case()"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(out, "}}");
    let _ = writeln!(out, "/// The choices of each generated kernel (for the shrinker).");
    let _ = writeln!(out, "pub const CHOICES: &[(&str, &[u64])] = &[\n{table}];");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("kernels.rs");
    std::fs::write(dest, out).expect("write kernels.rs");
}
