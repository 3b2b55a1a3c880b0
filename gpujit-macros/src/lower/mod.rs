//! Parse and check: turns the user's `syn::ItemFn` into the typed kernel model,
//! rejecting everything the kernel language does not have with a spanned
//! error that says what to write instead.
//!
//! `Lower` is one struct; each concern is one `impl Lower` block in its own
//! file: `signature`, `stmt` (blocks and statements), `consts`, `expr`,
//! `index` (array access), `intrinsics`, and `diag` (error constructors);
//! `resolve` settles the types at the end. This file holds the state, the
//! entry point, scopes and names, and the syntax helpers the parts share.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::Type;

use crate::infer::Infer;
use crate::model::*;
use crate::names::{self, free_base, is_free, suffixed};
pub(crate) use crate::syntax::{call_name, path_text, strip, StandIns};

mod arrays;
mod atomics;
mod collectives;
mod consts;
mod device;
mod diag;
mod expr;
mod index;
mod intrinsics;
mod matching;
pub(crate) mod math;
mod resolve;
mod signature;
mod stmt;
mod warp;

pub use device::lower_device;
use diag::{err, heap_or, label_error, macro_error, with_help, with_help_spanned};
use resolve::resolve_kernel;

#[derive(Clone, Copy)]
enum Binding {
    Local(LocalId),
    Array(usize),
    Shared(usize),
    LocalArray(usize),
    BodyConst(usize),
    /// A tuple local (`let t = (a, b);`), kept as one local per component:
    /// `len` locals from `first` on.
    Tuple {
        first: LocalId,
        len: usize,
    },
    /// A name whose declaration was already reported as an error: its uses
    /// report nothing more.
    Poisoned,
}

struct Lower {
    infer: Infer,
    params: Vec<Param>,
    locals: Vec<Local>,
    shared: Vec<SharedArray>,
    local_arrays: Vec<LocalArray>,
    extern_consts: Vec<ExternConst>,
    extern_const_types: Vec<Ty>,
    body_consts: Vec<BodyConst>,
    scopes: Vec<HashMap<String, Binding>>,
    /// Names given out so far (each binding gets its own).
    used_names: HashSet<String>,
    /// Every identifier in the user's function: generated names avoid them.
    user_idents: HashSet<String>,
    errors: Vec<syn::Error>,
    uses_barrier: bool,
    loop_depth: usize,
    /// While lowering a statement: the `let`s of generated locals that must
    /// come just before it (a value `match`'s scrutinee). `None` where an
    /// expression is evaluated lazily or repeatedly (see [`Lower::lazily`]).
    hoist: Option<Vec<Stmt>>,
    /// The device functions called, each once (see `device`).
    callees: Vec<Callee>,
    /// A device function's return type (`None` for a kernel).
    ret: Option<RetTy>,
    /// The function's own name: a kernel may not call itself.
    self_name: String,
    /// What rustc's copy sees in place of expressions gpujit reported.
    stand_ins: StandIns,
}

/// Lowers a kernel function, or returns every error found; `stand_ins`
/// gets what rustc's copy should see instead of the expressions reported.
pub fn lower_kernel(item: &syn::ItemFn, stand_ins: &mut StandIns) -> Result<Kernel, syn::Error> {
    let mut lw = Lower::new(item);
    lw.signature(&item.sig);
    let body = lw.block(&item.block, false);
    *stand_ins = std::mem::take(&mut lw.stand_ins);
    lw.finish(item, body)
}

/// The kernel's parameters, if its signature has no error (for the launch
/// macro of a kernel whose body has one).
pub fn kernel_params(item: &syn::ItemFn) -> Option<Vec<Param>> {
    let mut lw = Lower::new(item);
    lw.signature(&item.sig);
    lw.errors.is_empty().then_some(lw.params)
}

impl Lower {
    fn new(item: &syn::ItemFn) -> Lower {
        Lower {
            infer: Infer::default(),
            params: Vec::new(),
            locals: Vec::new(),
            shared: Vec::new(),
            local_arrays: Vec::new(),
            extern_consts: Vec::new(),
            extern_const_types: Vec::new(),
            body_consts: Vec::new(),
            scopes: vec![HashMap::new()],
            used_names: HashSet::new(),
            user_idents: idents_in(item.to_token_stream()),
            errors: Vec::new(),
            uses_barrier: false,
            loop_depth: 0,
            hoist: None,
            callees: Vec::new(),
            ret: None,
            self_name: names::key(&item.sig.ident),
            stand_ins: StandIns::default(),
        }
    }

    /// The lowered function, or every error found.
    fn finish(self, item: &syn::ItemFn, body: Block) -> Result<Kernel, syn::Error> {
        let mut lw = self;
        let name = names::key(&item.sig.ident);
        // The entry keeps the kernel's name where C allows (`float` becomes
        // `float_kernel`, `r#fn` `fn_kernel`, `__global__` `global_kernel`).
        let entry = if is_free(&name) {
            name.clone()
        } else {
            lw.fresh_name(&suffixed(free_base(&name).trim_end_matches('_'), "kernel"))
        };
        let mut kernel = Kernel {
            entry,
            name,
            params: std::mem::take(&mut lw.params),
            locals: std::mem::take(&mut lw.locals),
            shared: std::mem::take(&mut lw.shared),
            local_arrays: std::mem::take(&mut lw.local_arrays),
            extern_consts: std::mem::take(&mut lw.extern_consts),
            body_consts: std::mem::take(&mut lw.body_consts),
            body,
            uses_barrier: lw.uses_barrier,
            callees: std::mem::take(&mut lw.callees),
            ret: lw.ret.take(),
        };
        if let Some(first) = lw.errors.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            return Err(first);
        }
        resolve_kernel(&lw.infer, &mut kernel);
        arrays::check_local_elems(&kernel)?;
        warp::check_warp_values(&kernel)?;
        Ok(kernel)
    }

    /// The C/Rust name of a new binding of the user's name `wanted`: the name
    /// itself the first time if it is free (see `names`), else a suffixed or
    /// sanitized name that is neither given out nor spelled anywhere in the
    /// user's function, so shadowing can never capture another variable (C
    /// has no `let x = x + 1;` shadowing).
    fn unique_name(&mut self, wanted: &str) -> String {
        let wanted = names::unraw(wanted);
        if is_free(wanted) && self.used_names.insert(wanted.to_string()) {
            return wanted.to_string();
        }
        self.fresh_name(&free_base(wanted))
    }

    /// A generated name based on `base` that is free (see `names`) and
    /// collides with no name given out and no identifier of the user's
    /// function. Ends: only finitely many names are taken, and a free base
    /// with a numeric suffix stays free.
    fn fresh_name(&mut self, base: &str) -> String {
        let base = free_base(base);
        let mut n = 0u64;
        loop {
            let c = match n {
                0 => base.clone(),
                1 if !base.ends_with('_') => format!("{base}_"),
                _ => suffixed(&base, &(n - 1).to_string()),
            };
            n += 1;
            if is_free(&c) && !self.user_idents.contains(&c) && !self.used_names.contains(&c) {
                self.used_names.insert(c.clone());
                return c;
            }
        }
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), binding);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn new_local(&mut self, ident: &syn::Ident, ty: Ty, mutable: bool) -> LocalId {
        let name = self.unique_name(&names::key(ident));
        self.locals.push(Local { name, ty, mutable });
        let id = self.locals.len() - 1;
        self.bind(&names::key(ident), Binding::Local(id));
        id
    }

    /// Lowers what `f` lowers as one statement: the generated `let`s it
    /// hoists go to `out` before its own statements.
    fn hoisting(&mut self, out: &mut Vec<Stmt>, f: impl FnOnce(&mut Self, &mut Vec<Stmt>)) {
        let saved = self.hoist.replace(Vec::new());
        let mut own = Vec::new();
        f(self, &mut own);
        let hoisted = std::mem::replace(&mut self.hoist, saved).unwrap_or_default();
        out.extend(hoisted);
        out.extend(own);
    }

    /// Lowers an expression that runs only sometimes or more than once (the
    /// right of `&&`, a branch of a value `if`, a `while` condition): nothing
    /// in it may be hoisted before the statement.
    fn lazily<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.hoist.take();
        let r = f(self);
        self.hoist = saved;
        r
    }

    fn unify_at(&mut self, span: Span, a: Ty, b: Ty) {
        if let Err(msg) = self.infer.unify(a, b) {
            self.errors.push(err(span, msg));
        }
    }
}

fn scalar_of(ty: &Type) -> Option<Scalar> {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => tp.path.get_ident().and_then(|i| Scalar::from_name(&i.to_string())),
        Type::Paren(p) => scalar_of(&p.elem),
        Type::Group(g) => scalar_of(&g.elem),
        _ => None,
    }
}

/// Every identifier in `tokens`, at any depth.
fn idents_in(tokens: TokenStream) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![tokens];
    while let Some(ts) = stack.pop() {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(names::key(&i));
                }
                proc_macro2::TokenTree::Group(g) => stack.push(g.stream()),
                _ => {}
            }
        }
    }
    out
}
