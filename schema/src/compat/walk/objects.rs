//! Objects side by side: properties renamed, gone, come or changed, the
//! `required` list, and what additional properties may be.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::super::{Direction, Level, Moves};
use super::{ANYTHING, EMPTY, Walk, escape, is_anything};

/// Properties renamed: old name to new name.
type Renamed<'a> = BTreeMap<&'a str, &'a str>;

/// An object's `properties`.
fn properties(schema: &Map<String, Value>) -> &Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&EMPTY)
}

/// An object's `required` names.
fn required(schema: &Map<String, Value>) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether an object takes properties it does not name.
/// `unevaluatedProperties` (not read by the walk) closes the object as far
/// as a property gone or come is concerned.
fn is_open(schema: &Map<String, Value>) -> bool {
    schema.get("additionalProperties") != Some(&Value::Bool(false))
        && schema
            .get("unevaluatedProperties")
            .is_none_or(|extra| extra == &Value::Bool(true))
}

impl<'a> Walk<'a> {
    /// `properties`, `required`, `additionalProperties`.
    pub(super) fn objects(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        at: &mut String,
    ) {
        let renamed = self.renames(properties(old), properties(new), at);
        self.required(old, new, &renamed, at);
        self.old_properties(old, new, &renamed, at);
        self.new_properties(old, new, &renamed, at);
        self.additional(old, new, at);
    }

    /// A property gone and one come with the same schema: a rename.
    fn renames(
        &mut self,
        o: &'a Map<String, Value>,
        n: &'a Map<String, Value>,
        at: &str,
    ) -> Renamed<'a> {
        let gone: Vec<&String> = o.keys().filter(|k| !n.contains_key(*k)).collect();
        let come: Vec<&String> = n.keys().filter(|k| !o.contains_key(*k)).collect();
        let mut renamed = Renamed::new();
        for from in &gone {
            if let Some(to) = come.iter().find(|to| {
                self.unchanged(n.get(to.as_str()), o.get(from.as_str()))
                    && !renamed.values().any(|taken| taken == &to.as_str())
            }) {
                renamed.insert(from, to);
            }
        }
        for (from, to) in &renamed {
            let pointer = format!("{at}/properties/{}", escape(from));
            self.push(
                "property-renamed",
                Moves::Both,
                &pointer,
                Some(&Value::String((*from).to_owned())),
                Some(&Value::String((*to).to_owned())),
            );
        }
        renamed
    }

    /// Names required now and not before (narrows), and before and not
    /// now (widens); a renamed property's requirement moves with it.
    fn required(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        renamed: &Renamed<'a>,
        at: &str,
    ) {
        let (old_required, new_required) = (required(old), required(new));
        let renamed_to: BTreeSet<&str> = renamed.values().copied().collect();
        for name in &new_required {
            if old_required.contains(name) || renamed_to.contains(name) {
                continue;
            }
            let pointer = format!("{at}/required/{}", escape(name));
            let rule = if properties(old).contains_key(*name) {
                "required-added"
            } else {
                "required-property-added"
            };
            self.push(
                rule,
                Moves::Narrows,
                &pointer,
                None,
                Some(&Value::String((*name).to_owned())),
            );
        }
        for name in &old_required {
            if new_required.contains(name) || renamed.contains_key(name) {
                continue;
            }
            let pointer = format!("{at}/required/{}", escape(name));
            self.push(
                "required-removed",
                Moves::Widens,
                &pointer,
                Some(&Value::String((*name).to_owned())),
                None,
            );
        }
    }

    /// Each old property: compared with its new schema, or gone.
    fn old_properties(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        renamed: &Renamed<'a>,
        at: &mut String,
    ) {
        let new_open = is_open(new);
        for (name, old_schema) in properties(old) {
            let len = at.len();
            at.push_str("/properties/");
            at.push_str(&escape(name));
            match properties(new).get(name) {
                Some(new_schema) => self.schema(old_schema, new_schema, at),
                None if renamed.contains_key(name.as_str()) => {}
                // Refused now where it was read: narrows; else it is no
                // longer checked (what old clients send is ignored).
                None if !new_open => self.push(
                    "property-removed",
                    Moves::Narrows,
                    at,
                    Some(old_schema),
                    None,
                ),
                // Now read by the additional properties' schema.
                None if matches!(new.get("additionalProperties"), Some(Value::Object(_))) => {
                    let extra = &new["additionalProperties"];
                    self.schema(old_schema, extra, at);
                }
                None => match self.direction {
                    Direction::Input => self.push_level(
                        "property-removed",
                        Level::Warning,
                        at,
                        Some(old_schema),
                        None,
                    ),
                    Direction::Output => self.push(
                        "property-removed",
                        Moves::Widens,
                        at,
                        Some(old_schema),
                        None,
                    ),
                },
            }
            at.truncate(len);
        }
    }

    /// Each property come (not a rename): what the old object said of it.
    fn new_properties(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        renamed: &Renamed<'a>,
        at: &mut String,
    ) {
        let old_open = is_open(old);
        let renamed_to: BTreeSet<&str> = renamed.values().copied().collect();
        for (name, new_schema) in properties(new) {
            if properties(old).contains_key(name) || renamed_to.contains(name.as_str()) {
                continue;
            }
            let len = at.len();
            at.push_str("/properties/");
            at.push_str(&escape(name));
            match old.get("additionalProperties") {
                // Allowed before under the old additional schema: compare.
                Some(extra @ Value::Object(_)) => self.schema(extra, new_schema, at),
                _ if !old_open => {
                    self.push("property-added", Moves::Widens, at, None, Some(new_schema))
                }
                _ if is_anything(new_schema) => {}
                // Any value was accepted here before.
                _ => self.push(
                    "property-constrained",
                    Moves::Narrows,
                    at,
                    None,
                    Some(new_schema),
                ),
            }
            at.truncate(len);
        }
    }

    /// The object closed or opened to properties it does not name, or the
    /// schema of those properties changed.
    fn additional(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        at: &mut String,
    ) {
        let (o_extra, n_extra) = (
            old.get("additionalProperties"),
            new.get("additionalProperties"),
        );
        let pointer = format!("{at}/additionalProperties");
        match (is_open(old), is_open(new)) {
            (true, false) => self.push(
                "additional-properties-closed",
                Moves::Narrows,
                &pointer,
                o_extra,
                n_extra,
            ),
            (false, true) => self.push(
                "additional-properties-opened",
                Moves::Widens,
                &pointer,
                o_extra,
                n_extra,
            ),
            (true, true) => {
                let (a, b) = (o_extra.unwrap_or(&ANYTHING), n_extra.unwrap_or(&ANYTHING));
                let len = at.len();
                at.push_str("/additionalProperties");
                self.schema(a, b, at);
                at.truncate(len);
            }
            (false, false) => {}
        }
    }
}
