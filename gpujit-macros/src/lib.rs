//! `#[gpu_kernel]`: translates a restricted Rust function into CUDA C and a
//! native Rust version for gpujit's CPU backend.
//!
//! The pipeline is parse (syn) → check and lower (`lower`) → one typed kernel
//! model (`model`) → emitters (`emit_cuda`, `emit_cpu`) → the generated
//! items (`expand`). Every rejection is a `syn::Error` at the offending span;
//! the user's function is still emitted (as a type-checked, never-called copy)
//! so rust-analyzer and rustc keep working on it.
//!
//! Use it through the `gpujit` crate, which re-exports it and documents the
//! kernel language (`gpujit::reference`).
//!
//! ## Layers
//!
//! A module imports (`crate::`, `super::`) only modules of lower layers, and
//! no two files import each other (`gpujit-macros/tests/layers.rs` checks
//! both). Construct properties live with the model (`model::props`), so a
//! planner asks the construct instead of listing kinds of its own.
//!
//! | layer | modules | what |
//! |---|---|---|
//! | 0 | `stack`, `reserved` | the macro's own stack; the C and C++ reserved words |
//! | 1 | `model`, `names`, `foreign_names` | the typed kernel, its walks (`model::visit`) and its constructs' properties (`model::props`); names free in Rust and C; the CUDA and Numba names gpujit lacks |
//! | 2 | `syntax`, `link`, `analysis`, `infer`, `cuda_math` | helpers on the user's syntax; the holes linking a kernel with its device functions; facts about a kernel the CPU planners ask; type inference; CUDA's math functions |
//! | 3 | `spelling`, `emit_cpu`, `emit_cuda` | hints for what a user wrote in another language's spelling; the per-thread Rust; the CUDA C |
//! | 4 | `lower`, `typecheck`, `cpu` | syntax to model; rustc's type-checked copy; the CPU block function, its strategy chosen in `cpu::plan` only |
//! | 5 | `expand` | the generated items of `#[gpu_kernel]` and `#[gpu_device]` |

use proc_macro::TokenStream;

mod cpu;
mod cuda_math;

mod analysis;
mod emit_cpu;
mod emit_cuda;
mod expand;
mod foreign_names;
mod infer;
mod link;
mod lower;
mod model;
mod names;

mod reserved;
mod spelling;
mod stack;
mod syntax;
mod typecheck;

/// Marks a function as a device function, as Numba's `@cuda.jit(device=True)`
/// does: kernels and other device functions call it.
///
/// Generates, next to the function (which stays callable from host code),
/// a module of the same name with its CPU version and CUDA C. See the
/// `gpujit` crate.
#[proc_macro_attribute]
pub fn gpu_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    stacker::grow(64 << 20, || expand::gpu_device_impl(attr, item))
}

/// Marks a function as a GPU kernel, as Numba's `@cuda.jit` does.
///
/// Generates, next to the function's name:
/// - a launch macro `name![grid, block](args...)` returning `Result<(), gpujit::Error>`;
/// - a module `name` with `launch(grid, block, args...)`, `cuda_source()` and `KERNEL`.
///
/// See the `gpujit` crate for the kernel language.
#[proc_macro_attribute]
pub fn gpu_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    // Parsing, lowering, emitting and dropping syntax trees all recurse as
    // deep as the kernel nests: run on a stack of our own, grown on demand
    // (`deep`), so that any kernel rustc accepts translates.
    stacker::grow(64 << 20, || expand::gpu_kernel_impl(attr, item))
}
