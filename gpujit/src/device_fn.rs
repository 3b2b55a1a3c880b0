//! Device functions (`#[gpu_device]`) as the runtime links them into a
//! kernel's CUDA C. Machinery for generated code, not public API.
//!
//! A proc macro sees one item at a time, so neither macro knows the C name
//! (or even the crate) of the device functions a kernel reaches. Each
//! `#[gpu_device]` function therefore carries a [`DeviceFn`] static: its
//! CUDA C as [`Piece`]s in which the names of itself and of its callees are
//! holes, and references to its callees' statics. A kernel's
//! `cuda_source()` calls [`link`], which walks every device function it
//! reaches (each once, deduplicated by the static's address, so recursion
//! and mutual recursion end), gives each a C name that is free in the whole
//! translation unit, and emits all forward declarations before all
//! definitions, so that (mutually) recursive functions compile.

use std::collections::HashSet;
use std::fmt::Write;

/// A part of a device function's (or a kernel's) CUDA C text.
#[derive(Debug)]
pub enum Piece {
    /// Literal C text.
    Text(&'static str),
    /// The C name of the function the text belongs to.
    Own,
    /// The C name of callee `k` (an index into [`DeviceFn::callees`] or the
    /// kernel's list).
    Callee(usize),
    /// The declarations of the outside constants the function reads (local
    /// to its body).
    Consts,
}

/// What `#[gpu_device] fn f` generates as `f::GJ_DEVICE`.
#[derive(Debug)]
pub struct DeviceFn {
    /// The C name's base (free in C, see the macro's `names`): `gj_dev_f`.
    pub base: &'static str,
    /// The `typedef`s of its parameter and return types and its prototype.
    pub decl: &'static [Piece],
    /// The definition.
    pub def: &'static [Piece],
    /// The declarations of the outside constants it reads (made at run time
    /// from their values).
    pub consts: fn() -> String,
    /// The file-scope `__constant__` declarations of the module `const`
    /// arrays it reads, given its C name (their names start with it, so
    /// two functions' `FILTER`s never meet).
    pub arrays: fn(&str) -> String,
    /// Helper functions its text needs (deduplicated by text across the unit).
    pub helpers: &'static [&'static str],
    /// The device functions it calls, in the order [`Piece::Callee`] numbers them.
    pub callees: &'static [&'static DeviceFn],
    /// Whether its body calls `syncthreads()`.
    pub uses_barrier: bool,
}

/// Every device function reachable from `roots`, each once, in discovery order.
fn reachable(roots: &[&'static DeviceFn]) -> Vec<&'static DeviceFn> {
    let mut seen: HashSet<*const DeviceFn> = HashSet::new();
    let mut order = Vec::new();
    let mut stack: Vec<&'static DeviceFn> = roots.iter().rev().copied().collect();
    while let Some(f) = stack.pop() {
        if seen.insert(f as *const DeviceFn) {
            order.push(f);
            stack.extend(f.callees.iter().rev().copied());
        }
    }
    order
}

/// Whether any device function reachable from `roots` calls `syncthreads()`:
/// the CPU backend then runs the kernel's threads as coroutines.
pub fn reaches_barrier(roots: &[&'static DeviceFn]) -> bool {
    reachable(roots).iter().any(|f| f.uses_barrier)
}

/// Whether a device function reachable from `roots` can call itself again
/// (a cycle in the call graph: self- or mutual recursion). The CUDA backend
/// then raises the per-thread stack (see `cuda::module_cache`), whose
/// default of 1 KiB a recursion 100 calls deep overflows.
pub fn reaches_recursion(roots: &[&'static DeviceFn]) -> bool {
    // Depth-first, with the functions on the current path: an edge back to
    // one of them closes a cycle.
    fn visit(f: &'static DeviceFn, path: &mut Vec<*const DeviceFn>, done: &mut HashSet<*const DeviceFn>) -> bool {
        let at = f as *const DeviceFn;
        if path.contains(&at) {
            return true;
        }
        if !done.insert(at) {
            return false;
        }
        path.push(at);
        let cycle = f.callees.iter().any(|g| visit(g, path, done));
        path.pop();
        cycle
    }
    let mut done = HashSet::new();
    roots.iter().any(|f| visit(f, &mut Vec::new(), &mut done))
}

fn render(out: &mut String, pieces: &[Piece], own: &str, callees: &[String], consts: &dyn Fn() -> String) {
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Own => out.push_str(own),
            Piece::Callee(k) => out.push_str(callees.get(*k).map_or("gj_missing_callee", String::as_str)),
            Piece::Consts => out.push_str(&consts()),
        }
    }
}

/// The kernel's CUDA C after its outside constants: the helpers (each once),
/// the forward declarations and definitions of every device function the
/// kernel reaches from `roots`, then the kernel (`kernel`, whose
/// [`Piece::Callee`] holes index `roots`). `taken` are names the unit already
/// uses (the kernel's entry and constants).
pub fn link(roots: &[&'static DeviceFn], helpers: &[&'static str], kernel: &[Piece], taken: &[&str]) -> String {
    let fns = reachable(roots);
    let mut used: HashSet<String> = taken.iter().map(|s| s.to_string()).collect();
    let names: Vec<String> = fns
        .iter()
        .map(|f| {
            let mut name = f.base.to_string();
            let mut n = 2;
            while !used.insert(name.clone()) {
                name = format!("{}_{n}", f.base);
                n += 1;
            }
            name
        })
        .collect();
    let name_of = |g: &'static DeviceFn| {
        fns.iter()
            .position(|f| std::ptr::eq(*f, g))
            .map_or_else(String::new, |i| names[i].clone())
    };
    let mut out = String::new();
    let mut seen_helpers = HashSet::new();
    for h in helpers.iter().chain(fns.iter().flat_map(|f| f.helpers.iter())) {
        if seen_helpers.insert(*h) {
            out.push_str(h);
        }
    }
    let callee_names: Vec<Vec<String>> = fns
        .iter()
        .map(|f| f.callees.iter().map(|g| name_of(g)).collect())
        .collect();
    for (i, f) in fns.iter().enumerate() {
        out.push_str(&(f.arrays)(&names[i]));
    }
    for (i, f) in fns.iter().enumerate() {
        render(&mut out, f.decl, &names[i], &callee_names[i], &String::new);
    }
    for (i, f) in fns.iter().enumerate() {
        let _ = writeln!(out);
        render(&mut out, f.def, &names[i], &callee_names[i], &f.consts);
    }
    let roots: Vec<String> = roots.iter().map(|g| name_of(g)).collect();
    render(&mut out, kernel, "", &roots, &String::new);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_arrays(_: &str) -> String {
        String::new()
    }

    fn no_consts() -> String {
        String::new()
    }

    static EVEN: DeviceFn = DeviceFn {
        base: "gj_dev_is_even",
        decl: &[Piece::Text("bool "), Piece::Own, Piece::Text("(int n);\n")],
        def: &[
            Piece::Text("bool "),
            Piece::Own,
            Piece::Text("(int n) { return n == 0 || "),
            Piece::Callee(0),
            Piece::Text("(n - 1); }\n"),
        ],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &["H1\n"],
        callees: &[&ODD],
        uses_barrier: false,
    };
    static ODD: DeviceFn = DeviceFn {
        base: "gj_dev_is_even",
        decl: &[Piece::Text("bool "), Piece::Own, Piece::Text("(int n);\n")],
        def: &[
            Piece::Text("bool "),
            Piece::Own,
            Piece::Text("(int n) { return n != 0 && "),
            Piece::Callee(0),
            Piece::Text("(n - 1); }\n"),
        ],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &["H1\n"],
        callees: &[&EVEN],
        uses_barrier: true,
    };

    #[test]
    fn mutual_recursion_links_each_function_once_with_free_names() {
        let text = link(
            &[&EVEN, &ODD],
            &["H1\n"],
            &[Piece::Callee(1), Piece::Text("(3);")],
            &["gj_dev_is_even_2"],
        );
        assert_eq!(text.matches("H1").count(), 1, "{text}");
        assert_eq!(text.matches("bool gj_dev_is_even(int n);").count(), 1, "{text}");
        // The second function with the same base (and the taken `_2`) gets `_3`.
        assert_eq!(text.matches("bool gj_dev_is_even_3(int n);").count(), 1, "{text}");
        assert!(text.contains("return n == 0 || gj_dev_is_even_3(n - 1);"), "{text}");
        assert!(text.contains("return n != 0 && gj_dev_is_even(n - 1);"), "{text}");
        assert!(text.ends_with("gj_dev_is_even_3(3);"), "{text}");
        // Declarations precede every definition.
        assert!(
            text.rfind(");\n").unwrap() < text.find('{').unwrap()
                || text.find("(int n);").unwrap() < text.find('{').unwrap()
        );
        assert!(reaches_barrier(&[&EVEN]));
        assert!(!reaches_barrier(&[]));
    }

    static LEAF: DeviceFn = DeviceFn {
        base: "gj_dev_leaf",
        decl: &[],
        def: &[],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &[],
        callees: &[],
        uses_barrier: false,
    };
    static TWICE: DeviceFn = DeviceFn {
        base: "gj_dev_twice",
        decl: &[],
        def: &[],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &[],
        callees: &[&LEAF, &LEAF],
        uses_barrier: false,
    };
    static SELF: DeviceFn = DeviceFn {
        base: "gj_dev_self",
        decl: &[],
        def: &[],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &[],
        callees: &[&LEAF, &SELF],
        uses_barrier: false,
    };
    static ABOVE_CYCLE: DeviceFn = DeviceFn {
        base: "gj_dev_above",
        decl: &[],
        def: &[],
        consts: no_consts,
        arrays: no_arrays,
        helpers: &[],
        callees: &[&TWICE, &ODD],
        uses_barrier: false,
    };

    #[test]
    fn recursion_is_a_cycle_reachable_from_the_roots() {
        assert!(reaches_recursion(&[&EVEN]), "mutual");
        assert!(reaches_recursion(&[&SELF]), "self");
        assert!(reaches_recursion(&[&LEAF, &ABOVE_CYCLE]), "a cycle below a root");
        // A function called twice (a diamond) is no cycle.
        assert!(!reaches_recursion(&[&TWICE, &LEAF, &TWICE]));
        assert!(!reaches_recursion(&[]));
    }
}
