// A writable view must not outlive the `&mut` borrow it was made from: the
// array could be read (or dropped) while the view still writes to it.
use gpujit::__private::{KernelArg, View};

fn main() {
    let mut a = gpujit::zeros::<f32>(16).unwrap();
    let v = View::<f32>::from_arg(&KernelArg::array_mut(&mut a), "a");
    let host = a.copy_to_host().unwrap();
    println!("{v:?} {host:?}");
}
