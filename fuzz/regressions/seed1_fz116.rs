// Found by the fuzzer: GPUJIT_FUZZ_SEED=1 kernel `fz116`, shrunk; the path that disagreed with
// the CPU backend's reference path: double. Every run includes it: it must agree on every path.
// choices: 3 1 1 36 2 0 0 46 3 1 0 1 0 3 31 3 84 1 2 21 1 65 3 10 0 48 5 10 71 0 5 25 87 0 7 7 2 0 1 15 2 1 21 1 0 2 87 3 1 22 5 0 89
#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]
pub mod seed1_fz116 {
    use gpujit::prelude::*;
    #[gpu_device]
    fn d0(n: u32, x: f32) -> f32 {
        if n == 0 {
            return x;
        }
        d0(n - 1, ((!n) as f32))
    }
    #[gpu_kernel]
    pub fn seed1_fz116(in0: &[i64], in1: &[u32], in2: &[bool], out0: &mut [i64], out1: &mut [i32], out2: &mut [usize], acc: &mut [i32], own: &mut [i32], s0: f32) {
        let tid = thread_idx().x + thread_idx().y * block_dim().x + thread_idx().z * (block_dim().x * block_dim().y);
        let nthr = block_dim().x * block_dim().y * block_dim().z;
        let bid = block_idx().x + block_idx().y * grid_dim().x + block_idx().z * (grid_dim().x * grid_dim().y);
        let gid = bid * nthr + tid;
        let (w1, w2) = match_all_sync(0xffff_ffff, 0i32 as i32);
        if gid < out0.len() { out0[gid] = 0i64; }
        if gid < out1.len() { out1[gid] = 0i32; }
        if gid < out2.len() { out2[gid] = 0usize; }
    }
    pub fn case() -> super::Case {
        super::Case { name: "seed1_fz116", kernel: &seed1_fz116::KERNEL, grid: (2, 1, 1), block: (2, 2, 4), ulps: 0, faults_on_double: true, args: vec![super::ArgSpec::Array { elem: gpujit::ScalarType::I64, shape: vec![1], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::U32, shape: vec![4], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::Bool, shape: vec![52], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I64, shape: vec![22], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I32, shape: vec![17], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::Usize, shape: vec![22], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I32, shape: vec![4], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I32, shape: vec![25], seed: 0 }, super::ArgSpec::Scalar(gpujit::__private::ScalarValue::F32(f32::from_bits(0x1)))] }
    }
}
