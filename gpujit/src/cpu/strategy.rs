//! Which of the CPU backend's strategies a launch may take
//! (`GPUJIT_CPU_EXEC`, [`with_cpu_strategies_off`]): each one forced off
//! makes a kernel that would take it run its fallback instead, so that tests
//! and the fuzzer can compare every path that can run a kernel.
//!
//! | off | a kernel that would take it runs instead |
//! |---|---|
//! | [`Strategies::SPANS`] | its thread loop with every access checked per thread |
//! | [`Strategies::LOCKSTEP`] | its plain thread loop (a barrier-free kernel's loop run in lockstep) |
//! | [`Strategies::SPLIT`] | coroutines (and with the split go its interchanged and narrowed loops, which are the split's parts) |
//! | [`Strategies::MERGE`] | one block at a time |
//! | [`Strategies::INLINE`] | on the thread pool (a small launch of a kernel without loops or calls runs on the calling thread) |
//!
//! All five off is the coroutine reference path (`GPUJIT_CPU_EXEC=coroutines`).

use std::cell::Cell;
use std::ops::BitOr;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// A set of the CPU backend's strategies, combined with `|`: the ones a
/// launch is kept from taking (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Strategies(u8);

impl Strategies {
    /// None: every strategy allowed (the default, `GPUJIT_CPU_EXEC=loops`).
    pub const NONE: Strategies = Strategies(0);
    /// Block spans: thread loops whose accesses are checked once per block
    /// (`no-spans`).
    pub const SPANS: Strategies = Strategies(1);
    /// A barrier-free kernel's loop run across the threads in lockstep
    /// (`no-lockstep`).
    pub const LOCKSTEP: Strategies = Strategies(2);
    /// A kernel with barriers split into thread loops between them
    /// (`no-split`).
    pub const SPLIT: Strategies = Strategies(4);
    /// A grid row's blocks run as one wide block (`no-merge`).
    pub const MERGE: Strategies = Strategies(8);
    /// A small launch of a kernel whose work per thread the macro bounds
    /// run on the calling thread, not the pool (`no-inline`).
    pub const INLINE: Strategies = Strategies(16);
    /// Every strategy: the coroutine reference path (`coroutines`).
    pub const ALL: Strategies = Strategies(31);

    /// Whether every strategy of `other` is in `self`.
    #[inline(always)]
    pub const fn contains(self, other: Strategies) -> bool {
        self.0 & other.0 == other.0
    }

    /// Parses `GPUJIT_CPU_EXEC`: `loops` (or nothing: every strategy),
    /// `coroutines` (none), or a comma-separated list of `no-spans`,
    /// `no-lockstep`, `no-split`, `no-merge` and `no-inline`. Returns the strategies
    /// kept off.
    ///
    /// # Errors
    /// A message naming the unknown word and the words allowed.
    pub fn parse_off(list: &str) -> std::result::Result<Strategies, String> {
        let mut off = Strategies::NONE;
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            off = off
                | match word {
                    "loops" => Strategies::NONE,
                    "coroutines" => Strategies::ALL,
                    "no-spans" => Strategies::SPANS,
                    "no-lockstep" => Strategies::LOCKSTEP,
                    "no-split" => Strategies::SPLIT,
                    "no-merge" => Strategies::MERGE,
                    "no-inline" => Strategies::INLINE,
                    _ => {
                        return Err(format!(
                            "`{word}` is not an execution path of the CPU backend; use `loops` (the default), `coroutines`, or a comma-separated list of `no-spans`, `no-lockstep`, `no-split`, `no-merge` and `no-inline`"
                        ))
                    }
                };
        }
        Ok(off)
    }
}

impl BitOr for Strategies {
    type Output = Strategies;
    fn bitor(self, rhs: Strategies) -> Strategies {
        Strategies(self.0 | rhs.0)
    }
}

thread_local! {
    /// Set by [`with_cpu_strategies_off`] on this OS thread.
    static FORCED_OFF: Cell<Strategies> = const { Cell::new(Strategies::NONE) };
}

/// Runs `f` with every CPU launch it makes on this OS thread kept from the
/// strategies `off` (on top of `GPUJIT_CPU_EXEC`'s). For tests and the
/// fuzzer, which compare every path that can run a kernel.
pub fn with_cpu_strategies_off<R>(off: Strategies, f: impl FnOnce() -> R) -> R {
    struct Restore(Strategies);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED_OFF.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED_OFF.with(|c| c.replace(c.get() | off)));
    f()
}

/// Runs `f` with every CPU launch it makes on this OS thread taking the
/// coroutine path for kernels with barriers and no other fast path, as
/// `GPUJIT_CPU_EXEC=coroutines` does for the whole process. For tests of
/// both paths.
pub fn with_forced_coroutines<R>(f: impl FnOnce() -> R) -> R {
    with_cpu_strategies_off(Strategies::ALL, f)
}

/// The strategies a launch is kept from: `GPUJIT_CPU_EXEC`'s (read once)
/// and [`with_cpu_strategies_off`]'s.
pub(super) fn strategies_off() -> Result<Strategies> {
    static ENV: OnceLock<std::result::Result<Strategies, String>> = OnceLock::new();
    let env = ENV
        .get_or_init(|| match std::env::var("GPUJIT_CPU_EXEC") {
            Err(_) => Ok(Strategies::NONE),
            Ok(v) => Strategies::parse_off(&v).map_err(|e| format!("GPUJIT_CPU_EXEC=`{v}`: {e}")),
        })
        .clone()
        .map_err(Error::InvalidLaunchConfig)?;
    Ok(env | FORCED_OFF.with(Cell::get))
}

/// The CPU backend's performance note, once per kernel (`noted` is the
/// kernel's own flag), through `log::warn!`: its blocks run their threads
/// as coroutines for `reason` (a context switch per thread at each barrier,
/// 10–30× slower than the split thread loops). Machinery for the generated
/// code; the text is for users.
#[inline]
pub fn note_coroutines(noted: &std::sync::atomic::AtomicBool, kernel: &str, reason: &str) {
    use std::sync::atomic::Ordering::Relaxed;
    if noted.load(Relaxed) || noted.swap(true, Relaxed) {
        return;
    }
    log::warn!(
        "gpujit performance note: kernel `{kernel}` runs its threads as coroutines on the CPU backend: {reason}. \
         Its results are right, but each barrier costs a context switch per thread; see README, \
         \"Writing kernels that are fast on the CPU\"."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_force() {
        assert_eq!(Strategies::parse_off(""), Ok(Strategies::NONE));
        assert_eq!(Strategies::parse_off(" loops "), Ok(Strategies::NONE));
        assert_eq!(Strategies::parse_off("coroutines"), Ok(Strategies::ALL));
        assert_eq!(
            Strategies::parse_off("no-spans, no-merge"),
            Ok(Strategies::SPANS | Strategies::MERGE)
        );
        let e = Strategies::parse_off("no-spans,fast").unwrap_err();
        assert!(e.contains("`fast`") && e.contains("no-lockstep"), "{e}");
        // What `GPUJIT_CPU_EXEC` keeps off in this process (all of it in
        // CI's coroutine pass): the switches add to it, and are undone.
        let env = strategies_off().unwrap();
        let off = with_cpu_strategies_off(Strategies::SPLIT, || {
            with_cpu_strategies_off(Strategies::LOCKSTEP, strategies_off)
        });
        assert_eq!(off.unwrap(), env | Strategies::SPLIT | Strategies::LOCKSTEP);
        assert_eq!(strategies_off().unwrap(), env);
        assert!(with_forced_coroutines(strategies_off)
            .unwrap()
            .contains(Strategies::ALL));
    }
}
