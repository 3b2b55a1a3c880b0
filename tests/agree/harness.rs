//! The differential harness of this binary: [`check`] runs a list of cases
//! on the CPU backend and in the host C (`tests/common/host.rs` has the
//! arguments, the runs and the comparison).

use super::*;

/// Grid or block size.
pub(crate) type Dims = (u32, u32, u32);

/// Kernel, grid, block, arguments, float tolerance.
pub(crate) type Case = (&'static KernelDef, Dims, Dims, Vec<Arg>, Ulps);

/// Runs each case on both sides and collects every difference.
pub(crate) fn check(cases: Vec<Case>) {
    let lib = library();
    let mut problems = Vec::new();
    for (k, grid, block, args, ulps) in &cases {
        let cpu = run_cpu(k, *grid, *block, args);
        let (cxx, trapped) = run_cxx(lib, k, *grid, *block, args);
        if trapped {
            problems.push(format!("{}: the C called __trap()", k.name));
        }
        problems.extend(compare(k, args, &cpu, &cxx, *ulps));
    }
    assert!(
        problems.is_empty(),
        "the CUDA C and the CPU backend disagree:\n{}",
        problems.join("\n")
    );
    eprintln!("{} launches agree", cases.len());
}

pub(crate) const EXACT: Ulps = Ulps(0);
pub(crate) const ONE: (u32, u32, u32) = (1, 1, 1);

pub(crate) fn lin(n: u32) -> (u32, u32, u32) {
    (n, 1, 1)
}
