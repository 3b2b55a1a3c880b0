//! `#[gpu_kernel]`: translates a restricted Rust function into CUDA C and a
//! native Rust version for gpujit's CPU backend.
//!
//! The pipeline is parse (syn) → check and lower (`lower`) → one typed kernel
//! model (`model`) → emitters (`emit_cuda`, `emit_cpu`) → the generated
//! items (`expand`). Every rejection is a `syn::Error` at the offending span;
//! the user's function is still emitted (as a type-checked, never-called copy)
//! so rust-analyzer and rustc keep working on it.
//!
//! Use it through the `gpujit` crate, which re-exports it and documents the
//! kernel language (`gpujit::reference`).

use proc_macro::TokenStream;

mod cpu;
mod cuda_math;
mod device;

mod analysis;
mod emit_cpu;
mod emit_cuda;
mod expand;
mod foreign_names;
mod infer;
mod lower;
mod model;
mod names;

mod reserved;
mod spelling;
mod typecheck;

/// Marks a function as a device function, as Numba's `@cuda.jit(device=True)`
/// does: kernels and other device functions call it.
///
/// Generates, next to the function (which stays callable from host code),
/// a module of the same name with its CPU version and CUDA C. See the
/// `gpujit` crate.
#[proc_macro_attribute]
pub fn gpu_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    stacker::grow(64 << 20, || device::gpu_device_impl(attr, item))
}

/// Marks a function as a GPU kernel, as Numba's `@cuda.jit` does.
///
/// Generates, next to the function's name:
/// - a launch macro `name![grid, block](args...)` returning `Result<(), gpujit::Error>`;
/// - a module `name` with `launch(grid, block, args...)`, `cuda_source()` and `KERNEL`.
///
/// See the `gpujit` crate for the kernel language.
#[proc_macro_attribute]
pub fn gpu_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    // Parsing, lowering, emitting and dropping syntax trees all recurse as
    // deep as the kernel nests: run on a stack of our own, grown on demand
    // (`deep`), so that any kernel rustc accepts translates.
    stacker::grow(64 << 20, || gpu_kernel_impl(attr, item))
}

/// Runs `f`, first moving to a fresh stack segment if little of this one is
/// left; every recursive function of the macro goes through it.
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(256 << 10, 4 << 20, f)
}

fn gpu_kernel_impl(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    let item2 = proc_macro2::TokenStream::from(item.clone());
    // Numba's `cuda.const.array_like(A)` does not parse (`const` is a
    // keyword): read as `cuda.r#const.array_like(A)`, which lowering reports.
    let parsed =
        syn::parse2(item2.clone()).or_else(|e| spelling::raw_const(&item2).and_then(|t| syn::parse2(t).ok()).ok_or(e));
    let func: syn::ItemFn = match parsed {
        Ok(f) => f,
        Err(e) => {
            let mut out =
                syn::Error::new(e.span(), format!("#[gpu_kernel] applies to a function: {e}")).to_compile_error();
            out.extend(item2);
            return out.into();
        }
    };
    let mut errors = Vec::new();
    if attr.to_string().trim() == "device" {
        // One error: the function is not a kernel, so nothing else applies.
        let mut out = syn::Error::new_spanned(
            &attr,
            "`#[gpu_kernel(device)]` is not how gpujit marks a device function\n  = help: write `#[gpu_device]` (Numba's `@cuda.jit(device=True)`)",
        )
        .to_compile_error();
        out.extend(item2);
        return out.into();
    }
    if !attr.is_empty() {
        errors.push(syn::Error::new_spanned(&attr, "#[gpu_kernel] takes no arguments"));
    }
    let name = names::key(&func.sig.ident);
    if names::is_prelude_macro(&name) {
        errors.push(syn::Error::new(
            func.sig.ident.span(),
            format!(
                "a kernel cannot be named `{name}`: its launch macro `{name}![grid, block](..)` would clash with \
                 Rust's `{name}!`\n  = help: rename the kernel, e.g. `{name}_kernel`"
            ),
        ));
    }
    let mut stand_ins = lower::StandIns::default();
    let lowered = lower::lower_kernel(&func, &mut stand_ins);
    // rustc's copy, with stand-ins where gpujit reported a mistake.
    let typecheck = typecheck::typecheck_copy(&func, &stand_ins);
    match lowered {
        Ok(kernel) if errors.is_empty() => expand::expand(&func, &kernel, typecheck).into(),
        result => {
            let body_failed = result.is_err();
            if let Err(e) = result {
                errors.push(e);
            }
            let mut out = typecheck;
            // A kernel whose body failed but whose signature and name are
            // fine keeps its launch macro and module, so that its launches
            // report nothing more.
            if body_failed && errors.len() == 1 && !names::is_prelude_macro(&name) {
                if let Some(params) = lower::kernel_params(&func) {
                    out.extend(expand::stand_in(&func, params));
                }
            }
            for e in errors {
                out.extend(e.to_compile_error());
            }
            out.into()
        }
    }
}
