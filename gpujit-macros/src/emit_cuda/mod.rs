//! CUDA C emitter: kernel model → the text of an `extern "C" __global__`
//! function. Module-level `const`s are declared by the runtime in front of it.
//!
//! Semantics follow Rust, not C: index math is 64-bit, signed integer
//! arithmetic wraps (done in unsigned arithmetic), shifts mask their amount,
//! float → int casts saturate with NaN → 0 (`gj_float_to_int`), unsuffixed float
//! literals take the type Rust gives them. Nothing is added that could make a
//! thread skip a barrier: no bounds checks, no early exits.
//!
//! This module holds the entry points and the emitter's state; statements,
//! expressions, atomics with index linearization, and the helper functions
//! are emitted by its submodules.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::model::*;

mod access;
mod expr;
mod helpers;
mod order;
mod stmt;

use helpers::helper_source;

/// Where the kernel is in its Rust source, for `#line` directives.
pub struct SourceLines<'a> {
    /// The file as rustc names it (`src/lib.rs`).
    pub file: &'a str,
    /// The line of the `fn`.
    pub line: u32,
}

/// The helper functions the kernel needs and the kernel itself, to follow
/// the declarations of outside constants; and the indices of the outside
/// constants whose type the text names (their `typedef` must precede it).
/// With `lines`, the kernel's signature and statements are preceded by
/// `#line` directives naming their Rust file and line, so that NVRTC's
/// messages point at the Rust source.
pub fn emit(k: &Kernel, lines: Option<SourceLines<'_>>) -> (String, BTreeSet<usize>) {
    let (helpers, def, typed_consts) = kernel_text(k, lines);
    (helpers.concat() + &def, typed_consts)
}

/// The kernel's CUDA C as the helper texts it needs, in order, and the rest
/// (`#line`, the `__global__` function); and the outside constants it names.
fn kernel_text(k: &Kernel, lines: Option<SourceLines<'_>>) -> (Vec<&'static str>, String, BTreeSet<usize>) {
    let mut e = Emitter {
        k,
        out: String::new(),
        helpers: BTreeSet::new(),
        typed_consts: BTreeSet::new(),
        indent: 1,
        lines: lines.is_some(),
        order: Default::default(),
    };
    for c in &k.body_consts {
        let value = e.expr(&c.value);
        // A numeric method's helper is no `constexpr` function: computed
        // when the thread starts instead, by the same code as at run time.
        let konst = if calls_math(&c.value) { "const" } else { "constexpr" };
        e.line(&format!("{konst} {} {} = {};", c.ty.c_name(), c.name, value));
    }
    e.block_body(&k.body);
    let body = std::mem::take(&mut e.out);

    let helpers: Vec<&'static str> = e.helpers.iter().map(|h| helper_source(h)).collect();
    let mut text = String::new();
    if let Some(SourceLines { file, line }) = lines {
        // Later directives name only a line: the file carries over.
        let _ = writeln!(text, "#line {line} \"{}\"", c_string_body(file));
    }
    let params: Vec<String> = k.params.iter().flat_map(param_decls).collect();
    let _ = write!(
        text,
        "extern \"C\" __global__ void {}({}) {{\n{body}}}\n",
        k.entry,
        params.join(", ")
    );
    (helpers, text, e.typed_consts)
}

/// Whether `e` calls a numeric method (a body `const` may: Rust's integer
/// methods are `const fn`s).
fn calls_math(e: &Expr) -> bool {
    crate::stack::deep(|| match &e.kind {
        ExprKind::Math(..) => true,
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::Idx3Field(a, _) => calls_math(a),
        ExprKind::Binary(_, a, b) => calls_math(a) || calls_math(b),
        ExprKind::Load(_, idx) => idx.iter().any(calls_math),
        ExprKind::If(c, a, b) => calls_math(c) || [a, b].iter().any(|blk| blk.tail.as_ref().is_some_and(calls_math)),
        _ => false,
    })
}

/// A kernel or device function as its parts, for `gpujit::__private::link`
/// (see `device`): the helper texts it needs, its declaration (device
/// functions: `typedef`s of its signature's types and its prototype; empty
/// for a kernel), its definition, and the outside constants whose `typedef`
/// it names. Names of callees are holes (`device::callee_name`).
pub struct Parts {
    pub helpers: Vec<&'static str>,
    pub decl: String,
    pub def: String,
    pub typed_consts: BTreeSet<usize>,
}

/// `k` as [`Parts`]: a `__device__` function if `k.ret` is set, else the
/// kernel (as [`emit`] writes it, without its helpers).
pub fn emit_parts(k: &Kernel, lines: Option<SourceLines<'_>>) -> Parts {
    let mut e = Emitter {
        k,
        out: String::new(),
        helpers: BTreeSet::new(),
        typed_consts: BTreeSet::new(),
        indent: 1,
        lines: lines.is_some(),
        order: Default::default(),
    };
    let Some(ret) = &k.ret else {
        let (helpers, def, typed_consts) = kernel_text(k, lines);
        return Parts {
            helpers,
            decl: String::new(),
            def,
            typed_consts,
        };
    };
    let own = crate::link::OWN;
    let mut decl = String::new();
    let ret_c = match ret {
        RetTy::Unit => "void".to_string(),
        RetTy::Scalar(s) => s.c_name().to_string(),
        RetTy::Tuple(parts) => {
            e.helpers.insert("gj_tuple");
            for (i, s) in parts.iter().enumerate() {
                let _ = writeln!(decl, "typedef {} {own}_ret{i};", s.c_name());
            }
            let names: Vec<&str> = parts.iter().map(|s| s.c_name()).collect();
            format!("gj_tuple{}<{}>", parts.len(), names.join(", "))
        }
    };
    let _ = writeln!(decl, "typedef {ret_c} {own}_ret;");
    for (i, p) in k.params.iter().enumerate() {
        if let ParamKind::Scalar(s) = p.kind {
            let _ = writeln!(decl, "typedef {} {own}_arg{i};", s.c_name());
        }
    }
    let params: Vec<String> = k.params.iter().flat_map(param_decls).collect();
    let head = format!("__device__ {own}_ret {own}({})", params.join(", "));
    let _ = writeln!(decl, "{head};");
    e.out.push_str(crate::link::CONSTS);
    for c in &k.body_consts {
        let value = e.expr(&c.value);
        e.line(&format!("constexpr {} {} = {};", c.ty.c_name(), c.name, value));
    }
    e.block_body(&k.body);
    let body = std::mem::take(&mut e.out);
    Parts {
        helpers: e.helpers.iter().map(|h| helper_source(h)).collect(),
        decl,
        def: format!("{head} {{\n{body}}}\n"),
        typed_consts: e.typed_consts,
    }
}

/// The C parameters one kernel parameter becomes: arrays pass their pointer,
/// then their extents as `unsigned long long` (`x_len` for 1-D, `a_d0`, `a_d1`, ... otherwise).
fn param_decls(p: &Param) -> Vec<String> {
    match p.kind {
        ParamKind::Scalar(s) => vec![format!("{} {}", s.c_name(), p.name)],
        ParamKind::Array { elem, mutable, .. } => {
            let qual = if mutable { "" } else { "const " };
            let mut v = vec![format!("{qual}{}* __restrict__ {}", elem.c_name(), p.name)];
            v.extend(p.dims.iter().map(|d| format!("unsigned long long {d}")));
            v
        }
    }
}

struct Emitter<'a> {
    k: &'a Kernel,
    out: String,
    helpers: BTreeSet<&'static str>,
    /// Outside constants whose `typedef` the text uses.
    typed_consts: BTreeSet<usize>,
    indent: usize,
    /// Whether to emit `#line` directives for [`Stmt::Line`].
    lines: bool,
    /// Operands evaluated ahead, in Rust's order (`crate::effects`).
    order: order::Sequencer,
}

/// `s` escaped for the inside of a C string literal.
fn c_string_body(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            '\n' => vec!['\\', 'n'],
            c => vec![c],
        })
        .collect()
}

fn scalar_of(ty: Ty) -> Option<Scalar> {
    match ty {
        Ty::Scalar(s) => Some(s),
        _ => None,
    }
}

/// `const ` for immutable bindings, and `[[maybe_unused]]` for names that
/// start with `_` (Rust's marker for "unused on purpose"), so NVRTC does not
/// warn where rustc does not.
fn decl_qualifiers(l: &Local) -> String {
    let unused = if l.name.starts_with('_') {
        "[[maybe_unused]] "
    } else {
        ""
    };
    let konst = if l.mutable { "" } else { "const " };
    format!("{unused}{konst}")
}

impl Emitter<'_> {
    /// The C type of `ty`: an outside constant's type by its `typedef`.
    fn c_type(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Scalar(s) => s.c_name().to_string(),
            Ty::Idx3 => "uint3".into(),
            Ty::Opaque(Some(c)) => {
                self.typed_consts.insert(c);
                self.k.extern_consts[c].type_name.clone()
            }
            Ty::Callee(k, which) => crate::link::callee_type(k, which),
            Ty::Opaque(None) | Ty::Var(_) => "auto".into(),
        }
    }

    /// For a type only rustc knew: its C `typedef`, and the generic helpers
    /// that give its operations Rust's semantics are emitted.
    fn opaque(&mut self, ty: Ty) -> Option<String> {
        match ty {
            Ty::Opaque(Some(c)) => {
                self.helpers.insert("gj_generic");
                self.typed_consts.insert(c);
                Some(self.k.extern_consts[c].type_name.clone())
            }
            Ty::Callee(k, which) => {
                self.helpers.insert("gj_generic");
                Some(crate::link::callee_type(k, which))
            }
            _ => None,
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn block_body(&mut self, b: &Block) {
        crate::stack::deep(|| self.block_body_at(b))
    }

    fn block_body_at(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            let t = self.expr(t);
            self.line(&format!("{t};"));
        }
    }

    fn nested(&mut self, head: &str, b: &Block) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.block_body(b);
        self.indent -= 1;
        self.line("}");
    }

    fn local(&self, id: LocalId) -> &Local {
        &self.k.locals[id]
    }
}
