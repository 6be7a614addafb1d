//! One operation being read: the document it is in, the bounds on what
//! its body and answer are flattened into, and the fields found.

use core::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::read::{Read, as_array, as_str};
use toolschema_runtime::render::Json as Value;

/// How many levels of a body or answer are flattened into fields; deeper
/// objects are passed on whole.
pub(super) const MAX_DEPTH: usize = 4;

/// The most fields one body or answer is flattened into. `$ref`s can make
/// a small document stand for millions of fields (forty properties each
/// naming a schema of forty, four levels down); past this the body is one
/// value, having done work bounded by it.
pub(super) const MAX_FIELDS: usize = 1000;

/// Past this many fields, a body or answer is flattened one level only:
/// its properties are its fields, objects below passed on whole with their
/// schema (benches/README.md, "Real API descriptions", measures the
/// choice).
pub(super) const FLAT_FIELDS: usize = 64;

/// The most schema objects inlined into the schemas of the values one
/// body or answer passes on whole; past it, `{}` (any value) stands for
/// the rest.
pub(super) const MAX_INLINED: usize = 96;

/// Where each `$ref` met in a document points.
pub(super) type Targets<'a> = RefCell<HashMap<String, Option<&'a Value>>>;

/// One operation being read.
pub(super) struct Context<'a> {
    /// The document the operation is in.
    pub(super) document: &'a Value,
    /// The path key the operation is under, as the document writes it.
    pub(super) path: &'a str,
    /// The operation's method, in lower case (`get`).
    pub(super) method: &'a str,
    /// The parameters of the path, shared by its operations.
    pub(super) shared: Option<&'a Value>,
    /// How many levels of a body or answer are flattened into fields;
    /// objects below are passed on whole.
    pub(super) whole_at: Cell<usize>,
    /// The most fields a body or answer is flattened into.
    pub(super) limit: Cell<usize>,
    /// Whether flattening stopped at `limit`.
    pub(super) overflowed: Cell<bool>,
    /// How many more schema objects may be inlined for the body or answer
    /// being read.
    pub(super) budget: Cell<usize>,
    /// What was left out of the fields written, and why.
    pub(super) notes: RefCell<Vec<String>>,
    /// Where each `$ref` met in the document points (an object's members
    /// are found one by one: `components/schemas` may hold thousands).
    pub(super) targets: &'a Targets<'a>,
}

/// One field found in a schema.
pub(super) struct Found {
    /// The name a client sees (`items[].name`).
    pub(super) exposed: String,
    /// Where the value is in what the API reads or writes (`[].name`);
    /// empty for an object or a list declared for the fields below it.
    pub(super) source: String,
    /// Where an argument is sent (`path`, `query`, `header`, `body`).
    pub(super) location: Option<&'static str>,
    /// Its JSON schema.
    pub(super) schema: Value,
    /// Whether a value must be given.
    pub(super) required: bool,
    /// What the document says of it.
    pub(super) description: Option<String>,
    /// For a value passed on whole: its schema, inlined (`schema` in the
    /// configuration; `schema` above then holds its type only).
    pub(super) whole: Option<Value>,
}

impl<'a> Context<'a> {
    /// The context of the operation `method` of the path `path` (whose
    /// shared parameters are `shared`), at the start of its reading.
    pub(super) fn new(
        document: &'a Value,
        path: &'a str,
        method: &'a str,
        shared: Option<&'a Value>,
        targets: &'a Targets<'a>,
    ) -> Self {
        Context {
            document,
            path,
            method,
            shared,
            whole_at: Cell::new(MAX_DEPTH),
            limit: Cell::new(FLAT_FIELDS),
            overflowed: Cell::new(false),
            budget: Cell::new(MAX_INLINED),
            notes: RefCell::new(Vec::new()),
            targets,
        }
    }
}

impl Context<'_> {
    /// A schema (its `$ref` followed) with its `allOf` parts merged in:
    /// its own keywords first, then each part's (followed and merged in
    /// turn) where it has none of that name, `required` and `properties`
    /// gathered from every part. AWS's documents wrap nearly every
    /// property as `allOf: [{$ref}, {description}]`: the property's type,
    /// bounds, pattern and values are the part's. A schema without
    /// `allOf` is the one followed; a part that cannot be followed is
    /// left out.
    pub(super) fn merged(&self, schema: &Value) -> Value {
        self.merged_at(schema, 0)
    }

    fn merged_at(&self, schema: &Value, depth: usize) -> Value {
        let Ok(resolved) = self.resolve(schema, &mut Vec::new()) else {
            return schema.clone();
        };
        let (Value::Object(own), Some(parts)) =
            (resolved, resolved.get("allOf").and_then(as_array))
        else {
            return resolved.clone();
        };
        // Parts inside parts, to a depth no real document needs.
        if depth >= 8 {
            return resolved.clone();
        }
        let mut out = own.clone();
        out.remove("allOf");
        for part in parts {
            let Value::Object(part) = self.merged_at(part, depth + 1) else {
                continue;
            };
            for (key, value) in part.iter() {
                match (key, out.get(key)) {
                    (_, None) => out.insert(key.to_owned(), value.clone()),
                    ("required", Some(Value::Array(names))) => {
                        let mut names = names.clone();
                        for name in as_array(value).into_iter().flatten() {
                            if !names.contains(name) {
                                names.push(name.clone());
                            }
                        }
                        out.insert("required", Value::Array(names));
                    }
                    ("properties", Some(Value::Object(properties))) => {
                        let mut properties = properties.clone();
                        for (name, property) in value.as_object().into_iter().flat_map(|m| m.iter())
                        {
                            if properties.get(name).is_none() {
                                properties.insert(name.to_owned(), property.clone());
                            }
                        }
                        out.insert("properties", Value::Object(properties));
                    }
                    _ => {}
                }
            }
        }
        Value::Object(out)
    }

    /// `$ref`s followed (local ones only).
    pub(super) fn resolve<'b>(
        &'b self,
        mut value: &'b Value,
        trail: &mut Vec<String>,
    ) -> Result<&'b Value, String> {
        for _ in 0..32 {
            let Some(reference) = value.get("$ref").and_then(as_str) else {
                return Ok(value);
            };
            let Some(fragment) = reference.strip_prefix('#') else {
                return Err(format!("`{reference}` points outside the document"));
            };
            // A fragment is percent-encoded (`%7Bid%7D` for `{id}`).
            let pointer = percent_encoding::percent_decode_str(fragment)
                .decode_utf8()
                .map_err(|_| format!("`{reference}` is not UTF-8 once decoded"))?;
            if trail.iter().any(|r| r == reference) {
                return Err(format!("`{reference}` contains itself"));
            }
            trail.push(reference.to_owned());
            let cached = self.targets.borrow().get(reference).copied();
            let target = match cached {
                Some(target) => target,
                None => {
                    let target = self.document.pointer(&pointer);
                    self.targets
                        .borrow_mut()
                        .insert(reference.to_owned(), target);
                    target
                }
            };
            value = target.ok_or_else(|| format!("`{reference}` resolves nowhere"))?;
        }
        Err("`$ref`s chain too deep".to_owned())
    }
}
