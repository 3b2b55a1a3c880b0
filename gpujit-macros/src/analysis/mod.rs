//! Facts about a kernel that the CPU backend's planners ask: how its locals
//! are bound, which arrays each thread owns, which values are uniform in a
//! block, and which operands C might evaluate in another order. They read
//! the model (and its construct properties, `model::props`) only.

mod bindings;
pub mod effects;
pub mod owned;
pub mod ranges;
mod uniform;

pub use bindings::Bindings;
pub use uniform::{coordinate_pure, Uniform};
