//! The generator's rules: one kernel module (its `const` arrays, device
//! functions, the kernel and its launch) from a stream of choices.

use std::fmt::Write;

use crate::Choices;

/// One generated kernel: the text of a Rust module holding it and its
/// launch (`pub fn case() -> super::Case`), and the choices it came from.
pub struct Generated {
    /// The module's name (also the kernel's `Case::name`).
    pub name: String,
    /// `pub mod <name> { .. }`, for the runner's crate.
    pub source: String,
    /// The choices that generate it again ([`Choices::replay`]).
    pub choices: Vec<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    I32,
    U32,
    F32,
    I64,
    U64,
    Usize,
    F64,
    I8,
    I16,
    U8,
    U16,
    Bool,
}

/// The numeric types, simplest first.
const NUMERIC: [Ty; 11] = [
    Ty::I32,
    Ty::U32,
    Ty::F32,
    Ty::I64,
    Ty::U64,
    Ty::Usize,
    Ty::F64,
    Ty::I8,
    Ty::I16,
    Ty::U8,
    Ty::U16,
];
const INTS: [Ty; 9] = [
    Ty::I32,
    Ty::U32,
    Ty::I64,
    Ty::U64,
    Ty::Usize,
    Ty::I8,
    Ty::I16,
    Ty::U8,
    Ty::U16,
];
/// The types contended (order-independent) atomics take.
const ATOMIC_INTS: [Ty; 5] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::Usize];
/// The types a warp shuffle exchanges (and, but for the floats, whose NaN
/// payloads the backends may make differently, a match compares).
const WARP_VALUES: [Ty; 7] = [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::Usize, Ty::F32, Ty::F64];
/// The warp- and block-wide reductions and scans.
const COLLECTIVES: [&str; 10] = [
    "warp_reduce_sum",
    "warp_reduce_min",
    "warp_reduce_max",
    "warp_scan_inclusive_sum",
    "warp_scan_exclusive_sum",
    "block_reduce_sum",
    "block_reduce_min",
    "block_reduce_max",
    "block_scan_inclusive_sum",
    "block_scan_exclusive_sum",
];
/// The types of uncontended atomics.
const ATOMIC_ALL: [Ty; 7] = [Ty::I32, Ty::U32, Ty::F32, Ty::I64, Ty::U64, Ty::Usize, Ty::F64];

impl Ty {
    fn rs(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
            Ty::I64 => "i64",
            Ty::U64 => "u64",
            Ty::Usize => "usize",
            Ty::F64 => "f64",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::Bool => "bool",
        }
    }

    /// The `ScalarType` / `ScalarValue` variant.
    fn variant(self) -> &'static str {
        match self {
            Ty::I32 => "I32",
            Ty::U32 => "U32",
            Ty::F32 => "F32",
            Ty::I64 => "I64",
            Ty::U64 => "U64",
            Ty::Usize => "Usize",
            Ty::F64 => "F64",
            Ty::I8 => "I8",
            Ty::I16 => "I16",
            Ty::U8 => "U8",
            Ty::U16 => "U16",
            Ty::Bool => "Bool",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_int(self) -> bool {
        !self.is_float() && self != Ty::Bool
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64)
    }
}

/// What an array parameter is for (so that the kernel stays race-free).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Read anywhere.
    In,
    /// Written at `gid` only.
    Out,
    /// Contended, order-independent integer atomics only.
    Acc,
    /// Uncontended atomics at `gid` only.
    Own,
}

#[derive(Clone)]
struct Arr {
    name: String,
    ty: Ty,
    role: Role,
    /// 1 or 2.
    ndim: usize,
    shape: Vec<usize>,
}

#[derive(Clone)]
enum Kind {
    Scalar,
    /// A tuple local: its components' types.
    Tuple(Vec<Ty>),
    /// A local array of this length.
    Local(usize),
}

#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    uniform: bool,
    /// May be assigned (only with uniform values if `uniform`).
    mutable: bool,
    kind: Kind,
}

struct ConstArr {
    name: String,
    ty: Ty,
    len: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FnKind {
    /// Scalars in, a scalar out, maybe an early `return v;`.
    Pure,
    /// `(a: &[T], i: usize) -> T`.
    Array,
    /// `(n: u32, x: T) -> T`, recursing `n` deep.
    Recursive,
}

struct DevFn {
    name: String,
    kind: FnKind,
    params: Vec<Ty>,
    ret: Ty,
}

/// Where a statement is being generated.
#[derive(Clone, Copy)]
struct Ctx {
    /// Every thread of the block reaches this point together.
    uniform: bool,
    /// Inside a loop; `loop_uniform`: the innermost loop is uniform (so a
    /// `break`/`continue` in it must be uniform too).
    in_loop: bool,
    loop_uniform: bool,
    /// After the last barrier: divergent `return`s are allowed.
    tail: bool,
    /// In a `while` whose increment comes last: no `continue` (nor `break`).
    no_jump: bool,
    depth: u32,
}

struct Gen<'c> {
    c: &'c mut Choices,
    text: String,
    indent: usize,
    scopes: Vec<Vec<Var>>,
    next: usize,
    arrays: Vec<Arr>,
    scalars: Vec<(String, Ty)>,
    consts: Vec<ConstArr>,
    fns: Vec<DevFn>,
    shared: Option<Ty>,
    counter: bool,
    /// The contended atomic of `acc`.
    acc_op: Option<&'static str>,
    /// `(array, index)`: reads `array[index]` known in range here.
    safe: Vec<(String, String)>,
    /// The index each thread owns of 1-D outputs here: `gid`, or a
    /// grid-stride loop's variable.
    own: Vec<String>,
    /// 1, 2 or 3.
    dims: usize,
    /// It has a fault the host C may not see (a dead load past an end) or
    /// cannot survive (a division by zero).
    host_may_miss: bool,
    /// The float tolerance of the kernel's outputs (0 unless it calls a
    /// transcendental function).
    ulps: u64,
    /// Statements left to generate (keeps kernels small).
    budget: u32,
    /// Inside a device function: no arrays, thread indices or barriers.
    in_device: bool,
    one_d: bool,
}

const MAX_STMTS: u32 = 40;

/// Generates the kernel module `name` from `c`.
pub fn generate(name: &str, c: &mut Choices) -> Generated {
    let mut g = Gen {
        c,
        text: String::new(),
        indent: 0,
        scopes: vec![Vec::new()],
        next: 0,
        arrays: Vec::new(),
        scalars: Vec::new(),
        consts: Vec::new(),
        fns: Vec::new(),
        shared: None,
        counter: false,
        acc_op: None,
        safe: Vec::new(),
        own: vec!["gid".to_string()],
        dims: 1,
        host_may_miss: false,
        ulps: 0,
        budget: MAX_STMTS,
        in_device: false,
        one_d: true,
    };
    let source = g.module(name);
    Generated {
        name: name.to_string(),
        source,
        choices: g.c.recorded().to_vec(),
    }
}

impl Gen<'_> {
    /// The kernel's arrays that `keep` picks (copies: the generator then
    /// appends to the kernel while it walks them).
    fn arrays_where(&self, keep: impl Fn(&Arr) -> bool) -> Vec<Arr> {
        self.arrays.iter().filter(|a| keep(a)).cloned().collect()
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.c.below(items.len() as u64) as usize]
    }

    fn declare(&mut self, v: Var) {
        self.scopes.last_mut().expect("a scope").push(v);
    }

    fn vars(&self) -> impl Iterator<Item = &Var> {
        self.scopes.iter().flatten()
    }

    // ------------------------------------------------------------ the module

    fn module(&mut self, name: &str) -> String {
        // Launch shape: 1-D, 2-D or 3-D, blocks of at most 256 threads.
        let dims = 1 + self.c.below(3) as usize;
        self.one_d = dims == 1;
        self.dims = dims;
        let (grid, block) = match dims {
            1 => {
                let b = self.pick(&[32u32, 1, 7, 31, 33, 64, 100, 128, 255, 256]);
                let g = self.pick(&[1u32, 2, 3, 5]);
                ((g, 1, 1), (b, 1, 1))
            }
            2 => {
                let bx = self.pick(&[8u32, 1, 3, 16, 17]);
                let by = self.pick(&[2u32, 1, 5, 8]);
                let gx = 1 + self.c.below(3) as u32;
                let gy = 1 + self.c.below(3) as u32;
                ((gx, gy, 1), (bx, by, 1))
            }
            _ => {
                let b = (
                    1 + self.c.below(4) as u32,
                    1 + self.c.below(4) as u32,
                    1 + self.c.below(4) as u32,
                );
                let g = (
                    1 + self.c.below(2) as u32,
                    1 + self.c.below(2) as u32,
                    1 + self.c.below(2) as u32,
                );
                (g, b)
            }
        };
        let nthr = (block.0 * block.1 * block.2) as usize;
        let total = nthr * (grid.0 * grid.1 * grid.2) as usize;

        // Parameters.
        let mut args = Vec::new();
        let n_in = 1 + self.c.below(3);
        for k in 0..n_in {
            let ty = self.pick(&NUMERIC_AND_BOOL);
            let two_d = self.c.chance(20);
            let shape = if two_d {
                vec![1 + self.c.below(9) as usize, 1 + self.c.below(9) as usize]
            } else {
                vec![1 + self.c.below(total as u64 + 20) as usize]
            };
            self.arrays.push(Arr {
                name: format!("in{k}"),
                ty,
                role: Role::In,
                ndim: shape.len(),
                shape,
            });
        }
        let n_scalars = self.c.below(3);
        for k in 0..n_scalars {
            let ty = self.pick(&NUMERIC_AND_BOOL);
            let value = self.scalar_value(ty);
            self.scalars.push((format!("s{k}"), ty));
            args.push((format!("s{k}"), value));
        }
        let n_out = 1 + self.c.below(3);
        for k in 0..n_out {
            let ty = self.pick(&NUMERIC_AND_BOOL);
            // In a 2-D launch, an output may be 2-D, written at `grid(2)`.
            let shape = if dims == 2 && self.c.chance(40) {
                let rows = (grid.1 * block.1) as usize;
                let cols = (grid.0 * block.0) as usize;
                vec![
                    (rows + 2).saturating_sub(self.c.below(4) as usize).max(1),
                    (cols + 2).saturating_sub(self.c.below(4) as usize).max(1),
                ]
            } else {
                vec![total.saturating_sub(self.c.below(nthr as u64) as usize).max(1)]
            };
            self.arrays.push(Arr {
                name: format!("out{k}"),
                ty,
                role: Role::Out,
                ndim: shape.len(),
                shape,
            });
        }
        if self.c.chance(40) {
            let ty = self.pick(&ATOMIC_INTS);
            let len = 1 + self.c.below(4) as usize;
            self.arrays.push(Arr {
                name: "acc".into(),
                ty,
                role: Role::Acc,
                ndim: 1,
                shape: vec![len],
            });
            self.acc_op = Some(self.pick(&["add", "sub", "min", "max", "and", "or", "xor"]));
        }
        if self.c.chance(40) {
            let ty = self.pick(&ATOMIC_ALL);
            let len = total.saturating_sub(self.c.below(nthr as u64) as usize).max(1);
            self.arrays.push(Arr {
                name: "own".into(),
                ty,
                role: Role::Own,
                ndim: 1,
                shape: vec![len],
            });
        }
        if self.c.chance(50) {
            self.shared = Some(self.pick(&NUMERIC_AND_BOOL));
        }
        self.counter = self.c.chance(30);

        // Module constants and device functions, before the kernel.
        let mut head = String::new();
        let n_consts = self.c.below(3);
        for k in 0..n_consts {
            let ty = self.pick(&NUMERIC_AND_BOOL);
            let len = 1 + self.c.below(6) as usize;
            let values: Vec<String> = (0..len).map(|_| self.lit(ty)).collect();
            let name = format!("C{k}");
            let _ = writeln!(
                head,
                "    const {name}: [{}; {len}] = [{}];",
                ty.rs(),
                values.join(", ")
            );
            self.consts.push(ConstArr { name, ty, len });
        }
        let n_fns = self.c.below(4);
        for k in 0..n_fns {
            let kind = self.pick(&[FnKind::Pure, FnKind::Array, FnKind::Recursive]);
            let f = self.device_fn(format!("d{k}"), kind);
            head.push_str(&f);
        }

        // The kernel.
        self.text.clear();
        self.indent = 1;
        let mut params = Vec::new();
        for a in &self.arrays {
            let t = a.ty.rs();
            params.push(match (a.role, a.ndim) {
                (Role::In, 1) => format!("{}: &[{t}]", a.name),
                (Role::In, _) => format!("{}: ArrayView2<{t}>", a.name),
                (_, 1) => format!("{}: &mut [{t}]", a.name),
                _ => format!("{}: ArrayViewMut2<{t}>", a.name),
            });
        }
        for (n, ty) in &self.scalars {
            params.push(format!("{n}: {}", ty.rs()));
        }
        self.line("#[gpu_kernel]");
        self.line(&format!("pub fn {name}({}) {{", params.join(", ")));
        self.indent += 1;
        self.prologue();
        let ctx = Ctx {
            uniform: true,
            in_loop: false,
            loop_uniform: false,
            tail: false,
            no_jump: false,
            depth: 0,
        };
        let n = self.c.below(12);
        for _ in 0..n {
            self.stmt(ctx);
        }
        let tail = Ctx { tail: true, ..ctx };
        let n = self.c.below(4);
        for _ in 0..n {
            self.stmt(tail);
        }
        let outs: Vec<Arr> = self.arrays_where(|a| a.role == Role::Out);
        for o in outs {
            self.store_to(&o);
        }
        self.indent -= 1;
        self.line("}");
        let kernel = std::mem::take(&mut self.text);

        // The launch.
        let mut case_args = Vec::new();
        for a in &self.arrays {
            let seed = self.c.below(1 << 32);
            case_args.push(format!(
                "super::ArgSpec::Array {{ elem: gpujit::ScalarType::{}, shape: vec!{:?}, seed: {seed} }}",
                a.ty.variant(),
                a.shape
            ));
        }
        for (_, value) in args {
            case_args.push(format!("super::ArgSpec::Scalar({value})"));
        }
        let mut m = String::new();
        let _ = writeln!(
            m,
            "#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]"
        );
        let _ = writeln!(m, "pub mod {name} {{");
        let _ = writeln!(m, "    use gpujit::prelude::*;");
        m.push_str(&head);
        m.push_str(&kernel);
        let _ = writeln!(m, "    pub fn case() -> super::Case {{");
        let _ = writeln!(
            m,
            "        super::Case {{ name: \"{name}\", kernel: &{name}::KERNEL, grid: {grid:?}, block: {block:?}, ulps: {}, faults_on_double: {}, args: vec![{}] }}",
            self.ulps,
            !self.host_may_miss,
            case_args.join(", ")
        );
        let _ = writeln!(m, "    }}");
        let _ = writeln!(m, "}}");
        m
    }

    /// The thread's coordinates, in one of two spellings.
    fn prologue(&mut self) {
        if self.one_d && self.c.chance(50) {
            self.line("let tid = thread_idx().x;");
            self.line("let nthr = block_dim().x;");
            self.line("let bid = block_idx().x;");
            self.line("let gid = grid(1);");
        } else {
            self.line("let tid = thread_idx().x + thread_idx().y * block_dim().x + thread_idx().z * (block_dim().x * block_dim().y);");
            self.line("let nthr = block_dim().x * block_dim().y * block_dim().z;");
            self.line("let bid = block_idx().x + block_idx().y * grid_dim().x + block_idx().z * (grid_dim().x * grid_dim().y);");
            self.line("let gid = bid * nthr + tid;");
        }
        if self.dims == 2 {
            self.line("let (gx, gy) = grid(2);");
        }
        if let Some(t) = self.shared {
            self.line(&format!("let sh = shared_array::<[{}; 256]>();", t.rs()));
        }
        if self.counter {
            self.line("let cnt = shared_array::<[u32; 1]>();");
        }
    }

    fn device_fn(&mut self, name: String, kind: FnKind) -> String {
        let saved_text = std::mem::take(&mut self.text);
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
        let saved_indent = self.indent;
        self.indent = 1;
        self.in_device = true;
        let ret = self.pick(&NUMERIC);
        let params: Vec<Ty> = match kind {
            FnKind::Pure => (0..1 + self.c.below(3)).map(|_| self.pick(&NUMERIC_AND_BOOL)).collect(),
            FnKind::Array => vec![ret, Ty::Usize],
            FnKind::Recursive => vec![Ty::U32, ret],
        };
        let ctx = Ctx {
            uniform: false,
            in_loop: false,
            loop_uniform: false,
            tail: true,
            no_jump: false,
            depth: 0,
        };
        self.line("#[gpu_device]");
        match kind {
            FnKind::Pure => {
                let ps: Vec<String> = params
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("p{i}: {}", t.rs()))
                    .collect();
                self.line(&format!("fn {name}({}) -> {} {{", ps.join(", "), ret.rs()));
                self.indent += 1;
                for (i, t) in params.iter().enumerate() {
                    self.declare(scalar_var(format!("p{i}"), *t, false));
                }
                let n = self.c.below(4);
                for _ in 0..n {
                    self.device_stmt(ctx, ret);
                }
                let (e, _) = self.expr(ret, 3, false);
                self.line(&e);
            }
            FnKind::Array => {
                self.line(&format!("fn {name}(a: &[{0}], i: usize) -> {0} {{", ret.rs()));
                self.indent += 1;
                self.declare(scalar_var("i".into(), Ty::Usize, false));
                self.declare(scalar_var("x".into(), ret, false));
                self.line("let x = a[i % a.len()];");
                let (e, _) = self.expr(ret, 2, false);
                self.line(&e);
            }
            FnKind::Recursive => {
                self.line(&format!("fn {name}(n: u32, x: {0}) -> {0} {{", ret.rs()));
                self.indent += 1;
                self.declare(scalar_var("n".into(), Ty::U32, false));
                self.declare(scalar_var("x".into(), ret, false));
                let (y, _) = self.expr(ret, 2, false);
                if self.c.chance(50) {
                    self.line(&format!("if n == 0 {{ x }} else {{ {name}(n - 1, {y}) }}"));
                } else {
                    self.line("if n == 0 {");
                    self.line("    return x;");
                    self.line("}");
                    self.line(&format!("{name}(n - 1, {y})"));
                }
            }
        }
        self.indent -= 1;
        self.line("}");
        self.in_device = false;
        self.indent = saved_indent;
        self.scopes = saved_scopes;
        // Registered after its body: a pure function does not call itself.
        self.fns.push(DevFn {
            name,
            kind,
            params,
            ret,
        });
        std::mem::replace(&mut self.text, saved_text)
    }

    /// A statement of a pure device function: a `let`, or an early return.
    fn device_stmt(&mut self, ctx: Ctx, ret: Ty) {
        if self.c.chance(40) {
            let (c, _) = self.expr(Ty::Bool, 2, false);
            let (e, _) = self.expr(ret, 2, false);
            self.line(&format!("if {c} {{"));
            self.line(&format!("    return {e};"));
            self.line("}");
        } else {
            self.let_stmt(ctx, false);
        }
    }

    // ------------------------------------------------------------ statements

    fn block(&mut self, ctx: Ctx, max: u64) {
        self.indent += 1;
        self.scopes.push(Vec::new());
        let n = self.c.below(max + 1);
        for _ in 0..n {
            self.stmt(ctx);
        }
        self.scopes.pop();
        self.indent -= 1;
    }

    fn stmt(&mut self, ctx: Ctx) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let nested = ctx.depth < 3;
        let barriers = ctx.uniform && !ctx.tail;
        let kind = self.c.below(STMT_KINDS);
        match kind {
            0 => self.let_stmt(ctx, false),
            1 => self.let_stmt(ctx, true),
            2 => self.assign(ctx),
            3 => self.store(ctx),
            4 if nested => self.if_stmt(ctx),
            5 if nested => self.for_stmt(ctx),
            6 if nested => self.while_stmt(ctx, false),
            7 if nested => self.while_stmt(ctx, true),
            8 => self.local_array(ctx),
            9 => self.tuple(ctx),
            10 => self.atomic(ctx),
            11 if barriers && self.shared.is_some() => self.exchange(ctx),
            12 if barriers => self.vote(),
            13 if barriers && self.counter => self.count(),
            14 if barriers => self.line("syncthreads();"),
            15 if ctx.uniform && !ctx.in_loop => self.uniform_return(),
            16 if ctx.in_loop && !ctx.no_jump && (ctx.uniform || !ctx.loop_uniform) => self.jump(ctx),
            17 if ctx.tail => {
                let (c, _) = self.expr(Ty::Bool, 2, false);
                self.line(&format!("if {c} {{ return; }}"));
            }
            18 if self.c.chance(30) => self.fault(),
            19 => self.math_store(),
            20 if nested => self.guarded(ctx),
            21 if nested => self.grid_stride(ctx),
            22 if barriers => self.warp_op(),
            _ => self.let_stmt(ctx, false),
        }
    }

    fn let_stmt(&mut self, ctx: Ctx, mutable: bool) {
        let ty = self.pick(&NUMERIC_AND_BOOL);
        let name = self.fresh("v");
        let want_uniform = ctx.uniform && self.c.chance(30);
        let (e, u) = match self.c.below(6) {
            // A value `if` or `match`, where the language allows them.
            4 if !want_uniform => {
                let (c, _) = self.expr(Ty::Bool, 2, false);
                let (a, _) = self.expr(ty, 2, false);
                let (b, _) = self.expr(ty, 2, false);
                (format!("if {c} {{ {a} }} else {{ {b} }}"), false)
            }
            5 if !want_uniform => {
                let st = self.pick(&INTS);
                let (s, _) = self.expr(st, 2, false);
                let arms: Vec<String> = (0..4).map(|_| self.expr(ty, 1, false).0).collect();
                (
                    format!(
                        "match {s} {{ 0 => {}, 1 | 2 => {}, 3..=9 => {}, _ => {} }}",
                        arms[0], arms[1], arms[2], arms[3]
                    ),
                    false,
                )
            }
            _ => self.expr(ty, 3, want_uniform),
        };
        let uniform = u && ctx.uniform;
        let kw = if mutable { "let mut" } else { "let" };
        self.line(&format!("{kw} {name}: {} = {e};", ty.rs()));
        self.declare(Var {
            name,
            ty,
            uniform,
            mutable,
            kind: Kind::Scalar,
        });
    }

    fn assign(&mut self, ctx: Ctx) {
        // A uniform variable only takes uniform values, where all threads are.
        let targets: Vec<Var> = self
            .vars()
            .filter(|v| v.mutable && matches!(v.kind, Kind::Scalar) && (!v.uniform || ctx.uniform))
            .cloned()
            .collect();
        if targets.is_empty() {
            return self.let_stmt(ctx, true);
        }
        let v = targets[self.c.below(targets.len() as u64) as usize].clone();
        let (e, _) = self.expr(v.ty, 2, v.uniform);
        let op = if v.ty == Ty::Bool {
            "="
        } else {
            self.pick(&["=", "+=", "-=", "*=", "/="])
        };
        if op == "/=" && v.ty.is_int() {
            self.line(&format!("{} /= ({e}) | 1;", v.name));
        } else {
            self.line(&format!("{} {op} {e};", v.name));
        }
    }

    fn store(&mut self, _ctx: Ctx) {
        let outs: Vec<Arr> = self.arrays_where(|a| a.role == Role::Out);
        let o = outs[self.c.below(outs.len() as u64) as usize].clone();
        self.store_to(&o);
    }

    /// `o[index] = e` at an index this thread owns, guarded.
    fn store_to(&mut self, o: &Arr) {
        let (e, _) = self.expr(o.ty, 2, false);
        if o.ndim == 2 {
            self.line(&format!(
                "if gy < {0}.shape()[0] && gx < {0}.shape()[1] {{ {0}[[gy, gx]] = {e}; }}",
                o.name
            ));
            return;
        }
        let own = self.own.clone();
        let i = own[self.c.below(own.len() as u64) as usize].clone();
        self.line(&format!("if {i} < {0}.len() {{ {0}[{i}] = {e}; }}", o.name));
    }

    /// `if gid < a.len() { .. }`: `a[gid]` is read unchecked inside (the
    /// shape the CPU backend's spans recognise).
    fn guarded(&mut self, ctx: Ctx) {
        let ins: Vec<String> = self
            .arrays_where(|a| a.role == Role::In && a.ndim == 1)
            .into_iter()
            .map(|a| a.name)
            .collect();
        if ins.is_empty() || self.in_device {
            return;
        }
        let a = ins[self.c.below(ins.len() as u64) as usize].clone();
        self.line(&format!("if gid < {a}.len() {{"));
        self.safe.push((a, "gid".into()));
        let inner = Ctx {
            uniform: false,
            depth: ctx.depth + 1,
            ..ctx
        };
        self.block(inner, 4);
        self.safe.pop();
        self.line("}");
    }

    /// A grid-stride loop over an input, as a `for .. step_by` or a `while`:
    /// its variable indexes the input unchecked and the outputs it owns.
    fn grid_stride(&mut self, ctx: Ctx) {
        let ins: Vec<String> = self
            .arrays_where(|a| a.role == Role::In && a.ndim == 1)
            .into_iter()
            .map(|a| a.name)
            .collect();
        if ins.is_empty() || self.in_device {
            return;
        }
        let a = ins[self.c.below(ins.len() as u64) as usize].clone();
        let stride = if self.one_d && self.c.chance(50) {
            "gridsize(1)".to_string()
        } else {
            "nthr * (grid_dim().x * grid_dim().y * grid_dim().z)".to_string()
        };
        let i = self.fresh("i");
        let as_while = self.c.chance(50);
        if as_while {
            self.line(&format!("let mut {i} = gid;"));
            self.line(&format!("while {i} < {a}.len() {{"));
        } else {
            self.line(&format!("for {i} in (gid..{a}.len()).step_by({stride}) {{"));
        }
        self.safe.push((a, i.clone()));
        self.own.push(i.clone());
        self.scopes.push(vec![scalar_var(i.clone(), Ty::Usize, false)]);
        let inner = Ctx {
            uniform: false,
            in_loop: true,
            loop_uniform: false,
            no_jump: as_while,
            depth: ctx.depth + 1,
            ..ctx
        };
        self.block(inner, 4);
        self.scopes.pop();
        self.own.pop();
        self.safe.pop();
        if as_while {
            self.line(&format!("    {i} += {stride};"));
        }
        self.line("}");
    }

    fn if_stmt(&mut self, ctx: Ctx) {
        let want_uniform = ctx.uniform && self.c.chance(40);
        let (c, u) = self.expr(Ty::Bool, 2, want_uniform);
        let inner = Ctx {
            uniform: ctx.uniform && u,
            depth: ctx.depth + 1,
            ..ctx
        };
        self.line(&format!("if {c} {{"));
        self.block(inner, 4);
        if self.c.chance(40) {
            self.line("} else {");
            self.block(inner, 3);
        }
        self.line("}");
    }

    /// A loop bound: a literal, or a small value computed by the thread.
    fn bound(&mut self, ty: Ty, uniform: bool) -> (String, bool) {
        if self.c.chance(50) {
            let (e, u) = self.expr(ty, 1, uniform);
            (format!("(({e}) % 5{})", ty.rs()), u)
        } else {
            (format!("{}{}", self.c.below(6), ty.rs()), true)
        }
    }

    fn for_stmt(&mut self, ctx: Ctx) {
        let want_uniform = ctx.uniform && self.c.chance(60);
        let ty = self.pick(&[Ty::Usize, Ty::I32, Ty::U32, Ty::I64]);
        let (lo, u1) = self.bound(ty, want_uniform);
        let (hi, u2) = self.bound(ty, want_uniform);
        let range = match self.c.below(5) {
            0 => format!("{lo}..{hi}"),
            1 => format!("{lo}..={hi}"),
            2 => format!("({lo}..{hi}).rev()"),
            3 => format!("({lo}..{hi}).step_by({})", 1 + self.c.below(3)),
            _ => format!("({lo}..={hi}).rev().step_by({})", 1 + self.c.below(3)),
        };
        let u = ctx.uniform && u1 && u2;
        let k = self.fresh("k");
        self.line(&format!("for {k} in {range} {{"));
        self.scopes.push(vec![scalar_var(k, ty, u)]);
        let inner = Ctx {
            uniform: u,
            in_loop: true,
            loop_uniform: u,
            no_jump: false,
            depth: ctx.depth + 1,
            ..ctx
        };
        self.block(inner, 4);
        self.scopes.pop();
        self.line("}");
    }

    /// `while w < n { w += 1; .. }`, or the same as a `loop` with a `break`.
    fn while_stmt(&mut self, ctx: Ctx, as_loop: bool) {
        let want_uniform = ctx.uniform && self.c.chance(60);
        let (n, u) = self.bound(Ty::U32, want_uniform);
        let u = u && ctx.uniform;
        let w = self.fresh("w");
        self.line(&format!("let mut {w}: u32 = 0;"));
        if as_loop {
            self.line("loop {");
            self.line(&format!("    if {w} >= {n} {{ break; }}"));
        } else {
            self.line(&format!("while {w} < {n} {{"));
        }
        self.line(&format!("    {w} += 1;"));
        // Read-only for the body: its increment comes first, so a
        // `continue` cannot skip it.
        self.scopes.push(vec![scalar_var(w, Ty::U32, u)]);
        let inner = Ctx {
            uniform: u,
            in_loop: true,
            loop_uniform: u,
            no_jump: false,
            depth: ctx.depth + 1,
            ..ctx
        };
        self.block(inner, 4);
        self.scopes.pop();
        self.line("}");
    }

    fn jump(&mut self, ctx: Ctx) {
        let (c, _) = self.expr(Ty::Bool, 2, ctx.loop_uniform);
        let j = self.pick(&["break", "continue"]);
        self.line(&format!("if {c} {{ {j}; }}"));
    }

    fn uniform_return(&mut self) {
        let (c, _) = self.expr(Ty::Bool, 2, true);
        self.line(&format!("if {c} {{ return; }}"));
    }

    fn local_array(&mut self, _ctx: Ctx) {
        let ty = self.pick(&NUMERIC_AND_BOOL);
        let len = 1 + self.c.below(8) as usize;
        let name = self.fresh("la");
        let init = self.lit(ty);
        self.line(&format!("let mut {name} = [{init}; {len}];"));
        let n = 1 + self.c.below(3);
        for _ in 0..n {
            let (i, _) = self.expr(Ty::Usize, 1, false);
            let (e, _) = self.expr(ty, 2, false);
            self.line(&format!("{name}[({i}) % {len}] = {e};"));
        }
        self.declare(Var {
            name,
            ty,
            uniform: false,
            mutable: false,
            kind: Kind::Local(len),
        });
    }

    fn tuple(&mut self, _ctx: Ctx) {
        let n = 2 + self.c.below(3) as usize;
        let tys: Vec<Ty> = (0..n).map(|_| self.pick(&NUMERIC_AND_BOOL)).collect();
        let es: Vec<String> = tys.iter().map(|t| self.expr(*t, 2, false).0).collect();
        if self.c.chance(50) {
            let names: Vec<String> = (0..n).map(|_| self.fresh("v")).collect();
            self.line(&format!("let ({}) = ({});", names.join(", "), es.join(", ")));
            for (name, ty) in names.into_iter().zip(tys) {
                self.declare(scalar_var(name, ty, false));
            }
        } else {
            let name = self.fresh("tp");
            self.line(&format!("let {name} = ({});", es.join(", ")));
            self.declare(Var {
                name,
                ty: Ty::Bool,
                uniform: false,
                mutable: false,
                kind: Kind::Tuple(tys),
            });
        }
    }

    fn atomic(&mut self, _ctx: Ctx) {
        let targets: Vec<Arr> = self.arrays_where(|a| matches!(a.role, Role::Acc | Role::Own));
        if targets.is_empty() {
            return self.store(_ctx);
        }
        let a = targets[self.c.below(targets.len() as u64) as usize].clone();
        let (v, _) = self.expr(a.ty, 2, false);
        if a.role == Role::Acc {
            // One operation per kernel: different ones on an element would
            // make its value depend on the threads' order.
            let op = self.acc_op.expect("an op with the array");
            let (i, _) = self.expr(Ty::Usize, 1, false);
            self.line(&format!("atomic_{op}(&mut acc[({i}) % acc.len()], {v});"));
            return;
        }
        let mut ops = vec!["add", "sub", "min", "max", "exch"];
        if a.ty.is_float() {
            ops.extend(["nanmin", "nanmax"]);
        } else {
            ops.extend(["and", "or", "xor", "cas"]);
        }
        if a.ty == Ty::U32 {
            ops.extend(["inc", "dec"]);
        }
        let op = ops[self.c.below(ops.len() as u64) as usize];
        let name = self.fresh("o");
        let init = self.lit(a.ty);
        self.line(&format!("let mut {name}: {} = {init};", a.ty.rs()));
        let call = if op == "cas" {
            let (cmp, _) = self.expr(a.ty, 1, false);
            format!("atomic_cas(&mut own[gid], {cmp}, {v})")
        } else {
            format!("atomic_{op}(&mut own[gid], {v})")
        };
        self.line(&format!("if gid < own.len() {{ {name} = {call}; }}"));
        self.declare(scalar_var(name, a.ty, false));
    }

    /// Each thread writes its shared slot; after a barrier, reads another's.
    fn exchange(&mut self, _ctx: Ctx) {
        let t = self.shared.expect("a shared array");
        let (e, _) = self.expr(t, 2, false);
        let (k, _) = self.expr(Ty::Usize, 1, false);
        let name = self.fresh("v");
        self.line("syncthreads();");
        self.line(&format!("sh[tid] = {e};"));
        self.line("syncthreads();");
        self.line(&format!("let {name} = sh[(tid + ({k}) % nthr) % nthr];"));
        self.declare(scalar_var(name, t, false));
    }

    fn vote(&mut self) {
        let (p, _) = self.expr(Ty::Bool, 2, false);
        let name = self.fresh("v");
        match self.c.below(3) {
            0 => {
                self.line(&format!("let {name} = syncthreads_count({p});"));
                self.declare(scalar_var(name, Ty::U32, true));
            }
            1 => {
                self.line(&format!("let {name} = syncthreads_and({p});"));
                self.declare(scalar_var(name, Ty::Bool, true));
            }
            _ => {
                self.line(&format!("let {name} = syncthreads_or({p});"));
                self.declare(scalar_var(name, Ty::Bool, true));
            }
        }
    }

    /// A warp intrinsic with the whole warp's mask where every thread of the
    /// block is live (block-uniform control flow): only those a partial
    /// last warp cannot break (votes, `shfl_up_sync`, `shfl_sync` from lane
    /// 0, integer matches, `syncwarp`, `activemask`); `shfl_down_sync` and
    /// `shfl_xor_sync` would read its missing lanes.
    fn warp_op(&mut self) {
        const FULL: &str = "0xffff_ffff";
        let name = self.fresh("w");
        match self.c.below(8) {
            0 => {
                let (p, _) = self.expr(Ty::Bool, 2, false);
                self.line(&format!("let {name} = ballot_sync({FULL}, {p});"));
                self.declare(scalar_var(name, Ty::U32, false));
            }
            1 => {
                let (p, _) = self.expr(Ty::Bool, 2, false);
                let vote = self.pick(&["all_sync", "any_sync", "eq_sync"]);
                self.line(&format!("let {name} = {vote}({FULL}, {p});"));
                self.declare(scalar_var(name, Ty::Bool, false));
            }
            2 => {
                let ty = self.pick(&WARP_VALUES);
                let (v, _) = self.expr(ty, 2, false);
                let (d, _) = self.expr(Ty::U32, 1, false);
                self.line(&format!("let {name}: {} = shfl_up_sync({FULL}, {v}, {d});", ty.rs()));
                self.declare(scalar_var(name, ty, false));
            }
            3 => {
                let ty = self.pick(&WARP_VALUES);
                let (v, _) = self.expr(ty, 2, false);
                self.line(&format!("let {name}: {} = shfl_sync({FULL}, {v}, 0);", ty.rs()));
                self.declare(scalar_var(name, ty, false));
            }
            4 => {
                let ty = self.pick(&WARP_VALUES[..5]);
                let (v, _) = self.expr(ty, 2, false);
                self.line(&format!("let {name} = match_any_sync({FULL}, {v} as {});", ty.rs()));
                self.declare(scalar_var(name, Ty::U32, false));
            }
            5 => {
                let ty = self.pick(&WARP_VALUES[..5]);
                let (v, _) = self.expr(ty, 2, false);
                let all = self.fresh("w");
                self.line(&format!(
                    "let ({name}, {all}) = match_all_sync({FULL}, {v} as {});",
                    ty.rs()
                ));
                self.declare(scalar_var(name, Ty::U32, false));
                self.declare(scalar_var(all, Ty::Bool, false));
            }
            6 => {
                // A warp or block collective (its barriers are legal here:
                // the flow is block-uniform); the cast makes the value's
                // type known at the call, as the collectives need.
                let ty = self.pick(&WARP_VALUES);
                let (v, _) = self.expr(ty, 2, false);
                let f = self.pick(&COLLECTIVES);
                self.line(&format!("let {name}: {t} = {f}(({v}) as {t});", t = ty.rs()));
                self.declare(scalar_var(name, ty, false));
            }
            _ => {
                self.line(&format!("syncwarp({FULL});"));
                self.line(&format!("let {name} = activemask();"));
                self.declare(scalar_var(name, Ty::U32, false));
            }
        }
    }

    /// A block-wide sum through a shared atomic; every thread reads it.
    fn count(&mut self) {
        let (e, _) = self.expr(Ty::U32, 2, false);
        let name = self.fresh("v");
        self.line("syncthreads();");
        self.line("if tid == 0 { cnt[0] = 0; }");
        self.line("syncthreads();");
        self.line(&format!("atomic_add(&mut cnt[0], {e});"));
        self.line("syncthreads();");
        self.line(&format!("let {name} = cnt[0];"));
        self.declare(scalar_var(name, Ty::U32, true));
    }

    /// A transcendental function of an exact value, stored straight into a
    /// float output: the kernel's floats are then compared within
    /// [`MATH_ULPS`] (the platforms' math libraries differ by that much), and
    /// the inexact value flows into nothing else, which could amplify it.
    fn math_store(&mut self) {
        let outs: Vec<Arr> = self.arrays_where(|a| a.role == Role::Out && a.ndim == 1 && a.ty.is_float());
        if outs.is_empty() {
            return;
        }
        let o = outs[self.c.below(outs.len() as u64) as usize].clone();
        let (x, _) = self.expr(o.ty, 2, false);
        let call = if self.c.chance(25) {
            let f = self.pick(&["hypot", "powf", "atan2"]);
            let (y, _) = self.expr(o.ty, 1, false);
            format!("({x}).{f}({y})")
        } else {
            let f = self.pick(&[
                "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "sin", "cos", "tan", "asin", "acos", "atan",
                "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt",
            ]);
            format!("({x}).{f}()")
        };
        self.ulps = MATH_ULPS;
        self.line(&format!("if gid < {0}.len() {{ {0}[gid] = {call}; }}", o.name));
    }

    /// A statement that may fault on the CPU backend: an integer division by
    /// an input element (maybe 0), a read past an input's end, or a store at
    /// `gid` into an output shorter than the grid, unguarded. Only the last
    /// is a fault the driver double must report too: its store is never
    /// dead, where a compiler may drop a load whose value is not used, and
    /// the host traps (SIGFPE) on a division by zero.
    fn fault(&mut self) {
        let ins: Vec<Arr> = self.arrays_where(|a| a.role == Role::In && a.ndim == 1);
        let outs: Vec<Arr> = self.arrays_where(|a| a.role == Role::Out && a.ndim == 1);
        match self.c.below(3) {
            0 if !outs.is_empty() => {
                let o = outs[self.c.below(outs.len() as u64) as usize].clone();
                let (e, _) = self.expr(o.ty, 1, false);
                self.line(&format!("{}[gid] = {e};", o.name));
            }
            1 if !ins.is_empty() => {
                let a = ins[self.c.below(ins.len() as u64) as usize].clone();
                let name = self.fresh("v");
                let off = self.c.below(8);
                self.line(&format!("let {name} = {}[gid + {off}];", a.name));
                self.declare(scalar_var(name, a.ty, false));
                self.host_may_miss = true;
            }
            _ => {
                let Some(a) = ins.iter().find(|a| a.ty.is_int()).cloned() else {
                    return;
                };
                let name = self.fresh("v");
                let (x, _) = self.expr(a.ty, 1, false);
                self.line(&format!("let {name} = {x} / {}[gid % {0}.len()];", a.name));
                self.declare(scalar_var(name, a.ty, false));
                self.host_may_miss = true;
            }
        }
    }

    // ------------------------------------------------------------ expressions

    /// An expression of type `ty`, and whether it is block-uniform; with
    /// `uniform`, it must be.
    fn expr(&mut self, ty: Ty, depth: u32, uniform: bool) -> (String, bool) {
        if depth == 0 || self.c.chance(35) {
            return self.leaf(ty, uniform);
        }
        let d = depth - 1;
        match self.c.below(6) {
            0 => self.leaf(ty, uniform),
            1 => self.binary(ty, d, uniform),
            2 => self.unary(ty, d, uniform),
            3 => self.method(ty, d, uniform),
            4 => self.call(ty, d, uniform),
            _ => {
                // A cast from another type (to a float: not from `bool`).
                let from = self.pick(&NUMERIC_AND_BOOL);
                if ty == Ty::Bool || (from == Ty::Bool && ty.is_float()) || from == ty {
                    return self.binary(ty, d, uniform);
                }
                let (e, u) = self.expr(from, d, uniform);
                (format!("({e} as {})", ty.rs()), u)
            }
        }
    }

    fn binary(&mut self, ty: Ty, d: u32, uniform: bool) -> (String, bool) {
        if ty == Ty::Bool {
            return match self.c.below(3) {
                0 => {
                    let t = self.pick(&NUMERIC_AND_BOOL);
                    let ops: &[&str] = if t == Ty::Bool {
                        &["==", "!="]
                    } else {
                        &["<", "==", "!=", "<=", ">", ">="]
                    };
                    let op = self.pick(ops);
                    let (a, ua) = self.expr(t, d, uniform);
                    let (b, ub) = self.expr(t, d, uniform);
                    (format!("({a} {op} {b})"), ua && ub)
                }
                1 => {
                    let op = self.pick(&["&&", "||"]);
                    let (a, ua) = self.expr(Ty::Bool, d, uniform);
                    let (b, ub) = self.expr(Ty::Bool, d, uniform);
                    (format!("({a} {op} {b})"), ua && ub)
                }
                _ => {
                    let t = self.pick(&[Ty::F32, Ty::F64]);
                    let (a, u) = self.expr(t, d, uniform);
                    let m = self.pick(&["is_nan", "is_infinite", "is_finite"]);
                    (format!("({a}).{m}()"), u)
                }
            };
        }
        let (a, ua) = self.expr(ty, d, uniform);
        let (b, ub) = self.expr(ty, d, uniform);
        let u = ua && ub;
        if ty.is_float() {
            let op = self.pick(&["+", "-", "*", "/", "%"]);
            return (format!("({a} {op} {b})"), u);
        }
        match self.c.below(4) {
            0 => {
                let op = self.pick(&["+", "-", "*"]);
                (format!("({a} {op} {b})"), u)
            }
            1 => {
                let op = self.pick(&["&", "|", "^"]);
                (format!("({a} {op} {b})"), u)
            }
            2 => {
                let op = self.pick(&["/", "%"]);
                (format!("({a} {op} ({b} | 1))"), u)
            }
            _ => {
                let op = self.pick(&["<<", ">>"]);
                (format!("({a} {op} ({b} as u32))"), u)
            }
        }
    }

    fn unary(&mut self, ty: Ty, d: u32, uniform: bool) -> (String, bool) {
        let (a, u) = self.expr(ty, d, uniform);
        if (ty.is_float() || ty.is_signed()) && self.c.chance(50) {
            return (format!("(-{a})"), u);
        }
        if ty.is_float() {
            return (format!("({a}).abs()"), u);
        }
        (format!("(!{a})"), u)
    }

    fn method(&mut self, ty: Ty, d: u32, uniform: bool) -> (String, bool) {
        if ty == Ty::Bool {
            return self.binary(ty, d, uniform);
        }
        let (a, ua) = self.expr(ty, d, uniform);
        if ty.is_float() {
            return match self.c.below(4) {
                0 => {
                    let m = self.pick(&[
                        "sqrt", "floor", "ceil", "trunc", "round", "fract", "signum", "recip", "abs",
                    ]);
                    (format!("({a}).{m}()"), ua)
                }
                1 => {
                    let m = self.pick(&["min", "max"]);
                    let (b, ub) = self.expr(ty, d, uniform);
                    (format!("({a}).{m}({b})"), ua && ub)
                }
                // The sign of a NaN an operation makes is unspecified (the
                // reference, "Where the backends may differ"): the sign
                // comes from a literal.
                2 if self.c.chance(30) => {
                    let sign = self.pick(&["1.0", "(-1.0", "0.0", "(-0.0"]);
                    let close = if sign.starts_with('(') { ")" } else { "" };
                    (format!("({a}).copysign({sign}{}{close})", ty.rs()), ua)
                }
                2 => {
                    let (b, ub) = self.expr(ty, d, uniform);
                    let (c, uc) = self.expr(ty, d, uniform);
                    (format!("({a}).mul_add({b}, {c})"), ua && ub && uc)
                }
                _ => {
                    let (n, un) = self.expr(Ty::I32, d, uniform);
                    (format!("({a}).powi(({n}) % 9)"), ua && un)
                }
            };
        }
        match self.c.below(5) {
            0 => {
                let m = self.pick(&["min", "max", "wrapping_mul", "saturating_add", "saturating_sub"]);
                let (b, ub) = self.expr(ty, d, uniform);
                (format!("({a}).{m}({b})"), ua && ub)
            }
            1 => {
                let m = self.pick(&["rotate_left", "rotate_right", "pow"]);
                let (n, un) = self.expr(Ty::U32, d, uniform);
                (format!("({a}).{m}(({n}) % 7)"), ua && un)
            }
            2 if ty == Ty::U32 => {
                let m = self.pick(&["count_ones", "leading_zeros", "trailing_zeros"]);
                (format!("({a}).{m}()"), ua)
            }
            3 => {
                let m = self.pick(&["reverse_bits", "swap_bytes", "wrapping_neg"]);
                (format!("({a}).{m}()"), ua)
            }
            4 if ty.is_signed() => (format!("({a}).abs()"), ua),
            _ => (format!("({a}).min({a})"), ua),
        }
    }

    fn call(&mut self, ty: Ty, d: u32, uniform: bool) -> (String, bool) {
        let cands: Vec<usize> = (0..self.fns.len())
            .filter(|&i| self.fns[i].ret == ty)
            // An array argument is a kernel's parameter: not in a device function.
            .filter(|&i| {
                self.fns[i].kind != FnKind::Array
                    || !self.in_device
                        && self
                            .arrays
                            .iter()
                            .any(|a| a.role == Role::In && a.ndim == 1 && a.ty == ty)
            })
            .collect();
        if cands.is_empty() {
            return self.binary(ty, d, uniform);
        }
        let f = cands[self.c.below(cands.len() as u64) as usize];
        let (name, kind, params) = (self.fns[f].name.clone(), self.fns[f].kind, self.fns[f].params.clone());
        match kind {
            FnKind::Pure => {
                let mut u = true;
                let args: Vec<String> = params
                    .iter()
                    .map(|t| {
                        let (e, eu) = self.expr(*t, d, uniform);
                        u &= eu;
                        e
                    })
                    .collect();
                (format!("{name}({})", args.join(", ")), u)
            }
            FnKind::Array => {
                let ins: Vec<String> = self
                    .arrays_where(|a| a.role == Role::In && a.ndim == 1 && a.ty == ty)
                    .into_iter()
                    .map(|a| a.name)
                    .collect();
                let a = ins[self.c.below(ins.len() as u64) as usize].clone();
                let (i, u) = self.expr(Ty::Usize, d, uniform);
                (format!("{name}({a}, {i})"), u)
            }
            FnKind::Recursive => {
                let (n, un) = self.expr(Ty::U32, d, uniform);
                let (x, ux) = self.expr(ty, d, uniform);
                (format!("{name}(({n}) % 8, {x})"), un && ux)
            }
        }
    }

    /// A literal, a variable, a parameter, an element of an input, a
    /// `const` or a local array, a tuple's component, or a thread index.
    fn leaf(&mut self, ty: Ty, uniform: bool) -> (String, bool) {
        let mut options: Vec<(String, bool)> = Vec::new();
        for v in self.vars() {
            if uniform && !v.uniform {
                continue;
            }
            match &v.kind {
                Kind::Scalar if v.ty == ty => options.push((v.name.clone(), v.uniform)),
                Kind::Tuple(tys) => {
                    for (i, t) in tys.iter().enumerate() {
                        if *t == ty {
                            options.push((format!("{}.{i}", v.name), false));
                        }
                    }
                }
                Kind::Local(len) if v.ty == ty => options.push((format!("{}[gid % {len}]", v.name), false)),
                _ => {}
            }
        }
        if !self.in_device {
            for (a, i) in &self.safe {
                if self.arrays.iter().any(|x| &x.name == a && x.ty == ty) {
                    options.push((format!("{a}[{i}]"), false));
                }
            }
            for (n, t) in &self.scalars {
                if *t == ty {
                    options.push((n.clone(), true));
                }
            }
            if !uniform {
                for a in &self.arrays {
                    if a.role == Role::In && a.ty == ty {
                        options.push((
                            match a.ndim {
                                1 => format!("{0}[gid % {0}.len()]", a.name),
                                _ => format!("{0}[[tid % {0}.shape()[0], gid % {0}.shape()[1]]]", a.name),
                            },
                            false,
                        ));
                    }
                }
            }
            for a in &self.arrays {
                if a.role == Role::In && a.ty == ty && a.ndim == 1 {
                    options.push((format!("{0}[bid % {0}.len()]", a.name), true));
                }
            }
            for k in &self.consts {
                if k.ty == ty {
                    options.push((format!("{}[bid % {}]", k.name, k.len), true));
                    if !uniform {
                        options.push((format!("{}[gid % {}]", k.name, k.len), false));
                    }
                }
            }
            if ty == Ty::Usize {
                options.push(("bid".into(), true));
                options.push(("nthr".into(), true));
                options.push(("block_idx().x".into(), true));
                options.push(("grid_dim().x".into(), true));
                if !uniform {
                    options.push(("tid".into(), false));
                    options.push(("gid".into(), false));
                    options.push(("thread_idx().x".into(), false));
                    options.push(("lane_id()".into(), false));
                }
                let a = &self.arrays[0];
                options.push((format!("{}.len()", a.name), true));
            }
        }
        // A literal is always possible, and the simplest (choice 0).
        let k = self.c.below(options.len() as u64 + 1) as usize;
        if k == 0 {
            (self.lit(ty), true)
        } else {
            options.swap_remove(k - 1)
        }
    }

    /// A literal of `ty`, edge values often.
    fn lit(&mut self, ty: Ty) -> String {
        let t = ty.rs();
        match ty {
            Ty::Bool => self.pick(&["false", "true"]).to_string(),
            Ty::F32 | Ty::F64 => {
                let v = self.pick(&[
                    "0.0",
                    "1.0",
                    "-1.0",
                    "0.5",
                    "2.5",
                    "-0.0",
                    "NAN",
                    "INFINITY",
                    "NEG_INFINITY",
                    "MIN_POSITIVE",
                    "MAX",
                    "MIN",
                    "EPSILON",
                    "tiny",
                    "0.1",
                    "-7.125",
                    "1e10",
                    "3.0",
                    "-2.5",
                    "100.25",
                ]);
                match v {
                    "NAN" | "INFINITY" | "NEG_INFINITY" | "MIN_POSITIVE" | "MAX" | "MIN" | "EPSILON" => {
                        format!("{t}::{v}")
                    }
                    "tiny" if ty == Ty::F32 => "1e-40f32".into(),
                    "tiny" => "1e-310f64".into(),
                    _ if v.starts_with('-') => format!("({v}{t})"),
                    _ => format!("{v}{t}"),
                }
            }
            _ => match self.c.below(8) {
                0 => format!("0{t}"),
                1 => format!("1{t}"),
                2 => format!("{t}::MAX"),
                3 => format!("{t}::MIN"),
                4 if ty.is_signed() => format!("(-1{t})"),
                5 => format!("{}{t}", self.c.below(100)),
                6 if ty.is_signed() => format!("(-{}{t})", 1 + self.c.below(100)),
                _ => format!("{}{t}", self.c.below(8)),
            },
        }
    }

    /// A scalar argument's value, as a `ScalarValue` expression with its exact bits.
    fn scalar_value(&mut self, ty: Ty) -> String {
        let bits = match self.c.below(4) {
            0 => 0,
            1 => 1 + self.c.below(10),
            2 => u64::MAX - self.c.below(3),
            _ => self.c.below(u64::MAX),
        };
        let v = ty.variant();
        match ty {
            Ty::Bool => format!("gpujit::__private::ScalarValue::Bool({})", bits & 1 == 1),
            Ty::F32 => format!(
                "gpujit::__private::ScalarValue::F32(f32::from_bits({:#x}))",
                bits as u32
            ),
            Ty::F64 => format!("gpujit::__private::ScalarValue::F64(f64::from_bits({bits:#x}))"),
            _ => format!("gpujit::__private::ScalarValue::{v}({bits}u64 as {})", ty.rs()),
        }
    }
}

const NUMERIC_AND_BOOL: [Ty; 12] = [
    NUMERIC[0],
    NUMERIC[1],
    NUMERIC[2],
    NUMERIC[3],
    NUMERIC[4],
    NUMERIC[5],
    NUMERIC[6],
    NUMERIC[7],
    NUMERIC[8],
    NUMERIC[9],
    NUMERIC[10],
    Ty::Bool,
];
/// The statement kinds of [`Gen::stmt`].
const STMT_KINDS: u64 = 23;
/// The reference's bound for the transcendental functions, in ulps.
const MATH_ULPS: u64 = 4;

fn scalar_var(name: String, ty: Ty, uniform: bool) -> Var {
    Var {
        name,
        ty,
        uniform,
        mutable: false,
        kind: Kind::Scalar,
    }
}
