//! Values passed on whole: one field whose schema is the document's,
//! written as one JSON Schema that stands alone (its `$ref`s in place,
//! OpenAPI 3.0's own words in JSON Schema's, bounded in size).

use std::collections::BTreeSet;

use super::context::{Context, Found};
use super::field::{configured_kind, reads_pattern};
use super::read::{Read, as_array, as_bool, as_str, schema_of_kind, type_of};
use toolschema_runtime::render::{Json as Value, Object as Map};

/// How many levels of properties and items an inlined schema spells out;
/// below, a value's type alone.
const INLINED_DEPTH: usize = 3;

impl Context<'_> {
    /// A value passed on whole: one field whose schema is `schema` with
    /// its `$ref`s written in place ([`Context::inline`]).
    pub(super) fn whole(
        &self,
        schema: &Value,
        exposed: &str,
        source: &str,
        required: bool,
    ) -> Found {
        // Inlined afresh: where the schema contains itself, it is written
        // once more, with `{}` where it comes back.
        let mut inlined = self.inline(schema, &mut Vec::new(), 0);
        let mut kind = whole_kind(&mut inlined);
        let compiles = toolschema_runtime::validate::schema_compiles(
            &inlined.to_compact_string(),
            &inlined.to_value(),
        );
        if let Err(error) = compiles {
            let at = if exposed.is_empty() {
                "the body"
            } else {
                exposed
            };
            self.notes.borrow_mut().push(format!(
                "the schema of `{at}` is left out (any {kind} is taken): JSON Schema does not compile it ({error})"
            ));
            let mut bare = Map::new();
            if kind != "any" {
                bare.insert("type", Value::from(kind));
            }
            inlined = Value::Object(bare);
            kind = whole_kind(&mut inlined);
        }
        Found {
            exposed: exposed.to_owned(),
            source: source.to_owned(),
            location: None,
            schema: schema_of_kind(kind, None),
            required,
            description: None,
            whole: Some(inlined),
        }
    }

    /// `schema` as one JSON Schema 2020-12 that stands alone: its local
    /// `$ref`s written in place (where a schema contains itself, `{}`
    /// stands for it), OpenAPI 3.0's own words turned into JSON Schema's
    /// (`nullable`, boolean `exclusiveMinimum`), annotations JSON Schema
    /// does not read left out, and at most the context's budget of schema
    /// objects written (past it, `{}`: any value, the downstream's to
    /// check).
    fn inline(&self, schema: &Value, trail: &mut Vec<String>, depth: usize) -> Value {
        let budget = self.budget.get();
        if budget == 0 {
            return Value::Object(Map::new());
        }
        self.budget.set(budget - 1);
        let mark = trail.len();
        if let Some(reference) = schema.get("$ref").and_then(as_str)
            && trail.iter().any(|r| r == reference)
        {
            return Value::Object(Map::new());
        }
        let Ok(resolved) = self.resolve(schema, trail) else {
            trail.truncate(mark);
            return Value::Object(Map::new());
        };
        let Value::Object(map) = resolved else {
            trail.truncate(mark);
            return resolved.clone();
        };
        let mut out = Map::new();
        if depth >= INLINED_DEPTH {
            if let Some(kind) = type_of(resolved).filter(|k| JSON_TYPES.contains(k)) {
                out.insert("type", Value::from(kind.to_owned()));
            }
            trail.truncate(mark);
            return Value::Object(out);
        }
        let nullable = map.get("nullable").and_then(as_bool) == Some(true);
        for (key, value) in map.iter() {
            if let Some(kept) = self.keyword(key, value, map, trail, depth) {
                out.insert(key.to_owned(), kept);
            }
        }
        if nullable {
            with_null(&mut out);
        }
        trail.truncate(mark);
        Value::Object(out)
    }

    /// One keyword of the schema object `map` as an inlined schema writes
    /// it, if it is kept: the schemas inside inlined in turn, OpenAPI
    /// 3.0's boolean `exclusiveMinimum` and `exclusiveMaximum` turned into
    /// JSON Schema's bounds, and what JSON Schema does not read left out.
    fn keyword(
        &self,
        key: &str,
        value: &Value,
        map: &Map,
        trail: &mut Vec<String>,
        depth: usize,
    ) -> Option<Value> {
        match key {
            "properties" | "patternProperties" => {
                let members = value.as_object()?;
                let mut inlined = Map::new();
                for (name, member) in members.iter() {
                    inlined.insert(name.to_owned(), self.inline(member, trail, depth + 1));
                }
                Some(Value::from(inlined))
            }
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems" => match value {
                Value::Bool(b) => Some(Value::from(*b)),
                Value::Object(_) => Some(self.inline(value, trail, depth + 1)),
                _ => None,
            },
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                let parts = as_array(value)?;
                let parts = parts.iter().map(|part| self.inline(part, trail, depth));
                Some(Value::from(parts.collect::<Vec<_>>()))
            }
            "exclusiveMinimum" | "exclusiveMaximum" => match value {
                Value::Number(_) => Some(value.clone()),
                // OpenAPI 3.0: the bound is `minimum`, excluded.
                Value::Bool(true) => {
                    let bound = if key == "exclusiveMinimum" {
                        "minimum"
                    } else {
                        "maximum"
                    };
                    match map.get(bound) {
                        Some(n @ Value::Number(_)) => Some(n.clone()),
                        _ => None,
                    }
                }
                _ => None,
            },
            "minimum" | "maximum" => {
                let exclusive = if key == "minimum" {
                    "exclusiveMinimum"
                } else {
                    "exclusiveMaximum"
                };
                (matches!(value, Value::Number(_))
                    && map.get(exclusive).and_then(as_bool) != Some(true))
                .then(|| value.clone())
            }
            "required" => as_array(value)
                .is_some_and(|names| names.iter().all(|n| as_str(n).is_some()))
                .then(|| value.clone()),
            "type" => {
                let known = |kind: &Value| as_str(kind).is_some_and(|k| JSON_TYPES.contains(&k));
                let keep = match value {
                    Value::String(_) => known(value),
                    Value::Array(kinds) => kinds.iter().all(known),
                    _ => false,
                };
                keep.then(|| value.clone())
            }
            "pattern" => as_str(value)
                .is_some_and(reads_pattern)
                .then(|| value.clone()),
            "examples" if as_array(value).is_some() => Some(value.clone()),
            _ if KEPT_KEYWORDS.contains(&key) => Some(value.clone()),
            // `$ref` (followed), `nullable` (below), `example`,
            // `discriminator`, `xml`, `externalDocs`, `x-…`: left out.
            _ => None,
        }
    }
}

/// JSON Schema's types.
const JSON_TYPES: [&str; 7] = [
    "string", "integer", "number", "boolean", "object", "array", "null",
];

/// JSON Schema keywords an inlined schema keeps as written (besides those
/// [`Context::keyword`] reads itself).
const KEPT_KEYWORDS: [&str; 19] = [
    "title",
    "description",
    "format",
    "enum",
    "const",
    "default",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "dependentRequired",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
];

/// The configuration's type of a value passed whole, from its inlined
/// schema: its one JSON type (alternatives of one type: that type), else
/// `any`. A schema that does not state its type states it
/// (`"type": "object"`), as the configuration asks.
fn whole_kind(schema: &mut Value) -> &'static str {
    let stated = schema.get("type");
    if let Some(stated) = stated {
        return as_str(stated).map_or("any", configured_kind);
    }
    let alternatives: Option<BTreeSet<&str>> = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| schema.get(key).and_then(as_array))
        .map(|parts| {
            parts
                .iter()
                .map(|part| {
                    type_of(part).unwrap_or(
                        if part.get("properties").is_some()
                            || part.get("additionalProperties").is_some()
                        {
                            "object"
                        } else {
                            "?"
                        },
                    )
                })
                .collect()
        });
    let kind = match alternatives {
        Some(kinds) if kinds.len() == 1 => kinds.first().map_or("any", |k| configured_kind(k)),
        Some(_) => "any",
        None if schema.get("properties").is_some()
            || schema.get("additionalProperties").is_some() =>
        {
            "object"
        }
        None if schema.get("items").is_some() => "array",
        None => "any",
    };
    if kind != "any"
        && let Value::Object(map) = schema
    {
        map.insert("type", Value::from(kind));
    }
    kind
}

/// Lets an inlined schema that OpenAPI 3.0 says is `nullable` take
/// `null`: in its type, and among its values.
fn with_null(out: &mut Map) {
    match out.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = kind.clone();
            out.insert("type", vec![Value::String(kind), "null".into()]);
        }
        Some(Value::Array(kinds)) if !kinds.iter().any(|k| as_str(k) == Some("null")) => {
            kinds.push("null".into());
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.iter().any(|v| matches!(v, Value::Null))
    {
        values.push(Value::Null);
    }
}
