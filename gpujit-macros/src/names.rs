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

/// Words a user name may spell but the emitted code cannot declare: C++
/// keywords and alternative tokens, CUDA types, variables and the functions
/// the emitted code (or its headers, NVRTC's or the host shim's) declares,
/// Rust keywords (the same names are Rust identifiers in the CPU version), and
/// the names of the generated module's own items.
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    // C++ keywords and alternative tokens.
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
    "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "import", "module",
    // C library and CUDA types, variables and macros.
    "main", "NULL", "std", "size_t", "ptrdiff_t", "nullptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "uint", "ushort", "ulong", "dim3", "threadIdx", "blockIdx", "blockDim",
    "gridDim", "warpSize", "assert", "printf", "malloc", "free", "memcpy", "memset", "errno", "INFINITY", "NAN",
    "half", "nv_bfloat16", "cudaError_t", "clock", "clock64",
    // CUDA math functions (the emitted code calls these unqualified).
    "abs", "labs", "llabs", "min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "sqrt", "sqrtf",
    "rsqrt", "rsqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "exp10", "exp10f", "expm1", "expm1f", "log",
    "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "sin", "sinf", "cos", "cosf", "tan", "tanf",
    "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh",
    "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf", "pow", "powf", "powi", "powif", "floor",
    "floorf", "ceil", "ceilf", "trunc", "truncf", "round", "roundf", "rint", "rintf", "fma", "fmaf", "fmin", "fminf",
    "fmax", "fmaxf", "fabs", "fabsf", "fmod", "fmodf", "hypot", "hypotf", "copysign", "copysignf", "signbit",
    "isnan", "isinf", "isfinite", "nan", "nanf", "erf", "erff", "tgamma", "lgamma", "ldexp", "frexp", "modf",
    "remainder", "sincos", "sincosf",
    // Rust keywords (strict, reserved and edition-dependent).
    "as", "crate", "dyn", "fn", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "self",
    "Self", "super", "trait", "type", "unsafe", "use", "where", "async", "await", "abstract", "become", "box",
    "macro", "priv", "typeof", "unsized", "yield", "gen",
    // The generated module's items and `launch`'s own parameters.
    "KERNEL", "grid", "block", "launch", "cuda_source",
];

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
    well_formed && !RESERVED.contains(&name) && !lower.starts_with("gj_") && lower != "gj"
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
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) || lower.starts_with("gj") {
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
        ];
        for n in names {
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
        ] {
            assert!(!is_free(n), "{n}");
        }
    }
}
