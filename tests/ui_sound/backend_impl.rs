// The backend traits are sealed: the launch code trusts a buffer's pointer
// and size, so user code must not supply its own.
use gpujit::__private::{ArgPtr, DeviceBuffer};

#[derive(Debug)]
struct Fake;

impl DeviceBuffer for Fake {
    fn backend(&self) -> gpujit::BackendKind {
        gpujit::BackendKind::Cpu
    }
    fn byte_len(&self) -> usize {
        1 << 30
    }
    fn arg_ptr(&self) -> ArgPtr {
        ArgPtr::Host(std::ptr::null_mut())
    }
    fn read(&self, _: usize, _: &mut [u8]) -> gpujit::Result<()> {
        Ok(())
    }
    fn write(&mut self, _: usize, _: &[u8]) -> gpujit::Result<()> {
        Ok(())
    }
}

fn main() {}
