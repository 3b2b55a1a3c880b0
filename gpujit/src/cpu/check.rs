//! The CPU backend's checked mode: racecheck and initcheck, the CPU
//! counterparts of `compute-sanitizer --tool racecheck` and `--tool
//! initcheck`, behind [`with_checks`] or `GPUJIT_CHECK=race,init`.
//!
//! A checked launch runs its blocks one after another on the calling OS
//! thread, each in the macro's checked copy of the kernel (split into thread
//! loops between barriers, as coroutines where that is not possible, a plain
//! thread loop for kernels without barriers), whose
//! accesses to array parameters and shared arrays report to a shadow memory
//! here: per element, the last write and up to two reads of different
//! threads, each with its block, thread, barrier epoch (how many barriers
//! the block had passed), whether it was atomic, and its source line.
//!
//! Two accesses to one element *race* when they come from different threads,
//! at least one writes, not both are atomic, and no barrier orders them:
//! they are in different blocks of the launch, or in the same block and
//! the same epoch. A read of a shared-memory element that no write of the
//! block is ordered before (by a barrier, or by being the same thread's) is
//! *uninitialised* (a GPU may read what the memory held; the CPU backend
//! zeroes shared memory, so the bug hides there). Neither finding depends
//! on the order the CPU backend runs the threads in, only which access of a
//! pair is reported as the second.
//!
//! This file is a leaf of `cpu/`: the views and the thread call it with
//! plain values, and format the fault themselves.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::{BitOr, BitOrAssign};
use std::panic::Location;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Which checks a CPU-backend launch makes: a set of [`Checks::RACE`] and
/// [`Checks::INIT`], combined with `|`. See [`with_checks`] for what each
/// finds and what it costs.
///
/// ```
/// use gpujit::Checks;
///
/// let both = Checks::RACE | Checks::INIT;
/// assert!(both.contains(Checks::RACE) && both.contains(Checks::INIT));
/// assert!(!Checks::NONE.contains(Checks::RACE));
/// assert_eq!(both, Checks::ALL);
/// assert_eq!(Checks::parse("race, init"), Ok(Checks::ALL));
/// assert!(Checks::parse("races").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Checks(u8);

impl Checks {
    /// No check: the default, and what makes launches take their fast paths.
    pub const NONE: Checks = Checks(0);
    /// racecheck (`race` in `GPUJIT_CHECK`): two threads touching one element
    /// of shared or global memory, at least one writing, not both atomically,
    /// with no barrier between them (or from different blocks).
    pub const RACE: Checks = Checks(1);
    /// initcheck (`init` in `GPUJIT_CHECK`): a read (or an atomic) of a
    /// shared-memory element that no thread of its block wrote first.
    pub const INIT: Checks = Checks(2);
    /// Every check: `RACE | INIT`.
    pub const ALL: Checks = Checks(3);

    /// Whether every check of `other` is in `self`.
    ///
    /// ```
    /// assert!(gpujit::Checks::ALL.contains(gpujit::Checks::INIT));
    /// ```
    pub const fn contains(self, other: Checks) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether no check is on.
    ///
    /// ```
    /// assert!(gpujit::Checks::NONE.is_empty());
    /// assert!(!gpujit::Checks::RACE.is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Parses `GPUJIT_CHECK`'s syntax: a comma-separated list of `race` and
    /// `init` (spaces around the words and empty items are allowed; an empty
    /// list, or `none`, is [`Checks::NONE`]).
    ///
    /// # Errors
    /// A message naming the unknown word and the words allowed.
    ///
    /// ```
    /// use gpujit::Checks;
    /// assert_eq!(Checks::parse("init"), Ok(Checks::INIT));
    /// assert_eq!(Checks::parse(""), Ok(Checks::NONE));
    /// assert!(Checks::parse("race,memcheck").unwrap_err().contains("memcheck"));
    /// ```
    pub fn parse(list: &str) -> std::result::Result<Checks, String> {
        let mut checks = Checks::NONE;
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            checks |= match word {
                "race" => Checks::RACE,
                "init" => Checks::INIT,
                "none" => Checks::NONE,
                _ => {
                    return Err(format!(
                        "`{word}` is not a check of the CPU backend; use a comma-separated list of `race` (racecheck) and `init` (initcheck), e.g. `race,init`"
                    ))
                }
            };
        }
        Ok(checks)
    }
}

impl BitOr for Checks {
    type Output = Checks;
    fn bitor(self, rhs: Checks) -> Checks {
        Checks(self.0 | rhs.0)
    }
}

impl BitOrAssign for Checks {
    fn bitor_assign(&mut self, rhs: Checks) {
        self.0 |= rhs.0;
    }
}

impl fmt::Display for Checks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.contains(Checks::RACE), self.contains(Checks::INIT)) {
            (true, true) => f.write_str("race,init"),
            (true, false) => f.write_str("race"),
            (false, true) => f.write_str("init"),
            (false, false) => f.write_str("none"),
        }
    }
}

/// The environment variable that turns checks on for every CPU launch.
const CHECK_ENV: &str = "GPUJIT_CHECK";

thread_local! {
    /// The checks set by [`with_checks`] on this OS thread, if any.
    static SCOPED: Cell<Option<Checks>> = const { Cell::new(None) };
}

/// Runs `f` with `checks` for every CPU-backend launch that `f` makes on the
/// calling OS thread; it takes precedence over `GPUJIT_CHECK` (so
/// `with_checks(Checks::NONE, ..)` turns the checks off).
///
/// The CPU counterparts of NVIDIA's `compute-sanitizer --tool racecheck`
/// ([`Checks::RACE`]) and `--tool initcheck` ([`Checks::INIT`]), which need
/// a GPU:
///
/// - **racecheck**: two threads of a launch access one element of a
///   `shared_array` or of an array parameter, at least one of them writes,
///   not both are atomics (`atomic_add` & co.), and no `syncthreads()` (or
///   block vote) orders them: they are in the same block with no barrier
///   between them, or in different blocks (blocks are never ordered within a
///   launch).
/// - **initcheck**: a read, or an atomic, of a `shared_array` element that
///   no write of the block is ordered before: none before an earlier
///   barrier, and none by the reading thread itself (another thread's write
///   with no barrier between may come after the read on a GPU, which then
///   reads what the memory held; the CPU backend zeroes shared memory,
///   which hides the bug). Array
///   parameters need no such check: every [`DeviceArray`](crate::DeviceArray)
///   starts zeroed or copied from the host.
///
/// Each finding is a fault of the thread that made the second access, so the
/// launch returns [`Error::KernelFault`] (the first fault: lowest block, then
/// lowest thread) naming the kernel, the check, the array, the element, both
/// threads (block and thread index) and both source lines (`file:line:column`
/// of the two accesses in the kernel), with the number of faulting
/// operations. The other faults of the CPU backend (indices out of range,
/// integer division by zero, divergent barriers) are reported as without
/// checks.
///
/// Neither check depends on the order in which the CPU backend runs the
/// threads: only which access of a racing pair is named as the second does.
///
/// A checked launch runs its blocks one after another on the calling OS
/// thread, in the kernel's checked copy: a kernel with barriers split into
/// thread loops between them (as coroutines where it cannot be split, or
/// under `GPUJIT_CPU_EXEC=coroutines`), and a shadow memory consulted at
/// every access to shared memory or to a written array parameter. README's
/// "Checked mode" gives the cost measured per kernel. With no check on,
/// launches take their usual fast paths: the launch picks the kernel's fast
/// block function or its checked one, and the fast one's code is the same
/// as without checked mode.
///
/// Not checked: accesses inside `#[gpu_device]` functions (the kernel's own
/// accesses are), local and `const` arrays (private to a thread, or
/// read-only), arrays written only at each thread's own index (no other
/// thread can touch those elements), and races a fence orders on a GPU
/// (`threadfence()` orders nothing here: accesses of different blocks always
/// race). Per element the shadow keeps one write and two reads, so a race
/// with an older access is found only if no later access hides it. The CUDA
/// backend ignores the checks: run its launches under compute-sanitizer.
///
/// # Errors
/// What `f` returns; a checked launch in it returns [`Error::KernelFault`]
/// for a finding, as above.
///
/// ```
/// use gpujit::prelude::*;
/// use gpujit::Checks;
///
/// // Every thread reads its neighbour's element of `tile` with no
/// // `syncthreads()` after the writes: a race on a GPU.
/// #[gpu_kernel]
/// fn shift(out: &mut [f32]) {
///     let tile = shared_array::<[f32; 64]>();
///     let t = thread_idx().x;
///     tile[t] = t as f32;
///     out[t] = tile[(t + 1) % 64];
/// }
///
/// if gpujit::detect().kind == gpujit::BackendKind::Cpu {
///     let mut out = gpujit::zeros::<f32>(64)?;
///     shift![1, 64](&mut out)?; // unchecked: runs, with a result a GPU need not give
///     // Thread 1 writes `tile[1]` after thread 0 read it, with no barrier between.
///     let r = gpujit::with_checks(Checks::RACE, || shift![1, 64](&mut out));
///     let Err(Error::KernelFault { message, .. }) = r else { panic!("no race found: {r:?}") };
///     assert!(message.starts_with("racecheck: shared array `tile` element [1]: write by block (0, 0, 0) thread (1, 0, 0)"), "{message}");
///     assert!(message.contains("races with the read by block (0, 0, 0) thread (0, 0, 0)"), "{message}");
///     // And thread 0 read it before anything wrote it.
///     let r = gpujit::with_checks(Checks::RACE | Checks::INIT, || shift![1, 64](&mut out));
///     let Err(Error::KernelFault { message, .. }) = r else { panic!("nothing found: {r:?}") };
///     assert!(message.starts_with("initcheck: shared array `tile` element [1]: read by block (0, 0, 0) thread (0, 0, 0)"), "{message}");
/// }
/// # Ok::<(), gpujit::Error>(())
/// ```
pub fn with_checks<R>(checks: Checks, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Checks>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(SCOPED.with(|c| c.replace(Some(checks))));
    f()
}

/// The checks of a launch: [`with_checks`]'s, else `GPUJIT_CHECK` (read
/// once), else none.
pub(super) fn checks() -> Result<Checks> {
    if let Some(c) = SCOPED.with(Cell::get) {
        return Ok(c);
    }
    static ENV: OnceLock<std::result::Result<Checks, String>> = OnceLock::new();
    ENV.get_or_init(|| match std::env::var(CHECK_ENV) {
        Err(_) => Ok(Checks::NONE),
        Ok(v) => Checks::parse(&v).map_err(|e| format!("{CHECK_ENV}=`{v}`: {e}; unset it for no checks")),
    })
    .clone()
    .map_err(Error::InvalidLaunchConfig)
}

/// What an access does to its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
    /// An atomic read-modify-write.
    Atomic,
}

impl Kind {
    fn writes(self) -> bool {
        self != Kind::Read
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Atomic => "atomic",
        }
    }
}

/// One access, as the shadow memory keeps it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Access {
    /// Linear block index in the launch.
    pub(super) block: usize,
    /// Linear thread index in the block.
    pub(super) thread: usize,
    /// Barriers the block had passed.
    pub(super) epoch: u32,
    pub(super) kind: Kind,
    pub(super) at: &'static Location<'static>,
}

impl Access {
    fn same_thread(&self, o: &Access) -> bool {
        self.block == o.block && self.thread == o.thread
    }

    /// Whether `self` (earlier) and `now` race.
    fn races(&self, now: &Access) -> bool {
        !self.same_thread(now)
            && (self.kind.writes() || now.kind.writes())
            && !(self.kind == Kind::Atomic && now.kind == Kind::Atomic)
            && (self.block != now.block || self.epoch == now.epoch)
    }
}

/// The shadow of one element.
#[derive(Debug, Clone, Copy, Default)]
struct Elem {
    /// For shared memory: the block generation this shadow is of (an older
    /// one's is stale: nothing written yet).
    gen: u32,
    /// For shared memory: the epoch of the block's first write (an element
    /// is initialised for a read in a later epoch, whichever thread wrote).
    first_write: Option<u32>,
    write: Option<Access>,
    /// Reads since the last write, of two different threads at most.
    reads: [Option<Access>; 2],
}

impl Elem {
    /// Whether a write is ordered before `now`, a read or an atomic of the
    /// element: one in an earlier barrier epoch of the block (epochs only
    /// grow, so the first write's), or the last write, if `now`'s thread
    /// made it. A write of another thread in the same epoch does not count:
    /// on a GPU it may come after the read. So the finding does not depend
    /// on the order the CPU runs the threads in.
    fn initialised_for(&self, now: &Access) -> bool {
        self.first_write.is_some_and(|epoch| epoch < now.epoch) || self.write.is_some_and(|w| w.same_thread(now))
    }

    /// Whether read `now` finds nothing and changes nothing, as most reads
    /// of an element many threads read between two barriers: the last
    /// write is of its block and an earlier epoch (so initialised, and no
    /// race with it), and the two reads kept are of two other threads of
    /// its block and epoch (`keep_read` would keep them).
    #[inline]
    fn settled_read(&self, now: &Access) -> bool {
        let current = |r: &Option<Access>| {
            r.is_some_and(|r| r.block == now.block && r.epoch == now.epoch && r.thread != now.thread)
        };
        self.write.is_some_and(|w| w.block == now.block && w.epoch < now.epoch)
            && current(&self.reads[0])
            && current(&self.reads[1])
    }
}

/// What an access found.
#[derive(Debug, Clone, Copy)]
pub(super) enum Finding {
    /// It races with this earlier access.
    Race(Access),
    /// It reads a shared element that no write of the block is ordered
    /// before (see `Elem::initialised_for`).
    Uninit,
}

/// Where an element is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place {
    /// Of an array parameter, at this address.
    Global(usize),
    /// Of the block's shared memory: an element of `size` bytes (1, 2, 4
    /// or 8) at this byte offset.
    Shared { offset: usize, size: usize },
}

/// A multiplicative hash of an element's address (the addresses are
/// distinct and mostly consecutive; SipHash would dominate an access).
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
}

/// The shadow memory of one checked launch. Its blocks run one after
/// another on the launching OS thread, which alone owns it (in the
/// executor's one `Batch`), so it needs no lock.
pub(super) struct Shadow {
    checks: Checks,
    /// Elements of array parameters, by address, for the whole launch.
    global: HashMap<usize, Elem, BuildHasherDefault<AddrHasher>>,
    /// Elements of the running block's shared memory, one table per
    /// element size (1, 2, 4, 8 bytes), each by byte offset / size: arrays
    /// of one element size lie at offsets aligned to it, so no two elements
    /// share an entry (`gen` tells the running block's from older ones').
    /// Made at the first access of that size.
    shared: [Vec<Elem>; 4],
    shared_bytes: usize,
    gen: u32,
}

impl Shadow {
    pub(super) fn new(checks: Checks, shared_bytes: usize) -> Shadow {
        Shadow {
            checks,
            global: HashMap::default(),
            shared: Default::default(),
            shared_bytes,
            gen: 0,
        }
    }

    /// A block starts: nothing in its shared memory is written yet.
    pub(super) fn begin_block(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            // (After 2^32 blocks: no stale generation may look current.)
            for table in &mut self.shared {
                table.fill(Elem::default());
            }
            self.gen = 1;
        }
    }

    /// Records `now` on the element at `place`, and returns what it found.
    pub(super) fn access(&mut self, place: Place, now: Access) -> Option<Finding> {
        let race = self.checks.contains(Checks::RACE);
        let shared = matches!(place, Place::Shared { .. });
        let init = shared && self.checks.contains(Checks::INIT);
        if !race && !init {
            return None;
        }
        let e = match place {
            Place::Global(addr) => self.global.entry(addr).or_default(),
            Place::Shared { offset, size } => {
                let gen = self.gen;
                let class = (size.trailing_zeros() as usize).min(3);
                let table = &mut self.shared[class];
                if table.is_empty() {
                    table.resize(self.shared_bytes >> class, Elem::default());
                }
                let e = table.get_mut(offset >> class)?;
                if e.gen != gen {
                    *e = Elem { gen, ..Elem::default() };
                }
                e
            }
        };
        if now.kind == Kind::Read && e.settled_read(&now) {
            return None;
        }
        let mut found = None;
        if init && now.kind != Kind::Write && !e.initialised_for(&now) {
            found = Some(Finding::Uninit);
        }
        if race && found.is_none() {
            let earlier = if now.kind.writes() {
                e.write.iter().chain(e.reads.iter().flatten()).find(|a| a.races(&now))
            } else {
                // A read races only with a write.
                e.write.iter().find(|a| a.races(&now))
            };
            found = earlier.map(|a| Finding::Race(*a));
        }
        match now.kind {
            Kind::Write | Kind::Atomic => {
                e.first_write.get_or_insert(now.epoch);
                e.write = Some(now);
                e.reads = [None, None];
            }
            Kind::Read => keep_read(&mut e.reads, now),
        }
        found
    }
}

/// Adds read `now` to the two kept: in place of an older read of its own
/// thread, else in a free slot, else in place of the read least likely to
/// race with a later write (one a barrier of the reader's block already
/// ordered), else of the older one.
fn keep_read(reads: &mut [Option<Access>; 2], now: Access) {
    // Two other threads' reads of `now`'s epoch and block already race
    // with any later write this one would (the common case: many threads
    // read one element between two barriers).
    let current =
        |r: &Option<Access>| r.is_some_and(|r| r.block == now.block && r.epoch == now.epoch && !r.same_thread(&now));
    if current(&reads[0]) && current(&reads[1]) {
        return;
    }
    for slot in reads.iter_mut() {
        match slot {
            Some(r) if r.same_thread(&now) => {
                *slot = Some(now);
                return;
            }
            None => {
                *slot = Some(now);
                return;
            }
            Some(_) => {}
        }
    }
    let ordered = |r: &Option<Access>| r.is_some_and(|r| r.block == now.block && r.epoch < now.epoch);
    if ordered(&reads[1]) && !ordered(&reads[0]) {
        reads[1] = Some(now);
    } else {
        reads[0] = reads[1];
        reads[1] = Some(now);
    }
}

/// A block and thread, for a finding's message.
pub(super) struct Who {
    pub(super) block: [usize; 3],
    pub(super) thread: [usize; 3],
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [b, t] = [self.block, self.thread];
        write!(
            f,
            "block ({}, {}, {}) thread ({}, {}, {})",
            b[0], b[1], b[2], t[0], t[1], t[2]
        )
    }
}

/// The message of a finding, formatted only when it is kept.
pub(super) struct Report<'a> {
    pub(super) finding: Finding,
    /// `shared` or `global`.
    pub(super) space: &'a dyn fmt::Display,
    pub(super) name: &'static str,
    pub(super) index: &'a [usize],
    pub(super) now: Access,
    pub(super) who: Who,
    /// The earlier access's block and thread (for a race).
    pub(super) other: Who,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let check = match self.finding {
            Finding::Race(_) => "racecheck",
            Finding::Uninit => "initcheck",
        };
        write!(f, "{check}: {} array `{}` element [", self.space, self.name)?;
        for (n, i) in self.index.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{i}")?;
        }
        let at = |l: &Location<'_>| format!("{}:{}:{}", l.file(), l.line(), l.column());
        write!(f, "]: {} by {} at {}", self.now.kind.noun(), self.who, at(self.now.at))?;
        match self.finding {
            Finding::Race(a) => {
                let why = if a.block != self.now.block {
                    "threads of different blocks, which no barrier orders"
                } else {
                    "with no syncthreads() between them"
                };
                write!(
                    f,
                    " races with the {} by {} at {} ({why}; not both atomic)",
                    a.kind.noun(),
                    self.other,
                    at(a.at)
                )
            }
            Finding::Uninit => f.write_str(
                ", which no thread of the block wrote before (in an earlier barrier interval, or the reading thread itself): a GPU may read whatever the shared memory held (the CPU backend zeroes it)",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(block: usize, thread: usize, epoch: u32, kind: Kind) -> Access {
        Access {
            block,
            thread,
            epoch,
            kind,
            at: Location::caller(),
        }
    }

    fn g(a: usize) -> Place {
        Place::Global(a)
    }

    #[test]
    fn races_need_two_threads_a_write_and_no_barrier() {
        let mut c = Shadow::new(Checks::ALL, 0);
        assert!(c.access(g(8), acc(0, 0, 0, Kind::Write)).is_none());
        // The same thread again, and another thread after a barrier.
        assert!(c.access(g(8), acc(0, 0, 0, Kind::Read)).is_none());
        assert!(c.access(g(8), acc(0, 1, 1, Kind::Read)).is_none());
        // Another thread of the block, same epoch, after the read: a write races.
        assert!(matches!(c.access(g(8), acc(0, 2, 1, Kind::Write)), Some(Finding::Race(a)) if a.thread == 1));
        // Another block always races.
        assert!(matches!(c.access(g(8), acc(1, 2, 5, Kind::Read)), Some(Finding::Race(a)) if a.block == 0));
        // Atomics do not race with atomics.
        assert!(c.access(g(16), acc(0, 0, 0, Kind::Atomic)).is_none());
        assert!(c.access(g(16), acc(3, 1, 0, Kind::Atomic)).is_none());
        assert!(c.access(g(16), acc(3, 2, 0, Kind::Read)).is_some());
    }

    #[test]
    fn a_write_races_with_either_of_two_readers() {
        let s0 = Place::Shared { offset: 0, size: 1 };
        let mut c = Shadow::new(Checks::RACE, 1);
        c.begin_block();
        for t in 0..5 {
            assert!(c.access(s0, acc(0, t, 0, Kind::Read)).is_none());
        }
        for t in 0..5 {
            let mut c2 = Shadow::new(Checks::RACE, 1);
            c2.begin_block();
            for r in 0..5 {
                c2.access(s0, acc(0, r, 0, Kind::Read));
            }
            assert!(c2.access(s0, acc(0, t, 0, Kind::Write)).is_some(), "writer {t}");
        }
    }

    #[test]
    fn initcheck_is_per_block_and_for_shared_memory() {
        let mut c = Shadow::new(Checks::INIT, 8);
        let s4 = Place::Shared { offset: 4, size: 4 };
        c.begin_block();
        assert!(matches!(c.access(s4, acc(0, 0, 0, Kind::Read)), Some(Finding::Uninit)));
        assert!(matches!(
            c.access(s4, acc(0, 0, 0, Kind::Atomic)),
            Some(Finding::Uninit)
        ));
        // Another thread's write of the same epoch is not ordered before a
        // read; the thread's own write is, and so is any write past a barrier.
        assert!(matches!(c.access(s4, acc(0, 1, 0, Kind::Read)), Some(Finding::Uninit)));
        assert!(c.access(s4, acc(0, 0, 0, Kind::Read)).is_none());
        assert!(c.access(s4, acc(0, 1, 1, Kind::Read)).is_none());
        assert!(c.access(s4, acc(0, 2, 1, Kind::Write)).is_none());
        assert!(c.access(s4, acc(0, 3, 1, Kind::Read)).is_none());
        c.begin_block();
        assert!(matches!(c.access(s4, acc(1, 0, 0, Kind::Read)), Some(Finding::Uninit)));
        assert!(c.access(g(4), acc(1, 0, 0, Kind::Read)).is_none());
    }

    #[test]
    fn parse_and_display() {
        assert_eq!(Checks::parse(" race , init ,"), Ok(Checks::ALL));
        assert_eq!(Checks::parse("none"), Ok(Checks::NONE));
        assert!(Checks::parse("Race").is_err());
        for c in [Checks::NONE, Checks::RACE, Checks::INIT, Checks::ALL] {
            assert_eq!(Checks::parse(&c.to_string()), Ok(c));
        }
    }
}
