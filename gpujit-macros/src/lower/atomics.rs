//! Atomics (`atomic_add(&mut hist[b], 1)` & co.) and fences (`threadfence()`
//! & co.). An atomic's first argument is a place as a store names it, behind
//! `&mut`; the element type and the function must be a pair CUDA has.

use syn::spanned::Spanned;
use syn::Expr as SExpr;

use super::{call_name, err, strip, with_help, with_help_spanned, Lower};
use crate::model::*;

/// The fence a call names, if any.
pub(super) fn fence_scope(call: &syn::ExprCall) -> Option<FenceScope> {
    Some(match call_name(call)?.as_str() {
        "threadfence" => FenceScope::Device,
        "threadfence_block" => FenceScope::Block,
        "threadfence_system" => FenceScope::System,
        _ => return None,
    })
}

/// `i32, u32, i64, u64, usize`, for messages.
fn type_list(types: &[Scalar]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.rust_name()).collect();
    names.join(", ")
}

/// The atomics that take elements of type `t`, for messages.
fn atomics_for(t: Scalar) -> String {
    let names: Vec<String> = AtomicFn::ALL
        .into_iter()
        .filter(|f| f.types().contains(&t))
        .map(|f| format!("atomic_{}", f.suffix()))
        .collect();
    names.join(", ")
}

impl Lower {
    pub(super) fn fence(&mut self, call: &syn::ExprCall) -> Option<FenceScope> {
        let scope = fence_scope(call)?;
        if !call.args.is_empty() {
            let name = call_name(call).unwrap_or_default();
            self.errors
                .push(err(call.args.span(), format!("`{name}()` takes no arguments")));
        }
        Some(scope)
    }

    /// `atomic_xxx(&mut a[i], v)` (and `atomic_cas(&mut a[i], cmp, v)`).
    pub(super) fn atomic(&mut self, call: &syn::ExprCall, name: &str) -> crate::model::Expr {
        let span = call.span();
        let Some(f) = AtomicFn::from_name(name) else {
            let all: Vec<String> = AtomicFn::ALL.iter().map(|f| format!("atomic_{}", f.suffix())).collect();
            return self.error_expr(with_help(
                call.func.span(),
                &format!("unknown atomic `{name}`"),
                &format!("the atomics are {}", all.join(", ")),
            ));
        };
        let usage = if f == AtomicFn::Cas {
            format!("`{name}(&mut a[i], compare, value)`")
        } else {
            format!("`{name}(&mut a[i], value)`")
        };
        let args: Vec<&SExpr> = call.args.iter().collect();
        if args.len() != 1 + f.operands() {
            return self.error_expr(with_help(
                span,
                &format!("`{name}` takes {} arguments", 1 + f.operands()),
                &format!(
                    "write {usage}: the element, then the operand{}",
                    if f == AtomicFn::Cas { "s" } else { "" }
                ),
            ));
        }
        // The place: `&mut a[i]`, `&mut a[[i, j]]`, `&mut tile[i][j]`.
        let place = args[0];
        let inner = match strip(place) {
            SExpr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        };
        let Some(inner) = inner.filter(|e| matches!(strip(e), SExpr::Index(_))) else {
            return self.error_expr(with_help_spanned(
                place,
                &format!("the first argument of `{name}` must be an array element behind `&mut`"),
                &format!(
                    "write {usage}, with an element of a `&mut [T]` or `ArrayViewMutN` parameter or of a shared array"
                ),
            ));
        };
        let before = self.errors.len();
        let Some((array, idx, elem)) = self.index(inner, false) else {
            return self.silent_expr(span);
        };
        if self.errors.len() > before {
            return self.silent_expr(span);
        }
        match array {
            ArrayRef::Local(i) => {
                let label = self.local_arrays[i].label.clone();
                return self.error_expr(with_help_spanned(
                    place,
                    &format!("`{name}` on local array `{label}`: it belongs to one thread, so nothing can race on it"),
                    &format!("update it directly (`{label}[i] += v`); atomics are for global and shared arrays"),
                ));
            }
            ArrayRef::Const(_) => {
                return self.error_expr(with_help_spanned(
                    place,
                    &format!("`{name}` writes its element, but this is a module `const`"),
                    "atomics work on `&mut [T]` and `ArrayViewMutN<T>` parameters and on shared arrays",
                ));
            }
            ArrayRef::Param(_) | ArrayRef::Shared(_) => {}
        }
        let Ty::Scalar(elem) = elem else {
            return self.silent_expr(span);
        };
        let writable = match array {
            ArrayRef::Param(i) => matches!(self.params[i].kind, ParamKind::Array { mutable: true, .. }),
            _ => true,
        };
        if !writable {
            let label = match array {
                ArrayRef::Param(i) => self.params[i].label.clone(),
                ArrayRef::Shared(i) => self.shared[i].label.clone(),
                _ => String::new(),
            };
            return self.error_expr(with_help_spanned(
                place,
                &format!("`{name}` writes its element, but `{label}` is a read-only parameter"),
                "declare it as `&mut [T]` or `ArrayViewMutN<T>` (atomics work on those and on shared arrays)",
            ));
        }
        if !f.types().contains(&elem) {
            let others = atomics_for(elem);
            let also = if others.is_empty() {
                format!("no atomic takes `{}` elements", elem.rust_name())
            } else {
                format!("on `{}` elements CUDA has {others}", elem.rust_name())
            };
            return self.error_expr(with_help_spanned(
                place,
                &format!(
                    "`{name}` is not supported on `{}` elements: CUDA has it for {} only",
                    elem.rust_name(),
                    type_list(f.types())
                ),
                &also,
            ));
        }
        let ty = Ty::Scalar(elem);
        let vals = args[1..]
            .iter()
            .map(|a| {
                let x = self.expr(a);
                self.expect(a, &x, ty);
                x
            })
            .collect();
        crate::model::Expr {
            kind: ExprKind::Atomic(f, array, idx, vals),
            ty,
            span,
        }
    }
}
