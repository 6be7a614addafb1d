//! Walks of JSON values guided by the schema model: the null-as-absent rule
//! and the mapping between exposed and source names.
//!
//! [`InputValidator`](crate::validate::InputValidator) and
//! [`OutputValidator`](crate::validate::OutputValidator) apply these on every
//! call; they are public for callers that hold values of their own.

use serde_json::{Map, Value};

use crate::model::{Direction, Member, Node, Shape, Tagging, flattened, members};

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

/// Whether serde reads a float as `node` (`f32`, `f64`, or an `Option`
/// of one).
fn takes_float(node: &Node) -> bool {
    match node {
        Node::Number(_) => true,
        Node::Optional(inner) => takes_float(inner),
        _ => false,
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

/// A whole number written as a float is read exactly only below this
/// magnitude: past it the float may be a rounding of the number written
/// (`-9223372036854775809` is read as the float −2^63).
pub(crate) const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Writes each whole number given as a float (`1.0`, `1e2`) where the model
/// has an integer as that integer: JSON Schema counts it as one, so the
/// schema accepted it, and serde must read it too. Walks every place an
/// integer can stand: fields (flattened ones and a flattened map's
/// entries), items, map values, and the payloads of every enum
/// representation (an untagged enum's value in each variant's shape: an
/// integer is read wherever a float is). `value` uses exposed names.
///
/// Returns the exposed paths of whole numbers too large to be read exactly
/// (2^53 or more written as a float); they are left as they are.
pub(crate) fn whole_numbers(node: &Node, value: &mut Value) -> Vec<String> {
    let mut walk = WholeNumbers {
        inexact: Vec::new(),
        floats: Vec::new(),
        path: String::new(),
        budget: WALK_BUDGET,
    };
    walk.node(node, value);
    walk.finish()
}

/// [`whole_numbers`] for a schema written by hand: an integer is where
/// `type` says `integer` (and not `number`), through `properties`,
/// `additionalProperties`, `items`, `prefixItems`, the alternatives and
/// local `$ref`s.
pub(crate) fn whole_numbers_by_schema(root: &Value, value: &mut Value) -> Vec<String> {
    let mut walk = WholeNumbers {
        inexact: Vec::new(),
        floats: Vec::new(),
        path: String::new(),
        budget: WALK_BUDGET,
    };
    walk.schema(root, root, value);
    walk.finish()
}

/// How many places one walk visits at most. Alternatives are each walked
/// (an untagged enum's variants, a schema's `anyOf`), so a value nested
/// through alternatives that recurse would otherwise cost exponential time.
const WALK_BUDGET: usize = 1 << 20;

struct WholeNumbers {
    inexact: Vec<String>,
    /// Where a float may stand (an alternative's `number`): a large whole
    /// float there is read as a float, not refused.
    floats: Vec<String>,
    /// The exposed pointer of the value being walked.
    path: String,
    budget: usize,
}

impl WholeNumbers {
    fn finish(mut self) -> Vec<String> {
        self.inexact.sort_unstable();
        self.inexact.dedup();
        self.inexact.retain(|path| !self.floats.contains(path));
        self.inexact
    }

    /// Walks `value` as the child `step` of the current path.
    fn child(&mut self, step: &str, walk: impl FnOnce(&mut Self)) {
        let length = self.path.len();
        self.path.push('/');
        for c in step.chars() {
            match c {
                '~' => self.path.push_str("~0"),
                '/' => self.path.push_str("~1"),
                c => self.path.push(c),
            }
        }
        walk(self);
        self.path.truncate(length);
    }

    fn integer(&mut self, number: &mut serde_json::Number) {
        let Some(float) = number.as_f64().filter(|_| number.is_f64()) else {
            return;
        };
        if float.fract() != 0.0 || !float.is_finite() {
            return;
        }
        if float.abs() >= EXACT {
            self.inexact.push(self.path.clone());
            return;
        }
        // Below 2^53 a whole float is exactly an i64.
        *number = serde_json::Number::from(float as i64);
    }

    /// Spends one visit; `false` once the budget is spent.
    fn visit(&mut self) -> bool {
        self.budget = self.budget.saturating_sub(1);
        self.budget > 0
    }

    fn node(&mut self, node: &Node, value: &mut Value) {
        if !self.visit() {
            return;
        }
        match (node, value) {
            (Node::Optional(inner), value) => self.node(inner, value),
            (Node::Integer(_), Value::Number(number)) => self.integer(number),
            (Node::Number(_), Value::Number(number)) if number.is_f64() => {
                self.floats.push(self.path.clone());
            }
            (Node::Array(array), Value::Array(items)) => {
                for (index, item) in items.iter_mut().enumerate() {
                    self.child(&index.to_string(), |walk| walk.node(&array.items, item));
                }
            }
            (Node::Tuple(nodes), Value::Array(items)) => self.tuple(nodes, items),
            (Node::Map(map), Value::Object(entries)) => {
                for (key, entry) in entries.iter_mut() {
                    self.child(key, |walk| walk.node(&map.values, entry));
                }
            }
            (Node::Object(object), Value::Object(map)) => self.fields(&object.fields, map),
            (Node::Enum(enumeration), value) => self.variants(enumeration, value),
            (Node::Raw(text), value) => {
                if let Ok(schema) = serde_json::from_str::<Value>(text) {
                    self.schema(&schema, &schema, value);
                }
            }
            _ => {}
        }
    }

    fn tuple(&mut self, nodes: &[crate::model::NodeRef], items: &mut [Value]) {
        for (index, (node, item)) in nodes.iter().zip(items).enumerate() {
            self.child(&index.to_string(), |walk| walk.node(node, item));
        }
    }

    fn fields(&mut self, fields: &[crate::model::Field], map: &mut Map<String, Value>) {
        let (members, rest) = flattened(fields, Direction::Input);
        for (key, child) in map.iter_mut() {
            let schema = members
                .iter()
                .find(|member| *member.field.exposed == **key)
                .map(|member| &*member.field.schema)
                .or(rest);
            if let Some(schema) = schema {
                self.child(key, |walk| walk.node(schema, child));
            }
        }
    }

    fn variants(&mut self, enumeration: &crate::model::EnumNode, value: &mut Value) {
        let find = |name: &str| enumeration.variants.iter().find(|v| *v.name == *name);
        match (&enumeration.tagging, value) {
            (Tagging::External, Value::Object(map)) if map.len() == 1 => {
                for (name, payload) in map.iter_mut() {
                    if let Some(variant) = find(name) {
                        self.child(name, |walk| walk.shape(&variant.shape, payload));
                    }
                }
            }
            (Tagging::Internal { tag }, value) => {
                let Some(variant) = value.get(&**tag).and_then(Value::as_str).and_then(find) else {
                    return;
                };
                // The payload's fields sit beside the tag.
                self.shape(&variant.shape, value);
            }
            (Tagging::Adjacent { tag, content }, Value::Object(map)) => {
                let Some(variant) = map.get(&**tag).and_then(Value::as_str).and_then(find) else {
                    return;
                };
                if let Some(payload) = map.get_mut(&**content) {
                    self.child(content, |walk| walk.shape(&variant.shape, payload));
                }
            }
            (Tagging::Untagged, value) => {
                // serde tries the variants in order, and a whole float
                // (`1.0`) is a float to it: made an integer for one variant,
                // it would be read as that variant rather than the one that
                // takes a float.
                let whole_float = value.as_number().is_some_and(serde_json::Number::is_f64);
                if whole_float
                    && enumeration
                        .variants
                        .iter()
                        .any(|v| matches!(&v.shape, Shape::Newtype(node) if takes_float(node)))
                {
                    return;
                }
                for variant in enumeration.variants.iter() {
                    self.shape(&variant.shape, value);
                }
            }
            _ => {}
        }
    }

    fn shape(&mut self, shape: &Shape, payload: &mut Value) {
        match (shape, payload) {
            (Shape::Struct(fields), Value::Object(map)) => self.fields(fields, map),
            (Shape::Newtype(node), payload) => self.node(node, payload),
            (Shape::Tuple(nodes), Value::Array(items)) => self.tuple(nodes, items),
            _ => {}
        }
    }

    /// The walk of a schema written by hand.
    fn schema(&mut self, root: &Value, schema: &Value, value: &mut Value) {
        if !self.visit() {
            return;
        }
        let schema = resolve(root, schema);
        let Some(object) = schema.as_object() else {
            return;
        };
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(alternatives)) = object.get(key) {
                for alternative in alternatives {
                    self.schema(root, alternative, value);
                }
            }
        }
        match value {
            Value::Number(number) => {
                let integer = match object.get("type") {
                    Some(Value::String(kind)) => kind == "integer",
                    Some(Value::Array(kinds)) => {
                        kinds.iter().any(|k| k == "integer") && !kinds.iter().any(|k| k == "number")
                    }
                    _ => false,
                };
                if integer {
                    self.integer(number);
                } else if number.is_f64() {
                    self.floats.push(self.path.clone());
                }
            }
            Value::Object(map) => {
                let properties = object.get("properties").and_then(Value::as_object);
                let additional = object.get("additionalProperties");
                for (key, child) in map.iter_mut() {
                    let sub = properties.and_then(|p| p.get(key)).or(additional);
                    if let Some(sub) = sub {
                        self.child(key, |walk| walk.schema(root, sub, child));
                    }
                }
            }
            Value::Array(items) => {
                let prefix = object.get("prefixItems").and_then(Value::as_array);
                let rest = object.get("items");
                for (index, item) in items.iter_mut().enumerate() {
                    let sub = prefix.and_then(|prefix| prefix.get(index)).or(rest);
                    if let Some(sub) = sub {
                        self.child(&index.to_string(), |walk| walk.schema(root, sub, item));
                    }
                }
            }
            _ => {}
        }
    }
}
