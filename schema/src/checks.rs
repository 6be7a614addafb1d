//! The checks of attributes against field types: each returns the
//! [`Problem`] it finds, a sentence that names the attribute and says what
//! to change. Constant functions: the derives evaluate them at compile time
//! (their constant panics with the sentence, at the attribute), and
//! registration evaluates [`check_refine`] once more for refinements on a
//! field whose type is a type parameter, which only registration knows.

use crate::model::{Field, Literal, Node, Number, ObjectNode, Ref, Refine};

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

/// What a check found wrong: a sentence of at most 512 bytes, built in
/// constant evaluation.
#[derive(Clone, Copy)]
pub struct Problem {
    bytes: [u8; 512],
    len: usize,
}

impl Problem {
    /// The sentence `parts` make, joined (cut at 512 bytes).
    const fn of(parts: &[&str]) -> Problem {
        let mut problem = Problem {
            bytes: [0; 512],
            len: 0,
        };
        let mut part = 0;
        while part < parts.len() {
            let bytes = parts[part].as_bytes();
            let mut i = 0;
            while i < bytes.len() && problem.len < problem.bytes.len() {
                problem.bytes[problem.len] = bytes[i];
                problem.len += 1;
                i += 1;
            }
            part += 1;
        }
        problem
    }

    /// The sentence.
    pub const fn as_str(&self) -> &str {
        let (bytes, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(bytes) {
            Ok(sentence) => sentence,
            // Cut inside a character: the sentence without its name.
            Err(_) => "this attribute does not suit the field's type",
        }
    }
}

/// A problem found by a check: `Some`, for the derive to report.
const fn found(parts: &[&str]) -> Option<Problem> {
    Some(Problem::of(parts))
}

/// The refinements a field's type cannot carry, naming the attribute
/// written. (`minimum` above `maximum` and the like are the derive's own
/// errors: they need no type.)
pub const fn check_refine(node: &Node, refine: &Refine) -> Option<Problem> {
    let node = unwrap_optional(node);
    if refine.has_string_keywords() && !matches!(node, Node::String(_)) {
        let key = if refine.format.is_some() {
            "format"
        } else if refine.pattern.is_some() {
            "pattern"
        } else if refine.min_length.is_some() {
            "min_length"
        } else {
            "max_length"
        };
        return found(&[
            "`",
            key,
            "` applies to strings, and this field's type is not a string; remove `",
            key,
            "` or change the field's type",
        ]);
    }
    // A refinement narrows what the type reads; one that widens it would
    // tell the model of values serde refuses.
    if let Node::String(string) = node {
        if refine.format.is_some() && string.format.is_some() {
            return found(&[
                "this field's type has a format of its own, which `format` would replace with one its values need not follow; remove `format`",
            ]);
        }
        if let (Some(asked), Some(least)) = (refine.min_length, string.min_length)
            && asked < least
        {
            return found(&[
                "`min_length` is below the fewest characters this field's type reads, so it would advertise values serde refuses; raise it or remove it",
            ]);
        }
        if let (Some(asked), Some(most)) = (refine.max_length, string.max_length)
            && asked > most
        {
            return found(&[
                "`max_length` is above the most characters this field's type reads, so it would advertise values serde refuses; lower it or remove it",
            ]);
        }
    }
    if let Node::Array(array) = node {
        if let (Some(asked), Some(least)) = (refine.min_items, array.min_items)
            && asked < least
        {
            return found(&[
                "`min_items` is below the fewest items this field's type reads (a fixed-size array), so it would advertise values serde refuses; raise it or remove it",
            ]);
        }
        if let (Some(asked), Some(most)) = (refine.max_items, array.max_items)
            && asked > most
        {
            return found(&[
                "`max_items` is above the most items this field's type reads (a fixed-size array), so it would advertise values serde refuses; lower it or remove it",
            ]);
        }
    }
    if refine.has_array_keywords() && !matches!(node, Node::Array(_)) {
        let key = if refine.min_items.is_some() {
            "min_items"
        } else {
            "max_items"
        };
        return found(&[
            "`",
            key,
            "` applies to arrays, and this field's type is not a `Vec`, slice or set; remove `",
            key,
            "` or change the field's type",
        ]);
    }
    if refine.has_number_keywords() {
        let key = if refine.minimum.is_some() {
            "minimum"
        } else {
            "maximum"
        };
        let (lowest, highest) = match node {
            Node::Integer(integer) => (integer.minimum, integer.maximum),
            Node::Number(number) => (number.minimum, number.maximum),
            _ => {
                return found(&[
                    "`",
                    key,
                    "` applies to numbers, and this field's type is not a number; remove `",
                    key,
                    "` or change the field's type",
                ]);
            }
        };
        if let (Some(minimum), Some(lowest)) = (refine.minimum, lowest)
            && minimum.is_less_than(lowest)
        {
            return found(&[
                "`minimum` is below the smallest value of this field's type, so it would advertise values serde refuses; raise it or widen the type",
            ]);
        }
        if let (Some(maximum), Some(highest)) = (refine.maximum, highest)
            && highest.is_less_than(maximum)
        {
            return found(&[
                "`maximum` is above the largest value of this field's type, so it would advertise values serde refuses; lower it or widen the type",
            ]);
        }
        if matches!(node, Node::Integer(_)) {
            let fractional = if is_fractional(refine.minimum) {
                Some("minimum")
            } else if is_fractional(refine.maximum) {
                Some("maximum")
            } else {
                None
            };
            if let Some(key) = fractional {
                return found(&[
                    "this field is an integer; write `",
                    key,
                    "` as a whole number",
                ]);
            }
        }
    }
    None
}

/// Rejects `#[tool(header)]` on an argument a header cannot carry.
pub const fn check_header(node: &Node) -> Option<Problem> {
    if !matches!(
        unwrap_optional(node),
        Node::String(_) | Node::Integer(_) | Node::Number(_) | Node::Boolean
    ) {
        return found(&[
            "a header carries one string, number or boolean, and this field's type is none of these; remove `header` or change the field's type",
        ]);
    }
    None
}

/// Rejects `#[serde(flatten)]` on a type whose properties cannot be merged,
/// and a flattened map in a struct that denies unknown fields (serde then
/// refuses every key the map would take).
pub const fn check_flatten(node: &Node, deny_unknown_fields: bool) -> Option<Problem> {
    match unwrap_optional(node) {
        Node::Map(_) if deny_unknown_fields => found(&[
            "with `#[serde(deny_unknown_fields)]` serde refuses every key a flattened map would take, so the map would always be empty; remove `deny_unknown_fields` or the map",
        ]),
        Node::Object(_) | Node::Map(_) => None,
        _ => found(&[
            "`#[serde(flatten)]` merges an object's properties, and this field's type is not a struct or map; remove `flatten` or flatten a struct",
        ]),
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
pub const fn check_flattened_names(
    own: &[Property],
    earlier: &[&Node],
    flattened: &Node,
) -> Option<Problem> {
    if matches!(unwrap_optional(flattened), Node::Map(_)) {
        let mut k = 0;
        while k < earlier.len() {
            if matches!(unwrap_optional(earlier[k]), Node::Map(_)) {
                return found(&[
                    "serde gives every key no field takes to each flattened map, so two of them must both accept every such value; flatten one map",
                ]);
            }
            k += 1;
        }
    }
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
                return duplicate_property(exposed);
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
                    return duplicate_property(exposed);
                }
            }
            k += 1;
        }
    }
    None
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

/// The problem of a property exposed as `name` brought in twice.
const fn duplicate_property(name: &str) -> Option<Problem> {
    found(&[
        "the flattened struct brings in a property exposed as `",
        name,
        "`, which this struct already has; give one of them another name with `#[tool(rename = \"...\")]`",
    ])
}

/// Rejects a newtype variant under an internal tag whose payload is not an
/// object (serde could not put the tag beside it).
pub const fn check_tagged_payload(node: &Node) -> Option<Problem> {
    if !matches!(unwrap_optional(node), Node::Object(_) | Node::Map(_)) {
        return found(&[
            "a newtype variant of an internally tagged enum must hold a struct or a map, since the tag is written beside its fields; use a struct variant or `#[serde(tag, content)]`",
        ]);
    }
    None
}

/// Rejects `#[tool(skip)]` on a field serde would require: a call never
/// carries a hidden field.
pub const fn check_skippable(node: &Node) -> Option<Problem> {
    if !node.is_optional() {
        return found(&[
            "`#[tool(skip)]` hides this field, but serde requires it in every call; add `#[serde(default)]` or `#[serde(skip)]`, or make it an `Option`",
        ]);
    }
    None
}

/// Rejects examples and defaults whose JSON kind the field's type refuses.
pub const fn check_literals(node: &Node, literals: &[Literal]) -> Option<Problem> {
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
            return found(&[
                "an example or default of this field is not of the field's JSON type; write a literal the field's type accepts",
            ]);
        }
        i += 1;
    }
    None
}

const fn is_fractional(number: Option<Number>) -> bool {
    matches!(number, Some(Number::Float(_)))
}
