//! The items `#[gpu_kernel]` and `#[gpu_device]` generate: the launch
//! macro and module of a kernel (`kernel`), the CPU version and CUDA C
//! static of a device function (`device`), and the statements both use to
//! link a kernel's CUDA C with its callees' at run time.

mod device;
mod kernel;

use proc_macro2::TokenStream;
use quote::quote;

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
