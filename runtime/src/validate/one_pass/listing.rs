//! Listing violations in one more pass over the input: when the one pass
//! finds the arguments wrong, this pass reads them again against the plan
//! and lists every violation as the full path lists it (the same places,
//! rules and sentences, in the same order), without building a `Value` of
//! the whole arguments or validating them whole.
//!
//! Objects' missing and unknown properties and arrays' item counts are
//! listed from the plan. Where a value breaks its slot, the slot's own
//! schema (compiled once, on first use) says how, in `jsonschema`'s words,
//! so a scalar's violations are exactly those the full path finds there.
//! Anything the plan cannot speak for (a slot it leaves to the full path,
//! a repeated property, a path too long to report whole, a syntax error, a
//! value that is not an object) ends the pass without an answer.

use core::cell::RefCell;
use core::fmt;
use std::collections::{BTreeSet, HashSet};

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use serde_json::Value;

use super::plan::{Errors, Judged, Kind, Member, Plan};
use crate::project::HINT_FIELD;
use crate::validate::violation::{Found, MAX_PATH_BYTES};

/// Lists the violations of the arguments `de` reads into `found`; `None`
/// when the full path must list them.
pub(super) fn list<'de, D: Deserializer<'de>>(de: D, plan: &Plan, found: Found) -> Option<Found> {
    let errors = plan.errors.as_ref()?;
    let survey = Survey {
        plan,
        errors,
        path: RefCell::new(String::new()),
        found: RefCell::new(found),
    };
    let root = At {
        survey: &survey,
        slot: 0,
        absent_null: false,
        root: true,
    };
    root.deserialize(de).ok()?;
    Some(survey.found.into_inner())
}

/// One listing: the plan, the path of the value being read (a JSON
/// pointer in exposed names), and what was found.
struct Survey<'a> {
    plan: &'a Plan,
    errors: &'a Errors,
    path: RefCell<String>,
    found: RefCell<Found>,
}

impl Survey<'_> {
    /// Reads one value below the current path, at `step`, then returns to it.
    fn below<T, E>(&self, step: Step<'_>, read: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let len = {
            let mut path = self.path.borrow_mut();
            let len = path.len();
            path.push('/');
            step.write(&mut path);
            len
        };
        let read = read();
        self.path.borrow_mut().truncate(len);
        read
    }

    /// The current path, when it is short enough to be reported whole
    /// with `more` bytes added.
    fn fits(&self, more: usize) -> bool {
        self.path.borrow().len() + more <= MAX_PATH_BYTES
    }
}

/// The error that ends the listing without an answer.
/// Reads past a value the listing has nothing to say about, as the full
/// path reads it: every number is read as a number (`IgnoredAny` would let
/// `1e550`, which the full path refuses as too large, pass unread).
#[derive(Clone, Copy)]
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

fn give_up<E: de::Error>() -> E {
    E::custom("the plan cannot list these violations")
}

/// A step of a JSON pointer: a property name or an array index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Name(&'a str),
    Index(u64),
}

impl Step<'_> {
    fn write(self, path: &mut String) {
        match self {
            Step::Name(name) if !name.contains(['~', '/']) => path.push_str(name),
            Step::Name(name) => {
                for c in name.chars() {
                    match c {
                        '~' => path.push_str("~0"),
                        '/' => path.push_str("~1"),
                        c => path.push(c),
                    }
                }
            }
            Step::Index(mut index) => {
                let mut digits = [0u8; 20];
                let mut at = digits.len();
                loop {
                    at -= 1;
                    digits[at] = b'0' + (index % 10) as u8;
                    index /= 10;
                    if index == 0 {
                        break;
                    }
                }
                for &digit in &digits[at..] {
                    path.push(char::from(digit));
                }
            }
        }
    }
}

/// Where a value stands: its slot, and whether a `null` there means the
/// property is absent (an optional member: the full path removes it).
#[derive(Clone, Copy)]
struct At<'a> {
    survey: &'a Survey<'a>,
    slot: u32,
    absent_null: bool,
    /// The arguments object itself: anything but an object there is the
    /// full path's to report.
    root: bool,
}

impl At<'_> {
    fn kind(self) -> Kind {
        self.survey.plan.slots[self.slot as usize].kind
    }

    /// A value that breaks its slot: the slot's own schema lists how.
    fn breaks<E: de::Error>(self, value: Value) -> Result<(), E> {
        if self.root {
            return Err(give_up());
        }
        let survey = self.survey;
        let path = survey.path.borrow();
        if path.len() > MAX_PATH_BYTES {
            return Err(give_up());
        }
        if let Some(plain) = survey.errors.plain(self.slot) {
            match plain.judge(&value, survey.plan, self.kind()) {
                Judged::Fine => return Ok(()),
                Judged::One(broken) => {
                    survey.found.borrow_mut().add_broken(&path, broken);
                    return Ok(());
                }
                Judged::Unsure => {}
            }
        }
        let validator = survey.errors.validator(self.slot).ok_or_else(give_up)?;
        let mut found = survey.found.borrow_mut();
        for error in validator.iter_errors(&value) {
            if path.len() + error.instance_path().as_str().len() > MAX_PATH_BYTES {
                return Err(give_up());
            }
            found.add_at(&path, &error);
        }
        Ok(())
    }

    fn members<'de, A: MapAccess<'de>>(self, mut map: A, index: u32) -> Result<(), A::Error> {
        let survey = self.survey;
        let object = &survey.plan.objects[index as usize];
        let members = &object.members;
        let mut seen = 0u64;
        // The full path sees one of repeated names: a repeat gives up.
        let mut unknown: HashSet<String> = HashSet::new();
        while let Some(name) = map.next_key_seed(Names {
            members,
            root: self.root,
        })? {
            match name {
                Name::Hint => {
                    map.next_value_seed(Skip)?;
                }
                Name::Member(i) => {
                    let bit = 1u64 << i;
                    if seen & bit != 0 {
                        return Err(give_up());
                    }
                    seen |= bit;
                    let member = &members[i];
                    let at = At {
                        survey,
                        slot: member.slot,
                        absent_null: object.required & bit == 0,
                        root: false,
                    };
                    survey.below(Step::Name(&member.exposed.text), || map.next_value_seed(at))?;
                }
                Name::Other(name) => {
                    if !survey.fits(2 * name.len() + 1) {
                        return Err(give_up());
                    }
                    survey
                        .found
                        .borrow_mut()
                        .add_unknown(&survey.path.borrow(), &name);
                    if !unknown.insert(name) {
                        return Err(give_up());
                    }
                    map.next_value_seed(Skip)?;
                }
            }
        }
        let missing = object.required & !seen;
        for (i, member) in members.iter().enumerate() {
            if missing & (1 << i) != 0 {
                let name = &member.exposed.text;
                if !survey.fits(2 * name.len() + 1) {
                    return Err(give_up());
                }
                survey
                    .found
                    .borrow_mut()
                    .add_required(&survey.path.borrow(), name);
            }
        }
        Ok(())
    }

    fn entries<'de, A: MapAccess<'de>>(self, mut map: A, values: u32) -> Result<(), A::Error> {
        let survey = self.survey;
        let mut keys = BTreeSet::new();
        let at = At {
            survey,
            slot: values,
            absent_null: false,
            root: false,
        };
        while let Some(key) = map.next_key::<String>()? {
            if !survey.fits(2 * key.len() + 1) {
                return Err(give_up());
            }
            survey.below(Step::Name(&key), || map.next_value_seed(at))?;
            // The full path sees the last of repeated keys only.
            if !keys.insert(key) {
                return Err(give_up());
            }
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for At<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        match self.kind() {
            Kind::Any => Skip.deserialize(de),
            Kind::Refuse => Err(give_up()),
            _ => de.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for At<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        match self.kind() {
            Kind::Bool => Ok(()),
            _ => self.breaks(Value::Bool(v)),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        if self.survey.plan.slots[self.slot as usize].integer(v.into()) {
            return Ok(());
        }
        self.breaks(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        if self.survey.plan.slots[self.slot as usize].integer(v.into()) {
            return Ok(());
        }
        self.breaks(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if self.survey.plan.slots[self.slot as usize].float(v) {
            return Ok(());
        }
        // A whole number of 2^53 or more written as a float, where an
        // integer stands, is refused by the full path for being inexact,
        // a rule the plan does not judge: the full path lists.
        if matches!(self.kind(), Kind::Integer { .. })
            && v.fract() == 0.0
            && v.abs() >= crate::validate::names::EXACT
        {
            return Err(give_up());
        }
        self.breaks(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        let plan = self.survey.plan;
        if plan.slots[self.slot as usize].string(plan, v) {
            return Ok(());
        }
        self.breaks(Value::String(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if self.absent_null || matches!(self.kind(), Kind::Null) {
            return Ok(());
        }
        self.breaks(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Kind::Array { items, min, max } = self.kind() else {
            return self.breaks(Value::deserialize(SeqAccessDeserializer::new(seq))?);
        };
        let survey = self.survey;
        let item = At {
            survey,
            slot: items,
            absent_null: false,
            root: false,
        };
        let mut count = 0u64;
        while survey
            .below(Step::Index(count), || seq.next_element_seed(item))?
            .is_some()
        {
            count += 1;
        }
        if count < min || count > max {
            if !survey.fits(0) {
                return Err(give_up());
            }
            let path = survey.path.borrow();
            let mut found = survey.found.borrow_mut();
            if count < min {
                found.add_items(&path, crate::validate::Rule::MinItems, min);
            } else {
                found.add_items(&path, crate::validate::Rule::MaxItems, max);
            }
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        match self.kind() {
            Kind::Object(index) => self.members(map, index),
            Kind::Map { values } => self.entries(map, values),
            _ => self.breaks(Value::deserialize(MapAccessDeserializer::new(map))?),
        }
    }
}

/// A property name as read: a member of the object, the discovery hint
/// (of the arguments object only, whatever it holds), or another name.
enum Name {
    Member(usize),
    Hint,
    Other(String),
}

struct Names<'a> {
    members: &'a [Member],
    root: bool,
}

impl<'de> DeserializeSeed<'de> for Names<'_> {
    type Value = Name;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Name, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Names<'_> {
    type Value = Name;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Name, E> {
        // The full path removes the hint before it looks at members.
        if self.root && name == HINT_FIELD {
            return Ok(Name::Hint);
        }
        Ok(match self.members.iter().position(|m| m.exposed.is(name)) {
            Some(index) => Name::Member(index),
            None => Name::Other(name.to_owned()),
        })
    }
}
