// Found by the fuzzer: GPUJIT_FUZZ_SEED=1 kernel `fz44`, shrunk; the path that disagreed with
// the CPU backend's reference path: double. Every run includes it: it must agree on every path.
// A kernel whose only warp intrinsic is `match_all_sync`: the driver double ran its blocks' threads
// one after another (its list of intrinsics that need OS threads lacked `__match_all_sync`), where
// lane 0 would wait for lanes not yet started. (The run that shrank it also had a stale double, whose
// shim lacked `__match_all_sync`: g++ rejected the kernel.) Fixed in driver-double/src/module.rs.
// choices: 2 1 0 1 1 0 0 1 3 48 18 0 21 27 0 1 1 62 10 4 5 78 6 7 0 2 1 3 3 7 7 3 7 6 5 13 0 8 17 4 64 0 23 3 98 0 1 4 22 5 0 2 0
#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]
pub mod seed1_fz44 {
    use gpujit::prelude::*;
    const C0: [i64; 4] = [7i64, i64::MIN, 6i64, 13i64];
    #[gpu_kernel]
    pub fn seed1_fz44(in0: &[i64], in1: &[i32], out0: &mut [u32], out1: &mut [u16], own: &mut [f64]) {
        let tid = thread_idx().x + thread_idx().y * block_dim().x + thread_idx().z * (block_dim().x * block_dim().y);
        let nthr = block_dim().x * block_dim().y * block_dim().z;
        let bid = block_idx().x + block_idx().y * grid_dim().x + block_idx().z * (grid_dim().x * grid_dim().y);
        let gid = bid * nthr + tid;
        let v1: u64 = (1u64).min(1u64);
        let (w2, w3) = match_all_sync(0xffff_ffff, 0i32 as i32);
        let v4: i32 = 0i32;
        let v5: i32 = 0i32;
        let v6: i32 = 0i32;
        let v7: i32 = 0i32;
        let v8: i32 = 0i32;
        let v9: i32 = 0i32;
        if gid < out0.len() { out0[gid] = 0u32; }
        if gid < out1.len() { out1[gid] = 0u16; }
    }
    pub fn case() -> super::Case {
        super::Case { name: "seed1_fz44", kernel: &seed1_fz44::KERNEL, grid: (2, 1, 1), block: (2, 1, 2), ulps: 0, faults_on_double: true, args: vec![super::ArgSpec::Array { elem: gpujit::ScalarType::I64, shape: vec![19], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I32, shape: vec![28], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::U32, shape: vec![5], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::U16, shape: vec![5], seed: 0 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F64, shape: vec![5], seed: 0 }] }
    }
}
