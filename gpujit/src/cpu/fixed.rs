//! Fixed-size Rust arrays as the CPU version of a kernel indexes them: a
//! local array (`let mut acc = [0.0f32; 8];`) and a module `const` array
//! (`FILTER[i]`). Every access checks each index against its own dimension;
//! an out-of-bounds access records a fault on the [`Thread`] (with the
//! thread's coordinates, as for array parameters and shared arrays) and reads
//! `T::default()` / drops the write. Safe code only: no `unsafe` here.
//! Machinery for generated code, not public API.

use crate::cpu::view::OutOfBounds;
use crate::cpu::{Space, Thread};
use crate::scalar::KernelScalar;

/// A Rust array of `R` dimensions (`[T; A]`, `[[T; B]; A]`, `[[[T; C]; B]; A]`)
/// of kernel scalars, indexed with `R` indices.
pub trait FixedArray<const R: usize> {
    /// The element type.
    type Elem: KernelScalar;
    /// The extents, outermost first.
    fn shape(&self) -> [usize; R];
    /// The element at `idx`, if every index is below its extent.
    fn at(&self, idx: [usize; R]) -> Option<&Self::Elem>;
    /// The element at `idx` for writing, if every index is below its extent.
    fn at_mut(&mut self, idx: [usize; R]) -> Option<&mut Self::Elem>;
}

impl<T: KernelScalar, const A: usize> FixedArray<1> for [T; A] {
    type Elem = T;
    fn shape(&self) -> [usize; 1] {
        [A]
    }
    #[inline(always)]
    fn at(&self, [i]: [usize; 1]) -> Option<&T> {
        self.get(i)
    }
    #[inline(always)]
    fn at_mut(&mut self, [i]: [usize; 1]) -> Option<&mut T> {
        self.get_mut(i)
    }
}

impl<T: KernelScalar, const A: usize, const B: usize> FixedArray<2> for [[T; B]; A] {
    type Elem = T;
    fn shape(&self) -> [usize; 2] {
        [A, B]
    }
    #[inline(always)]
    fn at(&self, [i, j]: [usize; 2]) -> Option<&T> {
        self.get(i)?.get(j)
    }
    #[inline(always)]
    fn at_mut(&mut self, [i, j]: [usize; 2]) -> Option<&mut T> {
        self.get_mut(i)?.get_mut(j)
    }
}

impl<T: KernelScalar, const A: usize, const B: usize, const C: usize> FixedArray<3> for [[[T; C]; B]; A] {
    type Elem = T;
    fn shape(&self) -> [usize; 3] {
        [A, B, C]
    }
    #[inline(always)]
    fn at(&self, [i, j, k]: [usize; 3]) -> Option<&T> {
        self.get(i)?.get(j)?.get(k)
    }
    #[inline(always)]
    fn at_mut(&mut self, [i, j, k]: [usize; 3]) -> Option<&mut T> {
        self.get_mut(i)?.get_mut(j)?.get_mut(k)
    }
}

/// Reads `a[idx]`; faults and returns `T::default()` if an index is out of
/// range. `space` is [`Space::Local`] or [`Space::Constant`] (for the message).
#[inline(always)]
pub fn fixed_ld<A: FixedArray<R>, const R: usize>(
    t: &Thread<'_>,
    a: &A,
    idx: [usize; R],
    name: &'static str,
    space: Space,
) -> A::Elem {
    match a.at(idx) {
        Some(v) => *v,
        None => {
            out_of_bounds(*t, &idx, &a.shape(), name, space);
            A::Elem::default()
        }
    }
}

/// Writes `a[idx] = v`; faults and drops the write if an index is out of range.
#[inline(always)]
pub fn fixed_st<A: FixedArray<R>, const R: usize>(
    t: &Thread<'_>,
    a: &mut A,
    idx: [usize; R],
    v: A::Elem,
    name: &'static str,
) {
    let shape = a.shape();
    match a.at_mut(idx) {
        Some(slot) => *slot = v,
        None => out_of_bounds(*t, &idx, &shape, name, Space::Local),
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds(t: Thread<'_>, index: &[usize], shape: &[usize], name: &'static str, space: Space) {
    t.fault(OutOfBounds {
        index,
        space,
        name,
        shape,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_lookups() {
        let mut a = [[1u32, 2, 3], [4, 5, 6]];
        assert_eq!(FixedArray::<2>::shape(&a), [2, 3]);
        assert_eq!(a.at([1, 2]), Some(&6));
        assert_eq!(a.at([0, 3]), None);
        assert_eq!(a.at([2, 0]), None);
        *a.at_mut([0, 1]).unwrap() = 9;
        assert_eq!(a[0][1], 9);
        let b = [[[0.5f64; 2]; 3]; 4];
        assert_eq!(FixedArray::<3>::shape(&b), [4, 3, 2]);
        assert_eq!(b.at([3, 2, 1]), Some(&0.5));
        assert_eq!(b.at([3, 2, 2]), None);
        let c = [7i64; 5];
        assert_eq!(FixedArray::<1>::shape(&c), [5]);
        assert_eq!(c.at([4]), Some(&7));
        assert_eq!(c.at([5]), None);
    }
}
