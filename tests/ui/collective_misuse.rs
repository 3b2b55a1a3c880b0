// Warp and block collectives used wrongly, one error each at its span with
// a help line: a type with no shuffle (`bool`, `u8`), a value whose type is
// not known at the call, a wrong count of arguments, a call in a loop
// condition (it must run once where it is written), and a block-wide one in
// a device function (it needs shared memory).
use gpujit::prelude::*;

#[gpu_kernel]
fn misuse(x: &[u8], flags: &[bool], out: &mut [u32]) {
    let i = grid(1);
    let a = warp_reduce_sum(x[i]);
    let b = block_reduce_max(flags[i]);
    let mut s = 0.0;
    let c = block_scan_inclusive_sum(s);
    s += 1.0;
    let d = warp_reduce_min(out[i], 3);
    while warp_reduce_sum(out[i]) > 3 {
        out[i] -= 1;
    }
    out[i] = a as u32 + b as u32 + c as u32 + d + s as u32;
}

#[gpu_device]
fn block_total(v: u32) -> u32 {
    block_reduce_sum(v)
}

fn main() {}

#[gpu_device]
fn warp_reduce_max(v: u32) -> u32 {
    v
}
