//! Lucas numbers, one thread per n (the seed's second program).
//!
//! L(0) = 2, L(1) = 1, L(n) = L(n-1) + L(n-2); each thread computes its own
//! L(n) iteratively. Expected: L(40) = 228826127.
//!
//! Run: `cargo run --release --example lucas`

use gpujit::prelude::*;

/// `out[n] = L(n)` for every `n < out.len()`.
#[gpu_kernel]
pub fn lucas(out: &mut [u64]) {
    let n = grid(1);
    if n < out.len() {
        let mut a: u64 = 2;
        let mut b: u64 = 1;
        for _ in 0..n {
            let next = a + b;
            a = b;
            b = next;
        }
        out[n] = a;
    }
}

/// L(0..=max_n) on the current backend, 64 threads per block.
pub fn lucas_table(max_n: usize) -> gpujit::Result<Vec<u64>> {
    let mut d_out = gpujit::device_array::<u64>(max_n + 1)?;
    let threads = 64;
    lucas![(max_n + 1).div_ceil(threads), threads](&mut d_out)?;
    d_out.copy_to_host()
}

/// The same numbers computed on the host.
pub fn lucas_host(max_n: usize) -> Vec<u64> {
    let mut table = vec![2u64, 1];
    while table.len() <= max_n {
        let k = table.len();
        table.push(table[k - 1].wrapping_add(table[k - 2]));
    }
    table.truncate(max_n + 1);
    table
}

#[allow(dead_code)]
fn main() {
    gpujit_examples::init_logging();
    gpujit_examples::exit_on_error(run());
}

#[allow(dead_code)]
fn run() -> gpujit::Result<()> {
    const MAX_N: usize = 40;
    const EXPECTED_L40: u64 = 228_826_127;
    println!("backend: {}", gpujit::detect());
    let table = lucas_table(MAX_N)?;
    for (n, value) in table.iter().enumerate() {
        println!("L({n:2}) = {value}");
    }
    let host = lucas_host(MAX_N);
    let got = table[MAX_N];
    println!(
        "L(40): got {got}, expected {EXPECTED_L40}, match: {}",
        gpujit_examples::verdict(got == EXPECTED_L40)
    );
    println!(
        "whole table equals host reference: {}",
        gpujit_examples::verdict(table == host)
    );
    let t = gpujit_examples::median_secs(9, || lucas_table(MAX_N).map(|_| ()))?;
    println!(
        "median of 9 warm runs (launch + copies): {}",
        gpujit_examples::human_time(t)
    );
    if got != EXPECTED_L40 || table != host {
        std::process::exit(1);
    }
    Ok(())
}
