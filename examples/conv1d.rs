//! A 1-D convolution with a module `const` filter, the kernel Numba users
//! write with a global NumPy array captured as a constant.
//!
//! `FILTER` is an ordinary Rust `const`; the kernel reads it as `FILTER[k]`.
//! On the CPU backend the generated Rust reads the constant itself; in CUDA C
//! it is a `__constant__` array holding exactly its values. Each thread also
//! keeps the window of input it multiplies in a local array (Numba's
//! `cuda.local.array`). The result is checked against a host convolution;
//! the program exits non-zero if any output differs by more than a float
//! rounding (a GPU may fuse a multiply and an add).
//!
//! Run: `cargo run --release --example conv1d -- [N]` (default 1,000,000 samples).

use gpujit::prelude::*;

/// Taps of the filter (odd: centred on the output sample).
pub const TAPS: usize = 7;
/// A 7-tap binomial (Gaussian-like) smoothing filter; its taps sum to 1.
pub const FILTER: [f32; TAPS] = [
    1.0 / 64.0,
    6.0 / 64.0,
    15.0 / 64.0,
    20.0 / 64.0,
    15.0 / 64.0,
    6.0 / 64.0,
    1.0 / 64.0,
];

/// `y[i] = sum_k FILTER[k] * x[i + k - TAPS / 2]`, with zeros outside `x`.
#[gpu_kernel]
pub fn conv1d(x: &[f32], y: &mut [f32]) {
    let i = grid(1);
    if i < y.len() {
        // The input window of this output, zero-padded at both ends.
        let mut window = [0.0f32; TAPS];
        for k in 0..TAPS {
            let j = i + k;
            if j >= TAPS / 2 && j - TAPS / 2 < x.len() {
                window[k] = x[j - TAPS / 2];
            }
        }
        let mut s = 0.0f32;
        for k in 0..TAPS {
            s += FILTER[k] * window[k];
        }
        y[i] = s;
    }
}

/// The same convolution on the host, in the same order of additions.
pub fn conv1d_host(x: &[f32]) -> Vec<f32> {
    (0..x.len())
        .map(|i| {
            let mut s = 0.0f32;
            for (k, w) in FILTER.iter().enumerate() {
                let j = i + k;
                let v = if j >= TAPS / 2 && j - TAPS / 2 < x.len() {
                    x[j - TAPS / 2]
                } else {
                    0.0
                };
                s += w * v;
            }
            s
        })
        .collect()
}

/// A noisy signal: a slow sine plus deterministic pseudo-random noise.
pub fn signal(n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            (i as f32 * 0.001).sin() + 0.2 * noise
        })
        .collect()
}

fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = match args.next() {
        Some(a) => a
            .parse()
            .map_err(|_| format!("usage: conv1d [N]: `{a}` is not a sample count"))?,
        None => 1_000_000,
    };
    if n == 0 || args.next().is_some() {
        return Err("usage: conv1d [N] (N >= 1)".into());
    }
    println!("backend: {}", gpujit::detect());
    let x = signal(n);
    let d_x = gpujit::to_device(&x)?;
    let mut d_y = gpujit::zeros::<f32>(n)?;
    let threads = 256;
    let blocks = n.div_ceil(threads);
    conv1d![blocks, threads](&d_x, &mut d_y)?;
    let got = d_y.copy_to_host()?;
    let want = conv1d_host(&x);
    // A GPU may contract `s + w * v` into one FMA: allow a few roundings.
    let differing = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| (*g - *w).abs() > 4.0 * f32::EPSILON * w.abs().max(1.0))
        .count();
    let exact = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| g.to_bits() == w.to_bits())
        .count();
    println!(
        "result: {n} samples smoothed with a {TAPS}-tap const filter; {exact} bit-identical to the host, {differing} beyond rounding; match: {}",
        gpujit_examples::verdict(differing == 0)
    );
    let t = gpujit_examples::median_secs(20, || conv1d![blocks, threads](&d_x, &mut d_y))?;
    println!("kernel: median of 20 warm runs {}", gpujit_examples::human_time(t));
    if differing != 0 {
        std::process::exit(1);
    }
    Ok(())
}
