//! Array access: `x[i]`, `a[[i, j]]`, `tile[i][j]`, `a.shape()[k]`, and which
//! array parameter an expression names.

use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{err, path_text, strip, with_help, with_help_spanned, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;
use crate::names;

impl Lower {
    pub(super) fn array_param_of(&mut self, e: &SExpr) -> Option<usize> {
        if let SExpr::Path(p) = strip(e) {
            if let Some(ident) = p.path.get_ident() {
                if let Some(Binding::Array(i)) = self.lookup(&names::key(ident)) {
                    return Some(i);
                }
            }
        }
        if !self.is_poisoned(e) {
            self.errors.push(with_help(
                e.span(),
                "expected an array parameter here",
                "`len()`, `dim()` and `shape()` apply to the kernel's array parameters",
            ));
        }
        None
    }

    /// `x[i]`, `a[[i, j]]`, `tile[i][j]`: the array, the indices (as `usize`)
    /// and the element type.
    pub(super) fn index(&mut self, e: &SExpr, for_write: bool) -> Option<(ArrayRef, Vec<Expr>, Ty)> {
        // Peel `base[i0][i1]...` outermost-last.
        let mut idx_exprs = Vec::new();
        let mut cur = e;
        while let SExpr::Index(ix) = strip(cur) {
            idx_exprs.push(&*ix.index);
            cur = &ix.expr;
        }
        idx_exprs.reverse();
        let SExpr::Path(p) = strip(cur) else {
            self.errors.push(with_help(
                cur.span(),
                "only array parameters, shared and local arrays and `const` arrays can be indexed",
                "give the array a name first: `let w = [1.0f32, 2.0];`, then index `w[i]`",
            ));
            return None;
        };
        let name = path_text(&p.path);
        if matches!(self.lookup(&name), Some(Binding::Poisoned)) {
            return None;
        }
        let (array, ndim, elem, writable) = match self.lookup(&name) {
            Some(Binding::Array(i)) => match self.params[i].kind {
                ParamKind::Array {
                    elem, ndim, mutable, ..
                } => (ArrayRef::Param(i), ndim, Ty::Scalar(elem), mutable),
                ParamKind::Scalar(_) => return None,
            },
            Some(Binding::Shared(i)) => (
                ArrayRef::Shared(i),
                self.shared[i].dims.len(),
                Ty::Scalar(self.shared[i].elem),
                true,
            ),
            Some(Binding::LocalArray(i)) => (
                ArrayRef::Local(i),
                self.local_arrays[i].dims.len(),
                self.local_arrays[i].elem,
                // rustc reports writes to a local array without `mut`.
                true,
            ),
            // Not declared in the function: a module `const` array
            // (`FILTER[i]`, `W[i][j]`), whose shape only rustc knows.
            None if p.qself.is_none() && (1..=3).contains(&idx_exprs.len()) => {
                if for_write {
                    self.errors.push(with_help(
                        e.span(),
                        &format!("cannot write to `{name}`: it is a `const`"),
                        "module `const` arrays are read-only in kernels; copy what you need into a local array (`let mut a = [0.0f32; N];`)",
                    ));
                    return None;
                }
                let (c, ty) = self.extern_const_nd(&p.path, idx_exprs.len());
                (ArrayRef::Const(c), idx_exprs.len(), ty, false)
            }
            _ => {
                self.errors.push(with_help(
                    cur.span(),
                    &format!("`{name}` is not an array: only array parameters, shared and local arrays and `const` arrays can be indexed"),
                    "index a `&[T]` or `ArrayViewN<T>` parameter, a `shared_array`, a local array (`let a = [0.0f32; N];`) or a module `const` array",
                ));
                return None;
            }
        };
        let slice =
            matches!(array, ArrayRef::Param(i) if matches!(self.params[i].kind, ParamKind::Array { slice: true, .. }));
        // rustc already reports writes through `&[T]` (in the type-checked copy).
        if for_write && !writable && !slice {
            self.errors.push(with_help(
                e.span(),
                &format!("cannot write to `{name}`: it is a read-only parameter"),
                "declare it as `&mut [T]` or `ArrayViewMutN<T>`",
            ));
        }
        let raw: Vec<&SExpr> = match (array, idx_exprs.as_slice()) {
            (ArrayRef::Param(_), [single]) if ndim > 1 => match strip(single) {
                SExpr::Array(a) => a.elems.iter().collect(),
                _ => {
                    self.errors.push(with_help(
                        single.span(),
                        &format!("`{name}` has {ndim} dimensions"),
                        &format!(
                            "index it with {ndim} indices: `{name}[[i, j{}]]`",
                            if ndim == 3 { ", k" } else { "" }
                        ),
                    ));
                    return None;
                }
            },
            (ArrayRef::Param(_), list) if list.len() > 1 => {
                self.errors.push(with_help_spanned(
                    e,
                    &format!("`{name}` is indexed like ndarray"),
                    "write `a[[i, j]]`, not `a[i][j]`",
                ));
                return None;
            }
            (_, list) => list.to_vec(),
        };
        if raw.len() != ndim {
            self.errors.push(err(
                e.span(),
                format!("`{name}` has {ndim} dimensions but {} indices were given", raw.len()),
            ));
            return None;
        }
        let indices = raw
            .into_iter()
            .map(|ie| {
                let x = self.expr(ie);
                self.expect(ie, &x, Ty::Scalar(Scalar::Usize));
                x
            })
            .collect();
        Some((array, indices, elem))
    }

    /// `a.shape()[k]` with a literal `k`.
    pub(super) fn shape_index(&mut self, ix: &syn::ExprIndex) -> Expr {
        let span = ix.span();
        let SExpr::MethodCall(mc) = strip(&ix.expr) else {
            return self.error_expr(err(span, "expected `a.shape()[k]`"));
        };
        let Some(p) = self.array_param_of(&mc.receiver) else {
            return Expr {
                kind: ExprKind::Lit(Lit::Bool(false)),
                ty: self.infer.fresh(VarKind::Any),
                span,
            };
        };
        let ndim = match self.params[p].kind {
            ParamKind::Array { ndim, .. } => ndim,
            ParamKind::Scalar(_) => 0,
        };
        let k = match strip(&ix.index) {
            SExpr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            }) => i.base10_parse::<usize>().ok(),
            _ => None,
        };
        match k {
            Some(k) if k < ndim => Expr {
                kind: ExprKind::Dim(p, k),
                ty: Ty::Scalar(Scalar::Usize),
                span,
            },
            Some(k) => self.error_expr(err(
                ix.index.span(),
                format!("dimension {k} is out of range for a {ndim}-D array"),
            )),
            None => self.error_expr(with_help(
                ix.index.span(),
                "the dimension in `a.shape()[k]` must be a literal",
                "write `a.shape()[0]`, `a.shape()[1]`, ...",
            )),
        }
    }
}
