//! The kernel model: one typed description of a kernel that both emitters
//! (CUDA C and CPU Rust) read. Built by `lower`, never by the emitters.

mod decls;
mod intrinsics;
mod ops;
mod props;
mod tree;
mod types;
pub mod visit;
mod warp;

pub use decls::*;
pub use intrinsics::*;
pub use ops::*;
pub use props::*;
pub use tree::*;
pub use types::*;
pub use warp::*;
