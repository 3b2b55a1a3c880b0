//! A 256-bin histogram of a photograph's pixel values (every byte of its RGB
//! data), the kernel Numba users write with `cuda.atomic.add`.
//!
//! Each block counts its pixels into a shared-memory histogram with
//! `atomic_add` on shared memory (256 bins, so many threads hit the same bin),
//! then adds its 256 counts into the global histogram with global
//! `atomic_add`s. The result is checked against a count on the host; the
//! program exits non-zero if any bin differs.
//!
//! Run: `cargo run --release --example histogram -- [IN.png]`
//! (default input: `examples/data/astronaut.png`, NASA, public domain).

use std::path::PathBuf;

use gpujit::prelude::*;

/// Threads per block: one shared bin per thread.
pub const BINS: usize = 256;

/// `hist[v] += 1` for every byte `v` of `pixels`, through a per-block
/// shared-memory histogram (a grid-stride loop, so any grid covers the input).
#[gpu_kernel]
pub fn histogram_256(pixels: &[u8], hist: &mut [u32]) {
    let bins = shared_array::<[u32; BINS]>();
    let t = thread_idx().x;
    let mut b = t;
    while b < BINS {
        bins[b] = 0;
        b += block_dim().x;
    }
    syncthreads();
    let mut i = grid(1);
    while i < pixels.len() {
        atomic_add(&mut bins[pixels[i] as usize], 1);
        i += gridsize(1);
    }
    syncthreads();
    let mut b = t;
    while b < BINS {
        let count = bins[b];
        if count > 0 {
            atomic_add(&mut hist[b], count);
        }
        b += block_dim().x;
    }
}

/// Zeroes `hist` and counts `pixels` into it on the current backend.
pub fn histogram(d_pixels: &DeviceArray<u8>, hist: &mut DeviceArray<u32>) -> gpujit::Result<()> {
    hist.copy_from_host(&[0u32; BINS])?;
    // Enough blocks to fill a GPU, few enough that each loops over many pixels.
    let blocks = d_pixels.len().div_ceil(BINS * 64).clamp(1, 64);
    histogram_256![blocks, BINS](d_pixels, hist)
}

/// The same count on the host.
pub fn histogram_host(pixels: &[u8]) -> Vec<u32> {
    let mut h = vec![0u32; BINS];
    for &p in pixels {
        h[usize::from(p)] += 1;
    }
    h
}

fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let input = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/data/astronaut.png"));
    if args.next().is_some() {
        return Err("usage: histogram [IN.png]".into());
    }
    println!("backend: {}", gpujit::detect());
    let img = image::open(&input)
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?
        .to_rgb8();
    let (w, h) = img.dimensions();
    let pixels = img.into_raw();
    println!("input: {} ({w} x {h} RGB, {} values)", input.display(), pixels.len());

    let d_pixels = gpujit::to_device(&pixels)?;
    let mut d_hist = gpujit::zeros::<u32>(BINS)?;
    histogram(&d_pixels, &mut d_hist)?;
    let got = d_hist.copy_to_host()?;
    let want = histogram_host(&pixels);
    let differing = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    let (peak, peak_count) = got.iter().enumerate().max_by_key(|&(_, c)| *c).unwrap_or((0, &0));
    println!(
        "result: {} values counted, fullest bin {peak} ({peak_count}); bins differing from the host count: {differing} of {BINS}; match: {}",
        got.iter().map(|&c| u64::from(c)).sum::<u64>(),
        gpujit_examples::verdict(differing == 0)
    );
    let t = gpujit_examples::median_secs(20, || histogram(&d_pixels, &mut d_hist))?;
    println!("kernel: median of 20 warm runs {}", gpujit_examples::human_time(t));
    if differing != 0 {
        std::process::exit(1);
    }
    Ok(())
}
