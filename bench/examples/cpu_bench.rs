//! The CPU backend against hand-written Rust (issue #7), in one process and
//! one run: every workload of `bench/workloads/mod.rs` as a gpujit kernel,
//! serial Rust, rayon, and rayon with the kernel's tiling where it has one.
//!
//! Every implementation is first checked against the serial one (exactly);
//! a wrong result ends the program with status 1 before anything is timed.
//! Then `ROUNDS` interleaved rounds time each implementation once per round
//! (several runs per sample where one run is short), and the medians are
//! printed as one Markdown table of gpujit / best rayon ratios with the
//! issue's goals, and drawn as a bar chart (PNG).
//!
//! Run: `cargo run --release -p gpujit-bench --example cpu_bench -- [--quick] [--rounds N] [CHART.png]`
//! (defaults: the sizes, 5 rounds, `target/cpu_bench.png`;
//! `GPUJIT_BENCH_QUICK=1` and `GPUJIT_BENCH_ROUNDS=N` do the same as the flags).
//! `--quick` runs about a tenth of the work, in about a minute on 2 cores.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use image::codecs::png::PngEncoder;
use image::{ExtendedColorType, ImageEncoder};
use plotters::prelude::*;

#[path = "../workloads/mod.rs"]
pub mod workloads;

use workloads::spellings::{self, Family, Paths};
use workloads::{Against, Impl, Sizes, Workload};

/// What one run does.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub sizes: Sizes,
    pub rounds: usize,
    pub chart: PathBuf,
    /// Shortest time one timing sample should take; short runs are repeated.
    pub min_sample_secs: f64,
}

/// Reads `[--quick] [--rounds N] [CHART.png]` and the environment.
///
/// # Errors
/// A usage message for an unknown flag, a bad number or a second path.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    const USAGE: &str = "usage: cpu_bench [--quick] [--rounds N] [CHART.png]";
    let positive = |what: &str, v: &str| match v.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{what} must be a positive integer, got {v:?}; {USAGE}")),
    };
    let mut sizes = Sizes::from_env();
    let mut rounds = match std::env::var("GPUJIT_BENCH_ROUNDS") {
        Ok(v) => positive("GPUJIT_BENCH_ROUNDS", &v)?,
        Err(_) => 5,
    };
    let mut chart = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => sizes = Sizes::quick(),
            "--rounds" => rounds = positive("--rounds", &args.next().unwrap_or_default())?,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag:?}; {USAGE}")),
            path if chart.is_none() => chart = Some(PathBuf::from(path)),
            _ => return Err(format!("more than one chart path; {USAGE}")),
        }
    }
    let quick = sizes == Sizes::quick();
    Ok(Options {
        sizes,
        rounds,
        chart: chart.unwrap_or_else(|| PathBuf::from("target/cpu_bench.png")),
        min_sample_secs: if quick { 0.002 } else { 0.01 },
    })
}

/// The medians of one workload.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub short: String,
    pub goal: workloads::Goal,
    /// Median seconds per run of each implementation the workload has.
    pub secs: Vec<(Impl, f64)>,
}

impl Row {
    /// Median seconds of `which`, if the workload has it.
    pub fn secs(&self, which: Impl) -> Option<f64> {
        self.secs.iter().find(|(i, _)| *i == which).map(|&(_, t)| t)
    }

    /// The faster of rayon and tiled rayon.
    pub fn best_rayon(&self) -> f64 {
        [Impl::Rayon, Impl::TiledRayon]
            .into_iter()
            .filter_map(|i| self.secs(i))
            .fold(f64::INFINITY, f64::min)
    }

    /// gpujit / best rayon (> 1: gpujit is slower).
    pub fn ratio(&self) -> f64 {
        self.secs(Impl::Gpujit).unwrap_or(f64::NAN) / self.best_rayon()
    }

    /// gpujit / the goal's reference.
    pub fn goal_ratio(&self) -> f64 {
        match self.goal.against {
            Against::BestRayon => self.ratio(),
            Against::Rayon | Against::TiledRayon => {
                let reference = if self.goal.against == Against::Rayon {
                    Impl::Rayon
                } else {
                    Impl::TiledRayon
                };
                self.secs(Impl::Gpujit).unwrap_or(f64::NAN) / self.secs(reference).unwrap_or(f64::NAN)
            }
        }
    }

    /// Whether the issue sets a goal for this workload.
    pub fn has_goal(&self) -> bool {
        self.goal.max_ratio.is_finite()
    }

    /// Whether the goal is met.
    pub fn met(&self) -> bool {
        self.goal_ratio() <= self.goal.max_ratio
    }
}

/// Checks every implementation of every workload, then times them in
/// `rounds` interleaved rounds and returns the medians.
///
/// # Errors
/// The first wrong result or failed launch; nothing is timed then.
pub fn measure(all: &mut [Box<dyn Workload>], rounds: usize, min_sample_secs: f64) -> Result<Vec<Row>, String> {
    for w in all.iter_mut() {
        for &which in w.impls() {
            w.check(which)?;
        }
    }
    // Runs per sample (`reps_for`).
    let mut reps = Vec::new();
    for w in all.iter_mut() {
        let mut r = Vec::new();
        for &which in w.impls() {
            r.push(reps_for(min_sample_secs, || {
                w.run(which).map_err(|e| format!("{}: {e}", w.name()))
            })?);
        }
        reps.push(r);
    }
    let mut samples: Vec<Vec<Vec<f64>>> = all.iter().map(|w| vec![Vec::new(); w.impls().len()]).collect();
    for _ in 0..rounds {
        for (k, w) in all.iter_mut().enumerate() {
            for (j, &which) in w.impls().iter().enumerate() {
                let start = Instant::now();
                for _ in 0..reps[k][j] {
                    w.run(which).map_err(|e| format!("{}: {e}", w.name()))?;
                }
                samples[k][j].push(start.elapsed().as_secs_f64() / reps[k][j] as f64);
            }
        }
    }
    Ok(all
        .iter()
        .zip(samples)
        .map(|(w, per_impl)| Row {
            name: w.name(),
            short: w.short(),
            goal: w.goal(),
            secs: w
                .impls()
                .iter()
                .copied()
                .zip(per_impl.into_iter().map(median))
                .collect(),
        })
        .collect())
}

/// Runs per sample: enough for a sample of at least `min_sample_secs`, so
/// that microsecond launches are not timer noise. Timed over warm runs
/// filling a fifth of a sample, not one run: a single run after another
/// implementation's may find rayon's workers asleep and read several times
/// slower, which gave launches of a few microseconds a handful of runs per
/// sample (each paying a wake-up) and others hundreds.
fn reps_for(min_sample_secs: f64, mut run: impl FnMut() -> Result<(), String>) -> Result<usize, String> {
    run()?;
    let start = Instant::now();
    let mut count = 0u32;
    while count < 10_000 && (count == 0 || start.elapsed().as_secs_f64() < min_sample_secs / 5.0) {
        run()?;
        count += 1;
    }
    let once = (start.elapsed().as_secs_f64() / f64::from(count)).max(1e-9);
    Ok((min_sample_secs / once).ceil().clamp(1.0, 100_000.0) as usize)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(t: Option<f64>) -> String {
    match t {
        Some(t) if t < 0.01e-3 => format!("{:.5}", t * 1e3),
        Some(t) => format!("{:.3}", t * 1e3),
        None => "—".into(),
    }
}

/// The Markdown table of `rows`.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| workload | gpujit ms | serial ms | rayon ms | tiled rayon ms | gpujit / best rayon | goal | met |\n\
         |---|---:|---:|---:|---:|---:|---|---|\n",
    );
    for r in rows {
        let goal = match r.goal.against {
            Against::BestRayon => r.goal.describe(),
            _ => format!("{} ({:.2})", r.goal.describe(), r.goal_ratio()),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {:.2} | {goal} | {} |\n",
            r.name,
            ms(r.secs(Impl::Gpujit)),
            ms(r.secs(Impl::Serial)),
            ms(r.secs(Impl::Rayon)),
            ms(r.secs(Impl::TiledRayon)),
            r.ratio(),
            if !r.has_goal() {
                "—"
            } else if r.met() {
                "yes"
            } else {
                "no"
            }
        );
    }
    s
}

/// The other matmul goal: gpujit's tiled matmul faster than its
/// naive one at the largest size, as on a GPU. A line, or `None`.
pub fn tiled_vs_naive(rows: &[Row]) -> Option<String> {
    let gpujit = |prefix: &str| {
        rows.iter()
            .rev()
            .find(|r| r.short.starts_with(prefix))
            .and_then(|r| Some((r.short.rsplit(' ').next()?.to_string(), r.secs(Impl::Gpujit)?)))
    };
    let ((n, naive), (n2, tiled)) = (gpujit("matmul naive")?, gpujit("matmul tiled")?);
    (n == n2).then(|| {
        format!(
            "gpujit matmul at n = {n}: tiled {} ms, naive {} ms, tiled / naive {:.2}; goal: tiled faster (< 1): {}",
            ms(Some(tiled)),
            ms(Some(naive)),
            tiled / naive,
            if tiled < naive { "yes" } else { "no" }
        )
    })
}

/// Draws `rows` as horizontal bars of gpujit / reference (log scale), the
/// goal of each marked, and writes the PNG to `target` (see
/// `gpujit_examples::output::replace_file`).
///
/// Text uses DejaVu Sans from the `dejavu` crate (no system fonts needed).
///
/// # Errors
/// A drawing or writing failure, with its message.
pub fn chart(rows: &[Row], title: &str, target: &Path) -> Result<(), String> {
    register_fonts()?;
    let (w, h) = (1200u32, 140 + 44 * rows.len() as u32);
    let mut pixels = vec![255u8; (w * h * 3) as usize];
    draw(rows, title, &mut pixels, (w, h)).map_err(|e| format!("cannot draw the chart: {e}"))?;
    gpujit_examples::output::replace_file(target, |file| {
        let mut out = BufWriter::new(file);
        PngEncoder::new(&mut out)
            .write_image(&pixels, w, h, ExtendedColorType::Rgb8)
            .map_err(std::io::Error::other)?;
        out.flush()
    })
}

fn register_fonts() -> Result<(), String> {
    let fail = |_| "cannot load the embedded DejaVu Sans font".to_string();
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular()).map_err(fail)?;
    plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold()).map_err(fail)
}

fn draw(rows: &[Row], title: &str, pixels: &mut [u8], size: (u32, u32)) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::with_buffer(pixels, size).into_drawing_area();
    root.fill(&WHITE)?;
    let n = rows.len();
    let largest = rows
        .iter()
        .map(|r| r.goal_ratio().max(r.goal.max_ratio))
        .filter(|v| v.is_finite())
        .fold(2.0f64, f64::max);
    let x_max = 10f64.powf((largest * 20.0).log10().ceil()); // room for the labels
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22).into_font().style(FontStyle::Bold))
        .margin(16)
        .margin_right(48)
        .x_label_area_size(50)
        .y_label_area_size(190)
        .build_cartesian_2d((0.1f64..x_max).log_scale(), (0..n - 1).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("gpujit time / hand-written rayon time, log scale (black mark: goal; green: met, red: missed)")
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < n => rows[n - 1 - *i].short.clone(),
            _ => String::new(),
        })
        .y_labels(n)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    // Row 0 at the top.
    let slot = |k: usize| n - 1 - k;
    chart.draw_series(rows.iter().enumerate().map(|(k, r)| {
        let colour = if !r.has_goal() {
            RGBColor(120, 120, 120)
        } else if r.met() {
            RGBColor(60, 160, 80)
        } else {
            RGBColor(210, 80, 60)
        };
        let mut bar = Rectangle::new(
            [
                (0.1, SegmentValue::Exact(slot(k))),
                (r.goal_ratio().max(0.1), SegmentValue::Exact(slot(k) + 1)),
            ],
            colour.filled(),
        );
        bar.set_margin(8, 8, 0, 0);
        bar
    }))?;
    // The goal: a black mark across each bar; the parity line at 1.
    chart.draw_series(rows.iter().enumerate().filter(|(_, r)| r.has_goal()).map(|(k, r)| {
        let mut mark = Rectangle::new(
            [
                (r.goal.max_ratio / 1.015, SegmentValue::Exact(slot(k))),
                (r.goal.max_ratio * 1.015, SegmentValue::Exact(slot(k) + 1)),
            ],
            BLACK.filled(),
        );
        mark.set_margin(3, 3, 0, 0);
        mark
    }))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Last)],
        BLACK.mix(0.4).stroke_width(1),
    )))?;
    chart.draw_series(rows.iter().enumerate().map(|(k, r)| {
        let against = match r.goal.against {
            Against::BestRayon => "",
            Against::Rayon => " vs rayon sum",
            Against::TiledRayon => " vs tiled rayon",
        };
        let label = if r.has_goal() {
            format!(
                "{:.2}{against} (goal ≤ {}{})",
                r.goal_ratio(),
                r.goal.max_ratio,
                if r.met() { ", met" } else { "" }
            )
        } else {
            format!("{:.2} (no goal)", r.goal_ratio())
        };
        let at = if r.has_goal() {
            r.goal_ratio().max(r.goal.max_ratio)
        } else {
            r.goal_ratio()
        };
        Text::new(
            label,
            (at * 1.08, SegmentValue::CenterOf(slot(k))),
            ("sans-serif", 14).into_font(),
        )
    }))?;
    root.present()?;
    Ok(())
}

/// The whole command: measures, prints the table, writes the chart.
/// Returns the rows.
///
/// # Errors
/// Another backend than the CPU, a bad chart path (before any work), a wrong
/// result, or a failure to write the chart.
pub fn run(opts: &Options) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let target = gpujit_examples::output::check_output(&opts.chart, &[], "png")?;
    let backend = gpujit::detect();
    if backend.kind != gpujit::BackendKind::Cpu {
        return Err(format!(
            "cpu_bench measures the CPU backend, but the backend here is {backend}; run it with GPUJIT_BACKEND=cpu"
        )
        .into());
    }
    println!("backend: {backend}");
    println!(
        "rayon threads: {}; {} interleaved rounds, medians{}",
        rayon::current_num_threads(),
        opts.rounds,
        if opts.sizes == Sizes::quick() {
            "; quick sizes"
        } else {
            ""
        }
    );
    let mut all = workloads::all(&opts.sizes)?;
    // `GPUJIT_BENCH_ONLY=saxpy,stencil`: only the workloads whose names
    // contain one of these words (for measuring one change quickly).
    if let Ok(only) = std::env::var("GPUJIT_BENCH_ONLY") {
        let words: Vec<&str> = only.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
        all.retain(|w| words.iter().any(|word| w.name().contains(word)));
        let families = spellings::ALGORITHMS
            .iter()
            .any(|a| words.iter().any(|w| a.contains(w)));
        if all.is_empty() && !families {
            return Err(format!(
                "GPUJIT_BENCH_ONLY={only:?} matches no workload and no algorithm of the spelling suite"
            )
            .into());
        }
    }
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let rows = measure(&mut all, opts.rounds, opts.min_sample_secs)?;
    println!("all results equal the serial reference\n");
    print!("{}", table(&rows));
    if let Some(line) = tiled_vs_naive(&rows) {
        println!("\n{line}");
    }
    let met = rows.iter().filter(|r| r.has_goal() && r.met()).count();
    println!("\ngoals met: {met} of {}", rows.iter().filter(|r| r.has_goal()).count());
    let title = format!(
        "gpujit CPU backend vs hand-written rayon ({} cores, median of {})",
        rayon::current_num_threads(),
        opts.rounds
    );
    chart(&rows, &title, &target)?;
    println!("wrote {}", opts.chart.display());
    Ok(rows)
}

/// One spelling of the spelling suite, measured.
#[derive(Debug, Clone)]
pub struct SpellingRow {
    pub algorithm: String,
    pub spelling: spellings::Spelling,
    /// Median seconds per launch.
    pub secs: f64,
    /// The CPU path its launch took.
    pub paths: Paths,
    /// The path of the algorithm's first spelling.
    pub first_paths: Paths,
    /// This spelling's time over the algorithm's fastest spelling's.
    pub over_best: f64,
}

impl SpellingRow {
    /// Whether it took the first spelling's path, where it must.
    pub fn path_ok(&self) -> bool {
        !self.spelling.same_path || self.paths == self.first_paths
    }
}

/// Checks every spelling of every family against the host, records the
/// path each takes, then times them in `rounds` interleaved rounds.
///
/// # Errors
/// The first wrong result or failed launch; nothing is timed then.
pub fn measure_spellings(
    families: &mut [Box<dyn Family>],
    rounds: usize,
    min_sample_secs: f64,
) -> Result<Vec<SpellingRow>, String> {
    let mut paths = Vec::new();
    for f in families.iter_mut() {
        let mut p = Vec::new();
        for k in 0..f.spellings().len() {
            f.check(k)?;
            p.push(spellings::last_paths());
        }
        paths.push(p);
    }
    let mut reps = Vec::new();
    for f in families.iter_mut() {
        let mut r = Vec::new();
        for k in 0..f.spellings().len() {
            r.push(reps_for(min_sample_secs, || {
                f.run(k).map_err(|e| format!("{}: {e}", f.algorithm()))
            })?);
        }
        reps.push(r);
    }
    let mut samples: Vec<Vec<Vec<f64>>> = families.iter().map(|f| vec![Vec::new(); f.spellings().len()]).collect();
    for _ in 0..rounds {
        for (i, f) in families.iter_mut().enumerate() {
            for k in 0..f.spellings().len() {
                let start = Instant::now();
                for _ in 0..reps[i][k] {
                    f.run(k).map_err(|e| format!("{}: {e}", f.algorithm()))?;
                }
                samples[i][k].push(start.elapsed().as_secs_f64() / reps[i][k] as f64);
            }
        }
    }
    let mut rows = Vec::new();
    for ((f, per), paths) in families.iter().zip(samples).zip(paths) {
        let secs: Vec<f64> = per.into_iter().map(median).collect();
        let best = secs.iter().copied().fold(f64::INFINITY, f64::min);
        for (k, (&spelling, &t)) in f.spellings().iter().zip(&secs).enumerate() {
            rows.push(SpellingRow {
                algorithm: f.algorithm(),
                spelling,
                secs: t,
                paths: paths[k],
                first_paths: paths[0],
                over_best: t / best,
            });
        }
    }
    Ok(rows)
}

/// The Markdown table of the spelling suite.
pub fn spelling_table(rows: &[SpellingRow]) -> String {
    let mut s = String::from(
        "| algorithm | spelling | gpujit ms | / best spelling | CPU path (blocks, loops) | first spelling's path |\n\
         |---|---|---:|---:|---|---|\n",
    );
    for r in rows {
        let same = if r.paths == r.first_paths {
            "same"
        } else if r.spelling.same_path {
            "**differs**"
        } else {
            "differs (expected)"
        };
        s += &format!(
            "| {} | {} | {} | {:.2} | {} | {same} |\n",
            r.algorithm,
            r.spelling.label,
            ms(Some(r.secs)),
            r.over_best,
            spellings::describe(&r.paths)
        );
    }
    s
}

/// The spelling suite at `opts`' sizes: measures and prints its table.
///
/// # Errors
/// A wrong result or failed launch.
pub fn run_spellings(opts: &Options) -> Result<Vec<SpellingRow>, Box<dyn std::error::Error>> {
    let mut families = spellings::all(&opts.sizes)?;
    if let Ok(only) = std::env::var("GPUJIT_BENCH_ONLY") {
        let words: Vec<&str> = only.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
        families.retain(|f| words.iter().any(|word| f.algorithm().contains(word)));
    }
    if families.is_empty() {
        return Ok(Vec::new());
    }
    let rows = measure_spellings(&mut families, opts.rounds, opts.min_sample_secs)?;
    println!("\nspelling suite (issue #20): every spelling equals the host's result\n");
    print!("{}", spelling_table(&rows));
    let within = rows.iter().filter(|r| r.over_best <= 1.25).count();
    let paths = rows.iter().filter(|r| r.path_ok()).count();
    println!(
        "\nwithin 1.25x of their algorithm's best spelling: {within} of {}; on the first spelling's path where they must be: {paths} of {}",
        rows.len(),
        rows.len()
    );
    Ok(rows)
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(
        parse_args(std::env::args().skip(1))
            .map_err(Into::into)
            .and_then(|opts| run(&opts).and_then(|_| run_spellings(&opts)).map(drop)),
    );
}
