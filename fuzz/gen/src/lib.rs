//! The differential fuzzer's generator (issue #19): random gpujit kernels
//! that are type-correct, race-free and deterministic, so that every backend
//! and every CPU execution path must give the same bytes.
//!
//! A kernel is drawn from a [`Choices`] stream: each rule of the generator
//! asks for a number below some bound, and choice 0 is always the simplest
//! option (no statement, a literal, the first type). A kernel is therefore
//! its list of choices, which is what the shrinker edits ([`shrink`]): it
//! deletes runs of choices and lowers single ones, and regenerates. A new
//! construct is one rule in `rules.rs` (one arm of a statement or
//! expression kind), nothing else.
//!
//! What a generated kernel may do is limited so that its result is defined
//! on every backend:
//! - each thread writes only its own element (`gid`) of an output array;
//!   inputs are read anywhere (indices reduced modulo the length);
//! - contended atomics are integer and order-independent, and their old
//!   value is not used; uncontended ones (on the thread's own element) keep
//!   their old value;
//! - shared memory is written at the thread's own slot between two barriers
//!   and read after the second; barriers and block votes appear only where
//!   the control flow is block-uniform (every enclosing condition and loop
//!   bound is uniform, with no divergent `break`, `continue` or `return`
//!   before them);
//! - float arithmetic is IEEE-exact (no transcendental functions yet);
//! - every loop is bounded by a small trip count.
//!
//! Faults are generated on purpose, rarely: an index past an input's end, an
//! integer division by an input that may hold 0. The runner then compares
//! the fault reports of the CPU paths.

mod rules;

pub use rules::{generate, Generated};

/// A stream of choices: drawn from a seed (and recorded), or replayed.
pub struct Choices {
    replay: Option<Vec<u64>>,
    rng: fastrand::Rng,
    pos: usize,
    log: Vec<u64>,
}

impl Choices {
    /// Fresh choices from `seed`.
    pub fn random(seed: u64) -> Choices {
        Choices {
            replay: None,
            rng: fastrand::Rng::with_seed(seed),
            pos: 0,
            log: Vec::new(),
        }
    }

    /// The choices `recorded` again; past their end every choice is 0.
    pub fn replay(recorded: Vec<u64>) -> Choices {
        Choices {
            replay: Some(recorded),
            rng: fastrand::Rng::with_seed(0),
            pos: 0,
            log: Vec::new(),
        }
    }

    /// A number in `0..n` (`n >= 1`); 0 is the simplest choice.
    pub fn below(&mut self, n: u64) -> u64 {
        let n = n.max(1);
        let v = match &self.replay {
            Some(r) => r.get(self.pos).copied().unwrap_or(0).min(n - 1),
            None => self.rng.u64(..n),
        };
        self.pos += 1;
        self.log.push(v);
        v
    }

    /// True with about `percent` % probability (choice 0 is false).
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) + percent >= 100
    }

    /// Every choice made so far.
    pub fn recorded(&self) -> &[u64] {
        &self.log
    }
}

/// Smaller variants of a choice list, simplest first: runs of choices
/// deleted (long runs first), then single choices lowered to 0 or halved.
pub fn shrink(choices: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    let n = choices.len();
    let mut run = n / 2;
    while run >= 1 {
        let mut start = 0;
        while start + run <= n {
            let mut c = choices[..start].to_vec();
            c.extend_from_slice(&choices[start + run..]);
            out.push(c);
            start += run.max(1);
        }
        run /= 2;
    }
    for i in 0..n {
        if choices[i] > 0 {
            let mut c = choices.to_vec();
            c[i] = 0;
            out.push(c);
            if choices[i] > 1 {
                let mut c = choices.to_vec();
                c[i] /= 2;
                out.push(c);
            }
        }
    }
    out
}

/// The choices of a regression file: the numbers after `choices:` on its
/// first line that has them (see the runner's regression files).
pub fn parse_choices(text: &str) -> Option<Vec<u64>> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix("// choices:"))?;
    line.split_whitespace().map(|w| w.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_gives_the_same_kernel() {
        for seed in 0..50 {
            let mut c = Choices::random(seed);
            let a = generate("k", &mut c);
            let mut r = Choices::replay(c.recorded().to_vec());
            let b = generate("k", &mut r);
            assert_eq!(a.source, b.source, "seed {seed}");
        }
    }

    #[test]
    fn no_choices_is_the_smallest_kernel() {
        let a = generate("k", &mut Choices::replay(Vec::new()));
        let b = generate("k", &mut Choices::random(7));
        assert!(a.source.len() < b.source.len());
        assert!(a.source.contains("#[gpu_kernel]"));
    }

    #[test]
    fn shrinking_only_makes_smaller_or_lower_lists() {
        let c = vec![3, 0, 5, 1];
        for s in shrink(&c) {
            assert!(
                s.len() < c.len() || s.iter().zip(&c).all(|(a, b)| a <= b) && s != c,
                "{s:?}"
            );
        }
    }

    #[test]
    fn regression_files_give_their_choices() {
        assert_eq!(
            parse_choices("// seed 3\n// choices: 1 2 30\nmod x {}"),
            Some(vec![1, 2, 30])
        );
        assert_eq!(parse_choices("mod x {}"), None);
    }
}
