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
//! Kernels call device functions, marked [`#[gpu_device]`](crate::gpu_device)
//! (Numba's `@cuda.jit(device=True)`): scalars, arrays and tuples in,
//! nothing, a scalar or a tuple out, recursion allowed.
//!
//! Shared array sizes must be compile-time constants: literals, `const`s, or
//! arithmetic on them. The functions here exist so that the macro can let rustc
//! type-check your kernel body; calling them from host code is a mistake.
//!
//! ```
//! use gpujit::prelude::*;
//!
//! /// Sums each block of 64 `f32`s into `sums[block]` (a shared-memory tree).
//! #[gpu_kernel]
//! fn block_sums(x: &[f32], sums: &mut [f32]) {
//!     let s = shared_array::<[f32; 64]>();
//!     let t = thread_idx().x;
//!     let i = grid(1);
//!     s[t] = if i < x.len() { x[i] } else { 0.0 };
//!     syncthreads();
//!     let mut half = 32;
//!     while half > 0 {
//!         if t < half {
//!             s[t] += s[t + half];
//!         }
//!         syncthreads();
//!         half /= 2;
//!     }
//!     if t == 0 {
//!         sums[block_idx().x] = s[0];
//!     }
//! }
//!
//! # fn main() -> gpujit::Result<()> {
//! let x = gpujit::to_device(&vec![1.0f32; 200])?;
//! let mut sums = gpujit::zeros::<f32>(4)?;
//! block_sums![4, 64](&x, &mut sums)?;
//! assert_eq!(sums.copy_to_host()?, [64.0, 64.0, 64.0, 8.0]);
//! # Ok(())
//! # }
//! ```

/// Read-only 2-D kernel parameter of element type `T` (a [`DeviceScalar`](crate::DeviceScalar)),
/// C order (row-major): `a[[row, col]]`, `a.dim()` is `(rows, cols)` in
/// elements. Named after `ndarray::ArrayView2`; in CUDA C it is a
/// `const T* __restrict__` plus the two extents. Launch with a 2-D
/// `&DeviceArray<T>`; an array of another rank is
/// [`Error::ArgumentMismatch`](crate::Error::ArgumentMismatch).
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn row_sums(m: ArrayView2<f32>, out: &mut [f32]) {
///     let r = grid(1);
///     let (rows, cols) = m.dim();
///     if r < rows {
///         let mut s = 0.0;
///         for c in 0..cols {
///             s += m[[r, c]];
///         }
///         out[r] = s;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let m = gpujit::to_device(&gpujit::ndarray::array![[1.0f32, 2.0], [3.0, 4.0]])?;
/// let mut out = gpujit::zeros::<f32>(2)?;
/// row_sums![1, 32](&m, &mut out)?;
/// assert_eq!(out.copy_to_host()?, [3.0, 7.0]);
/// # Ok(())
/// # }
/// ```
pub type ArrayView2<'a, T> = typecheck::ArrayView<'a, T, 2>;
/// Read-only 1-D kernel parameter of element type `T`: `a[i]`, `a.dim()`
/// and `a.len()` in elements. Named after `ndarray::ArrayView1`;
/// the same as `&[T]` (CUDA C: `const T* __restrict__` plus the length).
/// Launch with a 1-D `&DeviceArray<T>`.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn double(x: ArrayView1<i64>, y: &mut [i64]) {
///     let i = grid(1);
///     if i < x.dim() {
///         y[i] = 2 * x[i];
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let x = gpujit::to_device(&[1i64, 2, 3])?;
/// let mut y = gpujit::zeros::<i64>(3)?;
/// double![1, 32](&x, &mut y)?;
/// assert_eq!(y.copy_to_host()?, [2, 4, 6]);
/// # Ok(())
/// # }
/// ```
pub type ArrayView1<'a, T> = typecheck::ArrayView<'a, T, 1>;
/// Read-only 3-D kernel parameter of element type `T`, C order:
/// `a[[i, j, k]]`, `a.dim()` is `(d0, d1, d2)` in elements (an RGB image is
/// `(height, width, 3)`). Named after `ndarray::ArrayView3`; CUDA C: a
/// `const T* __restrict__` plus three extents. Launch with a 3-D
/// `&DeviceArray<T>`.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn red(rgb: ArrayView3<u8>, out: ArrayViewMut2<u8>) {
///     let (x, y) = grid(2);
///     let (h, w, _) = rgb.dim();
///     if y < h && x < w {
///         out[[y, x]] = rgb[[y, x, 0]];
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let rgb = gpujit::to_device(&gpujit::ndarray::Array3::<u8>::from_elem((2, 3, 3), 7))?;
/// let mut out = gpujit::zeros::<u8>((2, 3))?;
/// red![1, (3, 2)](&rgb, &mut out)?;
/// assert_eq!(out.copy_to_host()?, [7; 6]);
/// # Ok(())
/// # }
/// ```
pub type ArrayView3<'a, T> = typecheck::ArrayView<'a, T, 3>;
/// Written 1-D kernel parameter of element type `T`: `a[i] = v`, `a.dim()`
/// and `a.len()` in elements. Named after `ndarray::ArrayViewMut1`; the
/// same as `&mut [T]` (CUDA C: `T* __restrict__` plus the length). Launch
/// with a 1-D `&mut DeviceArray<T>`.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn iota(out: ArrayViewMut1<u32>) {
///     let i = grid(1);
///     if i < out.len() {
///         out[i] = i as u32;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let mut out = gpujit::zeros::<u32>(5)?;
/// iota![1, 32](&mut out)?;
/// assert_eq!(out.copy_to_host()?, [0, 1, 2, 3, 4]);
/// # Ok(())
/// # }
/// ```
pub type ArrayViewMut1<'a, T> = typecheck::ArrayViewMut<'a, T, 1>;
/// Written 2-D kernel parameter of element type `T`, C order:
/// `a[[row, col]] = v`, `a.dim()` is `(rows, cols)` in elements. Named after
/// `ndarray::ArrayViewMut2`; CUDA C: `T* __restrict__` plus two extents.
/// Launch with a 2-D `&mut DeviceArray<T>`; read it back with
/// [`DeviceArray::copy_to_ndarray`](crate::DeviceArray::copy_to_ndarray).
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn transpose(a: ArrayView2<f64>, t: ArrayViewMut2<f64>) {
///     let (x, y) = grid(2);
///     let (rows, cols) = t.dim();
///     if y < rows && x < cols {
///         t[[y, x]] = a[[x, y]];
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let a = gpujit::to_device(&gpujit::ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])?;
/// let mut t = gpujit::zeros::<f64>((3, 2))?;
/// transpose![1, (2, 3)](&a, &mut t)?;
/// let t: gpujit::ndarray::Array2<f64> = t.copy_to_ndarray()?;
/// assert_eq!(t, gpujit::ndarray::array![[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]);
/// # Ok(())
/// # }
/// ```
pub type ArrayViewMut2<'a, T> = typecheck::ArrayViewMut<'a, T, 2>;
/// Written 3-D kernel parameter of element type `T`, C order:
/// `a[[i, j, k]] = v`, `a.dim()` is `(d0, d1, d2)` in elements. Named after
/// `ndarray::ArrayViewMut3`; CUDA C: `T* __restrict__` plus three extents.
/// Launch with a 3-D `&mut DeviceArray<T>`.
///
/// ```
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn coords(out: ArrayViewMut3<u32>) {
///     let (x, y, z) = grid(3);
///     let (d0, d1, d2) = out.dim();
///     if z < d0 && y < d1 && x < d2 {
///         out[[z, y, x]] = (100 * z + 10 * y + x) as u32;
///     }
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let mut out = gpujit::zeros::<u32>((2, 2, 2))?;
/// coords![1, (2, 2, 2)](&mut out)?;
/// assert_eq!(out.copy_to_host()?, [0, 1, 10, 11, 100, 101, 110, 111]);
/// # Ok(())
/// # }
/// ```
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
    /// `blockIdx` (Numba's `cuda.blockIdx`): the block's index in the grid,
    /// in blocks, with `usize` fields `.x .y .z`.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn which_block(out: &mut [u32]) {
    ///     let i = grid(1);
    ///     if i < out.len() {
    ///         out[i] = block_idx().x as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(6)?;
    /// which_block![3, 2](&mut out)?;
    /// assert_eq!(out.copy_to_host()?, [0, 0, 1, 1, 2, 2]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_idx() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `blockDim` (Numba's `cuda.blockDim`): the launch's block size, in
    /// threads per axis, with `usize` fields `.x .y .z`.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn block_size(out: &mut [u32]) {
    ///     if grid(1) == 0 {
    ///         out[0] = (block_dim().x * block_dim().y) as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(1)?;
    /// block_size![1, (8, 4)](&mut out)?;
    /// assert_eq!(out.copy_to_host()?, [32]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_dim() -> Idx3 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `gridDim` (Numba's `cuda.gridDim`): the launch's grid size, in blocks
    /// per axis, with `usize` fields `.x .y .z`.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn grid_size(out: &mut [u32]) {
    ///     if grid(1) == 0 {
    ///         out[0] = (grid_dim().x * grid_dim().y) as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(1)?;
    /// grid_size![(3, 5), 1](&mut out)?;
    /// assert_eq!(out.copy_to_host()?, [15]);
    /// # Ok(())
    /// # }
    /// ```
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
    /// thread of the block has reached it, and makes their earlier writes to
    /// shared and global memory visible to the block. Every thread of the
    /// block must reach the same call (not only those in one branch), as in
    /// CUDA. On the CPU backend a kernel that calls it runs its threads as
    /// coroutines that meet here.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Rotates each block of 4 elements left by one.
    /// #[gpu_kernel]
    /// fn rotate(a: &mut [i32]) {
    ///     let s = shared_array::<[i32; 4]>();
    ///     let t = thread_idx().x;
    ///     let i = grid(1);
    ///     s[t] = a[i];
    ///     syncthreads(); // every write to `s` is done before any read
    ///     a[i] = s[(t + 1) % 4];
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut a = gpujit::to_device(&[1, 2, 3, 4, 5, 6, 7, 8])?;
    /// rotate![2, 4](&mut a)?;
    /// assert_eq!(a.copy_to_host()?, [2, 3, 4, 1, 6, 7, 8, 5]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn syncthreads() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
}
