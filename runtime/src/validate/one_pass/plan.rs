//! The check plan of one tool's arguments: built once from the schema
//! model, so that a call walks no model.

use std::collections::HashMap;

use serde_json::Value;

use super::email::plain_email;
use crate::model::{Additional, Direction, Field, Node, Number, Refine, members};

/// The checks of one tool's arguments, resolved once.
pub(crate) struct Plan {
    /// Every place a value can stand; the arguments object is the first.
    pub(super) slots: Vec<Slot>,
    pub(super) objects: Vec<Object>,
    pub(super) strings: Vec<StringCheck>,
    /// The names of string enums' variants; [`Kind::Enum`] indexes them.
    pub(super) enums: Vec<Box<[Box<str>]>>,
    /// The deepest nesting of arrays and objects that arguments passing the
    /// plan can have; `None` when unbounded (recursion, values of any shape).
    pub(super) depth: Option<usize>,
}

/// What may stand in one place.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) kind: Kind,
    /// Whether `null` may stand here: the field may be absent (the full path
    /// removes the `null`), or the schema allows `null` itself.
    pub(super) null: bool,
}

#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// Anything; nothing below is checked.
    Any,
    Null,
    Bool,
    /// Integer bounds, both the type's and the field's, over `i128` so every
    /// JSON integer compares exactly.
    Integer {
        min: i128,
        max: i128,
        nonzero: bool,
    },
    Number {
        min: Option<Number>,
        max: Option<Number>,
    },
    /// Lengths in characters; `check` indexes [`Plan::strings`].
    String {
        min: u64,
        max: u64,
        check: Option<u32>,
    },
    /// An enum of unit variants, written as their names; indexes
    /// [`Plan::enums`].
    Enum(u32),
    Array {
        items: u32,
        min: u64,
        max: u64,
    },
    Map {
        values: u32,
    },
    Object(u32),
    /// Something only the full path checks.
    Refuse,
}

/// A closed object without flattened fields.
pub(super) struct Object {
    pub(super) members: Vec<Member>,
    /// Bit `i` is set when `members[i]` is required.
    pub(super) required: u64,
}

pub(super) struct Member {
    pub(super) exposed: Name,
    /// A copy of the source name: read on every call, it is kept where
    /// reading it is one load.
    pub(super) source: Box<str>,
    pub(super) slot: u32,
}

/// A property name, with words read ahead so that most comparisons are two
/// integer compares rather than a call to `memcmp`.
pub(super) struct Name {
    pub(super) text: Box<str>,
    pub(super) words: (u64, u64),
}

impl Name {
    fn new(text: &str) -> Name {
        Name {
            words: words(text.as_bytes()),
            text: text.into(),
        }
    }

    #[inline]
    pub(super) fn is(&self, name: &str) -> bool {
        let bytes = name.as_bytes();
        bytes.len() == self.text.len()
            && if bytes.len() <= 16 {
                words(bytes) == self.words
            } else {
                bytes == self.text.as_bytes()
            }
    }
}

/// Two words that, for strings of the same length up to 16 bytes, are equal
/// exactly when the strings are: the first and last 8 (or 4) bytes, which
/// overlap or meet in the middle; shorter strings packed byte by byte.
#[inline]
fn words(bytes: &[u8]) -> (u64, u64) {
    let n = bytes.len();
    let word = |at: usize| {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(eight)
    };
    let half = |at: usize| {
        let mut four = [0u8; 4];
        four.copy_from_slice(&bytes[at..at + 4]);
        u64::from(u32::from_le_bytes(four))
    };
    match n {
        8.. => (word(0), word(n - 8)),
        4.. => (half(0), half(n - 4)),
        _ => (
            bytes
                .iter()
                .fold(0u64, |packed, &byte| packed << 8 | u64::from(byte)),
            0,
        ),
    }
}

/// A format and/or pattern on a string, checked as `jsonschema` checks it.
pub(super) struct StringCheck {
    pub(super) validator: jsonschema::Validator,
    /// The check is `format: email` alone, so [`plain_email`] may vouch.
    pub(super) email: bool,
}

impl StringCheck {
    #[inline]
    pub(super) fn accepts(&self, text: &str) -> bool {
        (self.email && plain_email(text)) || self.validator.is_valid(&Value::String(text.into()))
    }
}

/// Objects wider than this are left to the full path (one bit each).
const MAX_MEMBERS: usize = 64;

impl Plan {
    /// Builds the plan of `root`, the input node of a tool. `None` when a
    /// string check does not compile (the full path then reports it).
    pub(crate) fn compile(root: &Node) -> Option<Plan> {
        let mut builder = Builder {
            plan: Plan {
                slots: Vec::new(),
                objects: Vec::new(),
                strings: Vec::new(),
                enums: Vec::new(),
                depth: None,
            },
            objects: HashMap::new(),
        };
        builder.slot(root, None)?;
        let mut plan = builder.plan;
        let mut depths = vec![Depth::Unknown; plan.objects.len()];
        plan.depth = plan.depth_of(0, &mut depths);
        Some(plan)
    }

    /// Whether every argument object this plan accepts nests at most `max`
    /// levels, so the bytes need no nesting scan before the pass.
    pub(crate) fn bounds_depth(&self, max: usize) -> bool {
        self.depth.is_some_and(|depth| depth <= max)
    }

    fn depth_of(&self, slot: u32, depths: &mut [Depth]) -> Option<usize> {
        match self.slots[slot as usize].kind {
            Kind::Any => None,
            Kind::Array { items, .. } => Some(self.depth_of(items, depths)? + 1),
            Kind::Map { values } => Some(self.depth_of(values, depths)? + 1),
            Kind::Object(index) => {
                let index = index as usize;
                match depths[index] {
                    Depth::Known(depth) => return depth,
                    // A cycle: an object inside itself nests without bound.
                    Depth::Visiting => return None,
                    Depth::Unknown => {}
                }
                depths[index] = Depth::Visiting;
                let mut deepest = Some(0);
                for member in &self.objects[index].members {
                    deepest = match (deepest, self.depth_of(member.slot, depths)) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                }
                let depth = deepest.map(|d| d + 1);
                depths[index] = Depth::Known(depth);
                depth
            }
            _ => Some(0),
        }
    }
}

#[derive(Clone, Copy)]
enum Depth {
    Unknown,
    Visiting,
    Known(Option<usize>),
}

struct Builder {
    plan: Plan,
    /// Objects already planned, by the address of their field list: shared
    /// types are planned once, and recursion ends.
    objects: HashMap<usize, u32>,
}

impl Builder {
    /// Adds the slot of `node` (held by `field`, if any) and returns its
    /// index.
    fn slot(&mut self, node: &Node, field: Option<&Field>) -> Option<u32> {
        let index = self.plan.slots.len() as u32;
        let null =
            field.is_some_and(|f| !f.is_required()) || matches!(node, Node::Any | Node::Null);
        self.plan.slots.push(Slot {
            kind: Kind::Refuse,
            null,
        });
        let kind = self.kind(node.unwrap_optional(), field)?;
        self.plan.slots[index as usize].kind = kind;
        Some(index)
    }

    fn kind(&mut self, node: &Node, field: Option<&Field>) -> Option<Kind> {
        let refine = field.map_or(&Refine::NONE, |f| &f.refine);
        Some(match node {
            Node::Any => Kind::Any,
            Node::Null => Kind::Null,
            Node::Boolean => Kind::Bool,
            Node::Integer(integer) => {
                let (Some((min_a, max_a)), Some((min_b, max_b))) = (
                    integer_range(integer.minimum, integer.maximum),
                    integer_range(refine.minimum, refine.maximum),
                ) else {
                    return Some(Kind::Refuse);
                };
                Kind::Integer {
                    min: min_a.max(min_b),
                    max: max_a.min(max_b),
                    nonzero: integer.nonzero,
                }
            }
            Node::Number(number) => Kind::Number {
                min: tighter(number.minimum, refine.minimum, |a, b| b.is_less_than(a)),
                max: tighter(number.maximum, refine.maximum, Number::is_less_than),
            },
            Node::String(string) => {
                let format = refine.format.as_deref().or(string.format.as_deref());
                let pattern = refine.pattern.as_deref().or(string.pattern.as_deref());
                let check = match (format, pattern) {
                    (None, None) => None,
                    _ => Some(self.string_check(format, pattern)?),
                };
                Kind::String {
                    min: refine.min_length.or(string.min_length).unwrap_or(0),
                    max: refine.max_length.or(string.max_length).unwrap_or(u64::MAX),
                    check,
                }
            }
            Node::Enum(enumeration) if enumeration.is_string_enum() => {
                let names = enumeration.variants.iter().map(|v| (*v.name).into());
                self.plan.enums.push(names.collect());
                Kind::Enum(self.plan.enums.len() as u32 - 1)
            }
            Node::Array(array) if !array.unique_items => {
                let items = self.slot(&array.items, None)?;
                Kind::Array {
                    items,
                    min: refine.min_items.or(array.min_items).unwrap_or(0),
                    max: refine.max_items.or(array.max_items).unwrap_or(u64::MAX),
                }
            }
            Node::Map(map) => Kind::Map {
                values: self.slot(&map.values, None)?,
            },
            Node::Object(object)
                if matches!(object.additional, Additional::Deny)
                    && !object.fields.iter().any(|f| f.flatten) =>
            {
                let address = object.fields.as_ptr() as usize;
                if let Some(&index) = self.objects.get(&address) {
                    return Some(Kind::Object(index));
                }
                let fields = members(&object.fields, Direction::Input);
                if fields.len() > MAX_MEMBERS {
                    return Some(Kind::Refuse);
                }
                let index = self.plan.objects.len() as u32;
                self.objects.insert(address, index);
                self.plan.objects.push(Object {
                    members: Vec::new(),
                    required: 0,
                });
                let mut planned = Vec::with_capacity(fields.len());
                let mut required = 0u64;
                for (i, member) in fields.iter().enumerate() {
                    if member.is_required(Direction::Input) {
                        required |= 1 << i;
                    }
                    let field = member.field;
                    planned.push(Member {
                        exposed: Name::new(&field.exposed),
                        source: (*field.source).into(),
                        slot: self.slot(&field.schema, Some(field))?,
                    });
                }
                self.plan.objects[index as usize] = Object {
                    members: planned,
                    required,
                };
                Kind::Object(index)
            }
            _ => Kind::Refuse,
        })
    }

    fn string_check(&mut self, format: Option<&str>, pattern: Option<&str>) -> Option<u32> {
        let mut schema = serde_json::json!({"type": "string"});
        if let Some(format) = format {
            schema["format"] = format.into();
        }
        if let Some(pattern) = pattern {
            schema["pattern"] = pattern.into();
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .ok()?;
        self.plan.strings.push(StringCheck {
            validator,
            email: format == Some("email") && pattern.is_none(),
        });
        Some(self.plan.strings.len() as u32 - 1)
    }
}

/// The integers between two bounds; `None` when a bound is not a finite
/// number.
fn integer_range(minimum: Option<Number>, maximum: Option<Number>) -> Option<(i128, i128)> {
    /// The bound as an integer, a fraction rounded inwards by `round`.
    fn integer(bound: Option<Number>, unbounded: i128, round: fn(f64) -> f64) -> Option<i128> {
        Some(match bound {
            None => unbounded,
            Some(Number::Int(n)) => n.into(),
            Some(Number::UInt(n)) => n.into(),
            Some(Number::Float(f)) if f.is_finite() => round(f) as i128,
            Some(Number::Float(_)) => return None,
        })
    }
    Some((
        integer(minimum, i128::MIN, f64::ceil)?,
        integer(maximum, i128::MAX, f64::floor)?,
    ))
}

/// Of two optional bounds, the one that binds: `first_binds(a, b)` says
/// whether `a` is the stricter.
fn tighter(
    a: Option<Number>,
    b: Option<Number>,
    first_binds: impl Fn(Number, Number) -> bool,
) -> Option<Number> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if first_binds(a, b) { a } else { b }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn names_compare_equal_exactly_when_their_text_is() {
        // Every pair among strings of 0 to 20 bytes over a small alphabet,
        // many differing in one byte only, at every position.
        let mut texts: Vec<String> = Vec::new();
        for len in 0..=20 {
            let base: String = (0..len).map(|i| (b'a' + (i % 3) as u8) as char).collect();
            texts.push(base.clone());
            for at in 0..len {
                let mut bytes = base.clone().into_bytes();
                bytes[at] = b'z';
                texts.push(String::from_utf8(bytes).expect("ascii"));
            }
        }
        for a in &texts {
            let name = Name::new(a);
            for b in &texts {
                assert_eq!(name.is(b), a == b, "{a:?} against {b:?}");
            }
        }
    }
}
