//! Type inference for the kernel language: unification over type variables,
//! with Rust's literal rules (an unconstrained integer literal is `i32`, an
//! unconstrained float literal is `f64`).

use crate::model::{Scalar, Ty};

/// What a type variable may become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// An unsuffixed integer literal.
    Int,
    /// An unsuffixed float literal.
    Float,
    /// A `const` from outside the kernel: any type.
    Any,
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// `Some(t)`: the variable met a value of type `t` that only rustc knows
    /// (an outside constant's, a device function's); if nothing else fixes
    /// it, it has that type instead of a default.
    Unbound(VarKind, Option<Ty>),
    Bound(Ty),
    Link(u32),
}

#[derive(Default)]
pub struct Infer {
    vars: Vec<State>,
}

fn describe(ty: Ty) -> String {
    match ty {
        Ty::Scalar(s) => format!("`{}`", s.rust_name()),
        Ty::Idx3 => "an index triple (`.x .y .z`)".into(),
        Ty::Opaque(_) => "an outside constant".into(),
        Ty::Callee(..) => "a device function's type".into(),
        Ty::Var(_) => "an inferred type".into(),
    }
}

fn kind_name(kind: VarKind) -> &'static str {
    match kind {
        VarKind::Int => "integer",
        VarKind::Float => "floating-point number",
        VarKind::Any => "value",
    }
}

fn fits(kind: VarKind, ty: Ty) -> bool {
    match (kind, ty) {
        (VarKind::Any, _) => true,
        (VarKind::Int, Ty::Scalar(s)) => s.is_int(),
        (VarKind::Float, Ty::Scalar(s)) => s.is_float(),
        _ => false,
    }
}

impl Infer {
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        self.vars.push(State::Unbound(kind, None));
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// The type of outside constant `index`: any type, which it passes on to
    /// every literal and binding it meets.
    pub fn fresh_const(&mut self, index: usize) -> Ty {
        self.fresh_opaque(Ty::Opaque(Some(index)))
    }

    /// A value of `opaque`, a type only rustc knows (`Ty::Opaque`,
    /// `Ty::Callee`): any type, which it passes on to every literal and
    /// binding it meets.
    pub fn fresh_opaque(&mut self, opaque: Ty) -> Ty {
        self.vars.push(State::Unbound(VarKind::Any, Some(opaque)));
        Ty::Var(self.vars.len() as u32 - 1)
    }

    /// Follows links; returns a concrete type or the root variable.
    pub fn shallow(&self, ty: Ty) -> Ty {
        let mut ty = ty;
        while let Ty::Var(v) = ty {
            match self.vars[v as usize] {
                State::Link(next) => ty = Ty::Var(next),
                State::Bound(t) => return t,
                State::Unbound(..) => return ty,
            }
        }
        ty
    }

    fn kind(&self, v: u32) -> VarKind {
        match self.vars[v as usize] {
            State::Unbound(k, _) => k,
            _ => VarKind::Any,
        }
    }

    fn origin(&self, v: u32) -> Option<Ty> {
        match self.vars[v as usize] {
            State::Unbound(_, origin) => origin,
            _ => None,
        }
    }

    /// Makes `a` and `b` the same type, or says why they cannot be.
    pub fn unify(&mut self, a: Ty, b: Ty) -> Result<(), String> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (a, b) {
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                let (kx, ky) = (self.kind(x), self.kind(y));
                let merged = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (k1, k2) if k1 == k2 => k1,
                    _ => return Err(format!("expected {}, found {}", kind_name(kx), kind_name(ky))),
                };
                let origin = self.origin(y).or(self.origin(x));
                self.vars[x as usize] = State::Link(y);
                self.vars[y as usize] = State::Unbound(merged, origin);
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let kind = self.kind(x);
                if fits(kind, t) {
                    self.vars[x as usize] = State::Bound(t);
                    Ok(())
                } else {
                    Err(format!("expected {}, found {}", describe(t), kind_name(kind)))
                }
            }
            (x, y) if x == y => Ok(()),
            (x, y) => Err(format!(
                "mismatched types: expected {}, found {}",
                describe(x),
                describe(y)
            )),
        }
    }

    /// The kind of literal an unbound variable holds (`None` for a bound
    /// or `Any` one).
    pub fn var_kind(&self, ty: Ty) -> Option<VarKind> {
        match self.shallow(ty) {
            Ty::Var(v) => match self.kind(v) {
                VarKind::Any => None,
                k => Some(k),
            },
            _ => None,
        }
    }

    /// Requires `ty` to be an integer or float (not yet known which is fine).
    pub fn require_kind(&mut self, ty: Ty, kind: VarKind) -> Result<(), String> {
        let probe = self.fresh(kind);
        self.unify(probe, ty)
    }

    /// The final type: unconstrained integer literals are `i32`, float
    /// literals `f64`, outside constants stay opaque.
    pub fn resolve(&self, ty: Ty) -> Ty {
        match self.shallow(ty) {
            Ty::Var(v) if self.origin(v).is_some() => self.origin(v).unwrap_or(Ty::Opaque(None)),
            Ty::Var(v) => match self.kind(v) {
                VarKind::Int => Ty::Scalar(Scalar::I32),
                VarKind::Float => Ty::Scalar(Scalar::F64),
                VarKind::Any => Ty::Opaque(None),
            },
            t => t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_defaults_and_context() {
        let mut inf = Infer::default();
        let a = inf.fresh(VarKind::Float);
        let b = inf.fresh(VarKind::Float);
        inf.unify(a, b).unwrap();
        assert_eq!(inf.resolve(a), Ty::Scalar(Scalar::F64));
        inf.unify(b, Ty::Scalar(Scalar::F32)).unwrap();
        assert_eq!(inf.resolve(a), Ty::Scalar(Scalar::F32));
        let i = inf.fresh(VarKind::Int);
        assert!(inf.unify(i, Ty::Scalar(Scalar::F32)).is_err());
        assert_eq!(inf.resolve(i), Ty::Scalar(Scalar::I32));
        let c = inf.fresh_const(3);
        assert_eq!(inf.resolve(c), Ty::Opaque(Some(3)));
        inf.unify(c, i).unwrap();
        // A literal that only meets an outside constant takes its (unknown) type.
        assert_eq!(inf.resolve(i), Ty::Opaque(Some(3)));
        assert!(inf.unify(c, Ty::Scalar(Scalar::F32)).is_err());
        inf.unify(c, Ty::Scalar(Scalar::Usize)).unwrap();
        assert_eq!(inf.resolve(i), Ty::Scalar(Scalar::Usize));
    }
}
