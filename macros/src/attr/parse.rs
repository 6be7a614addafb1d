//! What the parsers of every key share: a key's name, the error of an
//! unknown key, skipping a value, and reading the literals keys take.

use proc_macro2::TokenTree;
use syn::meta::ParseNestedMeta;
use syn::{LitStr, Token};

use super::LitValue;
use crate::case::{RULE_NAMES, RenameRule};
use crate::ctxt::Ctxt;
use toolschema_text::suggest::closest;

/// The key as a plain string, if it is a single identifier.
pub(super) fn key_name(meta: &ParseNestedMeta<'_>) -> Option<String> {
    let ident = meta.path.get_ident()?;
    Some(ident.to_string().trim_start_matches("r#").to_owned())
}

/// Records an unknown key, with a suggestion, and skips its value.
pub(super) fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    inside: &str,
    candidates: &[&str],
) -> syn::Result<()> {
    let key = meta
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    let place = if inside.is_empty() {
        "`tool` attribute".to_owned()
    } else {
        format!("`tool({inside})` key")
    };
    let message = match closest(&key, candidates.iter().copied()) {
        Some(near) => format!("unknown {place} `{key}`, did you mean `{near}`?"),
        None => format!(
            "unknown {place} `{key}`; expected one of: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    cx.error_at(&meta.path, message);
    skip_value(meta)
}

/// Skips the rest of one key: `= value` or `(...)`.
pub(super) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    meta.input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if let TokenTree::Punct(punct) = &tt
                && punct.as_char() == ','
            {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

/// `key = "string"`; a literal of another kind is recorded as an error.
pub(super) fn lit_str(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(Some(s.clone())),
        other => {
            cx.error_at(other, format!("`{key}` takes a string: `{key} = \"...\"`"));
            Ok(None)
        }
    }
}

/// `key = ["a", "b"]`: a list of strings.
pub(super) fn lit_strs(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    let content;
    syn::bracketed!(content in value);
    let list = content.parse_terminated(|input| input.parse::<LitStr>(), Token![,])?;
    Ok(list.into_iter().collect())
}

/// `key = 123`; anything else is recorded as an error.
pub(super) fn lit_int(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<syn::LitInt>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => Ok(Some(n.clone())),
        other => {
            cx.error_at(other, format!("`{key}` takes a whole number: `{key} = 3`"));
            Ok(None)
        }
    }
}

pub(super) fn unwrap_group(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Group(group) => unwrap_group(&group.expr),
        other => other,
    }
}

/// `key` alone (true) or `key = true|false`.
pub(super) fn flag_or_bool(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

/// A literal: a string, a boolean, or a number with an optional minus sign.
pub(super) fn lit_value(input: syn::parse::ParseStream<'_>) -> syn::Result<LitValue> {
    let negative = input.peek(Token![-]);
    if negative {
        input.parse::<Token![-]>()?;
    }
    let lit: syn::Lit = input.parse()?;
    let value = match (&lit, negative) {
        (syn::Lit::Str(s), false) => LitValue::Str(s.value()),
        (syn::Lit::Bool(b), false) => LitValue::Bool(b.value),
        (syn::Lit::Int(n), _) => {
            let n: i128 = n.base10_parse()?;
            let n = if negative { -n } else { n };
            if n < i64::MIN as i128 || n > u64::MAX as i128 {
                return Err(syn::Error::new(
                    lit.span(),
                    "this number does not fit in 64 bits",
                ));
            }
            LitValue::Int(n)
        }
        (syn::Lit::Float(f), _) => {
            let f: f64 = f.base10_parse()?;
            LitValue::Float(if negative { -f } else { f })
        }
        _ => {
            return Err(syn::Error::new(
                lit.span(),
                "expected a literal: a string, a number, `true` or `false`",
            ));
        }
    };
    Ok(value)
}

/// `rename_all = "camelCase"` in `#[tool]`.
pub(super) fn rename_rule(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<RenameRule>> {
    let Some(s) = lit_str(cx, meta, key)? else {
        return Ok(None);
    };
    match RenameRule::from_name(&s.value()) {
        Some(rule) => Ok(Some(rule)),
        None => {
            let hint = match closest(&s.value(), RULE_NAMES.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("expected one of: {}", RULE_NAMES.join(", ")),
            };
            cx.error_at(&s, format!("unknown rename rule `{}`, {hint}", s.value()));
            Ok(None)
        }
    }
}
