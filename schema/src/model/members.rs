//! An object's members: its fields in one direction of serde, with
//! flattened structs merged in.

use super::{Field, Node};

/// Which side of serde a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// What deserialization reads: a tool's arguments.
    Input,
    /// What serialization writes: a tool's result.
    Output,
}

impl Direction {
    /// Whether `field` takes part in this direction (serde reads it, or
    /// writes it).
    pub fn includes(self, field: &Field) -> bool {
        match self {
            Direction::Input => field.read,
            Direction::Output => field.written,
        }
    }
}

/// A field as seen from an object, with flattening resolved.
#[derive(Clone, Copy)]
pub struct Member<'a> {
    /// The field itself.
    pub field: &'a Field,
    /// Inside a flattened `Option`: never required.
    pub optional: bool,
}

impl Member<'_> {
    /// Whether the member must be present in `direction`.
    pub fn is_required(&self, direction: Direction) -> bool {
        !self.optional
            && match direction {
                Direction::Input => self.field.is_required(),
                Direction::Output => self.field.is_required() && !self.field.omitted_when_written,
            }
    }
}

/// The members of an object's fields in `direction`, flattened fields merged.
pub fn members(fields: &[Field], direction: Direction) -> Vec<Member<'_>> {
    flattened(fields, direction).0
}

/// The members of an object's fields in `direction`, flattened structs
/// merged, and the value schema of a flattened map, if any (unknown keys
/// then take it).
pub fn flattened(fields: &[Field], direction: Direction) -> (Vec<Member<'_>>, Option<&Node>) {
    fn collect<'a>(
        fields: &'a [Field],
        direction: Direction,
        optional: bool,
        out: &mut (Vec<Member<'a>>, Option<&'a Node>),
    ) {
        for field in fields {
            if !direction.includes(field) {
                continue;
            }
            if field.flatten {
                let target: &Node = &field.schema;
                match target.unwrap_optional() {
                    Node::Object(inner) => collect(
                        &inner.fields,
                        direction,
                        optional || target.is_optional(),
                        out,
                    ),
                    Node::Map(map) => out.1 = Some(&map.values),
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
