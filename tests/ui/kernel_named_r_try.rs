use gpujit::prelude::*;

// `r#try` is the name `try` (the 2015 edition's `try!`).
#[gpu_kernel]
fn r#try(x: &mut [f32]) {
    let i = grid(1);
    if i < x.len() {
        x[i] = 1.0;
    }
}

fn main() {}
