//! The warp intrinsics that synchronise the lanes of a warp (`shfl_sync`,
//! `ballot_sync`, `syncwarp`, ...; issue #21), one record each: the name a
//! kernel calls (Numba's, and the CPU backend's `Thread` method), CUDA C's
//! function, the arguments and the result. Lowering, both emitters, the
//! properties and the reference read them from here. (`lane_id()`,
//! `warp_size()` and `lanemask_lt()` are values each lane computes alone:
//! `ValueIntrinsic`.) Also the names of the warp and block collectives
//! (`warp_reduce_sum`, `block_scan_exclusive_sum`, ...), which
//! `lower::collectives` writes out in these intrinsics.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpFn {
    Shfl,
    ShflUp,
    ShflDown,
    ShflXor,
    Ballot,
    All,
    Any,
    Eq,
    MatchAny,
    /// In the model, its mask result only: `let (m, all) =
    /// match_all_sync(..)` binds `all` to `m != 0` (`lower::warp`).
    MatchAll,
    ActiveMask,
    SyncWarp,
}

/// One argument of a warp intrinsic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpArg {
    /// The lanes that take part, a bit per lane (`u32`).
    Mask,
    /// A value to exchange or match: a 32- or 64-bit scalar
    /// ([`WarpFn::VALUE_TYPES`]).
    Value,
    /// A shuffle's source lane, delta or lane mask (`u32`).
    Lane,
    /// A vote's predicate (`bool`).
    Pred,
}

/// What a warp intrinsic gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpResult {
    /// The type of its `Value` argument.
    Value,
    U32,
    Bool,
    /// Nothing: a statement (`syncwarp(mask);`).
    Unit,
}

/// Everything the macro needs of a warp intrinsic.
#[derive(Debug, Clone, Copy)]
pub struct WarpSpec {
    /// gpujit's (and Numba's) name, also the CPU backend's `Thread` method.
    pub name: &'static str,
    /// CUDA C's function (`__uni_sync` for `eq_sync`).
    pub cuda: &'static str,
    /// The arguments, in order, with their names for messages.
    pub args: &'static [(WarpArg, &'static str)],
    pub result: WarpResult,
}

const MASK: (WarpArg, &str) = (WarpArg::Mask, "mask");
const VALUE: (WarpArg, &str) = (WarpArg::Value, "value");
const PRED: (WarpArg, &str) = (WarpArg::Pred, "predicate");

impl WarpFn {
    pub const ALL: [WarpFn; 12] = [
        WarpFn::Shfl,
        WarpFn::ShflUp,
        WarpFn::ShflDown,
        WarpFn::ShflXor,
        WarpFn::Ballot,
        WarpFn::All,
        WarpFn::Any,
        WarpFn::Eq,
        WarpFn::MatchAny,
        WarpFn::MatchAll,
        WarpFn::ActiveMask,
        WarpFn::SyncWarp,
    ];

    /// The types a shuffle or match exchanges: CUDA's 32- and 64-bit
    /// overloads (`usize` is `unsigned long long`).
    pub const VALUE_TYPES: [Scalar; 7] = [
        Scalar::I32,
        Scalar::U32,
        Scalar::F32,
        Scalar::I64,
        Scalar::U64,
        Scalar::Usize,
        Scalar::F64,
    ];

    pub fn spec(self) -> WarpSpec {
        let (name, cuda, args, result): (_, _, &'static [_], _) = match self {
            WarpFn::Shfl => (
                "shfl_sync",
                "__shfl_sync",
                &[MASK, VALUE, (WarpArg::Lane, "src_lane")],
                WarpResult::Value,
            ),
            WarpFn::ShflUp => (
                "shfl_up_sync",
                "__shfl_up_sync",
                &[MASK, VALUE, (WarpArg::Lane, "delta")],
                WarpResult::Value,
            ),
            WarpFn::ShflDown => (
                "shfl_down_sync",
                "__shfl_down_sync",
                &[MASK, VALUE, (WarpArg::Lane, "delta")],
                WarpResult::Value,
            ),
            WarpFn::ShflXor => (
                "shfl_xor_sync",
                "__shfl_xor_sync",
                &[MASK, VALUE, (WarpArg::Lane, "lane_mask")],
                WarpResult::Value,
            ),
            WarpFn::Ballot => ("ballot_sync", "__ballot_sync", &[MASK, PRED], WarpResult::U32),
            WarpFn::All => ("all_sync", "__all_sync", &[MASK, PRED], WarpResult::Bool),
            WarpFn::Any => ("any_sync", "__any_sync", &[MASK, PRED], WarpResult::Bool),
            WarpFn::Eq => ("eq_sync", "__uni_sync", &[MASK, PRED], WarpResult::Bool),
            WarpFn::MatchAny => ("match_any_sync", "__match_any_sync", &[MASK, VALUE], WarpResult::U32),
            // The C calls `gj_match_all_sync`, which passes `&pred` (`emit_cuda`).
            WarpFn::MatchAll => ("match_all_sync", "__match_all_sync", &[MASK, VALUE], WarpResult::U32),
            WarpFn::ActiveMask => ("activemask", "__activemask", &[], WarpResult::U32),
            WarpFn::SyncWarp => ("syncwarp", "__syncwarp", &[MASK], WarpResult::Unit),
        };
        WarpSpec {
            name,
            cuda,
            args,
            result,
        }
    }

    /// The warp intrinsic called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<WarpFn> {
        WarpFn::ALL.into_iter().find(|f| f.spec().name == name)
    }

    /// How a call is written, for messages: `shfl_down_sync(mask, value, delta)`.
    pub fn usage(self) -> String {
        let s = self.spec();
        let args: Vec<&str> = s.args.iter().map(|(_, n)| *n).collect();
        format!("{}({})", s.name, args.join(", "))
    }
}

/// How far a collective reaches: the calling thread's warp, or its block.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CollectiveReach {
    Warp,
    Block,
}

/// What a collective computes from every thread's value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CollectiveOp {
    /// The sum (wrapping for integers), or the least or greatest value
    /// (`min`/`max` as the kernel language defines them: a NaN loses).
    Reduce(Combine),
    /// The sum of the values of the threads up to this one, itself included.
    InclusiveSum,
    /// The same without this thread's value (0 in the first thread).
    ExclusiveSum,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    Sum,
    Min,
    Max,
}

/// A warp- or block-wide reduction or scan (`warp_reduce_sum(v)`,
/// `block_scan_exclusive_sum(v)`, ...): not a construct of the model, but
/// code in the kernel language that `lower::collectives` writes out for a
/// call, whose shuffles and barriers carry their own properties.
#[derive(Clone, Copy)]
pub struct Collective {
    pub name: &'static str,
    pub reach: CollectiveReach,
    pub op: CollectiveOp,
}

const COLLECTIVES: [Collective; 10] = {
    use CollectiveOp::*;
    use CollectiveReach::*;
    use Combine::*;
    const fn c(name: &'static str, reach: CollectiveReach, op: CollectiveOp) -> Collective {
        Collective { name, reach, op }
    }
    [
        c("warp_reduce_sum", Warp, Reduce(Sum)),
        c("warp_reduce_min", Warp, Reduce(Min)),
        c("warp_reduce_max", Warp, Reduce(Max)),
        c("warp_scan_inclusive_sum", Warp, InclusiveSum),
        c("warp_scan_exclusive_sum", Warp, ExclusiveSum),
        c("block_reduce_sum", Block, Reduce(Sum)),
        c("block_reduce_min", Block, Reduce(Min)),
        c("block_reduce_max", Block, Reduce(Max)),
        c("block_scan_inclusive_sum", Block, InclusiveSum),
        c("block_scan_exclusive_sum", Block, ExclusiveSum),
    ]
};

impl Collective {
    pub fn from_name(name: &str) -> Option<Collective> {
        COLLECTIVES.iter().copied().find(|c| c.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUBS: &str = include_str!("../../../gpujit/src/kernel.rs");
    const THREAD: &str = include_str!("../../../gpujit/src/cpu/thread.rs");
    const REFERENCE: &str = include_str!("../../../gpujit/src/reference.md");
    const SHIM: &str = include_str!("../../../driver-double/shim.h");

    /// Each warp intrinsic has its stub for rustc's copy, its CPU method,
    /// its row in the reference and its function in the host shim.
    #[test]
    fn warp_intrinsics_are_complete() {
        for f in WarpFn::ALL {
            let s = f.spec();
            assert_eq!(WarpFn::from_name(s.name), Some(f));
            assert!(STUBS.contains(&format!("pub fn {}(", s.name)) || STUBS.contains(&format!("pub fn {}<", s.name)));
            assert!(
                THREAD.contains(&format!("pub fn {}(&self", s.name)) || THREAD.contains(&format!("pub fn {}<", s.name))
            );
            assert!(
                REFERENCE
                    .lines()
                    .any(|l| l.starts_with(&format!("| `{}(", s.name)) && l.contains(s.cuda)),
                "the reference has no row for `{}` naming `{}`",
                s.name,
                s.cuda
            );
            assert!(SHIM.contains(s.cuda), "the host shim lacks `{}`", s.cuda);
        }
    }
}
