//! The fast path of argument parsing: one pass in which serde reads the
//! arguments straight into the tool's type while every value is checked
//! against a flat check plan, and exposed names are turned into source names.
//!
//! It only ever answers "valid, here is the value" or "not sure": any
//! violation, any construct it does not check itself (enums with data,
//! tuples, unique items, flattened fields, open objects, a discovery hint
//! that is not a plain value), and any serde error send the call down the
//! full path ([`InputValidator`](crate::validate::InputValidator)), which
//! validates with `jsonschema` and reports every violation.
//!
//! The plan is built once per tool from the schema model: every place a
//! value can stand becomes a [`Slot`] with its bounds resolved (the type's
//! and the field's), every object its members and a bit mask of the
//! required ones, so a call walks no model. String formats and patterns are
//! checked by small `jsonschema` validators compiled once per field, so both
//! paths agree on them; plain e-mail addresses are accepted by a stricter
//! hand-written check first, and anything it does not accept still goes to
//! the validator.

use core::cell::Cell;
use core::fmt;
use std::collections::HashMap;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde_json::Value;

use crate::model::{Field, Node, Number, Refine, Variant};
use crate::project::HINT_FIELD;
use crate::render::Direction;
use crate::values::members;

/// The checks of one tool's arguments, resolved once.
pub(crate) struct Plan {
    /// Every place a value can stand; the arguments object is the first.
    slots: Vec<Slot>,
    objects: Vec<Object>,
    strings: Vec<StringCheck>,
    /// The deepest nesting of arrays and objects that arguments passing the
    /// plan can have; `None` when unbounded (recursion, values of any shape).
    depth: Option<usize>,
}

/// What may stand in one place.
#[derive(Clone, Copy)]
struct Slot {
    kind: Kind,
    /// Whether `null` may stand here: the field may be absent (the full path
    /// removes the `null`), or the schema allows `null` itself.
    null: bool,
}

#[derive(Clone, Copy)]
enum Kind {
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
    /// An enum of unit variants, written as their names.
    Enum(&'static [Variant]),
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
struct Object {
    members: Vec<Member>,
    /// Bit `i` is set when `members[i]` is required.
    required: u64,
}

struct Member {
    exposed: Name,
    source: &'static str,
    slot: u32,
}

/// A property name, with words read ahead so that most comparisons are two
/// integer compares rather than a call to `memcmp`.
struct Name {
    text: &'static str,
    words: (u64, u64),
}

impl Name {
    fn new(text: &'static str) -> Name {
        Name {
            text,
            words: words(text.as_bytes()),
        }
    }

    #[inline]
    fn is(&self, name: &str) -> bool {
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
struct StringCheck {
    validator: jsonschema::Validator,
    /// The check is `format: email` alone, so [`plain_email`] may vouch.
    email: bool,
}

impl StringCheck {
    #[inline]
    fn accepts(&self, text: &str) -> bool {
        (self.email && plain_email(text)) || self.validator.is_valid(&Value::String(text.into()))
    }
}

/// Objects wider than this are left to the full path (one bit each).
const MAX_MEMBERS: usize = 64;

impl Plan {
    /// Builds the plan of `root`, the input node of a tool. `None` when a
    /// string check does not compile (the full path then reports it).
    pub(crate) fn compile(root: &'static Node) -> Option<Plan> {
        let mut builder = Builder {
            plan: Plan {
                slots: Vec::new(),
                objects: Vec::new(),
                strings: Vec::new(),
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
    fn slot(&mut self, node: &'static Node, field: Option<&'static Field>) -> Option<u32> {
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

    fn kind(&mut self, node: &'static Node, field: Option<&'static Field>) -> Option<Kind> {
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
                min: tighter(number.minimum, refine.minimum, |a, b| less(b, a)),
                max: tighter(number.maximum, refine.maximum, less),
            },
            Node::String(string) => {
                let format = refine.format.or(string.format);
                let pattern = refine.pattern.or(string.pattern);
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
                Kind::Enum(enumeration.variants)
            }
            Node::Array(array) if !array.unique_items => {
                let items = self.slot(array.items, None)?;
                Kind::Array {
                    items,
                    min: refine.min_items.or(array.min_items).unwrap_or(0),
                    max: refine.max_items.or(array.max_items).unwrap_or(u64::MAX),
                }
            }
            Node::Map(map) => Kind::Map {
                values: self.slot(map.values, None)?,
            },
            Node::Object(object)
                if matches!(object.additional, crate::model::Additional::Deny)
                    && !object.fields.iter().any(|f| f.flatten) =>
            {
                let address = object.fields.as_ptr() as usize;
                if let Some(&index) = self.objects.get(&address) {
                    return Some(Kind::Object(index));
                }
                let fields = members(object.fields, Direction::Input);
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
                        exposed: Name::new(field.exposed),
                        source: field.source,
                        slot: self.slot((field.schema)(), Some(field))?,
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

    fn string_check(
        &mut self,
        format: Option<&'static str>,
        pattern: Option<&'static str>,
    ) -> Option<u32> {
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

fn less(a: Number, b: Number) -> bool {
    match (a, b) {
        (Number::Int(a), Number::Int(b)) => a < b,
        (Number::UInt(a), Number::UInt(b)) => a < b,
        (Number::Int(a), Number::UInt(b)) => a < 0 || (a as u64) < b,
        (Number::UInt(a), Number::Int(b)) => b >= 0 && a < b as u64,
        (a, b) => as_float(a) < as_float(b),
    }
}

fn as_float(n: Number) -> f64 {
    match n {
        Number::Int(n) => n as f64,
        Number::UInt(n) => n as f64,
        Number::Float(n) => n,
    }
}

/// A plain e-mail address: a dot-atom local part of at most 64 ASCII
/// characters, `@`, and a host name of letters, digits and hyphens (labels
/// of 1 to 63, none starting or ending with a hyphen, none with hyphens in
/// third and fourth place, at most 253 in all). Every such address passes
/// `jsonschema`'s `email` format; the converse does not hold (quoted local
/// parts, address literals, IDNs), and those go to the validator.
pub(crate) fn plain_email(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(at) = bytes.iter().position(|&b| b == b'@') else {
        return false;
    };
    let (local, host) = (&bytes[..at], &bytes[at + 1..]);
    if local.is_empty() || local.len() > 64 || host.is_empty() || host.len() > 253 {
        return false;
    }
    // Atoms: no dot first, last or twice in a row.
    let mut previous = b'.';
    for &byte in local {
        let ok = if byte == b'.' {
            previous != b'.'
        } else {
            ATOM[usize::from(byte)]
        };
        if !ok {
            return false;
        }
        previous = byte;
    }
    previous != b'.' && host.split(|&b| b == b'.').all(plain_label)
}

/// A host name label of letters, digits and inner hyphens, not an A-label
/// (`xn--`) nor anything else with hyphens in third and fourth place.
#[inline]
fn plain_label(label: &[u8]) -> bool {
    match (label.first(), label.last()) {
        (Some(&first), Some(&last)) => {
            label.len() <= 63
                && first != b'-'
                && last != b'-'
                && label.iter().all(|&b| LABEL[usize::from(b)])
                && !(label.len() >= 4 && label[2] == b'-' && label[3] == b'-')
        }
        _ => false,
    }
}

/// The bytes of an RFC 5322 atom, ASCII only.
static ATOM: [bool; 256] = byte_set(b"!#$%&'*+-/=?^_`{|}~");
/// The bytes of a host name label.
static LABEL: [bool; 256] = byte_set(b"-");

/// ASCII letters and digits, and `extra`.
const fn byte_set(extra: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut byte = 0;
    while byte < 128 {
        set[byte] = (byte as u8).is_ascii_alphanumeric();
        byte += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        set[extra[i] as usize] = true;
        i += 1;
    }
    set
}

/// The error that sends a call down the full path.
#[derive(Debug)]
pub(crate) struct NotSure;

impl fmt::Display for NotSure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fast path cannot vouch for these arguments")
    }
}

impl std::error::Error for NotSure {}

impl de::Error for NotSure {
    fn custom<T: fmt::Display>(_: T) -> NotSure {
        NotSure
    }
}

/// Reads `text` as `T`, checking it against `plan` on the way; `None` when
/// the full path must decide.
pub(crate) fn parse<T: de::DeserializeOwned>(text: &str, plan: &Plan) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = read_with(&mut de, plan)?;
    de.end().ok()?;
    Some(value)
}

/// Reads arguments already parsed (as they arrive inside a JSON-RPC
/// request) as `T`, checking them against `plan`; `None` when the full path
/// must decide.
pub(crate) fn read<T: de::DeserializeOwned>(value: &Value, plan: &Plan) -> Option<T> {
    read_with(value, plan)
}

fn read_with<'de, T: de::Deserialize<'de>, D: Deserializer<'de>>(de: D, plan: &Plan) -> Option<T> {
    let run = Run {
        plan,
        failed: Cell::new(false),
    };
    let place = Place {
        run: &run,
        slot: &plan.slots[0],
    };
    let value = T::deserialize(Checked { de, place }).ok()?;
    (!run.failed.get()).then_some(value)
}

/// One pass: the plan and the verdict.
struct Run<'a> {
    plan: &'a Plan,
    failed: Cell<bool>,
}

/// Where a value stands.
#[derive(Clone, Copy)]
struct Place<'a> {
    run: &'a Run<'a>,
    slot: &'a Slot,
}

impl<'a> Place<'a> {
    #[inline]
    fn at(self, slot: u32) -> Place<'a> {
        Place {
            run: self.run,
            slot: &self.run.plan.slots[slot as usize],
        }
    }

    /// Records a doubt and returns the error that stops serde.
    fn fail<E: de::Error>(self) -> E {
        self.run.failed.set(true);
        E::custom(NotSure)
    }

    #[inline]
    fn integer(self, value: i128) -> bool {
        match self.slot.kind {
            Kind::Integer { min, max, nonzero } => {
                min <= value && value <= max && !(nonzero && value == 0)
            }
            Kind::Number { min, max } => {
                // Every JSON integer fits one of the two.
                let value = i64::try_from(value)
                    .map(Number::Int)
                    .unwrap_or(Number::UInt(value as u64));
                self.number(value, min, max)
            }
            Kind::Any => true,
            _ => false,
        }
    }

    #[inline]
    fn float(self, value: f64) -> bool {
        match self.slot.kind {
            Kind::Number { min, max } => self.number(Number::Float(value), min, max),
            Kind::Any => true,
            _ => false,
        }
    }

    fn number(self, value: Number, min: Option<Number>, max: Option<Number>) -> bool {
        min.is_none_or(|min| !less(value, min)) && max.is_none_or(|max| !less(max, value))
    }

    #[inline]
    fn string(self, text: &str) -> bool {
        match self.slot.kind {
            Kind::String { min, max, check } => {
                // A string has at least a quarter as many characters as
                // bytes, and at most as many: count only when that decides.
                let bytes = text.len() as u64;
                if bytes > max || bytes / 4 < min {
                    let chars = text.chars().count() as u64;
                    if chars < min || chars > max {
                        return false;
                    }
                }
                check.is_none_or(|check| self.run.plan.strings[check as usize].accepts(text))
            }
            Kind::Enum(variants) => variants.iter().any(|v| v.name == text),
            Kind::Any => true,
            _ => false,
        }
    }

    #[inline]
    fn null(self) -> bool {
        self.slot.null
    }
}

/// A deserializer that checks what it hands to serde.
struct Checked<'a, D> {
    de: D,
    place: Place<'a>,
}

macro_rules! forward {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            let place = self.place;
            self.de.$method(Check { visitor, place })
        }
    )*};
}

// The errors stay the wrapped deserializer's own, so values pass through
// every layer untouched; a failed check is recorded in the run as well.
impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_option deserialize_unit
        deserialize_seq deserialize_map deserialize_identifier deserialize_ignored_any
        deserialize_i128 deserialize_u128
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de
            .deserialize_unit_struct(name, Check { visitor, place })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de
            .deserialize_newtype_struct(name, Check { visitor, place })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, D::Error> {
        Err(self.place.fail())
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, D::Error> {
        Err(self.place.fail())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let place = self.place;
        self.de
            .deserialize_struct(name, fields, Check { visitor, place })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // String enums are checked here; enums with data are left to the
        // full path.
        let place = self.place;
        if !matches!(place.slot.kind, Kind::Enum(_)) {
            return Err(place.fail());
        }
        self.de
            .deserialize_enum(name, variants, Check { visitor, place })
    }
}

/// A visitor that checks each value against its place, then hands it on.
struct Check<'a, V> {
    visitor: V,
    place: Place<'a>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Check<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        if !matches!(self.place.slot.kind, Kind::Bool | Kind::Any) {
            return Err(self.place.fail());
        }
        self.visitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        if !self.place.integer(v.into()) {
            return Err(self.place.fail());
        }
        self.visitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        if !self.place.integer(v.into()) {
            return Err(self.place.fail());
        }
        self.visitor.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if !self.place.float(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_f64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        if !self.place.string(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        if !self.place.string(v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        if !self.place.string(&v) {
            return Err(self.place.fail());
        }
        self.visitor.visit_string(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        if !self.place.null() {
            return Err(self.place.fail());
        }
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        if !self.place.null() {
            return Err(self.place.fail());
        }
        self.visitor.visit_unit()
    }

    fn visit_some<D2: Deserializer<'de>>(self, deserializer: D2) -> Result<V::Value, D2::Error> {
        let place = self.place;
        self.visitor.visit_some(Checked {
            de: deserializer,
            place,
        })
    }

    fn visit_newtype_struct<D2: Deserializer<'de>>(
        self,
        deserializer: D2,
    ) -> Result<V::Value, D2::Error> {
        let place = self.place;
        self.visitor.visit_newtype_struct(Checked {
            de: deserializer,
            place,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let place = self.place;
        let (items, min, max) = match place.slot.kind {
            Kind::Array { items, min, max } => (items, min, max),
            Kind::Any => return self.visitor.visit_seq(seq),
            _ => return Err(place.fail()),
        };
        let count = Cell::new(0u64);
        let value = self.visitor.visit_seq(Items {
            seq,
            place: place.at(items),
            count: &count,
        })?;
        let n = count.get();
        if n < min || n > max {
            return Err(place.fail());
        }
        Ok(value)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(Variants {
            data,
            place: self.place,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let place = self.place;
        match place.slot.kind {
            Kind::Object(index) => {
                let plan = place.run.plan;
                let object = &plan.objects[index as usize];
                let complete = Cell::new(false);
                let value = self.visitor.visit_map(Properties {
                    map,
                    object,
                    // The discovery hint is a property of the arguments
                    // object only.
                    root: core::ptr::eq(place.slot, &plan.slots[0]),
                    guess: 0,
                    place,
                    current: None,
                    seen: 0,
                    complete: &complete,
                })?;
                // serde read to the end, where the required members were
                // counted.
                if !complete.get() {
                    return Err(place.fail());
                }
                Ok(value)
            }
            Kind::Map { values } => self.visitor.visit_map(Entries {
                map,
                place: place.at(values),
            }),
            Kind::Any => self.visitor.visit_map(map),
            _ => Err(place.fail()),
        }
    }
}

/// Array items, each checked against the item slot.
struct Items<'a, A> {
    seq: A,
    place: Place<'a>,
    count: &'a Cell<u64>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let next = self.seq.next_element_seed(Seeded {
            seed,
            place: self.place,
        })?;
        if next.is_some() {
            self.count.set(self.count.get() + 1);
        }
        Ok(next)
    }
}

/// The properties of an object: exposed names read, source names handed on.
struct Properties<'a, A> {
    map: A,
    object: &'a Object,
    root: bool,
    /// Where the next property probably is: arguments usually come in
    /// declaration order.
    guess: usize,
    place: Place<'a>,
    current: Option<u32>,
    /// Bit `i` is set once `members[i]` has been read.
    seen: u64,
    /// Set at the end of the object when every required member was there.
    complete: &'a Cell<bool>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Properties<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let members = &self.object.members;
            let Some(key) = self.map.next_key_seed(KeySeed {
                members,
                guess: self.guess,
                root: self.root,
            })?
            else {
                let required = self.object.required;
                if self.seen & required != required {
                    return Err(self.place.fail());
                }
                self.complete.set(true);
                return Ok(None);
            };
            let index = match key {
                Key::Member(index) => index,
                Key::Hint => {
                    // Removed by the full path whatever it holds; a plain
                    // value cannot nest past the limits.
                    self.map.next_value_seed(PlainValue)?;
                    continue;
                }
                // An unknown property: the full path reports it.
                Key::Unknown => return Err(self.place.fail()),
            };
            let bit = 1u64 << index;
            if self.seen & bit != 0 {
                return Err(self.place.fail());
            }
            self.seen |= bit;
            let member = &members[index];
            self.current = Some(member.slot);
            self.guess = index + 1;
            return seed
                .deserialize(de::value::BorrowedStrDeserializer::<A::Error>::new(
                    member.source,
                ))
                .map(Some);
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let Some(slot) = self.current.take() else {
            return Err(self.place.fail());
        };
        self.map.next_value_seed(Seeded {
            seed,
            place: self.place.at(slot),
        })
    }
}

/// The entries of a map, each value checked against the value slot.
struct Entries<'a, A> {
    map: A,
    place: Place<'a>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(Seeded {
            seed,
            place: self.place,
        })
    }
}

/// A seed whose deserializer checks what it reads.
struct Seeded<'a, S> {
    seed: S,
    place: Place<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seeded<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        let place = self.place;
        self.seed.deserialize(Checked {
            de: deserializer,
            place,
        })
    }
}

/// The variant of a string enum: its name is checked as a string in the
/// enum's slot; only unit variants pass.
struct Variants<'a, A> {
    data: A,
    place: Place<'a>,
}

impl<'de, 'a, A: EnumAccess<'de>> EnumAccess<'de> for Variants<'a, A> {
    type Error = A::Error;
    type Variant = UnitOnly<'a, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let place = self.place;
        let (value, variant) = self.data.variant_seed(Seeded { seed, place })?;
        Ok((value, UnitOnly { variant, place }))
    }
}

struct UnitOnly<'a, A> {
    variant: A,
    place: Place<'a>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for UnitOnly<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, A::Error> {
        Err(self.place.fail())
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, A::Error> {
        Err(self.place.fail())
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, A::Error> {
        Err(self.place.fail())
    }
}

/// A property name as read: one of the object's members, the discovery
/// hint, or unknown. Read without allocating.
enum Key {
    Member(usize),
    Hint,
    Unknown,
}

struct KeySeed<'a> {
    members: &'a [Member],
    guess: usize,
    root: bool,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    #[inline]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
        if self
            .members
            .get(self.guess)
            .is_some_and(|m| m.exposed.is(name))
        {
            return Ok(Key::Member(self.guess));
        }
        if let Some(index) = self.members.iter().position(|m| m.exposed.is(name)) {
            return Ok(Key::Member(index));
        }
        Ok(if self.root && name == HINT_FIELD {
            Key::Hint
        } else {
            Key::Unknown
        })
    }
}

/// A value that is not an array or an object, read and dropped.
struct PlainValue;

impl<'de> DeserializeSeed<'de> for PlainValue {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PlainValue {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, number, boolean or null")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
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
            let name = Name::new(Box::leak(a.clone().into_boxed_str()));
            for b in &texts {
                assert_eq!(name.is(b), a == b, "{a:?} against {b:?}");
            }
        }
    }
}
