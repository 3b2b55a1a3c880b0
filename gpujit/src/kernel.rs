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

    /// The thread's global index, Numba's `cuda.grid(ndim)`; `ndim` must be the
    /// literal `1`, `2` or `3`, and the type depends on it:
    ///
    /// | call | value | type |
    /// |---|---|---|
    /// | `grid(1)` | `blockIdx.x * blockDim.x + threadIdx.x` | `usize` |
    /// | `grid(2)` | `(x, y)`, each computed as above | `(usize, usize)` |
    /// | `grid(3)` | `(x, y, z)` | `(usize, usize, usize)` |
    ///
    /// (The signature shown is for `grid(1)`: the macro rewrites `grid(N)` to
    /// a function of the right type. Only kernels may call it.)
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn index_2d(out: ArrayViewMut2<u32>) {
    ///     let (x, y) = grid(2); // x along columns (fastest), y along rows
    ///     let (rows, cols) = out.dim();
    ///     if y < rows && x < cols {
    ///         out[[y, x]] = (y * 100 + x) as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>((3, 4))?;
    /// index_2d![(1, 1), (4, 3)](&mut out)?;
    /// assert_eq!(out.copy_to_host()?[1 * 4 + 2], 102);
    /// # Ok(())
    /// # }
    /// ```
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
    /// Threads in the grid, Numba's `cuda.gridsize(ndim)`; `ndim` must be the
    /// literal `1`, `2` or `3`: `gridsize(1)` is `gridDim.x * blockDim.x`
    /// (`usize`), `gridsize(2)` the `(x, y)` pair (`(usize, usize)`),
    /// `gridsize(3)` the `(x, y, z)` triple. The step of a grid-stride loop.
    /// (The signature shown is for `gridsize(1)`.)
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn fill(out: &mut [f32], v: f32) {
    ///     let mut i = grid(1);
    ///     while i < out.len() {
    ///         out[i] = v;
    ///         i += gridsize(1);
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<f32>(1000)?;
    /// fill![2, 64](&mut out, 1.5)?; // 128 threads cover 1000 elements
    /// assert!(out.copy_to_host()?.iter().all(|&x| x == 1.5));
    /// # Ok(())
    /// # }
    /// ```
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

    /// `threadIdx`: the thread's index in its block, with `usize` fields
    /// `.x .y .z` (Numba's `cuda.threadIdx`). `block_idx()`, `block_dim()`
    /// and `grid_dim()` are alike.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn ids(out: &mut [u32]) {
    ///     let i = block_idx().x * block_dim().x + thread_idx().x;
    ///     if i < out.len() {
    ///         out[i] = (grid_dim().x * 1000 + thread_idx().x) as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(8)?;
    /// ids![2, 4](&mut out)?;
    /// assert_eq!(out.copy_to_host()?, [2000, 2001, 2002, 2003, 2000, 2001, 2002, 2003]);
    /// # Ok(())
    /// # }
    /// ```
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
    /// A `__shared__` array of type `A` (`[T; N]`, `[[T; N]; M]` or
    /// `[[[T; N]; M]; L]`, sizes compile-time constants), shared by the
    /// threads of a block and zeroed at the block's start (Numba's
    /// `cuda.shared.array`). Use [`syncthreads`] between writes and reads of
    /// other threads.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Reverses each block of 32 elements.
    /// #[gpu_kernel]
    /// fn reverse_blocks(a: &mut [f32]) {
    ///     let tile = shared_array::<[f32; 32]>();
    ///     let t = thread_idx().x;
    ///     let i = grid(1);
    ///     tile[t] = a[i];
    ///     syncthreads();
    ///     a[i] = tile[31 - t];
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut a = gpujit::to_device(&(0..64).map(|i| i as f32).collect::<Vec<_>>())?;
    /// reverse_blocks![2, 32](&mut a)?;
    /// let host = a.copy_to_host()?;
    /// assert_eq!((host[0], host[31], host[32]), (31.0, 0.0, 63.0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn shared_array<A>() -> &'static mut A {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `__syncthreads()` (Numba's `cuda.syncthreads()`): waits until every
    /// thread of the block has reached it. See [`shared_array`] for an example.
    pub fn syncthreads() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
}
