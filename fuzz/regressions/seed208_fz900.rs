// Found by the fuzzer: seed 208, kernel fz900 (choices of Choices::random(208 * 1_000_003 + 900)), not shrunk.
// Disagreed: host-c and double (g++ folded `0.0 - (s0 as f64)` to a negation: -0.0 where the CPU gave +0.0).
// Fixed by compiling the C with -frounding-math (tests/common/host.rs, driver-double/src/module.rs).
#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]
pub mod seed208_fz900 {
    use gpujit::prelude::*;
    #[gpu_device]
    fn d0(a: &[i16], i: usize) -> i16 {
        let x = a[i % a.len()];
        (i as i16)
    }
    #[gpu_device]
    fn d1(a: &[i8], i: usize) -> i8 {
        let x = a[i % a.len()];
        (!x)
    }
    #[gpu_device]
    fn d2(a: &[i64], i: usize) -> i64 {
        let x = a[i % a.len()];
        (-x)
    }
    #[gpu_kernel]
    pub fn seed208_fz900(in0: &[f32], in1: &[u8], out0: &mut [f64], out1: &mut [i8], out2: &mut [f32], s0: i8, s1: u32) {
        let tid = thread_idx().x + thread_idx().y * block_dim().x + thread_idx().z * (block_dim().x * block_dim().y);
        let nthr = block_dim().x * block_dim().y * block_dim().z;
        let bid = block_idx().x + block_idx().y * grid_dim().x + block_idx().z * (grid_dim().x * grid_dim().y);
        let gid = bid * nthr + tid;
        let tp1 = (in0[bid % in0.len()], (-(-f32::MAX)), ((0.1f64).powi((1i32) % 9)).sqrt(), ((!i16::MAX)).reverse_bits());
        let v2 = syncthreads_and(true);
        let mut v3: f64 = (0.0f64 - (s0 as f64));
        if gid < in0.len() {
            let v4: i8 = ((((-27i8) - (-33i8)) & (41i8 % (s0 | 1))) % ((!(u32::MIN as i8)) | 1));
        }
        if gid < out1.len() { out1[gid] = s0; }
        if gid < out0.len() { out0[gid] = v3; }
        if gid < out1.len() { out1[gid] = (i8::MAX - (26u16 as i8)); }
        if gid < out2.len() { out2[gid] = ((in0[bid % in0.len()] % (-2.5f32)) - (-tp1.1)); }
    }
    pub fn case() -> super::Case {
        super::Case { name: "seed208_fz900", kernel: &seed208_fz900::KERNEL, grid: (2, 2, 2), block: (4, 1, 2), ulps: 0, faults_on_double: true, args: vec![super::ArgSpec::Array { elem: gpujit::ScalarType::F32, shape: vec![18], seed: 1346554758 }, super::ArgSpec::Array { elem: gpujit::ScalarType::U8, shape: vec![77], seed: 660163544 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F64, shape: vec![58], seed: 2514798345 }, super::ArgSpec::Array { elem: gpujit::ScalarType::I8, shape: vec![60], seed: 374953838 }, super::ArgSpec::Array { elem: gpujit::ScalarType::F32, shape: vec![63], seed: 368127649 }, super::ArgSpec::Scalar(gpujit::__private::ScalarValue::I8(0u64 as i8)), super::ArgSpec::Scalar(gpujit::__private::ScalarValue::U32(18446744073709551613u64 as u32))] }
    }
}
