//! The CPU backend against hand-written Rust (issue #7), with criterion:
//! one group per workload of `workloads/mod.rs`, one benchmark per
//! implementation (`gpujit`, `serial`, `rayon`, `tiled rayon`).
//!
//! `cargo bench -p gpujit-bench --bench cpu_backend` runs the sizes (several minutes
//! on 2 cores); `GPUJIT_BENCH_QUICK=1 cargo bench -p gpujit-bench --bench cpu_backend` runs
//! smaller ones with short measurements, about a minute in all. A filter
//! works as usual: `cargo bench -p gpujit-bench --bench cpu_backend -- matmul`.
//! Every implementation is checked against the serial one first.
//! `cargo run --release -p gpujit-bench --example cpu_bench` prints the same comparison
//! as one table of ratios.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "../workloads/mod.rs"]
mod workloads;

use workloads::{Sizes, Workload};

fn cpu_backend(c: &mut Criterion) {
    let sizes = Sizes::from_env();
    let quick = sizes == Sizes::quick();
    let backend = gpujit::detect();
    assert_eq!(
        backend.kind,
        gpujit::BackendKind::Cpu,
        "this benchmark measures the CPU backend, but the backend here is {backend}: run it with GPUJIT_BACKEND=cpu"
    );
    let mut all = workloads::all(&sizes).expect("allocate the workloads");
    for w in &mut all {
        let w: &mut dyn Workload = w.as_mut();
        for &which in w.impls() {
            if let Err(e) = w.check(which) {
                panic!("wrong result, nothing measured: {e}");
            }
        }
        let mut group = c.benchmark_group(w.name());
        // criterion's minimum of 10 samples; short phases in quick mode.
        group.sample_size(10);
        if quick {
            group.warm_up_time(Duration::from_millis(200));
            group.measurement_time(Duration::from_millis(500));
        }
        for &which in w.impls() {
            group.bench_function(which.label(), |b| b.iter(|| w.run(which).expect("launch")));
        }
        group.finish();
    }
}

criterion_group!(benches, cpu_backend);
criterion_main!(benches);
