//! Launching kernels from other crates and other modules: the launch macro
//! comes with the kernel when it is imported, and the method form works
//! without any import.

use gpujit_examples::kernels::scale;

use crate::common;

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => macro_form_from_another_crate,
        None => method_form_by_path,
        None => macro_form_from_another_module,
        None => too_few_blocks_leave_elements_untouched,
        Some(common::Tool::Nvrtc) => kernels_of_this_file_compile_with_nvrtc,
    ]
}

mod inner {
    use gpujit::prelude::*;

    /// A crate-private kernel in another module.
    #[gpu_kernel]
    pub(crate) fn add_one(x: &mut [i32]) {
        let i = grid(1);
        if i < x.len() {
            x[i] += 1;
        }
    }
}

fn inputs(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 3.0).collect()
}

fn macro_form_from_another_crate() -> gpujit::Result<()> {
    let x = inputs(1000);
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::zeros::<f32>(x.len())?;
    scale![x.len().div_ceil(128), 128](3.0, &d_x, &mut d_y)?;
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
    assert_eq!(d_y.copy_to_host()?, want);
    Ok(())
}

fn method_form_by_path() -> gpujit::Result<()> {
    let x = inputs(77);
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::zeros::<f32>(x.len())?;
    gpujit_examples::kernels::scale::launch(3, 32, -2.0, &d_x, &mut d_y)?;
    let want: Vec<f32> = x.iter().map(|v| -2.0 * v).collect();
    assert_eq!(d_y.copy_to_host()?, want);
    assert!(gpujit_examples::kernels::scale::cuda_source().contains("__global__ void scale("));
    Ok(())
}

fn macro_form_from_another_module() -> gpujit::Result<()> {
    use inner::add_one;
    let host: Vec<i32> = (0..300).map(|i| i * 7 - 1000).collect();
    let mut d = gpujit::to_device(&host)?;
    add_one![(3usize, 1usize), 128](&mut d)?;
    add_one![gpujit::Dim3::new(3, 1, 1), (128, 1, 1)](&mut d)?;
    let want: Vec<i32> = host.iter().map(|v| v + 2).collect();
    assert_eq!(d.copy_to_host()?, want);
    Ok(())
}

fn too_few_blocks_leave_elements_untouched() -> gpujit::Result<()> {
    // Numba semantics: the launch covers exactly grid * block threads.
    let x = inputs(100);
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::zeros::<f32>(x.len())?;
    scale![1, 64](1.0, &d_x, &mut d_y)?;
    let y = d_y.copy_to_host()?;
    assert_eq!(&y[..64], &x[..64]);
    assert!(y[64..].iter().all(|&v| v == 0.0));
    Ok(())
}

fn kernels_of_this_file_compile_with_nvrtc() {
    common::assert_compiles_with_nvrtc("cross_crate", &[&inner::add_one::KERNEL]);
}
