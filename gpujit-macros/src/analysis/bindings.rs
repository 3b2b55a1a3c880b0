//! The one answer to "this local is bound once, immutably, to what?", which
//! every planner of the CPU backend asks (own indices, thread indices,
//! uniform values, values a part computes again).

use crate::model::visit::each_stmt_in_block;
use crate::model::*;

/// One statement that gives a local a value.
#[derive(Debug, Clone, Copy)]
pub enum Binding<'k> {
    /// `let x = e;` (`None`: `let x;`, assigned later).
    Let(Option<&'k Expr>),
    /// A component of `let (a, b) = ..;` (`None` where no part matches it).
    TuplePart(Option<&'k Expr>),
    /// The variable of a `for` loop.
    Loop,
    /// `x = e;` or `x op= e;`.
    Assign,
}

/// Every binding of every local of a kernel, from one walk of its body.
pub struct Bindings<'k> {
    k: &'k Kernel,
    of: Vec<Vec<Binding<'k>>>,
}

impl<'k> Bindings<'k> {
    pub fn new(k: &'k Kernel) -> Self {
        let mut of: Vec<Vec<Binding<'k>>> = vec![Vec::new(); k.locals.len()];
        each_stmt_in_block(&k.body, &mut |s| match s {
            Stmt::Let { local, init } => of[*local].push(Binding::Let(init.as_ref())),
            Stmt::LetTuple { locals, parts } => {
                let matched = locals.len() == parts.len();
                for (i, l) in locals.iter().enumerate() {
                    if let Some(l) = l {
                        of[*l].push(Binding::TuplePart(parts.get(i).filter(|_| matched)));
                    }
                }
            }
            Stmt::For { var, .. } => of[*var].push(Binding::Loop),
            Stmt::Assign {
                place: Place::Local(l), ..
            } => of[*l].push(Binding::Assign),
            // No other statement binds a local; listed so that a new one
            // must say whether it does.
            Stmt::Assign {
                place: Place::Elem(..), ..
            }
            | Stmt::Shared(_)
            | Stmt::LocalArray { .. }
            | Stmt::Expr(_)
            | Stmt::If { .. }
            | Stmt::While { .. }
            | Stmt::Loop { .. }
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return
            | Stmt::ReturnValue(_)
            | Stmt::SyncThreads
            | Stmt::Fence(_)
            | Stmt::Block(_)
            | Stmt::Line(_) => {}
        });
        Bindings { k, of }
    }

    /// How many statements bind local `id`.
    pub fn count(&self, id: LocalId) -> usize {
        self.of.get(id).map_or(0, Vec::len)
    }

    /// The one binding of local `id`, if it is immutable and bound once.
    fn once(&self, id: LocalId) -> Option<Binding<'k>> {
        match self.of.get(id)?.as_slice() {
            [b] if !self.k.locals[id].mutable => Some(*b),
            _ => None,
        }
    }

    /// The value of local `id` for its whole life: immutable, bound once,
    /// by a `let` or a tuple `let`'s component.
    pub fn value(&self, id: LocalId) -> Option<&'k Expr> {
        match self.once(id)? {
            Binding::Let(e) | Binding::TuplePart(e) => e,
            Binding::Loop | Binding::Assign => None,
        }
    }

    /// As [`value`](Self::value), bound by a plain `let` only.
    pub fn let_value(&self, id: LocalId) -> Option<&'k Expr> {
        match self.once(id)? {
            Binding::Let(e) => e,
            Binding::TuplePart(_) | Binding::Loop | Binding::Assign => None,
        }
    }

    /// Whether local `id` is an immutable loop variable bound by nothing
    /// but its one `for`.
    pub fn is_loop_var(&self, id: LocalId) -> bool {
        matches!(self.once(id), Some(Binding::Loop))
    }

    /// Every value local `id` is bound to, if it is immutable and bound
    /// only by `let`s or tuple components with values.
    pub fn values(&self, id: LocalId) -> Option<Vec<&'k Expr>> {
        if self.k.locals[id].mutable || self.of[id].is_empty() {
            return None;
        }
        self.of[id]
            .iter()
            .map(|b| match b {
                Binding::Let(e) | Binding::TuplePart(e) => *e,
                Binding::Loop | Binding::Assign => None,
            })
            .collect()
    }
}
