//! `toolschema import openapi`: gateway tools written from an OpenAPI
//! 3.0 or 3.1 document, or a Swagger 2.0 one (JSON or YAML), as draft
//! versions for an operator to review and publish (feature `import`);
//! `import wsdl` does the same for a SOAP service ([`import_wsdl`]).
//!
//! Each chosen operation becomes a `[[gateway_tool]]` with one draft
//! version: its name from the `operationId`, its description from the
//! summary and description, its parameters and JSON body as arguments and
//! its JSON answer as result fields, `$ref`s resolved. Exposed names are
//! the source names in `snake_case`; the source paths keep the document's
//! own. A body or answer of many fields lists its properties and passes
//! the objects below whole, each with its schema inlined (names inside
//! are the API's own, both ways); a body of several shapes, or of one
//! value, is one argument `body`. A header or query parameter of one
//! possible value is sent with every call (`headers`, `query`). What the
//! configuration cannot express (file uploads, forms, cookies, non-JSON
//! bodies) is reported and skipped.

mod swagger;
mod written;
mod wsdl;
mod yaml;

use core::cell::{Cell, RefCell};
use core::fmt;
use std::collections::BTreeSet;

pub use wsdl::{import_wsdl, import_wsdl_file};

use toolschema_catalog::gateway::{Auth, SoapVersion, template_problem};
use toolschema_runtime::model::Number;
use toolschema_runtime::render::{Json as Value, Object as Map};
use toolschema_text::formats::FORMATS;

/// What to import and how to name it.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The `operationId`s to import; all when empty.
    pub operations: Vec<String>,
    /// The id of the `[[downstream]]` written (and called).
    pub downstream: String,
    /// The downstream's base URL; else the document's first server, which
    /// must then be absolute.
    pub base_url: Option<String>,
    /// Put before every tool name (`petstore.`).
    pub prefix: String,
    /// For a WSDL document: the SOAP version of the port to import (else
    /// its first SOAP 1.1 port, or its first SOAP port).
    pub soap_version: Option<SoapVersion>,
}

/// An operation left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The operation (`operationId`, else `METHOD /path`).
    pub operation: String,
    /// What the configuration cannot express.
    pub reason: String,
}

/// The configuration written by an import.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The `[[downstream]]` and `[[gateway_tool]]` sections, as TOML.
    pub toml: String,
    /// The tools written, in document order.
    pub tools: Vec<String>,
    /// The operations left out.
    pub skipped: Vec<Skipped>,
    /// Parts of operations that were written, left out (a parameter the
    /// gateway sets itself, a pattern JSON Schema does not read, an example
    /// its own field refuses): the operation, and what and why.
    pub dropped: Vec<Skipped>,
}

/// Why a document cannot be imported at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError(String);

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImportError {}

/// Marks the item schema of a query list written as one comma-joined
/// parameter (the importer's own key, never written out as a keyword).
const JOINED: &str = "x-toolschema-joined";

/// How many levels of a body or answer are flattened into fields; deeper
/// objects are passed on whole.
const MAX_DEPTH: usize = 4;

/// The most fields one body or answer is flattened into. `$ref`s can make
/// a small document stand for millions of fields (forty properties each
/// naming a schema of forty, four levels down); past this the body is one
/// value, having done work bounded by it.
const MAX_FIELDS: usize = 1000;

/// Past this many fields, a body or answer is flattened one level only:
/// its properties are its fields, objects below passed on whole with their
/// schema (benches/README.md, "Real API descriptions", measures the
/// choice).
const FLAT_FIELDS: usize = 64;

/// The most schema objects inlined into the schemas of the values one
/// body or answer passes on whole; past it, `{}` (any value) stands for
/// the rest.
const MAX_INLINED: usize = 96;

/// How many levels of properties and items an inlined schema spells out;
/// below, a value's type alone.
const INLINED_DEPTH: usize = 3;

/// Reads an OpenAPI document, JSON or YAML.
pub fn parse_document(text: &str) -> Result<Value, ImportError> {
    // Editors on Windows start UTF-8 files with a byte order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return Ok(value);
    }
    yaml::read(text)
        .map_err(|error| ImportError(format!("the document is neither JSON nor YAML: {error}")))
}

/// Writes gateway tools for the operations of `document` (OpenAPI 3.0,
/// 3.1 or Swagger 2.0).
pub fn import_openapi(document: &Value, options: &ImportOptions) -> Result<Imported, ImportError> {
    // A Swagger 2.0 document is read as the OpenAPI 3.0 one it describes.
    let converted;
    let document = if document.get("swagger").is_some() {
        converted = swagger::to_openapi(document)?;
        &converted
    } else {
        document
    };
    let version = document.get("openapi").and_then(as_str).unwrap_or_default();
    if !(version.starts_with("3.0") || version.starts_with("3.1")) {
        return Err(ImportError(format!(
            "only OpenAPI 3.0 and 3.1 documents are read (this one says `openapi: {version}`)"
        )));
    }
    let base_url = match &options.base_url {
        Some(url) => url.clone(),
        None => {
            let server = server_url(document);
            let server = server.as_str();
            if !(server.starts_with("http://") || server.starts_with("https://"))
                || server.contains(['{', '}'])
            {
                return Err(ImportError(format!(
                    "the document's first server (`{server}`) is not an absolute URL (or has a variable without a default); say where the API is with --base-url"
                )));
            }
            server.to_owned()
        }
    };
    let mut tools_text = String::new();
    // The downstreams the tools call: one per security scheme they use.
    let mut downstreams: Vec<(String, Option<Auth>)> = Vec::new();
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut dropped = Vec::new();
    let mut seen = BTreeSet::new();
    let mut taken_names = BTreeSet::new();
    let targets = RefCell::new(std::collections::HashMap::new());
    let paths = document
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| ImportError("the document has no `paths`".to_owned()))?;
    for (path, item) in paths.iter() {
        for method in ["get", "put", "post", "delete", "patch"] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let id = operation
                .get("operationId")
                .and_then(as_str)
                .map(str::to_owned);
            let label = id
                .clone()
                .unwrap_or_else(|| format!("{} {path}", method.to_uppercase()));
            if !options.operations.is_empty()
                && !id
                    .as_ref()
                    .is_some_and(|id| options.operations.contains(id))
            {
                continue;
            }
            seen.insert(label.clone());
            let context = Context {
                document,
                path,
                method,
                shared: item.get("parameters"),
                whole_at: Cell::new(MAX_DEPTH),
                limit: Cell::new(FLAT_FIELDS),
                overflowed: Cell::new(false),
                budget: Cell::new(MAX_INLINED),
                notes: RefCell::new(Vec::new()),
                targets: &targets,
            };
            let mut notes = Vec::new();
            let result = security(document, operation, options, &mut notes).and_then(
                |(downstream, auth)| {
                    let (name, text) = context.tool(
                        operation,
                        &label,
                        options,
                        &downstream,
                        &mut taken_names,
                        &mut notes,
                    )?;
                    // What the importer wrote is held to the checks an operator's
                    // file is: a tool they refuse is skipped with their reason,
                    // never written.
                    checked_alone(
                        &downstream_text(&downstream, &base_url, auth.as_ref())?,
                        &text,
                    )?;
                    if !downstreams.iter().any(|(id, _)| *id == downstream) {
                        downstreams.push((downstream, auth));
                    }
                    Ok((name, text))
                },
            );
            dropped.extend(notes.into_iter().map(|reason| Skipped {
                operation: label.clone(),
                reason,
            }));
            match result {
                Ok((name, text)) => {
                    tools_text.push('\n');
                    tools_text.push_str(&text);
                    tools.push(name);
                }
                Err(reason) => skipped.push(Skipped {
                    operation: label,
                    reason,
                }),
            }
        }
    }
    every_one_found(&options.operations, &seen, "the document")?;
    let mut text = String::new();
    for (id, auth) in &downstreams {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&downstream_text(id, &base_url, auth.as_ref()).map_err(ImportError)?);
    }
    text.push_str(&tools_text);
    Ok(Imported {
        toml: text,
        tools,
        skipped,
        dropped,
    })
}

/// A `[[downstream]]` section.
fn downstream_text(id: &str, base_url: &str, auth: Option<&Auth>) -> Result<String, String> {
    let owned = |s: &String| Some(s.clone());
    let auth = auth.map(|auth| match auth {
        Auth::Header { header, env } => written::AuthSection {
            kind: "header",
            header: owned(header),
            env: owned(env),
            ..written::AuthSection::default()
        },
        Auth::Bearer { env } => written::AuthSection {
            kind: "bearer",
            env: owned(env),
            ..written::AuthSection::default()
        },
        Auth::Query { param, env } => written::AuthSection {
            kind: "query",
            param: owned(param),
            env: owned(env),
            ..written::AuthSection::default()
        },
        Auth::Basic {
            user_env,
            password_env,
        } => written::AuthSection {
            kind: "basic",
            user_env: owned(user_env),
            password_env: owned(password_env),
            ..written::AuthSection::default()
        },
    });
    downstream_section(written::DownstreamSection {
        id: id.to_owned(),
        base_url: base_url.to_owned(),
        protocol: None,
        soap_version: None,
        auth,
    })
}

/// A `[[downstream]]` section's text.
fn downstream_section(section: written::DownstreamSection) -> Result<String, String> {
    written::Sections {
        downstream: vec![section],
        ..written::Sections::default()
    }
    .text()
}

/// Checks one written tool with its downstream, as a configuration of its
/// own; the checks' first problem if they refuse it.
fn checked_alone(downstream: &str, tool: &str) -> Result<(), String> {
    let text = format!(
        "[[tenant]]\nid = \"import\"\n\n[[client]]\nid = \"import\"\ntenant = \"import\"\n\n{downstream}\n{tool}"
    );
    match toolschema_catalog::Config::from_toml(
        &text,
        "import",
        &toolschema_runtime::call::Registry::new(),
    ) {
        Ok(_) => Ok(()),
        Err(errors) => {
            let first = errors.iter().next();
            Err(first.map_or_else(
                || "the configuration checks refuse it".to_owned(),
                |error| {
                    // The key without the tool's place in the file.
                    let key = error
                        .key()
                        .split_once("].")
                        .map_or(error.key(), |(_, key)| key);
                    format!(
                        "the checks refuse what it would write ({key}: {})",
                        error.message()
                    )
                },
            ))
        }
    }
}

/// The document's first server URL, each `{variable}` replaced by its
/// `default` (a variable without one is left as written, and the URL is
/// then refused as not absolute).
fn server_url(document: &Value) -> String {
    let mut url = document
        .pointer("/servers/0/url")
        .and_then(as_str)
        .unwrap_or_default()
        .to_owned();
    if let Some(variables) = document
        .pointer("/servers/0/variables")
        .and_then(Value::as_object)
    {
        for (name, variable) in variables.iter() {
            if let Some(default) = variable.get("default").and_then(as_str) {
                url = url.replace(&format!("{{{name}}}"), default);
            }
        }
    }
    url
}

/// A path key as the document writes it, split: the path template (a
/// `#fragment` left out: it is never sent, and documents use it to tell
/// apart operations on one path), the fixed query parameters written after
/// `?` (`?op=LIST`), and those whose value is a variable (`?q={query}`:
/// key and variable).
type SplitPath<'a> = (&'a str, Vec<(String, String)>, Vec<(String, String)>);

fn split_path(key: &str) -> Result<SplitPath<'_>, String> {
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

/// An operation asked for by name that the document lacks is an error.
fn every_one_found(
    wanted: &[String],
    seen: &BTreeSet<String>,
    place: &str,
) -> Result<(), ImportError> {
    match wanted.iter().find(|w| !seen.contains(*w)) {
        Some(missing) => Err(ImportError(format!("{place} has no operation `{missing}`"))),
        None => Ok(()),
    }
}

/// One operation being read.
struct Context<'a> {
    document: &'a Value,
    path: &'a str,
    method: &'a str,
    shared: Option<&'a Value>,
    /// How many levels of a body or answer are flattened into fields;
    /// objects below are passed on whole.
    whole_at: Cell<usize>,
    /// The most fields a body or answer is flattened into.
    limit: Cell<usize>,
    /// Whether flattening stopped at `limit`.
    overflowed: Cell<bool>,
    /// How many more schema objects may be inlined for the body or answer
    /// being read.
    budget: Cell<usize>,
    /// What was left out of the fields written, and why.
    notes: RefCell<Vec<String>>,
    /// Where each `$ref` met in the document points (an object's members
    /// are found one by one: `components/schemas` may hold thousands).
    targets: &'a RefCell<std::collections::HashMap<String, Option<&'a Value>>>,
}

/// One field found in a schema.
struct Found {
    exposed: String,
    source: String,
    location: Option<&'static str>,
    schema: Value,
    required: bool,
    description: Option<String>,
    /// For a value passed on whole: its schema, inlined (`schema` in the
    /// configuration; `schema` above then holds its type only).
    whole: Option<Value>,
}

impl Context<'_> {
    /// `$ref`s followed (local ones only).
    fn resolve<'b>(
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

    fn tool(
        &self,
        operation: &Value,
        label: &str,
        options: &ImportOptions,
        downstream: &str,
        taken_names: &mut BTreeSet<String>,
        notes: &mut Vec<String>,
    ) -> Result<(String, String), String> {
        let (path, fixed_query, templated) = split_path(self.path)?;
        if let Some(problem) = template_problem(path) {
            return Err(problem);
        }
        let mut fixed_query = fixed_query;
        let mut fixed_headers = Vec::new();
        let mut base = kebab(label);
        if base.is_empty() {
            base = kebab(&format!("{} {}", self.method, self.path));
        }
        if base.is_empty() {
            base = self.method.to_owned();
        }
        let base = fit(&format!("{}{}", options.prefix, base), 120);
        // Two operation ids can read alike once cased (`getPet`,
        // `get_pet`): the later one is numbered.
        let mut name = base.clone();
        let mut n = 1;
        while taken_names.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        let text = |key: &str| {
            operation
                .get(key)
                .and_then(as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
        };
        let (summary, detail) = (text("summary"), text("description"));
        let description = match (summary, detail) {
            (Some(s), Some(d)) if d != s => format!("{s}\n\n{d}"),
            (Some(s), _) => s.to_owned(),
            (None, Some(d)) => d.to_owned(),
            (None, None) => format!("{} {}", self.method.to_uppercase(), self.path),
        };
        let mut arguments = Vec::new();
        let mut encoding = None;
        // An operation's parameter replaces the path's of the same name and
        // place.
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
        let names: BTreeSet<&str> = parameters
            .iter()
            .filter_map(|p| p.get("name").and_then(as_str))
            .collect();
        for parameter in parameters {
            let name = parameter.get("name").and_then(as_str).unwrap_or_default();
            // A variable in the path's query (`?filename={filename}`) is a
            // query parameter under the key written there.
            let query_key = templated
                .iter()
                .find(|(_, variable)| variable == name)
                .map(|(key, _)| key.as_str());
            let location = match parameter.get("in").and_then(as_str) {
                Some("path") if query_key.is_some() => "query",
                Some("path") => "path",
                Some("query") => "query",
                Some("header") => "header",
                Some(other) => {
                    return Err(format!("the {other} parameter `{name}` cannot be mapped"));
                }
                None => return Err(format!("the parameter `{name}` says nowhere it goes")),
            };
            if location == "header" && is_set_by_gateway(name) {
                notes.push(format!(
                    "the header parameter `{name}` is left out: the gateway sets it itself"
                ));
                continue;
            }
            let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
            let schema = self.resolve(&schema, &mut Vec::new())?.clone();
            let source = query_key.unwrap_or(name);
            // A required header or query parameter of one possible value
            // (`X-Amz-Target`, `Action`) is sent with every call, not asked
            // of the client.
            let required_here =
                parameter.get("required").and_then(as_bool) == Some(true) || query_key.is_some();
            if matches!(location, "header" | "query")
                && required_here
                && let Some(value) = only_value(&schema)
                && (location == "query" || toolschema_catalog::gateway::is_header_value(&value))
            {
                let fixed = match location {
                    "header" => &mut fixed_headers,
                    _ => &mut fixed_query,
                };
                fixed.retain(|(n, _): &(String, String)| n != source);
                fixed.push((source.to_owned(), value));
                continue;
            }
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
            let single = is_scalar(&schema) || type_of(&schema).is_none();
            // A query list in the `form` style without explode is one
            // parameter, its values joined by commas: `explode = false`.
            let joined = location == "query"
                && type_of(&schema) == Some("array")
                && style.is_none_or(|s| s == "form")
                && exploded == Some(false);
            let styled = style.is_some_and(|s| s != usual)
                || (location == "query" && exploded == Some(false));
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
            let required = required_here || location == "path";
            // A parameter without a type is sent as text.
            let schema = if type_of(&schema).is_none()
                && !["oneOf", "anyOf", "allOf", "properties", "items"]
                    .iter()
                    .any(|k| schema.get(k).is_some())
            {
                schema_of_kind("string", None)
            } else {
                schema
            };
            let description = parameter
                .get("description")
                .and_then(as_str)
                .map(str::to_owned);
            // `status` and `status[]` side by side (a list in PHP's
            // spelling beside a single value) would read alike once cased:
            // the list is `status_list`.
            let exposed = match name.strip_suffix("[]") {
                Some(single) if names.contains(single) => {
                    fit(&format!("{}_list", snake(single)), 64)
                }
                _ => fit(&snake(name), 64),
            };
            if type_of(&schema) == Some("array") {
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
                arguments.push(Found {
                    exposed: format!("{exposed}[]"),
                    source: source.to_owned(),
                    location: Some(location),
                    schema: items,
                    required: false,
                    description: description.clone(),
                    whole: None,
                });
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
                continue;
            }
            if !is_scalar(&schema) {
                return Err(format!(
                    "the {location} parameter `{name}` is not a string, number or boolean"
                ));
            }
            arguments.push(Found {
                exposed,
                source: source.to_owned(),
                location: Some(location),
                schema,
                required,
                description,
                whole: None,
            });
        }
        // A variable in the path's query that no parameter declares is an
        // optional text argument.
        for (key, variable) in &templated {
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
        if let Some(body) = operation.get("requestBody") {
            let body = self.resolve(body, &mut Vec::new())?;
            let content = body.get("content").and_then(Value::as_object);
            let json = content.and_then(|c| json_schema(c));
            let form = content.and_then(form_schema).filter(|_| json.is_none());
            let Some(schema) = json.or(form) else {
                let kinds: Vec<&str> = content
                    .into_iter()
                    .flat_map(|c| c.iter().map(|(kind, _)| kind))
                    .collect();
                return Err(format!(
                    "the request body is {} (a file upload, or a body neither JSON nor a form), which a tool's JSON arguments cannot carry",
                    kinds.join(", ")
                ));
            };
            encoding = form.map(|_| "form");
            let required = body.get("required").and_then(as_bool).unwrap_or(false);
            let mut found = self.fields(schema, required, ("body", notes))?;
            if found.is_empty() {
                return Err("the request body has no properties to map".to_owned());
            }
            // A form's fields each hold one value, or a list of values,
            // under one name.
            if let Some(field) = found.iter().find(|field| {
                form.is_some()
                    && !field.source.is_empty()
                    && (field.whole.is_some()
                        || field.source.contains('.')
                        || field.source.trim_end_matches("[]").contains("[]")
                        || field.source == toolschema_catalog::gateway::WHOLE)
            }) {
                return Err(format!(
                    "the form field `{}` holds more than a value or a list of values, which a form cannot carry",
                    field.exposed
                ));
            }
            // A body field named as a parameter is (`ids` in the query,
            // `ids[]` in the body) takes `body_` before its name, with
            // everything inside it.
            let taken: BTreeSet<String> = arguments
                .iter()
                .map(|a| root(&a.exposed).to_owned())
                .collect();
            let mut renamed: Vec<(String, String)> = Vec::new();
            for field in &mut found {
                let old = root(&field.exposed).to_owned();
                if !taken.contains(&old) {
                    continue;
                }
                let new = match renamed.iter().find(|(from, _)| *from == old) {
                    Some((_, to)) => to.clone(),
                    None => {
                        let base = fit(&format!("body_{old}"), 64);
                        let mut new = base.clone();
                        let mut n = 1;
                        while taken.contains(&new) || renamed.iter().any(|(_, to)| *to == new) {
                            n += 1;
                            new = numbered(&base, n);
                        }
                        renamed.push((old.clone(), new.clone()));
                        new
                    }
                };
                field.exposed = format!("{new}{}", &field.exposed[old.len()..]);
            }
            for mut field in found {
                field.location = field.location.or(Some("body"));
                if field.source.is_empty() {
                    field.location = None;
                }
                arguments.push(field);
            }
        }
        let mut results = Vec::new();
        if let Some(schema) = self.answer(operation) {
            results = self.fields(schema, true, ("result", notes))?;
        }
        // Exposed names must be unique: a later clash takes its location's
        // name as a prefix, and a number if that is taken too.
        let mut taken = BTreeSet::new();
        for field in &mut arguments {
            if taken.insert(field.exposed.clone()) {
                continue;
            }
            let base = match field.location {
                Some(location) => format!("{location}_{}", field.exposed),
                None => field.exposed.clone(),
            };
            field.exposed = base.clone();
            let mut n = 1;
            while !taken.insert(field.exposed.clone()) {
                n += 1;
                field.exposed = numbered(&base, n);
            }
        }
        let mut version = written::VersionSection {
            version: 1,
            status: "draft",
            title: summary.map(str::to_owned),
            description,
            method: Some(self.method.to_uppercase()),
            path: Some(path.to_owned()),
            encoding,
            headers: fixed_headers.into_iter().collect(),
            query: fixed_query.into_iter().collect(),
            ..written::VersionSection::default()
        };
        match self.method {
            "get" => version.read_only = Some(true),
            "delete" => {
                version.destructive = Some(true);
                version.idempotent = Some(true);
            }
            "put" => version.idempotent = Some(true),
            _ => {}
        }
        // Exposed names must be unique among the results too (`jobId` and
        // `job_id` both read `job_id`): a later one is numbered.
        let mut taken = BTreeSet::new();
        for field in &mut results {
            let base = field.exposed.clone();
            let mut n = 1;
            while !taken.insert(field.exposed.clone()) {
                n += 1;
                field.exposed = numbered(&base, n);
            }
        }
        notes.append(&mut self.notes.borrow_mut());
        version.argument = arguments
            .iter()
            .map(|field| field_section(field, true, notes))
            .collect();
        version.result = results
            .iter()
            .map(|field| field_section(field, false, notes))
            .collect();
        let text = written::Sections {
            gateway_tool: vec![written::ToolSection {
                name: name.clone(),
                downstream: downstream.to_owned(),
                version: vec![version],
            }],
            ..written::Sections::default()
        }
        .text()?;
        taken_names.insert(name.clone());
        Ok((name, text))
    }

    /// The JSON schema of the first successful answer, if it has one.
    fn answer<'b>(&'b self, operation: &'b Value) -> Option<&'b Value> {
        let responses = operation.get("responses")?.as_object()?;
        let (_, response) = responses.iter().find(|(code, _)| code.starts_with('2'))?;
        let response = self.resolve(response, &mut Vec::new()).ok()?;
        let schema = json_schema(response.get("content")?.as_object()?)?;
        let resolved = self.resolve(schema, &mut Vec::new()).ok()?;
        // Only an object with properties, or an array, maps field by field;
        // anything else is passed on as text.
        match type_of(resolved) {
            Some("object") if resolved.get("properties").is_some() => Some(schema),
            Some("array") => Some(schema),
            _ if resolved.get("allOf").is_some() => Some(schema),
            _ => None,
        }
    }

    /// The fields of a body or answer: flattened when that gives at most
    /// [`FLAT_FIELDS`], else one level deep with objects below passed on
    /// whole, else (past [`MAX_FIELDS`] properties) the whole value as
    /// one field, named `name` (`body`, `result`) with source `.`.
    fn fields(
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
            let flattened = self.flatten(schema, "", "", required, 0, &mut Vec::new(), &mut found);
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
                field.source = toolschema_catalog::gateway::WHOLE.to_owned();
            }
        }
        Ok(found)
    }

    /// The fields of `schema` at the given paths, nested objects and
    /// arrays of objects flattened into paths down to `self.whole_at`
    /// levels, and passed on whole below (their schema kept, inlined):
    /// also where a schema contains itself, where an array holds arrays
    /// and where a value is one of several shapes.
    #[allow(clippy::too_many_arguments)]
    fn flatten(
        &self,
        schema: &Value,
        exposed: &str,
        source: &str,
        required: bool,
        depth: usize,
        trail: &mut Vec<String>,
        out: &mut Vec<Found>,
    ) -> Result<(), String> {
        if out.len() >= self.limit.get() {
            self.overflowed.set(true);
            return Err(format!(
                "its request body or answer has more than {} fields once its `$ref`s are followed (the last at `{exposed}`), more than a tool can list",
                self.limit.get()
            ));
        }
        let mark = trail.len();
        // A schema that contains itself is passed on whole where it comes
        // back: a value the client writes or reads as JSON.
        if let Some(reference) = schema.get("$ref").and_then(as_str)
            && trail.iter().any(|r| r == reference)
            && !exposed.is_empty()
        {
            out.push(self.whole(schema, exposed, source, required));
            return Ok(());
        }
        let schema = self.resolve(schema, trail)?;
        for key in ["oneOf", "anyOf"] {
            if let Some(alternatives) = schema.get(key).and_then(as_array) {
                let non_null: Vec<&Value> = alternatives
                    .iter()
                    .filter(|a| type_of(a) != Some("null"))
                    .collect();
                if let [only] = non_null[..] {
                    let result = self.flatten(only, exposed, source, required, depth, trail, out);
                    trail.truncate(mark);
                    return result;
                }
                // Several shapes: one value passed on whole, each
                // alternative kept in its schema.
                out.push(self.whole(schema, exposed, source, required));
                trail.truncate(mark);
                return Ok(());
            }
        }
        let description = schema
            .get("description")
            .and_then(as_str)
            .map(str::to_owned);
        let kind = type_of(schema).or_else(|| schema.get("properties").map(|_| "object"));
        let properties = merged_properties(self, schema)?;
        let flat = depth < self.whole_at.get();
        match kind {
            Some("object") | None if !properties.0.is_empty() && flat => {
                // An object inside an array is declared by its array.
                if !exposed.is_empty() && !exposed.ends_with("[]") {
                    out.push(Found {
                        exposed: exposed.to_owned(),
                        source: String::new(),
                        location: None,
                        schema: schema_of_kind("object", None),
                        required,
                        description,
                        whole: None,
                    });
                }
                for (name, property) in &properties.0 {
                    let child_exposed = join(exposed, &fit(&snake(name), 64));
                    let child_source = join(source, name);
                    let child_required = required && properties.1.contains(*name);
                    self.flatten(
                        property,
                        &child_exposed,
                        &child_source,
                        child_required,
                        depth + 1,
                        trail,
                        out,
                    )?;
                }
            }
            // An object with fields past the levels flattened, and an
            // array of arrays (a path names the items of one array only),
            // are passed on whole.
            Some("object") | None if !properties.0.is_empty() => {
                out.push(self.whole(schema, exposed, source, required));
            }
            Some("array")
                if schema
                    .get("items")
                    .and_then(|items| self.resolve(items, &mut trail.clone()).ok())
                    .is_some_and(|items| {
                        type_of(items) == Some("array")
                            || (!flat
                                && (type_of(items) == Some("object")
                                    || items.get("properties").is_some()))
                    }) =>
            {
                out.push(self.whole(schema, exposed, source, required));
            }
            Some("array") => {
                let items = schema.get("items").cloned().unwrap_or(Value::Null);
                let (item_exposed, item_source) = if exposed.is_empty() {
                    ("items[]".to_owned(), "[]".to_owned())
                } else {
                    let mut array = Map::new();
                    array.insert("type", "array");
                    for key in ["minItems", "maxItems"] {
                        if let Some(n) = schema.get(key) {
                            array.insert(key, n.clone());
                        }
                    }
                    let array = Value::Object(array);
                    out.push(Found {
                        exposed: exposed.to_owned(),
                        source: String::new(),
                        location: None,
                        schema: array,
                        required,
                        description,
                        whole: None,
                    });
                    (format!("{exposed}[]"), format!("{source}[]"))
                };
                self.flatten(
                    &items,
                    &item_exposed,
                    &item_source,
                    true,
                    depth + 1,
                    trail,
                    out,
                )?;
            }
            // A body that is one value (a string, a list of lists, an
            // object of any properties) is passed on whole.
            _ if exposed.is_empty() => {
                out.push(self.whole(schema, exposed, source, required));
            }
            Some("object") => {
                out.push(self.whole(schema, exposed, source, required));
            }
            _ => out.push(Found {
                exposed: exposed.to_owned(),
                source: source.to_owned(),
                location: None,
                schema: schema.clone(),
                required,
                description,
                whole: None,
            }),
        }
        trail.truncate(mark);
        Ok(())
    }

    /// A value passed on whole: one field whose schema is `schema` with
    /// its `$ref`s written in place ([`Context::inline`]).
    fn whole(&self, schema: &Value, exposed: &str, source: &str, required: bool) -> Found {
        // Inlined afresh: where the schema contains itself, it is written
        // once more, with `{}` where it comes back.
        let mut inlined = self.inline(schema, &mut Vec::new(), 0);
        let mut kind = whole_kind(&mut inlined);
        let compiles = toolschema_runtime::validate::schema_compiles(
            &inlined.to_compact_string(),
            &inlined.to_value(),
        );
        if let Err(error) = compiles {
            let at = if exposed.is_empty() {
                "the body"
            } else {
                exposed
            };
            self.notes.borrow_mut().push(format!(
                "the schema of `{at}` is left out (any {kind} is taken): JSON Schema does not compile it ({error})"
            ));
            let mut bare = Map::new();
            if kind != "any" {
                bare.insert("type", Value::from(kind));
            }
            inlined = Value::Object(bare);
            kind = whole_kind(&mut inlined);
        }
        Found {
            exposed: exposed.to_owned(),
            source: source.to_owned(),
            location: None,
            schema: schema_of_kind(kind, None),
            required,
            description: None,
            whole: Some(inlined),
        }
    }

    /// `schema` as one JSON Schema 2020-12 that stands alone: its local
    /// `$ref`s written in place (where a schema contains itself, `{}`
    /// stands for it), OpenAPI 3.0's own words turned into JSON Schema's
    /// (`nullable`, boolean `exclusiveMinimum`), annotations JSON Schema
    /// does not read left out, and at most the context's budget of schema
    /// objects written (past it, `{}`: any value, the downstream's to
    /// check).
    fn inline(&self, schema: &Value, trail: &mut Vec<String>, depth: usize) -> Value {
        let budget = self.budget.get();
        if budget == 0 {
            return Value::Object(Map::new());
        }
        self.budget.set(budget - 1);
        let mark = trail.len();
        if let Some(reference) = schema.get("$ref").and_then(as_str)
            && trail.iter().any(|r| r == reference)
        {
            return Value::Object(Map::new());
        }
        let Ok(resolved) = self.resolve(schema, trail) else {
            trail.truncate(mark);
            return Value::Object(Map::new());
        };
        let Value::Object(map) = resolved else {
            trail.truncate(mark);
            return resolved.clone();
        };
        let mut out = Map::new();
        if depth >= INLINED_DEPTH {
            if let Some(kind) = type_of(resolved).filter(|k| JSON_TYPES.contains(k)) {
                out.insert("type", Value::from(kind.to_owned()));
            }
            trail.truncate(mark);
            return Value::Object(out);
        }
        let nullable = map.get("nullable").and_then(as_bool) == Some(true);
        for (key, value) in map.iter() {
            match key {
                "properties" | "patternProperties" => {
                    if let Some(members) = value.as_object() {
                        let mut inlined = Map::new();
                        for (name, member) in members.iter() {
                            inlined.insert(name.to_owned(), self.inline(member, trail, depth + 1));
                        }
                        out.insert(key.to_owned(), inlined);
                    }
                }
                "items"
                | "additionalProperties"
                | "not"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems" => match value {
                    Value::Bool(b) => out.insert(key.to_owned(), *b),
                    Value::Object(_) => {
                        out.insert(key.to_owned(), self.inline(value, trail, depth + 1));
                    }
                    _ => {}
                },
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                    if let Some(parts) = as_array(value) {
                        let parts = parts.iter().map(|part| self.inline(part, trail, depth));
                        out.insert(key.to_owned(), parts.collect::<Vec<_>>());
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" => match value {
                    Value::Number(_) => out.insert(key.to_owned(), value.clone()),
                    // OpenAPI 3.0: the bound is `minimum`, excluded.
                    Value::Bool(true) => {
                        let bound = if key == "exclusiveMinimum" {
                            "minimum"
                        } else {
                            "maximum"
                        };
                        if let Some(n @ Value::Number(_)) = map.get(bound) {
                            out.insert(key.to_owned(), n.clone());
                        }
                    }
                    _ => {}
                },
                "minimum" | "maximum" => {
                    let exclusive = if key == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    };
                    if matches!(value, Value::Number(_))
                        && map.get(exclusive).and_then(as_bool) != Some(true)
                    {
                        out.insert(key.to_owned(), value.clone());
                    }
                }
                "required" => {
                    if let Some(names) = as_array(value)
                        && names.iter().all(|n| as_str(n).is_some())
                    {
                        out.insert(key.to_owned(), value.clone());
                    }
                }
                "type" => {
                    let known =
                        |kind: &Value| as_str(kind).is_some_and(|k| JSON_TYPES.contains(&k));
                    let keep = match value {
                        Value::String(_) => known(value),
                        Value::Array(kinds) => kinds.iter().all(known),
                        _ => false,
                    };
                    if keep {
                        out.insert(key.to_owned(), value.clone());
                    }
                }
                "pattern" => {
                    if let Some(pattern) = as_str(value)
                        && reads_pattern(pattern)
                    {
                        out.insert(key.to_owned(), value.clone());
                    }
                }
                "examples" if as_array(value).is_some() => {
                    out.insert(key.to_owned(), value.clone());
                }
                _ if KEPT_KEYWORDS.contains(&key) => out.insert(key.to_owned(), value.clone()),
                // `$ref` (followed), `nullable` (below), `example`,
                // `discriminator`, `xml`, `externalDocs`, `x-…`: left out.
                _ => {}
            }
        }
        if nullable {
            match out.get_mut("type") {
                Some(Value::String(kind)) => {
                    let kind = kind.clone();
                    out.insert("type", vec![Value::String(kind), "null".into()]);
                }
                Some(Value::Array(kinds)) if !kinds.iter().any(|k| as_str(k) == Some("null")) => {
                    kinds.push("null".into());
                }
                _ => {}
            }
            if let Some(Value::Array(values)) = out.get_mut("enum")
                && !values.iter().any(|v| matches!(v, Value::Null))
            {
                values.push(Value::Null);
            }
        }
        trail.truncate(mark);
        Value::Object(out)
    }
}

/// JSON Schema's types.
const JSON_TYPES: [&str; 7] = [
    "string", "integer", "number", "boolean", "object", "array", "null",
];

/// JSON Schema keywords an inlined schema keeps as written (besides those
/// [`Context::inline`] reads itself).
const KEPT_KEYWORDS: [&str; 19] = [
    "title",
    "description",
    "format",
    "enum",
    "const",
    "default",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "dependentRequired",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
];

/// The configuration's type of a value passed whole, from its inlined
/// schema: its one JSON type (alternatives of one type: that type), else
/// `any`. A schema that does not state its type states it
/// (`"type": "object"`), as the configuration asks.
fn whole_kind(schema: &mut Value) -> &'static str {
    let stated = schema.get("type");
    if let Some(stated) = stated {
        return as_str(stated).map_or("any", configured_kind);
    }
    let alternatives: Option<BTreeSet<&str>> = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| schema.get(key).and_then(as_array))
        .map(|parts| {
            parts
                .iter()
                .map(|part| {
                    type_of(part).unwrap_or(
                        if part.get("properties").is_some()
                            || part.get("additionalProperties").is_some()
                        {
                            "object"
                        } else {
                            "?"
                        },
                    )
                })
                .collect()
        });
    let kind = match alternatives {
        Some(kinds) if kinds.len() == 1 => kinds.first().map_or("any", |k| configured_kind(k)),
        Some(_) => "any",
        None if schema.get("properties").is_some()
            || schema.get("additionalProperties").is_some() =>
        {
            "object"
        }
        None if schema.get("items").is_some() => "array",
        None => "any",
    };
    if kind != "any"
        && let Value::Object(map) = schema
    {
        map.insert("type", Value::from(kind));
    }
    kind
}

/// The downstream an operation calls, by the security scheme it needs
/// (its own `security`, else the document's): `options.downstream` without
/// one, `<downstream>-<scheme>` with one, its secret named by an
/// environment variable.
fn security(
    document: &Value,
    operation: &Value,
    options: &ImportOptions,
    notes: &mut Vec<String>,
) -> Result<(String, Option<Auth>), String> {
    let requirements = operation
        .get("security")
        .or_else(|| document.get("security"))
        .and_then(as_array);
    // The first requirement is the one used; `{}` (none) is allowed.
    let Some(first) = requirements
        .and_then(|r| r.first())
        .and_then(Value::as_object)
    else {
        return Ok((options.downstream.clone(), None));
    };
    let Some((scheme_name, _)) = first.iter().next() else {
        return Ok((options.downstream.clone(), None));
    };
    // A scheme the document names and never defines says nothing of how
    // to authenticate: the call is written without credentials, and said.
    let Some(scheme) = document.pointer(&format!("/components/securitySchemes/{scheme_name}"))
    else {
        notes.push(format!(
            "its security scheme `{scheme_name}` is not defined in the document: the downstream is written without credentials (add `auth` to it if the API needs them)"
        ));
        return Ok((options.downstream.clone(), None));
    };
    let id = format!("{}-{}", options.downstream, kebab(scheme_name));
    let env = format!("{}_{}", snake(&options.downstream), snake(scheme_name)).to_uppercase();
    let kind = scheme.get("type").and_then(as_str).unwrap_or_default();
    let auth = match (
        kind,
        scheme.get("in").and_then(as_str),
        scheme.get("scheme").and_then(as_str),
    ) {
        ("apiKey", Some("query"), _) => Auth::Query {
            param: scheme
                .get("name")
                .and_then(as_str)
                .unwrap_or_default()
                .to_owned(),
            env,
        },
        ("apiKey", Some("header"), _) => Auth::Header {
            header: scheme
                .get("name")
                .and_then(as_str)
                .unwrap_or_default()
                .to_owned(),
            env,
        },
        ("http", _, Some(s)) if s.eq_ignore_ascii_case("basic") => Auth::Basic {
            user_env: format!("{env}_USER"),
            password_env: format!("{env}_PASSWORD"),
        },
        ("http", _, Some(s)) if s.eq_ignore_ascii_case("bearer") => Auth::Bearer { env },
        ("oauth2" | "openIdConnect", _, _) => Auth::Bearer { env },
        _ => {
            return Err(format!(
                "its security scheme `{scheme_name}` ({kind}) cannot be configured: the gateway sends a bearer token, an API key in a header or the query, or basic credentials"
            ));
        }
    };
    Ok((id, Some(auth)))
}

/// Reading a document: what `serde_json::Value` offers, over the
/// order-keeping [`Json`](toolschema_runtime::render::Json).
trait Read {
    fn get(&self, key: &str) -> Option<&Value>;
    fn pointer(&self, pointer: &str) -> Option<&Value>;
}

impl Read for Value {
    fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    fn pointer(&self, pointer: &str) -> Option<&Value> {
        let mut at = self;
        for token in pointer.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Value::Object(map) => map.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }
}

fn as_str(value: &Value) -> Option<&str> {
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

fn as_array(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(items) => Some(items),
        _ => None,
    }
}

fn as_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

fn integer(number: Number) -> Option<i64> {
    match number {
        Number::Int(n) => Some(n),
        Number::UInt(n) => i64::try_from(n).ok(),
        Number::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
        Number::Float(_) => None,
    }
}

fn as_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => integer(*n),
        _ => None,
    }
}

/// `{"type": kind}`, with `minItems` if given.
fn schema_of_kind(kind: &'static str, min_items: Option<u64>) -> Value {
    let mut map = Map::new();
    map.insert("type", kind);
    if let Some(n) = min_items {
        map.insert("minItems", n);
    }
    Value::Object(map)
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

/// The schema of a JSON media type among `content`'s: `application/json`
/// or a `+json` type, with any parameters (`; charset=utf-8`), else a
/// wildcard (`*/*`, `application/*`) with a schema.
fn json_schema(content: &Map) -> Option<&Value> {
    let essence = |kind: &str| {
        kind.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    let is_json = |kind: &str| {
        let kind = essence(kind);
        kind == "application/json" || kind.ends_with("+json")
    };
    content
        .iter()
        .find(|(kind, _)| is_json(kind))
        .or_else(|| {
            content
                .iter()
                .find(|(kind, _)| matches!(essence(kind).as_str(), "*/*" | "application/*"))
        })
        .and_then(|(_, media)| media.get("schema"))
}

/// The schema of a form (`application/x-www-form-urlencoded`) among
/// `content`'s.
fn form_schema(content: &Map) -> Option<&Value> {
    content
        .iter()
        .find(|(kind, _)| {
            kind.split(';').next().is_some_and(|k| {
                k.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            })
        })
        .and_then(|(_, media)| media.get("schema"))
}

/// `name` cut to at most `limit` bytes, keeping it unique: a longer name
/// keeps its start and ends with eight hex digits of a hash of the whole.
fn fit(name: &str, limit: usize) -> String {
    if name.len() <= limit {
        return name.to_owned();
    }
    // FNV-1a: stable across runs and platforms.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut cut = limit - 9;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = name[..cut].trim_end_matches(['-', '_']);
    format!("{stem}_{:08x}", hash as u32)
}

/// `name` with a number: `job_id_2`, `items[].id_2`.
fn numbered(name: &str, n: usize) -> String {
    match name.strip_suffix("[]") {
        Some(stem) => format!("{stem}_{n}[]"),
        None => format!("{name}_{n}"),
    }
}

/// Headers the gateway writes itself (its framing and credentials); a
/// parameter of the same name is left out.
fn is_set_by_gateway(name: &str) -> bool {
    name.eq_ignore_ascii_case("authorization")
        || toolschema_catalog::gateway::is_managed_header(name)
}

/// A schema's one type (3.1's `["string", "null"]` read as `string`).
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds.iter().filter_map(as_str).find(|k| *k != "null"),
        _ => None,
    }
}

fn is_scalar(schema: &Value) -> bool {
    matches!(
        type_of(schema),
        Some("string" | "integer" | "number" | "boolean")
    )
}

/// The first name of an exposed path (`lines` of `lines[].code`).
fn root(exposed: &str) -> &str {
    let end = exposed.find(['.', '[']).unwrap_or(exposed.len());
    &exposed[..end]
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// `petId` → `pet_id`, `api_key` stays, `X-Rate` → `x_rate`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out.trim_end_matches('_').to_owned()
}

/// `getPetById` → `get-pet-by-id`.
fn kebab(name: &str) -> String {
    snake(name).replace('_', "-")
}

/// One argument or result as written: what `field` says, in the
/// configuration's keys, each keyword kept only where the checks take it
/// (and the example only where its own field's schema accepts it).
fn field_section(field: &Found, argument: bool, notes: &mut Vec<String>) -> written::FieldSection {
    let mut out = written::FieldSection {
        name: field.exposed.clone(),
        source: (!field.source.is_empty() && field.source != field.exposed)
            .then(|| field.source.clone()),
        location: field.location.filter(|_| argument),
        explode: field.schema.get(JOINED).is_some().then_some(false),
        ..written::FieldSection::default()
    };
    // A value passed on whole: its schema says all, description included.
    if let Some(schema) = &field.whole {
        out.kind = configured_kind(type_of(&field.schema).unwrap_or("any"));
        out.required = field.required.then_some(true);
        out.schema = Some(schema.to_compact_string());
        return out;
    }
    let schema = &field.schema;
    // A type JSON Schema does not name (`bool`, `null`, `file`) takes any
    // value.
    let kind = configured_kind(type_of(schema).unwrap_or("string"));
    out.kind = kind;
    out.required = field.required.then_some(true);
    out.description = field.description.clone();
    // What is written is also the schema its example is held to.
    let mut written = serde_json::Map::new();
    written.insert("type".to_owned(), kind.into());
    let format = schema.get("format").and_then(as_str);
    if kind == "string"
        && let Some(format) = format.filter(|f| FORMATS.contains(f))
    {
        out.format = Some(format.to_owned());
        written.insert("format".to_owned(), format.into());
    }
    if kind == "string" {
        let length = |key: &str| schema.get(key).and_then(as_i64).filter(|n| *n >= 0);
        out.min_length = length("minLength");
        out.max_length = length("maxLength");
        for (key, n) in [("minLength", out.min_length), ("maxLength", out.max_length)] {
            if let Some(n) = n {
                written.insert(key.to_owned(), n.into());
            }
        }
        if let Some(pattern) = schema.get("pattern").and_then(as_str) {
            if reads_pattern(pattern) {
                out.pattern = Some(pattern.to_owned());
                written.insert("pattern".to_owned(), pattern.into());
            } else {
                notes.push(format!(
                    "the pattern of `{}` is left out: JSON Schema does not read it as a regular expression",
                    field.exposed
                ));
            }
        }
    }
    if kind == "array" {
        let count = |key: &str| schema.get(key).and_then(as_i64).filter(|n| *n >= 0);
        out.min_items = count("minItems");
        out.max_items = count("maxItems");
    }
    if matches!(kind, "integer" | "number") {
        let (minimum, maximum) = bounds(schema, kind, format);
        for (key, bound) in [("minimum", &minimum), ("maximum", &maximum)] {
            if let Some(bound) = bound {
                let number = match bound {
                    toml::Value::Integer(n) => serde_json::Value::from(*n),
                    toml::Value::Float(x) => serde_json::Value::from(*x),
                    _ => serde_json::Value::Null,
                };
                written.insert(key.to_owned(), number);
            }
        }
        (out.minimum, out.maximum) = (minimum, maximum);
    }
    if kind == "string"
        && let Some(values) = schema.get("enum").and_then(as_array)
    {
        let values: Vec<&str> = values.iter().filter_map(as_str).collect();
        if !values.is_empty() {
            written.insert("enum".to_owned(), values.clone().into());
            out.values = Some(values.into_iter().map(str::to_owned).collect());
        }
    }
    if let Some(example) = schema.get("example") {
        let fits = scalar_literal(example, kind).is_some_and(|_| {
            let validator: Result<jsonschema::Validator, _> =
                toolschema_runtime::validate::validator_of(&serde_json::Value::Object(written));
            validator.is_ok_and(|v| v.is_valid(&example.to_value()))
        });
        match scalar_literal(example, kind) {
            Some(literal) if fits => out.examples = Some(vec![literal]),
            _ => notes.push(format!(
                "the example of `{}` is left out: its own field's schema refuses it",
                field.exposed
            )),
        }
    }
    out
}

/// Whether JSON Schema reads `pattern` as a regular expression (as the
/// checks compile it, remembered by its text: a document repeats its
/// patterns across operations).
fn reads_pattern(pattern: &str) -> bool {
    let schema = serde_json::json!({ "pattern": pattern });
    toolschema_runtime::validate::schema_compiles(&schema.to_string(), &schema).is_ok()
}

/// A schema's type as the configuration names it: JSON Schema's own, or
/// `any` for what it does not name (`bool`, `null`, `file`).
fn configured_kind(kind: &str) -> &'static str {
    match kind {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "object" => "object",
        "array" => "array",
        _ => "any",
    }
}

/// The bounds of a number field: its format's range (`int32`, `int64`)
/// intersected with its own `minimum` and `maximum`, each written once.
fn bounds(
    schema: &Value,
    kind: &str,
    format: Option<&str>,
) -> (Option<toml::Value>, Option<toml::Value>) {
    let range = match (kind, format) {
        ("integer", Some("int32")) => Some((f64::from(i32::MIN), f64::from(i32::MAX))),
        _ => None,
    };
    let own = |key: &str| match schema.get(key) {
        Some(Value::Number(n)) => Some(n.as_f64()),
        _ => None,
    };
    let (mut low, mut high) = (own("minimum"), own("maximum"));
    if let Some((min, max)) = range {
        low = Some(low.map_or(min, |l| l.max(min)));
        high = Some(high.map_or(max, |h| h.min(max)));
    }
    let literal = |bound: Option<f64>, round: fn(f64) -> f64| {
        let bound = bound?;
        if kind == "integer" {
            let whole = round(bound);
            // An integer bound past what TOML holds is left out.
            (whole.abs() < 9.2e18).then(|| toml::Value::from(whole as i64))
        } else {
            Some(toml::Value::from(bound))
        }
    };
    (literal(low, f64::ceil), literal(high, f64::floor))
}

/// A JSON scalar as a TOML value, when it is of the field's type.
fn scalar_literal(value: &Value, kind: &str) -> Option<toml::Value> {
    Some(match (value, kind) {
        (Value::String(s), "string") => toml::Value::from(&**s),
        (Value::Bool(b), "boolean") => toml::Value::from(*b),
        (Value::Number(n), "integer") => toml::Value::from(integer(*n)?),
        (Value::Number(n), "number") => toml::Value::from(n.as_f64()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{ImportOptions, import_openapi, kebab, parse_document, snake};
    use toolschema_catalog::Config;
    use toolschema_runtime::call::Registry;

    const DOCUMENT: &str = r##"{
      "openapi": "3.1.0",
      "servers": [{"url": "/v1"}],
      "paths": {
        "/things": {
          "post": {
            "operationId": "createThings",
            "summary": "Creates things in bulk.",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
              "type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}},
            "responses": {"201": {"description": "ok", "content": {"application/json": {"schema": {
              "allOf": [{"$ref": "#/components/schemas/Base"}, {"properties": {"count": {"type": "integer", "format": "int32"}}}]}}}}}
          }
        },
        "/shapes": {
          "put": {
            "operationId": "putShape",
            "requestBody": {"content": {"application/json": {"schema": {
              "oneOf": [{"type": "object", "properties": {"r": {"type": "number"}}}, {"type": "object", "properties": {"w": {"type": "number"}}}]}}}},
            "responses": {"204": {"description": "done"}}
          }
        },
        "/trees": {
          "get": {
            "operationId": "getTree",
            "parameters": [{"name": "session", "in": "cookie", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}}
          }
        },
        "/filters": {
          "get": {
            "operationId": "filter",
            "parameters": [{"name": "ids", "in": "query", "style": "pipeDelimited", "schema": {"type": "array", "items": {"type": "integer"}}}],
            "responses": {"200": {"description": "ok"}}
          }
        }
      },
      "components": {"schemas": {
        "Thing": {"type": "object", "required": ["name"], "properties": {
          "name": {"type": "string", "minLength": 1},
          "note": {"type": ["string", "null"], "maxLength": 80}}},
        "Base": {"type": "object", "properties": {"batchId": {"type": "string", "format": "uuid"}}}
      }}
    }"##;

    fn options() -> ImportOptions {
        ImportOptions {
            downstream: "things".to_owned(),
            base_url: Some("https://things.example/v1".to_owned()),
            ..ImportOptions::default()
        }
    }

    #[test]
    fn a_3_1_document_imports_what_it_can_and_says_what_it_skips() {
        let document = parse_document(DOCUMENT).expect("json");
        let imported = import_openapi(&document, &options()).expect("imports");
        // A body of several shapes is one argument, its schema kept.
        assert_eq!(imported.tools, ["create-things", "put-shape"]);
        assert!(
            imported
                .toml
                .contains("name = \"body\"\nsource = \".\"\nin = \"body\"\ntype = \"object\""),
            "{}",
            imported.toml
        );
        let skipped: Vec<(&str, &str)> = imported
            .skipped
            .iter()
            .map(|s| (s.operation.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(
            skipped[1].0 == "filter" && skipped[1].1.contains("pipeDelimited"),
            "{skipped:?}"
        );
        assert!(
            skipped[0].0 == "getTree" && skipped[0].1.contains("cookie"),
            "{skipped:?}"
        );
        let toml = &imported.toml;
        // A body that is an array maps item by item from the root.
        assert!(
            toml.contains("name = \"items[].name\"\nsource = \"[].name\""),
            "{toml}"
        );
        // `["string", "null"]` is a string; `allOf` parts merged; `int32`
        // becomes bounds, and `uuid` stays a format.
        assert!(
            toml.contains(
                "name = \"items[].note\"\nsource = \"[].note\"\nin = \"body\"\ntype = \"string\""
            ),
            "{toml}"
        );
        assert!(
            toml.contains(
                "name = \"batch_id\"\nsource = \"batchId\"\ntype = \"string\"\nformat = \"uuid\""
            ),
            "{toml}"
        );
        assert!(
            toml.contains("name = \"count\"\ntype = \"integer\"\nminimum = -2147483648"),
            "{toml}"
        );
        let config =
            format!("[[tenant]]\nid = \"t\"\n[[client]]\nid = \"c\"\ntenant = \"t\"\n{toml}");
        Config::from_toml(&config, "imported.toml", &Registry::new())
            .unwrap_or_else(|errors| panic!("{errors}\n{toml}"));
    }

    #[test]
    fn a_relative_server_needs_a_base_url() {
        let document = parse_document(DOCUMENT).expect("json");
        let refused = import_openapi(
            &document,
            &ImportOptions {
                base_url: None,
                ..options()
            },
        )
        .expect_err("relative");
        assert!(refused.to_string().contains("--base-url"), "{refused}");
        let yaml = parse_document("openapi: 2.0\npaths: {}\n").expect("yaml");
        let refused = import_openapi(&yaml, &options()).expect_err("old");
        assert!(refused.to_string().contains("3.0 and 3.1"), "{refused}");
    }

    /// Forty properties, each a schema of forty, four levels down: 2.56
    /// million fields from a few kilobytes.
    fn fan_out_document() -> String {
        let mut schemas = Vec::new();
        for level in 0..4 {
            let properties: Vec<String> = (0..40)
                .map(|i| match level {
                    3 => format!(r#""p{i}": {{"type": "string"}}"#),
                    _ => format!(
                        r##""p{i}": {{"$ref": "#/components/schemas/L{}"}}"##,
                        level + 1
                    ),
                })
                .collect();
            schemas.push(format!(
                r#""L{level}": {{"type": "object", "properties": {{{}}}}}"#,
                properties.join(", ")
            ));
        }
        format!(
            r##"{{"openapi": "3.0.3", "paths": {{
              "/wide": {{"post": {{"operationId": "wide",
                "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/L0"}}}}}}}},
                "responses": {{"204": {{"description": "done"}}}}}}}},
              "/narrow/{{id}}": {{"get": {{"operationId": "narrow",
                "parameters": [{{"name": "id", "in": "path", "schema": {{"type": "string"}}}}],
                "responses": {{"200": {{"description": "ok"}}}}}}}},
              "/search?q={{q}}": {{"get": {{"operationId": "search",
                "responses": {{"200": {{"description": "ok"}}}}}}}}
            }}, "components": {{"schemas": {{{}}}}}}}"##,
            schemas.join(", ")
        )
    }

    #[test]
    fn a_ref_fan_out_is_written_bounded_and_spares_the_others() {
        let text = fan_out_document();
        assert!(text.len() < 12_000, "{}", text.len());
        let document = parse_document(&text).expect("json");
        let imported = import_openapi(&document, &options()).expect("imports");
        assert_eq!(imported.tools, ["wide", "narrow", "search"]);
        assert!(imported.skipped.is_empty(), "{:?}", imported.skipped);
        // 2.56 million fields once expanded: the body lists its forty
        // properties, each passed whole with a schema cut short, and says so.
        let wide = &imported.toml[..imported.toml.find("name = \"narrow\"").expect("narrow")];
        assert_eq!(
            wide.matches("[[gateway_tool.version.argument]]").count(),
            40
        );
        assert!(wide.len() < 64 * 1024, "{}", wide.len());
        assert!(
            imported
                .dropped
                .iter()
                .any(|d| d.operation == "wide" && d.reason.contains("cut after")),
            "{:?}",
            imported.dropped
        );
        // The query in the path key names a parameter nobody declared: it
        // is an optional text argument.
        let search = &imported.toml[imported.toml.find("name = \"search\"").expect("search")..];
        assert!(
            search.contains("name = \"q\"\nin = \"query\"\ntype = \"string\""),
            "{search}"
        );
    }

    #[test]
    fn a_yaml_alias_bomb_is_refused_as_a_whole() {
        // The adversarial run's shape: nested anchors, each level nine
        // copies of the one before.
        let mut text = String::from(
            "openapi: 3.0.0\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let mut previous = 'a';
        for name in ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] {
            let copies = vec![format!("*{previous}"); 9].join(",");
            text.push_str(&format!("{name}: &{name} [{copies}]\n"));
            previous = name;
        }
        assert!(text.len() < 400, "{}", text.len());
        let refused = parse_document(&text).expect_err("refused");
        assert!(
            refused.to_string().contains("aliases expand to more than"),
            "{refused}"
        );
    }

    #[test]
    fn names_are_cased_as_documented() {
        assert_eq!(snake("petId"), "pet_id");
        assert_eq!(snake("api_key"), "api_key");
        assert_eq!(snake("X-Request-ID"), "x_request_id");
        assert_eq!(kebab("getPetById"), "get-pet-by-id");
        assert_eq!(snake("photoUrls"), "photo_urls");
    }
}
