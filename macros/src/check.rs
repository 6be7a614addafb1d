//! Rules that span several attributes or fields. Each broken rule is recorded
//! at the token it is about; checking goes on so that every mistake shows.

use std::collections::HashMap;

use crate::ast::Derive;
use crate::ast::{Container, Data, Field, Style};
use crate::ctxt::Ctxt;

/// The name a tool is reserved for.
pub(crate) const META_TOOL: &str = "discover_tool_schema";
/// The name the search mode's meta-tool is reserved.
pub(crate) const SEARCH_TOOL: &str = "search_tools";
/// The input field reserved for the discovery hint.
pub(crate) const HINT_FIELD: &str = "_schema_discovery";

pub(crate) fn check(cx: &Ctxt, item: &Container<'_>, derive: Derive) {
    check_kind(cx, item, derive);
    check_transparent(cx, item);
    check_container(cx, item, derive);
    if let Some(path) = item.attrs.input_schema.get() {
        check_input_schema(cx, item, derive, path);
        return;
    }
    match &item.data {
        Data::Struct(style, fields) => {
            check_fields(cx, item, derive, fields, *style == Style::Named);
        }
        Data::Enum(variants) => {
            for variant in variants {
                if let Some(span) = variant.attrs.serde.untagged {
                    cx.error_span(
                        span,
                        "`#[serde(untagged)]` on one variant cannot be described yet; put `#[serde(untagged)]` on the whole enum",
                    );
                }
                if let Some((key, span)) = variant.attrs.serde.with {
                    cx.error_span(
                        span,
                        format!("`#[serde({key})]` on a variant changes its JSON in a way this derive cannot see; remove it or implement `Schema` by hand"),
                    );
                }
                for field in &variant.fields {
                    if let Some(span) = field.attrs.rename.span() {
                        cx.error_span(
                            span,
                            "fields of enum variants keep serde's names; use `#[serde(rename = \"...\")]`",
                        );
                    }
                }
                check_fields(
                    cx,
                    item,
                    Derive::Schema,
                    &variant.fields,
                    variant.style == Style::Named,
                );
            }
        }
    }
}

/// A tool whose input schema is a file: the file is a valid schema of an
/// object, and nothing in the struct claims to describe the arguments.
fn check_input_schema(cx: &Ctxt, item: &Container<'_>, derive: Derive, path: &syn::LitStr) {
    let span = item
        .attrs
        .input_schema
        .span()
        .unwrap_or_else(|| path.span());
    if derive != Derive::Tool {
        cx.error_span(
            span,
            "`input_schema` gives a tool's arguments their schema; it applies with `#[derive(Tool)]`",
        );
        return;
    }
    if let Err(problem) = crate::raw::load(path) {
        cx.error_at(path, problem);
    }
    let attrs = &item.attrs;
    for (key, span) in [
        ("rename_all", attrs.rename_all.span()),
        ("allow_unknown_fields", attrs.allow_unknown_fields.span()),
    ] {
        if let Some(span) = span {
            cx.error_span(
                span,
                format!("the schema file describes the arguments, so `{key}` has nothing to change; say it in the file"),
            );
        }
    }
    if let Data::Struct(_, fields) = &item.data {
        for span in fields.iter().flat_map(|field| field.attrs.key_spans()) {
            cx.error_span(
                span,
                "the schema file describes the arguments, so field attributes have nothing to change; say it in the file",
            );
        }
    }
}

/// A tool's input is a JSON object: only a struct with named fields.
fn check_kind(cx: &Ctxt, item: &Container<'_>, derive: Derive) {
    if derive != Derive::Tool {
        return;
    }
    let problem = match &item.data {
        Data::Enum(_) => Some("an enum"),
        Data::Struct(Style::Tuple | Style::Newtype, _) => Some("a tuple struct"),
        Data::Struct(Style::Unit, _) => Some("a unit struct"),
        Data::Struct(Style::Named, _) => None,
    };
    if let Some(problem) = problem {
        cx.error_span(
            item.keyword,
            format!(
                "a tool's input must be a JSON object, so `#[derive(Tool)]` needs a struct with named fields, not {problem}; wrap the data in a struct such as `struct {}Args {{ value: ... }}`",
                item.ident
            ),
        );
    }
    if let Some(span) = item.attrs.serde.transparent {
        cx.error_span(
            span,
            "a tool's input must be a JSON object; `#[serde(transparent)]` makes it its one field's value",
        );
    }
}

/// A transparent struct is its field's type alone, as serde reads it and
/// as it is advertised: a refinement of the field would not be advertised.
fn check_transparent(cx: &Ctxt, item: &Container<'_>) {
    if item.attrs.serde.transparent.is_none() {
        return;
    }
    let Data::Struct(_, fields) = &item.data else {
        return;
    };
    for field in fields {
        if let Some(span) = field.attrs.refinement_spans().next() {
            cx.error_span(
                span,
                "with `#[serde(transparent)]` this struct is its field's type alone, so a refinement of the field would not be advertised; put it on the fields that hold this struct, or remove `transparent`",
            );
        }
    }
}

fn check_container(cx: &Ctxt, item: &Container<'_>, derive: Derive) {
    let attrs = &item.attrs;
    if derive == Derive::Schema {
        let tool_only = [
            ("name", attrs.name.span()),
            ("output", attrs.output.span()),
            ("state", attrs.state.span()),
            ("version", attrs.version.span()),
            ("annotations", attrs.annotations.span()),
            ("internal", attrs.internal.span()),
        ];
        let icons = attrs.icons.iter().map(|icon| ("icon", Some(icon.span)));
        for (key, span) in tool_only.into_iter().chain(icons) {
            if let Some(span) = span {
                cx.error_span(
                    span,
                    format!("`{key}` describes a tool; it applies with `#[derive(Tool)]`, not `#[derive(Schema)]`"),
                );
            }
        }
    }
    if derive == Derive::Tool {
        for icon in &attrs.icons {
            if let Err(problems) = crate::icon::resolve(icon) {
                for (span, message) in problems {
                    cx.error_span(span, message);
                }
            }
        }
    }
    if derive == Derive::Tool {
        if item.doc.is_none() && !attrs.description.is_set() {
            cx.error_at(
                item.ident,
                "a tool needs a description, which the model reads to choose it: add a doc comment (`/// What the tool does.`) or `#[tool(description = \"...\")]`",
            );
        }
        let name = tool_name(item);
        let span = attrs.name.get().map_or(item.ident.span(), |lit| lit.span());
        if name == META_TOOL {
            cx.error_span(
                span,
                format!("`{META_TOOL}` is reserved for the schema discovery meta-tool; choose another name"),
            );
        } else if name == SEARCH_TOOL {
            cx.error_span(
                span,
                format!("`{SEARCH_TOOL}` is reserved for the search mode's meta-tool; choose another name"),
            );
        } else if name.len() > 128 {
            cx.error_span(
                span,
                format!(
                    "tool name is {} characters long; MCP allows at most 128",
                    name.len()
                ),
            );
        } else if !is_mcp_name(&name) {
            cx.error_span(
                span,
                format!("tool name `{name}` breaks MCP's naming rule: use 1 to 128 letters, digits, `_`, `-` or `.`"),
            );
        }
    }
    if let (Some(_), Some(span)) = (
        attrs.serde.deny_unknown_fields,
        attrs.allow_unknown_fields.span(),
    ) {
        cx.error_span(
            span,
            "`allow_unknown_fields` contradicts `#[serde(deny_unknown_fields)]`: serde would refuse what the schema allows",
        );
    }
    if let Data::Enum(_) = item.data {
        if let Some(span) = attrs.rename_all.span() {
            cx.error_span(
                span,
                "enum values keep serde's names; use `#[serde(rename_all = \"...\")]` on the enum",
            );
        }
        if let Some(span) = attrs.allow_unknown_fields.span() {
            cx.error_span(span, "`allow_unknown_fields` applies to structs");
        }
    } else if let Some((_, span)) = &attrs.serde.tag {
        cx.error_span(
            *span,
            "`#[serde(tag)]` on a struct adds a property only when writing; it cannot be described, remove it or use an enum",
        );
    }
    if let (Some((_, span)), None) = (&attrs.serde.content, &attrs.serde.tag) {
        cx.error_span(
            *span,
            "`#[serde(content)]` needs `#[serde(tag = \"...\")]` beside it",
        );
    }
}

fn check_fields(
    cx: &Ctxt,
    item: &Container<'_>,
    derive: Derive,
    fields: &[Field<'_>],
    named: bool,
) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut headers: HashMap<String, ()> = HashMap::new();
    for field in fields {
        if !named {
            check_unnamed_field(cx, field);
            continue;
        }
        check_renames(cx, field);
        check_bounds(cx, &field.attrs);
        check_presence(cx, item, field);
        check_flattened(cx, field);
        check_header(cx, derive, field, &mut headers);
        if field.is_shown() && field.attrs.serde.flatten.is_none() {
            check_exposed_name(cx, derive, field, &mut seen);
        }
    }
}

/// A field of a tuple struct: no `tool` attributes, no `with`.
fn check_unnamed_field(cx: &Ctxt, field: &Field<'_>) {
    for span in field.attrs.key_spans() {
        cx.error_span(span, "`tool` field attributes apply to named fields only");
    }
    if let Some((key, span)) = field.attrs.serde.with {
        cx.error_span(
            span,
            format!("`#[serde({key})]` changes this value's JSON in a way this derive cannot see; implement `Schema` by hand"),
        );
    }
}

/// One name per field, a rename only where serde reads a name, and a
/// field read through other code (`with`) says what it reads.
fn check_renames(cx: &Ctxt, field: &Field<'_>) {
    let attrs = &field.attrs;
    let serde = &attrs.serde;
    if let Some((de, ser, span)) = &serde.rename
        && de != ser
    {
        cx.error_span(
            *span,
            "a schema describes one name per field; use the same name to `serialize` and `deserialize`, or `#[serde(rename = \"...\")]`",
        );
    }
    if let Some(span) = attrs.rename.span() {
        if serde.flatten.is_some() {
            cx.error_span(
                span,
                "a flattened field has no name of its own; serde merges its fields, so `rename` them there",
            );
        } else if serde.skip_deserializing.is_some() {
            cx.error_span(
                span,
                "serde never reads this field (`skip`), so there is no name to rename; remove `rename`",
            );
        }
    }
    if let Some((key, span)) = serde.with
        && !attrs.schema.is_set()
    {
        cx.error_span(
            span,
            format!(
                "`#[serde({key})]` changes this field's JSON in a way this derive cannot see; say what it reads with `#[tool(schema = Type)]`, naming a type that has that schema"
            ),
        );
    }
}

/// `required` and `default` agree with each other, with `skip`, and with
/// serde's own default.
fn check_presence(cx: &Ctxt, item: &Container<'_>, field: &Field<'_>) {
    let attrs = &field.attrs;
    let serde = &attrs.serde;
    let serde_default = serde.default || item.attrs.serde.default;
    if let Some(span) = attrs.required.span() {
        if attrs.default.is_set() || serde_default {
            cx.error_span(
                span,
                "`required` contradicts the field's default: a field with a default may be left out; remove one of them",
            );
        }
        if attrs.skip.is_set() {
            cx.error_span(
                span,
                "`required` contradicts `skip`: a skipped field is never shown",
            );
        }
    }
    if let Some(span) = attrs.default.span()
        && !serde_default
        && serde.skip_deserializing.is_none()
    {
        cx.error_span(
            span,
            "`#[tool(default)]` makes the field optional, but serde would refuse a call without it; add `#[serde(default)]` to the field (or `#[serde(default = \"path\")]`, a function returning the advertised value, when that is not the type's `Default`)",
        );
    }
}

/// A flattened field takes no attribute that describes a property.
fn check_flattened(cx: &Ctxt, field: &Field<'_>) {
    let attrs = &field.attrs;
    if attrs.serde.flatten.is_none() {
        return;
    }
    let others = [
        attrs.examples.span(),
        attrs.default.span(),
        attrs.description.span(),
    ];
    let refining = attrs.refinement_spans().chain(others.into_iter().flatten());
    for span in refining {
        cx.error_span(
            span,
            "a flattened field is not a property of its own; put this attribute on the fields of the flattened type",
        );
    }
}

/// `header` only on a tool's own shown arguments, each header once.
fn check_header(cx: &Ctxt, derive: Derive, field: &Field<'_>, headers: &mut HashMap<String, ()>) {
    let attrs = &field.attrs;
    let serde = &attrs.serde;
    let Some(header) = attrs.header.get() else {
        return;
    };
    let span = attrs.header.span().unwrap_or_else(|| header.span());
    if derive != Derive::Tool {
        cx.error_span(
            span,
            "only a tool's own arguments travel in headers: put `header` on a field of the `#[derive(Tool)]` struct",
        );
    } else if !field.is_shown() || serde.flatten.is_some() || serde.skip_deserializing.is_some() {
        cx.error_span(
            span,
            "a skipped or flattened field is not an argument of its own, so it cannot travel in a header",
        );
    } else if headers
        .insert(header.value().to_ascii_lowercase(), ())
        .is_some()
    {
        cx.error_at(
            header,
            format!(
                "two arguments travel in the header `Mcp-Param-{}`; give one another `header`",
                header.value()
            ),
        );
    }
}

/// A shown field's exposed name is valid, not reserved, and its own.
fn check_exposed_name<'f>(
    cx: &Ctxt,
    derive: Derive,
    field: &'f Field<'_>,
    seen: &mut HashMap<&'f str, ()>,
) {
    if !is_mcp_name(&field.exposed) {
        cx.error_span(
            field.name_span(),
            format!(
                "`{}` is not a valid exposed name: use 1 to 128 letters, digits, `_`, `-` or `.`, and rename it with `#[tool(rename = \"...\")]`",
                field.exposed
            ),
        );
    }
    if derive == Derive::Tool && field.exposed == HINT_FIELD {
        cx.error_span(
            field.name_span(),
            format!("`{HINT_FIELD}` is reserved for the schema discovery hint; rename the field with `#[tool(rename = \"...\")]`"),
        );
    }
    if seen.insert(&field.exposed, ()).is_some() {
        cx.error_span(
            field.name_span(),
            format!(
                "two fields are exposed as `{}`; give one another name with `#[tool(rename = \"...\")]`",
                field.exposed
            ),
        );
    }
}

/// The tool's name: `#[tool(name)]`, else the struct name in kebab-case.
/// Bounds that leave no valid value, decided from the attributes alone and
/// reported at the upper bound's key.
fn check_bounds(cx: &Ctxt, attrs: &crate::attr::Field) {
    use crate::attr::LitValue;
    let number = |value: &LitValue| match value {
        LitValue::Int(n) => Some(*n as f64),
        LitValue::Float(x) => Some(*x),
        _ => None,
    };
    if let (Some(low), Some(high), Some(span)) = (
        attrs.minimum.get().and_then(number),
        attrs.maximum.get().and_then(number),
        attrs.maximum.span(),
    ) && high < low
    {
        cx.error_span(
            span,
            format!("`maximum` ({high}) is below `minimum` ({low}): no value could be valid; raise `maximum` or lower `minimum`"),
        );
    }
    for (low_key, low, high_key, high) in [
        (
            "min_length",
            &attrs.min_length,
            "max_length",
            &attrs.max_length,
        ),
        ("min_items", &attrs.min_items, "max_items", &attrs.max_items),
    ] {
        if let (Some(low), Some(high), Some(span)) = (low.get(), high.get(), high.span())
            && high < low
        {
            cx.error_span(
                span,
                format!("`{high_key}` ({high}) is below `{low_key}` ({low}): no value could be valid; raise `{high_key}` or lower `{low_key}`"),
            );
        }
    }
}

pub(crate) fn tool_name(item: &Container<'_>) -> String {
    match item.attrs.name.get() {
        Some(lit) => lit.value(),
        None => crate::case::RenameRule::Kebab.apply_to_variant(&crate::ast::unraw(item.ident)),
    }
}

/// MCP's rule for tool and property names: `^[A-Za-z0-9_.-]{1,128}$`.
pub(crate) fn is_mcp_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}
