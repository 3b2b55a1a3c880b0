//! ndarray through `gpujit::ndarray` (the version gpujit is built with): the
//! arrays a user makes with the re-export go to the device and come back.

use crate::common;

use gpujit::ndarray::{array, s, Array2, ArrayRef2, Ix2, Ix3};
use gpujit::prelude::*;

#[gpu_kernel]
fn double_2d(a: ArrayView2<f32>, out: ArrayViewMut2<f32>) {
    let (x, y) = grid(2);
    let (rows, cols) = out.dim();
    if y < rows && x < cols {
        out[[y, x]] = 2.0 * a[[y, x]];
    }
}

fn reexported_ndarray_arrays_round_trip_through_a_kernel() {
    let a: Array2<f32> = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let d_a = gpujit::to_device(&a).unwrap();
    let mut d_out = gpujit::zeros::<f32>((2, 3)).unwrap();
    double_2d![(1, 1), (4, 4)](&d_a, &mut d_out).unwrap();
    let out: Array2<f32> = d_out.copy_to_ndarray::<Ix2>().unwrap();
    assert_eq!(out, array![[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]);
}

/// ndarray 0.17's `ArrayRef` (what `&*array` and `&mut *array` give) and a
/// strided view both copy in C order.
fn array_refs_and_strided_views_copy_in_c_order() {
    let a = gpujit::ndarray::Array3::<u32>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as u32);
    let by_ref: &gpujit::ndarray::ArrayRef3<u32> = &a;
    let d = gpujit::to_device(by_ref).unwrap();
    assert_eq!(d.shape(), &[2, 3, 4]);
    assert_eq!(d.copy_to_ndarray::<Ix3>().unwrap(), a);

    let m: Array2<i64> = array![[1, 2, 3], [4, 5, 6]];
    let col_rev = m.slice(s![.., ..;-2]);
    let d = gpujit::to_device(&col_rev).unwrap();
    assert_eq!(d.copy_to_host().unwrap(), vec![3, 1, 6, 4]);

    let t: &ArrayRef2<i64> = &m.t();
    let d = gpujit::to_device(t).unwrap();
    assert_eq!(d.shape(), &[3, 2]);
    assert_eq!(d.copy_to_host().unwrap(), vec![1, 4, 2, 5, 3, 6]);
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => reexported_ndarray_arrays_round_trip_through_a_kernel,
        None => array_refs_and_strided_views_copy_in_c_order,
    ]
}
