//! Arrays on the current backend, named after Numba's `cuda.to_device`,
//! `cuda.device_array` and `DeviceNDArray.copy_to_host`.
//!
//! ```
//! use gpujit::ndarray::{array, Array2};
//!
//! # fn main() -> gpujit::Result<()> {
//! let d = gpujit::to_device(&array![[1u8, 2, 3], [4, 5, 6]])?; // Numba: cuda.to_device(a)
//! assert_eq!((d.shape(), d.len(), d.size_bytes()), (&[2, 3][..], 6, 6));
//! let back: Array2<u8> = d.copy_to_ndarray()?;                  // Numba: d.copy_to_host()
//! assert_eq!(back, array![[1, 2, 3], [4, 5, 6]]);
//! let empty = gpujit::device_array::<f64>((480, 640))?;         // Numba: cuda.device_array((480, 640))
//! assert_eq!(empty.size_bytes(), 480 * 640 * 8);
//! # Ok(())
//! # }
//! ```

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use crate::buffer::DeviceBuffer;
use crate::error::{Error, Result};
use crate::kernel_def::{ArrayArg, BufArg, KernelArg};
use crate::scalar::DeviceScalar;
use crate::select::current_backend;

/// The shape of an array: 1-3 dimensions in elements, outermost first (C order).
///
/// Made from `usize` (1-D), `(usize, usize)`, `(usize, usize, usize)`,
/// `[usize; N]` (N = 1..=3), `&[usize]` or `Vec<usize>`. Validity (1-3
/// dimensions, a size in bytes that fits `usize`) is checked where the shape
/// is used, which returns [`Error::InvalidShape`] otherwise. Zero-length
/// dimensions are allowed.
///
/// ```
/// use gpujit::Shape;
///
/// assert_eq!(Shape::from((2, 3)).dims(), &[2, 3]);
/// assert_eq!(Shape::from(7).size_of::<f32>().unwrap(), (7, 28));
/// assert!(Shape::from([1, 1, 1, 1]).size_of::<f32>().is_err()); // 4-D
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape(Vec<usize>);

impl Shape {
    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    /// Number of elements and size in bytes of an array of this shape with
    /// elements of type `T`.
    ///
    /// # Errors
    /// [`Error::InvalidShape`] for 0 or more than 3 dimensions, or if the
    /// element count or byte size overflows `usize`.
    pub fn size_of<T: DeviceScalar>(&self) -> Result<(usize, usize)> {
        let dims = &self.0;
        if dims.is_empty() || dims.len() > 3 {
            return Err(Error::InvalidShape(format!(
                "shape {dims:?} has {} dimensions; gpujit arrays have 1, 2 or 3",
                dims.len()
            )));
        }
        let len = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
        let bytes = len.and_then(|n| n.checked_mul(std::mem::size_of::<T>()));
        match (len, bytes) {
            (Some(len), Some(bytes)) if bytes <= isize::MAX as usize => Ok((len, bytes)),
            _ => Err(Error::InvalidShape(format!(
                "shape {dims:?} of {} elements is too large: its size in bytes overflows the address space",
                T::TYPE.rust_name()
            ))),
        }
    }
}

impl From<usize> for Shape {
    fn from(n: usize) -> Self {
        Shape(vec![n])
    }
}
impl From<(usize, usize)> for Shape {
    fn from((a, b): (usize, usize)) -> Self {
        Shape(vec![a, b])
    }
}
impl From<(usize, usize, usize)> for Shape {
    fn from((a, b, c): (usize, usize, usize)) -> Self {
        Shape(vec![a, b, c])
    }
}
impl<const N: usize> From<[usize; N]> for Shape {
    /// Any `N` converts; only `N = 1..=3` is a valid shape.
    fn from(dims: [usize; N]) -> Self {
        Shape(dims.to_vec())
    }
}
impl From<&[usize]> for Shape {
    fn from(dims: &[usize]) -> Self {
        Shape(dims.to_vec())
    }
}
impl From<Vec<usize>> for Shape {
    fn from(dims: Vec<usize>) -> Self {
        Shape(dims)
    }
}

/// Host data that [`to_device`] copies: slices, `Vec`s, arrays and ndarray
/// (version 0.17, re-exported as [`crate::ndarray`]) arrays, views and
/// `ArrayRef`s of 1-3 dimensions (any memory layout).
///
/// ```
/// use gpujit::HostData;
///
/// let m = gpujit::ndarray::array![[1u32, 2], [3, 4]];
/// let t = m.t();
/// let (shape, elems) = t.c_order().unwrap(); // a transposed view is copied
/// assert_eq!((shape, &*elems), (vec![2, 2], &[1, 3, 2, 4][..]));
/// ```
pub trait HostData<T: DeviceScalar> {
    /// The shape (1-3 dimensions) and the elements in C order, borrowed when
    /// they already are contiguous in C order, copied otherwise.
    ///
    /// The product of the shape must equal the number of elements; gpujit
    /// checks it ([`Error::ShapeMismatch`] otherwise), so an implementation
    /// outside gpujit cannot make [`to_device`] pad or truncate.
    ///
    /// # Errors
    /// [`Error::InvalidShape`] for 0 or more than 3 dimensions.
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)>;
}

/// `host`'s shape and C-order elements, checked to agree in length.
pub(crate) fn checked_c_order<T: DeviceScalar, H: HostData<T> + ?Sized>(
    host: &H,
) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
    let (shape, data) = host.c_order()?;
    let elems = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if elems != Some(data.len()) {
        return Err(Error::ShapeMismatch(format!(
            "host data of shape {shape:?} came with {} elements (HostData::c_order must return product(shape) elements)",
            data.len()
        )));
    }
    Ok((shape, data))
}

impl<T: DeviceScalar> HostData<T> for [T] {
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
        Ok((vec![self.len()], Cow::Borrowed(self)))
    }
}

impl<T: DeviceScalar> HostData<T> for Vec<T> {
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
        self.as_slice().c_order()
    }
}

impl<T: DeviceScalar, const N: usize> HostData<T> for [T; N] {
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
        self.as_slice().c_order()
    }
}

impl<T, D> HostData<T> for ndarray::ArrayRef<T, D>
where
    T: DeviceScalar,
    D: ndarray::Dimension,
{
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
        let shape = self.shape().to_vec();
        if shape.is_empty() || shape.len() > 3 {
            return Err(Error::InvalidShape(format!(
                "ndarray of shape {shape:?} has {} dimensions; gpujit arrays have 1, 2 or 3 (reshape it first)",
                shape.len()
            )));
        }
        let data = match self.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.iter().copied().collect()),
        };
        Ok((shape, data))
    }
}

/// Arrays and views (`Array`, `ArrayView`, `ArcArray`, ...) copy through
/// their [`ndarray::ArrayRef`].
impl<T, S, D> HostData<T> for ndarray::ArrayBase<S, D>
where
    T: DeviceScalar,
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn c_order(&self) -> Result<(Vec<usize>, Cow<'_, [T]>)> {
        let array_ref: &ndarray::ArrayRef<T, D> = self;
        array_ref.c_order()
    }
}

/// The element bytes of `data`.
pub(crate) fn as_bytes<T: DeviceScalar>(data: &[T]) -> &[u8] {
    // SAFETY: `DeviceScalar` is sealed and implemented only for the primitive
    // integer and float types and `bool`, which have no padding, so every byte
    // is initialised; `u8` has alignment 1 and the byte length is
    // `size_of_val(data)`, so both casts view exactly the same memory.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// The element bytes of `data`, writable.
///
/// # Safety
/// Any bytes are valid for every `T` but `bool`: after writing them, and
/// before `data` is used again, the caller passes them through
/// [`DeviceScalar::make_valid`].
pub(crate) unsafe fn as_bytes_mut<T: DeviceScalar>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; the caller restores valid `bool`s.
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// An array of `T` on the current backend (host memory on the CPU backend,
/// GPU memory on CUDA): 1-3 dimensions, C order, like Numba's `DeviceNDArray`.
///
/// Pass it to a kernel as `&array` (read) or `&mut array` (written); the
/// borrow checker then guarantees that a written array is not also read or
/// written by anyone else during the launch. Each `DeviceArray` owns its
/// memory (no two arrays share elements; [`reshape`](DeviceArray::reshape)
/// consumes the array).
///
/// ```
/// use gpujit::DeviceArray;
///
/// # fn main() -> gpujit::Result<()> {
/// let mut a: DeviceArray<u32> = gpujit::zeros((2, 3))?;
/// assert_eq!((a.shape(), a.ndim(), a.len(), a.size_bytes()), (&[2, 3][..], 2, 6, 24));
/// a.copy_from_host(&[1, 2, 3, 4, 5, 6])?;
/// let a = a.reshape(6)?; // same elements, C order
/// assert_eq!(a.copy_to_host()?, [1, 2, 3, 4, 5, 6]);
/// let m = gpujit::to_device(&gpujit::ndarray::array![[1.5f32, 2.5], [3.5, 4.5]])?;
/// let back: gpujit::ndarray::Array2<f32> = m.copy_to_ndarray()?;
/// assert_eq!(back[[1, 0]], 3.5);
/// # Ok(())
/// # }
/// ```
pub struct DeviceArray<T: DeviceScalar> {
    shape: Vec<usize>,
    buf: Box<dyn DeviceBuffer>,
    _t: PhantomData<T>,
}

/// Copies host data (slice, `Vec`, array, ndarray array or view of 1-3
/// dimensions) to a new array on the current backend, like Numba's
/// `cuda.to_device`. The array has the shape of the data.
///
/// # Errors
/// [`Error::InvalidShape`] for ndarray data of 0 or more than 3 dimensions;
/// [`Error::BackendUnavailable`] if no backend can run; allocation errors.
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let v = gpujit::to_device(&vec![1.0f32, 2.0, 3.0])?; // shape [3]
/// let m = gpujit::to_device(&gpujit::ndarray::Array2::<u8>::zeros((4, 5)))?;
/// assert_eq!((v.shape(), m.shape()), (&[3][..], &[4, 5][..]));
/// # Ok(())
/// # }
/// ```
pub fn to_device<T: DeviceScalar, H: HostData<T> + ?Sized>(host: &H) -> Result<DeviceArray<T>> {
    DeviceArray::to_device(host)
}

/// A new zero-filled array of `shape` on the current backend, like Numba's
/// `cuda.device_array` (whose contents are uninitialised; gpujit always zeroes).
///
/// # Errors
/// [`Error::InvalidShape`] (see [`Shape`]); [`Error::BackendUnavailable`];
/// allocation errors.
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let img = gpujit::device_array::<u8>((480, 640))?;
/// assert_eq!(img.copy_to_host()?, vec![0u8; 480 * 640]);
/// # Ok(())
/// # }
/// ```
pub fn device_array<T: DeviceScalar>(shape: impl Into<Shape>) -> Result<DeviceArray<T>> {
    DeviceArray::device_array(shape)
}

/// A new zero-filled array of `shape` on the current backend (same as
/// [`device_array`]).
///
/// # Errors
/// As [`device_array`].
///
/// ```
/// # fn main() -> gpujit::Result<()> {
/// let t = gpujit::zeros::<f64>([2, 3, 4])?;
/// assert_eq!(t.len(), 24);
/// # Ok(())
/// # }
/// ```
pub fn zeros<T: DeviceScalar>(shape: impl Into<Shape>) -> Result<DeviceArray<T>> {
    DeviceArray::zeros(shape)
}

impl<T: DeviceScalar> DeviceArray<T> {
    /// See [`crate::to_device`].
    ///
    /// # Errors
    /// As [`crate::to_device`].
    pub fn to_device<H: HostData<T> + ?Sized>(host: &H) -> Result<Self> {
        let (shape, data) = checked_c_order(host)?;
        let mut array = Self::zeros(shape)?;
        array.buf.write(0, as_bytes(&data))?;
        Ok(array)
    }

    /// See [`crate::device_array`]: zero-filled, unlike Numba's.
    ///
    /// # Errors
    /// As [`crate::device_array`].
    #[allow(clippy::self_named_constructors)] // Numba's name
    pub fn device_array(shape: impl Into<Shape>) -> Result<Self> {
        Self::zeros(shape)
    }

    /// A zero-filled array of `shape` on the current backend.
    ///
    /// # Errors
    /// As [`crate::device_array`].
    pub fn zeros(shape: impl Into<Shape>) -> Result<Self> {
        Self::zeros_on(current_backend()?, shape)
    }

    /// A zero-filled array of `shape` on `backend`, whichever is current
    /// (the CPU executor's unit tests allocate host buffers with it).
    pub(crate) fn zeros_on(backend: &dyn crate::backend::Backend, shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        let (_, bytes) = shape.size_of::<T>()?;
        let buf = backend.alloc_zeroed(bytes)?;
        Ok(DeviceArray {
            shape: shape.0,
            buf,
            _t: PhantomData,
        })
    }

    /// Copies the elements (C order) to a new `Vec`, like Numba's `copy_to_host`.
    ///
    /// # Errors
    /// Backend errors (CUDA).
    pub fn copy_to_host(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        self.copy_to_host_into(&mut out)?;
        Ok(out)
    }

    /// Copies the elements (C order) into `dst`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `dst.len() != self.len()`; backend errors.
    pub fn copy_to_host_into(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() != self.len() {
            return Err(Error::ShapeMismatch(format!(
                "cannot copy an array of shape {:?} ({} elements) into a host slice of {} elements",
                self.shape,
                self.len(),
                dst.len()
            )));
        }
        // SAFETY: `make_valid` runs on the bytes right after the copy.
        let bytes = unsafe { as_bytes_mut(dst) };
        let read = self.buf.read(0, bytes);
        // Before `dst` is read as `T` again, also after a failed copy.
        T::make_valid(bytes);
        read
    }

    /// Copies the elements to a new ndarray array of dimension `D` (`Ix1`,
    /// `Ix2`, `Ix3` or `IxDyn`) with this array's shape.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `D` has another number of dimensions than
    /// the array; backend errors.
    pub fn copy_to_ndarray<D: ndarray::Dimension>(&self) -> Result<ndarray::Array<T, D>> {
        if let Some(n) = D::NDIM {
            if n != self.ndim() {
                return Err(Error::ShapeMismatch(format!(
                    "cannot copy a {}-D array of shape {:?} into a {n}-D ndarray; use copy_to_ndarray::<ndarray::Ix{}>()",
                    self.ndim(),
                    self.shape,
                    self.ndim()
                )));
            }
        }
        let data = self.copy_to_host()?;
        let mismatch = |e: ndarray::ShapeError| Error::ShapeMismatch(format!("array of shape {:?}: {e}", self.shape));
        ndarray::Array::from_shape_vec(ndarray::IxDyn(&self.shape), data)
            .map_err(mismatch)?
            .into_dimensionality::<D>()
            .map_err(mismatch)
    }

    /// Overwrites the elements (C order) with `src`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `src.len() != self.len()`; backend errors.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len() {
            return Err(Error::ShapeMismatch(format!(
                "cannot copy a host slice of {} elements into an array of shape {:?} ({} elements)",
                src.len(),
                self.shape,
                self.len()
            )));
        }
        self.buf.write(0, as_bytes(src))
    }

    /// The GPU the array lives on (`None` on the CPU backend).
    pub fn device(&self) -> Option<usize> {
        self.buf.device()
    }

    /// The shape in elements, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions (1-3).
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        // Checked not to overflow when the array was made.
        self.shape.iter().product()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the elements in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len() * std::mem::size_of::<T>()
    }

    /// The same elements with another shape of the same number of elements (C
    /// order, no copy), like ndarray's `into_shape`.
    ///
    /// # Errors
    /// [`Error::InvalidShape`] for an invalid shape; [`Error::ShapeMismatch`]
    /// if the number of elements differs.
    pub fn reshape(self, shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        let (len, _) = shape.size_of::<T>()?;
        if len != self.len() {
            return Err(Error::ShapeMismatch(format!(
                "cannot reshape an array of shape {:?} ({} elements) to {:?} ({len} elements)",
                self.shape,
                self.len(),
                shape.dims()
            )));
        }
        Ok(DeviceArray {
            shape: shape.0,
            buf: self.buf,
            _t: PhantomData,
        })
    }

    /// The buffer holding the elements.
    pub(crate) fn buffer(&self) -> &dyn DeviceBuffer {
        &*self.buf
    }

    /// The buffer holding the elements, writable.
    pub(crate) fn buffer_mut(&mut self) -> &mut dyn DeviceBuffer {
        &mut *self.buf
    }

    /// The launch argument for this array.
    fn as_arg(&self) -> ArrayArg<'_> {
        ArrayArg {
            backend: self.buf.backend(),
            buf: BufArg::Read(&*self.buf),
            shape: &self.shape,
            elem: T::TYPE,
            mutable: false,
            claim: Default::default(),
        }
    }

    /// The launch argument for this array, written by the kernel.
    fn as_arg_mut(&mut self) -> ArrayArg<'_> {
        ArrayArg {
            backend: self.buf.backend(),
            buf: BufArg::Write(&mut *self.buf),
            shape: &self.shape,
            elem: T::TYPE,
            mutable: true,
            claim: Default::default(),
        }
    }
}

impl<'a> KernelArg<'a> {
    /// A read-only array.
    pub fn array<T: DeviceScalar>(array: &'a DeviceArray<T>) -> Self {
        KernelArg::Array(array.as_arg())
    }

    /// A written array (the `&mut` borrow makes it exclusive for the launch).
    pub fn array_mut<T: DeviceScalar>(array: &'a mut DeviceArray<T>) -> Self {
        KernelArg::Array(array.as_arg_mut())
    }
}

impl<T: DeviceScalar> fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceArray")
            .field("elem", &T::TYPE.rust_name())
            .field("shape", &self.shape)
            .field("backend", &self.buf.backend().to_string())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, Array2, Ix1, Ix2, Ix3, IxDyn};

    #[test]
    fn round_trips() {
        let v: Vec<f32> = (0..10).map(|i| i as f32 * 0.5).collect();
        let a = to_device(&v).unwrap();
        assert_eq!(a.shape(), &[10]);
        assert_eq!(a.copy_to_host().unwrap(), v);
        let s = to_device(&v[2..5]).unwrap();
        assert_eq!(s.copy_to_host().unwrap(), &v[2..5]);
        let arr = to_device(&[1u8, 2, 3]).unwrap();
        assert_eq!(arr.copy_to_host().unwrap(), [1, 2, 3]);
        assert_eq!(arr.size_bytes(), 3);

        let m: Array2<i64> = array![[1, 2, 3], [4, 5, 6]];
        let d = to_device(&m).unwrap();
        assert_eq!(d.shape(), &[2, 3]);
        assert_eq!(d.copy_to_ndarray::<Ix2>().unwrap(), m);
        assert_eq!(
            d.copy_to_ndarray::<IxDyn>()
                .unwrap()
                .into_dimensionality::<Ix2>()
                .unwrap(),
            m
        );

        // A transposed view is not in standard layout: copied in C order first.
        let t = m.t();
        assert!(!t.is_standard_layout());
        let dt = to_device(&t).unwrap();
        assert_eq!(dt.shape(), &[3, 2]);
        assert_eq!(dt.copy_to_host().unwrap(), vec![1, 4, 2, 5, 3, 6]);
        assert_eq!(dt.copy_to_ndarray::<Ix2>().unwrap(), t);

        let mut z = zeros::<u32>((2, 2, 2)).unwrap();
        assert_eq!(z.copy_to_host().unwrap(), vec![0; 8]);
        z.copy_from_host(&[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let mut out = [0u32; 8];
        z.copy_to_host_into(&mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8]);
        let r = z.reshape([4, 2]).unwrap();
        assert_eq!(
            r.copy_to_ndarray::<Ix2>().unwrap(),
            array![[1, 2], [3, 4], [5, 6], [7, 8]]
        );
        assert!(format!("{r:?}").contains("[4, 2]"));

        let e = device_array::<f64>([0, 5]).unwrap();
        assert!(e.is_empty());
        assert_eq!(e.copy_to_host().unwrap(), Vec::<f64>::new());
    }

    #[test]
    fn shape_errors() {
        assert!(matches!(zeros::<f32>([usize::MAX, 2]), Err(Error::InvalidShape(_))));
        assert!(matches!(zeros::<f64>(usize::MAX / 4), Err(Error::InvalidShape(_))));
        assert!(matches!(zeros::<f32>(Vec::new()), Err(Error::InvalidShape(_))));
        assert!(matches!(zeros::<f32>([1, 1, 1, 1]), Err(Error::InvalidShape(_))));
        let four_d = ndarray::Array4::<f32>::zeros((1, 1, 1, 1));
        assert!(matches!(to_device(&four_d), Err(Error::InvalidShape(_))));

        let a = zeros::<f32>((2, 3)).unwrap();
        assert!(matches!(a.copy_to_ndarray::<Ix1>(), Err(Error::ShapeMismatch(_))));
        assert!(matches!(a.copy_to_ndarray::<Ix3>(), Err(Error::ShapeMismatch(_))));
        let mut small = [0f32; 5];
        assert!(matches!(a.copy_to_host_into(&mut small), Err(Error::ShapeMismatch(_))));
        let mut a = a;
        assert!(matches!(a.copy_from_host(&[1.0; 7]), Err(Error::ShapeMismatch(_))));
        assert!(matches!(a.reshape(7), Err(Error::ShapeMismatch(_))));
    }
}
