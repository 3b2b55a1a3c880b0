//! The kernel parameter types and the intrinsics that `#[gpu_kernel]` and
//! `#[gpu_device]` functions call: [`grid`], [`gridsize`], [`thread_idx`],
//! [`block_idx`], [`block_dim`], [`grid_dim`], [`shared_array`],
//! [`syncthreads`], the votes ([`syncthreads_count`], [`syncthreads_and`],
//! [`syncthreads_or`]), the fences ([`threadfence`], [`threadfence_block`],
//! [`threadfence_system`]) and the atomics ([`atomic_add`] and ten more).
//!
//! The language itself is described in one place, the language reference
//! [`crate::reference`]: every construct, intrinsic, atomic and math function
//! with the CUDA C it becomes and its Numba counterpart, and the semantic
//! choices (index width, integer overflow, casts, division by zero, float
//! literal typing, NaN in `min`/`max`, rounding, FMA contraction).
//!
//! The functions here exist so that rustc can type-check a kernel body: the
//! macro translates each call, and calling one from host code panics. Each
//! has its own page with an example; the parameter types ([`ArrayView2`],
//! [`ArrayViewMut2`], ...) are named after ndarray's views.
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

pub use typecheck::{
    activemask, all_sync, any_sync, ballot_sync, eq_sync, lanemask_lt, match_any_sync, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, syncwarp,
};
pub use typecheck::{
    atomic_add, atomic_and, atomic_cas, atomic_dec, atomic_exch, atomic_inc, atomic_max, atomic_min, atomic_nanmax,
    atomic_nanmin, atomic_or, atomic_sub, atomic_xor, threadfence, threadfence_block, threadfence_system,
};
pub use typecheck::{
    block_dim, block_idx, grid, grid_dim, gridsize, lane_id, shared_array, syncthreads, syncthreads_and,
    syncthreads_count, syncthreads_or, thread_idx, warp_size,
};
pub use typecheck::{
    block_reduce_max, block_reduce_min, block_reduce_sum, block_scan_exclusive_sum, block_scan_inclusive_sum,
    warp_reduce_max, warp_reduce_min, warp_reduce_sum, warp_scan_exclusive_sum, warp_scan_inclusive_sum,
};

/// Signatures rustc checks the kernel body against (the macro emits a copy of
/// the kernel, never called, that uses these). None of them runs.
#[doc(hidden)]
pub mod typecheck {
    pub use super::{ArrayView1, ArrayView2, ArrayView3, ArrayViewMut1, ArrayViewMut2, ArrayViewMut3};
    use crate::cpu::Idx3;
    pub use crate::typecheck_methods::{
        FloatMethodsOnIntegers, IntMethodsOnFloats, SignedMethodsOnUnsigned, UnsignedMethodsOnSigned,
    };
    use std::marker::PhantomData;

    const ONLY_IN_KERNELS: &str = "gpujit kernel intrinsics run only inside #[gpu_kernel] functions";

    /// What rustc's copy of a kernel sees for CUDA's and Numba's
    /// `this_grid()`, which gpujit reports as not supported yet: a value with
    /// the `.sync()` a use of it calls, so that rustc adds no error.
    #[doc(hidden)]
    pub struct GridGroup;
    impl GridGroup {
        #[doc(hidden)]
        pub fn sync(&self) {
            unreachable!("{}", ONLY_IN_KERNELS)
        }
    }

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

    /// The thread's lane in its warp, 0 to 31 (Numba's `cuda.laneid`, PTX's
    /// `%laneid`): the thread's linear index in its block (`x` fastest, then
    /// `y`, then `z`) modulo [`warp_size`], as CUDA forms warps. A block whose
    /// size is not a multiple of 32 ends in a partial warp.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn lanes(out: &mut [u32]) {
    ///     let i = grid(1);
    ///     if i < out.len() {
    ///         out[i] = lane_id() as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(80)?;
    /// lanes![2, 40](&mut out)?; // warps of 32 and 8 threads in each block
    /// let lanes = out.copy_to_host()?;
    /// assert_eq!(lanes[31..34], [31, 0, 1]);
    /// assert_eq!(lanes[40..42], [0, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn lane_id() -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The number of threads in a warp: 32 on every NVIDIA GPU so far
    /// (Numba's `cuda.warpsize`, CUDA C's `warpSize`).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warps(out: &mut [u32]) {
    ///     if grid(1) == 0 {
    ///         out[0] = (block_dim().x.div_ceil(warp_size())) as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(1)?;
    /// warps![1, 100](&mut out)?;
    /// assert_eq!(out.copy_to_host()?, [4]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_size() -> usize {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__shfl_sync(mask, value, src_lane)` (Numba's `cuda.shfl_sync`): the
    /// `value` of lane `src_lane % 32` of this warp (PTX takes the low 5
    /// bits of every lane argument: `delta`, `lane_mask` too). `value` is any
    /// [`WarpValue`](crate::WarpValue) (`i32`, `u32`, `f32`, `i64`, `u64`,
    /// `usize`, `f64`). Every lane named in `mask` (a bit per lane) that has
    /// not exited must make the same call with the same mask, and the source
    /// lane must take part: on a GPU anything else is undefined, and on the
    /// CPU backend a `KernelFault` naming the warp and lanes. See the
    /// reference's "Warps".
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Every lane gets lane 3's value.
    /// #[gpu_kernel]
    /// fn broadcast(x: &[f32], out: &mut [f32]) {
    ///     let i = grid(1);
    ///     out[i] = shfl_sync(0xffff_ffff, x[i], 3);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    /// let mut out = gpujit::zeros::<f32>(64)?;
    /// broadcast![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[31], out[32], out[63]), (3.0, 3.0, 35.0, 35.0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn shfl_sync<T: crate::WarpValue>(mask: u32, value: T, src_lane: u32) -> T {
        let _ = (mask, src_lane);
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__shfl_up_sync(mask, value, delta)` (Numba's `cuda.shfl_up_sync`):
    /// the `value` of lane `lane_id() - delta`; lanes below `delta` get their
    /// own. The rules of [`shfl_sync`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// An inclusive prefix sum over each warp (Hillis-Steele).
    /// #[gpu_kernel]
    /// fn warp_scan(x: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     let mut v = x[i];
    ///     let mut d = 1;
    ///     while d < 32 {
    ///         let up = shfl_up_sync(0xffff_ffff, v, d);
    ///         if lane_id() as u32 >= d {
    ///             v += up;
    ///         }
    ///         d *= 2;
    ///     }
    ///     out[i] = v;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// warp_scan![1, 64](&gpujit::to_device(&[1u32; 64])?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[31], out[32], out[63]), (1, 32, 1, 32));
    /// # Ok(())
    /// # }
    /// ```
    pub fn shfl_up_sync<T: crate::WarpValue>(mask: u32, value: T, delta: u32) -> T {
        let _ = (mask, delta);
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__shfl_down_sync(mask, value, delta)` (Numba's
    /// `cuda.shfl_down_sync`): the `value` of lane `lane_id() + delta`; lanes
    /// past 31 - `delta` get their own. The rules of [`shfl_sync`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Each warp's sum, in its lane 0.
    /// #[gpu_kernel]
    /// fn warp_sums(x: &[f32], out: &mut [f32]) {
    ///     let i = grid(1);
    ///     let mut v = x[i];
    ///     let mut offset = 16;
    ///     while offset > 0 {
    ///         v += shfl_down_sync(0xffff_ffff, v, offset);
    ///         offset /= 2;
    ///     }
    ///     if lane_id() == 0 {
    ///         out[i / 32] = v;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    /// let mut out = gpujit::zeros::<f32>(2)?;
    /// warp_sums![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [496.0, 1520.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn shfl_down_sync<T: crate::WarpValue>(mask: u32, value: T, delta: u32) -> T {
        let _ = (mask, delta);
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__shfl_xor_sync(mask, value, lane_mask)` (Numba's
    /// `cuda.shfl_xor_sync`): the `value` of lane `lane_id() ^ (lane_mask %
    /// 32)` (a butterfly). The rules of [`shfl_sync`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Each warp's maximum, in every lane.
    /// #[gpu_kernel]
    /// fn warp_max(x: &[i64], out: &mut [i64]) {
    ///     let i = grid(1);
    ///     let mut v = x[i];
    ///     let mut m = 16;
    ///     while m > 0 {
    ///         v = v.max(shfl_xor_sync(0xffff_ffff, v, m));
    ///         m /= 2;
    ///     }
    ///     out[i] = v;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i64> = (0..32).map(|i| (i * 7) % 32).collect();
    /// let mut out = gpujit::zeros::<i64>(32)?;
    /// warp_max![1, 32](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [31; 32]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn shfl_xor_sync<T: crate::WarpValue>(mask: u32, value: T, lane_mask: u32) -> T {
        let _ = (mask, lane_mask);
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__ballot_sync(mask, pred)` (Numba's `cuda.ballot_sync`): bit `l` is
    /// set where lane `l` of `mask` passed a true `pred`. Every lane named in
    /// `mask` that has not exited must make the same call with the same mask
    /// (see [`shfl_sync`]).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn odd_lanes(x: &[i32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = ballot_sync(0xffff_ffff, x[i] % 2 != 0);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i32> = (0..32).collect();
    /// let mut out = gpujit::zeros::<u32>(32)?;
    /// odd_lanes![1, 32](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?[0], 0xaaaa_aaaa);
    /// # Ok(())
    /// # }
    /// ```
    pub fn ballot_sync(mask: u32, pred: bool) -> u32 {
        let _ = (mask, pred);
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__all_sync(mask, pred)` (Numba's `cuda.all_sync`): whether `pred` is
    /// true in every lane of `mask` (the rules of [`ballot_sync`] apply).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warp_all_positive(x: &[f32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = all_sync(0xffff_ffff, x[i] > 0.0) as u32;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut x = vec![1.0f32; 64];
    /// x[40] = -1.0;
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// warp_all_positive![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[63]), (1, 0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn all_sync(mask: u32, pred: bool) -> bool {
        let _ = (mask, pred);
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__any_sync(mask, pred)` (Numba's `cuda.any_sync`): whether `pred` is
    /// true in some lane of `mask` (the rules of [`ballot_sync`] apply).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warp_any_zero(x: &[i32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = any_sync(0xffff_ffff, x[i] == 0) as u32;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i32> = (0..64).collect();
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// warp_any_zero![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[5], out[40]), (1, 0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn any_sync(mask: u32, pred: bool) -> bool {
        let _ = (mask, pred);
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__uni_sync(mask, pred)` (Numba's `cuda.eq_sync`): whether `pred` is
    /// the same in every lane of `mask` (the rules of [`ballot_sync`] apply).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn uniform_sign(x: &[f32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = eq_sync(0xffff_ffff, x[i] < 0.0) as u32;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f32> = (0..64).map(|i| if i < 32 { -1.0 } else { i as f32 - 40.0 }).collect();
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// uniform_sign![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[32]), (1, 0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn eq_sync(mask: u32, pred: bool) -> bool {
        let _ = (mask, pred);
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__match_any_sync(mask, value)` (Numba's `cuda.match_any_sync`): the
    /// lanes of `mask` whose `value` has the same bits as this lane's (a
    /// [`WarpValue`](crate::WarpValue); so `-0.0` and `0.0` differ, and a NaN
    /// matches the same NaN). The rules of [`ballot_sync`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn same_key(keys: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = match_any_sync(0xffff_ffff, keys[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let keys: Vec<u32> = (0..32).map(|i| i % 3).collect();
    /// let mut out = gpujit::zeros::<u32>(32)?;
    /// same_key![1, 32](&gpujit::to_device(&keys)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?[0], 0x4924_9249);
    /// # Ok(())
    /// # }
    /// ```
    pub fn match_any_sync<T: crate::WarpValue>(mask: u32, value: T) -> u32 {
        let _ = mask;
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__match_all_sync(mask, value, &pred)` (Numba's
    /// `cuda.match_all_sync`): `(mask, true)` if every lane of `mask` holds
    /// the same bits of `value` (a [`WarpValue`](crate::WarpValue)), else
    /// `(0, false)`. The mask holds the lanes that take part: those of
    /// `mask` that have not exited (a GPU leaves out the missing lanes of a
    /// partial warp too; Numba's test expects `0x3ff` in a block of 10
    /// threads). Bind it with a tuple `let`: `let (m, all) =
    /// match_all_sync(mask, value);`. The rules of [`ballot_sync`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn same_in_warp(keys: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     let (m, all) = match_all_sync(0xffff_ffff, keys[i]);
    ///     out[i] = if all { m } else { 7 };
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// // The first warp's keys agree, the second's do not.
    /// let keys: Vec<u32> = (0..64).map(|i| if i < 32 { 5 } else { i % 2 }).collect();
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// same_in_warp![1, 64](&gpujit::to_device(&keys)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[32]), (0xffff_ffff, 7));
    /// # Ok(())
    /// # }
    /// ```
    pub fn match_all_sync<T: crate::WarpValue>(mask: u32, value: T) -> (u32, bool) {
        let _ = (mask, value);
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__activemask()` (Numba's `cuda.activemask`): the lanes of this warp
    /// that make this call together. On a GPU that depends on how the warp's
    /// branches were scheduled; on the CPU backend it is every lane of the
    /// warp that reaches this call before the warp can go no further without
    /// it (see the reference's "Warps").
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn active(out: &mut [u32]) {
    ///     let i = grid(1);
    ///     if i < out.len() {
    ///         out[i] = activemask();
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(40)?;
    /// active![1, 64](&mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[39]), (0xffff_ffff, 0xff));
    /// # Ok(())
    /// # }
    /// ```
    pub fn activemask() -> u32 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The lanes below this one, `(1 << lane_id()) - 1` (Numba's
    /// `cuda.lanemask_lt`, PTX's `%lanemask_lt`). Not a synchronisation.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Stream compaction within a warp: each kept value's slot is the
    /// /// number of kept lanes below it.
    /// #[gpu_kernel]
    /// fn compact(x: &[i32], out: &mut [i32]) {
    ///     let i = grid(1);
    ///     let keep = x[i] > 0;
    ///     let kept = ballot_sync(0xffff_ffff, keep);
    ///     if keep {
    ///         out[(kept & lanemask_lt()).count_ones() as usize] = x[i];
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i32> = (0..32).map(|i| if i % 4 == 1 { i } else { -1 }).collect();
    /// let mut out = gpujit::zeros::<i32>(8)?;
    /// compact![1, 32](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [1, 5, 9, 13, 17, 21, 25, 29]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn lanemask_lt() -> u32 {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__syncwarp(mask)` (Numba's `cuda.syncwarp`): waits until every lane
    /// named in `mask` that has not exited reaches this call (the rules of
    /// [`ballot_sync`] apply), and orders their memory accesses: what a lane
    /// wrote before it, the others read after it.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn synced(out: &mut [u32]) {
    ///     let i = grid(1);
    ///     syncwarp(0xffff_ffff);
    ///     out[i] = lane_id() as u32;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(32)?;
    /// synced![1, 32](&mut out)?;
    /// assert_eq!(out.copy_to_host()?[31], 31);
    /// # Ok(())
    /// # }
    /// ```
    pub fn syncwarp(mask: u32) {
        let _ = mask;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over the lanes of this thread's warp, given to
    /// every lane (CUB's `WarpReduce::Sum`, broadcast; Numba has none).
    /// `value` is a [`WarpValue`](crate::WarpValue) whose type is known where
    /// it is called; integers wrap. Every lane of the warp must call it
    /// together (in a block whose size is not a multiple of 32, the last
    /// warp's lanes are fewer). It runs as five `shfl_sync` steps of a
    /// tree, the same operations in the same order on every backend, so a
    /// float sum has the same bits everywhere (see the reference's "Warp
    /// and block collectives").
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warp_sums(x: &[i32], out: &mut [i32]) {
    ///     let i = grid(1);
    ///     out[i] = warp_reduce_sum(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i32> = (0..40).collect();
    /// let mut out = gpujit::zeros::<i32>(40)?;
    /// warp_sums![1, 40](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[39]), ((0..32).sum(), (32..40).sum()));
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_reduce_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The least `value` over the lanes of this thread's warp, given to
    /// every lane (CUB's `WarpReduce::Reduce` with `cub::Min`); a NaN loses,
    /// as in `f32::min`. The rules of [`warp_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warp_mins(x: &[f32], out: &mut [f32]) {
    ///     let i = grid(1);
    ///     out[i] = warp_reduce_min(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f32> = (0..64).map(|i| (i as f32 - 20.0).abs()).collect();
    /// let mut out = gpujit::zeros::<f32>(64)?;
    /// warp_mins![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[5], out[40]), (0.0, 12.0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_reduce_min<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The greatest `value` over the lanes of this thread's warp, given to
    /// every lane (CUB's `WarpReduce::Reduce` with `cub::Max`); a NaN loses,
    /// as in `f32::max`. The rules of [`warp_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn warp_maxes(x: &[u64], out: &mut [u64]) {
    ///     let i = grid(1);
    ///     out[i] = warp_reduce_max(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<u64> = (0..64).map(|i| (i * 37) % 64).collect();
    /// let mut out = gpujit::zeros::<u64>(64)?;
    /// warp_maxes![1, 64](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!(out[0], *x[..32].iter().max().unwrap());
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_reduce_max<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over this lane and the lanes below it in its
    /// warp (CUB's `WarpScan::InclusiveSum`): five `shfl_up_sync` steps
    /// (Hillis and Steele). The rules of [`warp_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn running(x: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = warp_scan_inclusive_sum(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(64)?;
    /// running![1, 64](&gpujit::to_device(&vec![1u32; 64])?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[31], out[32], out[63]), (1, 32, 1, 32));
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_scan_inclusive_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over the lanes below this one in its warp, 0 in
    /// lane 0 (CUB's `WarpScan::ExclusiveSum`). The rules of
    /// [`warp_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn offsets(x: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = warp_scan_exclusive_sum(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(32)?;
    /// offsets![1, 32](&gpujit::to_device(&vec![2u32; 32])?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[1], out[31]), (0, 2, 62));
    /// # Ok(())
    /// # }
    /// ```
    pub fn warp_scan_exclusive_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over every thread of the block, given to every
    /// thread (CUB's `BlockReduce::Sum`, broadcast; Numba has none). Any
    /// block shape and size up to 1024. `value` is a
    /// [`WarpValue`](crate::WarpValue) whose type is known where it is
    /// called; integers wrap. It holds barriers: every thread of the block
    /// must call it, as [`syncthreads`]. Each warp reduces its lanes with
    /// shuffles, writes its sum to a shared array of 33 values, and every
    /// warp reduces those alike: the same operations in the same order on
    /// every backend. It cannot be called in a `#[gpu_device]` function
    /// (see the reference's "Warp and block collectives").
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn block_sums(x: &[f32], out: &mut [f32]) {
    ///     let i = grid(1);
    ///     let v = if i < x.len() { x[i] } else { 0.0 };
    ///     let s = block_reduce_sum(v);
    ///     if thread_idx().x == 0 {
    ///         out[block_idx().x] = s;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x = vec![0.5f32; 1000];
    /// let mut out = gpujit::zeros::<f32>(4)?;
    /// block_sums![4, 256](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [128.0, 128.0, 128.0, 116.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_reduce_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The least `value` over every thread of the block, given to every
    /// thread (CUB's `BlockReduce::Reduce` with `cub::Min`); a NaN loses.
    /// The rules of [`block_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn block_mins(x: &[i64], out: &mut [i64]) {
    ///     let i = grid(1);
    ///     out[i] = block_reduce_min(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<i64> = (0..200).map(|i| (i - 150) * (i - 150)).collect();
    /// let mut out = gpujit::zeros::<i64>(200)?;
    /// block_mins![2, 100](&gpujit::to_device(&x)?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[199]), (51 * 51, 0));
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_reduce_min<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The greatest `value` over every thread of the block, given to every
    /// thread (CUB's `BlockReduce::Reduce` with `cub::Max`); a NaN loses.
    /// The rules of [`block_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn block_maxes(x: &[f64], out: &mut [f64]) {
    ///     let i = grid(1);
    ///     out[i] = block_reduce_max(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f64> = (0..96).map(|i| (i as f64 * 0.37).sin()).collect();
    /// let mut out = gpujit::zeros::<f64>(96)?;
    /// block_maxes![1, 96](&gpujit::to_device(&x)?, &mut out)?;
    /// assert_eq!(out.copy_to_host()?[7], x.iter().copied().fold(f64::MIN, f64::max));
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_reduce_max<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over this thread and the threads before it in the
    /// block, in linear thread order (`x` fastest; CUB's
    /// `BlockScan::InclusiveSum`). Any block shape and size up to 1024. Each
    /// warp scans its lanes with `shfl_up_sync`, every warp scans the warps'
    /// totals alike, and each thread adds the totals of the warps before its
    /// own (a shared array of 64 values, two barriers). The rules of
    /// [`block_reduce_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn prefix(x: &[u32], out: &mut [u32]) {
    ///     let i = grid(1);
    ///     out[i] = block_scan_inclusive_sum(x[i]);
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<u32>(300)?;
    /// prefix![1, 300](&gpujit::to_device(&vec![3u32; 300])?, &mut out)?;
    /// let out = out.copy_to_host()?;
    /// assert_eq!((out[0], out[100], out[299]), (3, 303, 900));
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_scan_inclusive_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// The sum of `value` over the threads before this one in the block, in
    /// linear thread order, 0 in thread 0 (CUB's `BlockScan::ExclusiveSum`):
    /// where each thread writes its items in a stream compaction. The rules
    /// of [`block_scan_inclusive_sum`] apply.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn compact(x: &[f32], out: &mut [f32], kept: &mut [u32]) {
    ///     let i = thread_idx().x;
    ///     let keep = x[i] > 0.0;
    ///     let at = block_scan_exclusive_sum(keep as u32);
    ///     if keep {
    ///         out[at as usize] = x[i];
    ///     }
    ///     if i == block_dim().x - 1 {
    ///         kept[0] = at + keep as u32;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x: Vec<f32> = (0..128).map(|i| if i % 3 == 0 { i as f32 } else { -1.0 }).collect();
    /// let mut out = gpujit::zeros::<f32>(128)?;
    /// let mut kept = gpujit::zeros::<u32>(1)?;
    /// compact![1, 128](&gpujit::to_device(&x)?, &mut out, &mut kept)?;
    /// assert_eq!(kept.copy_to_host()?, [42]);
    /// assert_eq!(out.copy_to_host()?[..3], [3.0, 6.0, 9.0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn block_scan_exclusive_sum<T: crate::WarpValue>(value: T) -> T {
        let _ = value;
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

    /// `__syncthreads_count(pred)` (Numba's `cuda.syncthreads_count`): a
    /// [`syncthreads`] that also returns how many threads of the block passed
    /// a true `pred`. The same to every thread. (CUDA C returns an `int`.)
    ///
    /// On the CPU backend a vote in a `let`, or as the condition of an `if` or
    /// `while` at a barrier's level, is part of the split kernel; anywhere
    /// else the kernel runs as coroutines.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// `out[b]` = how many of block `b`'s values are positive.
    /// #[gpu_kernel]
    /// fn positives(x: &[f32], out: &mut [u32]) {
    ///     let n = syncthreads_count(x[grid(1)] > 0.0);
    ///     if thread_idx().x == 0 {
    ///         out[block_idx().x] = n;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x = gpujit::to_device(&[1.0f32, -2.0, 3.0, 4.0, -1.0, 0.0, 0.0, 5.0])?;
    /// let mut out = gpujit::zeros::<u32>(2)?;
    /// positives![2, 4](&x, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [3, 1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn syncthreads_count(pred: bool) -> u32 {
        let _ = pred;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__syncthreads_and(pred)` (Numba's `cuda.syncthreads_and`): a
    /// [`syncthreads`] that returns whether `pred` is true in every thread of
    /// the block. (CUDA C returns a nonzero `int`.)
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Keeps halving each block's values until every one is below 1.
    /// #[gpu_kernel]
    /// fn shrink(x: &mut [f32], rounds: &mut [u32]) {
    ///     let i = grid(1);
    ///     let mut r = 0;
    ///     while !syncthreads_and(x[i] < 1.0) {
    ///         x[i] /= 2.0;
    ///         r += 1;
    ///     }
    ///     rounds[i] = r;
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut x = gpujit::to_device(&[0.5f32, 3.0, 0.25, 0.75])?;
    /// let mut rounds = gpujit::zeros::<u32>(4)?;
    /// shrink![1, 4](&mut x, &mut rounds)?;
    /// assert_eq!(rounds.copy_to_host()?, [2, 2, 2, 2]);
    /// assert_eq!(x.copy_to_host()?, [0.125, 0.75, 0.0625, 0.1875]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn syncthreads_and(pred: bool) -> bool {
        let _ = pred;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// `__syncthreads_or(pred)` (Numba's `cuda.syncthreads_or`): a
    /// [`syncthreads`] that returns whether `pred` is true in any thread of
    /// the block. (CUDA C returns a nonzero `int`.)
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// `out[b]` = 1 if any of block `b`'s values is negative.
    /// #[gpu_kernel]
    /// fn any_negative(x: &[i32], out: &mut [u32]) {
    ///     if syncthreads_or(x[grid(1)] < 0) {
    ///         if thread_idx().x == 0 {
    ///             out[block_idx().x] = 1;
    ///         }
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let x = gpujit::to_device(&[1, 2, -3, 4, 5, 6, 7, 8])?;
    /// let mut out = gpujit::zeros::<u32>(2)?;
    /// any_negative![2, 4](&x, &mut out)?;
    /// assert_eq!(out.copy_to_host()?, [1, 0]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn syncthreads_or(pred: bool) -> bool {
        let _ = pred;
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    /// Rewritten from the atomic's `&mut place` in the type-checked copy, so
    /// that only gpujit reports a place it cannot use (a read-only parameter).
    #[doc(hidden)]
    pub fn atomic_place<T>(_: &T) -> &mut T {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    macro_rules! atomic_stub {
        ($(#[$doc:meta])* $name:ident) => {
            $(#[$doc])*
            pub fn $name<T>(_place: &mut T, _val: T) -> T {
                unreachable!("{}", ONLY_IN_KERNELS)
            }
        };
    }

    atomic_stub!(
        /// `atomicAdd` (Numba's `cuda.atomic.add`): adds `val` to the element
        /// `place` as one indivisible operation and returns the old value.
        ///
        /// Types `i32 u32 i64 u64 usize` (wrapping) and `f32 f64`; `f32` flushes
        /// subnormal inputs and results to zero, as PTX's `atom.add.f32`. The
        /// place is an element of a `&mut [T]` or `ArrayViewMutN` parameter
        /// (`&mut a[i]`, `&mut a[[y, x]]`) or of a shared array
        /// (`&mut tile[i][j]`). Relaxed: it orders no other access (see
        /// [`threadfence`]). CUDA C: `atomicAdd(&hist[b], 1u)` (`i64` through
        /// `unsigned long long`).
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// /// Counts the values of `x` (each below `hist.len()`).
        /// #[gpu_kernel]
        /// fn histogram(x: &[u32], hist: &mut [u32]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_add(&mut hist[x[i] as usize], 1);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&(0..1000u32).map(|i| i % 4).collect::<Vec<_>>())?;
        /// let mut hist = gpujit::zeros::<u32>(4)?;
        /// histogram![4, 256](&x, &mut hist)?;
        /// assert_eq!(hist.copy_to_host()?, [250; 4]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_add
    );
    atomic_stub!(
        /// `atomicSub` (Numba's `cuda.atomic.sub`): subtracts `val` from the
        /// element and returns the old value. Types as [`atomic_add`] (`f32`
        /// flushes subnormals likewise). CUDA C: `atomicSub` for `int` and
        /// `unsigned`; CUDA has none for 64-bit integers and floats, which are
        /// `atomicAdd` of `-val` (wrapping: the same result). Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn take(stock: &mut [i64], got: &mut [i64]) {
        ///     let i = grid(1);
        ///     if i < got.len() {
        ///         got[i] = atomic_sub(&mut stock[0], 2);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let mut stock = gpujit::to_device(&[100i64])?;
        /// let mut got = gpujit::zeros::<i64>(10)?;
        /// take![1, 32](&mut stock, &mut got)?;
        /// assert_eq!(stock.copy_to_host()?, [80]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_sub
    );
    atomic_stub!(
        /// `atomicMin` (Numba's `cuda.atomic.min`): stores the smaller of the
        /// element and `val`; returns the old value. Types as [`atomic_add`].
        /// For floats (a compare-and-swap loop in CUDA C, `gj_atomic_min`),
        /// the element stays where it or `val` is NaN, as Python's `min`
        /// keeps its first argument (use [`atomic_nanmin`] to skip NaNs); an
        /// equal `val` (`-0.0` vs `0.0`) keeps the element. CUDA C:
        /// `atomicMin` (`long long` and `unsigned long long` overloads for
        /// 64-bit). Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn smallest(x: &[f32], m: &mut [f32]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_min(&mut m[0], x[i]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&[3.0f32, -1.5, 8.0, f32::NAN])?;
        /// let mut m = gpujit::to_device(&[f32::INFINITY])?;
        /// smallest![1, 32](&x, &mut m)?;
        /// assert_eq!(m.copy_to_host()?, [-1.5]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_min
    );
    atomic_stub!(
        /// Numba's `cuda.atomic.nanmin`: [`atomic_min`] with NaN as a missing
        /// value. A NaN element is replaced by `val`, a NaN `val` changes
        /// nothing; returns the old value. The same as [`atomic_min`] for
        /// integers. CUDA C: `atomicMin`; floats: a compare-and-swap loop
        /// (`gj_atomic_nanmin_f32`). Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn smallest(x: &[f64], m: &mut [f64]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_nanmin(&mut m[0], x[i]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&[3.0, f64::NAN, -1.5])?;
        /// let mut m = gpujit::to_device(&[f64::NAN])?;
        /// smallest![1, 32](&x, &mut m)?;
        /// assert_eq!(m.copy_to_host()?, [-1.5]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_nanmin
    );
    atomic_stub!(
        /// Numba's `cuda.atomic.nanmax`: [`atomic_max`] with NaN as a missing
        /// value, with [`atomic_nanmin`]'s rules. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn largest(x: &[f32], m: &mut [f32]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_nanmax(&mut m[0], x[i]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&[3.0f32, f32::NAN, 8.0])?;
        /// let mut m = gpujit::to_device(&[f32::NAN])?;
        /// largest![1, 32](&x, &mut m)?;
        /// assert_eq!(m.copy_to_host()?, [8.0]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_nanmax
    );
    atomic_stub!(
        /// `atomicMax` (Numba's `cuda.atomic.max`): stores the larger of the
        /// element and `val`; returns the old value. Types and float rules as
        /// [`atomic_min`] (a NaN element or `val` keeps the element; see
        /// [`atomic_nanmax`]). Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn column_max(a: ArrayView2<i32>, m: &mut [i32]) {
        ///     let (x, y) = grid(2);
        ///     let (rows, cols) = a.dim();
        ///     if y < rows && x < cols {
        ///         atomic_max(&mut m[x], a[[y, x]]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let a = gpujit::to_device(&gpujit::ndarray::array![[1, -7], [5, -2]])?;
        /// let mut m = gpujit::to_device(&[i32::MIN; 2])?;
        /// column_max![1, (2, 2)](&a, &mut m)?;
        /// assert_eq!(m.copy_to_host()?, [5, -2]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_max
    );
    atomic_stub!(
        /// `atomicExch` (Numba's `cuda.atomic.exch`): stores `val` and returns
        /// the old value. Types as [`atomic_add`]; CUDA C passes 64-bit signed
        /// integers and `f64` through `unsigned long long`. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn swap_in(slot: &mut [f64], old: &mut [f64]) {
        ///     if grid(1) == 0 {
        ///         old[0] = atomic_exch(&mut slot[0], 2.5);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let mut slot = gpujit::to_device(&[1.0f64])?;
        /// let mut old = gpujit::zeros::<f64>(1)?;
        /// swap_in![1, 1](&mut slot, &mut old)?;
        /// assert_eq!((slot.copy_to_host()?, old.copy_to_host()?), (vec![2.5], vec![1.0]));
        /// # Ok(())
        /// # }
        /// ```
        atomic_exch
    );

    /// `atomicCAS` (Numba's `cuda.atomic.compare_and_swap`): stores `val` if
    /// the element equals `compare`; returns the old value either way (it
    /// equals `compare` exactly when the swap happened). Types `i32 u32 i64
    /// u64 usize`. Relaxed. The building block of any other atomic update.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// The first thread to arrive claims the lock.
    /// #[gpu_kernel]
    /// fn claim(lock: &mut [u32], winner: &mut [u32]) {
    ///     let i = grid(1);
    ///     if i < 64 && atomic_cas(&mut lock[0], 0, 1) == 0 {
    ///         winner[0] = i as u32 + 1;
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut lock = gpujit::zeros::<u32>(1)?;
    /// let mut winner = gpujit::zeros::<u32>(1)?;
    /// claim![2, 32](&mut lock, &mut winner)?;
    /// assert_eq!(lock.copy_to_host()?, [1]);
    /// assert!((1..=64).contains(&winner.copy_to_host()?[0]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn atomic_cas<T>(_place: &mut T, _compare: T, _val: T) -> T {
        unreachable!("{}", ONLY_IN_KERNELS)
    }

    atomic_stub!(
        /// `atomicAnd` (Numba's `cuda.atomic.and_`): stores `old & val`,
        /// returns the old value. Types `i32 u32 i64 u64 usize`. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn clear_bits(mask: &mut [u64]) {
        ///     let i = grid(1);
        ///     if i < 64 {
        ///         atomic_and(&mut mask[0], !(1u64 << i) | 0xff);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let mut mask = gpujit::to_device(&[u64::MAX])?;
        /// clear_bits![1, 64](&mut mask)?;
        /// assert_eq!(mask.copy_to_host()?, [0xff]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_and
    );
    atomic_stub!(
        /// `atomicOr` (Numba's `cuda.atomic.or_`): stores `old | val`, returns
        /// the old value. Types `i32 u32 i64 u64 usize`. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn set_bits(x: &[u32], seen: &mut [u32]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_or(&mut seen[0], 1u32 << x[i]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&[0u32, 3, 3, 5])?;
        /// let mut seen = gpujit::zeros::<u32>(1)?;
        /// set_bits![1, 32](&x, &mut seen)?;
        /// assert_eq!(seen.copy_to_host()?, [0b101001]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_or
    );
    atomic_stub!(
        /// `atomicXor` (Numba's `cuda.atomic.xor`): stores `old ^ val`,
        /// returns the old value. Types `i32 u32 i64 u64 usize`. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn parity(x: &[i32], p: &mut [i32]) {
        ///     let i = grid(1);
        ///     if i < x.len() {
        ///         atomic_xor(&mut p[0], x[i]);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let x = gpujit::to_device(&[1i32, 2, 2, 8])?;
        /// let mut p = gpujit::zeros::<i32>(1)?;
        /// parity![1, 32](&x, &mut p)?;
        /// assert_eq!(p.copy_to_host()?, [9]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_xor
    );
    atomic_stub!(
        /// `atomicInc` (Numba's `cuda.atomic.inc`): stores
        /// `if old >= val { 0 } else { old + 1 }` (a counter that wraps to 0
        /// after `val`), returns the old value. `u32` only, as in CUDA. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// /// A ring-buffer slot per thread: 0, 1, 2, 0, 1, 2, ...
        /// #[gpu_kernel]
        /// fn ring(next: &mut [u32], slot: &mut [u32]) {
        ///     let i = grid(1);
        ///     if i < slot.len() {
        ///         slot[i] = atomic_inc(&mut next[0], 2);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let mut next = gpujit::zeros::<u32>(1)?;
        /// let mut slot = gpujit::zeros::<u32>(7)?;
        /// ring![1, 32](&mut next, &mut slot)?;
        /// assert_eq!(next.copy_to_host()?, [7 % 3]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_inc
    );
    atomic_stub!(
        /// `atomicDec` (Numba's `cuda.atomic.dec`): stores
        /// `if old == 0 || old > val { val } else { old - 1 }` (a count-down
        /// that wraps to `val`), returns the old value. `u32` only, as in
        /// CUDA. Relaxed.
        ///
        /// ```
        /// use gpujit::prelude::*;
        ///
        /// #[gpu_kernel]
        /// fn countdown(c: &mut [u32]) {
        ///     if grid(1) < 5 {
        ///         atomic_dec(&mut c[0], 3);
        ///     }
        /// }
        ///
        /// # fn main() -> gpujit::Result<()> {
        /// let mut c = gpujit::to_device(&[2u32])?;
        /// countdown![1, 32](&mut c)?; // 2, 1, 0, 3, 2 -> 1
        /// assert_eq!(c.copy_to_host()?, [1]);
        /// # Ok(())
        /// # }
        /// ```
        atomic_dec
    );

    /// `__threadfence()` (Numba's `cuda.threadfence()`): every write this
    /// thread made before it is seen by every thread of the grid before any
    /// write it makes after it (and likewise for reads). Pair it with a
    /// relaxed atomic flag to publish data to other blocks. On the CPU
    /// backend a sequentially consistent fence.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// /// Each block writes its partial result, then counts itself done.
    /// #[gpu_kernel]
    /// fn publish(partial: &mut [f32], done: &mut [u32]) {
    ///     if thread_idx().x == 0 {
    ///         partial[block_idx().x] = 1.0;
    ///         threadfence();
    ///         atomic_add(&mut done[0], 1);
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut partial = gpujit::zeros::<f32>(4)?;
    /// let mut done = gpujit::zeros::<u32>(1)?;
    /// publish![4, 32](&mut partial, &mut done)?;
    /// assert_eq!(done.copy_to_host()?, [4]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn threadfence() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `__threadfence_block()` (Numba's `cuda.threadfence_block()`): as
    /// [`threadfence`], for the threads of this block only. On the CPU
    /// backend a compiler fence (a block's threads share one OS thread).
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn ordered(out: &mut [i32]) {
    ///     let s = shared_array::<[i32; 32]>();
    ///     let t = thread_idx().x;
    ///     s[t] = t as i32;
    ///     threadfence_block();
    ///     out[t] = s[t];
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut out = gpujit::zeros::<i32>(32)?;
    /// ordered![1, 32](&mut out)?;
    /// assert_eq!(out.copy_to_host()?[31], 31);
    /// # Ok(())
    /// # }
    /// ```
    pub fn threadfence_block() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
    /// `__threadfence_system()` (Numba's `cuda.threadfence_system()`): as
    /// [`threadfence`], also towards the host and other devices. On the CPU
    /// backend a sequentially consistent fence.
    ///
    /// ```
    /// use gpujit::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn flag(data: &mut [u64], ready: &mut [u32]) {
    ///     if grid(1) == 0 {
    ///         data[0] = 42;
    ///         threadfence_system();
    ///         atomic_exch(&mut ready[0], 1);
    ///     }
    /// }
    ///
    /// # fn main() -> gpujit::Result<()> {
    /// let mut data = gpujit::zeros::<u64>(1)?;
    /// let mut ready = gpujit::zeros::<u32>(1)?;
    /// flag![1, 1](&mut data, &mut ready)?;
    /// assert_eq!((data.copy_to_host()?, ready.copy_to_host()?), (vec![42], vec![1]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn threadfence_system() {
        unreachable!("{}", ONLY_IN_KERNELS)
    }
}
