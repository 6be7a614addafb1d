//! What generated code names. Not a public API: it changes without notice.
//!
//! The derives emit constant data built from these items, and constant checks
//! that reject, at compile time, attributes the field's type cannot honour.
//! Each check panics during constant evaluation with a sentence that says what
//! to change; the compiler shows it at the attribute.

pub use crate::call::context::no_state;
pub use crate::call::{RunsWith, ToolResult};
pub use crate::model::{
    Additional, EnumNode, Field, Literal, Node, Number, ObjectNode, Presence, Ref, Refine, Shape,
    Tagging, TypeInfo, Variant,
};
pub use crate::model::{Icon, IconTheme};
pub use crate::{Annotations, Schema, Tool, ToolDef, schema_of};
pub use core;
pub use core::option::Option::{None, Some};
pub use serde_json::Value;
pub use std::sync::Arc;
pub use toolschema_text::doc::{doc_prefix, doc_str, normalize_doc};

/// The node inside `Option<T>`, or this node, in constant evaluation
/// (derived options hold their inner node as [`Ref::Static`]).
const fn unwrap_optional(node: &Node) -> &Node {
    match node {
        Node::Optional(Ref::Static(inner)) => unwrap_optional(inner),
        other => other,
    }
}

/// The fields of a derived object, in constant evaluation.
const fn fields_of(node: &Node) -> &[Field] {
    match unwrap_optional(node) {
        Node::Object(ObjectNode {
            fields: Ref::Static(fields),
            ..
        }) => fields,
        _ => &[],
    }
}

/// A derived name, in constant evaluation.
const fn text_of(text: &crate::model::Text) -> &str {
    match text {
        Ref::Static(text) => text,
        _ => "",
    }
}

/// Rejects refinements the field's type cannot carry.
pub const fn check_refine(node: &Node, refine: &Refine) {
    let node = unwrap_optional(node);
    if refine.has_string_keywords() && !matches!(node, Node::String(_)) {
        panic!(
            "`format`, `pattern`, `min_length` and `max_length` apply to strings, and this field's type is not a string; remove the attribute or change the field's type"
        );
    }
    if refine.has_array_keywords() && !matches!(node, Node::Array(_)) {
        panic!(
            "`min_items` and `max_items` apply to arrays, and this field's type is not a `Vec`, slice or set; remove the attribute or change the field's type"
        );
    }
    if refine.has_number_keywords() {
        let (lowest, highest) = match node {
            Node::Integer(integer) => (integer.minimum, integer.maximum),
            Node::Number(number) => (number.minimum, number.maximum),
            _ => panic!(
                "`minimum` and `maximum` apply to numbers, and this field's type is not a number; remove the attribute or change the field's type"
            ),
        };
        if let (Some(minimum), Some(lowest)) = (refine.minimum, lowest)
            && minimum.is_less_than(lowest)
        {
            panic!(
                "`minimum` is below the smallest value of this field's type, so it would advertise values serde refuses; raise it or widen the type"
            );
        }
        if let (Some(maximum), Some(highest)) = (refine.maximum, highest)
            && highest.is_less_than(maximum)
        {
            panic!(
                "`maximum` is above the largest value of this field's type, so it would advertise values serde refuses; lower it or widen the type"
            );
        }
        if let (Some(minimum), Some(maximum)) = (refine.minimum, refine.maximum)
            && maximum.is_less_than(minimum)
        {
            panic!("`minimum` is greater than `maximum`: no value could be valid");
        }
        if matches!(node, Node::Integer(_))
            && (is_fractional(refine.minimum) || is_fractional(refine.maximum))
        {
            panic!("this field is an integer; write `minimum` and `maximum` as whole numbers");
        }
    }
    if let (Some(min), Some(max)) = (refine.min_length, refine.max_length)
        && min > max
    {
        panic!("`min_length` is greater than `max_length`: no value could be valid");
    }
    if let (Some(min), Some(max)) = (refine.min_items, refine.max_items)
        && min > max
    {
        panic!("`min_items` is greater than `max_items`: no value could be valid");
    }
}

/// Rejects `#[tool(header)]` on an argument a header cannot carry.
pub const fn check_header(node: &Node) {
    if !matches!(
        unwrap_optional(node),
        Node::String(_) | Node::Integer(_) | Node::Number(_) | Node::Boolean
    ) {
        panic!(
            "a header carries one string, number or boolean, and this field's type is none of these; remove `header` or change the field's type"
        );
    }
}

/// Rejects `#[serde(flatten)]` on a type whose properties cannot be merged.
pub const fn check_flatten(node: &Node) {
    if !matches!(unwrap_optional(node), Node::Object(_) | Node::Map(_)) {
        panic!(
            "`#[serde(flatten)]` merges an object's properties, and this field's type is not a struct or map; remove `flatten` or flatten a struct"
        );
    }
}

/// A property of a struct, as [`check_flattened_names`] sees it.
pub struct Property {
    /// The exposed name.
    pub name: &'static str,
    /// Whether serde reads it (it is part of the input).
    pub read: bool,
    /// Whether serde writes it (it is part of the output).
    pub written: bool,
}

/// Rejects a flattened struct that brings in a property the struct already
/// has, in the same direction: one of its own fields (`own`) or one that an
/// earlier flattened struct brought in. Flattening nested inside the
/// flattened struct is checked by its own derive against its own fields.
pub const fn check_flattened_names(own: &[Property], earlier: &[&Node], flattened: &Node) {
    let fields = fields_of(flattened);
    let mut i = 0;
    while i < fields.len() {
        let field = &fields[i];
        let exposed = text_of(&field.exposed);
        i += 1;
        if field.flatten {
            continue;
        }
        let mut j = 0;
        while j < own.len() {
            let property = &own[j];
            j += 1;
            if same_str(property.name, exposed)
                && ((property.read && field.read) || (property.written && field.written))
            {
                duplicate_property(exposed);
            }
        }
        let mut k = 0;
        while k < earlier.len() {
            let before = fields_of(earlier[k]);
            let mut j = 0;
            while j < before.len() {
                let other = &before[j];
                j += 1;
                if !other.flatten
                    && same_str(text_of(&other.exposed), exposed)
                    && ((other.read && field.read) || (other.written && field.written))
                {
                    duplicate_property(exposed);
                }
            }
            k += 1;
        }
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Fails constant evaluation with a message naming `name`.
const fn duplicate_property(name: &str) -> ! {
    const HEAD: &[u8] = b"the flattened struct brings in a property exposed as `";
    const TAIL: &[u8] = b"`, which this struct already has; give one of them another name with `#[tool(rename = \"...\")]`";
    let mut buffer = [0u8; 512];
    let mut len = 0;
    let parts: [&[u8]; 3] = [HEAD, name.as_bytes(), TAIL];
    let mut part = 0;
    while part < parts.len() {
        let bytes = parts[part];
        let mut i = 0;
        while i < bytes.len() && len < buffer.len() {
            buffer[len] = bytes[i];
            len += 1;
            i += 1;
        }
        part += 1;
    }
    let (message, _) = buffer.split_at(len);
    match core::str::from_utf8(message) {
        Ok(message) => panic!("{}", message),
        Err(_) => panic!(
            "the flattened struct brings in a property this struct already has; give one of them another name with `#[tool(rename = \"...\")]`"
        ),
    }
}

/// Rejects a newtype variant under an internal tag whose payload is not an
/// object (serde could not put the tag beside it).
pub const fn check_tagged_payload(node: &Node) {
    if !matches!(unwrap_optional(node), Node::Object(_) | Node::Map(_)) {
        panic!(
            "a newtype variant of an internally tagged enum must hold a struct or a map, since the tag is written beside its fields; use a struct variant or `#[serde(tag, content)]`"
        );
    }
}

/// The link to a tool's output schema: the derive names the output type
/// only here, so a type without a schema is reported once. Any JSON value
/// may be an output (MCP 2026-07-28); older clients get it wrapped.
pub const fn output_of<T: Schema + ?Sized>() -> crate::model::NodeRef {
    Ref::Lazy(schema_of::<T>)
}

/// Rejects `#[tool(skip)]` on a field serde would require: a call never
/// carries a hidden field.
pub const fn check_skippable(node: &Node) {
    if !node.is_optional() {
        panic!(
            "`#[tool(skip)]` hides this field, but serde requires it in every call; add `#[serde(default)]` or `#[serde(skip)]`, or make it an `Option`"
        );
    }
}

/// Rejects examples and defaults whose JSON kind the field's type refuses.
pub const fn check_literals(node: &Node, literals: &[Literal]) {
    let node = unwrap_optional(node);
    let mut i = 0;
    while i < literals.len() {
        let fits = match (&literals[i], node) {
            (_, Node::Any) => true,
            (Literal::Null, _) => false,
            (Literal::Bool(_), Node::Boolean) => true,
            (Literal::Number(Number::Float(_)), Node::Number(_)) => true,
            (
                Literal::Number(Number::Int(_) | Number::UInt(_)),
                Node::Integer(_) | Node::Number(_),
            ) => true,
            (Literal::Str(_), Node::String(_) | Node::Enum(_)) => true,
            _ => false,
        };
        if !fits {
            panic!(
                "an example or default of this field is not of the field's JSON type; write a literal the field's type accepts"
            );
        }
        i += 1;
    }
}

const fn is_fractional(number: Option<Number>) -> bool {
    matches!(number, Some(Number::Float(_)))
}
