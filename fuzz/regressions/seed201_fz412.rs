// Found by the fuzzer: seed 201, kernel fz412 (choices of Choices::random(201 * 1_000_003 + 412)), not shrunk.
// Disagreed: host-c (`(-x).max(x)` at x = 0: the CPU gave +0.0, C's fmax -0.0).
// Fixed by ordering -0.0 below +0.0 in float min/max on every backend (KernelMinMax, gj_fmin/gj_fmax).
#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]
pub mod seed201_fz412 {
    use gpujit::prelude::*;
    #[gpu_device]
    fn d0(a: &[u16], i: usize) -> u16 {
        let x = a[i % a.len()];
        u16::MIN
    }
    #[gpu_device]
    fn d1(a: &[i16], i: usize) -> i16 {
        let x = a[i % a.len()];
        x
    }
    #[gpu_device]
    fn d2(p0: f64, p1: u32) -> usize {
        if true {
            return (!(3usize * usize::MAX));
        }
        ((-i32::MAX) as usize)
    }
    #[gpu_kernel]
    pub fn seed201_fz412(in0: &[i8], in1: &[f32], in2: &[f32], out0: &mut [f32]) {
        let tid = thread_idx().x;
        let nthr = block_dim().x;
        let bid = block_idx().x;
        let gid = grid(1);
        let sh = shared_array::<[i16; 256]>();
        if gid < out0.len() { out0[gid] = 1e10f32; }
        syncthreads();
        sh[tid] = (!(u64::MAX as i16));
        syncthreads();
        let v1 = sh[(tid + (block_idx().x) % nthr) % nthr];
        let tp2 = (in1[gid % in1.len()], in2[bid % in2.len()], v1, (11u8 >> ((1u64 as u8) as u32)));
        let (v3, v4, v5, v6) = (false, ((1i64 - 7i64) as f32), ((1i64).reverse_bits() >> (i64::MAX as u32)), i32::MAX);
        let mut v7: u8 = 73u8;
        for k8 in 1i64..=0i64 {
            let v9: u32 = match block_idx().x { 0 => 0u32, 1 | 2 => 6u32, 3..=9 => (1u32 << (0u32 as u32)), _ => (!0u32) };
        }
        if gid < in0.len() {
            let mut v10: f32 = match tp2.2 { 0 => in1[gid % in1.len()], 1 | 2 => (tp2.1).powi((v6) % 9), 3..=9 => (tp2.1 / in2[gid % in2.len()]), _ => (tp2.0).abs() };
        }
        if ((!true) || false) { return; }
        if gid < in1.len() {
            let v11: i32 = (0i64 as i32);
        }
        if gid < out0.len() { out0[gid] = ((-tp2.0)).max(tp2.0); }
    }
    pub fn case() -> super::Case {
        super::Case { name: "seed201_fz412", kernel: &seed201_fz412::KERNEL, grid: (2, 1, 1), block: (256, 1, 1), ulps: 0, faults_on_double: true, args: vec![super::ArgSpec::Array { elem: gpujit::ScalarType::I8, shape: vec![162], seed: 889443724 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F32, shape: vec![416], seed: 4170430268 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F32, shape: vec![119], seed: 3648537425 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F32, shape: vec![356], seed: 2538637583 }] }
    }
}
