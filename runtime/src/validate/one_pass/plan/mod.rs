//! The check plan of one tool's arguments: built once from the schema
//! model, so that a call walks no model.

use std::cell::RefCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::email::plain_email;
use crate::model::Number;
use crate::validate::violation::{Broken, kind_of, options_text};

mod build;

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
    /// What listing violations needs; `None` leaves it to the full path.
    pub(super) errors: Option<Errors>,
}

/// The schema every slot stands for, for listing violations as the full
/// path lists them: where a value breaks its slot, the slot's own schema
/// (compiled on first use) says how, in `jsonschema`'s words.
pub(super) struct Errors {
    /// The Full input schema, as JSON text: read again only when a slot's
    /// validator is first needed, so that a tool whose calls are never
    /// refused does not hold the schema as a value (several times the text,
    /// for every prepared tool of a catalog).
    schema: Box<str>,
    /// Each slot's schema, as a JSON pointer into `schema`.
    pointers: Vec<Box<str>>,
    validators: Box<[OnceLock<Option<jsonschema::Validator>>]>,
    /// Each scalar slot's schema read in full, where it is plain enough.
    plain: Box<[Option<Plain>]>,
}

impl Errors {
    /// `slot`'s schema read in full, if it is plain.
    pub(super) fn plain(&self, slot: u32) -> Option<&Plain> {
        self.plain[slot as usize].as_ref()
    }

    /// The validator of `slot`'s own schema; `None` if it does not compile.
    pub(super) fn validator(&self, slot: u32) -> Option<&jsonschema::Validator> {
        let slot = slot as usize;
        self.validators[slot]
            .get_or_init(|| {
                let schema: Value = serde_json::from_str(&self.schema).ok()?;
                compile(schema.pointer(&self.pointers[slot])?)
            })
            .as_ref()
    }
}

/// A scalar slot's schema when it names one type and no rules but those
/// whose violations are judged here: where a value breaks exactly one of
/// them, the violation is written without `jsonschema` (its sentence the
/// one the full path writes); anything else is left to the slot's
/// validator.
pub(super) struct Plain {
    /// The one type, as the schema names it.
    kind: Box<str>,
    minimum: Option<Value>,
    maximum: Option<Value>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    format: Option<Box<str>>,
    pattern: Option<Box<str>>,
    /// An `enum` of strings, and its values as a violation lists them.
    options: Option<(Box<[Box<str>]>, String)>,
    /// A `not` rule (zero excluded): left to the validator.
    not: bool,
}

/// What a plain schema says of a value its slot refused.
pub(super) enum Judged<'a> {
    /// The value breaks nothing (the plan is stricter than the schema).
    Fine,
    /// The value breaks exactly this rule.
    One(Broken<'a>),
    /// Several rules, or ones judged only by the validator.
    Unsure,
}

impl Plain {
    fn read(sub: &serde_json::Map<String, Value>) -> Option<Plain> {
        const RULES: [&str; 9] = [
            "type",
            "minimum",
            "maximum",
            "minLength",
            "maxLength",
            "format",
            "pattern",
            "enum",
            "not",
        ];
        if !says_only(sub, &RULES) {
            return None;
        }
        let kind = sub.get("type")?.as_str()?;
        if !["null", "boolean", "integer", "number", "string"].contains(&kind) {
            return None;
        }
        let number = |key: &str| match sub.get(key) {
            None => Some(None),
            Some(value) if value.is_number() => Some(Some(value.clone())),
            Some(_) => None,
        };
        let count = |key: &str| match sub.get(key) {
            None => Some(None),
            Some(value) => value.as_u64().map(Some),
        };
        let text = |key: &str| match sub.get(key) {
            None => Some(None),
            Some(value) => value.as_str().map(|text| Some(text.into())),
        };
        let options = match sub.get("enum") {
            None => None,
            Some(values) => {
                let values = values.as_array()?;
                let names = values
                    .iter()
                    .map(|value| value.as_str().map(Box::from))
                    .collect::<Option<Box<[Box<str>]>>>()?;
                Some((names, options_text(values)))
            }
        };
        Some(Plain {
            kind: kind.into(),
            minimum: number("minimum")?,
            maximum: number("maximum")?,
            min_length: count("minLength")?,
            max_length: count("maxLength")?,
            format: text("format")?,
            pattern: text("pattern")?,
            options,
            not: sub.contains_key("not"),
        })
    }

    /// What this schema says of `value`, which the slot `kind` of `plan`
    /// refused.
    pub(super) fn judge<'a>(&'a self, value: &Value, plan: &Plan, kind: Kind) -> Judged<'a> {
        let of_kind = match &*self.kind {
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            // As JSON Schema counts them: 2.0 is an integer.
            _ => {
                value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
        };
        if !of_kind {
            // Each rule judges the values of its own type whatever `type`
            // says (`enum` and `not` those of every type): one of them may
            // be broken as well.
            let judged = self.options.is_some()
                || self.not
                || (value.is_number() && (self.minimum.is_some() || self.maximum.is_some()))
                || (value.is_string()
                    && (self.min_length.is_some()
                        || self.max_length.is_some()
                        || self.format.is_some()
                        || self.pattern.is_some()));
            if judged {
                return Judged::Unsure;
            }
            return Judged::One(Broken::Type {
                expected: &self.kind,
                actual: kind_of(value),
            });
        }
        let mut broken = None;
        let mut count = 0;
        let mut breaks = |rule: Broken<'a>| {
            count += 1;
            broken = Some(rule);
        };
        if let Some(number) = value.as_number() {
            if self.not && value.as_f64() == Some(0.0) {
                return Judged::Unsure;
            }
            // A whole float too large to read exactly is the full path's to
            // report.
            if &*self.kind == "integer"
                && number.is_f64()
                && value
                    .as_f64()
                    .is_some_and(|f| f.abs() >= 9_007_199_254_740_992.0)
            {
                return Judged::Unsure;
            }
            for (limit, below) in [(&self.minimum, true), (&self.maximum, false)] {
                let Some(limit) = limit else { continue };
                let Some(order) = compare(number, limit.as_number().unwrap_or(number)) else {
                    return Judged::Unsure;
                };
                match (below, order) {
                    (true, core::cmp::Ordering::Less) => breaks(Broken::Minimum(limit)),
                    (false, core::cmp::Ordering::Greater) => breaks(Broken::Maximum(limit)),
                    _ => {}
                }
            }
        }
        if let Some(text) = value.as_str() {
            if self.min_length.is_some() || self.max_length.is_some() {
                let chars = text.chars().count() as u64;
                if let Some(min) = self.min_length.filter(|&min| chars < min) {
                    breaks(Broken::MinLength(min));
                }
                if let Some(max) = self.max_length.filter(|&max| chars > max) {
                    breaks(Broken::MaxLength(max));
                }
            }
            if let Kind::String {
                check: Some(check), ..
            } = kind
                && !plan.strings[check as usize].accepts(text)
            {
                match (&self.format, &self.pattern) {
                    _ if plan.strings[check as usize].backtracks => return Judged::Unsure,
                    (Some(format), None) => breaks(Broken::Format(format)),
                    (None, Some(pattern)) => breaks(Broken::Pattern(pattern)),
                    _ => return Judged::Unsure,
                }
            } else if (self.format.is_some() || self.pattern.is_some())
                && !matches!(kind, Kind::String { check: Some(_), .. })
            {
                // A format or pattern the plan does not check itself.
                return Judged::Unsure;
            }
            if let Some((names, text_of)) = &self.options
                && !names.iter().any(|name| **name == *text)
            {
                breaks(Broken::Enum(text_of));
            }
        }
        match (count, broken) {
            (0, _) => Judged::Fine,
            (1, Some(broken)) => Judged::One(broken),
            _ => Judged::Unsure,
        }
    }
}

/// The order of two JSON numbers, exactly; `None` where a whole number
/// beyond 2^53 meets a fraction.
fn compare(a: &serde_json::Number, b: &serde_json::Number) -> Option<core::cmp::Ordering> {
    const EXACT: u64 = 1 << 53;
    let whole = |n: &serde_json::Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (whole(a), whole(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        (Some(w), None) if w.unsigned_abs() <= EXACT.into() => (w as f64).partial_cmp(&b.as_f64()?),
        (None, Some(w)) if w.unsigned_abs() <= EXACT.into() => a.as_f64()?.partial_cmp(&(w as f64)),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        _ => None,
    }
}

/// Whether the schema `sub` has no keywords but `rules` and annotations.
fn says_only(sub: &serde_json::Map<String, Value>, rules: &[&str]) -> bool {
    const NOTES: [&str; 5] = [
        "title",
        "description",
        "default",
        "examples",
        "x-mcp-header",
    ];
    sub.keys()
        .all(|key| NOTES.contains(&key.as_str()) || rules.contains(&key.as_str()))
}

fn compile(schema: &Value) -> Option<jsonschema::Validator> {
    crate::validate::validator_of(schema).ok()
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

impl Slot {
    /// Whether the integer `value` may stand here.
    #[inline]
    pub(super) fn integer(&self, value: i128) -> bool {
        match self.kind {
            Kind::Integer { min, max, nonzero } => {
                min <= value && value <= max && !(nonzero && value == 0)
            }
            Kind::Number { min, max } => {
                // Every JSON integer fits one of the two.
                let value = i64::try_from(value)
                    .map(Number::Int)
                    .unwrap_or(Number::UInt(value as u64));
                within(value, min, max)
            }
            Kind::Any => true,
            _ => false,
        }
    }

    /// Whether the fraction `value` may stand here.
    #[inline]
    pub(super) fn float(&self, value: f64) -> bool {
        match self.kind {
            Kind::Number { min, max } => within(Number::Float(value), min, max),
            Kind::Any => true,
            _ => false,
        }
    }

    /// Whether the string `text` may stand here: its length judged here,
    /// a format, pattern or enum by [`Slot::string_rules`].
    #[inline]
    pub(super) fn string(&self, plan: &Plan, text: &str) -> bool {
        match self.kind {
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
                check.is_none() || self.string_rules(plan, text)
            }
            Kind::Any => true,
            _ => self.string_rules(plan, text),
        }
    }

    /// The rules on a string other than its length.
    #[inline(never)]
    fn string_rules(&self, plan: &Plan, text: &str) -> bool {
        match self.kind {
            Kind::String {
                check: Some(check), ..
            } => plan.strings[check as usize].accepts(text),
            Kind::Enum(index) => plan.enums[index as usize]
                .iter()
                .any(|name| **name == *text),
            _ => false,
        }
    }
}

fn within(value: Number, min: Option<Number>, max: Option<Number>) -> bool {
    min.is_none_or(|min| !value.is_less_than(min)) && max.is_none_or(|max| !max.is_less_than(value))
}

/// A closed object without flattened fields.
pub(super) struct Object {
    pub(super) members: Vec<Member>,
    /// Bit `i` is set when `members[i]` is required.
    pub(super) required: u64,
    /// The address of the field list (serde's `FIELDS`) last found to be
    /// the members' source names in order, 0 before any, or [`BY_NAME`]
    /// once the struct's reader refused a member told by its index: with
    /// such a list, serde's field visitor is told a member by its index
    /// (`visit_u64`, the number serde's derive gives each field in order)
    /// rather than by its name, which it would match again.
    by_index: AtomicUsize,
}

/// No list: the reader takes its members by name only.
const BY_NAME: usize = usize::MAX;

impl Object {
    pub(super) fn new(members: Vec<Member>, required: u64) -> Object {
        Object {
            members,
            required,
            by_index: AtomicUsize::new(0),
        }
    }

    /// Whether serde's field visitor, given the field list `fields` (the
    /// names its struct declares, aliases among them, in order), may be
    /// told a member by its index: when the list is the members' source
    /// names in order, field `i` of serde's derive is member `i`. A list
    /// found so is remembered by its address.
    #[inline]
    pub(super) fn indexed_by(&self, fields: &'static [&'static str]) -> bool {
        let address = fields.as_ptr() as usize;
        match self.by_index.load(Ordering::Relaxed) {
            known if known == address => return true,
            BY_NAME => return false,
            _ => {}
        }
        let same = !fields.is_empty()
            && fields.len() == self.members.len()
            && fields
                .iter()
                .zip(&self.members)
                .all(|(field, member)| **field == *member.source);
        if same {
            self.by_index.store(address, Ordering::Relaxed);
        }
        same
    }

    /// The struct's reader refused a member told by its index (a reader of
    /// one's own that knows its fields by name only): it is told names
    /// from now on.
    pub(super) fn by_name(&self) {
        self.by_index.store(BY_NAME, Ordering::Relaxed);
    }
}

pub(super) struct Member {
    pub(super) exposed: Name,
    /// A copy of the source name: read on every call, it is kept where
    /// reading it is one load.
    pub(super) source: Box<str>,
    pub(super) slot: u32,
    /// A copy of `slot`'s own: the one pass reads it where it finds the
    /// member, without indexing the plan's slots.
    pub(super) place: Slot,
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
    /// The pattern needs a backtracking engine: a refusal may be its step
    /// limit, which only the full path words.
    pub(super) backtracks: bool,
}

impl StringCheck {
    #[inline]
    pub(super) fn accepts(&self, text: &str) -> bool {
        if self.email && plain_email(text) {
            return true;
        }
        // One string value a thread, written over for each check: no
        // allocation once it holds the longest string checked (up to a
        // few kilobytes; a longer one is let go after its check).
        thread_local! {
            static CHECKED: RefCell<Value> = const { RefCell::new(Value::String(String::new())) };
        }
        CHECKED.with(|checked| {
            let Ok(mut value) = checked.try_borrow_mut() else {
                return self.validator.is_valid(&Value::String(text.into()));
            };
            if let Value::String(string) = &mut *value {
                string.clear();
                string.push_str(text);
            }
            let valid = self.validator.is_valid(&value);
            if let Value::String(string) = &mut *value
                && string.capacity() > KEPT_STRING
            {
                *string = String::new();
            }
            valid
        })
    }
}

/// The most bytes of string a thread keeps for checking strings.
const KEPT_STRING: usize = 4096;

/// Objects wider than this are left to the full path (one bit each).
const MAX_MEMBERS: usize = 64;

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
