//! The CUDA launch limits: every broken row is `Err(InvalidLaunchConfig)`
//! naming the limit, checked before any thread runs; the edge cases launch.

use crate::common;

use gpujit::prelude::*;
use gpujit::{zeros, Dim3, Error, LaunchConfig};

/// Counts the threads that ran (one slot per thread of a launch of at most 1024).
#[gpu_kernel]
fn mark(out: &mut [u32]) {
    let (x, y, z) = grid(3);
    let (nx, ny, _) = gridsize(3);
    let i = (z * ny + y) * nx + x;
    if i < out.len() {
        out[i] = 1;
    }
}

/// Takes a 2-D array.
#[gpu_kernel]
fn takes_2d(a: ArrayView2<f32>, out: &mut [f32]) {
    let (x, y) = grid(2);
    let (r, c) = a.dim();
    if y < r && x < c {
        out[y * c + x] = a[[y, x]];
    }
}

/// The message of an `InvalidLaunchConfig`, or a panic naming what came back.
fn invalid(r: gpujit::Result<()>, what: &str) -> String {
    match r {
        Err(Error::InvalidLaunchConfig(m)) => {
            let shown = Error::InvalidLaunchConfig(m.clone()).to_string();
            assert!(shown.starts_with("invalid launch configuration"), "{shown}");
            m
        }
        other => panic!("{what}: expected Err(InvalidLaunchConfig), got {other:?}"),
    }
}

/// Launches `mark` with `grid`/`block`; asserts it fails with a message that
/// contains every one of `needles`, and that no thread ran.
fn rejects(
    grid: impl gpujit::IntoDim3 + Copy + std::fmt::Debug,
    block: impl gpujit::IntoDim3 + Copy + std::fmt::Debug,
    needles: &[&str],
) {
    let mut out = zeros::<u32>(64).unwrap();
    let what = format!("grid {grid:?} block {block:?}");
    let msg = invalid(mark::launch(grid, block, &mut out), &what);
    for n in needles {
        assert!(msg.contains(n), "{what}: message {msg:?} lacks {n:?}");
    }
    assert!(
        out.copy_to_host().unwrap().iter().all(|&v| v == 0),
        "{what}: threads ran"
    );
    // The validation alone (no kernel) says the same.
    let direct = LaunchConfig::new(grid, block);
    assert!(
        matches!(direct, Err(Error::InvalidLaunchConfig(_))),
        "{what}: LaunchConfig::new gave {direct:?}"
    );
}

fn too_many_threads_per_block() {
    rejects(1, (1025u32, 1u32, 1u32), &["1024"]);
    rejects(1, (32u32, 32u32, 2u32), &["2048", "1024", "threads per block"]);
    rejects(1, (512u32, 2u32, 2u32), &["2048", "threads per block"]);
    rejects(1, (2u32, 2u32, 257u32), &["block.z", "64"]);
    rejects(1, (33u32, 33u32), &["1089", "1024"]);
}

fn block_dimension_limits() {
    rejects(1, 1025u32, &["block.x", "1025", "1024"]);
    rejects(1, (1u32, 1025u32), &["block.y", "1025", "1024"]);
    rejects(1, (1u32, 1u32, 65u32), &["block.z", "65", "64"]);
}

fn zero_dimensions() {
    rejects(0u32, 32u32, &["grid.x", "0"]);
    rejects((1u32, 0u32), 32u32, &["grid.y", "0"]);
    rejects((1u32, 1u32, 0u32), 32u32, &["grid.z", "0"]);
    rejects(1u32, 0u32, &["block.x", "0"]);
    rejects(1u32, (8u32, 0u32), &["block.y", "0"]);
    rejects(1u32, (8u32, 1u32, 0u32), &["block.z", "0"]);
    rejects(Dim3::new(4, 0, 1), Dim3::new(1, 1, 1), &["grid.y"]);
}

fn grid_dimension_limits() {
    rejects((1u32, 65_536u32), 1u32, &["grid.y", "65536", "65535"]);
    rejects((1u32, 1u32, 65_536u32), 1u32, &["grid.z", "65536", "65535"]);
    rejects(1u32 << 31, 1u32, &["grid.x", "2147483648", "2147483647"]);
    rejects(u32::MAX, 1u32, &["grid.x", "4294967295"]);
}

fn integers_that_do_not_fit_a_dimension() {
    rejects(1usize << 32, 32usize, &["grid.x", "4294967296"]);
    rejects(((1u64 << 40) as usize, 1usize), 32usize, &["grid.x"]);
    rejects((1usize, 1usize << 33), 32usize, &["grid.y"]);
    rejects(-1i32, 32i32, &["grid.x", "-1"]);
    rejects(4i32, -32i32, &["block.x", "-32"]);
    rejects((2i64, 2i64, -2i64), 8i32, &["grid.z", "-2"]);
}

fn valid_edge_cases_launch_every_thread() {
    for (grid, block) in [
        ((1u32, 1u32, 1u32), (1024u32, 1u32, 1u32)),
        ((1, 1, 1), (1, 1, 64)),
        ((1, 1, 1), (1, 1024, 1)),
        ((1, 1, 1), (32, 32, 1)),
        ((2, 3, 1), (16, 4, 4)),
        ((1, 1, 1), (1, 1, 1)),
    ] {
        let threads = (grid.0 * grid.1 * grid.2 * block.0 * block.1 * block.2) as usize;
        let mut out = zeros::<u32>(threads).unwrap();
        mark![grid, block](&mut out).unwrap();
        assert_eq!(
            out.copy_to_host().unwrap(),
            vec![1; threads],
            "grid {grid:?} block {block:?}"
        );
    }
    // Grid y = 65535 (and z = 65535) with one-thread blocks.
    let mut out = zeros::<u32>(65_535).unwrap();
    mark![(1u32, 65_535u32), 1u32](&mut out).unwrap();
    assert!(out.copy_to_host().unwrap().iter().all(|&v| v == 1));
    let mut out = zeros::<u32>(65_535).unwrap();
    mark![(1u32, 1u32, 65_535u32), 1u32](&mut out).unwrap();
    assert!(out.copy_to_host().unwrap().iter().all(|&v| v == 1));

    // The largest grid x is accepted by the validation (not launched: 2^31 blocks).
    let cfg = LaunchConfig::new(2_147_483_647u32, (1024u32, 1u32, 1u32)).unwrap();
    assert_eq!(cfg.blocks(), 2_147_483_647);
    assert_eq!(cfg.threads_per_block(), 1024);
    let cfg = LaunchConfig::new((7usize, 65_535usize, 65_535usize), (8u8, 8u8, 16u8)).unwrap();
    assert_eq!(cfg.grid, Dim3::new(7, 65_535, 65_535));
    assert_eq!(cfg.block, Dim3::new(8, 8, 16));
}

fn integer_and_tuple_forms_are_the_same_config() {
    let a = LaunchConfig::new(5i32, 64usize).unwrap();
    let b = LaunchConfig::new((5u64, 1u8), (64u16, 1i64, 1isize)).unwrap();
    let c = LaunchConfig::new(Dim3::new(5, 1, 1), Dim3::new(64, 1, 1)).unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a.grid, Dim3::new(5, 1, 1));
    assert_eq!(a.block, Dim3::new(64, 1, 1));
}

fn blocks_for_rounds_up() {
    use gpujit::launch::blocks_for;
    for n in [0usize, 1, 255, 256, 257, 1000, 12345] {
        for tpb in [1usize, 32, 256, 1024] {
            assert_eq!(blocks_for(n, tpb), n.div_ceil(tpb), "n = {n}, tpb = {tpb}");
        }
    }
    // No overflow near usize::MAX.
    assert_eq!(blocks_for(usize::MAX, 256), usize::MAX.div_ceil(256));
    assert_eq!(blocks_for(usize::MAX - 3, 1024), (usize::MAX - 3).div_ceil(1024));
}

fn blocks_for_edge_cases() {
    use gpujit::launch::blocks_for;
    assert_eq!(blocks_for(usize::MAX, 1), usize::MAX);
    assert_eq!(blocks_for(0, 0), 0, "documented: 0 when threads_per_block is 0");
    assert_eq!(blocks_for(5, 0), 0, "documented: 0 when threads_per_block is 0");
}

fn array_of_the_wrong_dimension_is_an_argument_mismatch() {
    let flat = gpujit::to_device(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let mut out = zeros::<f32>(4).unwrap();
    match takes_2d![1, (2, 2)](&flat, &mut out) {
        Err(Error::ArgumentMismatch { kernel, param, message }) => {
            assert_eq!(kernel, "takes_2d");
            assert_eq!(param, "a");
            assert!(message.contains("2-D") && message.contains("1-D"), "{message}");
        }
        other => panic!("expected Err(ArgumentMismatch), got {other:?}"),
    }
    assert_eq!(out.copy_to_host().unwrap(), vec![0.0; 4], "the kernel ran");
    // Reshaped to 2-D it launches.
    let square = flat.reshape((2, 2)).unwrap();
    takes_2d![1, (2, 2)](&square, &mut out).unwrap();
    assert_eq!(out.copy_to_host().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    // A 3-D array is refused too.
    let cube = square.reshape((1, 2, 2)).unwrap();
    assert!(matches!(
        takes_2d![1, (2, 2)](&cube, &mut out),
        Err(Error::ArgumentMismatch { .. })
    ));
}

fn launch_config_is_checked_before_the_arguments() {
    // Both the configuration (grid 0) and the argument (1-D for 2-D) are
    // wrong: the configuration is reported, and nothing runs.
    let flat = gpujit::to_device(&[1.0f32; 4]).unwrap();
    let mut out = zeros::<f32>(4).unwrap();
    let msg = invalid(takes_2d![0, 4](&flat, &mut out), "grid 0 and a 1-D array");
    assert!(msg.contains("grid.x"), "{msg}");
    assert_eq!(out.copy_to_host().unwrap(), vec![0.0; 4]);
}

fn wrong_argument_count_through_the_backend() {
    use gpujit::__private::KernelArg;
    let mut out = zeros::<u32>(4).unwrap();
    let cfg = LaunchConfig::new(1, 4).unwrap();
    let backend = gpujit::__private::current_backend().unwrap();
    let r = backend.launch(&mark::KERNEL, &cfg, &mut [], None);
    assert!(matches!(r, Err(Error::ArgumentMismatch { .. })), "{r:?}");
    let r = backend.launch(&mark::KERNEL, &cfg, &mut [KernelArg::scalar(3u32)], None);
    assert!(matches!(r, Err(Error::ArgumentMismatch { .. })), "{r:?}");
    // A read-only argument for a written parameter.
    let r = backend.launch(&mark::KERNEL, &cfg, &mut [KernelArg::array(&out)], None);
    assert!(matches!(r, Err(Error::ArgumentMismatch { .. })), "{r:?}");
    backend
        .launch(&mark::KERNEL, &cfg, &mut [KernelArg::array_mut(&mut out)], None)
        .unwrap();
    assert_eq!(out.copy_to_host().unwrap(), vec![1; 4]);
}

/// The tests of this file, for the crate's harness.
pub fn cases() -> Vec<common::Case> {
    cases![
        None => too_many_threads_per_block,
        None => block_dimension_limits,
        None => zero_dimensions,
        None => grid_dimension_limits,
        None => integers_that_do_not_fit_a_dimension,
        None => valid_edge_cases_launch_every_thread,
        None => integer_and_tuple_forms_are_the_same_config,
        None => blocks_for_rounds_up,
        None => blocks_for_edge_cases,
        None => array_of_the_wrong_dimension_is_an_argument_mismatch,
        None => launch_config_is_checked_before_the_arguments,
        None => wrong_argument_count_through_the_backend,
    ]
}
