// A shared-memory view must not escape its block: the block's buffer is
// reused by the next block (and freed with the pool).
use std::sync::Mutex;

use gpujit::__private::{CpuLaunch, KernelArg, KernelDef, SharedLayout};

fn entry(l: &CpuLaunch<'_>, _args: &[KernelArg<'_>]) -> gpujit::Result<()> {
    let slot = Mutex::new(None);
    l.run_blocks(SharedLayout { bytes: 16, align: 4 }, &|b| {
        *slot.lock().unwrap() = Some(b.shared::<u32>(0, &[4], "s"));
    }, &|_| {})?;
    // Used after the launch: the block's buffer is gone or reused.
    let escaped = slot.into_inner().unwrap();
    println!("{escaped:?}");
    Ok(())
}

static K: KernelDef = KernelDef {
    name: "k",
    entry: "k",
    params: &[],
    cuda_source: || "",
    nvrtc_source: || "",
    cpu: entry,
    uses_barrier: false,
    recursive: || false,
};

fn main() {
    let _ = &K;
}
