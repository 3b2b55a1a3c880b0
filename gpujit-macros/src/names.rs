//! Names: which identifiers the emitted CUDA C and Rust may use, and a legal,
//! free stand-in for every identifier a user can write.
//!
//! Every name the translator gives out (parameters, locals, constants, shared
//! arrays, the kernel's entry) is *free*: an ASCII identifier that is no C++
//! or Rust keyword, no CUDA built-in or math function, not reserved to the
//! implementation (`__x`, `_X`, any leading `_`) and outside the generated
//! code's own `gj_`/`GJ_` namespace. Ordinary names are free as written, so
//! the CUDA C stays readable; any other name gets a free base from
//! [`free_base`], and `Lower::fresh_name` adds a suffix until it collides
//! with nothing.

use syn::ext::IdentExt;

use crate::reserved::RESERVED;

/// The function-like macros of Rust's prelude (std's and core's, stable and
/// unstable). A kernel's launch macro is imported under the kernel's name, so
/// a kernel named like one of them would make every `vec![..]` in its module
/// ambiguous (derive and attribute macros are not affected: a `name!` macro
/// never resolves as one).
#[rustfmt::skip]
const PRELUDE_MACROS: &[&str] = &[
    "assert", "assert_eq", "assert_ne", "cfg", "cfg_match", "cfg_select", "column", "compile_error", "concat",
    "concat_bytes", "concat_idents", "const_format_args", "dbg", "debug_assert", "debug_assert_eq",
    "debug_assert_ne", "env", "eprint", "eprintln", "file", "format", "format_args", "format_args_nl", "include",
    "include_bytes", "include_str", "is_aarch64_feature_detected", "is_arm_feature_detected",
    "is_loongarch_feature_detected", "is_mips_feature_detected", "is_mips64_feature_detected",
    "is_powerpc_feature_detected", "is_powerpc64_feature_detected", "is_riscv_feature_detected",
    "is_s390x_feature_detected", "is_x86_feature_detected", "line", "log_syntax", "matches", "module_path",
    "option_env", "panic", "print", "println", "stringify", "thread_local", "todo", "trace_macros", "try",
    "unimplemented", "unreachable", "vec", "write", "writeln",
];

/// Whether a kernel may not be named `name` (see [`PRELUDE_MACROS`]).
pub fn is_prelude_macro(name: &str) -> bool {
    PRELUDE_MACROS.contains(&unraw(name))
}

/// The name a Rust identifier stands for: `r#fn` and `fn` are one name.
pub fn key(ident: &syn::Ident) -> String {
    ident.unraw().to_string()
}

/// `name` without a raw identifier's `r#`.
pub fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// Whether a generated name may be `name` as written (see the module docs).
pub fn is_free(name: &str) -> bool {
    // `_x` is free in C++ (only `__x` and `_X` are the implementation's) and
    // marks a binding unused on purpose.
    let start = name.strip_prefix('_').unwrap_or(name);
    let well_formed = start
        .starts_with(|c: char| c.is_ascii_alphabetic() && (start.len() == name.len() || c.is_ascii_lowercase()))
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.contains("__");
    let lower = name.to_ascii_lowercase();
    // `cuda...`/`CUDA...`: the runtime API's hundreds of types, enumerators
    // and macros.
    well_formed && !RESERVED.contains(&name) && !lower.starts_with("gj_") && lower != "gj" && !lower.starts_with("cuda")
}

/// A free name that reads like `name` (whatever the user wrote: a raw
/// identifier, `__global__`, `_Foo`, `gj_x`, `class`, a non-ASCII name). Not
/// unique: callers pass it to `Lower::fresh_name`.
pub fn free_base(name: &str) -> String {
    let name = unraw(name);
    if is_free(name) {
        return name.to_string();
    }
    // ASCII letters, digits and single `_`; other characters by code point.
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c == '_' {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        } else {
            out.push_str(&format!("u{:x}", c as u32));
        }
    }
    let lower = out.to_ascii_lowercase();
    if out.is_empty()
        || out.starts_with(|c: char| c.is_ascii_digit())
        || lower.starts_with("gj")
        || lower.starts_with("cuda")
    {
        out = format!("v_{out}");
    }
    if name.starts_with('_') {
        // Keep the "unused on purpose" mark: `_Reserved` becomes `_v_Reserved`.
        out = if out.starts_with("v_") {
            format!("_{out}")
        } else {
            format!("_v_{out}")
        };
    }
    if !is_free(&out) {
        // A keyword or built-in: `class` becomes `class_`.
        out = suffixed(&out, "");
    }
    out
}

/// `base` followed by `suffix`, joined by one `_` (never two).
pub fn suffixed(base: &str, suffix: &str) -> String {
    if base.ends_with('_') {
        format!("{base}{suffix}")
    } else {
        format!("{base}_{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_are_kept() {
        for n in [
            "x",
            "acc",
            "x_1",
            "TILE",
            "v_",
            "out2",
            "int_",
            "threadIdx_",
            "_i",
            "_x_1",
        ] {
            assert!(is_free(n), "{n}");
            assert_eq!(free_base(n), n);
        }
    }

    #[test]
    fn every_name_gets_a_free_base() {
        let names = [
            "r#fn",
            "r#match",
            "__global__",
            "__restrict__",
            "__shared__",
            "__syncthreads",
            "_Reserved",
            "_x",
            "__x",
            "_",
            "__",
            "gj_x",
            "GJ_SHARED_OFFSET_0",
            "gj_thread",
            "gj",
            "Gj_x",
            "class",
            "float",
            "new",
            "template",
            "threadIdx",
            "blockDim",
            "warpSize",
            "min",
            "max",
            "sqrtf",
            "KERNEL",
            "grid",
            "r#type",
            "café",
            "ñ",
            "a__b",
            "x_",
            "std",
            "_0",
            "T",
            "U",
            "cudaMalloc",
            "CUDA_R_32F",
            "cuda_source",
            "erfc",
            "uint3",
            "_cudaX",
        ];
        for n in names.iter().chain(RESERVED) {
            let b = free_base(n);
            assert!(is_free(&b), "{n} -> {b}");
            assert!(is_free(&suffixed(&b, "1")), "{n} -> {b}");
            assert!(
                syn::parse_str::<syn::Ident>(&b).is_ok(),
                "{n} -> {b} is no Rust identifier"
            );
        }
        assert_eq!(free_base("r#fn"), "fn_");
        assert_eq!(free_base("__global__"), "_v_global_");
        assert_eq!(free_base("class"), "class_");
        assert_eq!(free_base("gj_x"), "v_gj_x");
        assert_eq!(free_base("_Reserved"), "_v_Reserved");
    }

    #[test]
    fn reserved_spellings_are_not_free() {
        for n in [
            "__global__",
            "_Foo",
            "_1",
            "_",
            "a__b",
            "gj_x",
            "GJ_X",
            "class",
            "fn",
            "threadIdx",
            "fabsf",
            "r#fn",
            "é",
            // CUDA math functions, vector types, the runtime API.
            "erfc",
            "j0",
            "y1",
            "erfcinv",
            "normcdf",
            "rhypot",
            "sinpi",
            "lgamma",
            "nextafter",
            "fdim",
            "scalbn",
            "ilogb",
            "lrint",
            "uint3",
            "dim3",
            "float4",
            "ulonglong2",
            "make_int2",
            "atomicAdd",
            "size_t",
            "printf",
            "clock64",
            "cudaMalloc",
            "CUDART_VERSION",
        ] {
            assert!(!is_free(n), "{n}");
        }
    }
}
