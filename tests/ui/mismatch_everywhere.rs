// A type mismatch in every position: each is one error, at the operand that
// does not fit (spanning all of it), with a help line; rustc adds none.
use gpujit::prelude::*;

#[gpu_kernel]
fn mixed(x: &[f32], out: &mut [f32], n: u32, flags: &mut [bool]) {
    let i = grid(1);
    out[i] = 2 * x[i];
    out[i] = x[i] * n;
    out[i] = x[i] + (n + 1);
    out[i] = 1;
    out[i] += 1;
    out[i] = x[i].powf(2);
    let k: f32 = 3;
    flags[i] = x[i] < 1 && n;
    out[n] = k;
    if n {
        out[i] = -1;
    }
    for j in 0..n {
        out[j] = 0.5;
    }
}

fn main() {}
