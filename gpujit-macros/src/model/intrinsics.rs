//! The intrinsics of the kernel language, one record each (as NVIDIA Warp's
//! `add_builtin`): the "unknown function" message, the reference page's
//! table (checked by a test), the CUDA and Numba spellings `spelling` maps
//! to gpujit's, and, for the value intrinsics, their properties and both
//! backends' code are read from here.

use super::*;

/// One intrinsic, as the reference's tables and the messages show it.
#[derive(Debug)]
pub struct IntrinsicRecord {
    /// How a call is shown (`thread_idx()`, `grid(n)`).
    pub call: &'static str,
    /// CUDA C's spelling, as the reference writes it (its tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub cuda: &'static str,
    /// Numba's spelling, as the reference writes it (its tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub numba: &'static str,
}

/// Every intrinsic but the math methods and the atomics (whose families
/// have tables of their own, `MathFn` and `AtomicFn`), in the order the
/// "unknown function" message lists them.
pub static INTRINSICS: &[IntrinsicRecord] = &[
    IntrinsicRecord {
        call: "grid(n)",
        cuda: "blockIdx.x * blockDim.x + threadIdx.x",
        numba: "cuda.grid(n)",
    },
    IntrinsicRecord {
        call: "gridsize(n)",
        cuda: "gridDim.x * blockDim.x",
        numba: "cuda.gridsize(n)",
    },
    IntrinsicRecord {
        call: "thread_idx()",
        cuda: "threadIdx",
        numba: "cuda.threadIdx",
    },
    IntrinsicRecord {
        call: "block_idx()",
        cuda: "blockIdx",
        numba: "cuda.blockIdx",
    },
    IntrinsicRecord {
        call: "block_dim()",
        cuda: "blockDim",
        numba: "cuda.blockDim",
    },
    IntrinsicRecord {
        call: "grid_dim()",
        cuda: "gridDim",
        numba: "cuda.gridDim",
    },
    IntrinsicRecord {
        call: "lane_id()",
        cuda: "threadIdx.x % warpSize",
        numba: "cuda.laneid",
    },
    IntrinsicRecord {
        call: "warp_size()",
        cuda: "warpSize",
        numba: "cuda.warpsize",
    },
    IntrinsicRecord {
        call: "lanemask_lt()",
        cuda: "%lanemask_lt",
        numba: "cuda.lanemask_lt",
    },
    IntrinsicRecord {
        call: "shfl_sync(mask, v, lane) and the other warp intrinsics",
        cuda: "__shfl_sync",
        numba: "cuda.shfl_sync",
    },
    IntrinsicRecord {
        call: "shared_array::<[T; N]>()",
        cuda: "__shared__ T a[N]",
        numba: "cuda.shared.array",
    },
    IntrinsicRecord {
        call: "syncthreads()",
        cuda: "__syncthreads()",
        numba: "cuda.syncthreads()",
    },
    IntrinsicRecord {
        call: "syncthreads_count/and/or(p)",
        cuda: "__syncthreads_count(p)",
        numba: "cuda.syncthreads_count(p)",
    },
    IntrinsicRecord {
        call: "atomic_add(&mut a[i], v) and the other atomics",
        cuda: "atomicAdd",
        numba: "cuda.atomic.add",
    },
    IntrinsicRecord {
        call: "threadfence()",
        cuda: "__threadfence()",
        numba: "cuda.threadfence()",
    },
];

/// The intrinsics, as the "unknown function" message lists them.
pub fn intrinsics_list() -> String {
    INTRINSICS.iter().map(|r| r.call).collect::<Vec<_>>().join(", ")
}

/// What a value intrinsic is: everything the macro needs of it.
#[derive(Debug, Clone, Copy)]
pub struct ValueSpec {
    /// gpujit's name: a call `name()` with no arguments.
    pub name: &'static str,
    pub ty: Scalar,
    /// `Block` if every thread of a block reads the same value; `Thread`
    /// if it is computed from the thread's coordinates.
    pub uniformity: Uniformity,
    /// Tells the thread which block or thread it is (see `ExprProps`).
    pub sees_block: bool,
    /// The CUDA C expression (of C type `unsigned long long` for `usize`).
    pub cuda: &'static str,
    /// The CPU backend's `Thread` method that gives it.
    pub cpu_method: &'static str,
}

/// The intrinsics that are values each thread reads: no arguments, no
/// effects, no fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueIntrinsic {
    /// `lane_id()`: the thread's lane in its warp (Numba's `cuda.laneid`).
    LaneId,
    /// `warp_size()`: 32 (Numba's `cuda.warpsize`, CUDA C's `warpSize`).
    WarpSize,
    /// `lanemask_lt()`: the bits of the lanes below this one (Numba's
    /// `cuda.lanemask_lt`, PTX's `%lanemask_lt`).
    LaneMaskLt,
}

impl ValueIntrinsic {
    pub const ALL: [ValueIntrinsic; 3] = [
        ValueIntrinsic::LaneId,
        ValueIntrinsic::WarpSize,
        ValueIntrinsic::LaneMaskLt,
    ];

    pub fn spec(self) -> ValueSpec {
        match self {
            // Warps are formed from the threads' linear index in the block,
            // `x` fastest, as CUDA does; a block's last warp may be partial.
            ValueIntrinsic::LaneId => ValueSpec {
                name: "lane_id",
                ty: Scalar::Usize,
                uniformity: Uniformity::Thread,
                sees_block: true,
                cuda: "((unsigned long long)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) \
                       % warpSize)",
                cpu_method: "lane_id",
            },
            ValueIntrinsic::WarpSize => ValueSpec {
                name: "warp_size",
                ty: Scalar::Usize,
                uniformity: Uniformity::Block,
                sees_block: false,
                cuda: "((unsigned long long)warpSize)",
                cpu_method: "warp_size",
            },
            ValueIntrinsic::LaneMaskLt => ValueSpec {
                name: "lanemask_lt",
                ty: Scalar::U32,
                uniformity: Uniformity::Thread,
                sees_block: true,
                cuda:
                    "((unsigned int)((1ull << (((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) \
                       % warpSize)) - 1ull))",
                cpu_method: "lanemask_lt",
            },
        }
    }

    /// The value intrinsic called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<ValueIntrinsic> {
        ValueIntrinsic::ALL.into_iter().find(|v| v.spec().name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE: &str = include_str!("../../../gpujit/src/reference.md");
    const STUBS: &str = include_str!("../../../gpujit/src/kernel.rs");
    const THREAD: &str = include_str!("../../../gpujit/src/cpu/thread.rs");

    /// The reference's row of each intrinsic names its CUDA C and Numba
    /// spellings.
    #[test]
    fn the_reference_has_a_row_for_each_intrinsic() {
        for r in INTRINSICS {
            let head = r.call.split(['(', '/', ':']).next().unwrap_or(r.call);
            let numba = r.numba.split('(').next().unwrap_or(r.numba);
            let cuda = r.cuda.split(['(', '.', ' ']).next().unwrap_or(r.cuda);
            let row = REFERENCE.lines().find(|l| {
                l.split('|').nth(1).is_some_and(|first| first.contains(head)) && l.contains(numba) && l.contains(cuda)
            });
            assert!(
                row.is_some(),
                "no row of the reference has `{head}` in its first cell and names `{cuda}` and `{numba}`"
            );
        }
    }

    /// Each value intrinsic has its record, its stub for rustc's copy, its
    /// CPU method, and is listed for the messages.
    #[test]
    fn value_intrinsics_are_complete() {
        for v in ValueIntrinsic::ALL {
            let s = v.spec();
            assert_eq!(ValueIntrinsic::from_name(s.name), Some(v));
            assert!(
                INTRINSICS.iter().any(|r| r.call == format!("{}()", s.name)),
                "`{}()` is not in INTRINSICS",
                s.name
            );
            assert!(
                STUBS.contains(&format!("pub fn {}() -> {}", s.name, s.ty.rust_name())),
                "gpujit::kernel lacks the stub of `{}`",
                s.name
            );
            assert!(
                THREAD.contains(&format!("pub fn {}(&self)", s.cpu_method)),
                "Thread lacks `{}`",
                s.cpu_method
            );
        }
    }

    /// A CUDA C name an intrinsic uses cannot be a user's name in the
    /// emitted code (`names` renames a local called `warpSize`).
    #[test]
    fn cuda_spellings_are_reserved() {
        for r in INTRINSICS {
            let ident: String = r
                .cuda
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            assert!(
                !crate::names::is_free(&ident),
                "`{ident}` ({}) is free for user names",
                r.call
            );
        }
    }

    /// No record of the CUDA/Numba names gpujit lacks plans an intrinsic
    /// gpujit has.
    #[test]
    fn no_foreign_record_plans_an_intrinsic() {
        for v in ValueIntrinsic::ALL {
            let name = v.spec().name;
            for r in crate::foreign_names::NAMES {
                if r.name == name {
                    assert!(
                        matches!(r.status, crate::foreign_names::Status::Has(_)),
                        "foreign_names plans `{name}`, which gpujit has"
                    );
                    assert!(!r.bare.contains(&name), "foreign_names catches calls of `{name}()`");
                }
            }
        }
    }
}
