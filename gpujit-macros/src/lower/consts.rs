//! Constants: `const` items in the body, shared array declarations and their
//! compile-time sizes, and constants defined outside the kernel.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Type};

use super::{err, path_text, scalar_of, strip, with_help, Binding, Lower};
use crate::model::*;
use crate::names::{self, is_free, suffixed};

/// Which array a size belongs to (for the messages).
#[derive(Clone, Copy)]
pub(super) enum ArrayKind {
    Shared,
    Local,
}

impl Lower {
    pub(super) fn body_const(&mut self, c: &syn::ItemConst) {
        let Some(ty) = scalar_of(&c.ty) else {
            self.errors.push(err(
                c.ty.span(),
                "kernel constants must have a scalar type (i32 ... f64, bool)",
            ));
            return;
        };
        let value = self.expr(&c.expr);
        self.expect(&c.expr, &value, Ty::Scalar(ty));
        let name = self.unique_name(&names::key(&c.ident));
        self.body_consts.push(BodyConst {
            name,
            ty,
            value,
            rust_value: c.expr.to_token_stream(),
        });
        let id = self.body_consts.len() - 1;
        self.bind(&names::key(&c.ident), Binding::BodyConst(id));
    }

    pub(super) fn shared_decl(&mut self, ident: &syn::Ident, ty: &Type, span: Span, out: &mut Vec<Stmt>) {
        let mut dims = Vec::new();
        let mut ndim = 0;
        let mut cur = ty;
        while let Type::Array(arr) = cur {
            ndim += 1;
            match self.const_expr(&arr.len, ArrayKind::Shared) {
                Ok(c) => dims.push(c),
                Err(e) => self.errors.push(e),
            }
            cur = &arr.elem;
        }
        if dims.len() != ndim {
            return;
        }
        if dims.is_empty() || dims.len() > 3 {
            self.errors.push(with_help(
                span,
                "a shared array has 1 to 3 dimensions",
                "write `shared_array::<[[f32; N]; M]>()`",
            ));
            return;
        }
        let Some(elem) = self.elem_type(cur) else { return };
        let name = self.unique_name(&names::key(ident));
        self.shared.push(SharedArray {
            label: names::key(ident),
            name,
            elem,
            dims,
            rust_type: ty.to_token_stream(),
        });
        let id = self.shared.len() - 1;
        self.bind(&names::key(ident), Binding::Shared(id));
        out.push(Stmt::Shared(id));
    }

    /// A compile-time constant (a shared or local array's size): literals,
    /// `const`s and arithmetic on them.
    pub(super) fn const_expr(&mut self, e: &SExpr, kind: ArrayKind) -> Result<ConstExpr, syn::Error> {
        crate::stack::deep(|| self.const_expr_at(e, kind))
    }

    fn const_expr_at(&mut self, e: &SExpr, kind: ArrayKind) -> Result<ConstExpr, syn::Error> {
        let (what, help) = match kind {
            ArrayKind::Shared => ("shared", "shared array sizes must be compile-time constants (a literal, a `const`, or arithmetic on them); a size chosen at launch needs dynamic shared memory, which is not supported yet"),
            ArrayKind::Local => ("local", "local array sizes must be compile-time constants (a literal, a `const`, or arithmetic on them), as in CUDA C; for a size known only at launch, pass a `&mut [T]` scratch parameter with a slice per thread"),
        };
        let c = match strip(e) {
            SExpr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            }) => i
                .base10_parse::<u64>()
                .map_err(|_| err(i.span(), "invalid array size"))?
                .to_string(),
            SExpr::Path(p) if p.qself.is_none() => {
                let text = path_text(&p.path);
                match self.lookup(&text) {
                    Some(Binding::BodyConst(id)) => self.body_consts[id].name.clone(),
                    Some(_) => {
                        return Err(with_help(
                            e.span(),
                            &format!("`{text}` is not a compile-time constant: {what} array sizes are fixed when the kernel is compiled"),
                            help,
                        ))
                    }
                    None => {
                        let (idx, _) = self.extern_const(&p.path);
                        self.extern_consts[idx].c_name.clone()
                    }
                }
            }
            SExpr::Binary(b)
                if matches!(
                    b.op,
                    syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
                ) =>
            {
                // In `usize`, as Rust computes an array length, not in C's
                // `int` (`65536 * 65536` would overflow).
                let wide = |c: String| {
                    if c.chars().all(|ch| ch.is_ascii_digit()) {
                        format!("{c}ull")
                    } else {
                        c
                    }
                };
                let l = wide(self.const_expr(&b.left, kind)?.c);
                let r = wide(self.const_expr(&b.right, kind)?.c);
                format!("({l} {} {r})", b.op.to_token_stream())
            }
            _ => {
                return Err(with_help(
                    e.span(),
                    &format!("{what} array size is not a compile-time constant"),
                    help,
                ))
            }
        };
        Ok(ConstExpr {
            rust: e.to_token_stream(),
            c,
        })
    }

    /// Registers a `const` defined outside the kernel (`TILE`, `f32::MAX`,
    /// `std::f32::consts::PI`).
    pub(super) fn extern_const(&mut self, path: &syn::Path) -> (usize, Ty) {
        self.extern_const_nd(path, 0)
    }

    /// As [`Lower::extern_const`], for a constant used with `ndim` indices
    /// (0: as a scalar); the type is its element's. The same constant used
    /// with another number of indices is an error (an index expression that
    /// rustc also rejects).
    pub(super) fn extern_const_nd(&mut self, path: &syn::Path, ndim: usize) -> (usize, Ty) {
        let segments: Vec<String> = path.segments.iter().map(|s| names::key(&s.ident)).collect();
        let key = segments.join("::");
        if let Some(i) = self
            .extern_consts
            .iter()
            .position(|c| c.rust_path.to_string().replace(' ', "") == key)
        {
            if self.extern_consts[i].ndim != ndim {
                let used = |n: usize| match n {
                    0 => "as a value".to_string(),
                    1 => "with 1 index".to_string(),
                    n => format!("with {n} indices"),
                };
                self.errors.push(err(
                    path.span(),
                    format!(
                        "`{key}` is used {} here but {} elsewhere in this function",
                        used(ndim),
                        used(self.extern_consts[i].ndim)
                    ),
                ));
            }
            return (i, self.extern_const_types[i]);
        }
        // A plain `TILE` keeps its name in C; a path (`f32::MAX`) gets a fresh
        // one (`f32_MAX`) that cannot collide with the user's identifiers.
        let c_name = match segments.as_slice() {
            [single] if is_free(single) => single.clone(),
            _ => {
                let joined: Vec<&str> = segments
                    .iter()
                    .map(String::as_str)
                    .filter(|s| !matches!(*s, "std" | "core" | "crate"))
                    .collect();
                self.fresh_name(&joined.join("_"))
            }
        };
        // `f32::MAX`, `std::f64::consts::PI`: the type is the scalar named in the path.
        let known = segments.iter().rev().skip(1).find_map(|s| Scalar::from_name(s));
        let ty = match known {
            Some(s) => Ty::Scalar(s),
            None => self.infer.fresh_const(self.extern_consts.len()),
        };
        let type_name = self.fresh_name(&suffixed(&c_name, "type"));
        // A device function's `__constant__` arrays sit at file scope, named
        // after the function (`gj_dev_f__FILTER`: no function's C name has
        // `__`), since another function may read another `FILTER`.
        let c_name = if ndim > 0 && self.ret.is_some() {
            format!("{}__{c_name}", crate::link::OWN)
        } else {
            c_name
        };
        self.extern_consts.push(ExternConst {
            c_name,
            type_name,
            rust_path: path.to_token_stream(),
            user_item: known.is_none(),
            ndim,
        });
        self.extern_const_types.push(ty);
        (self.extern_consts.len() - 1, ty)
    }
}
