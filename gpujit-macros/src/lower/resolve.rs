//! Final type resolution: replaces every inference variable in the lowered
//! kernel by the type inference settled on.

use crate::infer::Infer;
use crate::model::visit::{each_expr_mut, each_expr_mut_in_expr};
use crate::model::*;

pub(super) fn resolve_kernel(inf: &Infer, k: &mut Kernel) {
    for l in &mut k.locals {
        l.ty = inf.resolve(l.ty);
    }
    for a in &mut k.local_arrays {
        a.elem = inf.resolve(a.elem);
    }
    let mut resolve = |e: &mut Expr| e.ty = inf.resolve(e.ty);
    for c in &mut k.body_consts {
        each_expr_mut_in_expr(&mut c.value, &mut resolve);
    }
    each_expr_mut(&mut k.body, &mut resolve);
}
