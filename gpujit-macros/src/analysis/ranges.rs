//! The range of values an integer expression can take, from the launch
//! limits every backend enforces (`LaunchConfig::new`: every extent ≥ 1,
//! block x, y ≤ 1024, z ≤ 64, grid x ≤ 2³¹ − 1, y, z ≤ 65535) and the types
//! of parameters and extents. For planners that must know that a sum cannot
//! wrap (`cpu::canonical`).

use crate::model::*;

/// The smallest and largest value of integer type `s`.
pub fn type_range(s: Scalar) -> Option<(i128, i128)> {
    Some(match s {
        Scalar::U8 => (0, u8::MAX.into()),
        Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
        Scalar::U16 => (0, u16::MAX.into()),
        Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
        Scalar::U32 => (0, u32::MAX.into()),
        Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
        Scalar::U64 | Scalar::Usize => (0, u64::MAX.into()),
        Scalar::I64 => (i64::MIN.into(), i64::MAX.into()),
        Scalar::F32 | Scalar::F64 | Scalar::Bool => return None,
    })
}

/// The most threads of a grid along an axis: CUDA's grid limit times its
/// block limit on that axis.
const GRID_THREADS: [i128; 3] = [(i32::MAX as i128) * 1024, 65535 * 1024, 65535 * 64];

/// `[lo, hi]` holding every value of `e`, or `None` if it is not an integer
/// expression this knows (only literals, extents, launch coordinates of
/// the block and grid, scalar parameters' types, `+`, `*` and casts that
/// cannot wrap).
pub fn range(k: &Kernel, e: &Expr) -> Option<(i128, i128)> {
    let Ty::Scalar(ty) = e.ty else {
        return None;
    };
    let (tlo, thi) = type_range(ty)?;
    let axis = |a: Axis| a as usize;
    let r = match &e.kind {
        ExprKind::Lit(Lit::Int(v)) => (*v, *v),
        // No allocation holds more than `isize::MAX` bytes.
        ExprKind::Len(_) | ExprKind::Dim(..) => (0, isize::MAX as i128),
        ExprKind::GridSize(a) => (1, GRID_THREADS[axis(*a)]),
        ExprKind::BuiltinAxis(Builtin::BlockDim, a) => (1, [1024, 1024, 64][axis(*a)]),
        ExprKind::BuiltinAxis(Builtin::GridDim, a) => (1, [i32::MAX as i128, 65535, 65535][axis(*a)]),
        ExprKind::Local(id) if is_scalar_param(k, *id) => (tlo, thi),
        ExprKind::Binary(BinOp::Add, a, b) => {
            let ((alo, ahi), (blo, bhi)) = (range(k, a)?, range(k, b)?);
            (alo + blo, ahi + bhi)
        }
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let ((alo, ahi), (blo, bhi)) = (range(k, a)?, range(k, b)?);
            // Non-negative factors only: the product's range is then the
            // product of the ranges (no sign cases).
            if alo < 0 || blo < 0 {
                return None;
            }
            (alo.checked_mul(blo)?, ahi.checked_mul(bhi)?)
        }
        ExprKind::Cast(inner, _) => range(k, inner)?,
        _ => return None,
    };
    // A range past the type's means the operation can wrap: unknown.
    (tlo <= r.0 && r.1 <= thi).then_some(r)
}

fn is_scalar_param(k: &Kernel, id: LocalId) -> bool {
    let l = &k.locals[id];
    !l.mutable
        && k.params
            .iter()
            .any(|p| p.name == l.name && matches!(p.kind, ParamKind::Scalar(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_limits_bound_grid_strides_and_wrapping_sums_are_unknown() {
        let src = "fn k(y: &mut [f32], n: u32) { let a = y.len() + gridsize(1); let b = block_dim().x * grid_dim().x; \
                   let c = (block_dim().x * grid_dim().x) as u32; let d = n + 1; let e = n / 2; let f = block_dim().z as u8 + 3; }";
        let f: syn::ItemFn = syn::parse_str(src).unwrap();
        let k = crate::lower::lower_kernel(&f, &mut Default::default()).unwrap();
        let inits: Vec<_> = k
            .body
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let { init: Some(e), .. } => Some(range(&k, e)),
                _ => None,
            })
            .collect();
        let grid_x = i32::MAX as i128 * 1024;
        assert_eq!(
            inits,
            [
                // An extent plus the grid: below `usize::MAX`.
                Some((1, isize::MAX as i128 + grid_x)),
                Some((1, grid_x)),
                // Past `u32::MAX`: the cast may wrap.
                None,
                // `u32::MAX + 1` wraps.
                None,
                // Division is not modelled.
                None,
                // At most 64 + 3 in `u8`.
                Some((4, 67)),
            ]
        );
    }
}
