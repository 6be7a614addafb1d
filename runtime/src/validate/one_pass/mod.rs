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
//! value can stand becomes a slot with its bounds resolved (the type's
//! and the field's), every object its members and a bit mask of the
//! required ones, so a call walks no model. String formats and patterns are
//! checked by small `jsonschema` validators compiled once per field, so both
//! paths agree on them; plain e-mail addresses are accepted by a stricter
//! hand-written check first, and anything it does not accept still goes to
//! the validator.
//!
//! When the one pass finds arguments wrong, a second pass over the same
//! input lists their violations from the plan ([`violations`]), as the full
//! path would list them, where the plan can speak for every slot.

mod checked;
mod email;
mod listing;
mod plan;

pub(crate) use plan::Plan;

use serde::de;
use serde_json::Value;

use checked::read_with;

use super::violation::Found;

/// Reads `text` as `T`, checking it against `plan` on the way; `None` when
/// the full path must decide.
pub(crate) fn parse<T: de::DeserializeOwned>(text: &str, plan: &Plan) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = read_with(&mut de, plan)?;
    de.end().ok()?;
    Some(value)
}

/// Reads the JSON value at the start of `text` as `T`, checking it against
/// `plan`, and how many bytes it took (what follows it is left unread);
/// `None` when the full path must decide.
pub(crate) fn parse_leading<T: de::DeserializeOwned>(
    text: &str,
    plan: &Plan,
) -> Option<(T, usize)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = read_with(&mut de, plan)?;
    // Where the reader stands: just past the value's last byte.
    let used = de.into_iter::<de::IgnoredAny>().byte_offset();
    Some((value, used))
}

/// The JSON value at the start of `text`, and how many bytes it took;
/// `None` when `text` does not start with one.
pub(crate) fn leading_value(text: &str) -> Option<(&str, usize)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = <&serde_json::value::RawValue as de::Deserialize>::deserialize(&mut de).ok()?;
    let used = de.into_iter::<de::IgnoredAny>().byte_offset();
    Some((value.get(), used))
}

/// Reads arguments already parsed (as they arrive inside a JSON-RPC
/// request) as `T`, checking them against `plan`; `None` when the full path
/// must decide.
pub(crate) fn read<T: de::DeserializeOwned>(value: &Value, plan: &Plan) -> Option<T> {
    read_with(value, plan)
}

/// The violations of the arguments `text`, at most `cap` listed, as the
/// full path lists them; `None` when the full path must list them (or
/// finds none: arguments that break no rule yet were not read).
pub(crate) fn violations(text: &str, plan: &Plan, cap: usize) -> Option<Found> {
    let mut de = serde_json::Deserializer::from_str(text);
    let found = listing::list(&mut de, plan, Found::new(cap))?;
    de.end().ok()?;
    (!found.is_empty()).then_some(found)
}

/// [`violations`] of the JSON value at the start of `text`, and how many
/// bytes it took (what follows it is left unread); the violations may be
/// none. `None` when the full path must list them.
pub(crate) fn violations_leading(text: &str, plan: &Plan, cap: usize) -> Option<(Found, usize)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let found = listing::list(&mut de, plan, Found::new(cap))?;
    Some((found, de.into_iter::<de::IgnoredAny>().byte_offset()))
}

/// [`violations`] of arguments already parsed.
pub(crate) fn violations_in(value: &Value, plan: &Plan, cap: usize) -> Option<Found> {
    let found = listing::list(value, plan, Found::new(cap))?;
    (!found.is_empty()).then_some(found)
}
