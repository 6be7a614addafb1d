//! From a call's arguments to a downstream request, and from the
//! downstream's answer to the tool's result: values moved between exposed
//! and source paths, through nesting and arrays.

use core::fmt;

use serde_json::{Map, Value};

use super::{FieldPath, Location, Method, Operation, PathPart};

/// A request to a downstream, built from a call's arguments (nothing
/// encoded yet: the client encodes path segments and query pairs).
#[derive(Debug, Clone, PartialEq)]
pub struct DownstreamRequest {
    /// The method.
    pub method: Method,
    /// The path's segments, after the downstream's base URL.
    pub segments: Vec<String>,
    /// Query parameters, in order (a name repeated for an array).
    pub query: Vec<(String, String)>,
    /// Headers from arguments.
    pub headers: Vec<(String, String)>,
    /// The JSON body, if the operation has one.
    pub body: Option<Value>,
}

/// A call that the mapping cannot carry out, named by exposed path only.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MappingError {
    /// A path variable has no value (the schema requires it, so only a
    /// caller that skipped validation meets this).
    MissingPathValue {
        /// The argument's exposed path.
        exposed: String,
    },
    /// The downstream's answer has something else where a result field's
    /// value should go or come from.
    Unmappable {
        /// The result field's exposed path.
        exposed: String,
    },
    /// An argument's value holds characters XML cannot carry (control
    /// characters), so no SOAP envelope can hold it.
    Unwritable {
        /// The argument's exposed path.
        exposed: String,
    },
    /// The operation is not a SOAP one.
    NotSoap,
}

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MappingError::MissingPathValue { exposed } => {
                write!(
                    f,
                    "the argument `{exposed}` has no value, and the request path needs it"
                )
            }
            MappingError::Unmappable { exposed } => write!(
                f,
                "the downstream's answer does not have the shape the mapping of `{exposed}` expects"
            ),
            MappingError::Unwritable { exposed } => write!(
                f,
                "the value of `{exposed}` holds characters XML cannot carry (control characters); send plain text"
            ),
            MappingError::NotSoap => {
                f.write_str("the operation calls a REST downstream, not a SOAP one")
            }
        }
    }
}

impl std::error::Error for MappingError {}

/// A scalar as it goes into a path, a query or a header.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The arrays two paths go through together, as pairs of the paths up to
/// each: where items of objects in one become items of objects in the
/// other. Computed once per operation.
pub(crate) fn container_pairs<'a>(
    pairs: impl Iterator<Item = (&'a FieldPath, &'a FieldPath)>,
) -> Vec<(FieldPath, FieldPath)> {
    let mut out: Vec<(FieldPath, FieldPath)> = Vec::new();
    for (from, to) in pairs {
        for n in 1..=from.arrays().min(to.arrays()) {
            let pair = (from.through_array(n), to.through_array(n));
            // Only where the target's items are objects (`lines[].code`),
            // not values themselves (`tags[]`).
            if pair.1 != *to && !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    out
}

/// Creates, at each `to`, an empty array for each array its `from` goes
/// into and an empty object for each object item it reaches, so that items
/// keep their positions, an item with no mapped value is still there, and
/// an empty list stays a list.
fn copy_containers(pairs: &[(FieldPath, FieldPath)], source: &Value, target: &mut Value) {
    for (from, to) in pairs {
        from.for_each_array(source, |indices, _| to.ensure_array(target, indices));
        from.for_each(source, |indices, item| {
            if item.is_object() {
                to.ensure_object(target, indices);
            }
        });
    }
}

impl Operation {
    /// The request for checked `arguments` (exposed names).
    pub fn request(&self, arguments: &Value) -> Result<DownstreamRequest, MappingError> {
        let mut request = DownstreamRequest {
            method: self.method,
            segments: Vec::new(),
            query: Vec::new(),
            headers: Vec::new(),
            body: None,
        };
        let mut body = Value::Null;
        copy_containers(&self.body_containers, arguments, &mut body);
        for argument in &self.arguments {
            let values = argument.exposed.get_all(arguments);
            match argument.location {
                Location::Path => {}
                Location::Query => {
                    let name = &argument.source.steps()[0].name;
                    for (_, value) in values {
                        if let Some(text) = text_of(value) {
                            request.query.push((name.clone(), text));
                        }
                    }
                }
                Location::Header => {
                    if let Some(text) = values.first().and_then(|(_, v)| text_of(v)) {
                        request
                            .headers
                            .push((argument.source.steps()[0].name.clone(), text));
                    }
                }
                Location::Body => {
                    if argument.exposed.ends_in_array() && argument.source.ends_in_array() {
                        argument.exposed.for_each_array(arguments, |indices, _| {
                            argument.source.ensure_array(&mut body, indices);
                        });
                    }
                    for (indices, value) in values {
                        argument.source.set(&mut body, &indices, value.clone());
                    }
                }
            }
        }
        // Segments split at the template's slashes; a value stays inside
        // its segment whatever it holds (the client encodes it).
        let mut segment = String::new();
        let mut started = false;
        for part in &self.path {
            match part {
                PathPart::Literal(text) => {
                    for c in text.chars() {
                        if c == '/' {
                            if started {
                                request.segments.push(core::mem::take(&mut segment));
                            }
                            started = true;
                        } else {
                            segment.push(c);
                        }
                    }
                }
                PathPart::Variable(name) => {
                    let argument = self.arguments.iter().find(|a| {
                        a.location == Location::Path && a.source.steps()[0].name == *name
                    });
                    let value = argument.and_then(|a| {
                        a.exposed
                            .get_all(arguments)
                            .first()
                            .and_then(|(_, v)| text_of(v))
                    });
                    let Some(value) = value else {
                        return Err(MappingError::MissingPathValue {
                            exposed: argument.map_or(name.clone(), |a| a.exposed.to_string()),
                        });
                    };
                    segment.push_str(&value);
                    started = true;
                }
            }
        }
        if started || !segment.is_empty() {
            request.segments.push(segment);
        }
        if self.method.has_body() {
            request.body = Some(match body {
                Value::Null => Value::Object(Map::new()),
                body => body,
            });
        }
        Ok(request)
    }

    /// The tool's result (exposed names) from the downstream's `answer`.
    pub fn result(&self, answer: &Value) -> Result<Value, MappingError> {
        let mut result = Value::Object(Map::new());
        copy_containers(&self.result_containers, answer, &mut result);
        for field in &self.results {
            if field.source.ends_in_array() && field.exposed.ends_in_array() {
                field.source.for_each_array(answer, |indices, _| {
                    field.exposed.ensure_array(&mut result, indices);
                });
            }
            let mut placed = true;
            field.source.for_each(answer, |indices, value| {
                placed &= field.exposed.set(&mut result, indices, value.clone());
            });
            if !placed {
                return Err(MappingError::Unmappable {
                    exposed: field.exposed.to_string(),
                });
            }
        }
        Ok(result)
    }

    /// Whether any result field is mapped (else the answer is passed on as
    /// text).
    pub fn maps_results(&self) -> bool {
        !self.results.is_empty()
    }
}

/// The pieces of a path template, or the variable that is malformed.
pub(crate) fn parse_template(template: &str) -> Result<Vec<PathPart>, String> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("`{{` at {open} is not closed"));
        };
        if open > 0 {
            parts.push(PathPart::Literal(rest[..open].to_owned()));
        }
        let name = &rest[open + 1..open + close];
        if name.is_empty() || name.contains(['{', '/']) {
            return Err(format!("`{{{name}}}` is not a variable name"));
        }
        parts.push(PathPart::Variable(name.to_owned()));
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return Err("a `}` has no `{`".to_owned());
    }
    if !rest.is_empty() {
        parts.push(PathPart::Literal(rest.to_owned()));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::container_pairs;
    use crate::catalog::gateway::FieldPath;

    #[test]
    fn items_keep_their_places_and_values_stay_values() {
        let (names, codes) = (
            FieldPath::source("tags[].name").expect("valid"),
            FieldPath::exposed("tags[]").expect("valid"),
        );
        let (skus, lines) = (
            FieldPath::source("entries[].sku").expect("valid"),
            FieldPath::exposed("lines[].code").expect("valid"),
        );
        let pairs = container_pairs([(&names, &codes), (&skus, &lines)].into_iter());
        // `tags[]` holds values: no empty object is made for its items.
        let targets: Vec<&str> = pairs.iter().map(|(_, to)| to.as_str()).collect();
        assert_eq!(targets, ["lines[]"]);
        let answer =
            json!({"tags": [{"name": "a"}, {"id": 2}], "entries": [{"other": 1}, {"sku": "x"}]});
        let mut result = json!({});
        super::copy_containers(&pairs, &answer, &mut result);
        for (from, to) in [(&names, &codes), (&skus, &lines)] {
            from.for_each(&answer, |indices, value| {
                assert!(to.set(&mut result, indices, value.clone()));
            });
        }
        assert_eq!(result, json!({"lines": [{}, {"code": "x"}], "tags": ["a"]}));
        // Empty lists stay lists, and nothing is made where none was.
        let mut empty = json!({});
        super::copy_containers(&pairs, &json!({"entries": [], "tags": null}), &mut empty);
        assert_eq!(empty, json!({"lines": []}));
    }
}
