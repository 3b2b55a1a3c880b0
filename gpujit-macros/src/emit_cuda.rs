//! CUDA C emitter: kernel model → the text of an `extern "C" __global__`
//! function. Module-level `const`s are declared by the runtime in front of it.
//!
//! Semantics follow Rust, not C: index math is 64-bit, signed integer
//! arithmetic wraps (done in unsigned arithmetic), shifts mask their amount,
//! float → int casts saturate with NaN → 0 (`gj_float_to_int`), unsuffixed float
//! literals take the type Rust gives them. Nothing is added that could make a
//! thread skip a barrier: no bounds checks, no early exits.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::cuda_math::{self, Recv};
use crate::model::*;

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
    crate::deep(|| match &e.kind {
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
    let own = crate::device::OWN;
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
    e.out.push_str(crate::device::CONSTS);
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

fn helper_source(name: &str) -> &'static str {
    match name {
        "gj_div_i32" => "static __device__ __forceinline__ int gj_div_i32(int a, int b) { return b == -1 ? (int)(0u - (unsigned int)a) : a / b; }\n",
        "gj_rem_i32" => "static __device__ __forceinline__ int gj_rem_i32(int a, int b) { return b == -1 ? 0 : a % b; }\n",
        "gj_div_i64" => "static __device__ __forceinline__ long long gj_div_i64(long long a, long long b) { return b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b; }\n",
        "gj_rem_i64" => "static __device__ __forceinline__ long long gj_rem_i64(long long a, long long b) { return b == -1 ? 0 : a % b; }\n",
        "gj_generic" => include_str!("generic_prelude.cu"),
        "gj_powi" => include_str!("powi.cu"),
        "gj_atomic_min_f32" => ATOMIC_MIN_F32,
        "gj_atomic_max_f32" => ATOMIC_MAX_F32,
        "gj_atomic_min_f64" => ATOMIC_MIN_F64,
        "gj_atomic_max_f64" => ATOMIC_MAX_F64,
        "gj_tuple" => "template <class A, class B> struct gj_tuple2 { A f0; B f1; };\ntemplate <class A, class B, class C> struct gj_tuple3 { A f0; B f1; C f2; };\ntemplate <class A, class B, class C, class D> struct gj_tuple4 { A f0; B f1; C f2; D f3; };\n",
        other => cuda_math::helper_source(other).unwrap_or(""),
    }
}

/// Float atomic min/max as compare-and-swap loops (CUDA has no float
/// `atomicMin`): a NaN operand loses (a NaN element is replaced, a NaN `v`
/// changes nothing) and an equal `v` keeps the element, exactly as the CPU
/// backend's `AtomicOp::Min`/`Max`. No store when the element stays.
macro_rules! float_minmax {
    ($name:literal, $t:literal, $bits:literal, $to_bits:literal, $from_bits:literal, $cmp:literal) => {
        concat!(
            "static __device__ __forceinline__ ",
            $t,
            " ",
            $name,
            "(",
            $t,
            "* p, ",
            $t,
            " v) {\n",
            "    ",
            $bits,
            "* q = (",
            $bits,
            "*)p;\n",
            "    ",
            $bits,
            " old = *(volatile ",
            $bits,
            "*)q;\n",
            "    for (;;) {\n",
            "        const ",
            $t,
            " cur = ",
            $from_bits,
            "(old);\n",
            "        if (!(v ",
            $cmp,
            " cur || cur != cur)) return cur;\n",
            "        const ",
            $bits,
            " seen = atomicCAS(q, old, (",
            $bits,
            ")",
            $to_bits,
            "(v));\n",
            "        if (seen == old) return cur;\n",
            "        old = seen;\n",
            "    }\n",
            "}\n"
        )
    };
}
const ATOMIC_MIN_F32: &str = float_minmax!(
    "gj_atomic_min_f32",
    "float",
    "unsigned int",
    "__float_as_uint",
    "__uint_as_float",
    "<"
);
const ATOMIC_MAX_F32: &str = float_minmax!(
    "gj_atomic_max_f32",
    "float",
    "unsigned int",
    "__float_as_uint",
    "__uint_as_float",
    ">"
);
const ATOMIC_MIN_F64: &str = float_minmax!(
    "gj_atomic_min_f64",
    "double",
    "unsigned long long",
    "__double_as_longlong",
    "__longlong_as_double",
    "<"
);
const ATOMIC_MAX_F64: &str = float_minmax!(
    "gj_atomic_max_f64",
    "double",
    "unsigned long long",
    "__double_as_longlong",
    "__longlong_as_double",
    ">"
);

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
    order: crate::effects::Sequencer,
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

/// The generic helper (`generic_prelude.cu`) for `op` on a value of a type
/// only rustc knew, if `op` needs one.
fn generic_op(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "gj_add",
        BinOp::Sub => "gj_sub",
        BinOp::Mul => "gj_mul",
        BinOp::Div => "gj_div",
        BinOp::Rem => "gj_rem",
        BinOp::BitAnd => "gj_and",
        BinOp::BitOr => "gj_or",
        BinOp::BitXor => "gj_xor",
        BinOp::Shl => "gj_shl",
        BinOp::Shr => "gj_shr",
        _ => return None,
    })
}

/// Wraps `s` in parentheses unless it is already atomic: a name or number,
/// a subscript or call of a name, or one parenthesized group.
fn paren(s: String) -> String {
    let head = s.find(['[', '(']).unwrap_or(s.len());
    let name_like = s[..head].chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    let atomic =
        (name_like && postfix_groups(&s[head..])) || (s.starts_with('(') && s.ends_with(')') && balanced_outer(&s));
    if atomic {
        s
    } else {
        format!("({s})")
    }
}

/// Whether `s` is a run of balanced `[...]`/`(...)` groups (or empty).
fn postfix_groups(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if depth == 0 => return false,
            _ => {}
        }
    }
    depth == 0
}

/// Whether the first `(` of `s` closes at its last character.
fn balanced_outer(s: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

fn float_lit(text: &str, s: Scalar) -> String {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let formatted = if s == Scalar::F32 {
        clean.parse::<f32>().map(|v| format!("{v:?}")).unwrap_or(clean.clone())
    } else {
        clean.parse::<f64>().map(|v| format!("{v:?}")).unwrap_or(clean.clone())
    };
    let formatted = if formatted.contains(['.', 'e', 'E', 'i', 'N']) {
        formatted
    } else {
        format!("{formatted}.0")
    };
    if s == Scalar::F32 {
        format!("{formatted}f")
    } else {
        formatted
    }
}

fn int_lit(v: i128, s: Option<Scalar>) -> String {
    match s {
        Some(Scalar::I32) if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Some(Scalar::I64) if v == i64::MIN as i128 => "(-9223372036854775807ll - 1)".into(),
        Some(Scalar::I64) => format!("{v}ll"),
        Some(Scalar::U32) => format!("{v}u"),
        Some(Scalar::U64 | Scalar::Usize) => format!("{v}ull"),
        Some(Scalar::F32) => format!("{v}.0f"),
        Some(Scalar::F64) => format!("{v}.0"),
        _ => format!("{v}"),
    }
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
            Ty::Callee(k, which) => crate::device::callee_type(k, which),
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
                Some(crate::device::callee_type(k, which))
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
        crate::deep(|| self.block_body_at(b))
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

    fn stmt(&mut self, s: &Stmt) {
        crate::deep(|| self.stmt_at(s))
    }

    fn stmt_at(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { local, init } => {
                let l = self.local(*local).clone();
                let konst = decl_qualifiers(&l);
                match init {
                    Some(e) if l.ty == Ty::Idx3 => {
                        let v = self.expr(e);
                        self.line(&format!("{konst}uint3 {} = {{{v}.x, {v}.y, {v}.z}};", l.name));
                    }
                    Some(e) => {
                        let v = self.expr(e);
                        let t = self.c_type(l.ty);
                        self.line(&format!("{konst}{t} {} = {v};", l.name));
                    }
                    None => {
                        let t = self.c_type(l.ty);
                        self.line(&format!("{t} {};", l.name))
                    }
                }
            }
            Stmt::LetTuple { locals, parts } => {
                for (l, p) in locals.iter().zip(parts) {
                    if let Some(id) = l {
                        let l = self.local(*id).clone();
                        let v = self.expr(p);
                        let konst = decl_qualifiers(&l);
                        let t = self.c_type(l.ty);
                        self.line(&format!("{konst}{t} {} = {v};", l.name));
                    }
                }
            }
            Stmt::Shared(id) => {
                let sh = &self.k.shared[*id];
                let dims: String = sh.dims.iter().map(|d| format!("[{}]", d.c)).collect();
                self.line(&format!("__shared__ {} {}{};", sh.elem.c_name(), sh.name, dims));
            }
            Stmt::LocalArray { id, init } => self.local_array(*id, init),
            Stmt::Assign { place, value, .. } if self.effectful_index(place) => {
                // Rust evaluates the value, then the index, once; C would
                // evaluate a compound assignment's index twice below.
                let Place::Elem(_, idx) = place else { return };
                self.line("{");
                self.indent += 1;
                for x in std::iter::once(value).chain(idx) {
                    let v = self.expr(x);
                    let name = self.order.bind(x);
                    self.line(&format!("const auto {name} = {v};"));
                }
                self.stmt_at(s);
                std::iter::once(value).chain(idx).for_each(|x| self.order.unbind(x));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Assign { place, op, value } => {
                let (target, place_ty) = self.place(place);
                let ty = scalar_of(place_ty);
                let v = self.expr(value);
                match op {
                    None => self.line(&format!("{target} = {v};")),
                    Some(op) => {
                        let simple = matches!(ty, Some(s) if s.is_float() && *op != BinOp::Rem)
                            || matches!(ty, Some(Scalar::U32 | Scalar::U64 | Scalar::Usize) if !matches!(op, BinOp::Shl | BinOp::Shr))
                            || matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
                                && !ty.is_some_and(Scalar::is_narrow);
                        if simple {
                            self.line(&format!("{target} {}= {v};", op.symbol()));
                        } else {
                            let rhs = self.binary(*op, (target.clone(), PRIMARY), (v, emitted_prec(value)), place_ty);
                            self.line(&format!("{target} = {rhs};"));
                        }
                    }
                }
            }
            Stmt::Expr(e) => {
                let v = self.expr(e);
                self.line(&format!("{v};"));
            }
            Stmt::If { cond, then, els } => self.if_stmt(cond, then, els.as_ref(), "if"),
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                rev,
                body,
                aux,
            } => {
                let l = self.local(*var).clone();
                let (a, b) = (self.expr(start), self.expr(end));
                // A range over outside constants only rustc knows the type of
                // (`for _ in 0..ITERS`): C++ takes it from the end bound, as
                // `auto` would deduce different types for `0` and `ITERS`.
                let t = match l.ty {
                    Ty::Opaque(None) | Ty::Var(_) => format!("decltype({} + 0)", paren(b.clone())),
                    ty => self.c_type(ty),
                };
                let t = t.as_str();
                let [end_n, step_n, done_n] = aux;
                let i = &l.name;
                if *rev {
                    self.rev_for(t, i, (&a, &b), *inclusive, step.as_ref(), body, aux, l.ty);
                } else if step.is_none() && !inclusive {
                    self.nested(
                        &format!("for ({t} {i} = {a}, {end_n} = {b}; {i} < {end_n}; {i}++)"),
                        body,
                    );
                } else {
                    // Stop before the variable could step past the end (compared
                    // in unsigned 64-bit arithmetic), so neither a range ending
                    // at the type's maximum nor a step wider than the type can
                    // overflow: as in Rust, a too-large step yields one element.
                    let u = scalar_of(l.ty).map(|s| s.c_unsigned()).unwrap_or("unsigned long long");
                    let step_text = match step {
                        Some(s) => {
                            let s = self.expr(s);
                            self.line("{");
                            self.indent += 1;
                            self.line(&format!("const unsigned long long {step_n} = {s};"));
                            // A zero step: a device fault (the launch fails), as
                            // the CPU backend faults, instead of looping forever.
                            self.line(&format!("if ({step_n} == 0ull) __trap();"));
                            step_n.clone()
                        }
                        None => "1ull".into(),
                    };
                    let (cmp, last) = if *inclusive { ("<=", "<") } else { ("<", "<=") };
                    // Casts only where the loop type is narrower than 64 bits.
                    let wide = u == "unsigned long long";
                    let to_u = |x: &str| if t == u { x.to_string() } else { format!("({u}){x}") };
                    let diff = format!("{} - {}", to_u(end_n), to_u(i));
                    let remaining = if wide {
                        diff
                    } else {
                        format!("(unsigned long long)({diff})")
                    };
                    let next = if t == u {
                        format!("{i} + {step_text}")
                    } else {
                        format!("({t})({} + ({u}){step_text})", to_u(i))
                    };
                    self.nested(
                        &format!(
                            "for ({t} {i} = {a}, {end_n} = {b}, {done_n} = !({i} {cmp} {end_n}); !{done_n}; {done_n} = {remaining} {last} {step_text}, {i} = {done_n} ? {i} : {next})"
                        ),
                        body,
                    );
                    if step.is_some() {
                        self.indent -= 1;
                        self.line("}");
                    }
                }
            }
            Stmt::While { cond, body } => {
                let c = self.expr(cond);
                self.nested(&format!("while ({c})"), body);
            }
            Stmt::Loop { body } => self.nested("for (;;)", body),
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return => self.line("return;"),
            Stmt::ReturnValue(e) => {
                let v = self.expr(e);
                self.line(&format!("return {v};"));
            }
            Stmt::SyncThreads => self.line("__syncthreads();"),
            Stmt::Fence(scope) => self.line(match scope {
                FenceScope::Block => "__threadfence_block();",
                FenceScope::Device => "__threadfence();",
                FenceScope::System => "__threadfence_system();",
            }),
            Stmt::Block(b) => self.nested("", b),
            Stmt::Line(n) => {
                if self.lines {
                    let _ = writeln!(self.out, "#line {n}");
                }
            }
        }
    }

    /// `for i in (a..b).rev().step_by(s)` (`..=`, no step: 1): `i` starts at
    /// the range's last element and steps down while at least `s` above
    /// `a`, the distance taken in unsigned 64-bit arithmetic as for forward
    /// loops, so that nothing wraps or overflows at either end of the type.
    #[allow(clippy::too_many_arguments)]
    fn rev_for(
        &mut self,
        t: &str,
        i: &str,
        (a, b): (&str, &str),
        inclusive: bool,
        step: Option<&Expr>,
        body: &Block,
        aux: &[String; 3],
        ty: Ty,
    ) {
        let [lo, step_n, done] = aux;
        let u = scalar_of(ty).map(|s| s.c_unsigned()).unwrap_or("unsigned long long");
        let step_text = match step {
            Some(s) => {
                let s = self.expr(s);
                self.line("{");
                self.indent += 1;
                self.line(&format!("const unsigned long long {step_n} = {s};"));
                self.line(&format!("if ({step_n} == 0ull) __trap();"));
                step_n.clone()
            }
            None => "1ull".into(),
        };
        let to_u = |x: &str| if t == u { x.to_string() } else { format!("({u}){x}") };
        let diff = format!("{} - {}", to_u(i), to_u(lo));
        let remaining = if u == "unsigned long long" {
            diff
        } else {
            format!("(unsigned long long)({diff})")
        };
        let minus = |by: &str| {
            if t == u {
                format!("{i} - {by}")
            } else {
                format!("({t})({} - ({u}){by})", to_u(i))
            }
        };
        // `a..b` starts at `b - 1`, only when not empty (`b > a`).
        let first = if inclusive {
            format!("!({lo} <= {i})")
        } else {
            format!("!({lo} < {i}) || ({i} = {}, false)", minus("1"))
        };
        let next = minus(&step_text);
        self.nested(
            &format!(
                "for ({t} {lo} = {a}, {i} = {b}, {done} = {first}; !{done}; {done} = {remaining} < {step_text}, {i} = {done} ? {i} : {next})"
            ),
            body,
        );
        if step.is_some() {
            self.indent -= 1;
            self.line("}");
        }
    }

    /// `if (..) { } else if (..) { } else { }`, flat for any chain length.
    fn if_stmt(&mut self, cond: &Expr, then: &Block, els: Option<&Block>, keyword: &str) {
        let (mut cond, mut then, mut els, mut keyword) = (cond, then, els, keyword);
        loop {
            let c = self.expr(cond);
            self.line(&format!("{keyword} ({c}) {{"));
            self.indent += 1;
            self.block_body(then);
            self.indent -= 1;
            match els {
                None => return self.line("}"),
                // `else { if .. }` (a line marker may precede the `if`):
                // replace the closing brace, `} else if (...) {`.
                Some(b) => match b.else_if() {
                    Some((c, t, e)) => (cond, then, els, keyword) = (c, t, e, "} else if"),
                    None => {
                        self.line("} else {");
                        self.indent += 1;
                        self.block_body(b);
                        self.indent -= 1;
                        return self.line("}");
                    }
                },
            }
        }
    }

    fn place(&mut self, p: &Place) -> (String, Ty) {
        match p {
            Place::Local(id) => {
                let l = self.local(*id);
                (l.name.clone(), l.ty)
            }
            Place::Elem(array, idx) => (self.element(*array, idx), self.k.elem_type(*array)),
        }
    }

    /// A local array: a C array in local memory, then its values (a list
    /// as a brace initialiser, a repeated value by loops over the indices).
    fn local_array(&mut self, id: usize, init: &ArrayInit) {
        let a = self.k.local_arrays[id].clone();
        let t = self.c_type(a.elem);
        // C has no zero-length arrays (Rust's `[0i32; 0]` is fine): such an
        // extent becomes 1; every index is out of range there either way.
        let dims: String = a
            .dims
            .iter()
            .map(|d| match d.c.parse::<u64>() {
                Ok(0) => "[1]".to_string(),
                Ok(_) => format!("[{}]", d.c),
                Err(_) => format!("[({0}) > 0 ? ({0}) : 1]", d.c),
            })
            .collect();
        // A zero-length array is never read: no fill loop (NVRTC would warn
        // about `i < 0`), and no "set but never used" warning.
        let empty = a.dims.iter().any(|d| d.c.parse::<u64>() == Ok(0));
        let attr = if empty { "[[maybe_unused]] " } else { "" };
        match init {
            ArrayInit::Repeat(v) if empty => {
                let v = self.expr(v);
                self.line(&format!("{attr}{t} {}{dims};", a.name));
                self.line(&format!("{{ const {t} gj_fill = {v}; (void)gj_fill; }}"));
            }
            ArrayInit::List(values) => {
                // A computed element is cast to the element type: a brace
                // list refuses C++'s narrowing (`int` arithmetic into a
                // `unsigned char` element).
                let values: Vec<String> = values
                    .iter()
                    .map(|v| match v.kind {
                        ExprKind::Lit(_) => self.expr(v),
                        _ => format!("({t})({})", self.expr(v)),
                    })
                    .collect();
                // List sizes are literals; nested braces mirror the dimensions.
                let sizes: Vec<usize> = a.dims.iter().map(|d| d.c.parse().unwrap_or(1)).collect();
                let mut parts = values;
                for &n in sizes.iter().skip(1).rev() {
                    parts = parts
                        .chunks(n.max(1))
                        .map(|c| format!("{{{}}}", c.join(", ")))
                        .collect();
                }
                self.line(&format!("{attr}{t} {}{dims} = {{{}}};", a.name, parts.join(", ")));
            }
            ArrayInit::Repeat(v) => {
                let v = self.expr(v);
                self.line(&format!("{t} {}{dims};", a.name));
                self.line("{");
                self.indent += 1;
                self.line(&format!("const {t} gj_fill = {v};"));
                let mut subs = String::new();
                for (k, d) in a.dims.iter().enumerate() {
                    self.line(&format!(
                        "for (unsigned long long gj_i{k} = 0; gj_i{k} < {}; ++gj_i{k})",
                        d.c
                    ));
                    self.indent += 1;
                    subs.push_str(&format!("[gj_i{k}]"));
                }
                self.line(&format!("{}{subs} = gj_fill;", a.name));
                self.indent -= a.dims.len() + 1;
                self.line("}");
            }
        }
    }

    fn element(&mut self, a: ArrayRef, idx_exprs: &[Expr]) -> String {
        let idx: Vec<String> = idx_exprs.iter().map(|e| self.expr(e)).collect();
        let group = |x: &String, e: &Expr, min: u8| {
            if emitted_prec(e) < min {
                format!("({x})")
            } else {
                x.clone()
            }
        };
        let subs: String = idx.iter().map(|x| format!("[{x}]")).collect();
        match a {
            ArrayRef::Shared(i) => format!("{}{subs}", self.k.shared[i].name),
            ArrayRef::Local(i) => format!("{}{subs}", self.k.local_arrays[i].name),
            ArrayRef::Const(i) => format!("{}{subs}", self.k.extern_consts[i].c_name),
            ArrayRef::Param(i) => {
                let p = &self.k.params[i];
                // Row-major: ((i * d1 + j) * d2 + k).
                let mut flat = group(&idx[0], &idx_exprs[0], 13);
                for (d, x) in idx.iter().enumerate().skip(1) {
                    flat = format!("{flat} * {} + {}", p.dims[d], group(x, &idx_exprs[d], 13));
                    if d + 1 < idx.len() {
                        flat = format!("({flat})");
                    }
                }
                if idx.len() == 1 {
                    flat = idx[0].clone();
                }
                format!("{}[{flat}]", p.name)
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        crate::deep(|| self.expr_at(e))
    }

    fn expr_at(&mut self, e: &Expr) -> String {
        if let Some(name) = self.order.name_of(e) {
            return name.clone();
        }
        if let Some(ops) = crate::effects::unordered_operands(e) {
            return self.in_rust_order(e, &ops);
        }
        self.expr_text(e)
    }

    /// Whether `place` is an element whose index has a side effect not yet
    /// evaluated into a temporary.
    fn effectful_index(&self, place: &Place) -> bool {
        let Place::Elem(_, idx) = place else { return false };
        idx.iter()
            .any(|x| self.order.name_of(x).is_none() && crate::effects::has_effects(x))
    }

    /// `e` in an immediately invoked lambda that first evaluates the operands
    /// `ops` that touch memory into temporaries, left to right as Rust does.
    fn in_rust_order(&mut self, e: &Expr, ops: &[&Expr]) -> String {
        let mut decls = String::new();
        let mut bound = Vec::new();
        for op in ops.iter().copied().filter(|o| crate::effects::observes_memory(o)) {
            let v = self.expr(op);
            let name = self.order.bind(op);
            let _ = write!(decls, "const auto {name} = {v}; ");
            bound.push(op);
        }
        let body = self.expr_text(e);
        for op in bound {
            self.order.unbind(op);
        }
        format!("[&]() {{ {decls}return {body}; }}()")
    }

    fn expr_text(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => match self.opaque(e.ty) {
                Some(t) => format!("({t}){v}"),
                None => int_lit(*v, scalar_of(e.ty)),
            },
            ExprKind::Lit(Lit::Float(text)) => match (self.opaque(e.ty), scalar_of(e.ty)) {
                // Both spellings: the helper picks the one of the constant's type.
                (Some(t), _) => format!(
                    "gj_lit<{t}>({}, {})",
                    float_lit(text, Scalar::F32),
                    float_lit(text, Scalar::F64)
                ),
                (None, Some(s)) => float_lit(text, s),
                (None, None) => text.clone(),
            },
            ExprKind::Lit(Lit::Bool(b)) => b.to_string(),
            ExprKind::Local(id) => self.local(*id).name.clone(),
            ExprKind::ExternConst(i) => self.k.extern_consts[*i].c_name.clone(),
            ExprKind::BodyConst(i) => self.k.body_consts[*i].name.clone(),
            ExprKind::Unary(op, a) => {
                if let Some(t) = self.opaque(e.ty) {
                    let f = if *op == UnOp::Neg { "gj_neg" } else { "gj_not" };
                    return format!("{f}<{t}>({})", self.expr(a));
                }
                let s = scalar_of(e.ty);
                let v = paren(self.expr(a));
                match (op, s) {
                    (UnOp::Neg, Some(t)) if t.is_signed_int() => format!(
                        "({})(0{} - ({}){v})",
                        t.c_name(),
                        if t.bits() <= 32 { "u" } else { "ull" },
                        t.c_unsigned()
                    ),
                    (UnOp::Neg, _) => format!("-{v}"),
                    (UnOp::Not, Some(Scalar::Bool)) => format!("!{v}"),
                    (UnOp::Not, Some(t)) if t.is_narrow() => format!("({})~{v}", t.c_name()),
                    (UnOp::Not, _) => format!("~{v}"),
                }
            }
            ExprKind::Binary(..) if crate::emit_cpu::is_deep(e) => self.flat(e),
            ExprKind::Binary(op, a, b) => {
                let l = (self.expr(a), emitted_prec(a));
                let r = (self.expr(b), emitted_prec(b));
                self.binary(*op, l, r, a.ty)
            }
            ExprKind::Cast(a, to) => {
                let v = self.expr(a);
                match self.opaque(a.ty) {
                    Some(t) => format!("gj_cast<{}, {t}>({v})", to.c_name()),
                    None => match scalar_of(a.ty) {
                        Some(from) if from.is_float() && to.is_int() => {
                            self.helpers.insert("gj_float_to_int");
                            format!("gj_float_to_int<{}>({v})", to.c_name())
                        }
                        from => cast(&v, from, *to),
                    },
                }
            }
            ExprKind::Load(a, idx) => self.element(*a, idx),
            ExprKind::Vote(v, p) => {
                let p = self.expr(p);
                match v {
                    Vote::Count => format!("(unsigned int){}({p})", v.c_name()),
                    Vote::And | Vote::Or => format!("({}({p}) != 0)", v.c_name()),
                }
            }
            ExprKind::Len(p) => {
                let p = &self.k.params[*p];
                match p.dims.as_slice() {
                    [one] => one.clone(),
                    dims => format!("({})", dims.join(" * ")),
                }
            }
            ExprKind::Dim(p, d) => {
                let p = &self.k.params[*p];
                p.dims.get(*d).cloned().unwrap_or_else(|| "1".into())
            }
            ExprKind::Grid(a) => {
                let x = a.name();
                format!("((unsigned long long)blockIdx.{x} * blockDim.{x} + threadIdx.{x})")
            }
            ExprKind::GridSize(a) => {
                let x = a.name();
                format!("((unsigned long long)gridDim.{x} * blockDim.{x})")
            }
            ExprKind::Builtin(b) => b.c_name().to_string(),
            ExprKind::BuiltinAxis(b, a) => format!("((unsigned long long){}.{})", b.c_name(), a.name()),
            ExprKind::Idx3Field(base, a) => {
                let v = self.expr(base);
                format!("((unsigned long long){v}.{})", a.name())
            }
            ExprKind::Math(f, args) => {
                let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let recv_ty = args[0].ty;
                let opaque = self.opaque(recv_ty);
                let recv = match (&opaque, scalar_of(recv_ty)) {
                    (Some(t), _) => Recv::Opaque(t),
                    (None, s) => Recv::Known(s.unwrap_or(Scalar::F64)),
                };
                if let Some(c) = cuda_math::call(*f, recv, scalar_of(e.ty), &vals, &mut self.helpers) {
                    return c;
                }
                if *f == MathFn::Powi {
                    self.helpers.insert("gj_powi");
                }
                match opaque {
                    Some(t) if *f == MathFn::Powi => format!("gj_powi<{t}>({})", vals.join(", ")),
                    Some(t) => format!("gj_{}<{t}>({})", f.rust_name(), vals.join(", ")),
                    None => math(*f, scalar_of(recv_ty), &vals),
                }
            }
            ExprKind::Atomic(f, a, idx, vals) => {
                let place = format!("&{}", self.element(*a, idx));
                let vals: Vec<String> = vals.iter().map(|v| self.expr(v)).collect();
                let elem = scalar_of(self.k.elem_type(*a)).unwrap_or(Scalar::I32);
                self.atomic(*f, elem, &place, &vals)
            }
            ExprKind::Call(k, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}({})", crate::device::callee_name(*k), args.join(", "))
            }
            // The pointer, then the extents, as a kernel receives them.
            ExprKind::ArrayArg(p) => {
                let p = &self.k.params[*p];
                std::iter::once(p.name.clone())
                    .chain(p.dims.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
            ExprKind::Tuple(parts) => {
                let parts: Vec<String> = parts.iter().map(|a| self.expr(a)).collect();
                format!("{}{{{}}}", crate::device::own_type(), parts.join(", "))
            }
            ExprKind::TupleField(t, i) => format!("{}.f{i}", paren(self.expr(t))),
            ExprKind::If(c, a, b) => {
                // `else if` chains as `c ? a : c2 ? a2 : b`: `?:` groups to
                // the right, so no parentheses nest per arm.
                let mut out = String::from("(");
                let (mut c, mut a, mut b) = (&**c, &**a, &**b);
                loop {
                    let cond = self.expr(c);
                    let then = a.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                    let _ = write!(out, "{cond} ? {then} : ");
                    match b.else_if_value() {
                        Some(next) => (c, a, b) = next,
                        None => break,
                    }
                }
                let b = b.tail.as_ref().map(|t| self.expr(t)).unwrap_or_default();
                out.push_str(&b);
                out.push(')');
                out
            }
        }
    }

    /// `l op r` with Rust semantics for operands of type `lt`; `lp`/`rp` are
    /// the C precedences of the operand texts (parentheses only where needed).
    fn binary(&mut self, op: BinOp, (l, lp): (String, u8), (r, rp): (String, u8), lty: Ty) -> String {
        if let (Some(t), Some(f)) = (self.opaque(lty), generic_op(op)) {
            return format!("{f}<{t}>({l}, {r})");
        }
        let lt = scalar_of(lty);
        let p = c_prec(op);
        let (wrap_l, wrap_r) = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => (lp < p, rp <= p),
            BinOp::And | BinOp::Or => (lp < 9 && lp != p, rp < 9 && rp != p),
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => (lp < 11, rp < 11),
            // Bitwise operators and shifts: always group a compound operand.
            _ => (lp < PRIMARY - 2, rp < PRIMARY - 2),
        };
        // Operands of a C cast or a call need their own grouping rules.
        let cast_l = if lp < UNARY { format!("({l})") } else { l.clone() };
        let cast_r = if rp < UNARY { format!("({r})") } else { r.clone() };
        let (arg_l, arg_r) = (l.clone(), r.clone());
        let l = if wrap_l { format!("({l})") } else { l };
        let r = if wrap_r { format!("({r})") } else { r };
        let sym = op.symbol();
        let Some(t) = lt else { return format!("{l} {sym} {r}") };
        if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            return format!("{l} {sym} {r}");
        }
        if t.is_float() {
            return match op {
                BinOp::Rem => format!("{}({arg_l}, {arg_r})", if t == Scalar::F32 { "fmodf" } else { "fmod" }),
                _ => format!("{l} {sym} {r}"),
            };
        }
        let mask = t.bits() - 1;
        match (op, t) {
            // Through the unsigned type: C's `<<` of a negative value is undefined.
            (BinOp::Shl, _) if t.is_signed_int() => {
                format!("({})(({}){cast_l} << ({r} & {mask}))", t.c_name(), t.c_unsigned())
            }
            (BinOp::Shl | BinOp::Shr, _) if t.is_narrow() => format!("({})({l} {sym} ({r} & {mask}))", t.c_name()),
            (BinOp::Shl | BinOp::Shr, _) => format!("{l} {sym} ({r} & {mask})"),
            // `u16 * u16` overflows C's `int`: wrap in `unsigned int` instead.
            (
                BinOp::Add | BinOp::Sub | BinOp::Mul,
                Scalar::I8 | Scalar::I16 | Scalar::U16 | Scalar::I32 | Scalar::I64,
            ) => {
                let u = t.c_unsigned();
                format!("({})(({u}){cast_l} {sym} ({u}){cast_r})", t.c_name())
            }
            (BinOp::Div | BinOp::Rem, Scalar::I32 | Scalar::I64) => {
                let name = match (op, t) {
                    (BinOp::Div, Scalar::I32) => "gj_div_i32",
                    (BinOp::Rem, Scalar::I32) => "gj_rem_i32",
                    (BinOp::Div, _) => "gj_div_i64",
                    _ => "gj_rem_i64",
                };
                self.helpers.insert(name);
                format!("{name}({arg_l}, {arg_r})")
            }
            // `-128 / -1` is 128 in C's `int`, which the cast wraps as Rust's `wrapping_div`.
            (_, t) if t.is_narrow() => format!("({})({l} {sym} {r})", t.c_name()),
            _ => format!("{l} {sym} {r}"),
        }
    }
}

impl Emitter<'_> {
    /// The CUDA C call for atomic `f` on the element at `place` (`&a[i]`) of
    /// type `t` with operands `vals`. CUDA's overloads cover `int`,
    /// `unsigned`, `unsigned long long` (and `long long` for min/max, `float`
    /// and `double` for add); other pairs go through `unsigned long long`
    /// (two's complement: the same bits), and `atomicSub` exists for 32-bit
    /// integers only (else: `atomicAdd` of the negation).
    fn atomic(&mut self, f: AtomicFn, t: Scalar, place: &str, vals: &[String]) -> String {
        let name = match f {
            AtomicFn::Add => "atomicAdd",
            AtomicFn::Sub => "atomicSub",
            AtomicFn::Min => "atomicMin",
            AtomicFn::Max => "atomicMax",
            AtomicFn::Exch => "atomicExch",
            AtomicFn::Cas => "atomicCAS",
            AtomicFn::And => "atomicAnd",
            AtomicFn::Or => "atomicOr",
            AtomicFn::Xor => "atomicXor",
            AtomicFn::Inc => "atomicInc",
            AtomicFn::Dec => "atomicDec",
        };
        let v = vals.last().cloned().unwrap_or_default();
        let ull = "unsigned long long";
        let text = match (f, t) {
            (AtomicFn::Min | AtomicFn::Max, Scalar::F32 | Scalar::F64) => {
                let helper = match (f, t) {
                    (AtomicFn::Min, Scalar::F32) => "gj_atomic_min_f32",
                    (AtomicFn::Max, Scalar::F32) => "gj_atomic_max_f32",
                    (AtomicFn::Min, _) => "gj_atomic_min_f64",
                    _ => "gj_atomic_max_f64",
                };
                self.helpers.insert(helper);
                format!("{helper}({place}, {v})")
            }
            (AtomicFn::Sub, Scalar::F32 | Scalar::F64) => format!("atomicAdd({place}, -({v}))"),
            (AtomicFn::Exch, Scalar::F64) => format!(
                "__longlong_as_double((long long)atomicExch(({ull}*){place}, ({ull})__double_as_longlong({v})))"
            ),
            (AtomicFn::Sub, Scalar::U64 | Scalar::Usize) => format!("atomicAdd({place}, 0ull - ({v}))"),
            (AtomicFn::Sub, Scalar::I64) => {
                format!("(long long)atomicAdd(({ull}*){place}, 0ull - ({ull})({v}))")
            }
            (AtomicFn::Min | AtomicFn::Max, Scalar::I64) => format!("{name}({place}, {v})"),
            (AtomicFn::Cas, Scalar::I64) => format!(
                "(long long)atomicCAS(({ull}*){place}, ({ull})({}), ({ull})({v}))",
                vals[0]
            ),
            (_, Scalar::I64) => format!("(long long){name}(({ull}*){place}, ({ull})({v}))"),
            (AtomicFn::Cas, _) => format!("atomicCAS({place}, {}, {v})", vals[0]),
            _ => format!("{name}({place}, {v})"),
        };
        // A primary expression, like any call (`emitted_prec`).
        if text.starts_with('(') {
            format!("({text})")
        } else {
            text
        }
    }

    /// A deeply nested operator tree as an immediately invoked lambda that
    /// assigns one slot variable per operator, in evaluation order, as the CPU
    /// emitter does (`emit_cpu::Emitter::flat`): nested parentheses and calls
    /// would make NVRTC's and g++'s parsers recurse once per level.
    fn flat(&mut self, e: &Expr) -> String {
        let mut slots: Vec<(Scalar, usize)> = Vec::new();
        let mut body = String::new();
        self.linear(e, 0, &mut body, &mut slots);
        // One variable per slot in use: NVRTC is slow on arrays here.
        let decls: String = slots
            .iter()
            .map(|&(s, d)| format!("{} {}{{}}; ", s.c_name(), c_slot(Ty::Scalar(s), d)))
            .collect();
        let ret = scalar_of(e.ty).map_or("auto", Scalar::c_name);
        format!("[&]() -> {ret} {{ {decls}{body}return {}; }}()", c_slot(e.ty, 0))
    }

    /// Appends the statements that leave `e` in slot `d` of its type.
    fn linear(&mut self, e: &Expr, d: usize, out: &mut String, slots: &mut Vec<(Scalar, usize)>) {
        crate::deep(|| {
            if let Some(s) = scalar_of(e.ty) {
                if !slots.contains(&(s, d)) {
                    slots.push((s, d));
                }
            }
            let here = c_slot(e.ty, d);
            let ExprKind::Binary(op, a, b) = &e.kind else {
                let v = self.expr(e);
                out.push_str(&format!("{here} = {v}; "));
                return;
            };
            self.linear(a, d, out, slots);
            let (l, r) = (c_slot(a.ty, d), c_slot(b.ty, d + 1));
            if matches!(op, BinOp::And | BinOp::Or) {
                // The right operand runs only if the left one does not decide.
                let mut inner = String::new();
                self.linear(b, d + 1, &mut inner, slots);
                let not = if *op == BinOp::And { "" } else { "!" };
                out.push_str(&format!("if ({not}{l}) {{ {inner}{here} = {r}; }} "));
            } else {
                self.linear(b, d + 1, out, slots);
                let v = self.binary(*op, (l, PRIMARY), (r, PRIMARY), a.ty);
                out.push_str(&format!("{here} = {v}; "));
            }
        })
    }
}

/// The C variable for slot `d` of values of type `ty` (see `Emitter::flat`).
fn c_slot(ty: Ty, d: usize) -> String {
    let name = scalar_of(ty).map_or("opaque", Scalar::rust_name);
    format!("gj_s_{name}_{d}")
}

/// Precedence of a primary expression (name, literal, call, subscript, group).
const PRIMARY: u8 = 16;
/// Precedence of a unary operator or a C cast.
const UNARY: u8 = 14;

/// C precedence of a binary operator (higher binds tighter).
fn c_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Rem => 13,
        BinOp::Add | BinOp::Sub => 12,
        BinOp::Shl | BinOp::Shr => 11,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 10,
        BinOp::Eq | BinOp::Ne => 9,
        BinOp::BitAnd => 8,
        BinOp::BitXor => 7,
        BinOp::BitOr => 6,
        BinOp::And => 5,
        BinOp::Or => 4,
    }
}

/// The C precedence of the text `Emitter::expr` produces for `e`.
fn emitted_prec(e: &Expr) -> u8 {
    let generic = |ty: Ty| matches!(ty, Ty::Opaque(Some(_)) | Ty::Callee(..));
    match &e.kind {
        // Calls of the generic helpers (`gj_add<T>(a, b)`), or a cast for a literal.
        ExprKind::Binary(op, a, _) if generic(a.ty) && generic_op(*op).is_some() => PRIMARY,
        ExprKind::Cast(a, _) if generic(a.ty) => PRIMARY,
        ExprKind::Unary(..) if generic(e.ty) => PRIMARY,
        ExprKind::Lit(Lit::Int(_)) if generic(e.ty) => UNARY,
        ExprKind::Lit(Lit::Float(_)) if generic(e.ty) => PRIMARY,
        ExprKind::Binary(op, a, _) => {
            let plain = match scalar_of(a.ty) {
                _ if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) => true,
                None | Some(Scalar::Bool) => true,
                Some(t) if t.is_float() => *op != BinOp::Rem,
                Some(t) if t.is_narrow() => false,
                Some(Scalar::I32 | Scalar::I64) => {
                    matches!(op, BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
                }
                Some(_) => true,
            };
            if plain {
                c_prec(*op)
            } else {
                UNARY
            }
        }
        ExprKind::Cast(inner, to) => match scalar_of(inner.ty) {
            Some(f)
                if f == *to
                    || (matches!(f, Scalar::U64 | Scalar::Usize) && matches!(to, Scalar::U64 | Scalar::Usize)) =>
            {
                emitted_prec(inner)
            }
            _ => UNARY,
        },
        ExprKind::Unary(..) | ExprKind::Vote(Vote::Count, _) => UNARY,
        ExprKind::Lit(Lit::Int(v)) if *v < 0 => UNARY,
        ExprKind::Lit(Lit::Float(t)) if t.starts_with('-') => UNARY,
        _ => PRIMARY,
    }
}

/// `v as to` with Rust semantics, except float → int (`gj_float_to_int`).
fn cast(v: &str, from: Option<Scalar>, to: Scalar) -> String {
    match from {
        Some(f)
            if f == to || (matches!(f, Scalar::U64 | Scalar::Usize) && matches!(to, Scalar::U64 | Scalar::Usize)) =>
        {
            v.to_string()
        }
        _ => format!("({}){}", to.c_name(), paren(v.to_string())),
    }
}

fn math(f: MathFn, ty: Option<Scalar>, a: &[String]) -> String {
    let t = ty.unwrap_or(Scalar::F64);
    if t.is_int() {
        if f == MathFn::Abs && t.is_signed_int() {
            // Rust's `wrapping_abs`: MIN stays MIN (C's `abs(INT_MIN)` is undefined).
            let x = paren(a[0].clone());
            return format!(
                "({x} < 0 ? ({})(0{} - ({}){x}) : {x})",
                t.c_name(),
                if t.bits() <= 32 { "u" } else { "ull" },
                t.c_unsigned()
            );
        }
        let name = match (f, t) {
            (MathFn::Abs, _) => "abs",
            (MathFn::Min, _) => "min",
            _ => "max",
        };
        let call = format!("{name}({})", a.join(", "));
        return if t.is_narrow() {
            format!("({}){call}", t.c_name())
        } else {
            call
        };
    }
    let sfx = if t == Scalar::F32 { "f" } else { "" };
    if f == MathFn::Powi {
        return format!("gj_powi({}, {})", a[0], a[1]);
    }
    let name = cuda_math::c_float_name(f).unwrap_or("fabs");
    format!("{name}{sfx}({})", a.join(", "))
}
