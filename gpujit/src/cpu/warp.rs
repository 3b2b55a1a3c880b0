//! Warp-level intrinsics on the CPU backend (`shfl_sync` & co.): what each
//! lane brings to one, and what each lane gets back.
//!
//! A warp is 32 consecutive threads of a block's linear index (`x`
//! fastest), as CUDA forms them; a block whose size is not a multiple of 32
//! ends in a partial warp, whose missing lanes count as exited. Kernels
//! with warp intrinsics run on the coroutine path (`coro.rs`): a lane
//! suspends at each intrinsic with an [`Arrival`], and once every thread of
//! the block is suspended or finished, [`complete`] finishes each
//! intrinsic whose lanes are all there: every lane named in its mask that
//! has not exited waits at the same call with the same mask. The lanes of a
//! warp thus exchange values in lockstep at each such point, whatever they
//! did in between.
//!
//! What a GPU leaves undefined is a fault here, naming the warp and lanes
//! (compute-sanitizer's synccheck reports the same): a lane that calls an
//! intrinsic with a mask that does not name it, two lanes of one call
//! with different masks, a lane named in the mask that waits elsewhere
//! (another intrinsic, a `syncthreads()`) and never comes, and a shuffle
//! that reads a lane that does not take part (exited, missing from a
//! partial warp, or not in the mask). A source lane out of range is not
//! undefined: the lane gets its own value, as PTX's `shfl.sync` defines
//! (which takes only the low 5 bits of a lane argument).

use std::fmt::Write as _;

/// The threads of a warp.
pub(super) const LANES: usize = 32;

/// A value that a warp shuffle or match exchanges: CUDA's 32- and 64-bit
/// scalar types (`i32`, `u32`, `f32`, `i64`, `u64`, `usize`, `f64`; CUDA C
/// `int`, `unsigned int`, `float`, `long long`, `unsigned long long`,
/// `double`). Sealed: gpujit implements it for exactly these types. Numba
/// takes `int32`, `int64`, `float32` and `float64`; another type is a
/// compile error in a kernel that says how to widen it.
///
/// ```
/// use gpujit::prelude::*;
///
/// /// Every lane gets lane 0's `f64` (a `WarpValue`).
/// #[gpu_kernel]
/// fn from_lane0(x: &[f64], out: &mut [f64]) {
///     let i = grid(1);
///     out[i] = shfl_sync(0xffff_ffff, x[i], 0);
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// fn exchangeable<T: gpujit::WarpValue>() {}
/// exchangeable::<usize>();
/// let x: Vec<f64> = (0..64).map(|i| i as f64).collect();
/// let mut out = gpujit::zeros::<f64>(64)?;
/// from_lane0![2, 32](&gpujit::to_device(&x)?, &mut out)?;
/// assert_eq!(out.copy_to_host()?[33], 32.0);
/// # Ok(())
/// # }
/// ```
pub trait WarpValue: Copy + sealed::Bits {}

pub(crate) mod sealed {
    /// A value's bits, widened to 64 (and back).
    pub trait Bits {
        fn warp_bits(self) -> u64;
        fn from_warp_bits(bits: u64) -> Self;
    }
}

macro_rules! warp_value {
    ($($t:ty => $bits:expr, $from:expr;)*) => {$(
        impl sealed::Bits for $t {
            #[inline]
            fn warp_bits(self) -> u64 {
                #[allow(clippy::redundant_closure_call)]
                ($bits)(self)
            }
            #[inline]
            fn from_warp_bits(bits: u64) -> Self {
                #[allow(clippy::redundant_closure_call)]
                ($from)(bits)
            }
        }
        impl WarpValue for $t {}
    )*};
}

warp_value! {
    i32 => (|v: i32| u64::from(v as u32)), |b: u64| b as u32 as i32;
    u32 => (|v: u32| u64::from(v)), |b: u64| b as u32;
    f32 => (|v: f32| u64::from(v.to_bits())), |b: u64| f32::from_bits(b as u32);
    i64 => (|v: i64| v as u64), |b: u64| b as i64;
    u64 => (|v: u64| v), |b: u64| b;
    usize => (|v: usize| v as u64), |b: u64| b as usize;
    f64 => (|v: f64| v.to_bits()), |b: u64| f64::from_bits(b);
}

/// The warp intrinsics that synchronise lanes (`lane_id()`, `warp_size()`
/// and `lanemask_lt()` are values each lane computes alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WarpOp {
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    All,
    Any,
    Eq,
    MatchAny,
    MatchAll,
    ActiveMask,
    SyncWarp,
}

impl WarpOp {
    /// gpujit's (and Numba's) name.
    fn name(self) -> &'static str {
        match self {
            WarpOp::Shfl => "shfl_sync",
            WarpOp::ShflUp => "shfl_up_sync",
            WarpOp::ShflDown => "shfl_down_sync",
            WarpOp::ShflXor => "shfl_xor_sync",
            WarpOp::Ballot => "ballot_sync",
            WarpOp::All => "all_sync",
            WarpOp::Any => "any_sync",
            WarpOp::Eq => "eq_sync",
            WarpOp::MatchAny => "match_any_sync",
            WarpOp::MatchAll => "match_all_sync",
            WarpOp::ActiveMask => "activemask",
            WarpOp::SyncWarp => "syncwarp",
        }
    }
}

/// What a lane brings to a warp intrinsic: the call (`site`, numbered
/// with the kernel's barriers), its mask, its value's bits (a predicate
/// is 0 or 1) and its lane argument (a shuffle's source lane, delta or lane
/// mask).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival {
    pub(crate) site: u32,
    pub(crate) op: WarpOp,
    pub(crate) mask: u32,
    pub(crate) value: u64,
    pub(crate) arg: u32,
}

/// Why a thread on the coroutine path suspended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Suspend {
    /// At `syncthreads()` (or a block vote) number `site + 1`, voting
    /// `vote` (`syncthreads()` votes false); resumed with `waiting << 32 |
    /// yes`: how many threads waited there and how many voted true.
    Barrier { site: u32, vote: bool },
    /// At a warp intrinsic; resumed with its result's bits (`warp.rs`).
    Warp(Arrival),
}

/// The warp intrinsic the threads of a split block meet at (the split
/// path's lockstep exchange, `Block::warp_gather`): each live thread's
/// arrival while `gathering`, then its result.
#[derive(Debug, Default)]
pub(super) struct Meeting {
    pub(super) gathering: bool,
    pub(super) wait: Vec<Wait>,
}

/// Where a thread of a block on the coroutine path is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Wait {
    /// To be resumed with this value: a barrier's `waiting << 32 | yes`, or
    /// a warp intrinsic's result bits.
    Ready(u64),
    /// At `syncthreads()` (or a block vote) number `site + 1`, voting `vote`.
    Barrier { site: u32, vote: bool },
    /// At a warp intrinsic.
    Warp(Arrival),
    /// Finished.
    Done,
}

/// The bits of `m`, lowest first.
fn lanes(m: u32) -> impl Iterator<Item = usize> {
    (0..LANES).filter(move |l| m & (1 << l) != 0)
}

/// What a fault about warp `w` says (the lanes and the call).
fn call(a: &Arrival) -> String {
    format!("{}() number {}", a.op.name(), a.site + 1)
}

/// What [`complete`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Completed {
    /// Some warp intrinsic completed.
    pub(super) any: bool,
    /// A `syncwarp` completed: it orders the memory accesses of its lanes
    /// (checked mode takes it as a barrier of the block).
    pub(super) syncwarp: bool,
}

/// Completes every warp intrinsic of the block whose lanes are all there
/// (see the module docs), setting those lanes to `Ready` with their
/// results. Call it only when no thread is `Ready`. Returns what completed,
/// or a fault: the linear index of the lane it names and the message.
pub(super) fn complete(wait: &mut [Wait]) -> Result<Completed, (usize, String)> {
    let mut done = Completed::default();
    let n = wait.len();
    for w0 in (0..n).step_by(LANES) {
        let warp = &mut wait[w0..(w0 + LANES).min(n)];
        if let Some(syncwarp) = complete_whole(warp) {
            done.any = true;
            done.syncwarp |= syncwarp;
            continue;
        }
        masks_agree(warp).map_err(|(lane, m)| (w0 + lane, m))?;
        for l in 0..warp.len() {
            let Wait::Warp(a) = warp[l] else { continue };
            let Some(group) = group(warp, l, &a).map_err(|m| (w0 + l, m))? else {
                continue;
            };
            let results = results(warp, group, &a).map_err(|(lane, m)| (w0 + lane, m))?;
            for m in lanes(group) {
                warp[m] = Wait::Ready(results[m]);
            }
            done.any = true;
            done.syncwarp |= a.op == WarpOp::SyncWarp;
        }
    }
    Ok(done)
}

/// Completes the common case at once: a whole warp of 32 lanes, each at
/// the same call with the full mask (every rule holds, and every source
/// lane takes part). `Some(whether it was a syncwarp)` if it did.
fn complete_whole(warp: &mut [Wait]) -> Option<bool> {
    let Some(&Wait::Warp(a)) = warp.first() else {
        return None;
    };
    if warp.len() != LANES || a.mask != u32::MAX || a.op == WarpOp::ActiveMask {
        return None;
    }
    let mut value = [0u64; LANES];
    let mut arg = [0u32; LANES];
    for (l, w) in warp.iter().enumerate() {
        match w {
            Wait::Warp(b) if b.site == a.site && b.mask == a.mask => {
                value[l] = b.value;
                arg[l] = b.arg;
            }
            _ => return None,
        }
    }
    let out = results_of(&value, &arg, u32::MAX, &a).ok()?;
    for (w, r) in warp.iter_mut().zip(out) {
        *w = Wait::Ready(r);
    }
    Some(a.op == WarpOp::SyncWarp)
}

/// Checks that the lanes of one call that name each other in their masks
/// give the same mask, whichever completes first (CUDA's rule; checked
/// before any completes, so that a lane whose mask names fewer lanes cannot
/// complete alone and hide the difference).
fn masks_agree(warp: &[Wait]) -> Result<(), (usize, String)> {
    // The common case first: every waiting lane at one call with one mask.
    let mut calls = warp.iter().filter_map(|w| match w {
        Wait::Warp(a) => Some((a.site, a.mask)),
        _ => None,
    });
    if let Some(first) = calls.next() {
        if calls.all(|c| c == first) {
            return Ok(());
        }
    }
    for (l, w) in warp.iter().enumerate() {
        let Wait::Warp(a) = w else { continue };
        if a.op == WarpOp::ActiveMask {
            continue;
        }
        for m in lanes(a.mask) {
            if let Some(Wait::Warp(b)) = warp.get(m) {
                if b.site == a.site && b.mask != a.mask {
                    return Err((l, different_masks(l, m, a, b)));
                }
            }
        }
    }
    Ok(())
}

fn different_masks(l: usize, m: usize, a: &Arrival, b: &Arrival) -> String {
    format!(
        "lanes {l} and {m} call {} with different masks, {:#010x} and {:#010x}; on a GPU this is undefined",
        call(a),
        a.mask,
        b.mask
    )
}

/// The lanes of lane `l`'s call `a` if they are all there, `None` if one
/// named in the mask may still come, or the fault.
fn group(warp: &[Wait], l: usize, a: &Arrival) -> Result<Option<u32>, String> {
    let same_call = |w: &Wait| matches!(w, Wait::Warp(b) if b.site == a.site);
    if a.op == WarpOp::ActiveMask {
        // The lanes at this call together: those a GPU runs converged.
        return Ok(Some(
            warp.iter()
                .enumerate()
                .filter(|(_, w)| same_call(w))
                .fold(0, |m, (i, _)| m | 1 << i),
        ));
    }
    if a.mask & (1 << l) == 0 {
        return Err(format!(
            "lane {l} calls {} with mask {:#010x}, which does not name it; on a GPU this is undefined",
            call(a),
            a.mask
        ));
    }
    let mut group = 0u32;
    for m in lanes(a.mask) {
        match warp.get(m) {
            // Exited, or missing from a partial warp: not waited for.
            None | Some(Wait::Done) => {}
            Some(Wait::Warp(b)) if b.site == a.site => {
                if b.mask != a.mask {
                    return Err(different_masks(l, m, a, b));
                }
                group |= 1 << m;
            }
            Some(_) => return Ok(None),
        }
    }
    Ok(Some(group))
}

/// Each lane's result of call `a` by the lanes of `group`, or the lane
/// that reads a lane outside it and the fault.
fn results(warp: &[Wait], group: u32, a: &Arrival) -> Result<[u64; LANES], (usize, String)> {
    let mut value = [0u64; LANES];
    let mut arg = [0u32; LANES];
    for m in lanes(group) {
        if let Wait::Warp(b) = warp[m] {
            value[m] = b.value;
            arg[m] = b.arg;
        }
    }
    results_of(&value, &arg, group, a)
}

/// [`results`] given the lanes' values and lane arguments.
fn results_of(
    value: &[u64; LANES],
    arg: &[u32; LANES],
    group: u32,
    a: &Arrival,
) -> Result<[u64; LANES], (usize, String)> {
    let mut out = [0u64; LANES];
    let shuffle = matches!(a.op, WarpOp::Shfl | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflXor);
    // What the votes and `match_all` need (a shuffle needs neither).
    let (yes, all_equal) = if shuffle {
        (0, false)
    } else {
        let first = lanes(group).next();
        (
            lanes(group).filter(|&m| value[m] != 0).fold(0u32, |b, m| b | 1 << m),
            first.is_none_or(|f| lanes(group).all(|m| value[m] == value[f])),
        )
    };
    for l in lanes(group) {
        out[l] = match a.op {
            WarpOp::Shfl | WarpOp::ShflUp | WarpOp::ShflDown | WarpOp::ShflXor => {
                let j = source(a.op, l, arg[l]);
                if group & (1 << j) == 0 {
                    return Err((
                        l,
                        format!(
                            "lane {l} reads lane {j} in {}, which does not take part in it (it exited, is missing from \
                             the block's partial last warp, or is not named in the mask {:#010x}); on a GPU the value \
                             is undefined",
                            call(a),
                            a.mask
                        ),
                    ));
                }
                value[j]
            }
            WarpOp::Ballot => u64::from(yes),
            WarpOp::All => u64::from(yes == group),
            WarpOp::Any => u64::from(yes != 0),
            WarpOp::Eq => u64::from(yes == group || yes == 0),
            WarpOp::MatchAny => u64::from(
                lanes(group)
                    .filter(|&m| value[m] == value[l])
                    .fold(0u32, |b, m| b | 1 << m),
            ),
            // The mask in the low 32 bits, the predicate in bit 32.
            // The lanes that take part, as a GPU gives them (Numba's
            // `test_match_all_sync`: 0x3ff for a warp of 10 lanes).
            WarpOp::MatchAll if all_equal => u64::from(group) | 1 << 32,
            WarpOp::MatchAll => 0,
            WarpOp::ActiveMask => u64::from(group),
            WarpOp::SyncWarp => 0,
        };
    }
    Ok(out)
}

/// The lane that lane `l` reads in shuffle `op` with lane argument `b`
/// (PTX `shfl.sync` for a width of 32: only `b`'s low 5 bits count; `idx`
/// reads lane `b % 32`, `bfly` lane `l ^ (b % 32)`, and `up` and `down` lanes
/// `l - b % 32` and `l + b % 32`, or `l` itself where that is outside 0..32).
#[inline(always)]
fn source(op: WarpOp, l: usize, b: u32) -> usize {
    let b = b as usize % LANES;
    match op {
        WarpOp::Shfl => b,
        WarpOp::ShflUp => l.checked_sub(b).unwrap_or(l),
        WarpOp::ShflDown => Some(l + b).filter(|&j| j < LANES).unwrap_or(l),
        _ => l ^ b,
    }
}

/// A shuffle that the split path exchanges on typed per-thread arrays ([`Block::shuffle_exchange`](crate::cpu::Block::shuffle_exchange)).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shuffle {
    /// `shfl_sync`: lane `b % 32`.
    Idx,
    /// `shfl_up_sync`: lane `l - b % 32`, or its own.
    Up,
    /// `shfl_down_sync`: lane `l + b % 32`, or its own.
    Down,
    /// `shfl_xor_sync`: lane `l ^ (b % 32)`.
    Xor,
}

impl From<Shuffle> for WarpOp {
    fn from(s: Shuffle) -> WarpOp {
        match s {
            Shuffle::Idx => WarpOp::Shfl,
            Shuffle::Up => WarpOp::ShflUp,
            Shuffle::Down => WarpOp::ShflDown,
            Shuffle::Xor => WarpOp::ShflXor,
        }
    }
}

/// Shuffles each whole warp of `vals` (32 lanes a chunk) in place: lane
/// `l` gets the value of lane `source(op, l, args[l])`, as [`complete`]
/// gives a whole warp at one shuffle with the full mask.
pub(super) fn shuffle_whole<T: Copy>(op: Shuffle, args: &[u32], vals: &mut [T]) {
    // One loop per shuffle, `source` inlined with its `op` a constant.
    match op {
        Shuffle::Idx => shuffle_each(args, vals, |l, b| source(WarpOp::Shfl, l, b)),
        Shuffle::Up => shuffle_each(args, vals, |l, b| source(WarpOp::ShflUp, l, b)),
        Shuffle::Down => shuffle_each(args, vals, |l, b| source(WarpOp::ShflDown, l, b)),
        Shuffle::Xor => shuffle_each(args, vals, |l, b| source(WarpOp::ShflXor, l, b)),
    }
}

#[inline(always)]
fn shuffle_each<T: Copy>(args: &[u32], vals: &mut [T], source: impl Fn(usize, u32) -> usize) {
    for (warp, args) in vals.chunks_exact_mut(LANES).zip(args.chunks_exact(LANES)) {
        let Ok(old) = <[T; LANES]>::try_from(&*warp) else {
            continue;
        };
        for (l, (w, &b)) in warp.iter_mut().zip(args).enumerate() {
            *w = old[source(l, b)];
        }
    }
}

/// The fault for a block where nothing can go on while a lane waits at a
/// warp intrinsic: the first such lane and a lane named in its mask that
/// waits elsewhere. `None` if no lane waits at one.
pub(super) fn stuck(wait: &[Wait]) -> Option<(usize, String)> {
    let (lin, a) = wait.iter().enumerate().find_map(|(i, w)| match w {
        Wait::Warp(a) => Some((i, *a)),
        _ => None,
    })?;
    let (w0, l) = (lin - lin % LANES, lin % LANES);
    let mut msg = format!("divergent warp: lane {l} of warp {} waits at {}", lin / LANES, call(&a));
    let _ = write!(msg, " with mask {:#010x}", a.mask);
    let other = lanes(a.mask).find_map(|m| match wait.get(w0 + m) {
        Some(Wait::Barrier { site, .. }) => Some((m, format!("at syncthreads() number {}", site + 1))),
        Some(Wait::Warp(b)) if b.site != a.site => Some((m, format!("at {}", call(b)))),
        _ => None,
    });
    if let Some((m, at)) = other {
        let _ = write!(msg, ", but lane {m} of that warp, named in the mask, waits {at}");
    }
    msg.push_str("; on a GPU this hangs or is undefined");
    Some((lin, msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(op: WarpOp, mask: u32, value: u64, arg: u32) -> Wait {
        Wait::Warp(Arrival {
            site: 0,
            op,
            mask,
            value,
            arg,
        })
    }

    fn ready(w: &Wait) -> u64 {
        match w {
            Wait::Ready(v) => *v,
            other => panic!("not ready: {other:?}"),
        }
    }

    #[test]
    fn shuffles_read_the_source_lane_or_their_own() {
        assert_eq!(source(WarpOp::Shfl, 3, 37), 5);
        assert_eq!(source(WarpOp::ShflUp, 3, 4), 3);
        assert_eq!(source(WarpOp::ShflUp, 3, 3), 0);
        assert_eq!(source(WarpOp::ShflDown, 30, 2), 30);
        assert_eq!(source(WarpOp::ShflDown, 29, 2), 31);
        assert_eq!(source(WarpOp::ShflXor, 5, 1), 4);
        assert_eq!(source(WarpOp::ShflXor, 5, 32), 5);
        assert_eq!(source(WarpOp::ShflXor, 5, 33), 4);
        assert_eq!(source(WarpOp::ShflDown, 0, 33), 1);
        assert_eq!(source(WarpOp::ShflDown, 0, u32::MAX), 31);
        assert_eq!(source(WarpOp::ShflUp, 31, 32), 31);
    }

    #[test]
    fn a_full_warp_shuffles_down() {
        let mut w: Vec<Wait> = (0..32).map(|l| at(WarpOp::ShflDown, !0, 100 + l, 1)).collect();
        assert!(complete(&mut w).unwrap().any);
        for (l, x) in w.iter().enumerate() {
            assert_eq!(ready(x), 100 + (l as u64 + 1).min(31));
        }
    }

    #[test]
    fn a_lane_named_in_the_mask_is_waited_for_unless_it_exited() {
        let mut w: Vec<Wait> = (0..4).map(|l| at(WarpOp::Ballot, 0b1111, l % 2, 0)).collect();
        w[2] = Wait::Barrier { site: 1, vote: false };
        assert!(!complete(&mut w).unwrap().any);
        assert!(stuck(&w).is_some_and(|(lin, m)| lin == 0 && m.contains("lane 2") && m.contains("syncthreads()")));
        w[2] = Wait::Done;
        assert!(complete(&mut w).unwrap().any);
        assert_eq!(ready(&w[0]), 0b1010);
    }

    #[test]
    fn reading_a_lane_outside_the_mask_is_a_fault() {
        let mut w: Vec<Wait> = (0..32).map(|l| at(WarpOp::ShflXor, 0x0000_ffff, l, 16)).collect();
        for x in &mut w[16..] {
            *x = Wait::Done;
        }
        let (lin, m) = complete(&mut w).unwrap_err();
        assert_eq!(lin, 0);
        assert!(m.contains("reads lane 16"), "{m}");
    }

    #[test]
    fn votes_and_matches() {
        let vals = [7u64, 7, 9, 7];
        let mut w: Vec<Wait> = (0..4).map(|l| at(WarpOp::MatchAny, 0b1111, vals[l], 0)).collect();
        assert!(complete(&mut w).unwrap().any);
        assert_eq!(
            w.iter().map(ready).collect::<Vec<_>>(),
            [0b1011, 0b1011, 0b0100, 0b1011]
        );
        let mut w: Vec<Wait> = (0..4).map(|l| at(WarpOp::MatchAll, 0b0011, vals[l], 0)).collect();
        w[2] = at(WarpOp::Eq, 0b0100, 1, 0);
        w[3] = Wait::Done;
        assert!(complete(&mut w).unwrap().any);
        assert_eq!(ready(&w[0]), 0b0011 | 1 << 32);
        assert_eq!(ready(&w[2]), 1);
        let mut w: Vec<Wait> = (0..3).map(|l| at(WarpOp::All, 0b111, u64::from(l != 1), 0)).collect();
        assert!(complete(&mut w).unwrap().any);
        assert_eq!(ready(&w[2]), 0);
    }

    #[test]
    fn different_masks_and_a_mask_without_the_lane_are_faults() {
        let mut w = vec![at(WarpOp::SyncWarp, 0b11, 0, 0), at(WarpOp::SyncWarp, 0b10, 0, 0)];
        assert!(complete(&mut w).unwrap_err().1.contains("different masks"));
        let mut w = vec![at(WarpOp::SyncWarp, 0b10, 0, 0)];
        assert!(complete(&mut w).unwrap_err().1.contains("does not name it"));
        // Lane 0's mask names itself only: it must not complete alone and
        // hide that lane 1, naming it, gives another mask.
        let mut w = vec![at(WarpOp::Ballot, 0b01, 1, 0), at(WarpOp::Ballot, 0b11, 1, 0)];
        let (lane, m) = complete(&mut w).unwrap_err();
        assert_eq!(lane, 1);
        assert!(
            m.contains("lanes 1 and 0 call ballot_sync() number 1 with different masks"),
            "{m}"
        );
        // A whole warp with the full mask completes at once.
        let mut w: Vec<Wait> = (0..32).map(|l| at(WarpOp::ShflXor, u32::MAX, l, 1)).collect();
        assert!(complete(&mut w).unwrap().any);
        assert_eq!((ready(&w[0]), ready(&w[1]), ready(&w[31])), (1, 0, 30));
    }

    #[test]
    fn activemask_is_the_lanes_at_the_call_together() {
        let mut w: Vec<Wait> = (0..5).map(|_| at(WarpOp::ActiveMask, 0, 0, 0)).collect();
        w[1] = Wait::Done;
        w[3] = Wait::Barrier { site: 4, vote: false };
        assert!(complete(&mut w).unwrap().any);
        assert_eq!(ready(&w[0]), 0b10101);
    }
}
