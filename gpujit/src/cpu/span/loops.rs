//! The thread loops of a block on spans: the hints that let LLVM drop the
//! kernel's guards, and the per-thread slots of lockstep rounds.

use super::*;

impl<'a> Block<'a> {
    /// Whether every bound in `bounds` holds for this block: `(axis, lo, hi,
    /// d)` says that the global index of every thread of the block on own
    /// axis `axis`, offset by any value in `lo..=hi`, lies in `0..d`.
    #[inline(always)]
    pub fn within(&self, bounds: &[(SpanAxis, isize, isize, usize)]) -> bool {
        let n = self.launch.block;
        bounds
            .iter()
            .all(|&(a, lo, hi, d)| a < CONST && axis_within(self.base[usize::from(a)], n[usize::from(a)], lo, hi, d))
    }

    /// A fast block whose bounds do not hold (a gpujit bug): every thread
    /// faults, none runs. Out of line and cold: it is never taken, and
    /// inlined into every fast loop's caller it cost the tiled matmul a
    /// quarter of its speed (code layout).
    #[cold]
    #[inline(never)]
    fn bounds_fault(&self) {
        self.threads(|t| t.fault("a fast block whose bounds do not hold (gpujit bug)"));
    }

    /// [`Block::threads`] for the fast loop of block spans, in a block where
    /// [`Block::within`] holds for `bounds` (the generated code checks it
    /// first; a block where it does not is a fault, a gpujit bug, and no
    /// thread runs). Each iteration tells the optimiser those bounds for its
    /// thread, so that LLVM drops the kernel's own `if i < n` (with `d` the
    /// `n` the kernel reads) and vectorizes.
    #[inline(always)]
    pub fn threads_within(&'a self, bounds: &[(SpanAxis, isize, isize, usize)], mut f: impl FnMut(&Thread<'a>)) {
        // Checked here, outside the loop, rather than passed in: the loop's
        // hints then hold on every path, whether or not LLVM connects this
        // test with the caller's (when it did not, the kernel's guard stayed
        // in the loop and saxpy stopped vectorizing).
        if !self.within(bounds) {
            self.bounds_fault();
            return;
        }
        let [bx, by, bz] = self.launch.block;
        // Read once: a store in `f` may alias the block (it has cells).
        let (base, cancel) = (self.base, &self.launch.cancel);
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    // SAFETY: `x < bx`, `y < by`, `z < bz`; `within(bounds)`
                    // holds (checked above).
                    f(&unsafe { self.thread_within(bounds, base, cancel, [x, y, z], lin) });
                    lin += 1;
                }
            }
        }
    }

    /// [`Block::threads`] for the rounds of a lockstep loop on spans, with
    /// one slot per thread: `f` gets thread `t`'s element `slots[t.lin()]`
    /// (a per-thread local of the loop), without an index check per thread,
    /// so that the round can vectorize. Fewer slots than threads is a gpujit
    /// bug: a fault, no thread runs.
    #[inline(always)]
    pub fn threads_slots<S>(&'a self, slots: &mut [S], mut f: impl FnMut(&Thread<'a>, &mut S)) {
        let [bx, by, bz] = self.launch.block;
        let (base, cancel) = (self.base, &self.launch.cancel);
        let Some(slots) = slots.get_mut(..self.thread_count()) else {
            self.threads(|t| t.fault("fewer per-thread slots than threads (gpujit bug)"));
            return;
        };
        // Rows of `bx` slots, one per `(y, z)`, in `lin` order.
        let mut rows = slots.chunks_exact_mut(bx.max(1));
        let mut lin = 0;
        for z in 0..bz {
            for y in 0..by {
                let Some(row) = rows.next() else { return };
                for (x, slot) in row.iter_mut().enumerate() {
                    // SAFETY: `x < bx` (a row has `bx` slots), `y < by`,
                    // `z < bz`; no bounds (a branch on them here would keep
                    // LLVM from vectorizing).
                    f(&unsafe { self.thread_within(&[], base, cancel, [x, y, z], lin) }, slot);
                    lin += 1;
                }
            }
        }
    }

    /// A copy of `slots` (one per thread of the block) on the stack, for
    /// the rounds of a lockstep loop (see [`StackSlots`]).
    #[inline(always)]
    pub fn stack_slots<S: Copy + Default>(&self, slots: &[S]) -> StackSlots<S> {
        let mut buf = [S::default(); MAX_SLOTS];
        let n = slots.len().min(MAX_SLOTS);
        buf[..n].copy_from_slice(&slots[..n]);
        StackSlots { buf, n }
    }

    /// Thread `tid` (number `lin`) of this block, with `bounds` told to the
    /// optimiser for its own index.
    ///
    /// # Safety
    /// `tid[a] < blockDim[a]` on every axis, `base` and `cancel` are this
    /// block's (`self.base`, `&self.launch.cancel`), and
    /// `self.within(bounds)` holds.
    #[inline(always)]
    unsafe fn thread_within(
        &'a self,
        bounds: &[(SpanAxis, isize, isize, usize)],
        base: [usize; 3],
        cancel: &'a std::sync::atomic::AtomicBool,
        tid: [usize; 3],
        lin: usize,
    ) -> Thread<'a> {
        for &(a, lo, hi, d) in bounds {
            let a = usize::from(a);
            let own = own_end(base[a], tid[a]);
            // SAFETY: the caller's contract: `tid[a] < blockDim[a]`, and
            // `within` checked that `base[a] + t + o` is in `0..d` for every
            // `t < n[a]` and `o` in `lo..=hi` (`lo <= hi`).
            unsafe {
                std::hint::assert_unchecked(own.wrapping_add_signed(hi) < d);
                if hi >= 0 {
                    std::hint::assert_unchecked(own < d);
                }
                if lo < 0 {
                    std::hint::assert_unchecked(own >= lo.unsigned_abs());
                }
            }
        }
        Thread {
            block: self,
            tid,
            base,
            lin,
            cancel,
            yielder: None,
        }
    }
}

/// The most threads a block has (`MAX_THREADS_PER_BLOCK`).
const MAX_SLOTS: usize = crate::launch::MAX_THREADS_PER_BLOCK as usize;

/// A lockstep loop's per-thread local, copied from its per-thread array to
/// the stack for the loop's rounds ([`Block::stack_slots`]), then copied
/// back ([`StackSlots::store`]). A stack array that nothing else points to
/// cannot alias the arrays the rounds read, so that LLVM vectorizes them
/// without run-time alias checks.
#[derive(Debug)]
pub struct StackSlots<S> {
    buf: [S; MAX_SLOTS],
    n: usize,
}

impl<S: Copy> StackSlots<S> {
    /// The slots (as many as the array had, at most one per possible thread).
    #[inline(always)]
    pub fn get(&mut self) -> &mut [S] {
        let n = self.n.min(MAX_SLOTS);
        &mut self.buf[..n]
    }

    /// Copies the slots back to the per-thread array they came from.
    #[inline(always)]
    pub fn store(&self, slots: &mut [S]) {
        let n = self.n.min(MAX_SLOTS).min(slots.len());
        slots[..n].copy_from_slice(&self.buf[..n]);
    }
}
