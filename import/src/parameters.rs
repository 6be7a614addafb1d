//! An operation's parameters: arguments a client gives, or values sent
//! with every call, and the query its path key writes itself.

use std::collections::BTreeSet;

use super::context::{Context, Found};
use super::field::JOINED;
use super::names::{fit, snake};
use super::read::{Read, as_array, as_bool, as_str, is_scalar, schema_of_kind, type_of};
use toolschema_runtime::render::Json as Value;

/// The headers and query parameters a tool sends with every call, by
/// name and value.
pub(super) struct Fixed {
    pub(super) headers: Vec<(String, String)>,
    pub(super) query: Vec<(String, String)>,
    /// The `Content-Type` a required header parameter asks for: sent
    /// with every call of an operation without a body (an API may want
    /// one on a GET), left to the gateway's body otherwise.
    pub(super) content_type: Option<String>,
}

/// One parameter as read: its name in the document, where it is sent and
/// under which key, the name a client sees, whether it must be given, and
/// what the document says of it.
struct Parameter<'p> {
    name: &'p str,
    location: &'static str,
    source: &'p str,
    exposed: String,
    required: bool,
    description: Option<String>,
}

impl Context<'_> {
    /// The arguments of an operation's parameters (its path's shared ones
    /// included) and of the variables its path's query names, in order; a
    /// parameter sent with every call goes in `fixed` instead, and a
    /// header the gateway sets is left out, said in `notes`.
    pub(super) fn parameter_arguments(
        &self,
        operation: &Value,
        templated: &[(String, String)],
        fixed: &mut Fixed,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Found>, String> {
        let parameters = self.parameters(operation)?;
        let names: BTreeSet<&str> = parameters
            .iter()
            .filter_map(|p| p.get("name").and_then(as_str))
            .collect();
        let mut arguments = Vec::new();
        for parameter in parameters {
            arguments.extend(self.parameter(parameter, templated, &names, fixed, notes)?);
        }
        // A variable in the path's query that no parameter declares is an
        // optional text argument.
        for (key, variable) in templated {
            if !names.contains(variable.as_str()) {
                arguments.push(Found {
                    exposed: fit(&snake(variable), 64),
                    source: key.clone(),
                    location: Some("query"),
                    schema: schema_of_kind("string", None),
                    required: false,
                    description: None,
                    whole: None,
                });
            }
        }
        Ok(arguments)
    }

    /// An operation's parameters, `$ref`s followed: its path's shared
    /// ones, each replaced by the operation's of the same name and place.
    fn parameters<'b>(&'b self, operation: &'b Value) -> Result<Vec<&'b Value>, String> {
        let mut parameters: Vec<&Value> = Vec::new();
        for parameter in self.shared.and_then(as_array).into_iter().flatten().chain(
            operation
                .get("parameters")
                .and_then(as_array)
                .into_iter()
                .flatten(),
        ) {
            let parameter = self.resolve(parameter, &mut Vec::new())?;
            let key = |p: &Value| {
                (
                    p.get("name").and_then(as_str).map(str::to_owned),
                    p.get("in").and_then(as_str).map(str::to_owned),
                )
            };
            parameters.retain(|earlier| key(earlier) != key(parameter));
            parameters.push(parameter);
        }
        Ok(parameters)
    }

    /// One parameter's arguments: one for a value; a list's items, and
    /// the list itself when it must be given. None for a header the
    /// gateway sets itself (said in `notes`), nor for a required header
    /// or query parameter of one possible value (`X-Amz-Target`,
    /// `Action`): that is put in `fixed`, sent with every call rather
    /// than asked of the client.
    fn parameter(
        &self,
        parameter: &Value,
        templated: &[(String, String)],
        names: &BTreeSet<&str>,
        fixed: &mut Fixed,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Found>, String> {
        let name = parameter.get("name").and_then(as_str).unwrap_or_default();
        // A variable in the path's query (`?filename={filename}`) is a
        // query parameter under the key written there.
        let query_key = templated
            .iter()
            .find(|(_, variable)| variable == name)
            .map(|(key, _)| key.as_str());
        let location = location(parameter, name, query_key.is_some())?;
        if location == "header" && is_signing_header(name) {
            // Said once per operation: AWS documents list seven of them.
            let said = "its AWS Signature Version 4 header parameters (`X-Amz-Date`, `X-Amz-Signature`, …) are left out: the downstream signs each request (`kind = \"aws_sigv4\"`)";
            if !notes.iter().any(|note| note == said) {
                notes.push(said.to_owned());
            }
            return Ok(Vec::new());
        }
        // `Content-Type` and `Accept` are the gateway's to negotiate, never
        // a value for the model to invent (`Accept: judge`): the one the
        // document names (its only value, else its default) is sent.
        if location == "header"
            && (name.eq_ignore_ascii_case("content-type") || name.eq_ignore_ascii_case("accept"))
        {
            let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
            let schema = self.merged(self.resolve(&schema, &mut Vec::new())?);
            let named = only_value(&schema)
                .or_else(|| schema.get("default").and_then(as_str).map(str::to_owned))
                .filter(|value| toolschema_configured::is_header_value(value));
            let required = parameter.get("required").and_then(as_bool) == Some(true);
            if name.eq_ignore_ascii_case("accept") {
                match named {
                    Some(value) => {
                        fixed.headers.retain(|(n, _)| !n.eq_ignore_ascii_case("accept"));
                        fixed.headers.push(("Accept".to_owned(), value));
                    }
                    None => notes.push(
                        "the header parameter `Accept` is left out: the gateway asks for what the operation answers in".to_owned(),
                    ),
                }
            } else if required {
                fixed.content_type = Some(named.unwrap_or_else(|| "application/json".to_owned()));
            } else {
                notes.push(
                    "the header parameter `Content-Type` is left out: the gateway sets it with the body".to_owned(),
                );
            }
            return Ok(Vec::new());
        }
        if location == "header"
            && let Some(reason) = toolschema_configured::header_argument_refusal(name)
        {
            notes.push(format!(
                "the header parameter `{name}` is left out: {reason}"
            ));
            return Ok(Vec::new());
        }
        let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
        let schema = self.merged(self.resolve(&schema, &mut Vec::new())?);
        let source = query_key.unwrap_or(name);
        // A required header or query parameter of one possible value
        // (`X-Amz-Target`, `Action`) is sent with every call, not asked
        // of the client.
        let required_here =
            parameter.get("required").and_then(as_bool) == Some(true) || query_key.is_some();
        if matches!(location, "header" | "query")
            && required_here
            && let Some(value) = only_value(&schema)
            && (location == "query" || toolschema_configured::is_header_value(&value))
        {
            let sent = match location {
                "header" => &mut fixed.headers,
                _ => &mut fixed.query,
            };
            sent.retain(|(n, _): &(String, String)| n != source);
            sent.push((source.to_owned(), value));
            return Ok(Vec::new());
        }
        let joined = joined(parameter, location, name, &schema)?;
        let schema = text_if_untyped(schema);
        let read = Parameter {
            name,
            location,
            source,
            exposed: exposed_name(name, names),
            required: required_here || location == "path",
            description: parameter
                .get("description")
                .and_then(as_str)
                .map(str::to_owned),
        };
        if type_of(&schema) == Some("array") {
            return self.list_arguments(&schema, read, joined);
        }
        if !is_scalar(&schema) {
            return Err(format!(
                "the {location} parameter `{name}` is not a string, number or boolean"
            ));
        }
        Ok(vec![Found {
            exposed: read.exposed,
            source: source.to_owned(),
            location: Some(location),
            schema,
            required: read.required,
            description: read.description,
            whole: None,
        }])
    }

    /// A list parameter's arguments: its items (`name[]`, their values
    /// joined by commas when `joined`), and, when it must be given, the
    /// list itself, of at least one item. Only a query carries a list, and
    /// only of strings, numbers or booleans.
    fn list_arguments(
        &self,
        schema: &Value,
        parameter: Parameter<'_>,
        joined: bool,
    ) -> Result<Vec<Found>, String> {
        let Parameter {
            name,
            location,
            source,
            exposed,
            required,
            description,
        } = parameter;
        let items = schema.get("items").cloned().unwrap_or(Value::Null);
        let items = self.resolve(&items, &mut Vec::new())?.clone();
        if location != "query" || !is_scalar(&items) {
            return Err(format!(
                "the {location} parameter `{name}` is an array of objects"
            ));
        }
        let mut items = items;
        if joined && let Value::Object(map) = &mut items {
            map.insert(JOINED, true);
        }
        let mut arguments = vec![Found {
            exposed: format!("{exposed}[]"),
            source: source.to_owned(),
            location: Some(location),
            schema: items,
            required: false,
            description: description.clone(),
            whole: None,
        }];
        if required {
            arguments.push(Found {
                exposed,
                source: String::new(),
                location: None,
                schema: schema_of_kind("array", Some(1)),
                required,
                description,
                whole: None,
            });
        }
        Ok(arguments)
    }
}

/// Where a parameter is sent (`path`, `query`, `header`): a path
/// variable its path's query names (`?filename={filename}`, `in_query`)
/// goes in the query; a cookie, or a parameter that says nowhere, cannot
/// be sent.
fn location(parameter: &Value, name: &str, in_query: bool) -> Result<&'static str, String> {
    match parameter.get("in").and_then(as_str) {
        Some("path") if in_query => Ok("query"),
        Some("path") => Ok("path"),
        Some("query") => Ok("query"),
        Some("header") => Ok("header"),
        Some(other) => Err(format!("the {other} parameter `{name}` cannot be mapped")),
        None => Err(format!("the parameter `{name}` says nowhere it goes")),
    }
}

/// Whether a query list is sent as one parameter, its values joined by
/// commas (`explode = false`); a parameter in a style the gateway does not
/// write is refused.
fn joined(parameter: &Value, location: &str, name: &str, schema: &Value) -> Result<bool, String> {
    // The gateway writes `form` (exploded) queries and `simple`
    // paths and headers, the defaults; no other style. A style
    // changes how a list or an object is written; a query's single
    // value is written alike in every style.
    let style = parameter.get("style").and_then(as_str);
    let exploded = parameter.get("explode").and_then(as_bool);
    let usual = if location == "query" {
        "form"
    } else {
        "simple"
    };
    let single = is_scalar(schema) || type_of(schema).is_none();
    // A query list in the `form` style without explode is one
    // parameter, its values joined by commas: `explode = false`.
    let joined = location == "query"
        && type_of(schema) == Some("array")
        && style.is_none_or(|s| s == "form")
        && exploded == Some(false);
    let styled =
        style.is_some_and(|s| s != usual) || (location == "query" && exploded == Some(false));
    let written_alike = (location == "query" && single) || joined;
    if styled && !written_alike {
        return Err(format!(
            "the {location} parameter `{name}` is written in the `{}` style{}, which the gateway does not write",
            style.unwrap_or(usual),
            if exploded == Some(false) {
                " without explode"
            } else {
                ""
            }
        ));
    }
    Ok(joined)
}

/// A parameter's schema as sent: one without a type (nor alternatives,
/// parts, properties or items) is text.
fn text_if_untyped(schema: Value) -> Value {
    if type_of(&schema).is_none()
        && !["oneOf", "anyOf", "allOf", "properties", "items"]
            .iter()
            .any(|k| schema.get(k).is_some())
    {
        schema_of_kind("string", None)
    } else {
        schema
    }
}

/// The name a client sees for a parameter: its own in `snake_case`. A
/// list in PHP's spelling beside a single value (`status[]` and
/// `status`) would read alike once cased: the list is `status_list`.
fn exposed_name(name: &str, names: &BTreeSet<&str>) -> String {
    match name.strip_suffix("[]") {
        Some(single) if names.contains(single) => fit(&format!("{}_list", snake(single)), 64),
        _ => fit(&snake(name), 64),
    }
}

/// A path key as the document writes it, split: the path template (a
/// `#fragment` left out: it is never sent, and documents use it to tell
/// apart operations on one path), the fixed query parameters written after
/// `?` (`?op=LIST`), and those whose value is a variable (`?q={query}`:
/// key and variable).
pub(super) type SplitPath<'a> = (&'a str, Vec<(String, String)>, Vec<(String, String)>);

/// Splits a path key as the document writes it (see [`SplitPath`]).
pub(super) fn split_path(key: &str) -> Result<SplitPath<'_>, String> {
    let key = key.split('#').next().unwrap_or_default();
    // A URI template's query expansion (`/people{?names,limit}`) names
    // query parameters the operation declares: the path is before it.
    let key = match key.find("{?").or_else(|| key.find("{&")) {
        Some(at) if key[at..].find('}') == Some(key.len() - at - 1) => &key[..at],
        _ => key,
    };
    let Some((path, query)) = key.split_once('?') else {
        return Ok((key, Vec::new(), Vec::new()));
    };
    let (mut fixed, mut templated) = (Vec::new(), Vec::new());
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if name.is_empty() || name.contains(['{', '}']) {
            return Err(format!(
                "the path's query `{query}` names a parameter by a variable, which the gateway cannot write"
            ));
        }
        match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
            Some(variable) if !variable.contains(['{', '}']) => {
                templated.push((name.to_owned(), variable.to_owned()));
            }
            _ if value.contains(['{', '}']) => {
                return Err(format!(
                    "the path's query `{query}` mixes text and a variable in one value, which the gateway cannot write"
                ));
            }
            _ => fixed.push((name.to_owned(), value.to_owned())),
        }
    }
    Ok((path, fixed, templated))
}

/// Whether `name` is a header of AWS Signature Version 4 (the directory's
/// AWS documents list them as every operation's parameters).
fn is_signing_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "x-amz-date"
            | "x-amz-security-token"
            | "x-amz-content-sha256"
            | "x-amz-algorithm"
            | "x-amz-credential"
            | "x-amz-signature"
            | "x-amz-signedheaders"
    )
}

/// The one value a parameter's schema allows (`enum` of one string, or
/// `const`), as text.
fn only_value(schema: &Value) -> Option<String> {
    let value = match schema.get("enum").and_then(as_array) {
        Some(values) if values.len() == 1 => &values[0],
        Some(_) => return None,
        None => schema.get("const")?,
    };
    match value {
        Value::String(text) => Some(text.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
