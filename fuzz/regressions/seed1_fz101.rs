// Found by the fuzzer: GPUJIT_FUZZ_SEED=1 kernel `fz101`, shrunk; the path that disagreed with
// the CPU backend's reference path: double. Every run includes it: it must agree on every path.
// choices: 0 3 2 2 4 14 8 3 2 8 1 8 11 3 9255361022779062701 2 5 26 8 26 1 92 3 3 4 41 4 92 0 1 1 6 58 3 48 2 0 5 89 1 1 0 0 0 2 32 4 22 5 3 3 1093087081
#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]
pub mod seed1_fz101 {
    use gpujit::prelude::*;
    const C0: [f64; 6] = [0.5f64, 100.25f64, (-1.0f64), 0.0f64, (-0.0f64), 100.25f64];
    #[gpu_device]
    fn d0(a: &[i32], i: usize) -> i32 {
        let x = a[i % a.len()];
        x
    }
    #[gpu_kernel]
    pub fn seed1_fz101(in0: &[u64], in1: &[i64], in2: &[u32], out0: &mut [bool], out1: &mut [i64], s0: bool, s1: bool) {
        let tid = thread_idx().x + thread_idx().y * block_dim().x + thread_idx().z * (block_dim().x * block_dim().y);
        let nthr = block_dim().x * block_dim().y * block_dim().z;
        let bid = block_idx().x + block_idx().y * grid_dim().x + block_idx().z * (grid_dim().x * grid_dim().y);
        let gid = bid * nthr + tid;
        let sh = shared_array::<[i32; 256]>();
        let (w1, w2) = match_all_sync(0xffff_ffff, (0i32 as u64) as u64);
        let v3: i32 = 0i32;
        let v4: i32 = 0i32;
        let v5: i32 = 0i32;
        if gid < out0.len() { out0[gid] = false; }
        if gid < out1.len() { out1[gid] = 0i64; }
    }
    pub fn case() -> super::Case {
        super::Case { name: "seed1_fz101", kernel: &seed1_fz101::KERNEL, grid: (3, 1, 1), block: (31, 1, 1), ulps: 0, faults_on_double: true, args: vec![super::ArgSpec::Array { elem: gpujit::ScalarType::U64, shape: vec![9], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I64, shape: vec![9], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::U32, shape: vec![12], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::Bool, shape: vec![90], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I64, shape: vec![89], seed: 0 }, super::ArgSpec::Scalar(gpujit::__private::ScalarValue::Bool(true)), super::ArgSpec::Scalar(gpujit::__private::ScalarValue::Bool(false))] }
    }
}
