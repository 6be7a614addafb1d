//! Reading a document's JSON: what `serde_json::Value` offers over the
//! order-keeping [`Json`](toolschema_runtime::render::Json), and what a
//! schema says of its type.

use toolschema_runtime::model::Number;
use toolschema_runtime::render::{Json as Value, Object as Map};

/// Reading a document: what `serde_json::Value` offers, over the
/// order-keeping [`Json`](toolschema_runtime::render::Json).
pub(super) trait Read {
    /// The member `key` of an object.
    fn get(&self, key: &str) -> Option<&Value>;
    /// The value a JSON pointer (`/components/schemas/Pet`) names.
    fn pointer(&self, pointer: &str) -> Option<&Value>;
}

impl Read for Value {
    fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    fn pointer(&self, pointer: &str) -> Option<&Value> {
        let mut at = self;
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Value::Object(map) => map.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }
}

/// The text of a string value.
pub(super) fn as_str(value: &Value) -> Option<&str> {
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// The items of an array value.
pub(super) fn as_array(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(items) => Some(items),
        _ => None,
    }
}

/// The truth of a boolean value.
pub(super) fn as_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// A number as a whole one, if it is one that fits in an `i64`.
pub(super) fn integer(number: Number) -> Option<i64> {
    match number {
        Number::Int(n) => Some(n),
        Number::UInt(n) => i64::try_from(n).ok(),
        Number::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
        Number::Float(_) => None,
    }
}

/// A number value as a whole one, if it is one that fits in an `i64`.
pub(super) fn as_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => integer(*n),
        _ => None,
    }
}

/// `{"type": kind}`, with `minItems` if given.
pub(super) fn schema_of_kind(kind: &'static str, min_items: Option<u64>) -> Value {
    let mut map = Map::new();
    map.insert("type", kind);
    if let Some(n) = min_items {
        map.insert("minItems", n);
    }
    Value::Object(map)
}

/// A schema's one type (3.1's `["string", "null"]` read as `string`).
pub(super) fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds.iter().filter_map(as_str).find(|k| *k != "null"),
        _ => None,
    }
}

/// Whether a schema is of one value (a string, number or boolean).
pub(super) fn is_scalar(schema: &Value) -> bool {
    matches!(
        type_of(schema),
        Some("string" | "integer" | "number" | "boolean")
    )
}
