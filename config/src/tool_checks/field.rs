//! One argument or result field checked: its paths, its type, and the
//! keywords that apply to it.

use crate::location::ConfigLocation;

use super::{article, number};
use crate::errors::Problems;
use crate::sections::FieldSection;
use toolschema_configured::{FieldKind, FieldPath, FieldSpec};
use toolschema_runtime::model::{Literal, Number, Text};
use toolschema_text::formats::FORMATS;

pub(super) fn check_field(
    raw: &FieldSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Option<(FieldSpec, FieldPath, bool)> {
    let (exposed, source) = field_paths(raw, at, p);
    let kind = field_kind(raw, at, p)?;
    let mut ok = true;
    let mut refuse = |key: &str, message: String| {
        p.at(at.field_of(key), message);
        ok = false;
    };
    keywords_apply(raw, kind, &mut refuse);
    format_and_pattern(raw, &mut refuse);
    let [min_length, max_length, min_items, max_items] = counts(raw, &mut refuse);
    let (minimum, maximum) = bounds(raw, kind, &mut refuse);
    let values = enum_values(raw, &mut refuse);
    let default = raw
        .default
        .as_ref()
        .and_then(|d| literal(d, "default", kind, &values, &mut refuse));
    let examples = examples(raw, kind, &values, &mut refuse);
    let schema = raw
        .schema
        .as_ref()
        .and_then(|text| whole_schema(raw, text, kind, &mut refuse));
    let spec = FieldSpec {
        exposed: exposed?,
        kind,
        required: raw.required == Some(true),
        description: raw.description.clone(),
        format: raw.format.clone(),
        pattern: raw.pattern.clone(),
        min_length,
        max_length,
        minimum,
        maximum,
        min_items,
        max_items,
        values,
        default,
        examples,
        schema,
    };
    Some((spec, source?, ok))
}

/// Records a field's problem at a key of it.
type Refuse<'r> = dyn FnMut(&str, String) + 'r;

/// A field's exposed and source paths, each if it reads.
fn field_paths(
    raw: &FieldSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Option<FieldPath>, Option<FieldPath>) {
    let exposed = match FieldPath::exposed(&raw.name) {
        Ok(path) => Some(path),
        Err(problem) => {
            p.at(at.field_of("name"), problem.to_string());
            None
        }
    };
    let source_text = raw.source.as_ref().unwrap_or(&raw.name);
    // What goes in the query, a header or the path has one name, written
    // as the API spells it (`filter.name` is one query parameter).
    let one_name = raw.source.is_some()
        && raw
            .location
            .as_ref()
            .is_some_and(|l| matches!(l.as_str(), "query" | "header" | "path"));
    let read = if one_name {
        FieldPath::name
    } else {
        FieldPath::source
    };
    let source = match read(source_text) {
        Ok(path) => Some(path),
        Err(problem) => {
            p.at(at.field_of("source"), problem.to_string());
            None
        }
    };
    (exposed, source)
}

/// A field's type, if it is one.
fn field_kind(raw: &FieldSection, at: &ConfigLocation, p: &mut Problems<'_>) -> Option<FieldKind> {
    let kind = FieldKind::from_name(&raw.kind);
    if kind.is_none() {
        p.at(
            at.field_of("type"),
            format!(
                "unknown type `{}`; use string, integer, number, boolean, object, array or any",
                &raw.kind
            ),
        );
    }
    kind
}

/// Each keyword the field states applies to its type.
fn keywords_apply(raw: &FieldSection, kind: FieldKind, refuse: &mut Refuse<'_>) {
    let strings: &[FieldKind] = &[FieldKind::String];
    let numbers: &[FieldKind] = &[FieldKind::Integer, FieldKind::Number];
    let arrays: &[FieldKind] = &[FieldKind::Array];
    let keywords = [
        ("format", raw.format.is_some(), strings),
        ("pattern", raw.pattern.is_some(), strings),
        ("min_length", raw.min_length.is_some(), strings),
        ("max_length", raw.max_length.is_some(), strings),
        ("enum", raw.values.is_some(), strings),
        ("minimum", raw.minimum.is_some(), numbers),
        ("maximum", raw.maximum.is_some(), numbers),
        ("min_items", raw.min_items.is_some(), arrays),
        ("max_items", raw.max_items.is_some(), arrays),
    ];
    for (key, written, kinds) in keywords {
        if !written || kinds.contains(&kind) {
            continue;
        }
        let (noun, hint) = match kinds[0] {
            FieldKind::String => ("strings", ""),
            FieldKind::Array => (
                "arrays",
                "; declare the array itself (`name = \"lines\"`, `type = \"array\"`)",
            ),
            _ => ("numbers", ""),
        };
        refuse(
            key,
            format!(
                "`{key}` applies to {noun}, and this field is {}{hint}",
                article(kind.name())
            ),
        );
    }
}

/// The format is a JSON Schema format, and the pattern a regular
/// expression JSON Schema reads.
fn format_and_pattern(raw: &FieldSection, refuse: &mut Refuse<'_>) {
    if let Some(format) = &raw.format
        && !FORMATS.contains(&format.as_str())
    {
        refuse(
            "format",
            format!(
                "`{}` is not a JSON Schema format; use one of {} (bounds go in `minimum`/`maximum`)",
                &format,
                FORMATS.join(", ")
            ),
        );
    }
    if let Some(pattern) = &raw.pattern {
        let schema = serde_json::json!({"type": "string", "pattern": &pattern});
        if toolschema_runtime::validate::validator_of(&schema).is_err() {
            refuse(
                "pattern",
                "not a regular expression JSON Schema accepts".to_owned(),
            );
        }
    }
}

/// The lengths and item counts (`min_length`, `max_length`, `min_items`,
/// `max_items`): whole numbers from 0, each minimum at most its maximum.
fn counts(raw: &FieldSection, refuse: &mut Refuse<'_>) -> [Option<u64>; 4] {
    let mut count = |value: &Option<i64>, key: &str| -> Option<u64> {
        let value = value.as_ref()?;
        let n = u64::try_from(*value).ok();
        if n.is_none() {
            refuse(key, format!("`{key}` is a whole number from 0 up"));
        }
        n
    };
    let counted = [
        count(&raw.min_length, "min_length"),
        count(&raw.max_length, "max_length"),
        count(&raw.min_items, "min_items"),
        count(&raw.max_items, "max_items"),
    ];
    for (low, high, key) in [
        (counted[0], counted[1], "min_length"),
        (counted[2], counted[3], "min_items"),
    ] {
        if let (Some(low), Some(high)) = (low, high)
            && low > high
        {
            refuse(
                key,
                format!("`{key}` is greater than its maximum: no value could be valid"),
            );
        }
    }
    counted
}

/// `minimum` and `maximum`: numbers of the field's type, the minimum at
/// most the maximum.
fn bounds(
    raw: &FieldSection,
    kind: FieldKind,
    refuse: &mut Refuse<'_>,
) -> (Option<Number>, Option<Number>) {
    let mut bound = |value: &Option<toml::Value>, key: &str| -> Option<Number> {
        let value = value.as_ref()?;
        match (&value, kind) {
            (toml::Value::Integer(n), _) => Some(number(*n)),
            (toml::Value::Float(f), FieldKind::Number) if f.is_finite() => Some(Number::Float(*f)),
            _ => {
                refuse(
                    key,
                    format!(
                        "`{key}` of {} is a {}",
                        article(kind.name()),
                        if kind == FieldKind::Integer {
                            "whole number"
                        } else {
                            "number"
                        }
                    ),
                );
                None
            }
        }
    };
    let minimum = bound(&raw.minimum, "minimum");
    let maximum = bound(&raw.maximum, "maximum");
    if let (Some(minimum), Some(maximum)) = (minimum, maximum)
        && maximum.is_less_than(minimum)
    {
        refuse(
            "minimum",
            "`minimum` is greater than `maximum`: no value could be valid".to_owned(),
        );
    }
    (minimum, maximum)
}

/// The `enum`'s values: at least one when it is stated.
fn enum_values(raw: &FieldSection, refuse: &mut Refuse<'_>) -> Vec<String> {
    if let Some(list) = &raw.values
        && list.is_empty()
    {
        refuse("enum", "an `enum` lists at least one value".to_owned());
    }
    raw.values.clone().unwrap_or_default()
}

/// A `default` or example: a scalar of the field's type (and of its
/// `enum`, if it has one).
fn literal(
    value: &toml::Value,
    key: &str,
    kind: FieldKind,
    values: &[String],
    refuse: &mut Refuse<'_>,
) -> Option<Literal> {
    let literal = match &value {
        toml::Value::String(text) => Literal::Str(Text::from(text.clone())),
        toml::Value::Integer(n) => Literal::Number(number(*n)),
        toml::Value::Float(f) => Literal::Number(Number::Float(*f)),
        toml::Value::Boolean(b) => Literal::Bool(*b),
        _ => {
            refuse(key, "write a string, a number or a boolean".to_owned());
            return None;
        }
    };
    let in_enum = match &literal {
        Literal::Str(text) => values.is_empty() || values.iter().any(|v| **v == **text),
        _ => true,
    };
    if !kind.admits(&literal) || !in_enum {
        refuse(
            key,
            format!(
                "this value is not {} the field accepts",
                article(kind.name())
            ),
        );
        return None;
    }
    Some(literal)
}

/// The `examples`, each a literal the field accepts.
fn examples(
    raw: &FieldSection,
    kind: FieldKind,
    values: &[String],
    refuse: &mut Refuse<'_>,
) -> Vec<Literal> {
    let Some(list) = &raw.examples else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|v| literal(v, "examples", kind, values, refuse))
        .collect()
}

/// A field's stated `schema`: JSON text of a schema object that stands
/// alone (no `$ref`), of the field's `type`, that compiles; it says all,
/// so no other keyword of the schema is written beside it. Its compact
/// text, or `None` with the problem recorded.
fn whole_schema(
    raw: &FieldSection,
    text: &str,
    kind: FieldKind,
    refuse: &mut Refuse<'_>,
) -> Option<Text> {
    let beside = [
        ("format", raw.format.is_some()),
        ("pattern", raw.pattern.is_some()),
        ("min_length", raw.min_length.is_some()),
        ("max_length", raw.max_length.is_some()),
        ("minimum", raw.minimum.is_some()),
        ("maximum", raw.maximum.is_some()),
        ("min_items", raw.min_items.is_some()),
        ("max_items", raw.max_items.is_some()),
        ("enum", raw.values.is_some()),
        ("default", raw.default.is_some()),
        ("examples", raw.examples.is_some()),
    ];
    if let Some((key, _)) = beside.iter().find(|(_, written)| *written) {
        refuse(
            "schema",
            format!(
                "`schema` states the whole schema, and `{key}` is written beside it; put `{key}` inside the schema"
            ),
        );
        return None;
    }
    let schema: serde_json::Value = match serde_json::from_str(text) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        Ok(_) => {
            refuse(
                "schema",
                "`schema` is the JSON text of a schema object (`{\"type\": \"object\", …}`)"
                    .to_owned(),
            );
            return None;
        }
        Err(error) => {
            refuse("schema", format!("`schema` is not JSON text: {error}"));
            return None;
        }
    };
    if let Some(reference) = first_reference(&schema) {
        refuse(
            "schema",
            format!(
                "`schema` has a `$ref` (`{reference}`), which cannot resolve inside a tool's schema; write what it points to in its place"
            ),
        );
        return None;
    }
    let stated = schema.get("type").and_then(serde_json::Value::as_str);
    if kind != FieldKind::Any && stated != Some(kind.name()) {
        refuse(
            "schema",
            match stated {
                Some(other) => format!(
                    "`schema` says `\"type\": \"{other}\"`, and the field is {}; make them agree (`type = \"any\"` for several types)",
                    article(kind.name())
                ),
                None => format!(
                    "`schema` says no `type`, and the field is {}; write `\"type\": \"{}\"` in it (or `type = \"any\"` on the field)",
                    article(kind.name()),
                    kind.name()
                ),
            },
        );
        return None;
    }
    if let Err(error) = toolschema_runtime::validate::schema_compiles(text, &schema) {
        refuse(
            "schema",
            format!("`schema` is not a schema JSON Schema 2020-12 compiles: {error}"),
        );
        return None;
    }
    // As written: the order of its properties is the author's.
    Some(Text::from(text.trim().to_owned()))
}

/// The first `$ref` in a schema, if it has one.
fn first_reference(schema: &serde_json::Value) -> Option<&str> {
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(reference)) = map.get("$ref") {
                    return Some(reference);
                }
                pending.extend(map.values());
            }
            serde_json::Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    None
}
