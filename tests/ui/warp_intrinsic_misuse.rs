// Warp intrinsics used wrongly, one error each at its span with a help line:
// a type CUDA has no shuffle for, CUDA's width argument, a wrong count of
// arguments, `syncwarp` as a value, `match_all_sync` not bound by a tuple
// `let` (or bound to three names), and a device function named like an
// intrinsic.
use gpujit::prelude::*;

#[gpu_kernel]
fn misuse(x: &[u8], flags: &[bool], out: &mut [u32]) {
    let i = grid(1);
    let a = shfl_down_sync(0xffff_ffff, x[i], 1);
    let b = shfl_xor_sync(0xffff_ffff, flags[i], 1);
    let c = shfl_sync(0xffff_ffff, out[i], 0, 16);
    let d = ballot_sync(x[i] > 0);
    let e = syncwarp(0xffff_ffff);
    let f = match_all_sync(0xffff_ffff, out[i]);
    let (g, h, k) = match_all_sync(0xffff_ffff, out[i]);
    out[i] = a as u32 + b as u32 + c + d;
}

#[gpu_device]
fn ballot_sync(mask: u32, p: bool) -> u32 {
    mask & p as u32
}

fn main() {}
