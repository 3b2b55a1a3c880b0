//! Local arrays (`let mut acc = [0.0f32; 8];`, `let w = [1, 2, 3];`: per
//! thread, Numba's `cuda.local.array`) and the element type check they need
//! after inference.

use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Type};

use super::consts::ArrayKind;
use super::{scalar_of, strip, with_help, Binding, Lower};
use crate::infer::VarKind;
use crate::model::*;
use crate::names;

/// At most this many dimensions, as shared arrays and array parameters.
const MAX_DIMS: usize = 3;

const FORMS: &str = "write `[v; N]` (`[[v; M]; N]` for 2-D) or a list `[a, b, c]` (`[[a, b], [c, d]]` for 2-D)";

impl Lower {
    /// `let [mut] name[: [T; N]] = [v; N];` or `= [a, b, ...];`.
    pub(super) fn local_array_decl(
        &mut self,
        pi: &syn::PatIdent,
        annotated: Option<&Type>,
        init: &SExpr,
        out: &mut Vec<Stmt>,
    ) {
        // The element type: the annotation's scalar, else inferred from the values.
        let elem = match annotated {
            Some(t) => {
                let mut cur = t;
                while let Type::Array(a) = cur {
                    cur = &a.elem;
                }
                match scalar_of(cur) {
                    Some(s) => Ty::Scalar(s),
                    None => {
                        self.errors.push(with_help(
                            cur.span(),
                            "local array elements are scalars",
                            "use one of i32 i64 u32 u64 usize f32 f64 bool u8",
                        ));
                        return;
                    }
                }
            }
            None => self.infer.fresh(VarKind::Any),
        };
        let mut dims = Vec::new();
        let init = match self.array_init(init, elem, &mut dims) {
            Some(init) => init,
            None => return,
        };
        let label = names::key(&pi.ident);
        let name = self.unique_name(&label);
        self.local_arrays.push(LocalArray {
            name,
            label: label.clone(),
            elem,
            dims,
            mutable: pi.mutability.is_some(),
            span: pi.ident.span(),
        });
        let id = self.local_arrays.len() - 1;
        self.bind(&label, Binding::LocalArray(id));
        out.push(Stmt::LocalArray { id, init });
    }

    /// The initialiser `e` with its sizes (outermost first) pushed to `dims`.
    fn array_init(&mut self, e: &SExpr, elem: Ty, dims: &mut Vec<ConstExpr>) -> Option<ArrayInit> {
        match strip(e) {
            SExpr::Repeat(r) => {
                let size = match self.const_expr(&r.len, ArrayKind::Local) {
                    Ok(c) => c,
                    Err(e) => {
                        self.errors.push(e);
                        return None;
                    }
                };
                dims.push(size);
                if dims.len() > MAX_DIMS {
                    self.errors.push(with_help(
                        e.span(),
                        "a local array has 1 to 3 dimensions",
                        "flatten the inner dimensions into one (`[v; N * M]`, indexed `a[i * M + j]`)",
                    ));
                    return None;
                }
                match strip(&r.expr) {
                    SExpr::Repeat(_) => self.array_init(&r.expr, elem, dims),
                    SExpr::Array(a) => {
                        self.errors.push(with_help(
                            a.span(),
                            "a local array repeats a single value or lists every element",
                            FORMS,
                        ));
                        None
                    }
                    v => {
                        let v = self.expr(v);
                        self.unify_at(v.span, v.ty, elem);
                        Some(ArrayInit::Repeat(v))
                    }
                }
            }
            SExpr::Array(a) => {
                let mut flat = Vec::new();
                self.list_init(a, elem, 0, dims, &mut flat)?;
                Some(ArrayInit::List(flat))
            }
            other => {
                self.errors.push(with_help(
                    other.span(),
                    "a local array needs an array value here",
                    FORMS,
                ));
                None
            }
        }
    }

    /// A (nested) list literal at depth `depth`: the first list at each
    /// depth fixes the size, every other list there must have it.
    fn list_init(
        &mut self,
        a: &syn::ExprArray,
        elem: Ty,
        depth: usize,
        dims: &mut Vec<ConstExpr>,
        flat: &mut Vec<Expr>,
    ) -> Option<()> {
        let n = a.elems.len();
        if n == 0 {
            self.errors
                .push(with_help(a.span(), "a local array has at least one element", FORMS));
            return None;
        }
        match dims.get(depth) {
            None => dims.push(ConstExpr {
                rust: quote!(#n),
                c: n.to_string(),
            }),
            Some(d) if d.c != n.to_string() => {
                self.errors.push(with_help(
                    a.span(),
                    &format!("this list has {n} element(s), but the first list beside it has {}", d.c),
                    "every inner list has the same length, as in Rust: `[[a, b], [c, d]]`",
                ));
                return None;
            }
            Some(_) => {}
        }
        if depth >= MAX_DIMS {
            self.errors.push(with_help(
                a.span(),
                "a local array has 1 to 3 dimensions",
                "flatten the inner dimensions into one",
            ));
            return None;
        }
        let nested = matches!(strip(&a.elems[0]), SExpr::Array(_));
        for x in &a.elems {
            match (strip(x), nested) {
                (SExpr::Array(inner), true) => self.list_init(inner, elem, depth + 1, dims, flat)?,
                (SExpr::Array(_) | SExpr::Repeat(_), _) | (_, true) => {
                    self.errors.push(with_help(
                        x.span(),
                        "every element of a list must have the same shape",
                        FORMS,
                    ));
                    return None;
                }
                (v, false) => {
                    let v = self.expr(v);
                    self.unify_at(v.span, v.ty, elem);
                    flat.push(v);
                }
            }
        }
        Some(())
    }
}

impl Lower {
    /// `a.len()` of local array `a` (its outermost extent, as in Rust): the
    /// size as a `usize` literal where it is one, else an error naming the
    /// constant to write; `None` if `e` is no local array.
    pub(super) fn local_array_len(&mut self, e: &SExpr) -> Option<Expr> {
        let SExpr::Path(p) = strip(e) else { return None };
        let ident = p.path.get_ident()?;
        let Some(Binding::LocalArray(id)) = self.lookup(&names::key(ident)) else {
            return None;
        };
        let size = &self.local_arrays[id].dims[0];
        Some(match size.c.parse::<i128>() {
            Ok(n) => Expr {
                kind: ExprKind::Lit(Lit::Int(n)),
                ty: Ty::Scalar(Scalar::Usize),
                span: e.span(),
            },
            Err(_) => {
                let rust = size.rust.to_string();
                self.error_expr(with_help(
                    e.span(),
                    &format!("`{ident}.len()` of a local array sized by a constant expression"),
                    &format!("write the size itself: `{rust}`"),
                ))
            }
        })
    }
}

/// After inference: every local array has a scalar element type (a value
/// only rustc knows the type of, an outside constant's, needs an annotation).
pub(super) fn check_local_elems(k: &Kernel) -> Result<(), syn::Error> {
    let mut errors = k
        .local_arrays
        .iter()
        .filter(|a| !matches!(a.elem, Ty::Scalar(_)))
        .map(|a| {
            with_help(
                a.span,
                &format!("the element type of local array `{}` is not known here", a.label),
                &format!("annotate it: `let {}: [f32; N] = ...;`", a.label),
            )
        });
    match errors.next() {
        Some(mut first) => {
            errors.for_each(|e| first.combine(e));
            Err(first)
        }
        None => Ok(()),
    }
}
