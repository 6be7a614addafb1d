//! What the derives read of `#[serde(...)]`, on a container and on a field
//! or variant: the keys that change the JSON shape, and errors for those no
//! schema can follow.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use super::parse::{key_name, skip_value, unwrap_group};
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// What the derives read of `#[serde(...)]` on a container.
#[derive(Default)]
pub(crate) struct SerdeContainer {
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) rename_all_fields: Option<RenameRule>,
    pub(crate) deny_unknown_fields: Option<Span>,
    pub(crate) tag: Option<(String, Span)>,
    pub(crate) content: Option<(String, Span)>,
    pub(crate) untagged: Option<Span>,
    pub(crate) transparent: Option<Span>,
    pub(crate) default: bool,
}

/// What the derives read of `#[serde(...)]` on a field or variant.
#[derive(Default)]
pub(crate) struct SerdeField {
    /// The name serde reads and the name it writes, when renamed.
    pub(crate) rename: Option<(Option<String>, Option<String>, Span)>,
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) aliases: Vec<String>,
    pub(crate) default: bool,
    /// The function of `#[serde(default = "path")]`.
    pub(crate) default_path: Option<syn::ExprPath>,
    pub(crate) skip_deserializing: Option<Span>,
    pub(crate) skip_serializing: bool,
    pub(crate) skip_serializing_if: bool,
    pub(crate) flatten: Option<Span>,
    pub(crate) with: Option<(&'static str, Span)>,
    pub(crate) other: bool,
    pub(crate) untagged: Option<Span>,
}

impl SerdeContainer {
    pub(super) fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        match key_name(meta).as_deref() {
            Some(RENAME_ALL) => self.rename_all = serde_rule(cx, meta)?,
            Some(RENAME_ALL_FIELDS) => self.rename_all_fields = serde_rule(cx, meta)?,
            Some(DENY_UNKNOWN_FIELDS) => self.deny_unknown_fields = Some(span),
            Some(TAG) => self.tag = serde_str(meta)?.map(|s| (s.value(), s.span())),
            Some(CONTENT) => self.content = serde_str(meta)?.map(|s| (s.value(), s.span())),
            Some(UNTAGGED) => self.untagged = Some(span),
            Some(TRANSPARENT) => self.transparent = Some(span),
            Some(DEFAULT) => {
                self.default = true;
                skip_value(meta)?;
            }
            Some(key @ (FROM | TRY_FROM | INTO)) => {
                cx.error_span(
                    span,
                    format!(
                        "`#[serde({key})]` makes serde read or write another type, which this derive cannot see; implement `toolschema::Schema` by hand with that type's schema"
                    ),
                );
                skip_value(meta)?;
            }
            Some(key @ (FIELD_IDENTIFIER | VARIANT_IDENTIFIER)) => {
                cx.error_span(
                    span,
                    format!("`#[serde({key})]` has no JSON Schema; remove the toolschema derive from this type"),
                );
            }
            // serde checks its own keys; the rest do not change the JSON shape.
            _ => skip_value(meta)?,
        }
        Ok(())
    }
}

impl SerdeField {
    pub(super) fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        match key_name(meta).as_deref() {
            Some(RENAME) => {
                if meta.input.peek(Token![=]) {
                    if let Some(s) = serde_str(meta)? {
                        self.rename = Some((Some(s.value()), Some(s.value()), span));
                    }
                } else {
                    let (mut ser, mut de) = (None, None);
                    meta.parse_nested_meta(|inner| {
                        match key_name(&inner).as_deref() {
                            Some(SERIALIZE) => ser = serde_str(&inner)?.map(|s| s.value()),
                            Some(DESERIALIZE) => de = serde_str(&inner)?.map(|s| s.value()),
                            _ => skip_value(&inner)?,
                        }
                        Ok(())
                    })?;
                    self.rename = Some((de, ser, span));
                }
            }
            Some(RENAME_ALL) => self.rename_all = serde_rule(cx, meta)?,
            Some(ALIAS) => {
                if let Some(s) = serde_str(meta)? {
                    self.aliases.push(s.value());
                }
            }
            Some(DEFAULT) => {
                self.default = true;
                if meta.input.peek(Token![=]) {
                    self.default_path = serde_str(meta)?.and_then(|path| path.parse().ok());
                }
                skip_value(meta)?;
            }
            Some(SKIP) => {
                self.skip_deserializing = Some(span);
                self.skip_serializing = true;
            }
            Some(SKIP_DESERIALIZING) => self.skip_deserializing = Some(span),
            Some(SKIP_SERIALIZING) => self.skip_serializing = true,
            Some(SKIP_SERIALIZING_IF) => {
                self.skip_serializing_if = true;
                skip_value(meta)?;
            }
            Some(FLATTEN) => self.flatten = Some(span),
            Some(OTHER) => self.other = true,
            Some(UNTAGGED) => self.untagged = Some(span),
            Some(key @ (WITH | SERIALIZE_WITH | DESERIALIZE_WITH)) => {
                let key = [WITH, SERIALIZE_WITH, DESERIALIZE_WITH]
                    .into_iter()
                    .find(|k| *k == key)
                    .unwrap_or(WITH);
                self.with = Some((key, span));
                skip_value(meta)?;
            }
            _ => skip_value(meta)?,
        }
        Ok(())
    }

    /// The name serde reads, if renamed.
    pub(crate) fn read_name(&self) -> Option<&str> {
        self.rename.as_ref().and_then(|(de, _, _)| de.as_deref())
    }
}

/// `rename_all = "..."` or `rename_all(serialize = "...", deserialize = "...")`
/// in `#[serde]`: the rule for names serde reads. serde reports bad spellings.
fn serde_rule(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<RenameRule>> {
    if meta.input.peek(Token![=]) {
        return Ok(serde_str(meta)?.and_then(|s| RenameRule::from_name(&s.value())));
    }
    let (mut ser, mut de) = (None, None);
    meta.parse_nested_meta(|inner| {
        match key_name(&inner).as_deref() {
            Some(SERIALIZE) => {
                ser = serde_str(&inner)?.and_then(|s| RenameRule::from_name(&s.value()))
            }
            Some(DESERIALIZE) => {
                de = serde_str(&inner)?.and_then(|s| RenameRule::from_name(&s.value()))
            }
            _ => skip_value(&inner)?,
        }
        Ok(())
    })?;
    if ser != de {
        cx.error_at(
            &meta.path,
            "a schema describes one name per field; `rename_all` with different `serialize` and `deserialize` rules cannot be expressed",
        );
    }
    Ok(de)
}

/// `key = "string"` in `#[serde]`: serde reports anything else.
fn serde_str(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(Some(s.clone())),
        _ => Ok(None),
    }
}
