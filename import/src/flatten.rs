//! A body or answer flattened into fields: nested objects and arrays of
//! objects as paths, down to a depth and up to a number of fields, and
//! the values below passed on whole.

use std::collections::BTreeSet;

use super::context::{Context, FLAT_FIELDS, Found, MAX_DEPTH, MAX_FIELDS, MAX_INLINED};
use super::names::{fit, join, snake};
use super::read::{Read, as_array, as_str, schema_of_kind, type_of};
use toolschema_runtime::render::{Json as Value, Object as Map};

/// Where the fields of one schema go: their exposed and source paths so
/// far (empty at the top of a body or answer), whether they must be
/// given, and how many levels down they are.
#[derive(Clone, Copy)]
struct Place<'p> {
    exposed: &'p str,
    source: &'p str,
    required: bool,
    depth: usize,
}

impl Context<'_> {
    /// The fields of a body or answer: flattened when that gives at most
    /// [`FLAT_FIELDS`], else one level deep with objects below passed on
    /// whole, else (past [`MAX_FIELDS`] properties) the whole value as
    /// one field, named `name` (`body`, `result`) with source `.`.
    pub(super) fn fields(
        &self,
        schema: &Value,
        required: bool,
        (name, notes): (&str, &mut Vec<String>),
    ) -> Result<Vec<Found>, String> {
        let mut found = Vec::new();
        for (whole_at, limit) in [(MAX_DEPTH, FLAT_FIELDS), (1, MAX_FIELDS)] {
            self.whole_at.set(whole_at);
            self.limit.set(limit);
            self.overflowed.set(false);
            self.budget.set(MAX_INLINED);
            found.clear();
            let top = Place {
                exposed: "",
                source: "",
                required,
                depth: 0,
            };
            let flattened = self.flatten(schema, top, &mut Vec::new(), &mut found);
            if !self.overflowed.get() {
                flattened?;
                break;
            }
        }
        if self.overflowed.get() {
            self.budget.set(MAX_INLINED);
            found = vec![self.whole(schema, "", "", required)];
        }
        if self.budget.get() == 0 {
            notes.push(format!(
                "the {name}'s schema is cut after {MAX_INLINED} schema objects once its `$ref`s are written in place; `{{}}` (any value) stands for the rest"
            ));
        }
        for field in &mut found {
            if field.exposed.is_empty() {
                field.exposed = name.to_owned();
                field.source = toolschema_configured::WHOLE.to_owned();
            }
        }
        Ok(found)
    }

    /// The fields of `schema` at the given paths, nested objects and
    /// arrays of objects flattened into paths down to `self.whole_at`
    /// levels, and passed on whole below (their schema kept, inlined):
    /// also where a schema contains itself, where an array holds arrays
    /// and where a value is one of several shapes.
    fn flatten(
        &self,
        schema: &Value,
        at: Place<'_>,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        if out.len() >= self.limit.get() {
            self.overflowed.set(true);
            return Err(format!(
                "its request body or answer has more than {} fields once its `$ref`s are followed (the last at `{}`), more than a tool can list",
                self.limit.get(),
                at.exposed
            ));
        }
        let mark = trail.len();
        // A schema that contains itself is passed on whole where it comes
        // back: a value the client writes or reads as JSON.
        if let Some(reference) = schema.get("$ref").and_then(as_str)
            && trail.iter().any(|r| r == reference)
            && !at.exposed.is_empty()
        {
            out.push(self.whole(schema, at.exposed, at.source, at.required));
            return Ok(());
        }
        let schema = self.resolve(schema, trail)?;
        // `allOf` parts merged: a property wrapped in them is of their
        // type, with their bounds.
        let merged;
        let schema = match schema.get("allOf") {
            Some(_) => {
                merged = self.merged(schema);
                &merged
            }
            None => schema,
        };
        let alternatives = ["oneOf", "anyOf"]
            .iter()
            .find_map(|key| schema.get(key).and_then(as_array));
        let result = match alternatives {
            Some(alternatives) => self.alternatives(schema, alternatives, at, trail, out),
            None => self.shaped(schema, at, trail, out),
        };
        trail.truncate(mark);
        result
    }

    /// The fields of a value of one of several shapes (`oneOf`, `anyOf`):
    /// those of its one shape besides `null`, else one value passed on
    /// whole, each alternative kept in its schema.
    fn alternatives(
        &self,
        schema: &Value,
        alternatives: &[Value],
        at: Place<'_>,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        let non_null: Vec<&Value> = alternatives
            .iter()
            .filter(|a| type_of(a) != Some("null"))
            .collect();
        if let [only] = non_null[..] {
            return self.flatten(only, at, trail, out);
        }
        out.push(self.whole(schema, at.exposed, at.source, at.required));
        Ok(())
    }

    /// The fields of a schema of one shape, by its type: an object's
    /// properties (past the levels flattened, the object passed on whole),
    /// an array's items, and a value of one type as one field; at the top,
    /// a body or answer that is one value is passed on whole.
    fn shaped(
        &self,
        schema: &Value,
        at: Place<'_>,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        let description = schema
            .get("description")
            .and_then(as_str)
            .map(str::to_owned);
        // Without a type, what its keywords are of: a map (`additionalProperties`
        // alone) is an object, `items` an array.
        let kind = type_of(schema).or_else(|| {
            if ["properties", "additionalProperties", "patternProperties"]
                .iter()
                .any(|key| schema.get(key).is_some())
            {
                Some("object")
            } else {
                schema.get("items").map(|_| "array")
            }
        });
        let properties = merged_properties(self, schema)?;
        let flat = at.depth < self.whole_at.get();
        match kind {
            Some("object") | None if !properties.0.is_empty() && flat => {
                self.properties(&properties, description, at, trail, out)?;
            }
            // An object with fields past the levels flattened, and an
            // array of arrays (a path names the items of one array only),
            // are passed on whole.
            Some("object") | None if !properties.0.is_empty() => {
                out.push(self.whole(schema, at.exposed, at.source, at.required));
            }
            Some("array") if self.items_whole(schema, flat, trail) => {
                out.push(self.whole(schema, at.exposed, at.source, at.required));
            }
            Some("array") => self.items(schema, description, at, trail, out)?,
            // A body that is one value (a string, a list of lists, an
            // object of any properties) is passed on whole.
            _ if at.exposed.is_empty() => {
                out.push(self.whole(schema, at.exposed, at.source, at.required));
            }
            Some("object") => {
                out.push(self.whole(schema, at.exposed, at.source, at.required));
            }
            // A value that may be `null` (OpenAPI 3.0's `nullable`, 3.1's
            // type list) keeps its schema whole, `null` allowed: a required
            // answer field of `null` is a normal answer.
            _ if nullable(schema) => {
                out.push(self.whole(schema, at.exposed, at.source, at.required));
            }
            _ => out.push(Found {
                exposed: at.exposed.to_owned(),
                source: at.source.to_owned(),
                location: None,
                schema: schema.clone(),
                required: at.required,
                description,
                whole: None,
            }),
        }
        Ok(())
    }

    /// An object's fields: the object itself (an object inside an array
    /// is declared by its array), then its properties' fields, each
    /// required where the object is and requires it.
    fn properties(
        &self,
        properties: &Properties<'_>,
        description: Option<String>,
        at: Place<'_>,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        // An object inside an array is declared by its array.
        if !at.exposed.is_empty() && !at.exposed.ends_with("[]") {
            out.push(Found {
                exposed: at.exposed.to_owned(),
                source: String::new(),
                location: None,
                schema: schema_of_kind("object", None),
                required: at.required,
                description,
                whole: None,
            });
        }
        for (name, property) in &properties.0 {
            let exposed = join(at.exposed, &fit(&snake(name), 64));
            let source = join(at.source, name);
            let child = Place {
                exposed: &exposed,
                source: &source,
                required: at.required && properties.1.contains(*name),
                depth: at.depth + 1,
            };
            self.flatten(property, child, trail, out)?;
        }
        Ok(())
    }

    /// Whether an array is passed on whole rather than item by item: its
    /// items are arrays, or objects past the levels flattened.
    fn items_whole(&self, schema: &Value, flat: bool, trail: &[String]) -> bool {
        schema
            .get("items")
            .and_then(|items| self.resolve(items, &mut trail.to_vec()).ok())
            .is_some_and(|items| {
                type_of(items) == Some("array")
                    || (!flat
                        && (type_of(items) == Some("object") || items.get("properties").is_some()))
            })
    }

    /// An array's fields: the array itself with its counts (at the top of
    /// a body or answer, its items are `items[]` and it is not declared),
    /// then its items' fields, one level down.
    fn items(
        &self,
        schema: &Value,
        description: Option<String>,
        at: Place<'_>,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        let items = schema.get("items").cloned().unwrap_or(Value::Null);
        let (exposed, source) = if at.exposed.is_empty() {
            ("items[]".to_owned(), "[]".to_owned())
        } else {
            let mut array = Map::new();
            array.insert("type", "array");
            for key in ["minItems", "maxItems"] {
                if let Some(n) = schema.get(key) {
                    array.insert(key, n.clone());
                }
            }
            out.push(Found {
                exposed: at.exposed.to_owned(),
                source: String::new(),
                location: None,
                schema: Value::Object(array),
                required: at.required,
                description,
                whole: None,
            });
            (format!("{}[]", at.exposed), format!("{}[]", at.source))
        };
        let place = Place {
            exposed: &exposed,
            source: &source,
            required: true,
            depth: at.depth + 1,
        };
        self.flatten(&items, place, trail, out)
    }
}

/// Whether a schema allows `null`: OpenAPI 3.0's `nullable: true`, or
/// `null` among 3.1's types.
fn nullable(schema: &Value) -> bool {
    schema.get("nullable") == Some(&Value::Bool(true))
        || as_array(schema.get("type").unwrap_or(&Value::Null))
            .is_some_and(|kinds| kinds.iter().any(|k| as_str(k) == Some("null")))
}

/// An object's properties, in order, and the names it requires.
type Properties<'v> = (Vec<(&'v str, &'v Value)>, BTreeSet<&'v str>);

/// An object's properties and required names, `allOf` parts merged.
fn merged_properties<'v>(
    context: &'v Context<'_>,
    schema: &'v Value,
) -> Result<Properties<'v>, String> {
    let mut properties: Vec<(&str, &Value)> = Vec::new();
    let mut required = BTreeSet::new();
    let mut parts = vec![schema];
    if let Some(all) = schema.get("allOf").and_then(as_array) {
        for part in all {
            parts.push(context.resolve(part, &mut Vec::new())?);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for part in &parts {
        if let Some(map) = part.get("properties").and_then(Value::as_object) {
            for (name, property) in map.iter() {
                if seen.insert(name) {
                    properties.push((name, property));
                }
            }
        }
        for name in part
            .get("required")
            .and_then(as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = as_str(name) {
                required.insert(name);
            }
        }
    }
    Ok((properties, required))
}
