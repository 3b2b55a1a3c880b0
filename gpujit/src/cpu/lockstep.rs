//! Run-time support for loops that the generated code runs in lockstep
//! across a block's threads (see `gpujit-macros/src/cpu_lockstep/`).
//!
//! Each thread records its loop's bounds and step in per-thread arrays;
//! after that the block checks, once, whether the loop is block-uniform
//! enough to run as plain rounds: the same step in every thread of a
//! strided loop (`common_step`), the same range in every thread of a
//! unit-stride loop (`common_range`). If not, the block runs each thread's
//! own loop from the recorded state instead.
//!
//! `Block::lockstep_rows` runs a split kernel's lockstep loop between
//! barriers (`gpujit-macros/src/cpu_split/interchange.rs`) row by row, with
//! the local it carries in registers.

use std::sync::atomic::Ordering;

use crate::cpu::thread::Thread;

/// The integer types a `for` loop can count in: the trip count of a strided
/// range and the `r`-th element of it, without iterator objects.
pub trait StrideIndex: Copy {
    /// How many elements `(start..end).step_by(step)` (or `..=` when
    /// `inclusive`) yields; 0 when `step` is 0. Saturates at `usize::MAX`
    /// (only `0..=u64::MAX` by 1 and its like reach it: a loop nobody can
    /// finish either way).
    fn stride_trips(start: Self, end: Self, step: usize, inclusive: bool) -> usize;

    /// `self + offset` in this type's wrapping arithmetic: the element
    /// `offset` past `self`, exact when that element lies in the range
    /// (`offset = r * step` with `r` below the trip count, which is less
    /// than `2^64` for every type here).
    fn stride_at(self, offset: u64) -> Self;
}

macro_rules! stride_index {
    ($($t:ty => $wide:ty),*) => {$(
        impl StrideIndex for $t {
            #[inline]
            #[allow(clippy::cast_lossless, clippy::cast_sign_loss)]
            fn stride_trips(start: Self, end: Self, step: usize, inclusive: bool) -> usize {
                if step == 0 || start > end || (start == end && !inclusive) {
                    return 0;
                }
                // `end - start` as u64: exact, since `start <= end` and every
                // difference of a 64-bit (or narrower) type fits in u64.
                let span = (end as $wide as u64).wrapping_sub(start as $wide as u64);
                let step = step as u64;
                let last = if inclusive { span } else { span - 1 };
                // No division where the range holds one step at most (a
                // grid-stride loop launched with one element per thread):
                // a division per thread costs more than that thread's work.
                let before_last = if last < step { 0 } else { last / step };
                usize::try_from(before_last)
                    .ok()
                    .and_then(|n| n.checked_add(1))
                    .unwrap_or(usize::MAX)
            }

            #[inline(always)]
            #[allow(clippy::cast_lossless, clippy::cast_possible_truncation)]
            fn stride_at(self, offset: u64) -> Self {
                // Two's complement: the low bits of the sum do not depend on
                // the operands' higher bits, so truncating is exact.
                (self as u64).wrapping_add(offset) as Self
            }
        }
    )*};
}

stride_index!(
    u8 => u64, u16 => u64, u32 => u64, u64 => u64, usize => u64,
    i8 => i64, i16 => i64, i32 => i64, i64 => i64, isize => i64
);

impl crate::cpu::block::Block<'_> {
    /// Whether every thread of this block runs a grid-stride loop
    /// `(grid(1)..end).step_by(step)` (`..=end` when `inclusive`) at most
    /// once: its first element, the thread's own index, is at least the
    /// block's first thread's, so one step from there reaches `end`. Then the
    /// block runs its threads one after another, without lockstep rounds
    /// (see `gpujit-macros/src/cpu_lockstep/`). False for step 0 (the
    /// fault is the other path's to report, as it is either way).
    #[inline(always)]
    pub fn one_trip_each(&self, end: usize, step: usize, inclusive: bool) -> bool {
        let Some(next) = self.base[0].checked_add(step) else {
            return step > 0;
        };
        step > 0 && if inclusive { next > end } else { next >= end }
    }
}

/// Threads of a row that [`Block::lockstep_rows`] runs together, their
/// carried locals in a fixed-size array (registers, after inlining).
const ROW_CHUNK: usize = 8;

/// The longest range [`Block::lockstep_rows`] runs for a chunk without
/// checking the time limit in between (a few microseconds at most).
const SHORT_RANGE: usize = 64;

impl<'a> crate::cpu::block::Block<'a> {
    /// A lockstep loop of a split kernel (`for j in range { body }` between
    /// barriers, with a block-uniform range) that carries one per-thread
    /// local (the tiled matmul's `acc`, element `slots[t.lin()]`), run row by
    /// row: each run of [`ROW_CHUNK`] consecutive threads of a row (same
    /// `threadIdx.y` and `.z`) copies its slots into a local array, runs every
    /// iteration of `range` for each of its threads (`f(thread, j, slot)`),
    /// then copies them back; the threads left at the end of a row run one
    /// at a time. After inlining the array lives in registers and the chunk
    /// of threads vectorizes, as the hand-written `for j { acc[tx] += .. }`.
    ///
    /// Each thread still runs its iterations in order with its own value, so
    /// results are bit for bit the per-thread loop's; only the interleaving of
    /// threads changes, which CUDA leaves open between barriers. Like
    /// [`Block::threads_fit`] it runs only when [`Block::fits`] holds for
    /// `fit` and `len` (told to LLVM at each thread); otherwise, or with fewer
    /// slots than threads, it records a fault (a gpujit bug) and runs no
    /// thread. A cancelled launch returns at the next iteration (with a range
    /// of at most [`SHORT_RANGE`] iterations, at the next chunk) without
    /// copying the chunk's slots back (the block runs nothing more).
    #[inline(always)]
    pub fn lockstep_rows<S: Copy, I: Copy, R: Iterator<Item = I> + Clone>(
        &'a self,
        fit: [usize; 3],
        len: usize,
        slots: &mut [S],
        range: R,
        mut f: impl FnMut(&Thread<'a>, I, &mut S),
    ) {
        if !self.fits(true, fit, len) {
            self.record(
                [0; 3],
                "a fitted lockstep loop in a block that does not fit (gpujit bug)",
            );
            return;
        }
        let [bx, by, bz] = self.launch.block;
        let Some(slots) = slots.get_mut(..self.thread_count()) else {
            self.record([0; 3], "fewer per-thread slots than threads (gpujit bug)");
            return;
        };
        self.rows.set(true);
        let (base, cancel) = (self.base, &self.launch.cancel);
        let thread = |x: usize, y: usize, z: usize, lin: usize| {
            // SAFETY: this closure is local and its two callers below pass
            // `y < by`, `z < bz` (their loop ranges), `x < bx` (`x0 + i` with
            // `i` an index into a chunk, or the remainder, of a row of `bx`
            // slots, `x0` the slots before it in that row) and
            // `lin = (z * by + y) * bx + x`, so `lin < bx * by * bz`, which
            // `fits` checked above is at most `len` (computed without
            // overflow), with `bx <= fit[0]`, `by <= fit[1]`, `bz <= fit[2]`.
            // Said here so that LLVM sees it at each access of `f`.
            unsafe {
                std::hint::assert_unchecked(x < fit[0] && y < fit[1] && z < fit[2] && lin < len);
            }
            Thread {
                block: self,
                tid: [x, y, z],
                base,
                lin,
                cancel,
                yielder: None,
            }
        };
        // A short range (the tiled matmul's `0..TILE`) checks the time limit
        // once per chunk, before its iterations, rather than at each one: a
        // load and a branch less per iteration of the hot loop.
        let short = range.size_hint().1.is_some_and(|n| n <= SHORT_RANGE);
        // Rows of `bx` slots, one per `(y, z)`, in `lin` order.
        let mut rows = slots.chunks_exact_mut(bx.max(1));
        for z in 0..bz {
            for y in 0..by {
                let Some(row) = rows.next() else { return };
                let row_lin = (z * by + y) * bx;
                let mut chunks = row.chunks_exact_mut(ROW_CHUNK);
                let mut x0 = 0;
                for chunk in &mut chunks {
                    let mut regs: [S; ROW_CHUNK] = std::array::from_fn(|i| chunk[i]);
                    if short && cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    for j in range.clone() {
                        if !short && cancel.load(Ordering::Relaxed) {
                            return;
                        }
                        for (i, slot) in regs.iter_mut().enumerate() {
                            f(&thread(x0 + i, y, z, row_lin + x0 + i), j, slot);
                        }
                    }
                    chunk.copy_from_slice(&regs);
                    x0 += ROW_CHUNK;
                }
                for (i, slot) in chunks.into_remainder().iter_mut().enumerate() {
                    let mut s = *slot;
                    for j in range.clone() {
                        if cancel.load(Ordering::Relaxed) {
                            return;
                        }
                        f(&thread(x0 + i, y, z, row_lin + x0 + i), j, &mut s);
                    }
                    *slot = s;
                }
            }
        }
    }
}

/// One thread's state for a lockstep loop, recorded before the loop: it
/// reached the loop (`on`), the loop's `start`, `end`, `step` (1 for a
/// unit-stride loop) and trip count (strided loops only).
#[derive(Debug, Clone, Copy, Default)]
pub struct LoopState<T> {
    /// Whether the thread reached the loop.
    pub on: bool,
    /// The range's first bound.
    pub start: T,
    /// The range's second bound (inclusive or not, as the loop's).
    pub end: T,
    /// The checked step (0 after a `step_by(0)` fault).
    pub step: usize,
    /// How many iterations the thread's loop has left to run in lockstep.
    pub trips: usize,
}

/// The step every thread of a strided lockstep loop shares, and the largest
/// trip count, or `None` if two threads that run the loop at all (a trip
/// count above 0) have different steps.
pub fn common_step<T>(state: &[LoopState<T>]) -> Option<(usize, usize)> {
    let mut common = None;
    let mut rounds = 0;
    for s in state {
        if s.trips == 0 {
            continue;
        }
        match common {
            None => common = Some(s.step),
            Some(c) if c == s.step => {}
            Some(_) => return None,
        }
        rounds = rounds.max(s.trips);
    }
    Some((common.unwrap_or(1), rounds))
}

/// How many rounds of a strided lockstep loop every thread of the block
/// runs (the least trip count), or 0 if a thread did not reach the loop.
pub fn full_rounds<T>(state: &[LoopState<T>]) -> usize {
    state.iter().map(|s| if s.on { s.trips } else { 0 }).min().unwrap_or(0)
}

/// The range `(start, end)` every thread that reached a unit-stride
/// lockstep loop shares, or `None` if two of them differ or none reached it.
pub fn common_range<T: Copy + PartialEq>(state: &[LoopState<T>]) -> Option<(T, T)> {
    let mut common: Option<(T, T)> = None;
    for s in state {
        if !s.on {
            continue;
        }
        match common {
            None => common = Some((s.start, s.end)),
            Some(c) if c == (s.start, s.end) => {}
            Some(_) => return None,
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every trip count and element equals Rust's own `step_by`.
    fn check<T: StrideIndex + PartialEq + std::fmt::Debug>(a: T, b: T, s: usize)
    where
        std::ops::Range<T>: Iterator<Item = T>,
        std::ops::RangeInclusive<T>: Iterator<Item = T>,
    {
        for inclusive in [false, true] {
            let want: Vec<T> = if inclusive {
                (a..=b).step_by(s).take(1000).collect()
            } else {
                (a..b).step_by(s).take(1000).collect()
            };
            let trips = T::stride_trips(a, b, s, inclusive);
            assert_eq!(trips.min(1000), want.len(), "{a:?} {b:?} {s} {inclusive}");
            for (r, w) in want.iter().enumerate() {
                assert_eq!(
                    a.stride_at((r as u64).wrapping_mul(s as u64)),
                    *w,
                    "{a:?} {b:?} {s} {inclusive} {r}"
                );
            }
        }
    }

    #[test]
    fn trips_and_elements_match_step_by() {
        for s in [1, 2, 3, 7, 255, 256, 1 << 20, usize::MAX / 2, usize::MAX] {
            check::<usize>(usize::MAX - 5, usize::MAX, s);
            check::<usize>(0, usize::MAX, s.max(1 << 58));
            check::<usize>(3, 3, s);
            check::<usize>(9, 3, s);
            check::<u8>(250, 255, s);
            check::<u8>(0, 255, s);
            check::<i8>(-128, 127, s);
            check::<i8>(100, 127, s);
            check::<i64>(i64::MIN, i64::MAX, s.max(1 << 58));
            check::<i64>(i64::MAX - 10, i64::MAX, s);
            check::<i32>(-5, 17, s);
            check::<u32>(u32::MAX - 9, u32::MAX, s);
        }
        assert_eq!(u64::stride_trips(0, u64::MAX, 1, true), usize::MAX);
        assert_eq!(u64::stride_trips(0, 10, 0, false), 0);
    }

    fn state(on: bool, start: u32, end: u32, step: usize, trips: usize) -> LoopState<u32> {
        LoopState {
            on,
            start,
            end,
            step,
            trips,
        }
    }

    #[test]
    fn common_step_ignores_threads_without_iterations() {
        let s = |step, trips| state(true, 0, 0, step, trips);
        assert_eq!(common_step(&[s(4, 3), s(4, 2), s(9, 0)]), Some((4, 3)));
        assert_eq!(common_step(&[s(4, 1), s(5, 1)]), None);
        assert_eq!(common_step(&[s(0, 0), s(0, 0)]), Some((1, 0)));
    }

    #[test]
    fn common_range_only_counts_threads_that_reached_the_loop() {
        let r = |on, a, b| state(on, a, b, 1, 0);
        assert_eq!(
            common_range(&[r(true, 0, 5), r(false, 7, 9), r(true, 0, 5)]),
            Some((0, 5))
        );
        assert_eq!(common_range(&[r(true, 0, 5), r(true, 0, 6)]), None);
        assert_eq!(common_range(&[r(false, 0, 1)]), None);
    }
}
