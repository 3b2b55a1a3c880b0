//! RGB → grayscale on a real photograph (the seed's main program).
//!
//! `gray = 0.299 R + 0.587 G + 0.114 B`, one thread per pixel on a 2-D grid of
//! 16×16 blocks. The result is checked against the same formula on the host
//! and written as a grayscale PNG.
//!
//! Run: `cargo run --release --example grayscale -- [IN.png] [OUT.png]`
//! (default input: `examples/data/astronaut.png`, NASA, public domain).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use image::codecs::png::PngEncoder;
use image::{ExtendedColorType, ImageEncoder};

use gpujit::prelude::*;
use ndarray::{Array2, Array3};

/// `gray[[y, x]] = 0.299 R + 0.587 G + 0.114 B` of `rgb[[y, x, ..]]`, truncated to `u8`.
#[gpu_kernel]
pub fn rgb_to_grayscale(rgb: ArrayView3<u8>, gray: ArrayViewMut2<u8>) {
    let (x, y) = grid(2);
    let (height, width) = gray.dim();
    if y < height && x < width {
        let r = rgb[[y, x, 0]] as f32;
        let g = rgb[[y, x, 1]] as f32;
        let b = rgb[[y, x, 2]] as f32;
        gray[[y, x]] = (0.299 * r + 0.587 * g + 0.114 * b) as u8;
    }
}

/// Converts an `(height, width, 3)` RGB array on the current backend.
pub fn to_grayscale(d_rgb: &DeviceArray<u8>, d_gray: &mut DeviceArray<u8>) -> gpujit::Result<()> {
    let (height, width) = (d_gray.shape()[0], d_gray.shape()[1]);
    let block = (16, 16);
    let grid = (width.div_ceil(16), height.div_ceil(16));
    rgb_to_grayscale![grid, block](d_rgb, d_gray)
}

/// The same conversion on the host, with the same `f32` operations.
pub fn grayscale_host(rgb: &Array3<u8>) -> Array2<u8> {
    let (h, w, _) = rgb.dim();
    Array2::from_shape_fn((h, w), |(y, x)| {
        let [r, g, b] = [0, 1, 2].map(|c| rgb[[y, x, c]] as f32);
        (0.299f32 * r + 0.587f32 * g + 0.114f32 * b) as u8
    })
}

/// Loads a PNG (any colour type) as an `(height, width, 3)` RGB array.
pub fn load_rgb(path: &std::path::Path) -> Result<Array3<u8>, Box<dyn std::error::Error>> {
    let img = image::open(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .to_rgb8();
    let (w, h) = img.dimensions();
    Ok(Array3::from_shape_vec((h as usize, w as usize, 3), img.into_raw())?)
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

#[allow(dead_code)]
fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let input = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/data/astronaut.png"));
    let output = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("grayscale.png"));
    if args.next().is_some() {
        return Err("usage: grayscale [IN.png] [OUT.png]".into());
    }
    let differing = convert_file(&input, &output)?;
    if differing != 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// The whole command: reads `input`, converts it on the current backend,
/// checks every pixel against [`grayscale_host`], writes `output` (refusing
/// an output that is the input, see `gpujit_examples::output`) and prints what
/// it did. Returns the number of pixels that differ from the host reference.
pub fn convert_file(input: &Path, output: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    // Checked before any work, so a bad output path costs nothing.
    let target = gpujit_examples::output::check_output(output, &[input], "png")?;
    println!("backend: {}", gpujit::detect());
    let rgb = load_rgb(input)?;
    let (h, w, _) = rgb.dim();
    println!("input: {} ({w} x {h} RGB)", input.display());

    let d_rgb = gpujit::to_device(&rgb)?;
    let mut d_gray = gpujit::device_array::<u8>((h, w))?;
    to_grayscale(&d_rgb, &mut d_gray)?;
    let gray: Array2<u8> = d_gray.copy_to_ndarray()?;

    let reference = grayscale_host(&rgb);
    let differing = gray.iter().zip(reference.iter()).filter(|(a, b)| a != b).count();
    let mean = gray.iter().map(|&v| v as f64).sum::<f64>() / gray.len() as f64;
    println!(
        "result: mean gray level {mean:.3}; pixels differing from the host reference: {differing} of {}; match: {}",
        gray.len(),
        gpujit_examples::verdict(differing == 0)
    );
    let t = gpujit_examples::median_secs(20, || to_grayscale(&d_rgb, &mut d_gray))?;
    println!("kernel: median of 20 warm runs {}", gpujit_examples::human_time(t));

    let (raw, _) = gray.into_raw_vec_and_offset();
    gpujit_examples::output::replace_file(&target, |file| {
        let mut out = BufWriter::new(file);
        PngEncoder::new(&mut out)
            .write_image(&raw, w as u32, h as u32, ExtendedColorType::L8)
            .map_err(std::io::Error::other)?;
        out.flush()
    })?;
    println!("wrote {}", output.display());
    Ok(differing)
}
