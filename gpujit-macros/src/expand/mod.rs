//! The items `#[gpu_kernel]` and `#[gpu_device]` generate: the launch
//! macro and module of a kernel (`kernel`), the CPU version and CUDA C
//! static of a device function (`device`), and the statements both use to
//! link a kernel's CUDA C with its callees' at run time.

mod device;
mod kernel;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::emit_cuda;
use crate::link::{callee_statics, pieces};
use crate::model::*;

pub use device::gpu_device_impl;
pub use kernel::gpu_kernel_impl;

/// Statements appending to `gj_src` the CUDA C of module `const` array `c`:
/// its element typedef (if `typed`), then its `__constant__` declaration
/// under the C name `c_name` (a `&str` expression).
pub fn const_array_decls(c: &ExternConst, typed: bool, c_name: TokenStream) -> TokenStream {
    let path = &c.rust_path;
    let ndim = c.ndim;
    let typedef = typed.then(|| elem_typedef(c));
    quote! {
        #typedef
        gj_src.push_str(&::gpujit::__private::CudaConstArray::<#ndim>::cuda_array_decl(&#path, #c_name));
    }
}

/// The statement appending the typedef of `const` array `c`'s element type.
pub(super) fn elem_typedef(c: &ExternConst) -> TokenStream {
    let path = &c.rust_path;
    let ndim = c.ndim;
    let type_name = &c.type_name;
    quote! { gj_src.push_str(&::gpujit::__private::CudaConstArray::<#ndim>::cuda_elem_typedef(&#path, #type_name)); }
}

/// The kernel's `recursive` entry: whether a device function it reaches is
/// recursive, decided at run time (the callees may live in other crates).
pub fn kernel_recursion(k: &Kernel) -> TokenStream {
    if k.callees.is_empty() {
        return quote! { || false };
    }
    let statics = callee_statics(k);
    quote! { || ::gpujit::__private::reaches_recursion(#statics) }
}

/// For a kernel that calls device functions: the statements that append
/// the helpers, the device functions and the kernel to `gj_src` (a
/// `String`); `None` for a kernel without calls (its text is fixed).
pub fn kernel_source(k: &Kernel, lines: Option<emit_cuda::SourceLines<'_>>) -> Option<TokenStream> {
    if k.callees.is_empty() {
        return None;
    }
    let parts = emit_cuda::emit_parts(k, lines);
    let helpers = &parts.helpers;
    let kernel = pieces(&parts.def);
    let statics = callee_statics(k);
    let mut taken: Vec<&str> = vec![&k.entry];
    for c in &k.extern_consts {
        taken.push(&c.c_name);
        taken.push(&c.type_name);
    }
    Some(quote! {
        gj_src.push_str(&::gpujit::__private::link(#statics, &[#(#helpers),*], #kernel, &[#(#taken),*]));
    })
}

/// The compile-time checks of the outside `const`s that `k` (a kernel or a
/// device function, `what`) reads:
/// - each is a `const`, not a `static` (whose value could change after the
///   CUDA C was built): only a `const` can be borrowed mutably without an
///   error (as a temporary copy). This evaluates nothing, as a `match`
///   pattern would, which refuses a NaN in a `const`.
/// - its `const` arrays fit CUDA's constant memory (64 KiB), each on its own
///   (the error at its use) and together (at the first).
pub fn const_item_checks(k: &Kernel, what: &str) -> TokenStream {
    let mut out = TokenStream::new();
    let span_of = |c: &ExternConst| {
        c.rust_path
            .clone()
            .into_iter()
            .last()
            .map_or_else(Span::call_site, |t| t.span())
    };
    for c in k.extern_consts.iter().filter(|c| c.user_item) {
        let path = &c.rust_path;
        let borrow = quote_spanned! {span_of(c)=> &mut #path };
        out.extend(quote! {
            const _: () = {
                #[allow(dead_code, const_item_mutation)]
                fn gj_only_consts() {
                    let _ = #borrow;
                }
            };
        });
    }
    let arrays: Vec<&ExternConst> = k.extern_consts.iter().filter(|c| c.ndim > 0).collect();
    // `bytes` (a const expression) within CUDA's constant memory, else a
    // compile error at `span`: "<what>N<unit>, more than CUDA's constant memory ...".
    let fits = |span: Span, bytes: TokenStream, what: String, unit: &str| {
        let limit = quote! { ::gpujit::__private::CONSTANT_MEMORY_BYTES };
        let rest = " bytes)";
        let help = "; help: pass a table this large as a `&[T]` parameter (global memory, read through the cache)";
        quote_spanned! {span=>
            const _: () = {
                let bytes = #bytes;
                if bytes > #limit {
                    ::core::panic!("{}", ::gpujit::__private::ConstMsg::new().text(#what).num(bytes).text(#unit).text(", more than CUDA's constant memory (").num(#limit).text(#rest).text(#help).as_str());
                }
            };
        }
    };
    for c in &arrays {
        let path = &c.rust_path;
        let what = format!("the `const` array `{}` of {what} takes ", path_text(path));
        out.extend(fits(
            span_of(c),
            quote! { ::gpujit::__private::size_of_ref(&#path) },
            what,
            " bytes",
        ));
    }
    if arrays.len() > 1 {
        let paths = arrays.iter().map(|c| &c.rust_path);
        let names: Vec<String> = arrays
            .iter()
            .map(|c| format!("`{}`", path_text(&c.rust_path)))
            .collect();
        let what = format!("the `const` arrays of {what} ({}) take ", names.join(", "));
        let bytes = quote! { 0usize #(+ ::gpujit::__private::size_of_ref(&#paths))* };
        out.extend(fits(span_of(arrays[0]), bytes, what, " bytes together"));
    }
    out
}

/// A path as its user wrote it, without spaces (`tables::FILTER`).
fn path_text(path: &TokenStream) -> String {
    path.to_string().replace(' ', "")
}
