//! CUDA C and Numba spellings of the intrinsics (`threadIdx.x`,
//! `__syncthreads()`, `cuda.grid(1)`, `atomicAdd`, `math.sqrt(x)`,
//! `__shfl_down_sync(..)`, ...): what to write instead or that gpujit plans
//! it, for lowering's errors, and a stand-in the type-checked copy uses so
//! that rustc adds no error of its own for the same mistake. The names are
//! the records of `foreign_names`; the families that follow a rule (the
//! index variables, atomics, math functions, `cuda.grid`, `cuda.shared.array`)
//! are matched here.

use quote::{quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Expr as SExpr;

use crate::foreign_names::{self as table, Status};
use crate::model::Builtin;
use crate::syntax::strip;

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
    /// The table's record, where the spelling is one.
    pub record: Option<&'static table::Name>,
}

/// CUDA's built-in index variables and gpujit's functions for them.
fn builtin(name: &str) -> Option<&'static str> {
    Builtin::ALL
        .into_iter()
        .find(|b| b.c_name() == name)
        .map(Builtin::rust_method)
}

/// CUDA C atomics (`atomicAdd`) and Numba's (`cuda.atomic.add`): gpujit's
/// `atomic_*` name.
fn atomic(op: &str) -> Option<String> {
    let ops = [
        "add", "sub", "min", "max", "nanmin", "nanmax", "exch", "cas", "and", "or", "xor", "inc", "dec",
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
        ("& ", "&"),
        ("r#const", "const"),
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
        record: None,
    })
}

/// Where a spelling comes from, for the messages.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    Cuda,
    Numba,
    Bare,
}

/// `e` (whose callee or name reads `shown`) as `rec`: gpujit's spelling
/// where it has one, else that it is planned.
fn from_record(e: &SExpr, rec: &'static table::Name, origin: Origin, shown: &str, args: &[&SExpr]) -> Option<Foreign> {
    let span = e.span();
    let note = if rec.note.is_empty() {
        String::new()
    } else {
        format!(": {}", rec.note)
    };
    let (msg, help, template) = match &rec.status {
        Status::Has(write) => {
            let what = if origin == Origin::Numba { "Numba" } else { "CUDA C" };
            (
                format!("`{}` is {what}, not gpujit's spelling", text(e)),
                format!("write `{}`{note}", fill_text(write, args)),
                *write,
            )
        }
        Status::Planned { stand_in, .. } => {
            let what = rec.what;
            let msg = match origin {
                Origin::Cuda => format!("`{shown}` is CUDA C's name for {what}, which gpujit does not have yet"),
                Origin::Numba => format!("`{shown}` is Numba's name for {what}, which gpujit does not have yet"),
                Origin::Bare => format!("`{shown}` is {}, which gpujit does not have yet", rec.described()),
            };
            (msg, format!("{}{note}", rec.plan_help().unwrap_or_default()), *stand_in)
        }
    };
    Some(Foreign {
        tokens: e.to_token_stream(),
        msg,
        help,
        stand_in: fill_tokens(template, args, span),
        record: Some(rec),
    })
}

/// An argument as a template's `$k` uses it: `&x[i]` (as `__ldg` takes it)
/// is `x[i]`.
fn template_arg(a: &SExpr) -> &SExpr {
    match strip(a) {
        SExpr::Reference(r) => &r.expr,
        other => other,
    }
}

/// `template` with `$0`, `$1`, ... replaced by the arguments as the user
/// wrote them (in parentheses unless simple), or by `x`, `y`, `z`.
fn fill_text(template: &str, args: &[&SExpr]) -> String {
    let mut out = template.to_string();
    for k in (0..10).rev() {
        let hole = format!("${k}");
        if !out.contains(&hole) {
            continue;
        }
        // A whole argument (`f($0)`, `$0`) needs no parentheses.
        let whole = out == hole
            || [
                format!("({hole})"),
                format!("({hole},"),
                format!(" {hole})"),
                format!(" {hole},"),
            ]
            .iter()
            .any(|w| out.contains(w.as_str()));
        let arg = match args.get(k).map(|a| template_arg(a)) {
            Some(
                a @ (SExpr::Path(_)
                | SExpr::Lit(_)
                | SExpr::Index(_)
                | SExpr::Field(_)
                | SExpr::MethodCall(_)
                | SExpr::Call(_)
                | SExpr::Paren(_)),
            ) => text(a),
            Some(a) if whole => text(a),
            Some(a) => format!("({})", text(a)),
            None => ["x", "y", "z", "w"].get(k).unwrap_or(&"v").to_string(),
        };
        out = out.replace(&hole, &arg);
    }
    out
}

/// `template` as an expression for rustc's copy: `$k` is the `k`-th
/// argument (in parentheses), every other token has `span`. A template
/// that needs an argument the call lacks is `unreachable!()`.
fn fill_tokens(template: &str, args: &[&SExpr], span: proc_macro2::Span) -> SExpr {
    use proc_macro2::{Group, TokenStream, TokenTree};
    let mut src = template.to_string();
    for k in (0..10).rev() {
        src = src.replace(&format!("${k}"), &format!("__gj_arg_{k}"));
    }
    fn subst(ts: TokenStream, args: &[&SExpr], span: proc_macro2::Span, ok: &mut bool) -> TokenStream {
        ts.into_iter()
            .map(|tt| match tt {
                TokenTree::Ident(i) if i.to_string().starts_with("__gj_arg_") => {
                    let k: usize = i.to_string()["__gj_arg_".len()..].parse().unwrap_or(usize::MAX);
                    match args.get(k) {
                        Some(a) => {
                            let a = template_arg(a);
                            TokenTree::Group(Group::new(proc_macro2::Delimiter::Parenthesis, a.to_token_stream()))
                        }
                        None => {
                            *ok = false;
                            TokenTree::Ident(i)
                        }
                    }
                }
                TokenTree::Group(g) => {
                    let mut ng = Group::new(g.delimiter(), subst(g.stream(), args, span, ok));
                    ng.set_span(span);
                    TokenTree::Group(ng)
                }
                mut other => {
                    other.set_span(span);
                    other
                }
            })
            .collect()
    }
    let mut ok = true;
    let tokens = src
        .parse::<TokenStream>()
        .map(|ts| subst(ts, args, span, &mut ok))
        .unwrap_or_default();
    if !ok {
        return parse(quote_spanned!(span=> ::core::unreachable!()));
    }
    parse(tokens)
}

/// The path of a call's function as written (`__popc`, `cg::this_grid`),
/// when it is a plain path.
fn path_of(e: &SExpr) -> Option<String> {
    match strip(e) {
        SExpr::Path(p) if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_none()) => Some(
            p.path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::"),
        ),
        _ => None,
    }
}

/// The error for a `#[gpu_device]` function named like a name kernels
/// reserve (`shfl_down_sync`, `print`, `__popc`), if `name` is one.
pub fn reserved_device_name(ident: &syn::Ident) -> Option<syn::Error> {
    let name = crate::names::key(ident);
    if let Some(f) = crate::model::WarpFn::from_name(&name) {
        return Some(syn::Error::new(
            ident.span(),
            format!(
                "a device function cannot be named `{name}`: in a kernel, `{}` is gpujit's warp intrinsic\n  = help: rename the function, e.g. `my_{name}`",
                f.usage()
            ),
        ));
    }
    if crate::model::Collective::from_name(&name).is_some() {
        return Some(syn::Error::new(
            ident.span(),
            format!(
                "a device function cannot be named `{name}`: in a kernel, `{name}(value)` is gpujit's warp or block collective\n  = help: rename the function, e.g. `my_{name}`"
            ),
        ));
    }
    let rec = table::by_bare(&name).or_else(|| table::by_cuda(&name, false))?;
    let what = match &rec.status {
        Status::Planned { plan, .. } => format!("which gpujit plans ({})", plan.feature),
        Status::Has(_) => "which gpujit has under another spelling".to_string(),
    };
    Some(syn::Error::new(
        ident.span(),
        format!(
            "a device function cannot be named `{name}`: in a kernel, `{name}(..)` is {}, {what}\n  = help: rename the function, e.g. `my_{name}`: a kernel cannot see which functions are device functions, so it reads `{name}(..)` as that name",
            rec.described()
        ),
    ))
}

/// The foreign spelling `e` is (not looking inside it), if any. `bound`
/// says whether a name is a variable of the kernel (then it is the user's).
pub fn foreign(e: &SExpr, bound: &dyn Fn(&str) -> bool) -> Option<Foreign> {
    let span = e.span();
    match strip(e) {
        // `threadIdx` (`.x` is then an ordinary field of `thread_idx()`), `warpSize`.
        SExpr::Path(_) => {
            let name = ident_of(e).filter(|n| !bound(n))?;
            if let Some(rec) = table::by_cuda(&name, true) {
                return from_record(e, rec, Origin::Cuda, &name, &[]);
            }
            let f = builtin(&name)?;
            let fi = syn::Ident::new(f, span);
            found(
                e,
                "CUDA C",
                format!("write `{f}()` (CUDA's `{name}.x` is `{f}().x`), or `grid(1)` for the global index"),
                quote_spanned!(span=> #fi()),
            )
        }
        // `cuda.threadIdx` (and its `.x`), `cuda.blockDim`, `cuda.laneid`, ...
        SExpr::Field(fe) => {
            let syn::Member::Named(m) = &fe.member else { return None };
            if ident_of(&fe.base).as_deref() != Some("cuda") || bound("cuda") {
                return None;
            }
            if let Some(rec) = table::by_numba(&m.to_string(), true) {
                return from_record(e, rec, Origin::Numba, &format!("cuda.{m}"), &[]);
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
        // `__syncthreads()`, `atomicAdd(..)`, `__popc(x)`, `sqrtf(x)`,
        // `shfl_down_sync(..)`, `cg::this_grid()`.
        SExpr::Call(c) => {
            let path = path_of(&c.func)?;
            let args: Vec<&SExpr> = c.args.iter().collect();
            if path.contains("::") {
                let rec = table::by_cuda(&path, false)?;
                return from_record(e, rec, Origin::Cuda, &path, &args);
            }
            let name = path;
            if bound(&name) {
                return None;
            }
            if let Some(rec) = table::by_cuda(&name, false) {
                return from_record(e, rec, Origin::Cuda, &name, &args);
            }
            if let Some(rec) = table::by_bare(&name) {
                return from_record(e, rec, Origin::Bare, &name, &args);
            }
            match name.as_str() {
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
        // `cuda.atomic.add(..)`, `math.sqrt(x)`, `cuda.shfl_down_sync(..)`,
        // `cuda.fp16.hadd(a, b)`, `cuda.cg.this_grid().sync()`.
        SExpr::MethodCall(mc) => {
            let method = mc.method.to_string();
            let args: Vec<&SExpr> = mc.args.iter().collect();
            // `this_grid().sync()`: one error for the whole barrier.
            if method == "sync" && args.is_empty() {
                if let Some(inner) = foreign(&mc.receiver, bound) {
                    if let Some(rec) = inner.record.filter(|r| r.name == "this_grid") {
                        return Some(Foreign {
                            tokens: e.to_token_stream(),
                            stand_in: parse(quote_spanned!(span=> ())),
                            record: Some(rec),
                            ..inner
                        });
                    }
                }
            }
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
                    _ => {
                        let rec = table::by_numba(&method, false)?;
                        from_record(e, rec, Origin::Numba, &format!("cuda.{method}"), &args)
                    }
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
                    // `cuda.shared.array(..)`, `cuda.local.array(..)`, `cuda.atomic.add(..)`,
                    // `cuda.fp16.hadd(..)`, `cuda.random.xoroshiro128p_uniform_float32(..)`.
                    let SExpr::Field(inner) = strip(&mc.receiver) else {
                        return None;
                    };
                    let syn::Member::Named(kind) = &inner.member else {
                        return None;
                    };
                    if ident_of(&inner.base).as_deref() != Some("cuda") || bound("cuda") {
                        return None;
                    }
                    // rustc's copy declares a shared array of the element type asked for.
                    let shared_stand_in = |shape: &str| {
                        let ty: syn::Type = syn::parse_str(shape).unwrap_or_else(|_| syn::parse_quote!([_; 1]));
                        quote_spanned!(span=> shared_array::<#ty>())
                    };
                    match (crate::names::key(kind).as_str(), method.as_str()) {
                        // `cuda.shared.array(0, float32)`: dynamic shared memory.
                        ("shared", "array") if args.first().is_some_and(|a| text(*a) == "0") => {
                            let rec = table::by_rule("shared.array")?;
                            let elem = args.get(1).map_or("_".to_string(), |t| dtype(t));
                            Some(Foreign {
                                stand_in: parse(shared_stand_in(&format!("[{elem}; 1]"))),
                                ..from_record(e, rec, Origin::Numba, "cuda.shared.array(0, ..)", &args)?
                            })
                        }
                        ("shared", "array") => found(
                            e,
                            "Numba",
                            format!(
                                "write `shared_array::<{}>()`: the element type and the constant size are in the type (`[[T; N]; M]` for 2-D)",
                                array_type(&args)
                            ),
                            shared_stand_in(&array_type(&args)),
                        ),
                        // `cuda.const.array_like(A)` (see `raw_const`).
                        ("const", "array_like") => {
                            let rec = table::by_rule("const.array_like")?;
                            from_record(e, rec, Origin::Numba, "cuda.const.array_like", &args)
                        }
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
                        (kind, _) => {
                            let rec = table::by_numba(&format!("{kind}.{method}"), false)?;
                            from_record(e, rec, Origin::Numba, &format!("cuda.{kind}.{method}"), &args)
                        }
                    }
                }
            }
        }
        _ => None,
    }
}

/// `tokens` with `const` after `cuda.` as the raw identifier `r#const`, if
/// there is one: Numba's `cuda.const.array_like(A)` does not parse as Rust
/// (`const` is a keyword), but `cuda.r#const.array_like(A)` does, and then
/// gets `foreign`'s error like any other spelling.
pub fn raw_const(tokens: &proc_macro2::TokenStream) -> Option<proc_macro2::TokenStream> {
    use proc_macro2::{Group, TokenStream, TokenTree};
    fn walk(ts: TokenStream, found: &mut bool) -> TokenStream {
        let tts: Vec<TokenTree> = ts.into_iter().collect();
        let mut out = Vec::with_capacity(tts.len());
        for (i, tt) in tts.iter().enumerate() {
            let after_cuda_dot = i >= 2
                && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == '.')
                && matches!(&tts[i - 2], TokenTree::Ident(c) if c == "cuda");
            out.push(match tt {
                TokenTree::Ident(k) if k == "const" && after_cuda_dot => {
                    *found = true;
                    TokenTree::Ident(proc_macro2::Ident::new_raw("const", k.span()))
                }
                TokenTree::Group(g) => {
                    let mut ng = Group::new(g.delimiter(), walk(g.stream(), found));
                    ng.set_span(g.span());
                    TokenTree::Group(ng)
                }
                other => other.clone(),
            });
        }
        out.into_iter().collect()
    }
    let mut found = false;
    let out = walk(tokens.clone(), &mut found);
    found.then_some(out)
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
