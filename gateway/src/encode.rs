//! From a call's arguments to a downstream request, and from the
//! downstream's answer to the tool's result: values moved between exposed
//! and source paths, through nesting and arrays, as the version's
//! [`Operation`] (checked by the catalog) says.

use core::fmt;

use serde_json::{Map, Value};

use toolschema_configured::{
    Document, Downstream, FieldPath, Location, Method, Operation, PathPart,
};

/// A request to a downstream, built from a call's arguments: path segments
/// encoded, query pairs and headers as the client will encode them.
#[derive(Debug, Clone, PartialEq)]
pub struct DownstreamRequest {
    /// The method.
    pub method: Method,
    /// The path's segments, after the downstream's base URL, each
    /// percent-encoded: a path argument's value is always inside one
    /// segment, and never `.`, `..` or empty.
    pub segments: Vec<String>,
    /// Query parameters, in order: the version's own, then those from
    /// arguments (a name repeated for an array).
    pub query: Vec<(String, String)>,
    /// Headers: the version's own, then those from arguments.
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
    /// A path argument's value would leave its segment empty, or make it
    /// `.` or `..`, which a server reads as another path (`DELETE
    /// /orders/..` is `DELETE /`): refused, never sent.
    PathValue {
        /// The exposed paths of the arguments in that segment.
        exposed: Vec<String>,
        /// The segment as a server would read it.
        value: String,
        /// What is wrong with it.
        problem: SegmentProblem,
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

/// Why a path argument's value cannot stand in its segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SegmentProblem {
    /// The segment would be empty (`/orders/`).
    Empty,
    /// The segment would be `.` or `..`.
    Dots,
}

/// What of a path argument's value is written as it is: RFC 3986's
/// unreserved characters. Everything else is percent-encoded, `/`, `\`,
/// `;`, `%`, `?` and `#` among them, so that no server reads a separator,
/// a path parameter or an encoded sequence of the client's in it.
const SEGMENT_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MappingError::MissingPathValue { exposed } => {
                write!(
                    f,
                    "the argument `{exposed}` has no value, and the request path needs it"
                )
            }
            MappingError::PathValue {
                exposed,
                value,
                problem,
            } => {
                let names = exposed
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(" and ");
                match problem {
                    SegmentProblem::Empty => write!(
                        f,
                        "{names} is empty, and the request path needs a value there; send the identifier"
                    ),
                    SegmentProblem::Dots => write!(
                        f,
                        "{names} cannot be `{value}` in the request path, which a server reads as another path; send the identifier itself"
                    ),
                }
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

/// A body object written as a form (`application/x-www-form-urlencoded`):
/// each member one field, a list's values the field repeated (the checks
/// let only strings, numbers, booleans and lists of them go in a form).
pub fn form_body(body: &Value) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    if let Value::Object(members) = body {
        for (name, value) in members {
            match value {
                Value::Array(items) => {
                    for item in items.iter().filter_map(text_of) {
                        form.append_pair(name, &item);
                    }
                }
                value => {
                    if let Some(text) = text_of(value) {
                        form.append_pair(name, &text);
                    }
                }
            }
        }
    }
    form.finish()
}

/// Creates, at each `to`, an empty array for each array its `from` goes
/// into and an empty object for each object item it reaches, so that items
/// keep their positions, an item with no mapped value is still there, and
/// an empty list stays a list.
fn copy_containers<D: Document>(pairs: &[(FieldPath, FieldPath)], source: &D, target: &mut D) {
    for (from, to) in pairs {
        from.for_each_array(source, |indices, _| to.ensure_array(target, indices));
        from.for_each(source, |indices, item| {
            if item.is_object() {
                to.ensure_object(target, indices);
            }
        });
    }
}

/// The request for checked `arguments` (exposed names).
pub fn request(
    operation: &Operation,
    arguments: &Value,
) -> Result<DownstreamRequest, MappingError> {
    let mut request = DownstreamRequest {
        method: operation.method(),
        segments: Vec::new(),
        query: operation.fixed_query().to_vec(),
        headers: operation.fixed_headers().to_vec(),
        body: None,
    };
    let mut body = Value::Null;
    copy_containers(operation.body_containers(), arguments, &mut body);
    for argument in operation.arguments() {
        let values = argument.exposed.get_all(arguments);
        match argument.location {
            Location::Path => {}
            Location::Query => {
                let name = &argument.source.steps()[0].name;
                let texts = values.iter().filter_map(|(_, value)| text_of(value));
                if argument.joined {
                    let joined: Vec<String> = texts.collect();
                    if !joined.is_empty() {
                        request.query.push((name.to_string(), joined.join(",")));
                    }
                } else {
                    for text in texts {
                        request.query.push((name.to_string(), text));
                    }
                }
            }
            Location::Header => {
                if let Some(text) = values.first().and_then(|(_, v)| text_of(v)) {
                    request
                        .headers
                        .push((argument.source.steps()[0].name.to_string(), text));
                }
            }
            // Written into the envelope's `Header` (`soap::envelope`).
            Location::SoapHeader => {}
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
    request.segments = segments(operation, arguments)?;
    // A body is sent when an argument put something there, or, for a
    // method that carries one, when the operation has body arguments (an
    // empty object then): an operation without any sends none, and no
    // `Content-Type` (an API whose POST takes no body refuses `{}`).
    let declares_body = operation
        .arguments()
        .iter()
        .any(|argument| argument.location == Location::Body);
    if !body.is_null() || (operation.method().has_body() && declares_body) {
        request.body = Some(match body {
            // Nothing given: an empty list for a body that is a list
            // (its arguments' sources start at `[]`), else an empty object.
            Value::Null if body_is_list(operation) => Value::Array(Vec::new()),
            Value::Null => Value::Object(Map::new()),
            body => body,
        });
    }
    Ok(request)
}

/// Whether the operation's body is a list: its body arguments' sources
/// start with `[]`.
fn body_is_list(operation: &Operation) -> bool {
    operation
        .arguments()
        .iter()
        .filter(|argument| argument.location == Location::Body)
        .any(|argument| {
            argument
                .source
                .steps()
                .first()
                .is_some_and(|step| step.each && step.name.is_empty())
        })
}

/// The request path's segments for checked `arguments`, each encoded:
/// the template's text as written, a path argument's value
/// percent-encoded whole ([`SEGMENT_VALUE`]), so that it stays inside
/// its own segment. A segment that a value leaves empty or makes `.` or
/// `..` is refused: a server would read another path there.
fn segments(operation: &Operation, arguments: &Value) -> Result<Vec<String>, MappingError> {
    let mut segments = Vec::new();
    // The segment being written: its encoded text, its text as a
    // server reads it once decoded (for the dot check), and the
    // arguments in it.
    let mut encoded = String::new();
    let mut plain = String::new();
    let mut inside: Vec<&FieldPath> = Vec::new();
    let mut started = false;
    let mut end = |encoded: &mut String,
                   plain: &mut String,
                   inside: &mut Vec<&FieldPath>|
     -> Result<(), MappingError> {
        if !inside.is_empty() {
            let problem = match plain.as_str() {
                "" => Some(SegmentProblem::Empty),
                "." | ".." => Some(SegmentProblem::Dots),
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(MappingError::PathValue {
                    exposed: inside.iter().map(|path| path.to_string()).collect(),
                    value: plain.clone(),
                    problem,
                });
            }
        }
        segments.push(core::mem::take(encoded));
        plain.clear();
        inside.clear();
        Ok(())
    };
    for part in operation.path() {
        match part {
            PathPart::Literal(text) => {
                for piece in text.split_inclusive('/') {
                    let (piece, slash) = match piece.strip_suffix('/') {
                        Some(piece) => (piece, true),
                        None => (piece, false),
                    };
                    encoded.push_str(piece);
                    plain.push_str(piece);
                    if slash {
                        if started {
                            end(&mut encoded, &mut plain, &mut inside)?;
                        }
                        started = true;
                    }
                }
            }
            PathPart::Variable(name) => {
                let argument = operation
                    .arguments()
                    .iter()
                    .find(|a| a.location == Location::Path && *a.source.steps()[0].name == **name);
                let value = argument.and_then(|a| {
                    a.exposed
                        .get_all(arguments)
                        .first()
                        .and_then(|(_, v)| text_of(v))
                });
                let (Some(argument), Some(value)) = (argument, value) else {
                    return Err(MappingError::MissingPathValue {
                        exposed: argument.map_or(name.clone(), |a| a.exposed.to_string()),
                    });
                };
                encoded.extend(percent_encoding::utf8_percent_encode(&value, SEGMENT_VALUE));
                plain.push_str(&value);
                inside.push(&argument.exposed);
                started = true;
            }
        }
    }
    if started || !encoded.is_empty() {
        end(&mut encoded, &mut plain, &mut inside)?;
    }
    Ok(segments)
}

/// The tool's result (exposed names) from the downstream's `answer`.
pub fn result(operation: &Operation, answer: &Value) -> Result<Value, MappingError> {
    result_of(operation, answer, Value::Object(Map::new()))
}

/// [`result`] in either kind of document, written into
/// `result` (an empty object).
pub(crate) fn result_of<D: Document>(
    operation: &Operation,
    answer: &D,
    mut result: D,
) -> Result<D, MappingError> {
    copy_containers(operation.result_containers(), answer, &mut result);
    for field in operation.results() {
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

/// The URL `request` goes to: the base URL (a SOAP endpoint as it is),
/// the request's encoded segments after its path, then its query.
/// Only the path's segments and the query come from arguments; the
/// scheme, host, port and the base path are the configuration's.
///
/// ```
/// # use toolschema_config::Config;
/// # use toolschema_runtime::call::Registry;
/// use toolschema_gateway::encode;
/// let config = Config::from_toml(r#"
/// [[tenant]]
/// id = "acme"
/// [[client]]
/// id = "assistant"
/// tenant = "acme"
/// [[downstream]]
/// id = "orders"
/// base_url = "https://orders.example/api/"
/// [[gateway_tool]]
/// name = "orders.cancel"
/// downstream = "orders"
/// [[gateway_tool.version]]
/// version = 1
/// status = "published"
/// description = "Cancels an order."
/// method = "DELETE"
/// path = "/orders/{orderId}"
/// [[gateway_tool.version.argument]]
/// name = "order_id"
/// source = "orderId"
/// in = "path"
/// type = "string"
/// required = true
/// "#, "catalog.toml", &Registry::new()).unwrap();
/// let tool = &config.configured_tools()[0];
/// let operation = tool.versions()[0].operation();
/// let downstream = config.downstream(tool.downstream()).unwrap();
///
/// let request = encode::request(operation, &serde_json::json!({"order_id": "a/b;c"})).unwrap();
/// assert_eq!(encode::url(downstream, &request), "https://orders.example/api/orders/a%2Fb%3Bc");
/// // `..` would be `DELETE /api`: refused.
/// assert!(encode::request(operation, &serde_json::json!({"order_id": ".."})).is_err());
/// ```
pub fn url(downstream: &Downstream, request: &DownstreamRequest) -> String {
    endpoint(downstream, request).into()
}

/// [`url()`], parsed.
pub fn endpoint(downstream: &Downstream, request: &DownstreamRequest) -> url::Url {
    let mut url = downstream.base().clone();
    if !request.segments.is_empty() {
        let base = url.path();
        let base = base.strip_suffix('/').unwrap_or(base);
        let mut path = String::with_capacity(
            base.len() + request.segments.iter().map(|s| s.len() + 1).sum::<usize>(),
        );
        path.push_str(base);
        for segment in &request.segments {
            path.push('/');
            path.push_str(segment);
        }
        url.set_path(&path);
    }
    if !request.query.is_empty() {
        url.query_pairs_mut().extend_pairs(&request.query);
    }
    url
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use toolschema_configured::{FieldPath, container_pairs};

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
