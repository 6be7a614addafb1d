//! Doc comments as data.
//!
//! All `#[doc]` lines are joined with newlines, one leading space is stripped
//! from each line, and hard-wrapped paragraphs are joined into one line, while
//! blank lines, lists, headings, tables and code blocks keep their shape.
//! `#[doc = include_str!(…)]` and other macro calls are kept as expressions and
//! joined with `concat!`, so they still work; the joined text is normalized
//! during constant evaluation. Both ways run the one normalizer of
//! `toolschema_text::doc`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::symbol::DOC;

/// A doc comment: `None` if the item has none.
pub(crate) enum Doc {
    /// Text known at expansion time.
    Text(String),
    /// Text that includes macro calls: a `concat!` expression.
    Expr(TokenStream),
}

enum Part {
    Text(String),
    Expr(syn::Expr),
}

/// Reads the doc comment of an item.
pub(crate) fn read(attrs: &[syn::Attribute]) -> Option<Doc> {
    let mut parts: Vec<Part> = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident(DOC) {
            continue;
        }
        let syn::Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        match &meta.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => match parts.last_mut() {
                Some(Part::Text(text)) => {
                    text.push('\n');
                    text.push_str(&s.value());
                }
                _ => parts.push(Part::Text(s.value())),
            },
            other => parts.push(Part::Expr(other.clone())),
        }
    }
    match parts.as_slice() {
        [] => None,
        [Part::Text(text)] => {
            let text = toolschema_text::doc::normalize(&strip_one_space(text));
            (!text.is_empty()).then_some(Doc::Text(text))
        }
        _ => {
            let mut pieces = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    pieces.push(quote!("\n"));
                }
                // The whole is normalized once, when it is known; only the
                // one leading space of each `///` line goes now.
                pieces.push(match part {
                    Part::Text(text) => {
                        let text = strip_one_space(text);
                        quote!(#text)
                    }
                    Part::Expr(expr) => quote!(#expr),
                });
            }
            // Each `#[doc]` attribute is a line, as rustdoc reads them.
            Some(Doc::Expr(quote!(::core::concat!(#(#pieces),*))))
        }
    }
}

impl Doc {
    /// The doc as a `&'static str` expression. Text known only after
    /// expansion is normalized during constant evaluation, by the runtime's
    /// `normalize_doc` (`p` is the path to `__private`).
    pub(crate) fn to_tokens(&self, p: &TokenStream) -> TokenStream {
        match self {
            Doc::Text(text) => quote!(#text),
            Doc::Expr(expr) => quote!({
                const RAW: &str = #expr;
                const LONG: ([u8; RAW.len()], usize) = #p::normalize_doc::<{ RAW.len() }>(RAW);
                const SHORT: [u8; LONG.1] = #p::doc_prefix::<{ RAW.len() }, { LONG.1 }>(&LONG.0);
                #p::doc_str(&SHORT)
            }),
        }
    }
}

/// Each line without its first leading space (the one `///` leaves).
fn strip_one_space(text: &str) -> String {
    text.split('\n')
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::{Doc, read};

    fn doc(lines: &[&str]) -> Option<String> {
        let attrs: Vec<syn::Attribute> = lines
            .iter()
            .map(|line| syn::parse_quote!(#[doc = #line]))
            .collect();
        read(&attrs).map(|doc| match doc {
            Doc::Text(text) => text,
            Doc::Expr(_) => panic!("literal doc lines are text"),
        })
    }

    #[test]
    fn one_leading_space_goes_and_paragraphs_join() {
        assert_eq!(
            doc(&[" Returns one invoice", " by its ID.", "", "     code"]).as_deref(),
            Some("Returns one invoice by its ID.\n\n    code")
        );
        assert_eq!(doc(&["", " "]), None);
    }
}
