//! The names that link a kernel with its device functions at run time: the
//! holes in a function's CUDA C text for its own name, its outside
//! constants and its callees, which the runtime's `link` fills, and the
//! statics a caller reaches its callees by.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::*;

/// The hole for the function's own C name in its text.
pub const OWN: &str = "\u{0}s\u{0}";
/// The hole for the declarations of the outside constants it reads.
pub const CONSTS: &str = "\u{0}c\u{0}";

/// The hole for the C name of callee `k`.
pub fn callee_name(k: usize) -> String {
    format!("\u{0}{k}\u{0}")
}

/// The C type of a callee's signature (a `typedef` the callee declares).
pub fn callee_type(k: usize, which: CalleeTy) -> String {
    let name = callee_name(k);
    match which {
        CalleeTy::Ret => format!("{name}_ret"),
        CalleeTy::RetField(i) => format!("{name}_ret{i}"),
        CalleeTy::Arg(i) => format!("{name}_arg{i}"),
    }
}

/// The type a device function returns, in its own text.
pub fn own_type() -> String {
    format!("{OWN}_ret")
}

/// `text` as a `&[gpujit::__private::Piece]` expression.
pub fn pieces(text: &str) -> TokenStream {
    let mut out = Vec::new();
    for (i, part) in text.split('\u{0}').enumerate() {
        if i % 2 == 0 {
            if !part.is_empty() {
                out.push(quote! { ::gpujit::__private::Piece::Text(#part) });
            }
            continue;
        }
        out.push(match part {
            "s" => quote! { ::gpujit::__private::Piece::Own },
            "c" => quote! { ::gpujit::__private::Piece::Consts },
            k => {
                let k: usize = k.parse().unwrap_or(usize::MAX);
                quote! { ::gpujit::__private::Piece::Callee(#k) }
            }
        });
    }
    quote! { &[#(#out),*] }
}

/// The statics of `k`'s callees: `&[&path::GJ_DEVICE, ...]`.
pub fn callee_statics(k: &Kernel) -> TokenStream {
    let paths = k.callees.iter().map(|c| &c.path);
    quote! { &[#(&#paths::GJ_DEVICE),*] }
}
