// Grid-wide sync, printing, Numba's random numbers, f16, clocks and dynamic
// shared memory: each one error that says gpujit plans it, with what to
// write meanwhile. A cooperative group's `.sync()` is part of the one error,
// also through a local (`g.sync()` reports nothing more).
use gpujit::prelude::*;

#[gpu_kernel]
fn planned(x: &[f32], states: &mut [u64], out: &mut [f32], t: &mut [u64]) {
    let i = grid(1);
    cuda.cg.this_grid().sync();
    let g = cg::this_grid();
    g.sync();
    print(x[i]);
    out[i] = xoroshiro128p_uniform_float32(states, i) + cuda.fp16.hmul(x[i], x[i]);
    t[i] = clock64();
    let dynamic = cuda.shared.array(0, float32);
    dynamic[0] = x[i];
}

fn main() {}
