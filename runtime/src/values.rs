//! Walks of JSON values guided by the schema model: the null-as-absent rule
//! and the mapping between exposed and source names.
//!
//! [`InputValidator`](crate::validate::InputValidator) and
//! [`OutputValidator`](crate::validate::OutputValidator) apply these on every
//! call; they are public for callers that hold values of their own.

use serde_json::{Map, Value};

use crate::model::{Field, Node, Shape, Tagging};
use crate::render::Direction;

/// Which names an object's keys use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The names a client sees.
    Exposed,
    /// The names serde reads and writes.
    Source,
}

/// A field as seen from an object, with flattening resolved.
#[derive(Clone, Copy)]
pub(crate) struct Member {
    pub(crate) field: &'static Field,
    /// Inside a flattened `Option`: never required.
    pub(crate) optional: bool,
}

impl Member {
    fn key(&self, names: Names) -> &'static str {
        match names {
            Names::Exposed => self.field.exposed,
            Names::Source => self.field.source,
        }
    }

    pub(crate) fn is_required(&self, direction: Direction) -> bool {
        !self.optional
            && match direction {
                Direction::Input => self.field.is_required(),
                Direction::Output => self.field.is_required() && !self.field.omitted_when_written,
            }
    }
}

/// The members of an object's fields in `direction`, flattened fields merged.
pub(crate) fn members(fields: &'static [Field], direction: Direction) -> Vec<Member> {
    flattened(fields, direction).0
}

/// The members of an object's fields in `direction`, flattened structs
/// merged, and the value schema of a flattened map, if any (unknown keys
/// then take it).
pub(crate) fn flattened(
    fields: &'static [Field],
    direction: Direction,
) -> (Vec<Member>, Option<&'static Node>) {
    fn collect(
        fields: &'static [Field],
        direction: Direction,
        optional: bool,
        out: &mut (Vec<Member>, Option<&'static Node>),
    ) {
        for field in fields {
            let included = match direction {
                Direction::Input => field.read,
                Direction::Output => field.written,
            };
            if !included {
                continue;
            }
            if field.flatten {
                let target = (field.schema)();
                match target.unwrap_optional() {
                    Node::Object(inner) => collect(
                        inner.fields,
                        direction,
                        optional || target.is_optional(),
                        out,
                    ),
                    Node::Map(map) => out.1 = Some(map.values),
                    // The derive refuses to flatten anything else.
                    _ => {}
                }
                continue;
            }
            out.0.push(Member { field, optional });
        }
    }
    let mut out = (Vec::new(), None);
    collect(fields, direction, false, &mut out);
    out
}

/// Two members of one object exposed under the same name, which the JSON
/// object could not hold apart: `(the type's name, the property)`. Found
/// through flattening at any depth, in one direction.
pub(crate) fn duplicate_property(
    root: &'static Node,
    direction: Direction,
) -> Option<(&'static str, &'static str)> {
    fn fields(
        name: &'static str,
        fields: &'static [Field],
        direction: Direction,
        seen: &mut Vec<&'static str>,
    ) -> Option<(&'static str, &'static str)> {
        let members = members(fields, direction);
        for (i, member) in members.iter().enumerate() {
            let exposed = member.field.exposed;
            if members[..i].iter().any(|m| m.field.exposed == exposed) {
                return Some((name, exposed));
            }
        }
        members
            .iter()
            .find_map(|m| visit((m.field.schema)(), direction, seen))
    }
    fn visit(
        node: &'static Node,
        direction: Direction,
        seen: &mut Vec<&'static str>,
    ) -> Option<(&'static str, &'static str)> {
        match node {
            Node::Optional(inner) => visit(inner, direction, seen),
            Node::Array(array) => visit(array.items, direction, seen),
            Node::Map(map) => visit(map.values, direction, seen),
            Node::Tuple(nodes) | Node::AnyOf(nodes) => {
                nodes.iter().find_map(|n| visit(n, direction, seen))
            }
            Node::Object(object) => {
                let type_name = (object.info.type_name)();
                if seen.contains(&type_name) {
                    return None;
                }
                seen.push(type_name);
                fields(object.info.name, object.fields, direction, seen)
            }
            Node::Enum(enumeration) => {
                let type_name = (enumeration.info.type_name)();
                if seen.contains(&type_name) {
                    return None;
                }
                seen.push(type_name);
                enumeration
                    .variants
                    .iter()
                    .find_map(|variant| match variant.shape {
                        Shape::Unit => None,
                        Shape::Newtype(schema) => visit(schema(), direction, seen),
                        Shape::Tuple(schemas) => {
                            schemas.iter().find_map(|s| visit(s(), direction, seen))
                        }
                        Shape::Struct(struct_fields) => {
                            fields(enumeration.info.name, struct_fields, direction, seen)
                        }
                    })
            }
            _ => None,
        }
    }
    visit(root, direction, &mut Vec::new())
}

/// What a walk does to each object it reaches, given the object's members.
type Visit<'a> = dyn FnMut(&mut Map<String, Value>, &[Member]) + 'a;

/// Calls `visit` on every JSON object that the model describes with named
/// fields, outermost first; `visit` may rename keys from the other naming to
/// `names`, which is then used to find the children.
pub(crate) fn walk(
    node: &'static Node,
    value: &mut Value,
    names: Names,
    direction: Direction,
    visit: &mut Visit<'_>,
) {
    match (node, value) {
        (Node::Optional(_), Value::Null) => {}
        (Node::Optional(inner), value) => walk(inner, value, names, direction, visit),
        (Node::Array(array), Value::Array(items)) => {
            for item in items {
                walk(array.items, item, names, direction, visit);
            }
        }
        (Node::Tuple(nodes), Value::Array(items)) => {
            for (node, item) in nodes.iter().zip(items) {
                walk(node, item, names, direction, visit);
            }
        }
        (Node::Map(map), Value::Object(entries)) => {
            for value in entries.values_mut() {
                walk(map.values, value, names, direction, visit);
            }
        }
        (Node::Object(object), Value::Object(map)) => {
            walk_fields(
                &members(object.fields, direction),
                map,
                names,
                direction,
                visit,
            );
        }
        (Node::Enum(enumeration), value) => walk_enum(
            enumeration.tagging,
            enumeration.variants,
            value,
            names,
            direction,
            visit,
        ),
        _ => {}
    }
}

fn walk_fields(
    members: &[Member],
    map: &mut Map<String, Value>,
    names: Names,
    direction: Direction,
    visit: &mut Visit<'_>,
) {
    visit(map, members);
    for member in members {
        if let Some(child) = map.get_mut(member.key(names)) {
            walk((member.field.schema)(), child, names, direction, visit);
        }
    }
}

fn walk_enum(
    tagging: Tagging,
    variants: &'static [crate::model::Variant],
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
            let Some(variant) = map.get(tag).and_then(Value::as_str).and_then(find) else {
                return;
            };
            match variant.shape {
                Shape::Struct(fields) => {
                    walk_fields(&members(fields, direction), map, names, direction, visit)
                }
                Shape::Newtype(payload) => walk(payload(), value, names, direction, visit),
                Shape::Unit | Shape::Tuple(_) => {}
            }
            return;
        }
        Tagging::Adjacent { tag, content } => {
            let Some(variant) = map.get(tag).and_then(Value::as_str).and_then(find) else {
                return;
            };
            match map.get_mut(content) {
                Some(payload) => (variant, payload),
                None => return,
            }
        }
        // Which variant an untagged value is cannot be told without trying
        // each; nothing inside an untagged enum is renamed or made optional.
        Tagging::External | Tagging::Untagged => return,
    };
    match (variant.shape, payload) {
        (Shape::Struct(fields), Value::Object(inner)) => {
            walk_fields(&members(fields, direction), inner, names, direction, visit)
        }
        (Shape::Newtype(node), payload) => walk(node(), payload, names, direction, visit),
        (Shape::Tuple(nodes), Value::Array(items)) => {
            for (node, item) in nodes.iter().zip(items) {
                walk(node(), item, names, direction, visit);
            }
        }
        _ => {}
    }
}

/// Removes `null` given for a field that may be absent: at call time `null`
/// for an optional field means "absent". `value` uses exposed names.
///
/// ```
/// # use toolschema_runtime::{Schema, values::strip_absent_nulls, render::Direction};
/// let mut value = serde_json::json!([null, 1]);
/// strip_absent_nulls(<Vec<Option<u8>> as Schema>::SCHEMA, &mut value, Direction::Input);
/// assert_eq!(value, serde_json::json!([null, 1])); // items are not fields
/// ```
pub fn strip_absent_nulls(node: &'static Node, value: &mut Value, direction: Direction) {
    walk(
        node,
        value,
        Names::Exposed,
        direction,
        &mut |map, members| {
            for member in members {
                let key = member.field.exposed;
                if !member.is_required(direction) && map.get(key).is_some_and(Value::is_null) {
                    map.remove(key);
                }
            }
        },
    );
}

/// Renames keys from one naming to the other (`to`), through nesting and
/// arrays.
pub fn rename(node: &'static Node, value: &mut Value, to: Names, direction: Direction) {
    walk(node, value, to, direction, &mut |map, members| {
        for member in members {
            let (from, to) = match to {
                Names::Source => (member.field.exposed, member.field.source),
                Names::Exposed => (member.field.source, member.field.exposed),
            };
            if from != to
                && let Some(value) = map.remove(from)
            {
                map.insert(to.to_owned(), value);
            }
        }
    });
}

/// Whether any field reachable from `node` has an exposed name that differs
/// from its source name (so that values need renaming at all).
pub(crate) fn has_renames(node: &'static Node) -> bool {
    fn visit(node: &'static Node, seen: &mut Vec<&'static str>) -> bool {
        let fields_differ = |fields: &'static [Field], seen: &mut Vec<&'static str>| {
            fields
                .iter()
                .any(|f| f.exposed != f.source || visit((f.schema)(), seen))
        };
        match node {
            Node::Optional(inner) => visit(inner, seen),
            Node::Array(array) => visit(array.items, seen),
            Node::Map(map) => visit(map.values, seen),
            Node::Tuple(items) | Node::AnyOf(items) => items.iter().any(|n| visit(n, seen)),
            Node::Object(object) => {
                let name = (object.info.type_name)();
                if seen.contains(&name) {
                    return false;
                }
                seen.push(name);
                fields_differ(object.fields, seen)
            }
            Node::Enum(enumeration) => {
                let name = (enumeration.info.type_name)();
                if seen.contains(&name) {
                    return false;
                }
                seen.push(name);
                enumeration.variants.iter().any(|v| match v.shape {
                    Shape::Unit => false,
                    Shape::Newtype(payload) => visit(payload(), seen),
                    Shape::Tuple(items) => items.iter().any(|n| visit(n(), seen)),
                    Shape::Struct(fields) => fields_differ(fields, seen),
                })
            }
            _ => false,
        }
    }
    visit(node, &mut Vec::new())
}
