//! Rust for statements: bindings, assignments, loops (with the cancel
//! flag's check per iteration) and branches, for one thread.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;

use super::expr::fence;
use super::{exited_ident, rev_step_by, thread_ident, Emitter};

impl Emitter<'_> {
    pub(super) fn stmt_at(&self, s: &Stmt) -> TokenStream {
        let t = thread_ident();
        match s {
            Stmt::Let { local, init } if self.spilled[*local] => match init {
                Some(e) => {
                    let (p, v) = (self.place(*local), self.expr(e));
                    quote! { #p = #v; }
                }
                None => TokenStream::new(),
            },
            Stmt::Let { local, init } => {
                let (name, l) = self.local(*local);
                let m = if l.mutable {
                    quote! { mut }
                } else {
                    TokenStream::new()
                };
                let ann = Self::annot(l.ty);
                match init {
                    Some(e) => {
                        let v = self.expr(e);
                        quote! { let #m #name #ann = #v; }
                    }
                    None => quote! { let #m #name #ann; },
                }
            }
            Stmt::LetTuple { locals, parts } => {
                let mut ts = TokenStream::new();
                for (l, p) in locals.iter().zip(parts) {
                    let v = self.expr(p);
                    match l {
                        Some(id) if self.spilled[*id] => {
                            let p = self.place(*id);
                            ts.extend(quote! { #p = #v; });
                        }
                        Some(id) => {
                            let (name, l) = self.local(*id);
                            let m = if l.mutable {
                                quote! { mut }
                            } else {
                                TokenStream::new()
                            };
                            ts.extend(quote! { let #m #name = #v; });
                        }
                        None => ts.extend(quote! { let _ = #v; }),
                    }
                }
                ts
            }
            // Made once per block, before the threads run (see `emit`).
            Stmt::Shared(_) => TokenStream::new(),
            Stmt::LocalArray { id, init } => self.local_array(*id, init),
            Stmt::Assign { place, op, value } => {
                let v = self.expr(value);
                match (place, op) {
                    (Place::Local(id), None) => {
                        let p = self.place(*id);
                        quote! { #p = #v; }
                    }
                    (Place::Local(id), Some(op)) => {
                        let p = self.place(*id);
                        let rhs = self.binary(*op, p.clone(), v, self.k.locals[*id].ty);
                        quote! { #p = #rhs; }
                    }
                    (Place::Elem(ArrayRef::Local(a), idx), op) => self.local_store(*a, idx, *op, v),
                    // Rust evaluates the value, then the place (for compound
                    // assignments on primitives too): bind the value first,
                    // so side effects in the index come after it.
                    (Place::Elem(a, idx), op) if self.span_access(*a, idx).is_some() => {
                        let Some((span, pos)) = self.span_access(*a, idx) else {
                            return TokenStream::new();
                        };
                        let value = Ident::new("gj_value", Span::mixed_site());
                        let rhs = match op {
                            None => quote! { #value },
                            Some(op) => {
                                let elem = self.k.elem_type(*a);
                                self.binary(*op, quote! { #span.ld(#t, #pos) }, quote! { #value }, elem)
                            }
                        };
                        quote! { { let #value = #v; #span.st(#t, #pos, #rhs); } }
                    }
                    (Place::Elem(a, idx), op) if self.checked_view(*a).is_some() => {
                        let view = self.checked_view(*a);
                        // The line of the place (its first index), where rustc
                        // would point at the assignment.
                        let at = super::arrays::location(idx.first().map_or(value.span, |x| x.span));
                        let names: Vec<Ident> = (0..idx.len())
                            .map(|i| format_ident!("gj_index_{}", i, span = Span::mixed_site()))
                            .collect();
                        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                        let value = Ident::new("gj_value", Span::mixed_site());
                        let rhs = match op {
                            None => quote! { #value },
                            Some(op) => {
                                let elem = self.k.elem_type(*a);
                                self.binary(
                                    *op,
                                    quote! { #view.ld_at(#t, [#(#names),*], #at) },
                                    quote! { #value },
                                    elem,
                                )
                            }
                        };
                        quote! { { let #value = #v; #(let #names: usize = #idx;)* #view.st_at(#t, [#(#names),*], #rhs, #at); } }
                    }
                    (Place::Elem(a, idx), None) => {
                        let (view, st, _) = self.access_at(*a, idx);
                        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                        let value = Ident::new("gj_value", Span::mixed_site());
                        quote! { { let #value = #v; #view.#st(#t, #(#idx,)* #value); } }
                    }
                    (Place::Elem(a, idx), Some(op)) => {
                        let (view, st, ld) = self.access_at(*a, idx);
                        let names: Vec<Ident> = (0..idx.len())
                            .map(|i| format_ident!("gj_index_{}", i, span = Span::mixed_site()))
                            .collect();
                        let idx: Vec<TokenStream> = idx.iter().map(|x| self.expr(x)).collect();
                        let elem = self.k.elem_type(*a);
                        let value = Ident::new("gj_value", Span::mixed_site());
                        let rhs = self.binary(*op, quote! { #view.#ld(#t, #(#names),*) }, quote! { #value }, elem);
                        quote! { { let #value = #v; #(let #names: usize = #idx;)* #view.#st(#t, #(#names,)* #rhs); } }
                    }
                }
            }
            Stmt::Expr(e) => {
                let v = self.expr(e);
                quote! { #v; }
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(cond);
                let a = self.block(then);
                let mut ts = quote! { if #c #a };
                // `else if` stays flat: `else { if .. }` per arm would nest
                // as deep as the chain is long, past what rustc parses.
                let mut els = els.as_ref();
                while let Some(b) = els {
                    match b.else_if() {
                        Some((cond, then, next)) => {
                            let (c, a) = (self.expr(cond), self.block(then));
                            ts.extend(quote! { else if #c #a });
                            els = next;
                        }
                        None => {
                            let b = self.block(b);
                            ts.extend(quote! { else #b });
                            els = None;
                        }
                    }
                }
                ts
            }
            Stmt::For {
                var,
                start,
                end,
                inclusive,
                step,
                rev,
                body,
                ..
            } => {
                let (name, _) = self.local(*var);
                let (a, b) = (self.expr(start), self.expr(end));
                let range = if *inclusive {
                    quote! { (#a..=#b) }
                } else {
                    quote! { (#a..#b) }
                };
                // `step_by` through the runtime: a zero step is a fault and
                // an empty loop there, where Rust's `step_by` would panic.
                let iter = match step {
                    Some(s) if *rev => {
                        let s = self.expr(s);
                        let checked = Ident::new("gj_step", Span::mixed_site());
                        let iter = rev_step_by(&range, &checked);
                        quote! { { let #checked = #t.check_step(#s); #iter } }
                    }
                    None if *rev => quote! { #range.rev() },
                    Some(s) => {
                        let s = self.expr(s);
                        if *inclusive {
                            quote! { #t.step_by_inclusive(#a, #b, #s) }
                        } else {
                            quote! { #t.step_by(#a, #b, #s) }
                        }
                    }
                    None => range,
                };
                let body = self.loop_body(body);
                quote! { for #name in #iter #body }
            }
            Stmt::While { cond, body } => {
                let c = self.expr(cond);
                let b = self.loop_body(body);
                quote! { while #c #b }
            }
            Stmt::Loop { body } => {
                let b = self.loop_body(body);
                quote! { loop #b }
            }
            Stmt::Break => match &self.lockstep_break {
                Some(b) => b.clone(),
                None => quote! { break; },
            },
            Stmt::Continue if self.lockstep_break.is_some() => quote! { return; },
            Stmt::Continue => quote! { continue; },
            Stmt::Return if self.track_exit => {
                let ex = exited_ident();
                quote! { { #ex[#t.lin()].set(true); return; } }
            }
            Stmt::Return => quote! { return; },
            Stmt::ReturnValue(e) => {
                let v = self.expr(e);
                quote! { return #v; }
            }
            Stmt::SyncThreads => {
                let site = self.next_site();
                quote! { #t.syncthreads(#site); }
            }
            Stmt::Fence(scope) => fence(*scope),
            Stmt::Block(b) => self.block(b),
            Stmt::Line(_) => TokenStream::new(),
        }
    }

    /// A loop's body, first polling the launch's cancel flag (the CPU time
    /// limit): once set, the thread returns (not an exit: the block ends at
    /// its next check of the flag), so that no loop runs forever.
    fn loop_body(&self, b: &Block) -> TokenStream {
        let t = thread_ident();
        let inner = self.block_stmts(b);
        // A device function returns a default value; its caller stops at
        // its own next check.
        let ret = match self.k.ret {
            Some(_) => quote! { ::core::default::Default::default() },
            None => TokenStream::new(),
        };
        quote! { { if #t.cancelled() { return #ret; } #inner } }
    }
}
