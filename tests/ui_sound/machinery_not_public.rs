// The CPU backend's machinery is not public API: only `gpujit::__private`
// (for generated code) reaches it.
use gpujit::cpu::View;
use gpujit::kernel_def::KernelArg;

fn main() {}
