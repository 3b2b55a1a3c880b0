//! The differential harness: a kernel's arguments ([`Arg`]), a run on the
//! CPU backend, the comparison of every output array (bit for bit, or within
//! some ulps) and [`check`], which runs a list of cases on both sides.

use super::*;

/// One launch argument, type-erased: a scalar, or an array's shape and bytes.
#[derive(Clone, Debug)]
pub(crate) enum Arg {
    Scalar(ScalarValue),
    Array {
        elem: ScalarType,
        shape: Vec<usize>,
        bytes: Vec<u8>,
    },
}

pub(crate) fn bytes_of<T: DeviceScalar>(data: &[T]) -> Vec<u8> {
    // SAFETY: `DeviceScalar` types are integers, floats and `bool`: no padding.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)).to_vec() }
}

pub(crate) fn values_of<T: DeviceScalar>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        // SAFETY: the bytes come from `bytes_of` valid `T`s (for `bool`, 0 or 1),
        // and any bit pattern is a valid numeric `T`; `read_unaligned` needs no alignment.
        .map(|c| unsafe { c.as_ptr().cast::<T>().read_unaligned() })
        .collect()
}

pub(crate) fn s<T: KernelScalar>(v: T) -> Arg {
    Arg::Scalar(v.to_value())
}

pub(crate) fn a<T: DeviceScalar>(shape: &[usize], data: &[T]) -> Arg {
    assert_eq!(
        shape.iter().product::<usize>(),
        data.len(),
        "test data does not fill its shape"
    );
    Arg::Array {
        elem: T::TYPE,
        shape: shape.to_vec(),
        bytes: bytes_of(data),
    }
}

pub(crate) fn v<T: DeviceScalar>(data: &[T]) -> Arg {
    a(&[data.len()], data)
}

pub(crate) fn z<T: DeviceScalar>(shape: &[usize]) -> Arg {
    a(shape, &vec![T::default(); shape.iter().product()])
}

/// Runs `k` on the CPU backend; returns every array's bytes afterwards.
pub(crate) fn run_cpu(
    k: &'static KernelDef,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> Vec<Vec<u8>> {
    let (out, r) = try_run_cpu(k, grid, block, args);
    r.unwrap_or_else(|e| panic!("{}: CPU backend: {e}", k.name));
    out
}

/// Runs `k` on the CPU backend; returns every array's bytes afterwards and
/// the launch's result.
pub(crate) fn try_run_cpu(
    k: &'static KernelDef,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> (Vec<Vec<u8>>, gpujit::Result<()>) {
    enum Dev {
        U8(DeviceArray<u8>),
        I8(DeviceArray<i8>),
        I16(DeviceArray<i16>),
        U16(DeviceArray<u16>),
        Bool(DeviceArray<bool>),
        I32(DeviceArray<i32>),
        I64(DeviceArray<i64>),
        U32(DeviceArray<u32>),
        U64(DeviceArray<u64>),
        Usize(DeviceArray<usize>),
        F32(DeviceArray<f32>),
        F64(DeviceArray<f64>),
    }
    macro_rules! each {
        ($dev:expr, $a:ident => $body:expr) => {
            match $dev {
                Dev::U8($a) => $body,
                Dev::I8($a) => $body,
                Dev::I16($a) => $body,
                Dev::U16($a) => $body,
                Dev::Bool($a) => $body,
                Dev::I32($a) => $body,
                Dev::I64($a) => $body,
                Dev::U32($a) => $body,
                Dev::U64($a) => $body,
                Dev::Usize($a) => $body,
                Dev::F32($a) => $body,
                Dev::F64($a) => $body,
            }
        };
    }
    fn upload<T: DeviceScalar>(shape: &[usize], bytes: &[u8]) -> DeviceArray<T> {
        let host: Vec<T> = values_of(bytes);
        gpujit::to_device(&host).and_then(|d| d.reshape(shape)).expect("upload")
    }
    let mut devs: Vec<Option<Dev>> = args
        .iter()
        .map(|arg| match arg {
            Arg::Scalar(_) => None,
            Arg::Array { elem, shape, bytes } => Some(match elem {
                ScalarType::U8 => Dev::U8(upload(shape, bytes)),
                ScalarType::I32 => Dev::I32(upload(shape, bytes)),
                ScalarType::I64 => Dev::I64(upload(shape, bytes)),
                ScalarType::U32 => Dev::U32(upload(shape, bytes)),
                ScalarType::U64 => Dev::U64(upload(shape, bytes)),
                ScalarType::Usize => Dev::Usize(upload(shape, bytes)),
                ScalarType::F32 => Dev::F32(upload(shape, bytes)),
                ScalarType::F64 => Dev::F64(upload(shape, bytes)),
                ScalarType::I8 => Dev::I8(upload(shape, bytes)),
                ScalarType::I16 => Dev::I16(upload(shape, bytes)),
                ScalarType::U16 => Dev::U16(upload(shape, bytes)),
                ScalarType::Bool => Dev::Bool(upload(shape, bytes)),
            }),
        })
        .collect();
    let mut kernel_args: Vec<KernelArg<'_>> = args
        .iter()
        .zip(devs.iter_mut())
        .zip(k.params)
        .map(|((arg, dev), param)| match (arg, dev) {
            (Arg::Scalar(v), _) => KernelArg::Scalar(*v),
            (_, Some(d)) => {
                let mutable = matches!(param.kind, ParamKind::Array { mutable: true, .. });
                if mutable {
                    each!(d, x => KernelArg::array_mut(x))
                } else {
                    each!(d, x => KernelArg::array(&*x))
                }
            }
            (_, None) => unreachable!("arrays have a device copy"),
        })
        .collect();
    let r = gpujit::__private::launch_kernel(k, grid, block, &mut kernel_args);
    drop(kernel_args);
    let out = devs
        .iter()
        .flatten()
        .map(|d| each!(d, x => bytes_of(&x.copy_to_host().expect("download"))))
        .collect();
    (out, r)
}

/// Largest difference in units in the last place allowed for floats (0: bit-exact).
#[derive(Clone, Copy)]
pub(crate) struct Ulps(pub(crate) u64);

pub(crate) fn compare(k: &KernelDef, args: &[Arg], cpu: &[Vec<u8>], cxx: &[Vec<u8>], ulps: Ulps) -> Vec<String> {
    let arrays = args.iter().filter_map(|arg| match arg {
        Arg::Array { elem, .. } => Some(*elem),
        Arg::Scalar(_) => None,
    });
    let names = k
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Array { .. }))
        .map(|p| p.name);
    let mut problems = Vec::new();
    for (((elem, name), c), x) in arrays.zip(names).zip(cpu).zip(cxx) {
        let diffs: Vec<String> = match elem {
            ScalarType::F32 => float_diffs(&values_of::<f32>(c), &values_of::<f32>(x), ulps, |v| {
                (v.to_bits() as i64, v.is_nan())
            }),
            ScalarType::F64 => float_diffs(&values_of::<f64>(c), &values_of::<f64>(x), ulps, |v| {
                (v.to_bits() as i64, v.is_nan())
            }),
            _ => c
                .iter()
                .zip(x)
                .enumerate()
                .filter(|(_, (p, q))| p != q)
                .map(|(i, _)| format!("byte {i}"))
                .collect(),
        };
        if !diffs.is_empty() {
            problems.push(format!(
                "{}: `{name}` differs at {}",
                k.name,
                diffs.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    problems
}

/// Positions where `c` and `x` differ by more than `ulps`; `bits` gives a
/// value's bit pattern and whether it is NaN (any NaN matches any NaN).
pub(crate) fn float_diffs<F: Copy + std::fmt::Debug>(
    c: &[F],
    x: &[F],
    ulps: Ulps,
    bits: impl Fn(F) -> (i64, bool),
) -> Vec<String> {
    c.iter()
        .zip(x)
        .enumerate()
        .filter(|(_, (p, q))| {
            let ((pb, pnan), (qb, qnan)) = (bits(**p), bits(**q));
            !(pnan && qnan) && pb.abs_diff(qb) > ulps.0
        })
        .map(|(i, (p, q))| format!("[{i}] CPU {p:?} vs C {q:?}"))
        .collect()
}

/// Runs each case on both sides and collects every difference.
/// Grid or block size.
pub(crate) type Dims = (u32, u32, u32);

/// Kernel, grid, block, arguments, float tolerance.
pub(crate) type Case = (&'static KernelDef, Dims, Dims, Vec<Arg>, Ulps);

pub(crate) fn check(cases: Vec<Case>) {
    let lib = library();
    let mut problems = Vec::new();
    for (k, grid, block, args, ulps) in &cases {
        let cpu = run_cpu(k, *grid, *block, args);
        let (cxx, trapped) = run_cxx(lib, k, *grid, *block, args);
        if trapped {
            problems.push(format!("{}: the C called __trap()", k.name));
        }
        problems.extend(compare(k, args, &cpu, &cxx, *ulps));
    }
    assert!(
        problems.is_empty(),
        "the CUDA C and the CPU backend disagree:\n{}",
        problems.join("\n")
    );
    eprintln!("{} launches agree", cases.len());
}

pub(crate) const EXACT: Ulps = Ulps(0);
pub(crate) const ONE: (u32, u32, u32) = (1, 1, 1);

pub(crate) fn lin(n: u32) -> (u32, u32, u32) {
    (n, 1, 1)
}
