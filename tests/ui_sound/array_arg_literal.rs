// A launch argument with a made-up pointer and shape would let a view read
// anywhere: `ArrayArg`'s fields are private, only `KernelArg::array`/
// `array_mut` (from a `DeviceArray` borrow) make one.
use gpujit::__private::{ArgPtr, ArrayArg, KernelArg};
use gpujit::ScalarType;

fn main() {
    let arg = KernelArg::Array(ArrayArg {
        ptr: ArgPtr::Host(std::ptr::null_mut()),
        shape: &[1 << 30],
        elem: ScalarType::U64,
        mutable: true,
        backend: gpujit::BackendKind::Cpu,
    });
    println!("{arg:?}");
}
