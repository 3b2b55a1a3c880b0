// Issue 5, item 1: a view of a DeviceArray must not outlive the array (it
// would read freed memory).
use gpujit::__private::{KernelArg, View};

fn main() {
    let v = {
        let a = gpujit::to_device(&vec![42u64; 1 << 20]).unwrap();
        View::<u64>::from_arg(&KernelArg::array(&a), "a")
    };
    println!("{v:?}");
}
