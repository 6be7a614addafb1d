//! One argument or result as the configuration writes it: its type,
//! format, pattern, lengths, bounds, values and example, each kept only
//! where the configuration's checks take it.

use super::context::Found;
use super::read::{Read, as_array, as_i64, as_str, integer, type_of};
use crate::sections;
use toolschema_runtime::render::Json as Value;
use toolschema_text::formats::FORMATS;

/// Base64 text (RFC 4648, padded), for OpenAPI's `format: byte`.
const BASE64: &str = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

/// Marks the item schema of a query list written as one comma-joined
/// parameter (the importer's own key, never written out as a keyword).
pub(super) const JOINED: &str = "x-toolschema-joined";

/// One argument or result as written: what `field` says, in the
/// configuration's keys, each keyword kept only where the checks take it
/// (and the example only where its own field's schema accepts it).
/// Whether a pattern uses Unicode property escapes (`\p{L}`, `\P{N}`):
/// JSON Schema reads them, Python's `re` (and so the Python SDK's check of
/// an output schema) does not.
fn has_property_escape(pattern: &str) -> bool {
    pattern.contains("\\p{") || pattern.contains("\\P{")
}

/// `schema` without the patterns that use Unicode property escapes, at
/// any depth; whether any was removed.
fn without_property_escapes(schema: &mut Value) -> bool {
    let mut removed = false;
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                if object
                    .get("pattern")
                    .and_then(as_str)
                    .is_some_and(has_property_escape)
                {
                    object.remove("pattern");
                    removed = true;
                }
                stack.extend(object.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    removed
}

pub(super) fn field_section(
    field: &Found,
    argument: bool,
    notes: &mut Vec<String>,
) -> sections::FieldSection {
    let mut out = sections::FieldSection {
        name: field.exposed.clone(),
        source: (!field.source.is_empty() && field.source != field.exposed)
            .then(|| field.source.clone()),
        location: field.location.filter(|_| argument).map(str::to_owned),
        explode: field.schema.get(JOINED).is_some().then_some(false),
        ..sections::FieldSection::default()
    };
    // A value passed on whole: its schema says all, description included.
    if let Some(schema) = &field.whole {
        out.kind = configured_kind(type_of(&field.schema).unwrap_or("any")).to_owned();
        out.required = field.required.then_some(true);
        let mut schema = schema.clone();
        if !argument && without_property_escapes(&mut schema) {
            notes.push(format!(
                "patterns with Unicode property escapes (`\\p{{L}}`) in the result `{}` are left out: the Python SDK refuses an output schema whose patterns Python cannot compile",
                field.exposed
            ));
        }
        out.schema = Some(schema.to_compact_string());
        return out;
    }
    let schema = &field.schema;
    // A type JSON Schema does not name (`bool`, `null`, `file`) takes any
    // value, and so does a field of a body or answer that names no type; a
    // parameter without one is text (its schema says so already).
    let untyped = match field.location {
        Some(_) => "string",
        None => "any",
    };
    let kind = configured_kind(type_of(schema).unwrap_or(untyped));
    out.kind = kind.to_owned();
    out.required = field.required.then_some(true);
    out.description = field.description.clone();
    // What is written is also the schema its example is held to.
    let mut written = serde_json::Map::new();
    written.insert("type".to_owned(), kind.into());
    // OpenAPI's own names of standard formats (`url`) read as JSON
    // Schema's.
    let format = schema.get("format").and_then(as_str).map(|f| match f {
        "url" => "uri",
        other => other,
    });
    if kind == "string"
        && let Some(format) = format.filter(|f| FORMATS.contains(f))
    {
        out.format = Some(format.to_owned());
        written.insert("format".to_owned(), format.into());
    }
    // OpenAPI's `byte` is base64 text: said by a pattern (JSON Schema
    // names no such format), unless the schema has a pattern of its own.
    if kind == "string" && format == Some("byte") && schema.get("pattern").is_none() {
        out.pattern = Some(BASE64.to_owned());
        written.insert("pattern".to_owned(), BASE64.into());
    }
    if kind == "string" {
        let length = |key: &str| schema.get(key).and_then(as_i64).filter(|n| *n >= 0);
        out.min_length = length("minLength");
        out.max_length = length("maxLength");
        for (key, n) in [("minLength", out.min_length), ("maxLength", out.max_length)] {
            if let Some(n) = n {
                written.insert(key.to_owned(), n.into());
            }
        }
        if let Some(pattern) = schema.get("pattern").and_then(as_str) {
            if !argument && has_property_escape(pattern) {
                notes.push(format!(
                    "the pattern of the result `{}` is left out: it has Unicode property escapes (`\\p{{L}}`), and the Python SDK refuses an output schema whose patterns Python cannot compile",
                    field.exposed
                ));
            } else if reads_pattern(pattern) {
                out.pattern = Some(pattern.to_owned());
                written.insert("pattern".to_owned(), pattern.into());
            } else {
                notes.push(format!(
                    "the pattern of `{}` is left out: JSON Schema does not read it as a regular expression",
                    field.exposed
                ));
            }
        }
    }
    if kind == "array" {
        let count = |key: &str| schema.get(key).and_then(as_i64).filter(|n| *n >= 0);
        out.min_items = count("minItems");
        out.max_items = count("maxItems");
    }
    if matches!(kind, "integer" | "number") {
        let (minimum, maximum) = bounds(schema, kind, format);
        for (key, bound) in [("minimum", &minimum), ("maximum", &maximum)] {
            if let Some(bound) = bound {
                let number = match bound {
                    toml::Value::Integer(n) => serde_json::Value::from(*n),
                    toml::Value::Float(x) => serde_json::Value::from(*x),
                    _ => serde_json::Value::Null,
                };
                written.insert(key.to_owned(), number);
            }
        }
        (out.minimum, out.maximum) = (minimum, maximum);
    }
    if kind == "string"
        && let Some(values) = schema.get("enum").and_then(as_array)
    {
        let values: Vec<&str> = values.iter().filter_map(as_str).collect();
        if !values.is_empty() {
            written.insert("enum".to_owned(), values.clone().into());
            out.values = Some(values.into_iter().map(str::to_owned).collect());
        }
    }
    if let Some(example) = schema.get("example") {
        let fits = scalar_literal(example, kind).is_some_and(|_| {
            let validator: Result<jsonschema::Validator, _> =
                toolschema_runtime::validate::validator_of(&serde_json::Value::Object(written));
            validator.is_ok_and(|v| v.is_valid(&example.to_value()))
        });
        match scalar_literal(example, kind) {
            Some(literal) if fits => out.examples = Some(vec![literal]),
            _ => notes.push(format!(
                "the example of `{}` is left out: its own field's schema refuses it",
                field.exposed
            )),
        }
    }
    out
}

/// Whether JSON Schema reads `pattern` as a regular expression (as the
/// checks compile it, remembered by its text: a document repeats its
/// patterns across operations).
pub(super) fn reads_pattern(pattern: &str) -> bool {
    let schema = serde_json::json!({ "pattern": pattern });
    toolschema_runtime::validate::schema_compiles(&schema.to_string(), &schema).is_ok()
}

/// A schema's type as the configuration names it: JSON Schema's own, or
/// `any` for what it does not name (`bool`, `null`, `file`).
pub(super) fn configured_kind(kind: &str) -> &'static str {
    match kind {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "object" => "object",
        "array" => "array",
        _ => "any",
    }
}

/// The bounds of a number field: its format's range (`int32`, `int64`)
/// intersected with its own `minimum` and `maximum`, each written once.
pub(super) fn bounds(
    schema: &Value,
    kind: &str,
    format: Option<&str>,
) -> (Option<toml::Value>, Option<toml::Value>) {
    let range = match (kind, format) {
        ("integer", Some("int32")) => Some((f64::from(i32::MIN), f64::from(i32::MAX))),
        _ => None,
    };
    let own = |key: &str| match schema.get(key) {
        Some(Value::Number(n)) => Some(n.as_f64()),
        _ => None,
    };
    let (mut low, mut high) = (own("minimum"), own("maximum"));
    if let Some((min, max)) = range {
        low = Some(low.map_or(min, |l| l.max(min)));
        high = Some(high.map_or(max, |h| h.min(max)));
    }
    let literal = |bound: Option<f64>, round: fn(f64) -> f64| {
        let bound = bound?;
        if kind == "integer" {
            let whole = round(bound);
            // An integer bound past what TOML holds is left out.
            (whole.abs() < 9.2e18).then(|| toml::Value::from(whole as i64))
        } else {
            Some(toml::Value::from(bound))
        }
    };
    (literal(low, f64::ceil), literal(high, f64::floor))
}

/// A JSON scalar as a TOML value, when it is of the field's type.
pub(super) fn scalar_literal(value: &Value, kind: &str) -> Option<toml::Value> {
    Some(match (value, kind) {
        (Value::String(s), "string") => toml::Value::from(&**s),
        (Value::Bool(b), "boolean") => toml::Value::from(*b),
        (Value::Number(n), "integer") => toml::Value::from(integer(*n)?),
        (Value::Number(n), "number") => toml::Value::from(n.as_f64()),
        _ => return None,
    })
}
