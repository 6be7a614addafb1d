//! `#[tool(...)]` on an enum variant: its description; serde's own keys
//! name and skip variants.

use syn::LitStr;
use syn::spanned::Spanned;

use super::Slot;
use super::parse::{key_name, lit_str, skip_value, unknown_key};
use super::serde::SerdeField;
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// The keys `#[tool]` accepts on an enum variant.
const VARIANT_KEYS: &[&str] = &[DESCRIPTION];

/// Attributes of an enum variant.
pub(crate) struct Variant {
    pub(crate) description: Slot<LitStr>,
    pub(crate) serde: SerdeField,
}

impl Variant {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Variant {
        let mut out = Variant {
            description: Slot::new(DESCRIPTION),
            serde: SerdeField::default(),
        };
        for attr in attrs {
            if attr.path().is_ident(TOOL) {
                let result = attr.parse_nested_meta(|meta| {
                    let span = meta.path.span();
                    match key_name(&meta).as_deref() {
                        Some(DESCRIPTION) => {
                            if let Some(s) = lit_str(cx, &meta, DESCRIPTION)? {
                                out.description.set(cx, span, s);
                            }
                            Ok(())
                        }
                        Some(key @ (RENAME | SKIP)) => {
                            cx.error_span(
                                span,
                                format!(
                                    "enum variants keep serde's names; use `#[serde({key})]` instead of `#[tool({key})]`"
                                ),
                            );
                            skip_value(&meta)
                        }
                        _ => unknown_key(cx, &meta, "", VARIANT_KEYS),
                    }
                });
                if let Err(err) = result {
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE)
                && let Err(err) = attr.parse_nested_meta(|meta| out.serde.key(cx, &meta))
            {
                cx.syn_error(err);
            }
        }
        out
    }
}
