//! Kernels nested as deeply as rustc itself accepts (`tests/kernels/deep.rs`):
//! they translate, run on the CPU backend with the values a host reference
//! computes in the same order, and their CUDA C compiles with NVRTC.

use crate::common;
#[path = "../kernels/deep.rs"]
#[rustfmt::skip] // generated, and too deep for rustfmt to finish
mod deep_kernels;

use deep_kernels::*;

fn long_sums_translate_and_run() -> gpujit::Result<()> {
    let mut a = gpujit::zeros::<i32>(5)?;
    sum_i32![1, 8](&mut a, 123_457)?;
    let want = (0..SUM_TERMS as i32).fold(0i32, |acc, k| acc.wrapping_add(123_457i32.wrapping_mul(k)));
    assert_eq!(a.copy_to_host()?, vec![want; 5]);

    let xs = [0.1f32, -3.7, 1e-3, 12345.678];
    let d_xs = gpujit::to_device(&xs)?;
    let mut d_a = gpujit::zeros::<f32>(xs.len())?;
    sum_f32![1, 8](&d_xs, &mut d_a)?;
    let want: Vec<f32> = xs
        .iter()
        .map(|&x| (0..LONG_SUM_TERMS).fold(0.0f32, |acc, k| if k == 0 { x * 0.0 } else { acc + x * k as f32 }))
        .collect();
    assert_eq!(d_a.copy_to_host()?, want);
    Ok(())
}

fn long_chains_of_every_operator() -> gpujit::Result<()> {
    for (x, y) in [(5i64, 0x1234_5678_9abc_def1u64), (-3, 7), (2000, u64::MAX)] {
        let mut out = gpujit::zeros::<i64>(5)?;
        let mut flags = gpujit::zeros::<u8>(2)?;
        chains![1, 4](&mut out, &mut flags, x, y)?;
        let n = CHAIN_TERMS as i64;
        let sub = (1..n).fold(x, |acc, i| acc.wrapping_sub(i));
        let mul = (1..CHAIN_TERMS as u64).fold(y, |acc, i| acc.wrapping_mul(3 + 2 * (i % 5))) as i64;
        let or = (0..n).fold(0u64, |acc, i| acc | (y << (i % 64))) as i64;
        let xor = (0..n).fold(0u64, |acc, i| acc ^ (y >> (i % 64))) as i64;
        let cmp = (0..n).filter(|&i| x < i).count() as i64;
        assert_eq!(out.copy_to_host()?, vec![sub, mul, or, xor, cmp], "x = {x}, y = {y}");
        let and = (0..n).all(|i| x > -i);
        let any = (0..n).any(|i| x == i);
        assert_eq!(flags.copy_to_host()?, vec![and as u8, any as u8], "x = {x}");
    }
    Ok(())
}

fn right_nesting_else_if_chains_and_nested_blocks() -> gpujit::Result<()> {
    let mut out = gpujit::zeros::<u32>(1)?;
    let mut fout = gpujit::zeros::<f64>(1)?;
    right_nested![1, 1](&mut out, &mut fout, 4_000_000_007u32, 0.3)?;
    let want_u = (0..RIGHT_DEPTH).fold(4_000_000_007u32, |acc, _| 4_000_000_007u32.wrapping_add(acc));
    let want_f = (0..RIGHT_DEPTH).fold(0.3f64, |acc, _| 0.3 - acc);
    assert_eq!(out.copy_to_host()?, vec![want_u]);
    assert_eq!(fout.copy_to_host()?, vec![want_f]);

    let xs: Vec<i32> = (-3..ELSE_IF_ARMS as i32 + 3).collect();
    let d_xs = gpujit::to_device(&xs)?;
    let mut d_out = gpujit::zeros::<i32>(xs.len())?;
    else_if![(xs.len() as u32).div_ceil(64), 64](&d_xs, &mut d_out)?;
    let want: Vec<i32> = xs
        .iter()
        .map(|&x| {
            if (0..ELSE_IF_ARMS as i32).contains(&x) {
                x * 7 % 1000
            } else {
                -1
            }
        })
        .collect();
    assert_eq!(d_out.copy_to_host()?, want);

    let mut d_out = gpujit::zeros::<i32>(10)?;
    nested_blocks![1, 16](&mut d_out)?;
    let want: Vec<i32> = (0..10).map(|i| i + BLOCK_DEPTH as i32).collect();
    assert_eq!(d_out.copy_to_host()?, want);
    Ok(())
}

fn else_if_chain_used_as_a_value() -> gpujit::Result<()> {
    let ks: Vec<u32> = (0..VALUE_ARMS as u32 + 5).chain([u32::MAX, 1 << 31]).collect();
    let d_ks = gpujit::to_device(&ks)?;
    let mut d_out = gpujit::zeros::<f32>(ks.len())?;
    else_if_value![(ks.len() as u32).div_ceil(64), 64](&d_ks, &mut d_out)?;
    let want: Vec<f32> = ks
        .iter()
        .map(|&k| {
            if (k as usize) < VALUE_ARMS {
                (k * 3 % 1000) as f32 + 0.5
            } else {
                -1.0
            }
        })
        .collect();
    assert_eq!(d_out.copy_to_host()?, want);
    Ok(())
}

fn deep_kernels_compile_with_nvrtc() {
    common::assert_compiles_with_nvrtc("deep", &deep_kernels::all());
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => long_sums_translate_and_run,
        None => long_chains_of_every_operator,
        None => right_nesting_else_if_chains_and_nested_blocks,
        None => else_if_chain_used_as_a_value,
        Some(common::Tool::Nvrtc) => deep_kernels_compile_with_nvrtc,
    ]
}
