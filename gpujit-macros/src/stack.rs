//! The macro's own stack: parsing, lowering, emitting and dropping syntax
//! trees all recurse as deep as a kernel nests.

/// Runs `f`, first moving to a fresh stack segment if little of this one is
/// left; every recursive function of the macro goes through it.
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(256 << 10, 4 << 20, f)
}
