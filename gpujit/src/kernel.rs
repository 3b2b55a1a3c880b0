//! The kernel language: what may appear in a `#[gpu_kernel]` function.
//!
//! A kernel is a plain `fn` that returns nothing. Its parameters are
//! - scalars by value: `i32 i64 u32 u64 usize f32 f64 bool` (and `u8`);
//! - 1-D arrays as `&[T]` (read) or `&mut [T]` (written), with `len()`;
//! - 1-3-D arrays as [`ArrayView1`]/[`ArrayView2`]/[`ArrayView3`] (read) or
//!   [`ArrayViewMut1`]/[`ArrayViewMut2`]/[`ArrayViewMut3`] (written), named after
//!   ndarray's views, indexed `a[[i, j]]`, with `shape()`, `dim()` and `len()`.
//!
//! Intrinsics (named after Numba's `numba.cuda`):
//!
//! | kernel code | CUDA C | type |
//! |---|---|---|
//! | `grid(1)` | `blockIdx.x * blockDim.x + threadIdx.x` (64-bit) | `usize` |
//! | `grid(2)`, `grid(3)` | same per axis | `(usize, usize)`, `(usize, usize, usize)` |
//! | `gridsize(1..=3)` | `gridDim * blockDim` per axis | as `grid` |
//! | `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` | `threadIdx` ... with `.x .y .z` | `usize` components |
//! | `shared_array::<[[f32; 16]; 16]>()` | `__shared__ float s[16][16];` | indexed `s[i][j]` |
//! | `syncthreads()` | `__syncthreads()` | |
//!
//! Shared array sizes must be compile-time constants: literals, `const`s, or
//! arithmetic on them. The functions here exist so that the macro can let rustc
//! type-check your kernel body; calling them from host code is a mistake.

/// Read-only 2-D kernel parameter (element type `T`, C order), mirrors `ndarray::ArrayView2`.
pub type ArrayView2<'a, T> = typecheck::ArrayView<'a, T, 2>;
/// Read-only 1-D kernel parameter, mirrors `ndarray::ArrayView1`.
pub type ArrayView1<'a, T> = typecheck::ArrayView<'a, T, 1>;
/// Read-only 3-D kernel parameter, mirrors `ndarray::ArrayView3`.
pub type ArrayView3<'a, T> = typecheck::ArrayView<'a, T, 3>;
/// Written 1-D kernel parameter, mirrors `ndarray::ArrayViewMut1`.
pub type ArrayViewMut1<'a, T> = typecheck::ArrayViewMut<'a, T, 1>;
/// Written 2-D kernel parameter, mirrors `ndarray::ArrayViewMut2`.
pub type ArrayViewMut2<'a, T> = typecheck::ArrayViewMut<'a, T, 2>;
/// Written 3-D kernel parameter, mirrors `ndarray::ArrayViewMut3`.
pub type ArrayViewMut3<'a, T> = typecheck::ArrayViewMut<'a, T, 3>;

pub use typecheck::{block_dim, block_idx, grid, grid_dim, gridsize, shared_array, syncthreads, thread_idx};

/// Signatures rustc checks the kernel body against (the macro emits a copy of
/// the kernel, never called, that uses these). None of them runs.
#[doc(hidden)]
pub mod typecheck {
    pub use super::{ArrayView1, ArrayView2, ArrayView3, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3};
    use crate::cpu::Idx3;
    use std::marker::PhantomData;

    const ONLY_IN_KERNELS: &str = "gpujit kernel intrinsics run only inside #[gpu_kernel] functions";

    /// See [`crate::kernel::ArrayView2`].
    pub struct ArrayView<'a, T, const N: usize>(PhantomData<&'a [T]>);
    /// See [`crate::kernel::ArrayViewMut2`].
    pub struct ArrayViewMut<'a, T, const N: usize>(PhantomData<&'a mut [T]>);

    macro_rules! view_api {
        ($view:ident) => {
            #[allow(clippy::len_without_is_empty)] // only for type-checking kernels; not callable
            impl<T, const N: usize> $view<'_, T, N> {
                /// Total number of elements.
                pub fn len(&self) -> usize {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
                /// Shape in elements, outermost first.
                pub fn shape(&self) -> &[usize] {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
            impl<T> $view<'_, T, 1> {
                pub fn dim(&self) -> usize {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
            impl<T> $view<'_, T, 2> {
                pub fn dim(&self) -> (usize, usize) {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
            impl<T> $view<'_, T, 3> {
                pub fn dim(&self) -> (usize, usize, usize) {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
            impl<T, const N: usize> std::ops::Index<[usize; N]> for $view<'_, T, N> {
                type Output = T;
                fn index(&self, _: [usize; N]) -> &T {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
            impl<T> std::ops::Index<usize> for $view<'_, T, 1> {
                type Output = T;
                fn index(&self, _: usize) -> &T {
                    unreachable!("{}", ONLY_IN_KERNELS)
                }
            }
        };
    }
    view_api!(ArrayView);
    view_api!(ArrayViewMut);

    // `a[i][j]` on a 2-D view is rejected by gpujit (write `a[[i, j]]`); these
    // let rustc accept it so that only gpujit's error is shown.
    impl<T> std::ops::Index<usize> for ArrayView<'_, T, 2> {
        type Output = [T];
        fn index(&self, _: usize) -> &[T] {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }
    impl<T> std::ops::Index<usize> for ArrayViewMut<'_, T, 2> {
        type Output = [T];
        fn index(&self, _: usize) -> &[T] {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }
    impl<T> std::ops::IndexMut<usize> for ArrayViewMut<'_, T, 2> {
        fn index_mut(&mut self, _: usize) -> &mut [T] {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }

    impl<T, const N: usize> std::ops::IndexMut<[usize; N]> for ArrayViewMut<'_, T, N> {
        fn index_mut(&mut self, _: [usize; N]) -> &mut T {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }
    impl<T> std::ops::IndexMut<usize> for ArrayViewMut<'_, T, 1> {
        fn index_mut(&mut self, _: usize) -> &mut T {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }

    /// Global index of the thread: `grid(1)`. The macro rewrites `grid(N)` to `gridN()`.
    pub fn grid(_ndim: usize) -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn grid1() -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn grid2() -> (usize, usize) {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn grid3() -> (usize, usize, usize) {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// Total threads in the grid: `gridsize(1)`.
    pub fn gridsize(_ndim: usize) -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn gridsize1() -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn gridsize2() -> (usize, usize) {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    pub fn gridsize3() -> (usize, usize, usize) {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `threadIdx`.
    pub fn thread_idx() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `blockIdx`.
    pub fn block_idx() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `blockDim`.
    pub fn block_dim() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `gridDim`.
    pub fn grid_dim() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// A `__shared__` array of type `A` (`[T; N]`, `[[T; N]; M]` or `[[[T; N]; M]; L]`).
    pub fn shared_array<A>() -> &'static mut A {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `__syncthreads()`.
    pub fn syncthreads() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
}
