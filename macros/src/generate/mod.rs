//! Generating the constant data of a derived type. `schema` writes the schema
//! node, `tool` the tool descriptor, `checks` the constant checks of
//! attributes against field types.

mod checks;
mod schema;
mod tool;

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::ast::Container;
use crate::ast::Derive;
use crate::attr::LitValue;

/// The impls of a well-formed item.
pub(crate) fn expand(item: &Container<'_>, derive: Derive) -> TokenStream {
    let schema = schema::schema_impl(item, derive);
    let tool = match derive {
        Derive::Tool => {
            let tool = tool::tool_impl(item);
            let runs_with = runs_with(item);
            quote!(#tool #runs_with)
        }
        Derive::Schema => TokenStream::new(),
    };
    let checks = checks::checks(item, derive);
    quote!(#schema #tool #checks)
}

/// Impls with placeholder data, emitted beside errors so that code using the
/// type reports nothing more.
pub(crate) fn stub(item: &Container<'_>, derive: Derive) -> TokenStream {
    let p = private(item);
    let (impl_generics, ty_generics, where_clause) = split(item);
    let ident = item.ident;
    let state = state_type(item);
    let runs_with = match derive {
        Derive::Tool => runs_with(item),
        Derive::Schema => TokenStream::new(),
    };
    let tool = match derive {
        Derive::Tool => quote! {
            #runs_with
            #[automatically_derived]
            impl #impl_generics #p::Tool for #ident #ty_generics #where_clause {
                const TOOL: &'static #p::ToolDef = &#p::ToolDef {
                    name: #p::Ref::Static(""),
                    title: #p::None,
                    description: #p::Ref::Static(""),
                    version: 1,
                    input: #p::Ref::Lazy(#p::schema_of::<Self>),
                    output: #p::None,
                    annotations: #p::Annotations::NONE,
                    icons: #p::Ref::Static(&[]),
                    internal: false,
                };
                type Output = #p::ToolResult;
                type State = #state;
            }
        },
        Derive::Schema => TokenStream::new(),
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Schema for #ident #ty_generics #where_clause {
            const SCHEMA: &'static #p::Node = &#p::Node::Any;
        }
        #tool
    }
}

/// The path of the runtime's private module: `::toolschema::__private`, or
/// under the `#[tool(crate = "...")]` path.
fn private(item: &Container<'_>) -> TokenStream {
    match item.attrs.krate.get() {
        Some(path) => quote!(#path::__private),
        None => quote!(::toolschema::__private),
    }
}

/// The item's generics, with a `Schema` bound on every type parameter.
fn split(item: &Container<'_>) -> (TokenStream, TokenStream, TokenStream) {
    let p = private(item);
    let mut generics = item.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(#p::Schema));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    (
        quote!(#impl_generics),
        quote!(#ty_generics),
        quote!(#where_clause),
    )
}

/// The impl of `RunsWith`: on a server of any state for a tool without
/// `#[tool(state = …)]`; on a server of that state (the tool's handler reads
/// it from its `Context`) for one with it.
fn runs_with(item: &Container<'_>) -> TokenStream {
    let p = private(item);
    let ident = item.ident;
    match item.attrs.state.get() {
        Some(state) => {
            let (impl_generics, ty_generics, where_clause) = split(item);
            quote! {
                #[automatically_derived]
                impl #impl_generics #p::RunsWith<#state> for #ident #ty_generics #where_clause {
                    fn state_from(state: &#p::Arc<#state>) -> #p::Arc<#state> {
                        #p::Arc::clone(state)
                    }
                }
            }
        }
        None => {
            let mut generics = item.generics.clone();
            for param in generics.type_params_mut() {
                param.bounds.push(syn::parse_quote!(#p::Schema));
            }
            let (_, ty_generics, _) = generics.split_for_impl();
            let ty_generics = quote!(#ty_generics);
            generics.params.push(syn::parse_quote!(
                __ToolschemaState: #p::core::marker::Send + #p::core::marker::Sync + 'static
            ));
            let (impl_generics, _, where_clause) = generics.split_for_impl();
            quote! {
                #[automatically_derived]
                impl #impl_generics #p::RunsWith<__ToolschemaState> for #ident #ty_generics #where_clause {
                    fn state_from(_: &#p::Arc<__ToolschemaState>) -> #p::Arc<()> {
                        #p::no_state()
                    }
                }
            }
        }
    }
}

/// The `State` a `Tool` impl names.
fn state_type(item: &Container<'_>) -> TokenStream {
    match item.attrs.state.get() {
        Some(state) => quote!(#state),
        None => quote!(()),
    }
}

fn option<T: quote::ToTokens>(p: &TokenStream, value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(#p::Some(#value)),
        None => quote!(#p::None),
    }
}

/// Constant text of the model: `Ref::Static(value)`.
fn text<T: quote::ToTokens>(p: &TokenStream, value: T) -> TokenStream {
    quote!(#p::Ref::Static(#value))
}

/// A constant list of the model: `Ref::Static(&[items])`.
fn list<T: quote::ToTokens>(p: &TokenStream, items: impl IntoIterator<Item = T>) -> TokenStream {
    let items = items.into_iter();
    quote!(#p::Ref::Static(&[#(#items),*]))
}

fn number(p: &TokenStream, value: &LitValue) -> TokenStream {
    match value {
        LitValue::Int(n) if *n < 0 => {
            let n = *n as i64;
            quote!(#p::Number::Int(#n))
        }
        LitValue::Int(n) => {
            let n = *n as u64;
            quote!(#p::Number::UInt(#n))
        }
        LitValue::Float(f) => quote!(#p::Number::Float(#f)),
        // Parsing admits only numbers here.
        LitValue::Bool(_) | LitValue::Str(_) => quote!(#p::Number::UInt(0)),
    }
}

fn literal(p: &TokenStream, value: &LitValue) -> TokenStream {
    match value {
        LitValue::Bool(b) => quote!(#p::Literal::Bool(#b)),
        LitValue::Str(s) => {
            let s = text(p, s);
            quote!(#p::Literal::Str(#s))
        }
        LitValue::Int(_) | LitValue::Float(_) => {
            let n = number(p, value);
            quote!(#p::Literal::Number(#n))
        }
    }
}

/// Whether `ty` names one of the item's type parameters.
fn mentions(ty: &syn::Type, params: &[&syn::Ident]) -> bool {
    use quote::ToTokens;
    fn walk(tokens: TokenStream, params: &[&syn::Ident]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(ident) => params.iter().any(|p| **p == ident),
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), params)
}

/// `tokens` with every span set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(group) = &tt {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tt = proc_macro2::TokenTree::Group(inner);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
