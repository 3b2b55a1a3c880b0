//! Lucas numbers, one thread per n (the seed's second program).
//!
//! L(0) = 2, L(1) = 1, L(n) = L(n-1) + L(n-2); each thread computes its own
//! L(n) iteratively. Expected: L(40) = 228826127. Then the same for n <= 30
//! with the seed's recursive definition as a recursive device function
//! (`#[gpu_device]`), checked against the iterative kernel.
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

/// The seed's recursive definition, as a device function that calls itself.
#[gpu_device]
pub fn lucas_rec(n: u64) -> u64 {
    if n == 0 {
        2
    } else if n == 1 {
        1
    } else {
        lucas_rec(n - 1) + lucas_rec(n - 2)
    }
}

/// `out[n] = L(n)` through the recursive device function.
#[gpu_kernel]
pub fn lucas_recursive(out: &mut [u64]) {
    let n = grid(1);
    if n < out.len() {
        out[n] = lucas_rec(n as u64);
    }
}

/// L(0..=max_n) through [`lucas_rec`] on the current backend.
pub fn lucas_rec_table(max_n: usize) -> gpujit::Result<Vec<u64>> {
    let mut d_out = gpujit::device_array::<u64>(max_n + 1)?;
    lucas_recursive![(max_n + 1).div_ceil(32), 32](&mut d_out)?;
    d_out.copy_to_host()
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
    const MAX_REC: usize = 30;
    let rec = lucas_rec_table(MAX_REC)?;
    println!(
        "recursive device function, L(0..={MAX_REC}) equals the iterative kernel: {}",
        gpujit_examples::verdict(rec[..] == table[..=MAX_REC])
    );
    if got != EXPECTED_L40 || table != host || rec[..] != table[..=MAX_REC] {
        std::process::exit(1);
    }
    Ok(())
}
