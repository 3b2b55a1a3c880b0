//! The spans of global, shared and own-index arrays for one block (or one
//! round): each checks once that every index its thread loop forms is in
//! bounds.

use super::*;

impl<T: DeviceScalar> View<'_, T, GlobalMem> {
    /// The span of this read-only array for block `blk`, if every index
    /// `spec` describes (one `(axis, least offset, greatest offset)` per
    /// dimension) is inside the array for every thread of the block; `None`
    /// otherwise, and for a written array (its accesses stay atomic).
    #[inline(always)]
    pub fn span<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        Span::checked::<N, false>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope::BLOCK,
            spec,
            false,
        )
    }

    /// [`View::span`] for round `r` of a grid-stride loop with step `step`
    /// that block `blk` runs in lockstep: own positions stand for the
    /// thread's own index plus `r * step`.
    #[inline(always)]
    pub fn span_round<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
        r: usize,
        step: usize,
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        let scope = Scope {
            shift: r.checked_mul(step)?,
            ..Scope::BLOCK
        };
        Span::checked::<N, false>(self.ptr, (self.len, self.ndim, self.dims), blk, scope, spec, false)
    }

    /// [`View::span`] for one round of a loop that block `blk` runs in
    /// lockstep: positions [`UNIFORM`] (offsets 0 only) stand for `uniform`,
    /// the loop counter's value in this round, which must be below that
    /// position's extent (else `None`: the round runs checked).
    #[inline(always)]
    pub fn span_at<'b, const N: usize>(
        &self,
        blk: &'b Block<'b>,
        spec: [(SpanAxis, isize, isize); N],
        uniform: usize,
    ) -> Option<Span<'b, T>>
    where
        Self: 'b,
    {
        if self.writable {
            return None;
        }
        let scope = Scope {
            uniform,
            ..Scope::BLOCK
        };
        Span::checked::<N, false>(self.ptr, (self.len, self.ndim, self.dims), blk, scope, spec, false)
    }
}

impl<'b, T: DeviceScalar> View<'b, T, SharedMem> {
    /// The span of this shared array for block `blk` (the block it belongs
    /// to), if every index `spec` describes is inside the array for every
    /// thread of the block; `None` otherwise. Reads and writes through it are
    /// plain, as the view's are: a block's shared memory is touched only by
    /// the OS thread that runs the block (both types are `!Send`).
    #[inline(always)]
    pub fn span<const N: usize>(&self, blk: &'b Block<'b>, spec: [(SpanAxis, isize, isize); N]) -> Option<Span<'b, T>> {
        // Shared views are always writable (`Block::shared`); a constant
        // here lets LLVM drop the stores' test.
        Span::checked::<N, true>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope::BLOCK,
            spec,
            true,
        )
    }

    /// [`View::span`] for the threads of `x` only
    /// (a narrowed loop's, see [`Block::threads_x_range`]): only those
    /// threads may use the span (another's access is a fault).
    #[inline(always)]
    pub fn span_x<const N: usize>(
        &self,
        blk: &'b Block<'b>,
        x: XRange<'_>,
        spec: [(SpanAxis, isize, isize); N],
    ) -> Option<Span<'b, T>> {
        if !x.is_of(blk) {
            return None;
        }
        Span::checked::<N, true>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            blk,
            Scope {
                x: Some((x.x0, x.x1)),
                ..Scope::BLOCK
            },
            spec,
            true,
        )
    }
}

impl<'b, T: DeviceScalar> OwnedView<'b, T> {
    /// The span of this own-index view, if it accesses plainly and the own
    /// index of every thread of its block is inside the array. Reads and
    /// writes through it are at the thread's own index only: `spec` must be
    /// `[(OWN_X, 0, 0)]` for a 1-D array, `[(OWN_Y, 0, 0), (OWN_X, 0, 0)]`
    /// for a 2-D one (else `None`).
    #[inline(always)]
    pub fn span<const N: usize>(&self, spec: [(SpanAxis, isize, isize); N]) -> Option<Span<'b, T>> {
        let own = match self.access {
            1 => N == 1 && spec.first() == Some(&(OWN_X, 0, 0)),
            2 => N == 2 && spec.first() == Some(&(OWN_Y, 0, 0)) && spec.get(1) == Some(&(OWN_X, 0, 0)),
            _ => false,
        };
        if !self.plain || !own {
            return None;
        }
        Span::checked::<N, false>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            self.block,
            Scope::BLOCK,
            spec,
            true,
        )
    }

    /// The span of this own-index view of a 1-D array for round `r` of a
    /// grid-stride loop with step `step` that partitions it: each thread's
    /// element is its own index plus `r * step`, and `step` must be a
    /// multiple of the launch's `gridsize(1)`, so that every element stays
    /// in its thread's class (see [`OwnedView::ld_class`]); `spec` must be
    /// `[(OWN_X, 0, 0)]`. `None` unless the view accesses plainly and the
    /// round's elements of every thread of the block are inside the array.
    #[inline(always)]
    pub fn span_round<const N: usize>(
        &self,
        spec: [(SpanAxis, isize, isize); N],
        r: usize,
        step: usize,
    ) -> Option<Span<'b, T>> {
        let own = self.access == 1 && N == 1 && spec.first() == Some(&(OWN_X, 0, 0));
        // The same test every round: LLVM computes it once.
        if !self.plain || !own || self.class == 0 || !step.is_multiple_of(self.class) {
            return None;
        }
        let scope = Scope {
            shift: r.checked_mul(step)?,
            ..Scope::BLOCK
        };
        Span::checked::<N, false>(
            self.ptr,
            (self.len, self.ndim, self.dims),
            self.block,
            scope,
            spec,
            true,
        )
    }
}
