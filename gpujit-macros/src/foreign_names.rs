//! One table of the CUDA C and Numba names that gpujit does not have under
//! that spelling: what each is, and either what to write instead or the plan
//! that will add it. `spelling::foreign` recognises them in a kernel (the
//! error, and a stand-in for rustc's type-checked copy); `#[gpu_device]`
//! refuses a function named like a recognised bare name; the reference
//! page's "Not supported yet" table lists every planned record (a unit test
//! below checks it). Issue #18's one record per intrinsic can grow from
//! these records.
//!
//! Families that follow a rule stay rules in `spelling`: `threadIdx` & co.,
//! `atomicAdd`/`cuda.atomic.add`, the C and Python math functions
//! (`sqrtf(x)`, `math.sqrt(x)`), `cuda.grid(n)`, `cuda.shared.array(..)` and
//! `cuda.local.array(..)`; records marked `by_rule` are matched there too
//! and are here for their messages and the reference.
//!
//! Bare names (`shfl_down_sync(..)`, `print(..)`) are reserved in kernels:
//! a kernel cannot tell a user's `#[gpu_device]` function from the
//! intrinsic, so a device function may not take such a name (see
//! `device::gpu_device_impl`). A kernel's own variable of that name is the
//! user's (`spelling`'s `bound` check).

/// A name gpujit lacks under a CUDA C or Numba spelling.
pub struct Name {
    /// gpujit's name for it, as it is or will be (`shfl_down_sync`,
    /// `lane_id`); empty where no gpujit name is decided yet.
    pub name: &'static str,
    /// CUDA C spellings: `__shfl_down_sync`, the legacy `__shfl_down`,
    /// `warpSize`, `cg::this_grid`.
    pub cuda: &'static [&'static str],
    /// Numba's spellings after `cuda.`: `shfl_down_sync`, `laneid`,
    /// `fp16.hadd`, `random.xoroshiro128p_uniform_float32`.
    pub numba: &'static [&'static str],
    /// Bare names, always called: gpujit's planned name and names Numba code
    /// imports (`from numba.cuda.random import xoroshiro128p_uniform_float32`).
    pub bare: &'static [&'static str],
    /// The CUDA and Numba spellings are read as values (`warpSize`,
    /// `cuda.laneid`), not called.
    pub value: bool,
    /// Matched by a rule in `spelling` (its spellings are for messages).
    pub by_rule: bool,
    /// What it is: "a warp shuffle".
    pub what: &'static str,
    /// The arguments, as the messages name them (`mask, value, delta`).
    pub args: &'static str,
    pub status: Status,
    /// More for the help line (may be empty).
    pub note: &'static str,
}

/// Whether gpujit has it, and if not, the plan.
pub enum Status {
    /// gpujit has it: the expression to write, `$0`, `$1`, ... standing for
    /// the arguments (`$0.count_ones()`). Also what rustc's copy sees.
    Has(&'static str),
    /// Not yet: the plan, what to write meanwhile where the plan's general
    /// advice is not the best (`None`), and an expression of the type it
    /// will have, for rustc's copy (`$1`, `0u32`, `()`).
    Planned {
        plan: &'static Plan,
        instead: Option<&'static str>,
        stand_in: &'static str,
    },
}

/// A feature gpujit lacks: a row of the reference's "Not supported yet".
pub struct Plan {
    /// The feature, as the first cell of its row in the reference names it.
    pub feature: &'static str,
    /// The issue that adds it, where one is filed.
    pub issue: Option<u32>,
    /// What to write meanwhile.
    pub instead: &'static str,
}

pub const GRID_SYNC: Plan = Plan {
    feature: "cooperative groups, grid-wide sync",
    issue: None,
    instead: "split the kernel in two launches on one stream: a launch ends when every block has finished",
};
pub const PRINTING: Plan = Plan {
    feature: "printing",
    issue: None,
    instead: "write a flag or value to an output array and check it on the host",
};
pub const RANDOM: Plan = Plan {
    feature: "random numbers",
    issue: None,
    instead: "a counter-based hash of `grid(1)` and a seed (e.g. SplitMix64: `let mut z = seed + (i as u64).wrapping_mul(0x9E3779B97F4A7C15); ..`)",
};
pub const HALF: Plan = Plan {
    feature: "`f16`",
    issue: None,
    instead: "compute in `f32` (`half` values on the host: convert to `f32` before copying)",
};
pub const DYNAMIC_SHARED: Plan = Plan {
    feature: "dynamic shared memory",
    issue: None,
    instead: "`shared_array::<[T; N]>()` with a `const` size (one kernel per size)",
};
pub const TIMERS: Plan = Plan {
    feature: "clocks and sleeping",
    issue: None,
    instead: "time launches on the host with events (`gpujit::event()`, `elapsed_time`)",
};

/// Every plan, in the order of the reference's rows.
#[allow(dead_code)] // read by the reference check below (and the reference page's future generator)
pub const PLANS: &[&Plan] = &[&DYNAMIC_SHARED, &GRID_SYNC, &HALF, &PRINTING, &RANDOM, &TIMERS];

const BASE: Name = Name {
    name: "",
    cuda: &[],
    numba: &[],
    bare: &[],
    value: false,
    by_rule: false,
    what: "",
    args: "",
    status: Status::Has(""),
    note: "",
};

/// An `f16` operation: CUDA's `__hadd`, Numba's `cuda.fp16.hadd`.
const fn half(cuda: &'static [&'static str], numba: &'static [&'static str], stand_in: &'static str) -> Name {
    Name {
        cuda,
        numba,
        what: "an `f16` operation",
        args: "a, b",
        status: Status::Planned {
            plan: &HALF,
            instead: None,
            stand_in,
        },
        ..BASE
    }
}

/// A CUDA C intrinsic gpujit has as an operator or method.
const fn has(
    cuda: &'static [&'static str],
    numba: &'static [&'static str],
    what: &'static str,
    write: &'static str,
) -> Name {
    Name {
        cuda,
        numba,
        what,
        status: Status::Has(write),
        ..BASE
    }
}

const NO_FAST_MATH: &str = "gpujit has no fast-math intrinsics: the method is CUDA's accurate function";
const NEVER_FUSED: &str =
    "gpujit rounds every operation (NVRTC runs with `--fmad=false`), so the operator is what `_rn` asks for";

#[rustfmt::skip]
pub static NAMES: &[Name] = &[
    // Warp intrinsics (issue #21).
    Name {
        name: "lane_id", numba: &["laneid"], value: true, what: "the thread's lane in its warp",
        status: Status::Has("lane_id()"),
        ..BASE
    },
    Name {
        name: "warp_size", cuda: &["warpSize"], numba: &["warpsize"], value: true, what: "the warp size",
        status: Status::Has("warp_size()"),
        ..BASE
    },
    has(&["__shfl_sync"], &["shfl_sync"], "a warp shuffle", "shfl_sync($0, $1, $2)"),
    has(&["__shfl_up_sync"], &["shfl_up_sync"], "a warp shuffle", "shfl_up_sync($0, $1, $2)"),
    has(&["__shfl_down_sync"], &["shfl_down_sync"], "a warp shuffle", "shfl_down_sync($0, $1, $2)"),
    has(&["__shfl_xor_sync"], &["shfl_xor_sync"], "a warp shuffle", "shfl_xor_sync($0, $1, $2)"),
    // CUDA's deprecated forms without a mask (the whole warp).
    has(&["__shfl"], &[], "a warp shuffle", "shfl_sync(0xffff_ffff, $0, $1)"),
    has(&["__shfl_up"], &[], "a warp shuffle", "shfl_up_sync(0xffff_ffff, $0, $1)"),
    has(&["__shfl_down"], &[], "a warp shuffle", "shfl_down_sync(0xffff_ffff, $0, $1)"),
    has(&["__shfl_xor"], &[], "a warp shuffle", "shfl_xor_sync(0xffff_ffff, $0, $1)"),
    has(&["__ballot_sync"], &["ballot_sync"], "a warp vote", "ballot_sync($0, $1)"),
    has(&["__all_sync"], &["all_sync"], "a warp vote", "all_sync($0, $1)"),
    has(&["__any_sync"], &["any_sync"], "a warp vote", "any_sync($0, $1)"),
    has(&["__uni_sync"], &["eq_sync"], "a warp vote", "eq_sync($0, $1)"),
    has(&["__ballot"], &[], "a warp vote", "ballot_sync(0xffff_ffff, $0)"),
    has(&["__all"], &[], "a warp vote", "all_sync(0xffff_ffff, $0)"),
    has(&["__any"], &[], "a warp vote", "any_sync(0xffff_ffff, $0)"),
    has(&["__activemask"], &["activemask"], "the mask of a warp's active lanes", "activemask()"),
    has(&[], &["lanemask_lt"], "the mask of the lanes below this one", "lanemask_lt()"),
    has(&["__match_any_sync"], &["match_any_sync"], "a warp match", "match_any_sync($0, $1)"),
    has(&["__match_all_sync"], &["match_all_sync"], "a warp match", "let (m, all) = match_all_sync($0, $1)"),
    has(&["__syncwarp"], &["syncwarp"], "a warp barrier", "syncwarp($0)"),
    // Grid-wide sync.
    Name {
        name: "this_grid", cuda: &["cg::this_grid", "cooperative_groups::this_grid", "this_grid"], numba: &["cg.this_grid"],
        bare: &["this_grid"], what: "the cooperative grid group (its `.sync()` is a grid-wide barrier)",
        status: Status::Planned { plan: &GRID_SYNC, instead: None, stand_in: "::gpujit::__private::typecheck::GridGroup" },
        ..BASE
    },
    // Printing.
    Name {
        cuda: &["printf"], bare: &["print"], what: "a print function", args: "..",
        status: Status::Planned { plan: &PRINTING, instead: None, stand_in: "()" },
        ..BASE
    },
    // Numba's random numbers (and cuRAND's).
    Name {
        cuda: &["curand_uniform"], numba: &["random.xoroshiro128p_uniform_float32"],
        bare: &["xoroshiro128p_uniform_float32"], what: "a random number", args: "states, index",
        status: Status::Planned { plan: &RANDOM, instead: None, stand_in: "0.0f32" },
        ..BASE
    },
    Name {
        cuda: &["curand_uniform_double"], numba: &["random.xoroshiro128p_uniform_float64"],
        bare: &["xoroshiro128p_uniform_float64"], what: "a random number", args: "states, index",
        status: Status::Planned { plan: &RANDOM, instead: None, stand_in: "0.0f64" },
        ..BASE
    },
    Name {
        cuda: &["curand_normal"], numba: &["random.xoroshiro128p_normal_float32"],
        bare: &["xoroshiro128p_normal_float32"], what: "a random number", args: "states, index",
        status: Status::Planned { plan: &RANDOM, instead: None, stand_in: "0.0f32" },
        ..BASE
    },
    Name {
        cuda: &["curand_normal_double"], numba: &["random.xoroshiro128p_normal_float64"],
        bare: &["xoroshiro128p_normal_float64"], what: "a random number", args: "states, index",
        status: Status::Planned { plan: &RANDOM, instead: None, stand_in: "0.0f64" },
        ..BASE
    },
    Name {
        cuda: &["curand_init"], what: "a random number generator's setup", args: "seed, sequence, offset, state",
        status: Status::Planned { plan: &RANDOM, instead: None, stand_in: "()" },
        ..BASE
    },
    // f16.
    half(&["__hadd"], &["fp16.hadd"], "$0"),
    half(&["__hsub"], &["fp16.hsub"], "$0"),
    half(&["__hmul"], &["fp16.hmul"], "$0"),
    half(&["__hdiv"], &["fp16.hdiv"], "$0"),
    half(&["__hfma"], &["fp16.hfma"], "$0"),
    half(&["__hneg"], &["fp16.hneg"], "$0"),
    half(&["__habs"], &["fp16.habs"], "$0"),
    half(&["__hmax"], &["fp16.hmax"], "$0"),
    half(&["__hmin"], &["fp16.hmin"], "$0"),
    half(&["__heq"], &["fp16.heq"], "false"),
    half(&["__hne"], &["fp16.hne"], "false"),
    half(&["__hlt"], &["fp16.hlt"], "false"),
    half(&["__hle"], &["fp16.hle"], "false"),
    half(&["__hgt"], &["fp16.hgt"], "false"),
    half(&["__hge"], &["fp16.hge"], "false"),
    half(&["__float2half", "__float2half_rn"], &[], "$0"),
    half(&["__half2float"], &[], "$0"),
    // Dynamic shared memory: `cuda.shared.array(0, dtype)` (`spelling`'s rule).
    Name {
        numba: &["shared.array"], by_rule: true, what: "a dynamic shared array (its size set at launch)", args: "0, dtype",
        status: Status::Planned { plan: &DYNAMIC_SHARED, instead: None, stand_in: "shared_array::<[_; 1]>()" },
        ..BASE
    },
    // Clocks and sleeping.
    Name {
        cuda: &["clock64", "clock"], what: "the multiprocessor's cycle counter",
        status: Status::Planned { plan: &TIMERS, instead: None, stand_in: "0u64" },
        ..BASE
    },
    Name {
        cuda: &["__nanosleep"], numba: &["nanosleep"], what: "a sleep", args: "ns",
        status: Status::Planned { plan: &TIMERS, instead: Some("nothing: a kernel that waits for another block spins on a flag (`while atomic_add(&mut flag[0], 0) == 0 {}`)"), stand_in: "()" },
        ..BASE
    },
    // What gpujit has under another spelling.
    Name {
        numba: &["const.array_like"], by_rule: true, what: "a constant-memory array",
        status: Status::Has("$0"),
        note: "index the module-level `const` array itself (`FILTER[k]` with `const FILTER: [f32; 5] = [..];`): its CUDA C is a `__constant__` array",
        ..BASE
    },
    has(&["__syncthreads"], &["syncthreads"], "a block barrier", "syncthreads()"),
    has(&["__syncthreads_count"], &["syncthreads_count"], "a block vote", "syncthreads_count($0)"),
    has(&["__syncthreads_and"], &["syncthreads_and"], "a block vote", "syncthreads_and($0)"),
    has(&["__syncthreads_or"], &["syncthreads_or"], "a block vote", "syncthreads_or($0)"),
    has(&["__threadfence"], &["threadfence"], "a memory fence", "threadfence()"),
    has(&["__threadfence_block"], &["threadfence_block"], "a memory fence", "threadfence_block()"),
    has(&["__threadfence_system"], &["threadfence_system"], "a memory fence", "threadfence_system()"),
    Name {
        cuda: &["__ldg"], what: "a load through the read-only cache", status: Status::Has("$0"),
        note: "a `&[T]` parameter is `const T* __restrict__` in the CUDA C, which lets NVRTC use that cache itself",
        ..BASE
    },
    has(&["__popc", "__popcll"], &["popc"], "a population count", "$0.count_ones()"),
    has(&["__clz", "__clzll"], &["clz"], "a leading-zero count", "$0.leading_zeros()"),
    Name {
        cuda: &["__ffs", "__ffsll"], numba: &["ffs"], what: "find-first-set", status: Status::Has("$0.trailing_zeros() + 1"),
        note: "`__ffs(0)` is 0, where this gives the width plus 1",
        ..BASE
    },
    has(&["__brev", "__brevll"], &["brev"], "a bit reversal", "$0.reverse_bits()"),
    has(&["__fmaf_rn", "__fma_rn"], &["fma"], "a fused multiply-add", "$0.mul_add($1, $2)"),
    has(&[], &["cbrt"], "a cube root", "$0.cbrt()"),
    Name { cuda: &["__fadd_rn", "__dadd_rn"], what: "an addition", status: Status::Has("$0 + $1"), note: NEVER_FUSED, ..BASE },
    Name { cuda: &["__fsub_rn", "__dsub_rn"], what: "a subtraction", status: Status::Has("$0 - $1"), note: NEVER_FUSED, ..BASE },
    Name { cuda: &["__fmul_rn", "__dmul_rn"], what: "a multiplication", status: Status::Has("$0 * $1"), note: NEVER_FUSED, ..BASE },
    Name {
        cuda: &["__fdividef", "__fdiv_rn", "__ddiv_rn"], what: "a division", status: Status::Has("$0 / $1"),
        note: "gpujit's `/` is IEEE division, never the fast approximation",
        ..BASE
    },
    Name { cuda: &["__sinf"], what: "a fast sine", status: Status::Has("$0.sin()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__cosf"], what: "a fast cosine", status: Status::Has("$0.cos()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__tanf"], what: "a fast tangent", status: Status::Has("$0.tan()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__expf"], what: "a fast exponential", status: Status::Has("$0.exp()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__logf"], what: "a fast logarithm", status: Status::Has("$0.ln()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__log2f"], what: "a fast logarithm", status: Status::Has("$0.log2()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__log10f"], what: "a fast logarithm", status: Status::Has("$0.log10()"), note: NO_FAST_MATH, ..BASE },
    Name { cuda: &["__powf"], what: "a fast power", status: Status::Has("$0.powf($1)"), note: NO_FAST_MATH, ..BASE },
    Name {
        cuda: &["__saturatef"], what: "a clamp to [0, 1]", status: Status::Has("$0.clamp(0.0, 1.0)"),
        note: "a NaN stays NaN, where `__saturatef` gives 0",
        ..BASE
    },
    has(&["__umulhi"], &[], "the high half of a product", "(($0 as u64 * $1 as u64) >> 32) as u32"),
    has(&["__mulhi"], &[], "the high half of a product", "(($0 as i64 * $1 as i64) >> 32) as i32"),
    has(&["__float2int_rz", "__double2int_rz"], &[], "a conversion", "$0 as i32"),
    has(&["__float2uint_rz", "__double2uint_rz"], &[], "a conversion", "$0 as u32"),
    has(&["__float2ll_rz", "__double2ll_rz"], &[], "a conversion", "$0 as i64"),
    has(&["__int2float_rn", "__uint2float_rn"], &[], "a conversion", "$0 as f32"),
    has(&["__int2double_rn", "__uint2double_rn"], &[], "a conversion", "$0 as f64"),
];

/// The record with CUDA C spelling `s`, if any (`value`: read, not called).
pub fn by_cuda(s: &str, value: bool) -> Option<&'static Name> {
    NAMES
        .iter()
        .find(|n| !n.by_rule && n.value == value && n.cuda.contains(&s))
}

/// The record with Numba spelling `cuda.{s}`, if any.
pub fn by_numba(s: &str, value: bool) -> Option<&'static Name> {
    NAMES
        .iter()
        .find(|n| !n.by_rule && n.value == value && n.numba.contains(&s))
}

/// The record with bare (called) name `s`, if any.
pub fn by_bare(s: &str) -> Option<&'static Name> {
    NAMES.iter().find(|n| !n.by_rule && n.bare.contains(&s))
}

/// The record matched by `spelling`'s rule for Numba's `cuda.{s}`.
pub fn by_rule(s: &str) -> Option<&'static Name> {
    NAMES.iter().find(|n| n.by_rule && n.numba.contains(&s))
}

impl Name {
    /// `a warp shuffle (CUDA C `__shfl_down_sync`, Numba `cuda.shfl_down_sync`)`.
    pub fn described(&self) -> String {
        let mut also = Vec::new();
        if let Some(c) = self.cuda.first() {
            also.push(format!("CUDA C `{c}`"));
        }
        if let Some(n) = self.numba.first() {
            also.push(format!("Numba `cuda.{n}`"));
        }
        if also.is_empty() {
            self.what.to_string()
        } else {
            format!("{} ({})", self.what, also.join(", "))
        }
    }

    /// The help line of a planned record.
    pub fn plan_help(&self) -> Option<String> {
        let Status::Planned { plan, instead, .. } = &self.status else {
            return None;
        };
        let issue = plan.issue.map(|i| format!(", issue #{i}")).unwrap_or_default();
        let future = if self.name.is_empty() {
            String::new()
        } else if self.bare.contains(&self.name) {
            format!(", as `{}({})`", self.name, self.args)
        } else {
            format!(", as `{}`", self.name)
        };
        Some(format!(
            "planned ({}{issue}){future}; for now, {}",
            plan.feature,
            instead.unwrap_or(plan.instead)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = include_str!("../../gpujit/src/reference.md");

    /// The rows of the reference's "Not supported yet" table.
    fn not_supported_rows() -> Vec<String> {
        let start = PAGE
            .find("\n# Not supported yet\n")
            .expect("reference.md has a `# Not supported yet` section");
        let section = &PAGE[start + 1..];
        let end = section[1..].find("\n# ").map_or(section.len(), |e| e + 1);
        section[..end]
            .lines()
            .filter(|l| l.starts_with("| "))
            .map(str::to_string)
            .collect()
    }

    /// Every plan has a row, and that row names each of its planned records
    /// by one of its spellings (`cuda.shfl_down_sync`, `__hadd`, `print`).
    #[test]
    fn the_reference_lists_every_planned_name() {
        let rows = not_supported_rows();
        let mut missing = Vec::new();
        for plan in PLANS {
            let Some(row) = rows
                .iter()
                .find(|r| r.trim_start_matches("| ").starts_with(plan.feature))
            else {
                missing.push(format!("no row starting with `{}`", plan.feature));
                continue;
            };
            for n in NAMES {
                let Status::Planned { plan: p, .. } = &n.status else {
                    continue;
                };
                if p.feature != plan.feature {
                    continue;
                }
                let spellings: Vec<String> = n
                    .bare
                    .iter()
                    .map(|s| s.to_string())
                    .chain(n.numba.iter().map(|s| format!("cuda.{s}")))
                    .chain(n.cuda.iter().map(|s| s.to_string()))
                    .collect();
                if !spellings
                    .iter()
                    .any(|s| row.contains(&format!("`{s}")) || row.contains(&format!(" {s}")))
                {
                    missing.push(format!("the `{}` row names none of {spellings:?}", plan.feature));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "reference.md's Not supported yet:\n{}",
            missing.join("\n")
        );
    }

    /// Each record is found by each of its spellings, and a planned one's
    /// help names its feature; `Has` templates use only the arguments the
    /// messages name.
    #[test]
    fn every_spelling_finds_its_record() {
        for n in NAMES {
            assert!(!n.what.is_empty(), "a record without `what`: {:?}", n.cuda);
            if n.by_rule {
                assert!(by_rule(n.numba[0]).is_some());
                continue;
            }
            for c in n.cuda {
                assert!(std::ptr::eq(by_cuda(c, n.value).unwrap(), n), "{c}");
            }
            for s in n.numba {
                assert!(std::ptr::eq(by_numba(s, n.value).unwrap(), n), "cuda.{s}");
            }
            for b in n.bare {
                assert!(std::ptr::eq(by_bare(b).unwrap(), n), "{b}");
            }
            if let Status::Planned { plan, .. } = &n.status {
                assert!(n.plan_help().unwrap().contains(plan.feature));
            }
        }
    }
}
