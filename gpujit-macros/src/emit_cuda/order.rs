//! Operands the CUDA emitter evaluates ahead into named temporaries, in
//! Rust's order, where C's unspecified order could change the result (see
//! `analysis::effects`).

use std::collections::HashMap;

use crate::model::Expr;

/// Operands already evaluated into a named temporary, by address.
#[derive(Default)]
pub struct Sequencer {
    names: HashMap<*const Expr, String>,
    next: usize,
}

impl Sequencer {
    /// The temporary that holds `e`, if one does.
    pub fn name_of(&self, e: &Expr) -> Option<&String> {
        self.names.get(&(e as *const Expr))
    }

    /// Names a fresh temporary for `e`.
    pub fn bind(&mut self, e: &Expr) -> String {
        let name = format!("gj_ord{}", self.next);
        self.next += 1;
        self.names.insert(e as *const Expr, name.clone());
        name
    }

    pub fn unbind(&mut self, e: &Expr) {
        self.names.remove(&(e as *const Expr));
    }
}
