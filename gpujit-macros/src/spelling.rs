//! CUDA C and Numba spellings of the intrinsics (`threadIdx.x`,
//! `__syncthreads()`, `cuda.grid(1)`, `atomicAdd`, `math.sqrt(x)`, ...): what
//! to write instead, for lowering's "did you mean" errors, and a stand-in
//! the type-checked copy uses so that rustc adds no error of its own for the
//! same mistake.

use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use crate::lower::strip;

/// A foreign spelling found in an expression.
pub struct Foreign {
    /// The tokens of the spelling (an error spans them all).
    pub tokens: proc_macro2::TokenStream,
    /// What the user wrote, e.g. "`threadIdx.x` is CUDA C".
    pub msg: String,
    /// What to write instead.
    pub help: String,
    /// An expression of the right type for rustc's copy.
    pub stand_in: SExpr,
}

/// CUDA's built-in index variables and gpujit's functions for them.
fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "threadIdx" => "thread_idx",
        "blockIdx" => "block_idx",
        "blockDim" => "block_dim",
        "gridDim" => "grid_dim",
        _ => return None,
    })
}

/// CUDA C atomics (`atomicAdd`) and Numba's (`cuda.atomic.add`): gpujit's
/// `atomic_*` name.
fn atomic(op: &str) -> Option<String> {
    let ops = [
        "add", "sub", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec",
    ];
    let found = ops.iter().find(|o| op.eq_ignore_ascii_case(o))?;
    Some(format!("atomic_{found}"))
}

/// `node` as a user would write it (`x[i] as usize`, `a.b(c, d)`).
fn text(node: &impl ToTokens) -> String {
    let mut t = node.to_token_stream().to_string();
    for (from, to) in [
        (" . ", "."),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
        (" ;", ";"),
        (":: ", "::"),
        (" ::", "::"),
    ] {
        t = t.replace(from, to);
    }
    t
}

/// Numba's dtype names (`float32`, `np.int32`) as Rust's.
fn dtype(e: &SExpr) -> String {
    let t = text(e);
    let name = t.rsplit('.').next().unwrap_or(&t);
    match name {
        "float32" => "f32",
        "float64" => "f64",
        "int32" => "i32",
        "int64" => "i64",
        "uint32" => "u32",
        "uint64" => "u64",
        "uint8" => "u8",
        other => other,
    }
    .to_string()
}

/// `cuda.shared.array(shape, dtype)` as `[[T; M]; N]`, or a generic example.
fn array_type(args: &[&SExpr]) -> String {
    let [shape, ty] = args else { return "[f32; 256]".into() };
    let t = dtype(ty);
    match strip(shape) {
        SExpr::Tuple(dims) => dims
            .elems
            .iter()
            .rev()
            .fold(t, |acc, d| format!("[{acc}; {}]", text(d))),
        other => format!("[{t}; {}]", text(other)),
    }
}

fn ident_of(e: &SExpr) -> Option<String> {
    match strip(e) {
        SExpr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn parse(tokens: proc_macro2::TokenStream) -> SExpr {
    syn::parse2(tokens).unwrap_or_else(|_| syn::parse_quote!(::core::unreachable!()))
}

fn found(node: &impl ToTokens, what: &str, help: String, stand_in: proc_macro2::TokenStream) -> Option<Foreign> {
    Some(Foreign {
        tokens: node.to_token_stream(),
        msg: format!("`{}` is {what}, not gpujit's spelling", text(node)),
        help,
        stand_in: parse(stand_in),
    })
}

/// The foreign spelling `e` is (not looking inside it), if any. `bound`
/// says whether a name is a variable of the kernel (then it is the user's).
pub fn foreign(e: &SExpr, bound: &dyn Fn(&str) -> bool) -> Option<Foreign> {
    let span = e.span();
    match strip(e) {
        // `threadIdx` (`.x` is then an ordinary field of `thread_idx()`).
        SExpr::Path(_) => {
            let name = ident_of(e)?;
            let f = builtin(&name).filter(|_| !bound(&name))?;
            let fi = syn::Ident::new(f, span);
            found(
                e,
                "CUDA C",
                format!("write `{f}()` (CUDA's `{name}.x` is `{f}().x`), or `grid(1)` for the global index"),
                quote_spanned!(span=> #fi()),
            )
        }
        // `cuda.threadIdx` (and its `.x`), `cuda.blockDim`, ...
        SExpr::Field(fe) => {
            let syn::Member::Named(m) = &fe.member else { return None };
            if ident_of(&fe.base).as_deref() != Some("cuda") || bound("cuda") {
                return None;
            }
            let f = builtin(&m.to_string())?;
            let fi = syn::Ident::new(f, span);
            found(
                e,
                "Numba",
                format!("write `{f}()`: `cuda.{m}.x` is `{f}().x`"),
                quote_spanned!(span=> #fi()),
            )
        }
        // `__syncthreads()`, `atomicAdd(..)`, `__threadfence()`, `sqrtf(x)`.
        SExpr::Call(c) => {
            let name = ident_of(&c.func).filter(|n| !bound(n))?;
            let args: Vec<&SExpr> = c.args.iter().collect();
            match name.as_str() {
                "__syncthreads" => found(
                    e,
                    "CUDA C",
                    "write `syncthreads()`".into(),
                    quote_spanned!(span=> syncthreads()),
                ),
                "__threadfence" | "__threadfence_block" | "__threadfence_system" => {
                    let good = name.trim_start_matches('_');
                    found(
                        e,
                        "CUDA C",
                        format!("write `{good}()`"),
                        quote_spanned!(span=> ::core::unreachable!()),
                    )
                }
                _ if name.starts_with("atomic") => {
                    let good = atomic(&name["atomic".len()..])?;
                    found(
                        &c.func,
                        "CUDA C",
                        format!("write `{good}(&mut array[index], value)`: it returns the old value, as `{name}` does"),
                        quote_spanned!(span=> ::core::unreachable!()),
                    )
                }
                "sqrtf" | "sqrt" | "expf" | "exp" | "logf" | "log" | "sinf" | "sin" | "cosf" | "cos" | "fabsf"
                | "fabs" | "floorf" | "floor" | "ceilf" | "ceil" | "powf" | "pow" | "fminf" | "fmin" | "fmaxf"
                | "fmax" | "tanhf" | "tanh" | "fmaf" | "fma"
                    if !args.is_empty() =>
                {
                    let base = name.strip_suffix('f').unwrap_or(&name);
                    let method = match base {
                        "log" => "ln",
                        "fabs" => "abs",
                        "pow" => "powf",
                        "fmin" => "min",
                        "fmax" => "max",
                        "fma" => "mul_add",
                        other => other,
                    };
                    rust_method(e, "CUDA C", &args, method)
                }
                _ => None,
            }
        }
        // `cuda.grid(1)`, `cuda.syncthreads()`, `cuda.shared.array(..)`,
        // `cuda.atomic.add(..)`, `math.sqrt(x)`.
        SExpr::MethodCall(mc) => {
            let method = mc.method.to_string();
            let args: Vec<&SExpr> = mc.args.iter().collect();
            let receiver = ident_of(&mc.receiver).filter(|r| !bound(r));
            match receiver.as_deref() {
                Some("cuda") => match method.as_str() {
                    "grid" | "gridsize" => {
                        let m = &mc.method;
                        let a = &mc.args;
                        found(
                            e,
                            "Numba",
                            format!("write `{method}({})`", text(a)),
                            quote_spanned!(span=> #m(#a)),
                        )
                    }
                    "syncthreads" => found(
                        e,
                        "Numba",
                        "write `syncthreads()`".into(),
                        quote_spanned!(span=> syncthreads()),
                    ),
                    _ => None,
                },
                Some("math") if !args.is_empty() => {
                    let method = match method.as_str() {
                        "log" => "ln",
                        "fabs" => "abs",
                        "pow" => "powf",
                        "fmin" => "min",
                        "fmax" => "max",
                        other => other,
                    };
                    rust_method(e, "Python", &args, method)
                }
                _ => {
                    // `cuda.shared.array(..)`, `cuda.local.array(..)`, `cuda.atomic.add(..)`.
                    let SExpr::Field(inner) = strip(&mc.receiver) else {
                        return None;
                    };
                    let syn::Member::Named(kind) = &inner.member else {
                        return None;
                    };
                    if ident_of(&inner.base).as_deref() != Some("cuda") || bound("cuda") {
                        return None;
                    }
                    match (kind.to_string().as_str(), method.as_str()) {
                        ("shared", "array") => found(
                            e,
                            "Numba",
                            format!(
                                "write `shared_array::<{}>()`: the element type and the constant size are in the type (`[[T; N]; M]` for 2-D)",
                                array_type(&args)
                            ),
                            quote_spanned!(span=> shared_array::<[_; 1]>()),
                        ),
                        ("local", "array") => found(
                            e,
                            "Numba",
                            "a per-thread array is a Rust array: `let mut acc = [0.0f32; 8];`".into(),
                            quote_spanned!(span=> ::core::unreachable!()),
                        ),
                        ("atomic", op) => {
                            let good = atomic(op)?;
                            found(
                                e,
                                "Numba",
                                format!("write `{good}(&mut array[index], value)`: it returns the old value, as Numba's does"),
                                quote_spanned!(span=> ::core::unreachable!()),
                            )
                        }
                        _ => None,
                    }
                }
            }
        }
        _ => None,
    }
}

/// `sqrtf(x)` / `math.sqrt(x)` → `x.sqrt()`; two arguments: `x.powf(y)`.
fn rust_method(e: &SExpr, what: &str, args: &[&SExpr], method: &str) -> Option<Foreign> {
    let (first, rest) = args.split_first()?;
    let span = e.span();
    let m = syn::Ident::new(method, span);
    let shown = format!(
        "{}.{method}({})",
        match strip(first) {
            SExpr::Path(_) | SExpr::Lit(_) | SExpr::Index(_) => text(*first),
            _ => format!("({})", text(*first)),
        },
        rest.iter().map(|r| text(*r)).collect::<Vec<_>>().join(", ")
    );
    found(
        e,
        what,
        format!("floats have Rust's methods: write `{shown}`"),
        quote_spanned!(span=> (#first).#m(#(#rest),*)),
    )
}
