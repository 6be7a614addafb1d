//! The fast path of argument parsing: one pass in which serde reads the
//! arguments straight into the tool's type while every value is checked
//! against the schema model, and exposed names are turned into source names.
//!
//! It only ever answers "valid, here is the value" or "not sure": any
//! violation, any construct it does not check itself (enums with data,
//! tuples, unique items, flattened maps, unknown properties of open
//! objects), and any serde error send the call down the full path
//! ([`InputValidator`](crate::validate::InputValidator)), which validates
//! with `jsonschema` and reports every violation. String formats and
//! patterns are checked by small `jsonschema` validators compiled once per
//! field, so both paths agree on them.

use core::cell::Cell;
use core::fmt;
use std::collections::HashMap;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde_json::Value;

use crate::model::{Field, Node, Number, Refine};
use crate::project::HINT_FIELD;
use crate::render::Direction;
use crate::values::{Member, members};

/// String checks the model cannot do by hand: formats and patterns, one
/// small validator per field (keyed by the field's address) or per string
/// node.
#[derive(Default)]
pub(crate) struct Strings {
    validators: HashMap<usize, jsonschema::Validator>,
    /// Each object's members (flattening resolved), by the address of its
    /// field list, sorted for a binary search: computed once, not per call.
    members: Vec<(usize, Object)>,
}

impl Strings {
    /// Compiles the format and pattern checks of every string reachable
    /// from `root`. `None` when one does not compile (the full path then
    /// reports it).
    pub(crate) fn compile(root: &'static Node) -> Option<Strings> {
        let mut strings = Strings::default();
        let mut seen = Vec::new();
        strings.walk(root, None, &mut seen)?;
        strings.members.sort_by_key(|(address, _)| *address);
        Some(strings)
    }

    fn walk(
        &mut self,
        node: &'static Node,
        field: Option<&'static Field>,
        seen: &mut Vec<&'static str>,
    ) -> Option<()> {
        match node {
            Node::Optional(inner) => self.walk(inner, field, seen),
            Node::Array(array) => self.walk(array.items, None, seen),
            Node::Map(map) => self.walk(map.values, None, seen),
            Node::String(string) => {
                let refine = field.map_or(&Refine::NONE, |f| &f.refine);
                let format = refine.format.or(string.format);
                let pattern = refine.pattern.or(string.pattern);
                if format.is_none() && pattern.is_none() {
                    return Some(());
                }
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
                self.validators.insert(key(node, field), validator);
                Some(())
            }
            Node::Object(object) => {
                let name = (object.info.type_name)();
                if seen.contains(&name) {
                    return Some(());
                }
                seen.push(name);
                let address = object.fields.as_ptr() as usize;
                let members = members(object.fields, Direction::Input);
                if members.len() > 128 {
                    return None;
                }
                let required = members
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.is_required(Direction::Input))
                    .fold(0u128, |mask, (i, _)| mask | (1 << i));
                self.members.push((address, Object { members, required }));
                for field in object.fields {
                    self.walk((field.schema)(), Some(field), seen)?;
                }
                Some(())
            }
            _ => Some(()),
        }
    }

    fn object(&self, fields: &'static [Field]) -> Option<&Object> {
        let address = fields.as_ptr() as usize;
        let at = self
            .members
            .binary_search_by_key(&address, |(a, _)| *a)
            .ok()?;
        Some(&self.members[at].1)
    }

    fn check(&self, node: &'static Node, field: Option<&'static Field>, text: &str) -> bool {
        match self.validators.get(&key(node, field)) {
            Some(validator) => validator.is_valid(&Value::String(text.to_owned())),
            None => true,
        }
    }
}

fn key(node: &'static Node, field: Option<&'static Field>) -> usize {
    match field {
        Some(field) => core::ptr::from_ref(field) as usize,
        None => core::ptr::from_ref(node) as usize,
    }
}

/// What the one pass needs of an object: its members (flattening resolved)
/// and which of them are required, as a bit mask.
pub(crate) struct Object {
    members: Vec<Member>,
    required: u128,
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

/// Reads `text` as `T`, checking it against `root` on the way; `None` when
/// the full path must decide.
pub(crate) fn parse<T: de::DeserializeOwned>(
    text: &str,
    root: &'static Node,
    strings: &Strings,
) -> Option<T> {
    let failed = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(text);
    let place = Place {
        node: root,
        field: None,
        strings,
        failed: &failed,
    };
    let value = T::deserialize(Checked { de: &mut de, place }).ok()?;
    de.end().ok()?;
    (!failed.get()).then_some(value)
}

/// Where a value stands: its node, the field that holds it, and the shared
/// verdict.
#[derive(Clone, Copy)]
struct Place<'a> {
    node: &'static Node,
    field: Option<&'static Field>,
    strings: &'a Strings,
    failed: &'a Cell<bool>,
}

impl Place<'_> {
    fn refine(&self) -> &'static Refine {
        self.field.map_or(&Refine::NONE, |f| &f.refine)
    }

    /// Records a doubt and returns the error that stops serde.
    fn fail<E: de::Error>(&self) -> E {
        self.failed.set(true);
        E::custom(NotSure)
    }

    fn number(&self, value: Number) -> bool {
        let (minimum, maximum, nonzero, integer) = match self.node.unwrap_optional() {
            Node::Integer(n) => (n.minimum, n.maximum, n.nonzero, true),
            Node::Number(n) => (n.minimum, n.maximum, false, false),
            Node::Any => return true,
            _ => return false,
        };
        if integer && matches!(value, Number::Float(f) if f.fract() != 0.0) {
            return false;
        }
        let refine = self.refine();
        let at_least = |bound: Option<Number>| bound.is_none_or(|b| !less(value, b));
        let at_most = |bound: Option<Number>| bound.is_none_or(|b| !less(b, value));
        at_least(minimum)
            && at_least(refine.minimum)
            && at_most(maximum)
            && at_most(refine.maximum)
            && !(nonzero && is_zero(value))
    }

    fn string(&self, text: &str) -> bool {
        let node = self.node.unwrap_optional();
        match node {
            Node::Any => true,
            Node::Enum(enumeration) => {
                enumeration.is_string_enum() && enumeration.variants.iter().any(|v| v.name == text)
            }
            Node::String(string) => {
                let refine = self.refine();
                let (min, max) = (
                    refine.min_length.or(string.min_length),
                    refine.max_length.or(string.max_length),
                );
                if min.is_some() || max.is_some() {
                    let length = text.chars().count() as u64;
                    if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
                        return false;
                    }
                }
                let checked = refine.format.is_some()
                    || refine.pattern.is_some()
                    || string.format.is_some()
                    || string.pattern.is_some();
                !checked || self.strings.check(node, self.field, text)
            }
            _ => false,
        }
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

fn is_zero(n: Number) -> bool {
    match n {
        Number::Int(n) => n == 0,
        Number::UInt(n) => n == 0,
        Number::Float(n) => n == 0.0,
    }
}

/// A deserializer that checks what it hands to serde.
struct Checked<'a, D> {
    de: D,
    place: Place<'a>,
}

macro_rules! forward {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.de.$method(Check { visitor, place: self.place }).map_err(|_| self.place.fail())
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = NotSure;

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
    ) -> Result<V::Value, NotSure> {
        self.de
            .deserialize_unit_struct(
                name,
                Check {
                    visitor,
                    place: self.place,
                },
            )
            .map_err(|_| self.place.fail())
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, NotSure> {
        self.de
            .deserialize_newtype_struct(
                name,
                Check {
                    visitor,
                    place: self.place,
                },
            )
            .map_err(|_| self.place.fail())
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, NotSure> {
        Err(self.place.fail())
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, NotSure> {
        Err(self.place.fail())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotSure> {
        self.de
            .deserialize_struct(
                name,
                fields,
                Check {
                    visitor,
                    place: self.place,
                },
            )
            .map_err(|_| self.place.fail())
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotSure> {
        // String enums are checked here; enums with data are left to the
        // full path.
        if !matches!(self.place.node.unwrap_optional(), Node::Enum(e) if e.is_string_enum()) {
            return Err(self.place.fail());
        }
        self.de
            .deserialize_enum(
                name,
                variants,
                Check {
                    visitor,
                    place: self.place,
                },
            )
            .map_err(|_| self.place.fail())
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
        if !matches!(self.place.node.unwrap_optional(), Node::Boolean | Node::Any) {
            return Err(self.place.fail());
        }
        self.visitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        if !self.place.number(Number::Int(v)) {
            return Err(self.place.fail());
        }
        self.visitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        if !self.place.number(Number::UInt(v)) {
            return Err(self.place.fail());
        }
        self.visitor.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if !self.place.number(Number::Float(v)) {
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
        // `null` stands only where the field may be absent (the full path
        // removes it) or where the schema allows it.
        let node = self.place.node;
        let absent_ok = self.place.field.is_some_and(|f| !f.is_required());
        if !(absent_ok || matches!(node, Node::Any | Node::Null)) {
            return Err(self.place.fail());
        }
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        let node = self.place.node;
        let absent_ok = self.place.field.is_some_and(|f| !f.is_required());
        if !(absent_ok || matches!(node, Node::Any | Node::Null)) {
            return Err(self.place.fail());
        }
        self.visitor.visit_unit()
    }

    fn visit_some<D2: Deserializer<'de>>(self, deserializer: D2) -> Result<V::Value, D2::Error> {
        let place = Place {
            node: self.place.node.unwrap_optional(),
            ..self.place
        };
        let failed = self.place.failed;
        self.visitor
            .visit_some(Checked {
                de: deserializer,
                place,
            })
            .map_err(|_| {
                failed.set(true);
                de::Error::custom(NotSure)
            })
    }

    fn visit_newtype_struct<D2: Deserializer<'de>>(
        self,
        deserializer: D2,
    ) -> Result<V::Value, D2::Error> {
        let place = self.place;
        self.visitor
            .visit_newtype_struct(Checked {
                de: deserializer,
                place,
            })
            .map_err(|_| place.fail())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let array = match self.place.node.unwrap_optional() {
            Node::Array(array) if !array.unique_items => array,
            Node::Any => return self.visitor.visit_seq(seq),
            _ => return Err(self.place.fail()),
        };
        let refine = self.place.refine();
        let items = Place {
            node: array.items,
            field: None,
            ..self.place
        };
        let count = Cell::new(0u64);
        let value = self.visitor.visit_seq(Items {
            seq,
            place: items,
            count: &count,
        })?;
        let n = count.get();
        let min = refine.min_items.or(array.min_items);
        let max = refine.max_items.or(array.max_items);
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            return Err(self.place.fail());
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
        match self.place.node.unwrap_optional() {
            Node::Object(object) => {
                if !matches!(object.additional, crate::model::Additional::Deny)
                    || object.fields.iter().any(|f| f.flatten)
                {
                    return Err(self.place.fail());
                }
                let Some(plan) = self.place.strings.object(object.fields) else {
                    return Err(self.place.fail());
                };
                let members = &plan.members[..];
                let seen = Cell::new(0u128);
                let value = self.visitor.visit_map(Properties {
                    map,
                    members,
                    guess: 0,
                    place: self.place,
                    current: None,
                    seen: &seen,
                })?;
                if seen.get() & plan.required != plan.required {
                    return Err(self.place.fail());
                }
                Ok(value)
            }
            Node::Map(values) => {
                let place = Place {
                    node: values.values,
                    field: None,
                    ..self.place
                };
                self.visitor.visit_map(Entries { map, place })
            }
            Node::Any => self.visitor.visit_map(map),
            _ => Err(self.place.fail()),
        }
    }
}

/// Array items, each checked against the item node.
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
    members: &'a [Member],
    /// Where the next property probably is: arguments usually come in
    /// declaration order.
    guess: usize,
    place: Place<'a>,
    current: Option<usize>,
    seen: &'a Cell<u128>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Properties<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(key) = self.map.next_key_seed(KeySeed {
                members: self.members,
                guess: self.guess,
            })?
            else {
                return Ok(None);
            };
            let index = match key {
                Key::Member(index) => index,
                Key::Hint => {
                    self.map.next_value::<IgnoredAny>()?;
                    continue;
                }
                // An unknown property: the full path reports it.
                Key::Unknown => return Err(self.place.fail()),
            };
            let bit = 1u128 << index;
            if self.seen.get() & bit != 0 {
                return Err(self.place.fail());
            }
            self.seen.set(self.seen.get() | bit);
            self.current = Some(index);
            self.guess = index + 1;
            let source = self.members[index].field.source;
            return seed
                .deserialize(de::value::BorrowedStrDeserializer::<A::Error>::new(source))
                .map(Some);
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let Some(index) = self.current.take() else {
            return Err(self.place.fail());
        };
        let field = self.members[index].field;
        let place = Place {
            node: (field.schema)(),
            field: Some(field),
            ..self.place
        };
        self.map.next_value_seed(Seeded { seed, place })
    }
}

/// The entries of a map, each value checked against the value node.
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
        self.seed
            .deserialize(Checked {
                de: deserializer,
                place,
            })
            .map_err(|_| place.fail())
    }
}

/// The variant of a string enum: its name is checked as a string of the
/// enum's node; only unit variants pass.
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
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
        if name == HINT_FIELD {
            return Ok(Key::Hint);
        }
        if self
            .members
            .get(self.guess)
            .is_some_and(|m| m.field.exposed == name)
        {
            return Ok(Key::Member(self.guess));
        }
        Ok(
            match self.members.iter().position(|m| m.field.exposed == name) {
                Some(index) => Key::Member(index),
                None => Key::Unknown,
            },
        )
    }
}
