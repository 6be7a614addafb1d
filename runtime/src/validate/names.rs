//! Walks of JSON values guided by the schema model: the null-as-absent rule
//! and the mapping between exposed and source names.
//!
//! [`InputValidator`](crate::validate::InputValidator) and
//! [`OutputValidator`](crate::validate::OutputValidator) apply these on every
//! call; they are public for callers that hold values of their own.

use serde_json::{Map, Value};

use crate::model::{Direction, Member, Node, Shape, Tagging, members};

/// Which names an object's keys use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The names a client sees.
    Exposed,
    /// The names serde reads and writes.
    Source,
}

/// The key of `member` in `names`.
fn key<'a>(member: &Member<'a>, names: Names) -> &'a str {
    match names {
        Names::Exposed => &member.field.exposed,
        Names::Source => &member.field.source,
    }
}

/// What a walk does to each object it reaches, given the object's members.
type Visit<'a> = dyn FnMut(&mut Map<String, Value>, &[Member<'_>]) + 'a;

/// Calls `visit` on every JSON object that the model describes with named
/// fields, outermost first; `visit` may rename keys from the other naming to
/// `names`, which is then used to find the children.
fn walk(node: &Node, value: &mut Value, names: Names, direction: Direction, visit: &mut Visit<'_>) {
    match (node, value) {
        (Node::Optional(_), Value::Null) => {}
        (Node::Optional(inner), value) => walk(inner, value, names, direction, visit),
        (Node::Array(array), Value::Array(items)) => {
            for item in items {
                walk(&array.items, item, names, direction, visit);
            }
        }
        (Node::Tuple(nodes), Value::Array(items)) => {
            for (node, item) in nodes.iter().zip(items) {
                walk(node, item, names, direction, visit);
            }
        }
        (Node::Map(map), Value::Object(entries)) => {
            for value in entries.values_mut() {
                walk(&map.values, value, names, direction, visit);
            }
        }
        (Node::Object(object), Value::Object(map)) => {
            walk_fields(
                &members(&object.fields, direction),
                map,
                names,
                direction,
                visit,
            );
        }
        (Node::Enum(enumeration), value) => walk_enum(
            &enumeration.tagging,
            &enumeration.variants,
            value,
            names,
            direction,
            visit,
        ),
        _ => {}
    }
}

fn walk_fields(
    members: &[Member<'_>],
    map: &mut Map<String, Value>,
    names: Names,
    direction: Direction,
    visit: &mut Visit<'_>,
) {
    visit(map, members);
    for member in members {
        if let Some(child) = map.get_mut(key(member, names)) {
            walk(&member.field.schema, child, names, direction, visit);
        }
    }
}

fn walk_enum(
    tagging: &Tagging,
    variants: &[crate::model::Variant],
    value: &mut Value,
    names: Names,
    direction: Direction,
    visit: &mut Visit<'_>,
) {
    let Value::Object(map) = value else { return };
    let find = |name: &str| variants.iter().find(|v| v.name == name);
    let (variant, payload) = match tagging {
        Tagging::External if map.len() == 1 => {
            let Some((name, payload)) = map.iter_mut().next() else {
                return;
            };
            match find(name) {
                Some(variant) => (variant, payload),
                None => return,
            }
        }
        Tagging::Internal { tag } => {
            let Some(variant) = map.get(&**tag).and_then(Value::as_str).and_then(find) else {
                return;
            };
            match &variant.shape {
                Shape::Struct(fields) => {
                    walk_fields(&members(fields, direction), map, names, direction, visit)
                }
                Shape::Newtype(payload) => walk(payload, value, names, direction, visit),
                Shape::Unit | Shape::Tuple(_) => {}
            }
            return;
        }
        Tagging::Adjacent { tag, content } => {
            let Some(variant) = map.get(&**tag).and_then(Value::as_str).and_then(find) else {
                return;
            };
            match map.get_mut(&**content) {
                Some(payload) => (variant, payload),
                None => return,
            }
        }
        // Which variant an untagged value is cannot be told without trying
        // each; nothing inside an untagged enum is renamed or made optional.
        Tagging::External | Tagging::Untagged => return,
    };
    match (&variant.shape, payload) {
        (Shape::Struct(fields), Value::Object(inner)) => {
            walk_fields(&members(fields, direction), inner, names, direction, visit)
        }
        (Shape::Newtype(node), payload) => walk(node, payload, names, direction, visit),
        (Shape::Tuple(nodes), Value::Array(items)) => {
            for (node, item) in nodes.iter().zip(items) {
                walk(node, item, names, direction, visit);
            }
        }
        _ => {}
    }
}

/// Removes `null` given for a field that may be absent: at call time `null`
/// for an optional field means "absent". `value` uses exposed names.
///
/// ```
/// # use toolschema_runtime::{model::{Direction, Schema}, validate::strip_absent_nulls};
/// let mut value = serde_json::json!([null, 1]);
/// strip_absent_nulls(<Vec<Option<u8>> as Schema>::SCHEMA, &mut value, Direction::Input);
/// assert_eq!(value, serde_json::json!([null, 1])); // items are not fields
/// ```
pub fn strip_absent_nulls(node: &Node, value: &mut Value, direction: Direction) {
    if let Node::Raw(text) = node {
        if let Ok(schema) = serde_json::from_str::<Value>(text) {
            strip_unaccepted_nulls(&schema, value);
        }
        return;
    }
    walk(
        node,
        value,
        Names::Exposed,
        direction,
        &mut |map, members| {
            for member in members {
                let key: &str = &member.field.exposed;
                if !member.is_required(direction) && map.get(key).is_some_and(Value::is_null) {
                    map.remove(key);
                }
            }
        },
    );
}

/// Renames keys from one naming to the other (`to`), through nesting and
/// arrays.
pub fn rename(node: &Node, value: &mut Value, to: Names, direction: Direction) {
    walk(node, value, to, direction, &mut |map, members| {
        for member in members {
            let (from, to): (&str, &str) = match to {
                Names::Source => (&member.field.exposed, &member.field.source),
                Names::Exposed => (&member.field.source, &member.field.exposed),
            };
            if from != to
                && let Some(value) = map.remove(from)
            {
                map.insert(to.to_owned(), value);
            }
        }
    });
}

/// [`strip_absent_nulls`] for a schema written by hand: removes `null` given
/// for a property its object does not require and whose schema does not
/// accept `null`, through `properties`, `items`, `prefixItems` and local
/// `$ref`s. A client in a strict dialect sends such nulls for every optional
/// property it leaves out.
pub(crate) fn strip_unaccepted_nulls(root: &Value, value: &mut Value) {
    strip_by_schema(root, root, value);
}

/// How many `$ref`s in a row are followed before giving up (a cycle).
const MAX_REF_HOPS: usize = 16;

/// `schema` with its local `$ref`s followed.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REF_HOPS {
        let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        else {
            break;
        };
        schema = target;
    }
    schema
}

fn strip_by_schema(root: &Value, schema: &Value, value: &mut Value) {
    let schema = resolve(root, schema);
    match value {
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required = |name: &str| {
                schema
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
            };
            for (name, sub) in properties {
                match map.get_mut(name) {
                    Some(Value::Null) if !required(name) && !accepts_null(root, sub) => {
                        map.remove(name);
                    }
                    Some(child) => strip_by_schema(root, sub, child),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            let rest = schema.get("items");
            for (index, item) in items.iter_mut().enumerate() {
                let sub = prefix.and_then(|prefix| prefix.get(index)).or(rest);
                if let Some(sub) = sub {
                    strip_by_schema(root, sub, item);
                }
            }
        }
        _ => {}
    }
}

/// Whether `schema` may accept `null`: said by `type`, `enum`, `const` or
/// an alternative; a schema that constrains none of these is given the
/// benefit of the doubt (the validator decides).
fn accepts_null(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    let Some(object) = schema.as_object() else {
        return schema != &Value::Bool(false);
    };
    if let Some(kind) = object.get("type") {
        return match kind {
            Value::String(kind) => kind == "null",
            Value::Array(kinds) => kinds.iter().any(|k| k.as_str() == Some("null")),
            _ => false,
        };
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(value) = object.get("const") {
        return value.is_null();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = object.get(key) {
            return alternatives.iter().any(|sub| accepts_null(root, sub));
        }
    }
    true
}

/// Writes each whole number given as a float (`1.0`, `1e2`) where the model
/// has an integer as that integer: JSON Schema counts it as one, so the
/// schema accepted it, and serde must read it too. `value` uses exposed
/// names.
pub(crate) fn integral_floats_to_integers(node: &Node, value: &mut Value, direction: Direction) {
    match (node, value) {
        (Node::Optional(inner), value) => integral_floats_to_integers(inner, value, direction),
        (Node::Integer(_), Value::Number(number)) if number.is_f64() => {
            let Some(float) = number.as_f64() else { return };
            // Within ±2^63 every float with no fraction is exactly an i64
            // (above, u64 up to 2^64).
            const TWO_63: f64 = 9_223_372_036_854_775_808.0;
            let integer = if float.fract() != 0.0 || !float.is_finite() {
                None
            } else if (-TWO_63..TWO_63).contains(&float) {
                Some(Value::from(float as i64))
            } else if (TWO_63..2.0 * TWO_63).contains(&float) {
                Some(Value::from(float as u64))
            } else {
                None
            };
            if let Some(integer) = integer {
                *number = match integer {
                    Value::Number(n) => n,
                    _ => return,
                };
            }
        }
        (Node::Array(array), Value::Array(items)) => {
            for item in items {
                integral_floats_to_integers(&array.items, item, direction);
            }
        }
        (Node::Tuple(nodes), Value::Array(items)) => {
            for (node, item) in nodes.iter().zip(items) {
                integral_floats_to_integers(node, item, direction);
            }
        }
        (Node::Map(map), Value::Object(entries)) => {
            for value in entries.values_mut() {
                integral_floats_to_integers(&map.values, value, direction);
            }
        }
        (Node::Object(object), Value::Object(map)) => {
            for member in members(&object.fields, direction) {
                if let Some(child) = map.get_mut(&*member.field.exposed) {
                    integral_floats_to_integers(&member.field.schema, child, direction);
                }
            }
        }
        _ => {}
    }
}
