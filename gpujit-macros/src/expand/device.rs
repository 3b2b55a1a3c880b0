//! `#[gpu_device]`: device functions, which kernels and other device
//! functions call (Numba's `@cuda.jit(device=True)`).
//!
//! # Design
//!
//! A proc macro sees one item at a time. When `#[gpu_kernel]` lowers
//! `let y = clamp(x, 0.0, 1.0);` it cannot see `clamp`'s signature, which may
//! sit in another module or crate. So every call of a function that is no
//! intrinsic is a device-function call (`ExprKind::Call`), and the types of
//! its signature are `Ty::Callee(k, ..)`: types only rustc and the callee's
//! own CUDA C know. Inference passes them on like an outside constant's type:
//! a literal argument or a literal meeting the result takes the callee's
//! type (never a default `i32`/`f64`), so
//! - on the CPU, literals stay unsuffixed and arithmetic on such values goes
//!   through the runtime's generic helpers (`arith_add`, ...), with rustc
//!   checking every call against the real signature (the kernel's type-checked
//!   copy calls the user's function);
//! - in CUDA C the callee declares `typedef`s of its types (`NAME_ret`,
//!   `NAME_ret0`, `NAME_arg1`), which the caller names (`gj_add<NAME_ret>(..)`,
//!   `(NAME_arg0)1`). `let y: f32 = clamp(..)` gives the local a plain type.
//!
//! `#[gpu_device] fn f(args) -> R` expands to the user's function as written
//! (host code and rustc see it; its body is type-checked against the same
//! intrinsic stubs as a kernel's) and, in the type namespace, `mod f` with
//! - `gj_cpu(thread, args) -> R`: the CPU version with the kernel semantics
//!   (bounds-checked views, wrapping integers, faults through the thread);
//!   array arguments are the kernel's `View`s;
//! - `GJ_DEVICE`: a `gpujit::__private::DeviceFn` static holding its CUDA C
//!   with holes for its own name and its callees' (`NAME`/`CALLEE` below)
//!   and references to its callees' statics.
//!
//! A caller reaches both by the path it wrote (`f::gj_cpu`, `m::f::GJ_DEVICE`),
//! so `use other_crate::f;` brings the function and its machinery at once.
//! A kernel's `cuda_source()` links every device function it reaches, each
//! once (deduplicated by the static's address), with forward declarations
//! first, so self- and mutual recursion compile (CUDA allows both; Numba only
//! self-recursion). A kernel may not call itself.
//!
//! **Barriers.** Whether a callee reaches `syncthreads()` is not visible to
//! the kernel's macro, and the CPU block function cannot split a thread loop
//! inside a call. A kernel that calls device functions therefore decides at
//! run time: if any function it reaches calls `syncthreads()` (a flag in its
//! static), every block runs its threads as coroutines, where the device
//! function's `t.syncthreads(site)` suspends; otherwise the kernel runs as
//! it would without the calls (thread loops, split at its own barriers).

use proc_macro2::TokenStream;
use quote::quote;

use super::{const_array_decls, elem_typedef};
use crate::emit_cpu::{ident, param_copies, thread_ident, Emitter};
use crate::emit_cuda;
use crate::link::{callee_statics, pieces, OWN};
use crate::model::*;

/// Everything `#[gpu_device]` generates next to the user's function.
pub fn expand(item: &syn::ItemFn, k: &Kernel) -> TokenStream {
    let vis = &item.vis;
    let name = &item.sig.ident;
    let t = thread_ident();

    // CPU: `gj_cpu(thread, args) -> R`.
    let params = k.params.iter().map(|p| {
        let n = ident(&p.name);
        match p.kind {
            ParamKind::Scalar(s) => {
                let ty = ident(s.rust_name());
                quote! { #n: #ty }
            }
            ParamKind::Array { elem, .. } => {
                let ty = ident(elem.rust_name());
                quote! { #n: ::gpujit::__private::View<'_, #ty> }
            }
        }
    });
    let ret = match &k.ret {
        Some(RetTy::Scalar(s)) => {
            let ty = ident(s.rust_name());
            quote! { -> #ty }
        }
        Some(RetTy::Tuple(parts)) => {
            let tys = parts.iter().map(|s| ident(s.rust_name()));
            quote! { -> (#(#tys),*) }
        }
        _ => TokenStream::new(),
    };
    let local_bytes = crate::emit_cpu::local_bytes_check(k);
    // Only a function that calls device functions can recurse: it checks
    // the stack first (a fault, not a crash, where recursion runs too deep).
    let stack_check = (!k.callees.is_empty()).then(|| {
        let name = &k.name;
        quote! { ::gpujit::__private::stack_check(#name); }
    });
    let body_consts = k.body_consts.iter().map(|c| {
        let n = ident(&c.name);
        let ty = ident(c.ty.rust_name());
        let v = &c.rust_value;
        quote! { const #n: #ty = #v; }
    });
    let copies = param_copies(k, &[]);
    // Barrier sites apart from every kernel's (numbered from 0).
    let first_site = 0x8000_0000u32 | ((crate::names::key(name).len() as u32 & 0xff) << 16);
    let body = Emitter::new(k).first_site(first_site).block_stmts(&k.body);

    // CUDA C.
    let parts = emit_cuda::emit_parts(k, None);
    let decl = pieces(&parts.decl);
    let def = pieces(&parts.def);
    let helpers = &parts.helpers;
    let statics = callee_statics(k);
    let uses_barrier = k.uses_barrier;
    let base = format!("gj_dev_{}", crate::names::free_base(&crate::names::key(name)));
    // `const` arrays are `__constant__` at file scope (`gj_arrays`); the
    // typedef of their element type goes with the other constants.
    let array_decls = k.extern_consts.iter().filter(|c| c.ndim > 0).map(|c| {
        let suffix = c.c_name.strip_prefix(OWN).unwrap_or(&c.c_name);
        const_array_decls(c, false, quote! { &::std::format!("{}{}", gj_own, #suffix) })
    });
    let const_decls = k.extern_consts.iter().enumerate().map(|(i, c)| {
        let path = &c.rust_path;
        let c_name = &c.c_name;
        if c.ndim > 0 {
            let typedef = parts.typed_consts.contains(&i).then(|| elem_typedef(c));
            return quote! { #typedef };
        }
        let typedef = parts.typed_consts.contains(&i).then(|| {
            let type_name = &c.type_name;
            quote! { gj_src.push_str(&::gpujit::__private::CudaConst::cuda_typedef(&#path, #type_name)); }
        });
        // Local to the function's body: another function's constant may
        // have the same name.
        quote! {
            #typedef
            let gj_decl = ::gpujit::__private::CudaConst::cuda_decl(&#path, #c_name);
            gj_src.push_str("    ");
            gj_src.push_str(gj_decl.strip_prefix("static ").unwrap_or(&gj_decl));
        }
    });
    let const_checks = super::const_item_checks(k, &format!("device function `{}`", k.name));
    let doc = format!(
        "The machinery of the device function `{}` (see `gpujit::gpu_device`).",
        k.name
    );

    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_snake_case, non_upper_case_globals, unused_parens, unused_mut, unused_variables, unused_assignments, unreachable_code, unused_braces, dead_code, clippy::all)]
        #vis mod #name {
            #[allow(unused_imports)]
            use super::*;

            #const_checks

            /// The CUDA C of this device function, linked into each kernel that reaches it.
            pub static GJ_DEVICE: ::gpujit::__private::DeviceFn = ::gpujit::__private::DeviceFn {
                base: #base,
                decl: #decl,
                def: #def,
                consts: gj_consts,
                arrays: gj_arrays,
                helpers: &[#(#helpers),*],
                callees: #statics,
                uses_barrier: #uses_barrier,
            };

            fn gj_arrays(gj_own: &str) -> ::std::string::String {
                let mut gj_src = ::std::string::String::new();
                #(#array_decls)*
                gj_src
            }

            fn gj_consts() -> ::std::string::String {
                let mut gj_src = ::std::string::String::new();
                #(#const_decls)*
                gj_src
            }

            /// The CPU backend's version: what one thread does.
            #[inline]
            pub fn gj_cpu(#t: &::gpujit::__private::Thread<'_>, #(#params),*) #ret {
                #stack_check
                #(#body_consts)*
                #local_bytes
                #copies
                #body
            }
        }
    }
}

/// `#[gpu_device]`: the user's function (its body checked by rustc against
/// the intrinsic stubs) and its machinery, or the function and the errors.
pub fn gpu_device_impl(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let attr = TokenStream::from(attr);
    let item2 = TokenStream::from(item);
    // Numba's `cuda.const.array_like(A)` does not parse (`const` is a
    // keyword): read as `cuda.r#const.array_like(A)`, which lowering reports.
    let parsed = syn::parse2(item2.clone()).or_else(|e| {
        crate::spelling::raw_const(&item2)
            .and_then(|t| syn::parse2(t).ok())
            .ok_or(e)
    });
    let func: syn::ItemFn = match parsed {
        Ok(f) => f,
        Err(e) => {
            let mut out =
                syn::Error::new(e.span(), format!("#[gpu_device] applies to a function: {e}")).to_compile_error();
            out.extend(item2);
            return out.into();
        }
    };
    let mut out = host_fn(&func);
    if !attr.is_empty() {
        out.extend(syn::Error::new_spanned(&attr, "#[gpu_device] takes no arguments").to_compile_error());
        return out.into();
    }
    // A name kernels read as a CUDA or Numba intrinsic (`shfl_down_sync`,
    // `__popc`): a kernel's call would never reach the function.
    if let Some(e) = crate::spelling::reserved_device_name(&func.sig.ident) {
        out.extend(e.to_compile_error());
        return out.into();
    }
    match crate::lower::lower_device(&func) {
        Ok(k) => out.extend(expand(&func, &k)),
        Err(e) => out.extend(e.to_compile_error()),
    }
    out.into()
}

/// The user's function as written, for host code and rustc: the body
/// rewritten as the kernel's type-checked copy is (`grid(2)` → `grid2()`),
/// with the intrinsic stubs in scope.
fn host_fn(func: &syn::ItemFn) -> TokenStream {
    let copy = crate::typecheck::typecheck_copy(func, &crate::syntax::StandIns::default());
    // The copy is `const _: () = { use ...; fn f .. };`: take its `fn`.
    let rewritten = syn::parse2::<syn::ItemConst>(copy).ok().and_then(|c| match *c.expr {
        syn::Expr::Block(b) => b.block.stmts.into_iter().find_map(|s| match s {
            syn::Stmt::Item(syn::Item::Fn(f)) => Some(f),
            _ => None,
        }),
        _ => None,
    });
    let mut f = rewritten.unwrap_or_else(|| func.clone());
    f.attrs = func.attrs.clone();
    f.vis = func.vis.clone();
    // The kernel language loops over ranges only: clippy's iterator advice
    // cannot be followed in a device function.
    f.attrs.push(syn::parse_quote!(#[allow(clippy::needless_range_loop)]));
    // The statements spliced in, not the block nested: `{ x * x }` nested
    // would draw rustc's `unused_braces` warning at the user's braces.
    let stmts = &f.block.stmts;
    f.block = syn::parse_quote!({
        #[allow(unused_imports)]
        use ::gpujit::__private::typecheck::*;
        #(#stmts)*
    });
    quote! { #f }
}
