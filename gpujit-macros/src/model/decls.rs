//! What a kernel declares: locals, parameters, shared and local arrays,
//! constants.

use proc_macro2::{Span, TokenStream};

use super::*;

/// Index into `Kernel::locals`.
pub type LocalId = usize;

#[derive(Debug, Clone)]
pub struct Local {
    /// Unique name used by both emitters (shadowed Rust bindings get suffixes).
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
}

/// A kernel parameter.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages and docs.
    pub label: String,
    pub kind: ParamKind,
    /// For arrays: the names of the extents CUDA C passes after the pointer
    /// (`x_len` for 1-D, `a_d0`, `a_d1`, ... otherwise).
    pub dims: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Scalar(Scalar),
    /// `&[T]`/`&mut [T]` (ndim 1, `slice`) or `ArrayView{N}`/`ArrayViewMut{N}`.
    Array {
        elem: Scalar,
        ndim: usize,
        mutable: bool,
        slice: bool,
    },
}

/// A `__shared__` array declared with `shared_array::<[[T; N]; M]>()`.
#[derive(Debug, Clone)]
pub struct SharedArray {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages.
    pub label: String,
    pub elem: Scalar,
    /// Outermost first, as C and Rust write them.
    pub dims: Vec<ConstExpr>,
    /// The array type as the user wrote it (for `size_of` in the CPU layout).
    pub rust_type: TokenStream,
}

/// A per-thread array declared with `let a = [v; N];` or `let a = [x, y];`
/// (Numba's `cuda.local.array`): a C array in local memory, a Rust array on
/// the CPU backend.
#[derive(Debug, Clone)]
pub struct LocalArray {
    pub name: String,
    /// The name as the user wrote it (without `r#`), for messages.
    pub label: String,
    /// The element type (settled by inference; `resolve` checks it is a scalar).
    pub elem: Ty,
    /// Outermost first, as C and Rust write them.
    pub dims: Vec<ConstExpr>,
    pub mutable: bool,
    /// The declaration, for errors found after inference.
    pub span: Span,
}

/// How a local array starts.
#[derive(Debug, Clone)]
pub enum ArrayInit {
    /// `[v; N]` (nested for more dimensions): every element is `v`,
    /// evaluated once.
    Repeat(Expr),
    /// `[a, b, c]` (nested lists for more dimensions): the elements in C
    /// order, evaluated in that order.
    List(Vec<Expr>),
}

/// A compile-time constant expression (shared array sizes).
#[derive(Debug, Clone)]
pub struct ConstExpr {
    pub rust: TokenStream,
    pub c: String,
}

/// A `const` used by the kernel but defined outside it; its value and type are
/// read by the generated `cuda_source()` at run time.
#[derive(Debug, Clone)]
pub struct ExternConst {
    pub c_name: String,
    /// The CUDA C `typedef` of the constant's type (declared with it).
    pub type_name: String,
    pub rust_path: TokenStream,
    /// A user item (not `f32::MAX` & co.): the generated code checks that it
    /// is a `const`, not a `static` whose value could change after the CUDA C
    /// was built.
    pub user_item: bool,
    /// 0 for a scalar; else an array indexed with this many indices
    /// (`FILTER[i]`), placed in CUDA `__constant__` memory, and `type_name`
    /// names its element type.
    pub ndim: usize,
}

/// A `const` item inside the kernel body.
#[derive(Debug, Clone)]
pub struct BodyConst {
    pub name: String,
    pub ty: Scalar,
    pub value: Expr,
    pub rust_value: TokenStream,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayRef {
    Param(usize),
    Shared(usize),
    /// `Kernel::local_arrays[i]`.
    Local(usize),
    /// The outside `const` array `Kernel::extern_consts[i]` (read-only).
    Const(usize),
}
