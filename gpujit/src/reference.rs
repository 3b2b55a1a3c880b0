// The language reference is one Markdown page (tables read better there than
// in `//!` lines); `tests/toolchain/reference_page.rs` checks it against the macro's
// lists of methods, atomics and intrinsics.
#![doc = include_str!("reference.md")]
