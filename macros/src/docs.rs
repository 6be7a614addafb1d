//! Doc comments as data.
//!
//! All `#[doc]` lines are joined with newlines, one leading space is stripped
//! from each line, and hard-wrapped paragraphs are joined into one line, while
//! blank lines, lists, headings, tables and code blocks keep their shape.
//! `#[doc = include_str!(…)]` and other macro calls are kept as expressions and
//! joined with `concat!`, so they still work; the joined text is normalized
//! in the same way during constant evaluation (see the runtime's
//! `__private::normalize_doc`).

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
            let text = normalize(text);
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

/// What kind of Markdown block a line belongs to.
#[derive(PartialEq, Eq, Clone, Copy)]
enum Block {
    None,
    Paragraph,
    ListItem,
    Code,
}

/// Normalizes one run of doc lines.
pub(crate) fn normalize(raw: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut block = Block::None;
    let mut fence: Option<&str> = None;
    for line in raw.lines() {
        let line = line.strip_prefix(' ').unwrap_or(line).trim_end();
        let trimmed = line.trim_start();
        if let Some(marker) = fence {
            out.push(line.to_owned());
            if trimmed.starts_with(marker) {
                fence = None;
                block = Block::None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            out.push(line.to_owned());
            block = Block::Code;
            continue;
        }
        if trimmed.is_empty() {
            if out.last().is_some_and(|last| !last.is_empty()) {
                out.push(String::new());
            }
            block = Block::None;
            continue;
        }
        let indent = line.len() - trimmed.len();
        if indent >= 4 && matches!(block, Block::None | Block::Code) {
            // An indented code block.
            out.push(line.to_owned());
            block = Block::Code;
            continue;
        }
        if is_list_item(trimmed) {
            out.push(line.to_owned());
            block = Block::ListItem;
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('|') || trimmed.starts_with('>') {
            out.push(line.to_owned());
            block = Block::None;
            continue;
        }
        match (block, out.last_mut()) {
            (Block::Paragraph | Block::ListItem, Some(last)) => {
                last.push(' ');
                last.push_str(trimmed);
            }
            _ => {
                out.push(trimmed.to_owned());
                block = Block::Paragraph;
            }
        }
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out.join("\n")
}

fn is_list_item(line: &str) -> bool {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return !rest.is_empty();
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn joins_hard_wrapped_paragraphs() {
        let doc = " Returns one invoice\n by its ID.\n\n Second paragraph\n continues.";
        assert_eq!(
            normalize(doc),
            "Returns one invoice by its ID.\n\nSecond paragraph continues."
        );
    }

    #[test]
    fn keeps_lists_and_code() {
        let doc = " Steps:\n - first\n   wrapped\n - second\n\n ```\n let x = 1;\n   let y = 2;\n ```\n\n     indented code\n     more";
        assert_eq!(
            normalize(doc),
            "Steps:\n- first wrapped\n- second\n\n```\nlet x = 1;\n  let y = 2;\n```\n\n    indented code\n    more"
        );
    }

    #[test]
    fn strips_one_space_only_and_blank_edges() {
        assert_eq!(normalize("\n  two spaces\n\n\n"), "two spaces");
        assert_eq!(normalize(" a\n\n\n b"), "a\n\nb");
    }

    #[test]
    fn headings_and_numbered_lists_stay_on_their_lines() {
        let doc = " # Title\n text\n 1. one\n 2) two";
        assert_eq!(normalize(doc), "# Title\ntext\n1. one\n2) two");
    }
}
