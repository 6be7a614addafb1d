//! Arguments the schema passed and serde refused: where serde stopped, in
//! exposed names, and why, in the model's terms.
//!
//! That the two disagree is a defect of the tool (its schema promises what
//! its type cannot read); the model still gets a path and a sentence it can
//! act on, and the server's log gets the defect.

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

use super::violation::{Place, child};
use super::{Rule, Violation};
use crate::model::{Direction, Field, Node, NodeRef, Shape, Tagging, flattened};

/// The violation for `value` (source names), which serde refused as a `T`.
#[cfg_attr(not(feature = "log"), allow(unused_variables))]
pub(super) fn violation<T: DeserializeOwned>(root: &Node, tool: &str, value: &Value) -> Violation {
    let Err(error) = serde_path_to_error::deserialize::<_, T>(value) else {
        // serde read it this time: nothing to locate.
        return Violation::new(
            "",
            Rule::Unreadable,
            "The arguments match the schema, but the tool could not read them; check the values against the field descriptions.",
        );
    };
    let reason = error.inner().to_string();
    let (path, at) = exposed_path(root, error.path().iter());
    #[cfg(feature = "log")]
    tracing::error!(
        tool,
        path = %path,
        reason = %reason,
        "the tool's input schema accepted arguments its type cannot read: the schema and the type disagree"
    );
    sentence(&path, at, &reason)
}

/// Where a walk along serde's path stands in the model.
#[derive(Clone, Copy)]
enum At<'a> {
    Node(&'a Node),
    Fields(&'a [Field]),
    Items(&'a [NodeRef]),
    /// Past what the model tells (inside a value serde buffered).
    Lost,
}

impl<'a> At<'a> {
    fn node(node: &'a Node) -> At<'a> {
        At::Node(node.unwrap_optional())
    }

    /// The exposed name of `key` here, and where it leads.
    fn key(self, key: &str) -> (String, At<'a>) {
        match self {
            At::Node(Node::Object(object)) => At::Fields(&object.fields).key(key),
            At::Node(Node::Map(map)) => (key.to_owned(), At::node(&map.values)),
            At::Fields(fields) => {
                let (members, rest) = flattened(fields, Direction::Input);
                match members.iter().find(|member| *member.field.source == *key) {
                    Some(member) => (
                        member.field.exposed.to_string(),
                        At::node(&member.field.schema),
                    ),
                    None => (key.to_owned(), rest.map_or(At::Lost, At::node)),
                }
            }
            At::Node(Node::Enum(enumeration)) => {
                // A struct variant's field, beside the tag or under content.
                let found = enumeration
                    .variants
                    .iter()
                    .find_map(|variant| match &variant.shape {
                        Shape::Struct(fields) => match At::Fields(fields).key(key) {
                            (name, at) if !matches!(at, At::Lost) => Some((name, at)),
                            _ => None,
                        },
                        _ => None,
                    });
                found.unwrap_or((key.to_owned(), At::Lost))
            }
            _ => (key.to_owned(), At::Lost),
        }
    }

    fn index(self, index: usize) -> At<'a> {
        match self {
            At::Node(Node::Array(array)) => At::node(&array.items),
            At::Node(Node::Tuple(nodes)) => At::Items(nodes).index(index),
            At::Items(nodes) => nodes.get(index).map_or(At::Lost, |node| At::node(node)),
            _ => At::Lost,
        }
    }

    /// The variant `name` here; whether the JSON names it as a key.
    fn variant(self, name: &str) -> (bool, At<'a>) {
        let At::Node(Node::Enum(enumeration)) = self else {
            return (false, At::Lost);
        };
        let keyed = matches!(enumeration.tagging, Tagging::External);
        let Some(variant) = enumeration.variants.iter().find(|v| *v.name == *name) else {
            return (keyed, At::Lost);
        };
        let at = match &variant.shape {
            Shape::Unit => At::Lost,
            Shape::Newtype(node) => At::node(node),
            Shape::Tuple(nodes) => At::Items(nodes),
            Shape::Struct(fields) => At::Fields(fields),
        };
        (keyed, at)
    }

    /// The exposed name of the field serde reads as `source` here.
    fn field_name(self, source: &str) -> String {
        match self {
            At::Node(Node::Object(_)) | At::Fields(_) | At::Node(Node::Enum(_)) => {
                self.key(source).0
            }
            _ => source.to_owned(),
        }
    }
}

/// serde's path in exposed names, as a JSON pointer, and where it ends.
fn exposed_path<'a, 'p>(
    root: &'a Node,
    segments: impl Iterator<Item = &'p Segment>,
) -> (String, At<'a>) {
    let mut path = String::new();
    let mut at = At::node(root);
    for segment in segments {
        match segment {
            Segment::Seq { index } => {
                path = child(&path, &index.to_string());
                at = at.index(*index);
            }
            Segment::Map { key } => {
                let (name, next) = at.key(key);
                path = child(&path, &name);
                at = next;
            }
            Segment::Enum { variant } => {
                let (keyed, next) = at.variant(variant);
                if keyed {
                    path = child(&path, variant);
                }
                at = next;
            }
            Segment::Unknown => at = At::Lost,
        }
    }
    (path, at)
}

/// The sentence for serde's `reason` at `path`.
fn sentence(path: &str, at: At<'_>, reason: &str) -> Violation {
    if let Some(field) = reason
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let path = child(path, &at.field_name(field));
        let message = format!("{} is required; add it.", Place(&path));
        return Violation::new(path, Rule::Required, message);
    }
    let place = Place(path);
    let message = if let Some(rest) = reason.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or_default();
        let path = child(path, field);
        let message = format!(
            "{} is not a parameter here; remove it or check its spelling.",
            Place(&path)
        );
        return Violation::new(path, Rule::UnknownProperty, message);
    } else if let Some((got, expected)) = reason
        .strip_prefix("invalid type: ")
        .or_else(|| reason.strip_prefix("invalid value: "))
        .and_then(|rest| rest.split_once(", expected "))
    {
        format!(
            "{place} is {}, which the tool cannot read here; send {}.",
            unexpected(got),
            expected_in_model_terms(expected)
        )
    } else if let Some((length, expected)) = reason
        .strip_prefix("invalid length ")
        .and_then(|rest| rest.split_once(", expected "))
    {
        format!(
            "{place} has {length} item(s); send {}.",
            expected_in_model_terms(expected)
        )
    } else if reason.starts_with("data did not match any variant") {
        format!("{place} matches none of the allowed forms; check the schema of this value.")
    } else if let Some(rest) = reason.strip_prefix("unknown variant ") {
        format!("{place} names an unknown variant {rest}.")
    } else {
        // The type's own reader said why (a date out of range, say).
        format!("{place} could not be read: {reason}; check it against the field's description.")
    };
    Violation::new(path, Rule::Unreadable, message)
}

/// serde's description of the value it got, in JSON's terms.
fn unexpected(got: &str) -> String {
    for (rust, json) in [
        ("floating point ", "the number "),
        ("integer ", "the number "),
        ("string ", "the string "),
        ("boolean ", ""),
    ] {
        if let Some(value) = got.strip_prefix(rust) {
            return format!("{json}{}", value.trim_matches('`'));
        }
    }
    match got {
        "unit value" | "null" => "null".to_owned(),
        "sequence" => "an array".to_owned(),
        "map" => "an object".to_owned(),
        other => other.to_owned(),
    }
}

/// serde's description of what it expected, in JSON's terms (Rust type
/// names never reach the model).
fn expected_in_model_terms(expected: &str) -> String {
    let integer = |min: &str, max: &str| format!("an integer from {min} to {max}");
    match expected {
        "u8" => integer("0", "255"),
        "u16" => integer("0", "65535"),
        "u32" => integer("0", "4294967295"),
        "u64" | "usize" => integer("0", "18446744073709551615"),
        "i8" => integer("-128", "127"),
        "i16" => integer("-32768", "32767"),
        "i32" => integer("-2147483648", "2147483647"),
        "i64" | "isize" => integer("-9223372036854775808", "9223372036854775807"),
        "u128" | "i128" => "an integer".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a map" | "option" => "a value of the kind its schema describes".to_owned(),
        "unit" => "null".to_owned(),
        "a character" => "a string of one character".to_owned(),
        "a nonzero u8" | "a nonzero u16" | "a nonzero u32" | "a nonzero u64" | "a nonzero i8"
        | "a nonzero i16" | "a nonzero i32" | "a nonzero i64" => "a nonzero integer".to_owned(),
        other if other.starts_with("struct ") => "an object".to_owned(),
        other if other.starts_with("tuple struct ") || other.starts_with("a tuple of size ") => {
            match other.strip_prefix("a tuple of size ") {
                Some(size) => format!("an array of {size} items"),
                None => "an array".to_owned(),
            }
        }
        other if other.contains("enum ") || other.starts_with("variant identifier") => {
            "one of the allowed forms".to_owned()
        }
        other => other.to_owned(),
    }
}
