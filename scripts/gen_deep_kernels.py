#!/usr/bin/env python3
"""Writes tests/kernels/deep.rs: kernels whose expressions and statements nest
as deeply as rustc itself accepts (long operator chains, right nesting through
parentheses, long `else if` chains, nested blocks). Run once by hand; the file
is checked in (nothing is generated at build time)."""

from pathlib import Path


def chain(op, terms):
    return f" {op} ".join(terms)


def right_nested(op, leaf, n):
    s = leaf
    for _ in range(n):
        s = f"{leaf} {op} ({s})"
    return s


SUM_TERMS = 2000
LONG_SUM_TERMS = 3000
CHAIN_TERMS = 1000
RIGHT_DEPTH = 400
ELSE_IF_ARMS = 1500
VALUE_ARMS = 1500
BLOCK_DEPTH = 300

out = [
    "//! Kernels that nest as deeply as rustc itself accepts (see `tests/language/deep.rs`; not\n//! in `kernels/mod.rs`, so that only the tests that need them compile them),",
    "//! written by `scripts/gen_deep_kernels.py`: the generated Rust and CUDA C must",
    "//! not be much deeper than the kernel, and the macro must not overflow its stack.",
    "//! The term counts are in [`SUM_TERMS`] and its siblings.",
    "",
    "use gpujit::prelude::*;",
    "",
    f"/// Terms of [`sum_i32`]'s sum (`x * 0 + x * 1 + ...`).",
    f"pub const SUM_TERMS: usize = {SUM_TERMS};",
    f"/// Terms of [`sum_f32`]'s sum.",
    f"pub const LONG_SUM_TERMS: usize = {LONG_SUM_TERMS};",
    f"/// Terms of each chain of [`chains`].",
    f"pub const CHAIN_TERMS: usize = {CHAIN_TERMS};",
    f"/// Parenthesis depth of [`right_nested`].",
    f"pub const RIGHT_DEPTH: usize = {RIGHT_DEPTH};",
    f"/// Arms of [`else_if`]'s `if`/`else if` chain.",
    f"pub const ELSE_IF_ARMS: usize = {ELSE_IF_ARMS};",
    f"/// Arms of [`else_if_value`]'s `if`/`else if` chain used as a value.",
    f"pub const VALUE_ARMS: usize = {VALUE_ARMS};",
    f"/// Depth of [`nested_blocks`]' blocks.",
    f"pub const BLOCK_DEPTH: usize = {BLOCK_DEPTH};",
    "",
]

sum_i32 = chain("+", [f"x * {i}" for i in range(SUM_TERMS)])
out += [
    "/// `a[i] = x * 0 + x * 1 + ... + x * (SUM_TERMS - 1)` in wrapping `i32`.",
    "#[gpu_kernel]",
    "pub fn sum_i32(a: &mut [i32], x: i32) {",
    "    let i = grid(1);",
    "    if i < a.len() {",
    f"        a[i] = {sum_i32};",
    "    }",
    "}",
    "",
]

sum_f32 = chain("+", [f"x * {i}.0" for i in range(LONG_SUM_TERMS)])
out += [
    "/// `a[i] = x[i] * 0.0 + x[i] * 1.0 + ...` (`LONG_SUM_TERMS` terms) in `f32`.",
    "#[gpu_kernel]",
    "pub fn sum_f32(xs: &[f32], a: &mut [f32]) {",
    "    let i = grid(1);",
    "    if i < a.len() && i < xs.len() {",
    "        let x = xs[i];",
    f"        a[i] = {sum_f32};",
    "    }",
    "}",
    "",
]

sub = chain("-", ["x"] + [f"{i}" for i in range(1, CHAIN_TERMS)])
mul = chain("*", ["y"] + [f"{3 + 2 * (i % 5)}" for i in range(1, CHAIN_TERMS)])
orr = chain("|", [f"(y << {i % 64})" for i in range(CHAIN_TERMS)])
xor = chain("^", [f"(y >> {i % 64})" for i in range(CHAIN_TERMS)])
andand = chain("&&", [f"x > {-i}" for i in range(CHAIN_TERMS)])
oror = chain("||", [f"x == {i}" for i in range(CHAIN_TERMS)])
cmp = chain("+", [f"(x < {i}) as i64" for i in range(CHAIN_TERMS)])
out += [
    "/// Long chains of `-`, wrapping `*`, `|`, `^`, `&&`, `||` and comparisons",
    "/// (`CHAIN_TERMS` terms each), one output element per chain.",
    "#[gpu_kernel]",
    "pub fn chains(out: &mut [i64], flags: &mut [u8], x: i64, y: u64) {",
    "    if grid(1) == 0 && out.len() >= 5 && flags.len() >= 2 {",
    f"        out[0] = {sub};",
    f"        out[1] = ({mul}) as i64;",
    f"        out[2] = ({orr}) as i64;",
    f"        out[3] = ({xor}) as i64;",
    f"        out[4] = {cmp};",
    f"        flags[0] = ({andand}) as u8;",
    f"        flags[1] = ({oror}) as u8;",
    "    }",
    "}",
    "",
]

rn_i = right_nested("+", "x", RIGHT_DEPTH)
rn_f = right_nested("-", "y", RIGHT_DEPTH)
out += [
    "/// `x + (x + (x + ...))` and `y - (y - (...))`, `RIGHT_DEPTH` parentheses deep.",
    "#[gpu_kernel]",
    "pub fn right_nested(out: &mut [u32], fout: &mut [f64], x: u32, y: f64) {",
    "    if grid(1) == 0 && out.len() > 0 && fout.len() > 0 {",
    f"        out[0] = {rn_i};",
    f"        fout[0] = {rn_f};",
    "    }",
    "}",
    "",
]

arms = " else ".join(f"if x == {i} {{\n        out[i] = {i * 7 % 1000};\n    }}" for i in range(ELSE_IF_ARMS))
out += [
    "/// An `if`/`else if` chain of `ELSE_IF_ARMS` arms: `out[i] = x * 7 % 1000`.",
    "#[gpu_kernel]",
    "pub fn else_if(xs: &[i32], out: &mut [i32]) {",
    "    let i = grid(1);",
    "    if i >= xs.len() || i >= out.len() {",
    "        return;",
    "    }",
    "    let x = xs[i];",
    f"    {arms} else {{",
    "        out[i] = -1;",
    "    }",
    "}",
    "",
]

value_arms = " else ".join(f"if k == {j} {{ {j * 3 % 1000}.5 }}" for j in range(VALUE_ARMS))
out += [
    "/// An `if`/`else if` chain of `VALUE_ARMS` arms used as a value:",
    "/// `out[i] = (k * 3 % 1000) as f32 + 0.5` for `k = ks[i] < VALUE_ARMS`, else `-1.0`.",
    "#[gpu_kernel]",
    "pub fn else_if_value(ks: &[u32], out: &mut [f32]) {",
    "    let i = grid(1);",
    "    if i < ks.len() && i < out.len() {",
    "        let k = ks[i];",
    f"        let v = {value_arms} else {{ -1.0 }};",
    "        out[i] = v;",
    "    }",
    "}",
    "",
]

blocks = "".join("{ let v = v + 1; " for _ in range(BLOCK_DEPTH)) + "out[i] = v; " + "} " * BLOCK_DEPTH
out += [
    "/// `BLOCK_DEPTH` nested blocks, each shadowing `v` with `v + 1`.",
    "#[gpu_kernel]",
    "pub fn nested_blocks(out: &mut [i32]) {",
    "    let i = grid(1);",
    "    if i < out.len() {",
    "        let v = i as i32;",
    f"        {blocks}",
    "    }",
    "}",
    "",
    "/// Every kernel of this module.",
    "pub fn all() -> Vec<&'static gpujit::__private::KernelDef> {",
    "    vec![",
    "        &sum_i32::KERNEL,",
    "        &sum_f32::KERNEL,",
    "        &chains::KERNEL,",
    "        &right_nested::KERNEL,",
    "        &else_if::KERNEL,",
    "        &else_if_value::KERNEL,",
    "        &nested_blocks::KERNEL,",
    "    ]",
    "}",
    "",
]

Path(__file__).resolve().parent.parent.joinpath("tests/kernels/deep.rs").write_text("\n".join(out))
