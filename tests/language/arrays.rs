//! Host ↔ device copies through the public API: `to_device`, `device_array`,
//! `zeros`, `copy_to_host`, `copy_to_host_into`, `copy_from_host`,
//! `copy_to_ndarray`, `reshape`, shapes and the shape errors.

use crate::common;

use gpujit::{device_array, to_device, zeros, DeviceArray, Error};
use ndarray::{Array1, Array2, Array3, Axis, Ix1, Ix2, Ix3, IxDyn};

fn slice_vec_and_array_round_trips() {
    let v: Vec<f64> = (0..101).map(|i| (i as f64).sin() * 1e3).collect();
    let a = to_device(&v).unwrap();
    assert_eq!(a.shape(), &[101]);
    assert_eq!((a.ndim(), a.len(), a.is_empty(), a.size_bytes()), (1, 101, false, 808));
    assert_eq!(a.copy_to_host().unwrap(), v);

    let s = to_device(&v[10..17]).unwrap();
    assert_eq!(s.copy_to_host().unwrap(), &v[10..17]);

    let arr = to_device(&[i8::MIN as i32, -1, 0, i32::MAX]).unwrap();
    assert_eq!(arr.copy_to_host().unwrap(), [-128, -1, 0, i32::MAX]);

    let bytes: Vec<u8> = (0..=255).collect();
    let b = gpujit::DeviceArray::to_device(&bytes).unwrap();
    assert_eq!((b.len(), b.size_bytes()), (256, 256));
    assert_eq!(b.copy_to_host().unwrap(), bytes);

    // Bit patterns survive (NaN payloads, -0.0, subnormals).
    let odd = [f32::from_bits(0x7fc0_1234), -0.0, f32::from_bits(1), f32::NEG_INFINITY];
    let got = to_device(&odd).unwrap().copy_to_host().unwrap();
    let bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, odd.map(f32::to_bits));

    // Every scalar type round-trips.
    assert_eq!(
        to_device(&[u64::MAX, 0]).unwrap().copy_to_host().unwrap(),
        [u64::MAX, 0]
    );
    assert_eq!(to_device(&[i64::MIN]).unwrap().copy_to_host().unwrap(), [i64::MIN]);
    assert_eq!(to_device(&[u32::MAX]).unwrap().copy_to_host().unwrap(), [u32::MAX]);
    assert_eq!(to_device(&[usize::MAX]).unwrap().copy_to_host().unwrap(), [usize::MAX]);
}

fn device_array_and_zeros_are_zero_filled_with_the_shape() {
    let d = device_array::<f32>((3, 5)).unwrap();
    assert_eq!(d.shape(), &[3, 5]);
    assert_eq!(d.copy_to_host().unwrap(), vec![0.0; 15]);
    let z = zeros::<i64>([2, 3, 4]).unwrap();
    assert_eq!(
        (z.shape(), z.ndim(), z.len(), z.size_bytes()),
        (&[2usize, 3, 4][..], 3, 24, 192)
    );
    assert_eq!(z.copy_to_host().unwrap(), vec![0; 24]);
    let z1 = DeviceArray::<u8>::zeros(7usize).unwrap();
    assert_eq!(z1.shape(), &[7]);
    let zv = zeros::<i32>(vec![4, 4]).unwrap();
    assert_eq!((zv.shape(), zv.len()), (&[4usize, 4][..], 16));
    let zs = zeros::<u32>(&[2usize, 2][..]).unwrap();
    assert_eq!(zs.shape(), &[2, 2]);
    // Zero-length dimensions are allowed.
    let e = zeros::<f64>((0, 5)).unwrap();
    assert!(e.is_empty());
    assert_eq!(e.copy_to_host().unwrap(), Vec::<f64>::new());
    assert_eq!(e.copy_to_ndarray::<Ix2>().unwrap().dim(), (0, 5));
}

fn ndarray_2d_3d_and_views_round_trip_in_c_order() {
    let m = Array2::<i32>::from_shape_fn((4, 7), |(i, j)| (i * 100 + j) as i32);
    let d = to_device(&m).unwrap();
    assert_eq!(d.shape(), &[4, 7]);
    assert_eq!(d.copy_to_ndarray::<Ix2>().unwrap(), m);
    assert_eq!(d.copy_to_host().unwrap(), m.iter().copied().collect::<Vec<_>>());

    let c = Array3::<f32>::from_shape_fn((3, 4, 5), |(i, j, k)| (i * 100 + j * 10 + k) as f32);
    let dc = to_device(&c).unwrap();
    assert_eq!(dc.shape(), &[3, 4, 5]);
    assert_eq!(dc.copy_to_ndarray::<Ix3>().unwrap(), c);
    let dynamic = dc.copy_to_ndarray::<IxDyn>().unwrap();
    assert_eq!(dynamic.shape(), &[3, 4, 5]);
    assert_eq!(dynamic.into_dimensionality::<Ix3>().unwrap(), c);

    // A transposed view: copied in its logical C order.
    let t = m.t();
    assert!(!t.is_standard_layout());
    let dt = to_device(&t).unwrap();
    assert_eq!(dt.shape(), &[7, 4]);
    let want: Vec<i32> = (0..7).flat_map(|j| (0..4).map(move |i| i * 100 + j)).collect();
    assert_eq!(dt.copy_to_host().unwrap(), want);
    assert_eq!(dt.copy_to_ndarray::<Ix2>().unwrap(), t);

    // A permuted 3-D view and a strided slice.
    let p = c.view().permuted_axes([2, 0, 1]);
    let dp = to_device(&p).unwrap();
    assert_eq!(dp.shape(), &[5, 3, 4]);
    assert_eq!(dp.copy_to_ndarray::<Ix3>().unwrap(), p);
    let strided = c.slice(ndarray::s![.., 1..;2, ..;-1]);
    let ds = to_device(&strided).unwrap();
    assert_eq!(ds.shape(), strided.shape());
    assert_eq!(ds.copy_to_ndarray::<Ix3>().unwrap(), strided);
    let col = m.index_axis(Axis(1), 3);
    assert_eq!(to_device(&col).unwrap().copy_to_ndarray::<Ix1>().unwrap(), col);

    let one = Array1::from(vec![1u8, 2, 3]);
    assert_eq!(to_device(&one).unwrap().copy_to_ndarray::<Ix1>().unwrap(), one);
}

fn copy_into_and_from_host_slices() {
    let mut a = zeros::<u32>((2, 3)).unwrap();
    a.copy_from_host(&[1, 2, 3, 4, 5, 6]).unwrap();
    let mut buf = [0u32; 6];
    a.copy_to_host_into(&mut buf).unwrap();
    assert_eq!(buf, [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        a.copy_to_ndarray::<Ix2>().unwrap(),
        ndarray::array![[1, 2, 3], [4, 5, 6]]
    );
    // Overwriting replaces every element.
    a.copy_from_host(&[9; 6]).unwrap();
    assert_eq!(a.copy_to_host().unwrap(), vec![9; 6]);
}

fn reshape_keeps_the_elements_in_c_order() {
    let data: Vec<i32> = (0..24).collect();
    let a = to_device(&data).unwrap();
    let b = a.reshape((4, 6)).unwrap();
    assert_eq!(b.shape(), &[4, 6]);
    assert_eq!(
        b.copy_to_ndarray::<Ix2>().unwrap(),
        Array2::from_shape_vec((4, 6), data.clone()).unwrap()
    );
    let c = b.reshape([2, 3, 4]).unwrap();
    assert_eq!(
        c.copy_to_ndarray::<Ix3>().unwrap(),
        Array3::from_shape_vec((2, 3, 4), data.clone()).unwrap()
    );
    let d = c.reshape(24usize).unwrap();
    assert_eq!(d.copy_to_host().unwrap(), data);
    assert!(format!("{d:?}").contains("[24]"));
}

fn shape_errors() {
    // More than 3 dimensions.
    assert!(matches!(zeros::<f32>([1, 2, 3, 4]), Err(Error::InvalidShape(_))));
    assert!(matches!(zeros::<f32>(Vec::<usize>::new()), Err(Error::InvalidShape(_))));
    let four_d = ndarray::Array4::<f32>::zeros((1, 2, 1, 2));
    match to_device(&four_d) {
        Err(Error::InvalidShape(m)) => assert!(m.contains('4'), "{m}"),
        other => panic!("expected InvalidShape, got {other:?}"),
    }
    let zero_d = ndarray::arr0(1.0f64);
    assert!(matches!(to_device(&zero_d), Err(Error::InvalidShape(_))));

    // Byte size overflow: element count fits, bytes do not; and element count overflows.
    assert!(matches!(zeros::<f64>(usize::MAX / 4), Err(Error::InvalidShape(_))));
    assert!(matches!(zeros::<u8>((usize::MAX, 2)), Err(Error::InvalidShape(_))));
    assert!(matches!(
        device_array::<u32>((1usize << 40, 1usize << 40)),
        Err(Error::InvalidShape(_))
    ));
    // isize::MAX bytes is the documented cap.
    assert!(matches!(
        zeros::<u8>(isize::MAX as usize + 1),
        Err(Error::InvalidShape(_))
    ));

    // Copies of the wrong length.
    let mut a = zeros::<f32>((2, 3)).unwrap();
    let mut short = [0f32; 5];
    assert!(matches!(a.copy_to_host_into(&mut short), Err(Error::ShapeMismatch(_))));
    let mut long = [0f32; 7];
    assert!(matches!(a.copy_to_host_into(&mut long), Err(Error::ShapeMismatch(_))));
    assert!(matches!(a.copy_from_host(&[1.0; 7]), Err(Error::ShapeMismatch(_))));
    assert!(matches!(a.copy_from_host(&[]), Err(Error::ShapeMismatch(_))));
    assert_eq!(
        a.copy_to_host().unwrap(),
        vec![0.0; 6],
        "a failed copy changed the array"
    );

    // copy_to_ndarray of the wrong dimension.
    assert!(matches!(a.copy_to_ndarray::<Ix1>(), Err(Error::ShapeMismatch(_))));
    assert!(matches!(a.copy_to_ndarray::<Ix3>(), Err(Error::ShapeMismatch(_))));

    // Reshape to another element count, or to an invalid shape.
    let a = zeros::<f32>((2, 3)).unwrap();
    let a = match a.reshape(7usize) {
        Err(Error::ShapeMismatch(m)) => {
            assert!(m.contains('7') && m.contains('6'), "{m}");
            zeros::<f32>((2, 3)).unwrap()
        }
        other => panic!("expected ShapeMismatch, got {other:?}"),
    };
    assert!(matches!(a.reshape([1, 1, 2, 3]), Err(Error::InvalidShape(_))));
}

/// A `HostData` implementation outside gpujit whose element count disagrees
/// with its shape.
struct Lying {
    shape: Vec<usize>,
    elems: usize,
}

impl gpujit::HostData<f32> for Lying {
    fn c_order(&self) -> gpujit::Result<(Vec<usize>, std::borrow::Cow<'_, [f32]>)> {
        Ok((self.shape.clone(), std::borrow::Cow::Owned(vec![1.0; self.elems])))
    }
}

fn host_data_whose_length_disagrees_with_its_shape_is_refused() {
    let stream = gpujit::stream().unwrap();
    for (shape, elems) in [(vec![100], 3), (vec![2, 3], 7), (vec![usize::MAX, 2], 0)] {
        let host = Lying { shape, elems };
        for result in [to_device(&host), gpujit::to_device_on(&host, &stream)] {
            match result {
                Err(Error::ShapeMismatch(m)) => assert!(m.contains("product(shape)"), "{m}"),
                other => panic!(
                    "{:?} with {elems} elements: expected ShapeMismatch, got {other:?}",
                    host.shape
                ),
            }
        }
    }
    let honest = Lying {
        shape: vec![2, 3],
        elems: 6,
    };
    assert_eq!(to_device(&honest).unwrap().copy_to_host().unwrap(), vec![1.0; 6]);
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => slice_vec_and_array_round_trips,
        None => device_array_and_zeros_are_zero_filled_with_the_shape,
        None => ndarray_2d_3d_and_views_round_trip_in_c_order,
        None => copy_into_and_from_host_slices,
        None => reshape_keeps_the_elements_in_c_order,
        None => shape_errors,
        None => host_data_whose_length_disagrees_with_its_shape_is_refused,
    ]
}
