//! The derives of toolschema: `#[derive(Tool)]` and `#[derive(Schema)]`.
//!
//! Use them through the `toolschema` crate, which documents them. This crate
//! is a thin shim: each derive parses the item (`ast`), checks rules that
//! span several attributes (`check`), then generates constant data
//! (`generate`). Every mistake is collected (`ctxt`) and reported at once,
//! next to a stub impl so that no follow-on errors appear.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod docs;
mod expand;
mod generate;
mod icon;
mod raw;
mod symbol;

use proc_macro::TokenStream;

/// Derives `toolschema::Tool` (and `toolschema::Schema`) for a struct with
/// named fields: the struct is the tool's input. See the `toolschema` crate.
#[proc_macro_derive(Tool, attributes(tool, serde))]
pub fn derive_tool(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input, ast::Derive::Tool).into()
}

/// Derives `toolschema::Schema` for a struct or an enum. See the `toolschema`
/// crate.
#[proc_macro_derive(Schema, attributes(tool, serde))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input, ast::Derive::Schema).into()
}
