//! Parse and check: turns the user's `syn::ItemFn` into the typed kernel model,
//! rejecting everything the kernel language does not have with a spanned
//! error that says what to write instead.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr as SExpr, Pat, Type};

use crate::infer::{Infer, VarKind};
use crate::model::*;
use crate::names::{self, free_base, is_free, suffixed};

/// The intrinsics a kernel may call, for error messages.
const INTRINSICS: &str =
    "grid(n), gridsize(n), thread_idx(), block_idx(), block_dim(), grid_dim(), shared_array::<[T; N]>(), syncthreads()";

#[derive(Clone, Copy)]
enum Binding {
    Local(LocalId),
    Array(usize),
    Shared(usize),
    BodyConst(usize),
    /// A name whose declaration was already reported as an error: its uses
    /// report nothing more.
    Poisoned,
}

struct Lower {
    infer: Infer,
    params: Vec<Param>,
    locals: Vec<Local>,
    shared: Vec<SharedArray>,
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
}

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// Like [`with_help`], spanning all of `node` (first to last token).
fn with_help_spanned(node: &impl ToTokens, msg: &str, help: &str) -> syn::Error {
    syn::Error::new_spanned(node, format!("{msg}\n  = help: {help}"))
}

/// The names a `let` pattern binds.
fn pattern_names(p: &Pat, out: &mut Vec<String>) {
    crate::deep(|| pattern_names_at(p, out))
}

fn pattern_names_at(p: &Pat, out: &mut Vec<String>) {
    match p {
        Pat::Ident(pi) => out.push(names::key(&pi.ident)),
        Pat::Type(pt) => pattern_names(&pt.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pattern_names(e, out)),
        _ => {}
    }
}

fn with_help(span: Span, msg: &str, help: &str) -> syn::Error {
    err(span, format!("{msg}\n  = help: {help}"))
}

/// Lowers a kernel function, or returns every error found.
pub fn lower_kernel(item: &syn::ItemFn) -> Result<Kernel, syn::Error> {
    let mut lw = Lower {
        infer: Infer::default(),
        params: Vec::new(),
        locals: Vec::new(),
        shared: Vec::new(),
        extern_consts: Vec::new(),
        extern_const_types: Vec::new(),
        body_consts: Vec::new(),
        scopes: vec![HashMap::new()],
        used_names: HashSet::new(),
        user_idents: idents_in(item.to_token_stream()),
        errors: Vec::new(),
        uses_barrier: false,
        loop_depth: 0,
    };
    lw.signature(&item.sig);
    let body = lw.block(&item.block, false);
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
        extern_consts: std::mem::take(&mut lw.extern_consts),
        body_consts: std::mem::take(&mut lw.body_consts),
        body,
        uses_barrier: lw.uses_barrier,
    };
    if let Some(first) = lw.errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return Err(first);
    }
    resolve_kernel(&lw.infer, &mut kernel);
    Ok(kernel)
}

impl Lower {
    // ----- names and scopes -------------------------------------------------

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

    fn unify_at(&mut self, span: Span, a: Ty, b: Ty) {
        if let Err(msg) = self.infer.unify(a, b) {
            self.errors.push(err(span, msg));
        }
    }

    fn silent_expr(&mut self, span: Span) -> Expr {
        let ty = self.infer.fresh(VarKind::Any);
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty,
            span,
        }
    }

    /// Whether `e` starts from a name whose declaration was already reported.
    fn is_poisoned(&self, e: &SExpr) -> bool {
        crate::deep(|| self.is_poisoned_at(e))
    }

    fn is_poisoned_at(&self, e: &SExpr) -> bool {
        match strip(e) {
            SExpr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| matches!(self.lookup(&names::key(i)), Some(Binding::Poisoned))),
            SExpr::Call(c) => call_name(c).is_some_and(|n| matches!(self.lookup(&n), Some(Binding::Poisoned))),
            SExpr::MethodCall(m) => self.is_poisoned(&m.receiver),
            SExpr::Index(i) => self.is_poisoned(&i.expr),
            SExpr::Field(f) => self.is_poisoned(&f.base),
            _ => false,
        }
    }

    fn error_expr(&mut self, e: syn::Error) -> Expr {
        let span = e.span();
        self.errors.push(e);
        let ty = self.infer.fresh(VarKind::Any);
        Expr {
            kind: ExprKind::Lit(Lit::Bool(false)),
            ty,
            span,
        }
    }

    // ----- signature --------------------------------------------------------

    fn signature(&mut self, sig: &syn::Signature) {
        if let Some(unsafety) = &sig.unsafety {
            self.errors.push(with_help(
                unsafety.span(),
                "a kernel cannot be `unsafe`",
                "remove `unsafe`: gpujit checks every access a kernel makes",
            ));
        }
        if let Some(a) = &sig.asyncness {
            self.errors.push(err(a.span(), "a kernel cannot be `async`"));
        }
        if let Some(c) = &sig.constness {
            self.errors.push(err(c.span(), "a kernel cannot be `const fn`"));
        }
        if !sig.generics.params.is_empty() {
            self.errors.push(with_help(
                sig.generics.span(),
                "generic kernels are not supported yet",
                "write the kernel for concrete element types (f32, f64, ...)",
            ));
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            self.errors.push(with_help(
                ty.span(),
                "a kernel cannot return a value",
                "remove the return type and write results into a `&mut [T]` or `ArrayViewMutN<T>` parameter",
            ));
        }
        if let Some(v) = &sig.variadic {
            self.errors.push(err(v.span(), "a kernel cannot be variadic"));
        }
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => self.errors.push(err(r.span(), "a kernel cannot take `self`")),
                syn::FnArg::Typed(pt) => self.param(pt),
            }
        }
    }

    fn param(&mut self, pt: &syn::PatType) {
        let (ident, mutable) = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => (pi.ident.clone(), pi.mutability.is_some()),
            other => {
                self.errors
                    .push(err(other.span(), "kernel parameters must be plain names (`x: &[f32]`)"));
                return;
            }
        };
        let Some(kind) = self.param_type(&pt.ty) else {
            self.bind(&names::key(&ident), Binding::Poisoned);
            return;
        };
        let index = self.params.len();
        match kind {
            ParamKind::Scalar(s) => {
                let id = self.new_local(&ident, Ty::Scalar(s), mutable);
                let name = self.locals[id].name.clone();
                self.params.push(Param {
                    name,
                    label: names::key(&ident),
                    kind,
                    dims: Vec::new(),
                });
            }
            ParamKind::Array { ndim, .. } => {
                let _ = mutable; // `mut a: ArrayViewMut2<T>` (as ndarray wants) or plain `a`: both work.
                let name = self.unique_name(&names::key(&ident));
                // The extents the CUDA C signature passes after the pointer.
                let dims = if ndim == 1 {
                    vec![self.fresh_name(&suffixed(&name, "len"))]
                } else {
                    (0..ndim)
                        .map(|d| self.fresh_name(&suffixed(&name, &format!("d{d}"))))
                        .collect()
                };
                self.bind(&names::key(&ident), Binding::Array(index));
                self.params.push(Param {
                    name,
                    label: names::key(&ident),
                    kind,
                    dims,
                });
            }
        }
    }

    fn param_type(&mut self, ty: &Type) -> Option<ParamKind> {
        const HELP: &str = "kernel parameters are scalars (i32 i64 u32 u64 usize f32 f64 bool u8), `&[T]`, `&mut [T]`, `ArrayView1/2/3<T>` or `ArrayViewMut1/2/3<T>`";
        match ty {
            Type::Path(tp) if tp.qself.is_none() => {
                let last = tp.path.segments.last()?;
                let name = last.ident.to_string();
                if let Some(s) = Scalar::from_name(&name) {
                    if tp.path.segments.len() == 1 {
                        return Some(ParamKind::Scalar(s));
                    }
                }
                let (mutable, ndim) = match name.as_str() {
                    "ArrayView1" => (false, 1),
                    "ArrayView2" => (false, 2),
                    "ArrayView3" => (false, 3),
                    "ArrayViewMut1" => (true, 1),
                    "ArrayViewMut2" => (true, 2),
                    "ArrayViewMut3" => (true, 3),
                    _ => {
                        self.errors.push(heap_or(ty, HELP));
                        return None;
                    }
                };
                let elem = match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }),
                    _ => None,
                };
                let elem = elem.and_then(|t| self.elem_type(t))?;
                Some(ParamKind::Array {
                    elem,
                    ndim,
                    mutable,
                    slice: false,
                })
            }
            Type::Reference(r) => match &*r.elem {
                Type::Slice(s) => {
                    let elem = self.elem_type(&s.elem)?;
                    Some(ParamKind::Array {
                        elem,
                        ndim: 1,
                        mutable: r.mutability.is_some(),
                        slice: true,
                    })
                }
                _ => {
                    self.errors.push(with_help(
                        r.span(),
                        "references other than `&[T]`/`&mut [T]` are not supported",
                        HELP,
                    ));
                    None
                }
            },
            other => {
                self.errors
                    .push(with_help(other.span(), "unsupported parameter type", HELP));
                None
            }
        }
    }

    fn elem_type(&mut self, ty: &Type) -> Option<Scalar> {
        match scalar_of(ty) {
            Some(Scalar::Bool) => {
                self.errors.push(with_help(
                    ty.span(),
                    "arrays of `bool` are not supported",
                    "use `u8` elements (0 or 1)",
                ));
                None
            }
            Some(s) => Some(s),
            None => {
                self.errors.push(with_help(
                    ty.span(),
                    "unsupported array element type",
                    "elements are u8 i32 i64 u32 u64 usize f32 f64",
                ));
                None
            }
        }
    }

    // ----- blocks and statements -------------------------------------------

    fn block(&mut self, block: &syn::Block, value: bool) -> Block {
        crate::deep(|| self.block_at(block, value))
    }

    fn block_at(&mut self, block: &syn::Block, value: bool) -> Block {
        self.scopes.push(HashMap::new());
        // `const` items are visible in the whole block, as in Rust.
        for stmt in &block.stmts {
            if let syn::Stmt::Item(syn::Item::Const(c)) = stmt {
                self.body_const(c);
            }
        }
        let mut stmts = Vec::new();
        let mut tail = None;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Expr(e, None) if i + 1 == n && value => tail = Some(self.expr(e)),
                _ => {
                    let before = stmts.len();
                    self.stmt(stmt, &mut stmts);
                    let line = stmt.span().start().line;
                    if stmts.len() > before && line > 0 {
                        stmts.insert(before, Stmt::Line(line as u32));
                    }
                }
            }
        }
        self.scopes.pop();
        Block { stmts, tail }
    }

    fn body_const(&mut self, c: &syn::ItemConst) {
        let Some(ty) = scalar_of(&c.ty) else {
            self.errors.push(err(
                c.ty.span(),
                "kernel constants must have a scalar type (i32 ... f64, bool)",
            ));
            return;
        };
        let value = self.expr(&c.expr);
        self.unify_at(c.expr.span(), value.ty, Ty::Scalar(ty));
        let name = self.unique_name(&names::key(&c.ident));
        self.body_consts.push(BodyConst {
            name,
            ty,
            value,
            rust_value: c.expr.to_token_stream(),
        });
        let id = self.body_consts.len() - 1;
        self.bind(&names::key(&c.ident), Binding::BodyConst(id));
    }

    fn stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        crate::deep(|| self.stmt_at(stmt, out))
    }

    fn stmt_at(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
        match stmt {
            syn::Stmt::Local(local) => self.let_stmt(local, out),
            syn::Stmt::Item(syn::Item::Const(_)) => {}
            syn::Stmt::Item(syn::Item::Static(s)) => self.errors.push(with_help(
                s.static_token.span(),
                "`static` items are not allowed in kernels",
                "use `const`: its value is frozen at build time on every backend",
            )),
            syn::Stmt::Item(syn::Item::Fn(f)) => self.errors.push(with_help(
                f.sig.ident.span(),
                "functions inside a kernel are not supported",
                "compute the value inline; device functions are not supported yet",
            )),
            syn::Stmt::Item(item) => self.errors.push(err(
                item.span(),
                "items other than `const` are not allowed inside a kernel",
            )),
            syn::Stmt::Macro(m) => self.errors.push(macro_error(&m.mac)),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e, out),
        }
    }

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let errors_before = self.errors.len();
        self.let_stmt_inner(local, out);
        if self.errors.len() > errors_before {
            // Later uses of what this `let` declares would only repeat the error.
            let mut names = Vec::new();
            pattern_names(&local.pat, &mut names);
            for n in names {
                self.bind(&n, Binding::Poisoned);
            }
        }
    }

    fn let_stmt_inner(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        let init = match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.errors
                        .push(err(diverge.span(), "`let ... else` is not supported in kernels"));
                    return;
                }
                Some(&*init.expr)
            }
            None => None,
        };
        // Split `pat: Type`.
        let (pat, annotated) = match &local.pat {
            Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        // `let s = shared_array::<[[T; N]; M]>();`
        if let (Some(init), Pat::Ident(pi)) = (init, pat) {
            if let Some(turbofish) = shared_array_call(init) {
                self.shared_decl(&pi.ident, turbofish, init.span(), out);
                return;
            }
        }
        match pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let declared = annotated.and_then(|t| self.local_type(t));
                if annotated.is_some() && declared.is_none() {
                    return; // the type was reported; its value would repeat it
                }
                let init = init.map(|e| self.expr(e));
                let ty = match (&init, declared) {
                    (Some(e), Some(d)) => {
                        self.unify_at(e.span, Ty::Scalar(d), e.ty);
                        Ty::Scalar(d)
                    }
                    (Some(e), None) => e.ty,
                    (None, Some(d)) => Ty::Scalar(d),
                    (None, None) => self.infer.fresh(VarKind::Any),
                };
                // `let x;` is assigned later (rustc checks it is assigned once).
                let local = self.new_local(&pi.ident, ty, pi.mutability.is_some() || init.is_none());
                out.push(Stmt::Let { local, init });
            }
            Pat::Wild(_) => {
                if let Some(e) = init {
                    let e = self.expr(e);
                    out.push(Stmt::Expr(e));
                }
            }
            Pat::Tuple(tuple) => {
                let Some(init) = init else {
                    self.errors.push(err(tuple.span(), "a tuple `let` needs a value"));
                    return;
                };
                let parts = self.tuple_parts(init, tuple.elems.len());
                let Some(parts) = parts else { return };
                let mut locals = Vec::new();
                for (p, part) in tuple.elems.iter().zip(&parts) {
                    match p {
                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            locals.push(Some(self.new_local(&pi.ident, part.ty, pi.mutability.is_some())))
                        }
                        Pat::Wild(_) => locals.push(None),
                        other => {
                            self.errors.push(err(
                                other.span(),
                                "only names and `_` are supported inside a tuple pattern",
                            ));
                            locals.push(None);
                        }
                    }
                }
                out.push(Stmt::LetTuple { locals, parts });
            }
            other => self.errors.push(err(
                other.span(),
                "unsupported pattern: write `let name = ...` or `let (a, b) = ...`",
            )),
        }
    }

    /// The components of a tuple-valued expression: `grid(2)`, `gridsize(3)`,
    /// `a.dim()`, or a tuple literal.
    fn tuple_parts(&mut self, init: &SExpr, n: usize) -> Option<Vec<Expr>> {
        let span = init.span();
        let usize_expr = |kind: ExprKind| Expr {
            kind,
            ty: Ty::Scalar(Scalar::Usize),
            span,
        };
        match strip(init) {
            SExpr::Call(call) => {
                let name = call_name(call)?;
                if name == "grid" || name == "gridsize" {
                    let ndim = self.grid_arg(call)?;
                    if ndim != n {
                        self.errors.push(err(
                            span,
                            format!("`{name}({ndim})` has {ndim} components but the pattern has {n}"),
                        ));
                        return None;
                    }
                    return Some(
                        Axis::all(ndim)
                            .iter()
                            .map(|&a| {
                                usize_expr(if name == "grid" {
                                    ExprKind::Grid(a)
                                } else {
                                    ExprKind::GridSize(a)
                                })
                            })
                            .collect(),
                    );
                }
                self.errors.push(err(
                    span,
                    "only `grid(n)`, `gridsize(n)`, `a.dim()` and tuple literals can be destructured",
                ));
                None
            }
            SExpr::MethodCall(mc) if mc.method == "dim" && mc.args.is_empty() => {
                let p = self.array_param_of(&mc.receiver)?;
                let ndim = match self.params[p].kind {
                    ParamKind::Array { ndim, .. } => ndim,
                    ParamKind::Scalar(_) => 0,
                };
                if ndim != n {
                    self.errors.push(err(
                        span,
                        format!("`dim()` of a {ndim}-D array has {ndim} components but the pattern has {n}"),
                    ));
                    return None;
                }
                Some((0..ndim).map(|k| usize_expr(ExprKind::Dim(p, k))).collect())
            }
            SExpr::Tuple(t) if t.elems.len() == n => Some(t.elems.iter().map(|e| self.expr(e)).collect()),
            _ => {
                self.errors.push(err(
                    span,
                    "only `grid(n)`, `gridsize(n)`, `a.dim()` and tuple literals can be destructured",
                ));
                None
            }
        }
    }

    fn local_type(&mut self, ty: &Type) -> Option<Scalar> {
        match scalar_of(ty) {
            Some(s) => Some(s),
            None => {
                let e = match ty {
                    Type::Array(_) => with_help(
                        ty.span(),
                        "per-thread arrays are not supported yet",
                        "use `shared_array::<[T; N]>()` for a block-wide array, or separate scalars",
                    ),
                    _ => heap_or(ty, "locals are scalars: i32 i64 u32 u64 usize f32 f64 bool u8"),
                };
                self.errors.push(e);
                None
            }
        }
    }

    fn shared_decl(&mut self, ident: &syn::Ident, ty: &Type, span: Span, out: &mut Vec<Stmt>) {
        let mut dims = Vec::new();
        let mut ndim = 0;
        let mut cur = ty;
        while let Type::Array(arr) = cur {
            ndim += 1;
            match self.const_expr(&arr.len) {
                Ok(c) => dims.push(c),
                Err(e) => self.errors.push(e),
            }
            cur = &arr.elem;
        }
        if dims.len() != ndim {
            return;
        }
        if dims.is_empty() || dims.len() > 3 {
            self.errors.push(with_help(
                span,
                "a shared array has 1 to 3 dimensions",
                "write `shared_array::<[[f32; N]; M]>()`",
            ));
            return;
        }
        let Some(elem) = self.elem_type(cur) else { return };
        let name = self.unique_name(&names::key(ident));
        self.shared.push(SharedArray {
            label: names::key(ident),
            name,
            elem,
            dims,
            rust_type: ty.to_token_stream(),
        });
        let id = self.shared.len() - 1;
        self.bind(&names::key(ident), Binding::Shared(id));
        out.push(Stmt::Shared(id));
    }

    /// A compile-time constant (shared array size): literals, `const`s and
    /// arithmetic on them.
    fn const_expr(&mut self, e: &SExpr) -> Result<ConstExpr, syn::Error> {
        crate::deep(|| self.const_expr_at(e))
    }

    fn const_expr_at(&mut self, e: &SExpr) -> Result<ConstExpr, syn::Error> {
        const HELP: &str = "shared array sizes must be compile-time constants (a literal, a `const`, or arithmetic on them); a size chosen at launch needs dynamic shared memory, which is not supported yet";
        let c = match strip(e) {
            SExpr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            }) => i
                .base10_parse::<u64>()
                .map_err(|_| err(i.span(), "invalid array size"))?
                .to_string(),
            SExpr::Path(p) if p.qself.is_none() => {
                let text = path_text(&p.path);
                match self.lookup(&text) {
                    Some(Binding::BodyConst(id)) => self.body_consts[id].name.clone(),
                    Some(_) => {
                        return Err(with_help(
                            e.span(),
                            &format!("`{text}` is not a compile-time constant: shared array sizes are fixed when the kernel is compiled"),
                            HELP,
                        ))
                    }
                    None => {
                        let (idx, _) = self.extern_const(&p.path);
                        self.extern_consts[idx].c_name.clone()
                    }
                }
            }
            SExpr::Binary(b)
                if matches!(
                    b.op,
                    syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
                ) =>
            {
                let l = self.const_expr(&b.left)?;
                let r = self.const_expr(&b.right)?;
                format!("({} {} {})", l.c, b.op.to_token_stream(), r.c)
            }
            _ => {
                return Err(with_help(
                    e.span(),
                    "shared array size is not a compile-time constant",
                    HELP,
                ))
            }
        };
        Ok(ConstExpr {
            rust: e.to_token_stream(),
            c,
        })
    }

    fn expr_stmt(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        crate::deep(|| self.expr_stmt_at(e, out))
    }

    fn expr_stmt_at(&mut self, e: &SExpr, out: &mut Vec<Stmt>) {
        match strip(e) {
            SExpr::Assign(a) => {
                let (place, ty) = self.place(&a.left);
                let value = self.expr(&a.right);
                self.unify_at(a.right.span(), ty, value.ty);
                if let Some(place) = place {
                    out.push(Stmt::Assign { place, op: None, value });
                }
            }
            SExpr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).unwrap_or(BinOp::Add);
                let (place, ty) = self.place(&b.left);
                let value = self.expr(&b.right);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let _ = self.infer.require_kind(value.ty, VarKind::Int);
                } else {
                    self.unify_at(b.right.span(), ty, value.ty);
                }
                if let Some(place) = place {
                    out.push(Stmt::Assign {
                        place,
                        op: Some(op),
                        value,
                    });
                }
            }
            SExpr::If(i) => {
                let s = self.if_stmt(i);
                out.push(s);
            }
            SExpr::ForLoop(f) => self.for_loop(f, out),
            SExpr::While(w) => {
                if let Some(label) = &w.label {
                    self.errors.push(label_error(label.span()));
                }
                if let SExpr::Let(l) = &*w.cond {
                    self.errors.push(with_help_spanned(
                        l,
                        "`while let` is not supported in kernels",
                        "kernels have no Option values: use `while cond { ... }`, or `loop` with `if ... { break; }`",
                    ));
                    return;
                }
                let cond = self.expr(&w.cond);
                self.unify_at(cond.span, cond.ty, Ty::Scalar(Scalar::Bool));
                self.loop_depth += 1;
                let body = self.block(&w.body, false);
                self.loop_depth -= 1;
                out.push(Stmt::While { cond, body });
            }
            SExpr::Loop(l) => {
                if let Some(label) = &l.label {
                    self.errors.push(label_error(label.span()));
                }
                self.loop_depth += 1;
                let body = self.block(&l.body, false);
                self.loop_depth -= 1;
                out.push(Stmt::Loop { body });
            }
            SExpr::Break(b) => {
                // A label is reported at its loop (or by rustc, if no loop has it).
                if let Some(v) = &b.expr {
                    self.errors
                        .push(err(v.span(), "`break` with a value is not supported in kernels"));
                }
                if self.loop_depth == 0 {
                    self.errors.push(err(b.span(), "`break` outside a loop"));
                }
                out.push(Stmt::Break);
            }
            SExpr::Continue(_) => {
                out.push(Stmt::Continue);
            }
            SExpr::Return(r) => {
                if let Some(v) = &r.expr {
                    self.errors.push(with_help(
                        v.span(),
                        "a kernel cannot return a value",
                        "write the result into a `&mut [T]` parameter and use a plain `return;`",
                    ));
                }
                out.push(Stmt::Return);
            }
            SExpr::Block(b) if b.label.is_none() => {
                let blk = self.block(&b.block, false);
                out.push(Stmt::Block(blk));
            }
            SExpr::Call(call) if call_name(call).as_deref() == Some("syncthreads") => {
                if !call.args.is_empty() {
                    self.errors
                        .push(err(call.args.span(), "`syncthreads()` takes no arguments"));
                }
                self.uses_barrier = true;
                out.push(Stmt::SyncThreads);
            }
            _ => {
                let e = self.expr(e);
                out.push(Stmt::Expr(e));
            }
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Stmt {
        if let SExpr::Let(l) = &*i.cond {
            self.errors.push(with_help_spanned(
                l,
                "`if let` is not supported in kernels",
                "kernels have no Option values: use `if cond { ... }`",
            ));
        }
        let cond = self.expr(&i.cond);
        self.unify_at(cond.span, cond.ty, Ty::Scalar(Scalar::Bool));
        let then = self.block(&i.then_branch, false);
        let els = i.else_branch.as_ref().map(|(_, e)| match strip(e) {
            SExpr::If(inner) => {
                let s = self.if_stmt(inner);
                Block {
                    stmts: vec![s],
                    tail: None,
                }
            }
            SExpr::Block(b) => self.block(&b.block, false),
            other => {
                self.errors.push(err(other.span(), "unsupported `else` branch"));
                Block {
                    stmts: vec![],
                    tail: None,
                }
            }
        });
        Stmt::If { cond, then, els }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
        if let Some(label) = &f.label {
            self.errors.push(label_error(label.span()));
        }
        let (range, step) = match strip(&f.expr) {
            SExpr::MethodCall(mc) if mc.method == "step_by" && mc.args.len() == 1 => {
                let step = self.expr(&mc.args[0]);
                self.unify_at(step.span, step.ty, Ty::Scalar(Scalar::Usize));
                (strip(&mc.receiver), Some(step))
            }
            other => (other, None),
        };
        let SExpr::Range(r) = range else {
            self.errors.push(with_help_spanned(
                &f.expr,
                "kernels can only loop over integer ranges",
                "write `for i in a..b`, `a..=b`, or `(a..b).step_by(s)`",
            ));
            return;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.errors
                .push(err(r.span(), "a kernel loop range needs both ends (`a..b`)"));
            return;
        };
        let start = self.expr(start);
        let end = self.expr(end);
        self.unify_at(end.span, start.ty, end.ty);
        if let Err(m) = self.infer.require_kind(start.ty, VarKind::Int) {
            self.errors.push(err(start.span, m));
        }
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        self.scopes.push(HashMap::new());
        let var = match &*f.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() => {
                self.new_local(&pi.ident, start.ty, false)
            }
            Pat::Wild(_) => {
                let id = syn::Ident::new("iteration", Span::call_site());
                self.new_local(&id, start.ty, false)
            }
            other => {
                self.errors
                    .push(err(other.span(), "the loop variable must be a plain name"));
                self.scopes.pop();
                return;
            }
        };
        let var_name = self.locals[var].name.clone();
        let aux = ["end", "step", "done"].map(|what| self.fresh_name(&suffixed(&var_name, what)));
        self.loop_depth += 1;
        let body = self.block(&f.body, false);
        self.loop_depth -= 1;
        self.scopes.pop();
        out.push(Stmt::For {
            var,
            start,
            end,
            inclusive,
            step,
            body,
            aux,
        });
    }

    /// An assignable place and its type.
    fn place(&mut self, e: &SExpr) -> (Option<Place>, Ty) {
        crate::deep(|| self.place_at(e))
    }

    fn place_at(&mut self, e: &SExpr) -> (Option<Place>, Ty) {
        match strip(e) {
            SExpr::Path(p) if p.path.get_ident().is_some() => {
                let name = path_text(&p.path);
                match self.lookup(&name) {
                    Some(Binding::Local(id)) => {
                        if !self.locals[id].mutable {
                            self.errors.push(with_help(
                                e.span(),
                                &format!("cannot assign twice to immutable variable `{name}`"),
                                &format!("declare it with `let mut {name}`"),
                            ));
                        }
                        (Some(Place::Local(id)), self.locals[id].ty)
                    }
                    _ => {
                        let ex = if matches!(self.lookup(&name), Some(Binding::Poisoned)) {
                            self.silent_expr(e.span())
                        } else {
                            self.error_expr(err(e.span(), format!("`{name}` cannot be assigned to")))
                        };
                        (None, ex.ty)
                    }
                }
            }
            SExpr::Index(_) => match self.index(e, true) {
                Some((array, indices, elem)) => (Some(Place::Elem(array, indices)), Ty::Scalar(elem)),
                None => (None, self.infer.fresh(VarKind::Any)),
            },
            _ => {
                let ex = self.error_expr(err(e.span(), "only variables and array elements can be assigned to"));
                (None, ex.ty)
            }
        }
    }

    // ----- expressions -----------------------------------------------------

    fn expr(&mut self, e: &SExpr) -> Expr {
        crate::deep(|| self.expr_at(e))
    }

    fn expr_at(&mut self, e: &SExpr) -> Expr {
        let span = e.span();
        let mk = |kind, ty| Expr { kind, ty, span };
        match e {
            SExpr::Paren(p) => self.expr(&p.expr),
            SExpr::Group(g) => self.expr(&g.expr),
            SExpr::Lit(l) => self.literal(&l.lit, false),
            SExpr::Path(p) => self.path_expr(p),
            SExpr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    if let SExpr::Lit(l) = strip(&u.expr) {
                        return self.literal(&l.lit, true);
                    }
                    let inner = self.expr(&u.expr);
                    let ty = inner.ty;
                    mk(ExprKind::Unary(UnOp::Neg, Box::new(inner)), ty)
                }
                syn::UnOp::Not(_) => {
                    let inner = self.expr(&u.expr);
                    let ty = inner.ty;
                    mk(ExprKind::Unary(UnOp::Not, Box::new(inner)), ty)
                }
                _ if self.is_poisoned(&u.expr) => self.silent_expr(span),
                _ => self.error_expr(with_help(
                    span,
                    "dereferencing is not supported in kernels",
                    "kernels have no references besides their array parameters; index the array instead",
                )),
            },
            SExpr::Binary(b) => {
                let Some(op) = bin_op(&b.op) else {
                    return self.error_expr(err(b.op.span(), "compound assignment is a statement, not a value"));
                };
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                let ty = match op {
                    BinOp::Shl | BinOp::Shr => {
                        if let Err(m) = self.infer.require_kind(r.ty, VarKind::Int) {
                            self.errors.push(err(r.span, m));
                        }
                        l.ty
                    }
                    BinOp::And | BinOp::Or => {
                        self.unify_at(l.span, l.ty, Ty::Scalar(Scalar::Bool));
                        self.unify_at(r.span, r.ty, Ty::Scalar(Scalar::Bool));
                        Ty::Scalar(Scalar::Bool)
                    }
                    _ => {
                        self.unify_at(span, l.ty, r.ty);
                        if op.is_comparison() {
                            Ty::Scalar(Scalar::Bool)
                        } else {
                            l.ty
                        }
                    }
                };
                mk(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty)
            }
            SExpr::Cast(c) => {
                let inner = self.expr(&c.expr);
                match scalar_of(&c.ty) {
                    Some(s) => mk(ExprKind::Cast(Box::new(inner), s), Ty::Scalar(s)),
                    None => self.error_expr(err(c.ty.span(), "`as` casts go to a scalar type (i32 ... f64)")),
                }
            }
            SExpr::Index(ix) if matches!(strip(&ix.expr), SExpr::MethodCall(mc) if mc.method == "shape") => {
                self.shape_index(ix)
            }
            SExpr::Index(_) => match self.index(e, false) {
                Some((array, indices, elem)) => mk(ExprKind::Load(array, indices), Ty::Scalar(elem)),
                None => Expr {
                    kind: ExprKind::Lit(Lit::Bool(false)),
                    ty: self.infer.fresh(VarKind::Any),
                    span,
                },
            },
            SExpr::Call(call) => self.call(call),
            SExpr::MethodCall(mc) => self.method_call(mc),
            SExpr::Field(f) => self.field(f),
            SExpr::If(i) => self.if_expr(i),
            SExpr::Closure(c) => self.error_expr(with_help(
                c.or1_token.span(),
                "closures are not supported in kernels",
                "write the computation inline",
            )),
            SExpr::Macro(m) => self.error_expr(macro_error(&m.mac)),
            SExpr::Unsafe(u) => self.error_expr(with_help(
                u.unsafe_token.span(),
                "`unsafe` is not allowed in kernels",
                "remove it: gpujit translates every access itself and checks it on the CPU backend",
            )),
            SExpr::Reference(r) => self.error_expr(with_help(
                r.and_token.span(),
                "references are not supported in kernels",
                "only the array parameters are references; index them directly",
            )),
            SExpr::Try(t) => self.error_expr(with_help(
                t.question_token.span(),
                "`?` is not supported in kernels",
                "kernels cannot fail or return early with a value",
            )),
            SExpr::Block(_) | SExpr::Loop(_) | SExpr::While(_) | SExpr::ForLoop(_) => {
                self.error_expr(err(span, "this block is only allowed as a statement, not as a value"))
            }
            SExpr::Assign(_) => self.error_expr(err(span, "an assignment is a statement, not a value")),
            SExpr::Tuple(_) => self.error_expr(with_help(
                span,
                "tuples are only supported in `let (a, b) = ...`",
                "use separate variables",
            )),
            SExpr::Array(_) | SExpr::Repeat(_) => self.error_expr(with_help(
                span,
                "array values are not supported in kernels",
                "use `shared_array::<[T; N]>()` for a block-wide array",
            )),
            SExpr::Match(_) => self.error_expr(with_help(
                span,
                "`match` is not supported in kernels",
                "use `if`/`else if`",
            )),
            SExpr::Range(_) => self.error_expr(err(span, "ranges are only supported as `for` loop bounds")),
            SExpr::Struct(_) => self.error_expr(err(span, "struct values are not supported in kernels")),
            _ => self.error_expr(err(span, "this expression is not supported in kernels")),
        }
    }

    fn literal(&mut self, lit: &syn::Lit, negate: bool) -> Expr {
        let span = lit.span();
        match lit {
            syn::Lit::Int(i) => {
                let ty = match i.suffix() {
                    "" => self.infer.fresh(VarKind::Int),
                    s => match Scalar::from_name(s) {
                        Some(s) if s.is_int() => Ty::Scalar(s),
                        Some(s) if s.is_float() => {
                            let text = format!("{}{}", if negate { "-" } else { "" }, i.base10_digits());
                            return Expr {
                                kind: ExprKind::Lit(Lit::Float(text)),
                                ty: Ty::Scalar(s),
                                span,
                            };
                        }
                        _ => return self.error_expr(err(span, format!("unsupported literal suffix `{s}`"))),
                    },
                };
                let Ok(value) = i.base10_parse::<u128>() else {
                    return self.error_expr(err(span, "integer literal out of range"));
                };
                let value = value as i128;
                Expr {
                    kind: ExprKind::Lit(Lit::Int(if negate { -value } else { value })),
                    ty,
                    span,
                }
            }
            syn::Lit::Float(f) => {
                let ty = match f.suffix() {
                    "" => self.infer.fresh(VarKind::Float),
                    "f32" => Ty::Scalar(Scalar::F32),
                    "f64" => Ty::Scalar(Scalar::F64),
                    s => return self.error_expr(err(span, format!("unsupported literal suffix `{s}`"))),
                };
                let text = format!("{}{}", if negate { "-" } else { "" }, f.base10_digits());
                Expr {
                    kind: ExprKind::Lit(Lit::Float(text)),
                    ty,
                    span,
                }
            }
            syn::Lit::Bool(b) if !negate => Expr {
                kind: ExprKind::Lit(Lit::Bool(b.value)),
                ty: Ty::Scalar(Scalar::Bool),
                span,
            },
            _ => self.error_expr(err(
                span,
                "only integer, float and bool literals are supported in kernels",
            )),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Expr {
        let span = p.span();
        if p.qself.is_some() {
            return self.error_expr(err(span, "qualified paths are not supported in kernels"));
        }
        if let Some(ident) = p.path.get_ident() {
            match self.lookup(&names::key(ident)) {
                Some(Binding::Local(id)) => {
                    return Expr {
                        kind: ExprKind::Local(id),
                        ty: self.locals[id].ty,
                        span,
                    }
                }
                Some(Binding::BodyConst(id)) => {
                    return Expr {
                        kind: ExprKind::BodyConst(id),
                        ty: Ty::Scalar(self.body_consts[id].ty),
                        span,
                    }
                }
                Some(Binding::Poisoned) => return self.silent_expr(span),
                Some(Binding::Array(_)) | Some(Binding::Shared(_)) => {
                    return self.error_expr(with_help(
                        span,
                        &format!("array `{ident}` cannot be used as a value"),
                        "index it (`a[i]`, `a[[i, j]]`) or ask for its size (`a.len()`, `a.dim()`)",
                    ))
                }
                None => {}
            }
        }
        let (idx, ty) = self.extern_const(&p.path);
        Expr {
            kind: ExprKind::ExternConst(idx),
            ty,
            span,
        }
    }

    /// Registers a `const` defined outside the kernel (`TILE`, `f32::MAX`,
    /// `std::f32::consts::PI`).
    fn extern_const(&mut self, path: &syn::Path) -> (usize, Ty) {
        let segments: Vec<String> = path.segments.iter().map(|s| names::key(&s.ident)).collect();
        let key = segments.join("::");
        if let Some(i) = self
            .extern_consts
            .iter()
            .position(|c| c.rust_path.to_string().replace(' ', "") == key)
        {
            return (i, self.extern_const_types[i]);
        }
        // A plain `TILE` keeps its name in C; a path (`f32::MAX`) gets a fresh
        // one (`f32_MAX`) that cannot collide with the user's identifiers.
        let c_name = match segments.as_slice() {
            [single] if is_free(single) => single.clone(),
            _ => {
                let joined: Vec<&str> = segments
                    .iter()
                    .map(String::as_str)
                    .filter(|s| !matches!(*s, "std" | "core" | "crate"))
                    .collect();
                self.fresh_name(&joined.join("_"))
            }
        };
        // `f32::MAX`, `std::f64::consts::PI`: the type is the scalar named in the path.
        let known = segments.iter().rev().skip(1).find_map(|s| Scalar::from_name(s));
        let ty = match known {
            Some(s) => Ty::Scalar(s),
            None => self.infer.fresh_const(self.extern_consts.len()),
        };
        let type_name = self.fresh_name(&suffixed(&c_name, "type"));
        self.extern_consts.push(ExternConst {
            c_name,
            type_name,
            rust_path: path.to_token_stream(),
            user_item: known.is_none(),
        });
        self.extern_const_types.push(ty);
        (self.extern_consts.len() - 1, ty)
    }

    fn array_param_of(&mut self, e: &SExpr) -> Option<usize> {
        if let SExpr::Path(p) = strip(e) {
            if let Some(ident) = p.path.get_ident() {
                if let Some(Binding::Array(i)) = self.lookup(&names::key(ident)) {
                    return Some(i);
                }
            }
        }
        if !self.is_poisoned(e) {
            self.errors.push(with_help(
                e.span(),
                "expected an array parameter here",
                "`len()`, `dim()` and `shape()` apply to the kernel's array parameters",
            ));
        }
        None
    }

    /// `x[i]`, `a[[i, j]]`, `tile[i][j]`: the array, the indices (as `usize`)
    /// and the element type.
    fn index(&mut self, e: &SExpr, for_write: bool) -> Option<(ArrayRef, Vec<Expr>, Scalar)> {
        // Peel `base[i0][i1]...` outermost-last.
        let mut idx_exprs = Vec::new();
        let mut cur = e;
        while let SExpr::Index(ix) = strip(cur) {
            idx_exprs.push(&*ix.index);
            cur = &ix.expr;
        }
        idx_exprs.reverse();
        let SExpr::Path(p) = strip(cur) else {
            self.errors.push(err(
                cur.span(),
                "only array parameters and shared arrays can be indexed",
            ));
            return None;
        };
        let name = path_text(&p.path);
        if matches!(self.lookup(&name), Some(Binding::Poisoned)) {
            return None;
        }
        let (array, ndim, elem, writable) = match self.lookup(&name) {
            Some(Binding::Array(i)) => match self.params[i].kind {
                ParamKind::Array {
                    elem, ndim, mutable, ..
                } => (ArrayRef::Param(i), ndim, elem, mutable),
                ParamKind::Scalar(_) => return None,
            },
            Some(Binding::Shared(i)) => (
                ArrayRef::Shared(i),
                self.shared[i].dims.len(),
                self.shared[i].elem,
                true,
            ),
            _ => {
                self.errors.push(with_help(
                    cur.span(),
                    &format!("`{name}` is not an array: only array parameters and shared arrays can be indexed"),
                    "index a `&[T]` or `ArrayViewN<T>` parameter, or a `shared_array`",
                ));
                return None;
            }
        };
        let slice =
            matches!(array, ArrayRef::Param(i) if matches!(self.params[i].kind, ParamKind::Array { slice: true, .. }));
        // rustc already reports writes through `&[T]` (in the type-checked copy).
        if for_write && !writable && !slice {
            self.errors.push(with_help(
                e.span(),
                &format!("cannot write to `{name}`: it is a read-only parameter"),
                "declare it as `&mut [T]` or `ArrayViewMutN<T>`",
            ));
        }
        let raw: Vec<&SExpr> = match (array, idx_exprs.as_slice()) {
            (ArrayRef::Param(_), [single]) if ndim > 1 => match strip(single) {
                SExpr::Array(a) => a.elems.iter().collect(),
                _ => {
                    self.errors.push(with_help(
                        single.span(),
                        &format!("`{name}` has {ndim} dimensions"),
                        &format!(
                            "index it with {ndim} indices: `{name}[[i, j{}]]`",
                            if ndim == 3 { ", k" } else { "" }
                        ),
                    ));
                    return None;
                }
            },
            (ArrayRef::Param(_), list) if list.len() > 1 => {
                self.errors.push(with_help_spanned(
                    e,
                    &format!("`{name}` is indexed like ndarray"),
                    "write `a[[i, j]]`, not `a[i][j]`",
                ));
                return None;
            }
            (_, list) => list.to_vec(),
        };
        if raw.len() != ndim {
            self.errors.push(err(
                e.span(),
                format!("`{name}` has {ndim} dimensions but {} indices were given", raw.len()),
            ));
            return None;
        }
        let indices = raw
            .into_iter()
            .map(|ie| {
                let x = self.expr(ie);
                self.unify_at(x.span, x.ty, Ty::Scalar(Scalar::Usize));
                x
            })
            .collect();
        Some((array, indices, elem))
    }

    /// `a.shape()[k]` with a literal `k`.
    fn shape_index(&mut self, ix: &syn::ExprIndex) -> Expr {
        let span = ix.span();
        let SExpr::MethodCall(mc) = strip(&ix.expr) else {
            return self.error_expr(err(span, "expected `a.shape()[k]`"));
        };
        let Some(p) = self.array_param_of(&mc.receiver) else {
            return Expr {
                kind: ExprKind::Lit(Lit::Bool(false)),
                ty: self.infer.fresh(VarKind::Any),
                span,
            };
        };
        let ndim = match self.params[p].kind {
            ParamKind::Array { ndim, .. } => ndim,
            ParamKind::Scalar(_) => 0,
        };
        let k = match strip(&ix.index) {
            SExpr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            }) => i.base10_parse::<usize>().ok(),
            _ => None,
        };
        match k {
            Some(k) if k < ndim => Expr {
                kind: ExprKind::Dim(p, k),
                ty: Ty::Scalar(Scalar::Usize),
                span,
            },
            Some(k) => self.error_expr(err(
                ix.index.span(),
                format!("dimension {k} is out of range for a {ndim}-D array"),
            )),
            None => self.error_expr(with_help(
                ix.index.span(),
                "the dimension in `a.shape()[k]` must be a literal",
                "write `a.shape()[0]`, `a.shape()[1]`, ...",
            )),
        }
    }

    fn grid_arg(&mut self, call: &syn::ExprCall) -> Option<usize> {
        let name = call_name(call).unwrap_or_default();
        let lit = match call.args.iter().collect::<Vec<_>>().as_slice() {
            [a] => match strip(a) {
                SExpr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i), ..
                }) => i.base10_parse::<usize>().ok(),
                _ => None,
            },
            _ => None,
        };
        match lit {
            Some(n @ 1..=3) => Some(n),
            Some(n) => {
                self.errors.push(with_help(
                    call.span(),
                    &format!("`{name}({n})`: a grid has 1, 2 or 3 dimensions"),
                    &format!("write `{name}(1)`, `{name}(2)` or `{name}(3)`"),
                ));
                None
            }
            None => {
                self.errors.push(with_help(
                    call.args.span(),
                    &format!("the argument of `{name}` must be the literal 1, 2 or 3"),
                    "the number of dimensions decides the result type, so it must be known when the kernel is compiled",
                ));
                None
            }
        }
    }

    fn call(&mut self, call: &syn::ExprCall) -> Expr {
        let span = call.span();
        if self.is_poisoned(&call.func)
            || call_name(call).is_some_and(|n| matches!(self.lookup(&n), Some(Binding::Poisoned)))
        {
            return self.silent_expr(span);
        }
        let Some(name) = call_name(call) else {
            let shown = call.func.to_token_stream().to_string().replace(' ', "");
            return self.error_expr(unknown_fn(call.func.span(), &shown));
        };
        let builtin = match name.as_str() {
            "thread_idx" => Some(Builtin::ThreadIdx),
            "block_idx" => Some(Builtin::BlockIdx),
            "block_dim" => Some(Builtin::BlockDim),
            "grid_dim" => Some(Builtin::GridDim),
            _ => None,
        };
        if let Some(b) = builtin {
            if !call.args.is_empty() {
                return self.error_expr(err(call.args.span(), format!("`{name}()` takes no arguments")));
            }
            return Expr {
                kind: ExprKind::Builtin(b),
                ty: Ty::Idx3,
                span,
            };
        }
        match name.as_str() {
            "grid" | "gridsize" => {
                let Some(n) = self.grid_arg(call) else {
                    return Expr {
                        kind: ExprKind::Lit(Lit::Bool(false)),
                        ty: self.infer.fresh(VarKind::Any),
                        span,
                    };
                };
                if n != 1 {
                    return self.error_expr(with_help(
                        span,
                        &format!("`{name}({n})` is a tuple"),
                        &format!(
                            "destructure it: `let (x, y{}) = {name}({n});`",
                            if n == 3 { ", z" } else { "" }
                        ),
                    ));
                }
                let kind = if name == "grid" {
                    ExprKind::Grid(Axis::X)
                } else {
                    ExprKind::GridSize(Axis::X)
                };
                Expr {
                    kind,
                    ty: Ty::Scalar(Scalar::Usize),
                    span,
                }
            }
            "syncthreads" => self.error_expr(err(span, "`syncthreads()` is a statement: write `syncthreads();`")),
            "shared_array" => self.error_expr(with_help(
                span,
                "`shared_array` declares a variable",
                "write `let tile = shared_array::<[[f32; TILE]; TILE]>();`",
            )),
            other => self.error_expr(unknown_fn(call.func.span(), other)),
        }
    }

    fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Expr {
        let span = mc.span();
        let method = mc.method.to_string();
        if self.is_poisoned(&mc.receiver) {
            return self.silent_expr(span);
        }
        if method == "len" || method == "dim" {
            if let Some(p) = self.array_param_of(&mc.receiver) {
                let ndim = match self.params[p].kind {
                    ParamKind::Array { ndim, .. } => ndim,
                    ParamKind::Scalar(_) => 0,
                };
                let kind = match (method.as_str(), ndim) {
                    ("len", _) => ExprKind::Len(p),
                    ("dim", 1) => ExprKind::Dim(p, 0),
                    _ => {
                        return self.error_expr(with_help(
                            span,
                            "`dim()` of a multi-dimensional array is a tuple",
                            "destructure it: `let (rows, cols) = a.dim();`, or use `a.shape()[k]`",
                        ))
                    }
                };
                return Expr {
                    kind,
                    ty: Ty::Scalar(Scalar::Usize),
                    span,
                };
            }
            return Expr {
                kind: ExprKind::Lit(Lit::Bool(false)),
                ty: self.infer.fresh(VarKind::Any),
                span,
            };
        }
        if method == "unwrap" || method == "expect" {
            return self.error_expr(with_help(
                mc.method.span(),
                &format!("`{method}` can panic, and kernels cannot panic"),
                "kernels have no Option or Result values; check the condition with `if` instead",
            ));
        }
        let Some((math, nargs)) = MathFn::from_name(&method) else {
            // Report the innermost unknown call of a chain (`x.iter().sum()`: `iter`).
            let before = self.errors.len();
            if !self.is_poisoned(&mc.receiver) && matches!(strip(&mc.receiver), SExpr::MethodCall(_) | SExpr::Call(_)) {
                let _ = self.expr(&mc.receiver);
            }
            if self.errors.len() > before || self.is_poisoned(&mc.receiver) {
                return self.silent_expr(span);
            }
            return self.error_expr(with_help(
                mc.method.span(),
                &format!("unknown method `{method}` in a kernel"),
                "kernels can call `len()`, `dim()`, `shape()[k]` on arrays and sqrt abs min max mul_add floor ceil exp ln sin cos powf powi on numbers",
            ));
        };
        if mc.args.len() != nargs {
            return self.error_expr(err(span, format!("`{method}` takes {nargs} argument(s)")));
        }
        let recv = self.expr(&mc.receiver);
        let needs_float = !matches!(math, MathFn::Min | MathFn::Max | MathFn::Abs);
        if needs_float {
            if let Err(m) = self.infer.require_kind(recv.ty, VarKind::Float) {
                self.errors
                    .push(err(recv.span, format!("`{method}` is a float method: {m}")));
            }
        }
        let mut args = vec![recv];
        for a in &mc.args {
            let x = self.expr(a);
            if math == MathFn::Powi {
                self.unify_at(x.span, x.ty, Ty::Scalar(Scalar::I32));
            } else {
                self.unify_at(x.span, x.ty, args[0].ty);
            }
            args.push(x);
        }
        let ty = args[0].ty;
        Expr {
            kind: ExprKind::Math(math, args),
            ty,
            span,
        }
    }

    fn field(&mut self, f: &syn::ExprField) -> Expr {
        let span = f.span();
        let usize_ty = Ty::Scalar(Scalar::Usize);
        match &f.member {
            syn::Member::Named(id) => {
                let axis = match id.to_string().as_str() {
                    "x" => Axis::X,
                    "y" => Axis::Y,
                    "z" => Axis::Z,
                    other => {
                        return self.error_expr(err(
                            id.span(),
                            format!("unknown field `{other}`: index triples have `.x .y .z`"),
                        ))
                    }
                };
                let base = self.expr(&f.base);
                if let ExprKind::Builtin(b) = base.kind {
                    return Expr {
                        kind: ExprKind::BuiltinAxis(b, axis),
                        ty: usize_ty,
                        span,
                    };
                }
                if self.infer.shallow(base.ty) != Ty::Idx3 {
                    return self.error_expr(err(
                        span,
                        "`.x .y .z` apply to `thread_idx()`, `block_idx()`, `block_dim()` and `grid_dim()`",
                    ));
                }
                Expr {
                    kind: ExprKind::Idx3Field(Box::new(base), axis),
                    ty: usize_ty,
                    span,
                }
            }
            syn::Member::Unnamed(i) => {
                // `grid(2).0`, `a.dim().1`
                let k = i.index as usize;
                match strip(&f.base) {
                    SExpr::Call(call) if matches!(call_name(call).as_deref(), Some("grid" | "gridsize")) => {
                        let Some(n) = self.grid_arg(call) else {
                            return self.error_expr(err(span, "invalid grid call"));
                        };
                        if k >= n {
                            return self.error_expr(err(i.span, format!("`.{k}` is out of range for a {n}-tuple")));
                        }
                        let axis = Axis::all(3)[k];
                        let kind = if call_name(call).as_deref() == Some("grid") {
                            ExprKind::Grid(axis)
                        } else {
                            ExprKind::GridSize(axis)
                        };
                        Expr {
                            kind,
                            ty: usize_ty,
                            span,
                        }
                    }
                    SExpr::MethodCall(mc) if mc.method == "dim" => {
                        let Some(p) = self.array_param_of(&mc.receiver) else {
                            return self.error_expr(err(span, "expected an array"));
                        };
                        Expr {
                            kind: ExprKind::Dim(p, k),
                            ty: usize_ty,
                            span,
                        }
                    }
                    _ => self.error_expr(err(
                        span,
                        "tuple fields are only supported on `grid(n)`, `gridsize(n)` and `a.dim()`",
                    )),
                }
            }
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Expr {
        let span = i.span();
        let cond = self.expr(&i.cond);
        self.unify_at(cond.span, cond.ty, Ty::Scalar(Scalar::Bool));
        let then = self.block(&i.then_branch, true);
        let Some((_, els)) = &i.else_branch else {
            return self.error_expr(err(span, "an `if` used as a value needs an `else` branch"));
        };
        let els = match strip(els) {
            SExpr::Block(b) => self.block(&b.block, true),
            SExpr::If(inner) => {
                let e = self.if_expr(inner);
                Block {
                    stmts: vec![],
                    tail: Some(e),
                }
            }
            other => {
                let e = self.expr(other);
                Block {
                    stmts: vec![],
                    tail: Some(e),
                }
            }
        };
        let (Some(a), Some(b)) = (&then.tail, &els.tail) else {
            return self.error_expr(err(
                span,
                "both branches of an `if` used as a value must end in a value",
            ));
        };
        if !then.stmts.is_empty() || !els.stmts.is_empty() {
            return self.error_expr(with_help(
                span,
                "an `if` used as a value can only hold one expression per branch",
                "compute the values before the `if`, or declare `let mut v;` and assign it in each branch",
            ));
        }
        let ty = a.ty;
        self.unify_at(b.span, a.ty, b.ty);
        Expr {
            kind: ExprKind::If(Box::new(cond), Box::new(then), Box::new(els)),
            ty,
            span,
        }
    }
}

// ----- helpers -------------------------------------------------------------

fn strip(mut e: &SExpr) -> &SExpr {
    loop {
        match e {
            SExpr::Paren(p) => e = &p.expr,
            SExpr::Group(g) => e = &g.expr,
            other => return other,
        }
    }
}

fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| names::key(&s.ident))
        .collect::<Vec<_>>()
        .join("::")
}

fn call_name(call: &syn::ExprCall) -> Option<String> {
    match strip(&call.func) {
        SExpr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(names::key(&p.path.segments[0].ident))
        }
        _ => None,
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

/// `shared_array::<T>()` → `T`.
fn shared_array_call(e: &SExpr) -> Option<&Type> {
    let SExpr::Call(call) = strip(e) else { return None };
    let SExpr::Path(p) = strip(&call.func) else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "shared_array" || !call.args.is_empty() {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

fn heap_or(ty: &Type, help: &str) -> syn::Error {
    let text = ty.to_token_stream().to_string();
    for heap in ["Vec", "String", "Box", "Rc", "Arc", "HashMap"] {
        if text.starts_with(heap) || text.contains(&format!(":: {heap}")) {
            return with_help(
                ty.span(),
                &format!("`{heap}` cannot be used in a kernel: there is no heap on the device"),
                "use a `&mut [T]` parameter for output or `shared_array::<[T; N]>()` for block-wide scratch space",
            );
        }
    }
    with_help(ty.span(), &format!("unsupported type `{text}` in a kernel"), help)
}

fn unknown_fn(span: Span, name: &str) -> syn::Error {
    let heap = ["Vec", "String", "Box"].iter().find(|h| name.starts_with(*h));
    match heap {
        Some(h) => with_help(
            span,
            &format!("`{h}` cannot be used in a kernel: there is no heap on the device"),
            "use a `&mut [T]` parameter for output or `shared_array::<[T; N]>()` for block-wide scratch space",
        ),
        None => with_help(
            span,
            &format!("unknown function `{name}` in a kernel"),
            &format!("kernels can call the intrinsics {INTRINSICS}; device functions are not supported yet"),
        ),
    }
}

fn macro_error(mac: &syn::Macro) -> syn::Error {
    let name = mac
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let help = match name.as_str() {
        "panic" | "assert" | "assert_eq" | "unreachable" | "todo" | "unimplemented" => {
            "kernels cannot panic: a hidden exit would skip barriers on the GPU; guard with `if` instead"
        }
        "println" | "print" | "eprintln" | "dbg" => "kernels cannot print; write values to an output array instead",
        "vec" => "there is no heap on the device; use a `&mut [T]` parameter or a shared array",
        _ => "macros are not supported in kernels",
    };
    with_help(mac.path.span(), &format!("`{name}!` is not supported in kernels"), help)
}

fn label_error(span: Span) -> syn::Error {
    with_help(
        span,
        "loop labels are not supported in kernels",
        "use a `bool` flag and plain `break`",
    )
}

fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::BitAnd,
        B::BitOrAssign(_) => BinOp::BitOr,
        B::BitXorAssign(_) => BinOp::BitXor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

// ----- final type resolution ----------------------------------------------

fn resolve_kernel(inf: &Infer, k: &mut Kernel) {
    for l in &mut k.locals {
        l.ty = inf.resolve(l.ty);
    }
    for c in &mut k.body_consts {
        resolve_expr(inf, &mut c.value);
    }
    resolve_block(inf, &mut k.body);
}

fn resolve_block(inf: &Infer, b: &mut Block) {
    crate::deep(|| resolve_block_at(inf, b))
}

fn resolve_block_at(inf: &Infer, b: &mut Block) {
    for s in &mut b.stmts {
        match s {
            Stmt::Let { init, .. } => {
                if let Some(e) = init {
                    resolve_expr(inf, e);
                }
            }
            Stmt::LetTuple { parts, .. } => parts.iter_mut().for_each(|e| resolve_expr(inf, e)),
            Stmt::Assign { place, value, .. } => {
                if let Place::Elem(_, idx) = place {
                    idx.iter_mut().for_each(|e| resolve_expr(inf, e));
                }
                resolve_expr(inf, value);
            }
            Stmt::Expr(e) => resolve_expr(inf, e),
            Stmt::If { cond, then, els } => {
                resolve_expr(inf, cond);
                resolve_block(inf, then);
                if let Some(e) = els {
                    resolve_block(inf, e);
                }
            }
            Stmt::For {
                start, end, step, body, ..
            } => {
                resolve_expr(inf, start);
                resolve_expr(inf, end);
                if let Some(s) = step {
                    resolve_expr(inf, s);
                }
                resolve_block(inf, body);
            }
            Stmt::While { cond, body } => {
                resolve_expr(inf, cond);
                resolve_block(inf, body);
            }
            Stmt::Loop { body } | Stmt::Block(body) => resolve_block(inf, body),
            Stmt::Shared(_) | Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::SyncThreads | Stmt::Line(_) => {}
        }
    }
    if let Some(t) = &mut b.tail {
        resolve_expr(inf, t);
    }
}

fn resolve_expr(inf: &Infer, e: &mut Expr) {
    crate::deep(|| resolve_expr_at(inf, e))
}

fn resolve_expr_at(inf: &Infer, e: &mut Expr) {
    e.ty = inf.resolve(e.ty);
    match &mut e.kind {
        ExprKind::Unary(_, a) | ExprKind::Cast(a, _) | ExprKind::Idx3Field(a, _) => resolve_expr(inf, a),
        ExprKind::Binary(_, a, b) => {
            resolve_expr(inf, a);
            resolve_expr(inf, b);
        }
        ExprKind::Load(_, idx) | ExprKind::Math(_, idx) => idx.iter_mut().for_each(|x| resolve_expr(inf, x)),
        ExprKind::If(c, a, b) => {
            resolve_expr(inf, c);
            resolve_block(inf, a);
            resolve_block(inf, b);
        }
        _ => {}
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

/// Whether an array length looks like a compile-time constant: literals,
/// `UPPER_CASE` paths and arithmetic on them.
fn looks_const(e: &SExpr) -> bool {
    crate::deep(|| looks_const_at(e))
}

fn looks_const_at(e: &SExpr) -> bool {
    match strip(e) {
        SExpr::Lit(_) => true,
        SExpr::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        }),
        SExpr::Binary(b) => looks_const(&b.left) && looks_const(&b.right),
        _ => false,
    }
}

/// The rewritten copy rustc type-checks: the user's body against the
/// signatures in `gpujit::kernel::typecheck` (`grid(2)` becomes `grid2()`).
pub fn typecheck_copy(item: &syn::ItemFn) -> TokenStream {
    use syn::visit_mut::VisitMut;
    struct Rewrite;
    impl VisitMut for Rewrite {
        fn visit_type_array_mut(&mut self, arr: &mut syn::TypeArray) {
            syn::visit_mut::visit_type_array_mut(self, arr);
            // A shared array size gpujit rejects (a variable, `block_dim().x`)
            // is reported by gpujit; keep rustc from adding its own error.
            if !looks_const(&arr.len) {
                arr.len = syn::parse_quote!(1);
            }
        }

        fn visit_expr_mut(&mut self, e: &mut SExpr) {
            crate::deep(|| syn::visit_mut::visit_expr_mut(self, e));
            if let SExpr::Call(call) = e {
                if let Some(name @ ("grid" | "gridsize")) = call_name(call).as_deref() {
                    let n = match call.args.first() {
                        Some(SExpr::Lit(syn::ExprLit {
                            lit: syn::Lit::Int(i), ..
                        })) => i.base10_parse::<usize>().ok(),
                        _ => None,
                    };
                    // `grid(4)` or `grid(n)` is reported by gpujit: give rustc a
                    // value of a fitting type so that it adds no error of its own.
                    let span = call.func.span();
                    *e = match n {
                        Some(n @ 1..=3) => {
                            let f = syn::Ident::new(&format!("{name}{n}"), span);
                            syn::parse_quote_spanned!(span=> #f())
                        }
                        Some(n) => {
                            let parts = (0..n).map(|_| quote::quote_spanned!(span=> 0usize));
                            syn::parse_quote_spanned!(span=> (#(#parts,)*))
                        }
                        None => syn::parse_quote_spanned!(span=> 0usize),
                    };
                }
            }
        }
    }
    let mut copy = item.clone();
    copy.attrs.retain(|a| !a.path().is_ident("doc"));
    // `ArrayViewMutN` is written through `IndexMut`, which needs a `mut` binding.
    for input in &mut copy.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            let is_view_mut = matches!(&*pt.ty, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with("ArrayViewMut")));
            if let (true, Pat::Ident(pi)) = (is_view_mut, &mut *pt.pat) {
                if pi.mutability.is_none() {
                    pi.mutability = Some(Default::default());
                }
            }
        }
    }
    copy.vis = syn::Visibility::Inherited;
    Rewrite.visit_item_fn_mut(&mut copy);
    quote::quote! {
        #[allow(unused, clippy::all, non_snake_case, unreachable_code)]
        const _: () = {
            use ::gpujit::__private::typecheck::*;
            #copy
        };
    }
}
