//! Names the translation must keep apart: shadowed bindings next to user
//! variables that look like generated names, kernels and parameters named
//! like C keywords, CUDA builtins or the generated code's own items, deferred
//! initialisation, and outside constants whose C names could collide.
//! Each kernel is checked on the CPU backend against the host; its CUDA C is
//! compiled by NVRTC in `tests/agree/cuda_kernels.rs` and run on the host in
//! `tests/agree/`.

// A kernel in a fn body must not draw rustc's `non_local_definitions` lint
// (`kernel_in_a_function_body` below).
#![deny(non_local_definitions)]

use crate::common;

use crate::kernels;

use kernels::naming::*;

fn shadowing_never_captures_another_variable() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<i32>(3)?;
    shadow_next_to_suffix![1, 32](&mut out)?;
    assert_eq!(out.copy_to_host()?, vec![112; 3]);

    let x: Vec<f32> = (0..9).map(|i| (i * i) as f32).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut d_out = gpujit::zeros::<f32>(x.len())?;
    inner_shadow![1, 32](&d_x, &mut d_out)?;
    let got = d_out.copy_to_host()?;
    for i in 0..x.len() - 1 {
        assert_eq!(got[i], 2.0 * (x[i + 1] - x[i]), "element {i}");
    }
    let src = inner_shadow::cuda_source();
    assert!(!src.contains("x_1 = x_2 - x_1"), "the inner `x` captured `x_1`:\n{src}");
    Ok(())
}

fn reserved_names_are_renamed_in_c() -> gpujit::Result<()> {
    let mut d = gpujit::zeros::<f32>(4)?;
    float![1, 4](1.0, 2.0, 3, 4, 0.5, 4.0, &mut d)?;
    assert_eq!(d.copy_to_host()?, vec![12.0; 4]);
    assert_eq!(float::KERNEL.entry, "float_kernel");
    assert!(float::cuda_source().contains("void float_kernel("));

    let mut d = gpujit::to_device(&[4.0f32, 9.0, 2.0])?;
    sqrt![1, 32](&mut d)?;
    assert_eq!(d.copy_to_host()?, vec![2.0, 3.0, 2.0f32.sqrt()]);
    Ok(())
}

fn deferred_initialisation() -> gpujit::Result<()> {
    let x = [1.5f32, -2.0, 0.0, 3.0];
    let d_x = gpujit::to_device(&x)?;
    let mut d_out = gpujit::zeros::<f32>(x.len())?;
    deferred_init![1, 8](&d_x, &mut d_out)?;
    let want: Vec<f32> = x.iter().map(|&v| if v > 0.0 { 2.0 * v } else { -v }).collect();
    assert_eq!(d_out.copy_to_host()?, want);
    Ok(())
}

fn outside_constants_keep_their_values() -> gpujit::Result<()> {
    let mut d = gpujit::zeros::<f32>(2)?;
    const_names![1, 2](&mut d)?;
    assert_eq!(d.copy_to_host()?, vec![f32::MAX, 1.0]);
    let src = const_names::cuda_source();
    assert!(
        src.contains("f32_MAX = 1.0f;") && src.contains("= 3.4028235e38f;"),
        "{src}"
    );
    Ok(())
}

fn unused_bindings_compile_without_warnings() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<f64>(2)?;
    unused_on_purpose![1, 1](true, &mut out)?;
    assert_eq!(out.copy_to_host()?, vec![1.0, 0.0]);
    assert!(unused_on_purpose::cuda_source().contains("[[maybe_unused]] const unsigned long long _i"));
    Ok(())
}

fn generated_names_never_capture_user_names() -> gpujit::Result<()> {
    let x: Vec<f32> = (0..6).map(|i| i as f32 * 1.5 - 2.0).collect();
    let d_x = gpujit::to_device(&x)?;
    let mut d_out = gpujit::zeros::<f32>(x.len())?;
    gj_names![1, 8](0.5, 3.0, 7.0, &d_x, &mut d_out)?;
    let want: Vec<f32> = x.iter().map(|&v| (0.5 + v) * 3.0 + 7.0 + 10.0 + 0.0 + 1.0).collect();
    assert_eq!(d_out.copy_to_host()?, want);
    let src = gj_names::cuda_source();
    assert!(!src.contains(" gj_x") && !src.contains(" gj_thread"), "{src}");
    Ok(())
}

fn raw_identifiers_translate() -> gpujit::Result<()> {
    let m: Vec<f32> = (0..5).map(|i| i as f32 - 1.0).collect();
    let d_m = gpujit::to_device(&m)?;
    let mut d_t = gpujit::zeros::<f32>(m.len())?;
    r#fn![1, 8](1.5, &d_m, &mut d_t)?;
    let want: Vec<f32> = m.iter().map(|&v| v * 2.0 + 1.5 + 3.0 + 0.25).collect();
    assert_eq!(d_t.copy_to_host()?, want);
    assert_eq!(r#fn::KERNEL.name, "fn");
    assert!(r#fn::KERNEL.params.iter().map(|p| p.name).eq(["fn", "match", "type"]));
    Ok(())
}

fn names_reserved_in_c_translate() -> gpujit::Result<()> {
    let r: Vec<f32> = (0..8).map(|i| i as f32 * 0.25 - 1.0).collect();
    let d_r = gpujit::to_device(&r)?;
    let mut d_s = gpujit::zeros::<f32>(r.len())?;
    __global__![1, 8](2.0, &d_r, &mut d_s, 3.0, 0.125, 5)?;
    let want: Vec<f32> = r
        .iter()
        .map(|&x| (x.abs().max(0.5) * 2.0 + -3.0 + 2.0) + 2.0 * 3.0 + 0.125 + 4.0 + 5.0 + 8.0 + 2.0)
        .collect();
    assert_eq!(d_s.copy_to_host()?, want);
    let src = __global__::cuda_source();
    for bad in [
        "__global__ *",
        " __restrict__,",
        " class =",
        " float =",
        " _Reserved",
        " __x ",
        " fabsf =",
    ] {
        assert!(!src.contains(bad), "`{bad}` in\n{src}");
    }
    Ok(())
}

fn names_nvrtc_declares_are_renamed() -> gpujit::Result<()> {
    let x = [1.0f32, -2.5, 4.0];
    let mut d = gpujit::to_device(&x)?;
    erfc![1, 4](&mut d)?;
    assert_eq!(d.copy_to_host()?, vec![3.0, -0.5, 6.0]);
    j0![1, 4](&mut d)?;
    assert_eq!(d.copy_to_host()?, vec![4.0, 0.5, 7.0]);
    assert_eq!((erfc::KERNEL.entry, j0::KERNEL.entry), ("erfc_kernel", "j0_kernel"));
    assert!(!erfc::cuda_source().contains(" y1 ="), "{}", erfc::cuda_source());

    let mut out = gpujit::zeros::<u32>(6)?;
    uint3_local![2, 3](&mut out)?;
    assert_eq!(out.copy_to_host()?, vec![31, 32, 33, 31, 32, 33]);
    let src = uint3_local::cuda_source();
    assert!(!src.contains(" uint3 =") && !src.contains(" dim3 ="), "{src}");

    let r: Vec<f32> = (0..10).map(|i| i as f32 * 0.5).collect();
    let d_r = gpujit::to_device(&r)?;
    let mut d_f = gpujit::zeros::<f32>(r.len())?;
    normcdf![2, 8](&d_r, &mut d_f, 7, 0.25)?;
    let want: Vec<f32> = r.iter().map(|&v| v * 1.0 + 3.0 + 7.0 + 0.25 + 1.5).collect();
    assert_eq!(d_f.copy_to_host()?, want);
    assert_eq!(normcdf::KERNEL.entry, "normcdf_kernel");
    Ok(())
}

fn kernel_in_a_function_body() -> gpujit::Result<()> {
    use gpujit::prelude::*;

    #[gpu_kernel]
    fn local_k(x: &mut [f32]) {
        let i = grid(1);
        if i < x.len() {
            x[i] = 2.0 * i as f32;
        }
    }

    let mut d = gpujit::zeros::<f32>(5)?;
    local_k![2, 4](&mut d)?;
    assert_eq!(d.copy_to_host()?, vec![0.0, 2.0, 4.0, 6.0, 8.0]);
    local_k::launch(1, 8, &mut d)?;
    assert_eq!(local_k::KERNEL.name, "local_k");
    Ok(())
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => shadowing_never_captures_another_variable,
        None => reserved_names_are_renamed_in_c,
        None => deferred_initialisation,
        None => outside_constants_keep_their_values,
        None => unused_bindings_compile_without_warnings,
        None => generated_names_never_capture_user_names,
        None => raw_identifiers_translate,
        None => names_reserved_in_c_translate,
        None => names_nvrtc_declares_are_renamed,
        None => kernel_in_a_function_body,
    ]
}
