// A launch argument must not outlive the array it points into.
use gpujit::__private::KernelArg;

fn main() {
    let arg = {
        let a = gpujit::zeros::<u32>(4).unwrap();
        KernelArg::array(&a)
    };
    println!("{arg:?}");
}
