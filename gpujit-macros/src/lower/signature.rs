//! The kernel's signature: qualifiers, parameter names and parameter types.

use syn::spanned::Spanned;
use syn::{Pat, Type};

use super::{err, heap_or, scalar_of, with_help, Binding, Lower};
use crate::model::*;
use crate::names::{self, suffixed};

impl Lower {
    pub(super) fn signature(&mut self, sig: &syn::Signature) {
        if let Some(unsafety) = &sig.unsafety {
            self.errors.push(with_help(
                unsafety.span(),
                "a kernel cannot be `unsafe`",
                "remove `unsafe`: gpujit checks every access a kernel makes",
            ));
        }
        if let Some(a) = &sig.asyncness {
            self.errors.push(err(a.span(), "a kernel cannot be `async`"));
        }
        if let Some(c) = &sig.constness {
            self.errors.push(err(c.span(), "a kernel cannot be `const fn`"));
        }
        if !sig.generics.params.is_empty() {
            self.errors.push(with_help(
                sig.generics.span(),
                "generic kernels are not supported yet",
                "write the kernel for concrete element types (f32, f64, ...)",
            ));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            self.errors.push(with_help(
                ty.span(),
                "a kernel cannot return a value",
                "remove the return type and write results into a `&mut [T]` or `ArrayViewMutN<T>` parameter",
            ));
        }
        if let Some(v) = &sig.variadic {
            self.errors.push(err(v.span(), "a kernel cannot be variadic"));
        }
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => self.errors.push(err(r.span(), "a kernel cannot take `self`")),
                syn::FnArg::Typed(pt) => self.param(pt),
            }
        }
    }

    pub(super) fn param(&mut self, pt: &syn::PatType) {
        let (ident, mutable) = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => (pi.ident.clone(), pi.mutability.is_some()),
            other => {
                self.errors
                    .push(err(other.span(), "kernel parameters must be plain names (`x: &[f32]`)"));
                return;
            }
        };
        let Some(kind) = self.param_type(&pt.ty) else {
            self.bind(&names::key(&ident), Binding::Poisoned);
            return;
        };
        let index = self.params.len();
        match kind {
            ParamKind::Scalar(s) => {
                let id = self.new_local(&ident, Ty::Scalar(s), mutable);
                let name = self.locals[id].name.clone();
                self.params.push(Param {
                    name,
                    label: names::key(&ident),
                    kind,
                    dims: Vec::new(),
                });
            }
            ParamKind::Array { ndim, .. } => {
                let _ = mutable; // `mut a: ArrayViewMut2<T>` (as ndarray wants) or plain `a`: both work.
                let name = self.unique_name(&names::key(&ident));
                // The extents the CUDA C signature passes after the pointer.
                let dims = if ndim == 1 {
                    vec![self.fresh_name(&suffixed(&name, "len"))]
                } else {
                    (0..ndim)
                        .map(|d| self.fresh_name(&suffixed(&name, &format!("d{d}"))))
                        .collect()
                };
                self.bind(&names::key(&ident), Binding::Array(index));
                self.params.push(Param {
                    name,
                    label: names::key(&ident),
                    kind,
                    dims,
                });
            }
        }
    }

    fn param_type(&mut self, ty: &Type) -> Option<ParamKind> {
        const HELP: &str = "kernel parameters are scalars (i8 i16 i32 i64 u8 u16 u32 u64 usize f32 f64 bool), `&[T]`, `&mut [T]`, `ArrayView1/2/3<T>` or `ArrayViewMut1/2/3<T>`";
        match ty {
            // A `macro_rules!` type fragment (`x: $t`), or `(f32)`.
            Type::Group(syn::TypeGroup { elem, .. }) | Type::Paren(syn::TypeParen { elem, .. }) => {
                self.param_type(elem)
            }
            Type::Path(tp) if tp.qself.is_none() => {
                let last = tp.path.segments.last()?;
                let name = last.ident.to_string();
                if let Some(s) = Scalar::from_name(&name) {
                    if tp.path.segments.len() == 1 {
                        return Some(ParamKind::Scalar(s));
                    }
                }
                let (mutable, ndim) = match name.as_str() {
                    "ArrayView1" => (false, 1),
                    "ArrayView2" => (false, 2),
                    "ArrayView3" => (false, 3),
                    "ArrayViewMut1" => (true, 1),
                    "ArrayViewMut2" => (true, 2),
                    "ArrayViewMut3" => (true, 3),
                    _ => {
                        self.errors.push(heap_or(ty, HELP));
                        return None;
                    }
                };
                let elem = match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }),
                    _ => None,
                };
                let elem = elem.and_then(|t| self.elem_type(t))?;
                Some(ParamKind::Array {
                    elem,
                    ndim,
                    mutable,
                    slice: false,
                })
            }
            Type::Reference(r) => match &*r.elem {
                Type::Slice(s) => {
                    let elem = self.elem_type(&s.elem)?;
                    Some(ParamKind::Array {
                        elem,
                        ndim: 1,
                        mutable: r.mutability.is_some(),
                        slice: true,
                    })
                }
                _ => {
                    self.errors.push(with_help(
                        r.span(),
                        "references other than `&[T]`/`&mut [T]` are not supported",
                        HELP,
                    ));
                    None
                }
            },
            other => {
                self.errors
                    .push(with_help(other.span(), "unsupported parameter type", HELP));
                None
            }
        }
    }

    pub(super) fn elem_type(&mut self, ty: &Type) -> Option<Scalar> {
        match scalar_of(ty) {
            Some(s) => Some(s),
            None => {
                self.errors.push(with_help(
                    ty.span(),
                    "unsupported array element type",
                    "elements are u8 i8 i16 u16 i32 i64 u32 u64 usize f32 f64 bool",
                ));
                None
            }
        }
    }
}
