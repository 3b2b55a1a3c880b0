// A shared-memory view uses plain accesses, sound only because one OS thread
// runs the whole block: it must not be handed to another OS thread.
use gpujit::__private::{CpuLaunch, KernelArg, SharedLayout};

pub fn entry(l: &CpuLaunch<'_>, _args: &[KernelArg<'_>]) -> gpujit::Result<()> {
    l.run_blocks(SharedLayout { bytes: 16, align: 4 }, &|b| {
        let s = b.shared::<u32>(0, &[4], "s");
        std::thread::scope(|scope| {
            scope.spawn(move || s.len());
        });
    }, &|_| {})
}

fn main() {}
