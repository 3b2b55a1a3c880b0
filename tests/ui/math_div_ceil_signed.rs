// `div_ceil` is a method of the unsigned types (as in stable Rust): one
// error, gpujit's, with the conversion to write.
use gpujit::prelude::*;

#[gpu_kernel]
fn blocks(n: i32, out: &mut [i32]) {
    out[0] = n.div_ceil(256);
}

fn main() {}
