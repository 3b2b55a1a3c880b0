//! ptxas's resource report (`--ptxas-options=-v`, as `nvcc -Xptxas -v` or
//! `ptxas -v` print it), parsed from NVRTC's program log.

/// What one kernel uses per thread and per block, as ptxas reports it for a
/// CUBIN (see [`super::Cubin::resources`] and each kernel's `resources()`).
/// The numbers bound occupancy: registers × threads per block must fit the
/// multiprocessor's register file, and the shared bytes its shared memory.
///
/// For NVRTC 13's log
/// ```text
/// ptxas info    : Compiling entry function 'matmul_tiled' for 'sm_90'
/// ptxas info    : Function properties for matmul_tiled
/// ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
/// ptxas info    : Used 38 registers, used 1 barriers, 2048 bytes smem
/// ```
/// the report is `registers: 38, barriers: 1, shared_bytes: 2048` and zero for the rest.
///
/// ```no_run
/// // no_run: needs NVRTC (`bash scripts/install-nvrtc.sh`); no GPU.
/// use gpujit::prelude::*;
///
/// #[gpu_kernel]
/// fn reverse(a: &mut [f32]) {
///     let tile = shared_array::<[f32; 256]>();
///     let t = thread_idx().x;
///     tile[t] = a[grid(1)];
///     syncthreads();
///     a[grid(1)] = tile[255 - t];
/// }
///
/// # fn main() -> gpujit::Result<()> {
/// let r = reverse::resources_for((8, 0))?; // ptxas -v for an A100
/// assert_eq!((r.arch.as_str(), r.shared_bytes, r.barriers), ("sm_80", 1024, 1));
/// assert!(r.registers * 256 <= 65536); // 256 threads fit one SM's register file
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    /// The real architecture ptxas compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Registers per thread (`Used N registers`).
    pub registers: u32,
    /// Named barriers the kernel uses (`used N barriers`; 1 with `syncthreads()`).
    pub barriers: u32,
    /// Static shared memory per block, in bytes (`N bytes smem`): the sum of
    /// the kernel's `shared_array`s, with alignment.
    pub shared_bytes: u64,
    /// Local memory per thread, in bytes (`N bytes lmem`), 0 when ptxas
    /// prints none.
    pub local_bytes: u64,
    /// The stack frame per thread, in bytes (`N bytes stack frame`), which
    /// also lives in local memory.
    pub stack_frame_bytes: u64,
    /// Bytes of registers spilled to local memory (`N bytes spill stores`).
    pub spill_store_bytes: u64,
    /// Bytes read back from spills (`N bytes spill loads`).
    pub spill_load_bytes: u64,
    /// Constant bank 0 bytes (`N bytes cmem[0]`: the kernel's parameters),
    /// 0 when ptxas prints none (sm_90 does not).
    pub constant_bytes: u64,
}

impl Resources {
    /// The report for the entry `entry` in `log`, or `None` when the log has
    /// no `Compiling entry function 'entry'` followed by its `Used N
    /// registers` line.
    pub(crate) fn parse(log: &str, entry: &str) -> Option<Resources> {
        let lines: Vec<&str> = log.lines().collect();
        let header = format!("Compiling entry function '{entry}' for '");
        let start = lines.iter().position(|l| l.contains(&header))?;
        let arch = lines[start].split(&header).nth(1)?.trim_end().trim_end_matches('\'');
        let mut r = Resources {
            arch: arch.to_string(),
            ..Resources::default()
        };
        let mut used = false;
        // This entry's lines end where the next entry's begin.
        for line in lines[start + 1..]
            .iter()
            .take_while(|l| !l.contains("Compiling entry function"))
        {
            let Some((_, text)) = line.split_once(':').or_else(|| line.split_once('.')) else {
                continue;
            };
            for part in text.split(',').map(str::trim) {
                let mut words = part.split_whitespace();
                let (Some(first), Some(second)) = (words.next(), words.next()) else {
                    continue;
                };
                let rest: Vec<&str> = words.collect();
                let (number, what) = match first {
                    "Used" | "used" => (second, rest.join(" ")),
                    _ if second == "bytes" => (first, rest.join(" ")),
                    _ => continue,
                };
                let Ok(n) = number.parse::<u64>() else { continue };
                match what.as_str() {
                    "registers" => {
                        r.registers = u32::try_from(n).ok()?;
                        used = true;
                    }
                    "barriers" => r.barriers = u32::try_from(n).ok()?,
                    "smem" => r.shared_bytes = n,
                    "lmem" => r.local_bytes = n,
                    "stack frame" => r.stack_frame_bytes = n,
                    "spill stores" => r.spill_store_bytes = n,
                    "spill loads" => r.spill_load_bytes = n,
                    "cmem[0]" => r.constant_bytes = n,
                    _ => {}
                }
            }
        }
        used.then_some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two entries, ptxas 13 (sm_90) and 12 (sm_75) styles, with spills and lmem.
    const LOG: &str = "\
ptxas info    : 8 bytes gmem, 8 bytes cmem[4]
ptxas info    : Compiling entry function 'first' for 'sm_75'
ptxas info    : Function properties for first
ptxas         .     24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 48 bytes lmem, 2048 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function 'second' for 'sm_90'
ptxas info    : Function properties for second
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 11 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Compile time = 7.231 ms
";

    #[test]
    fn parses_each_entry_of_a_log() {
        assert_eq!(
            Resources::parse(LOG, "first"),
            Some(Resources {
                arch: "sm_75".into(),
                registers: 255,
                barriers: 1,
                shared_bytes: 2048,
                local_bytes: 48,
                stack_frame_bytes: 24,
                spill_store_bytes: 16,
                spill_load_bytes: 12,
                constant_bytes: 384,
            })
        );
        assert_eq!(
            Resources::parse(LOG, "second"),
            Some(Resources {
                arch: "sm_90".into(),
                registers: 11,
                ..Resources::default()
            })
        );
    }

    #[test]
    fn no_report_is_none() {
        assert_eq!(Resources::parse(LOG, "third"), None);
        assert_eq!(Resources::parse(LOG, "fir"), None, "a prefix of an entry's name");
        assert_eq!(Resources::parse("", "first"), None);
        let without_used = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n";
        assert_eq!(Resources::parse(without_used, "k"), None);
    }
}
