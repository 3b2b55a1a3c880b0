fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let g = gpujit_fuzz_gen::generate("fz", &mut gpujit_fuzz_gen::Choices::random(seed));
    println!("{}", g.source);
}
