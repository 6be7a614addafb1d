//! `#[tool(...)]` on a field: its name, description, default, examples,
//! refinement keywords, schema type and header, with the field's
//! `#[serde(...)]` beside them.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use super::parse::{key_name, lit_int, lit_str, lit_value, unknown_key};
use super::serde::SerdeField;
use super::{FORMATS, LitValue, Slot};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use toolschema_text::suggest::closest;

/// The keys `#[tool]` accepts on a field.
const FIELD_KEYS: &[&str] = &[
    RENAME,
    DESCRIPTION,
    DEFAULT,
    REQUIRED,
    SKIP,
    FORMAT,
    EXAMPLES,
    MINIMUM,
    MAXIMUM,
    MIN_LENGTH,
    MAX_LENGTH,
    PATTERN,
    MIN_ITEMS,
    MAX_ITEMS,
    SCHEMA,
    HEADER,
];

/// Attributes of a field.
pub(crate) struct Field {
    pub(crate) rename: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) default: Slot<Option<LitValue>>,
    pub(crate) required: Slot<()>,
    pub(crate) skip: Slot<()>,
    pub(crate) format: Slot<LitStr>,
    pub(crate) examples: Slot<Vec<LitValue>>,
    pub(crate) minimum: Slot<LitValue>,
    pub(crate) maximum: Slot<LitValue>,
    pub(crate) min_length: Slot<u64>,
    pub(crate) max_length: Slot<u64>,
    pub(crate) pattern: Slot<LitStr>,
    pub(crate) min_items: Slot<u64>,
    pub(crate) max_items: Slot<u64>,
    pub(crate) schema: Slot<syn::Type>,
    /// The HTTP header the argument is mirrored in (`Mcp-Param-<name>`).
    pub(crate) header: Slot<LitStr>,
    pub(crate) serde: SerdeField,
}

impl Field {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Field {
        let mut out = Field {
            rename: Slot::new(RENAME),
            description: Slot::new(DESCRIPTION),
            default: Slot::new(DEFAULT),
            required: Slot::new(REQUIRED),
            skip: Slot::new(SKIP),
            format: Slot::new(FORMAT),
            examples: Slot::new(EXAMPLES),
            minimum: Slot::new(MINIMUM),
            maximum: Slot::new(MAXIMUM),
            min_length: Slot::new(MIN_LENGTH),
            max_length: Slot::new(MAX_LENGTH),
            pattern: Slot::new(PATTERN),
            min_items: Slot::new(MIN_ITEMS),
            max_items: Slot::new(MAX_ITEMS),
            schema: Slot::new(SCHEMA),
            header: Slot::new(HEADER),
            serde: SerdeField::default(),
        };
        for attr in attrs {
            if attr.path().is_ident(TOOL) {
                if let Err(err) = attr.parse_nested_meta(|meta| out.tool_key(cx, &meta)) {
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

    fn tool_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        let Some(key) = key_name(meta) else {
            return unknown_key(cx, meta, "", FIELD_KEYS);
        };
        match key.as_str() {
            RENAME => {
                if let Some(s) = lit_str(cx, meta, RENAME)? {
                    self.rename.set(cx, span, s);
                }
            }
            DESCRIPTION => {
                if let Some(s) = lit_str(cx, meta, DESCRIPTION)? {
                    self.description.set(cx, span, s);
                }
            }
            DEFAULT => {
                let value = if meta.input.peek(Token![=]) {
                    Some(lit_value(meta.value()?)?)
                } else {
                    None
                };
                self.default.set(cx, span, value);
            }
            REQUIRED => self.required.set(cx, span, ()),
            SKIP => self.skip.set(cx, span, ()),
            HEADER => {
                if let Some(s) = lit_str(cx, meta, HEADER)? {
                    let name = s.value();
                    let token = !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
                    if token {
                        self.header.set(cx, span, s);
                    } else {
                        cx.error_at(
                            &s,
                            format!("`{name}` cannot name an HTTP header: use letters, digits and `-` (the header is `Mcp-Param-{name}`)"),
                        );
                    }
                }
            }
            FORMAT => {
                if let Some(s) = lit_str(cx, meta, FORMAT)? {
                    let format = s.value();
                    if FORMATS.contains(&format.as_str()) {
                        self.format.set(cx, span, s);
                    } else {
                        let hint = match closest(&format, FORMATS.iter().copied()) {
                            Some(near) => format!(", did you mean `{near}`?"),
                            None => format!("; use one of: {}", FORMATS.join(", ")),
                        };
                        cx.error_at(
                            &s,
                            format!("`{format}` is not a standard JSON Schema format{hint}"),
                        );
                    }
                }
            }
            EXAMPLES => {
                let value = meta.value()?;
                let content;
                syn::bracketed!(content in value);
                let mut values = Vec::new();
                while !content.is_empty() {
                    values.push(lit_value(&content)?);
                    if content.is_empty() {
                        break;
                    }
                    content.parse::<Token![,]>()?;
                }
                self.examples.set(cx, span, values);
            }
            MINIMUM | MAXIMUM => {
                let value = lit_value(meta.value()?)?;
                if !matches!(value, LitValue::Int(_) | LitValue::Float(_)) {
                    cx.error_span(span, format!("`{key}` takes a number: `{key} = 10`"));
                } else if key == MINIMUM {
                    self.minimum.set(cx, span, value);
                } else {
                    self.maximum.set(cx, span, value);
                }
            }
            MIN_LENGTH | MAX_LENGTH | MIN_ITEMS | MAX_ITEMS => {
                if let Some(lit) = lit_int(cx, meta, &key)? {
                    let slot = match key.as_str() {
                        MIN_LENGTH => &mut self.min_length,
                        MAX_LENGTH => &mut self.max_length,
                        MIN_ITEMS => &mut self.min_items,
                        _ => &mut self.max_items,
                    };
                    match lit.base10_parse::<u64>() {
                        Ok(n) => slot.set(cx, span, n),
                        Err(_) => {
                            cx.error_at(&lit, format!("`{key}` takes a whole number: `{key} = 3`"))
                        }
                    }
                }
            }
            PATTERN => {
                if let Some(s) = lit_str(cx, meta, PATTERN)? {
                    self.pattern.set(cx, span, s);
                }
            }
            SCHEMA => {
                let ty: syn::Type = meta.value()?.parse()?;
                self.schema.set(cx, span, ty);
            }
            _ => return unknown_key(cx, meta, "", FIELD_KEYS),
        }
        Ok(())
    }

    /// The spans of every `#[tool]` key the field sets.
    pub(crate) fn key_spans(&self) -> impl Iterator<Item = Span> {
        [
            self.rename.span(),
            self.description.span(),
            self.default.span(),
            self.required.span(),
            self.skip.span(),
            self.examples.span(),
            self.schema.span(),
            self.header.span(),
        ]
        .into_iter()
        .flatten()
        .chain(self.refinement_spans())
    }

    /// The spans of the refinement keywords the field sets, in the order
    /// they are declared here.
    pub(crate) fn refinement_spans(&self) -> impl Iterator<Item = Span> {
        [
            self.format.span(),
            self.pattern.span(),
            self.min_length.span(),
            self.max_length.span(),
            self.minimum.span(),
            self.maximum.span(),
            self.min_items.span(),
            self.max_items.span(),
        ]
        .into_iter()
        .flatten()
    }

    /// Whether the field sets any refinement keyword.
    pub(crate) fn has_refinements(&self) -> bool {
        self.refinement_spans().next().is_some()
    }
}
