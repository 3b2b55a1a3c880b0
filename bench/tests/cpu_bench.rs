//! bench/examples/cpu_bench.rs cannot rot: every workload of the CPU-backend
//! benchmark (issue #7) runs at small, odd sizes through the example's own
//! code, every implementation agrees with the serial one, the table has a
//! row per workload, the chart is a PNG, and a wrong result is an error.
//! The benchmark's own kernels compile with NVRTC.

#[macro_use]
#[path = "../../tests/common/mod.rs"]
mod common;

use common::Tool;

#[path = "../examples/cpu_bench.rs"]
#[allow(dead_code)]
mod cpu_bench;

use cpu_bench::workloads::{self, Impl, Sizes, Workload};

fn main() -> std::process::ExitCode {
    common::run_tests(
        &[include_str!("cpu_bench.rs")],
        cases![
            Some(Tool::CpuBackend) => every_workload_agrees_and_is_tabled_and_charted,
            Some(Tool::CpuBackend) => a_wrong_result_stops_the_measurement,
            Some(Tool::CpuBackend) => every_spelling_agrees_and_takes_its_algorithms_path,
            Some(Tool::CpuBackend) => a_wrong_spelling_stops_the_suite,
            None => compare_reports_the_first_difference,
            None => arguments_select_sizes_rounds_and_chart,
            Some(Tool::Nvrtc) => benchmark_kernels_compile_with_nvrtc,
        ],
    )
}

fn every_workload_agrees_and_is_tabled_and_charted() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("bench.png");
    let opts = cpu_bench::Options {
        sizes: Sizes::tiny(),
        rounds: 1,
        chart: chart.clone(),
        min_sample_secs: 0.0,
    };
    let rows = cpu_bench::run(&opts).expect("the benchmark at tiny sizes");
    // The 9 workloads (matmul naive and tiled at 2 sizes each) and the histogram.
    assert_eq!(rows.len(), 13, "{rows:#?}");
    for r in &rows {
        for (which, secs) in &r.secs {
            assert!(secs.is_finite() && *secs > 0.0, "{} {}: {secs}", r.name, which.label());
        }
        assert!(r.ratio().is_finite(), "{}", r.name);
    }
    let tiled = rows.iter().filter(|r| r.secs(Impl::TiledRayon).is_some()).count();
    assert_eq!(
        tiled, 4,
        "tiled matmul at 2 sizes and the reduction's two spellings have a tiled rayon version"
    );
    let table = cpu_bench::table(&rows);
    assert_eq!(table.lines().count(), 2 + rows.len(), "{table}");
    for r in &rows {
        assert!(table.contains(&format!("| {} |", r.name)), "{table}");
    }
    assert!(cpu_bench::tiled_vs_naive(&rows).is_some_and(|l| l.contains("n = 37")));
    let png = image::open(&chart).expect("a readable PNG").to_rgb8();
    assert_eq!(png.width(), 1200);
    assert_eq!(png.height(), 140 + 44 * 13);
    // Bars and text were drawn: far from all white.
    let dark = png.pixels().filter(|p| p.0.iter().all(|&c| c < 100)).count();
    assert!(dark > 2000, "only {dark} dark pixels");
}

/// The spelling suite (issue #20) at tiny sizes: every spelling equals the
/// host's result (checked inside), and each spelling marked `same_path`
/// took its algorithm's first spelling's CPU path, counter for counter.
fn every_spelling_agrees_and_takes_its_algorithms_path() {
    let opts = cpu_bench::Options {
        sizes: Sizes::tiny(),
        rounds: 1,
        chart: std::path::PathBuf::from("unused.png"),
        min_sample_secs: 0.0,
    };
    let rows = cpu_bench::run_spellings(&opts).expect("the spelling suite at tiny sizes");
    let algorithms: std::collections::BTreeSet<_> = rows.iter().map(|r| r.algorithm.clone()).collect();
    assert_eq!(algorithms.len(), 8, "{algorithms:?}");
    for a in &algorithms {
        let n = rows.iter().filter(|r| &r.algorithm == a).count();
        assert!(n >= 3, "{a}: {n} spellings");
    }
    // Under `GPUJIT_CPU_EXEC=coroutines` every spelling runs coroutines
    // or plain thread loops alike; the paths still agree.
    for r in &rows {
        assert!(
            r.path_ok(),
            "{} ({}): {} where the first spelling took {}",
            r.algorithm,
            r.spelling.label,
            cpu_bench::workloads::spellings::describe(&r.paths),
            cpu_bench::workloads::spellings::describe(&r.first_paths)
        );
    }
    let table = cpu_bench::spelling_table(&rows);
    assert_eq!(table.lines().count(), 2 + rows.len(), "{table}");
}

/// A workload whose gpujit result is one off in one element.
struct Wrong {
    out: Vec<u32>,
    d_out: gpujit::DeviceArray<u32>,
}

#[gpujit::gpu_kernel]
fn iota_off_by_one(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = if i == 5 { 6 } else { i as u32 };
    }
}

impl Workload for Wrong {
    fn name(&self) -> String {
        "wrong iota".into()
    }
    fn impls(&self) -> &'static [Impl] {
        &[Impl::Gpujit, Impl::Serial]
    }
    fn goal(&self) -> workloads::Goal {
        workloads::Goal {
            max_ratio: 1.0,
            against: workloads::Against::BestRayon,
        }
    }
    fn run(&mut self, which: Impl) -> gpujit::Result<()> {
        match which {
            Impl::Gpujit => iota_off_by_one![1, 32](&mut self.d_out),
            _ => {
                self.out.iter_mut().enumerate().for_each(|(i, o)| *o = i as u32);
                Ok(())
            }
        }
    }
    fn check(&mut self, which: Impl) -> Result<(), String> {
        self.run(which).map_err(|e| e.to_string())?;
        let got = match which {
            Impl::Gpujit => self.d_out.copy_to_host().map_err(|e| e.to_string())?,
            _ => self.out.clone(),
        };
        let want: Vec<u32> = (0..got.len() as u32).collect();
        workloads::compare("wrong iota (gpujit)", &got, &want)
    }
}

fn a_wrong_result_stops_the_measurement() {
    let mut all: Vec<Box<dyn Workload>> = vec![Box::new(Wrong {
        out: vec![0; 20],
        d_out: gpujit::zeros::<u32>(20).unwrap(),
    })];
    let err = cpu_bench::measure(&mut all, 1, 0.0).expect_err("a wrong result was measured");
    assert!(err.contains("wrong iota (gpujit): 1 of 20 elements differ"), "{err}");
    assert!(err.contains("first at 5: 6, expected 5"), "{err}");
}

/// A family whose second spelling is [`iota_off_by_one`], against `iota`.
struct WrongSpelling {
    d_out: gpujit::DeviceArray<u32>,
}

#[gpujit::gpu_kernel]
fn iota(out: &mut [u32]) {
    let i = grid(1);
    if i < out.len() {
        out[i] = i as u32;
    }
}

impl workloads::spellings::Family for WrongSpelling {
    fn algorithm(&self) -> String {
        "iota".into()
    }
    fn spellings(&self) -> &'static [workloads::spellings::Spelling] {
        const S: &[workloads::spellings::Spelling] = &[
            workloads::spellings::Spelling {
                label: "right",
                same_path: true,
            },
            workloads::spellings::Spelling {
                label: "off by one",
                same_path: true,
            },
        ];
        S
    }
    fn run(&mut self, k: usize) -> gpujit::Result<()> {
        match k {
            0 => iota![1, 32](&mut self.d_out),
            _ => iota_off_by_one![1, 32](&mut self.d_out),
        }
    }
    fn output(&self) -> gpujit::Result<Vec<u32>> {
        self.d_out.copy_to_host()
    }
    fn expected(&self) -> Vec<u32> {
        (0..20).collect()
    }
}

/// A spelling whose result differs from the host's stops the suite before
/// anything is timed, naming it.
fn a_wrong_spelling_stops_the_suite() {
    let mut all: Vec<Box<dyn workloads::spellings::Family>> = vec![Box::new(WrongSpelling {
        d_out: gpujit::zeros::<u32>(20).unwrap(),
    })];
    let err = cpu_bench::measure_spellings(&mut all, 1, 0.0).expect_err("a wrong spelling was measured");
    assert!(err.contains("iota (off by one): 1 of 20 elements differ"), "{err}");
}

fn compare_reports_the_first_difference() {
    assert_eq!(workloads::compare("x", &[1.0f32, 2.0], &[1.0, 2.0]), Ok(()));
    let err = workloads::compare("x", &[1.0f32, f32::NAN, 3.0], &[1.0, 2.0, 4.0]).unwrap_err();
    assert!(
        err.contains("2 of 3 elements differ") && err.contains("first at 1: NaN, expected 2.0"),
        "{err}"
    );
    assert!(workloads::compare("x", &[1u8], &[1, 2])
        .unwrap_err()
        .contains("1 elements, expected 2"));
}

fn arguments_select_sizes_rounds_and_chart() {
    let args = |a: &[&str]| cpu_bench::parse_args(a.iter().map(|s| s.to_string()));
    let quick = args(&["--quick", "--rounds", "3", "out/x.png"]).unwrap();
    assert_eq!(quick.sizes, Sizes::quick());
    assert_eq!(quick.rounds, 3);
    assert_eq!(quick.chart, std::path::PathBuf::from("out/x.png"));
    let default = args(&[]).unwrap();
    assert_eq!(default.chart, std::path::PathBuf::from("target/cpu_bench.png"));
    for bad in [&["--rounds", "0"][..], &["--rounds"], &["--fast"], &["a.png", "b.png"]] {
        let err = args(bad).unwrap_err();
        assert!(err.contains("usage: cpu_bench"), "{bad:?}: {err}");
    }
}

/// The kernels defined for the benchmark (the examples' are checked in
/// tests/cuda_kernels.rs), and this file's.
fn benchmark_kernels_compile_with_nvrtc() {
    common::assert_compiles_with_nvrtc(
        "benchmark_kernels_compile_with_nvrtc",
        &[
            &workloads::saxpy_one::KERNEL,
            &workloads::stencil5::KERNEL,
            &workloads::block_sum::KERNEL,
            &workloads::empty_kernel::KERNEL,
            &iota_off_by_one::KERNEL,
            &workloads::spellings::block_sum_loop::KERNEL,
            &workloads::spellings::map_for::KERNEL,
            &workloads::spellings::map_while::KERNEL,
            &workloads::spellings::map_loop::KERNEL,
            &workloads::spellings::map_hand::KERNEL,
            &workloads::spellings::stencil5_return::KERNEL,
            &workloads::spellings::stencil5_hand::KERNEL,
            &workloads::spellings::matmul_tiled_while::KERNEL,
            &workloads::spellings::matmul_tiled_dim::KERNEL,
            &workloads::spellings::histogram_for::KERNEL,
            &workloads::spellings::histogram_hand::KERNEL,
            &workloads::spellings::scan_for::KERNEL,
            &workloads::spellings::scan_while::KERNEL,
            &workloads::spellings::scan_loop::KERNEL,
            &workloads::spellings::transpose::KERNEL,
            &workloads::spellings::transpose_return::KERNEL,
            &workloads::spellings::transpose_hand::KERNEL,
            &workloads::spellings::nbody_for::KERNEL,
            &workloads::spellings::nbody_while::KERNEL,
            &workloads::spellings::nbody_return::KERNEL,
        ],
    );
}
