//! Swagger 2.0 documents read as the OpenAPI 3.0 documents they describe,
//! so that one importer reads both: the server from `schemes`, `host` and
//! `basePath`; `body` parameters as request bodies, `formData` ones as
//! forms; parameters' own type keywords as their schema, `collectionFormat`
//! as a style; answers' schemas under the media types the operation
//! `produces`; `definitions`, `parameters`, `responses` and
//! `securityDefinitions` under `components`, every `$ref` moved with them.

use super::read::{Read, as_array, as_bool, as_str};
use super::{ImportError, ImportErrorKind};
use toolschema_runtime::render::{Json as Value, Object as Map};

/// The keywords of a Swagger 2.0 parameter that are its value's schema.
const SCHEMA_KEYWORDS: [&str; 17] = [
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
];

/// The operations' methods an OpenAPI path item holds.
const METHODS: [&str; 7] = ["get", "put", "post", "delete", "patch", "head", "options"];

/// The OpenAPI 3.0 document a Swagger 2.0 document describes.
pub(super) fn to_openapi(swagger: &Value) -> Result<Value, ImportError> {
    let version = swagger.get("swagger").and_then(as_str).unwrap_or_default();
    if version != "2.0" {
        return Err(ImportError::new(
            ImportErrorKind::Unsupported,
            format!(
                "only Swagger 2.0 is read of the Swagger versions (this document says `swagger: {version}`); convert it to OpenAPI 3 first"
            ),
        ));
    }
    let mut out = Map::new();
    out.insert("openapi", "3.0.3");
    if let Some(info) = swagger.get("info") {
        out.insert("info", info.clone());
    }
    if let Some(url) = server_url(swagger) {
        let mut server = Map::new();
        server.insert("url", url);
        out.insert("servers", vec![Value::Object(server)]);
    }
    let consumes = media_types(swagger.get("consumes"));
    let produces = media_types(swagger.get("produces"));
    let shared = Shared {
        swagger,
        consumes: &consumes,
        produces: &produces,
    };
    let mut paths = Map::new();
    for (path, item) in swagger
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.iter())
    {
        paths.insert(path.to_owned(), shared.path_item(item));
    }
    out.insert("paths", paths);
    let mut components = Map::new();
    for (from, to) in [
        ("definitions", "schemas"),
        ("securityDefinitions", "securitySchemes"),
    ] {
        if let Some(Value::Object(entries)) = swagger.get(from) {
            let mut converted = Map::new();
            for (name, entry) in entries.iter() {
                let entry = match from {
                    "definitions" => moved(entry),
                    _ => security_scheme(entry),
                };
                converted.insert(name.to_owned(), entry);
            }
            components.insert(to, converted);
        }
    }
    if let Some(Value::Object(responses)) = swagger.get("responses") {
        let mut converted = Map::new();
        for (name, response) in responses.iter() {
            converted.insert(name.to_owned(), response_of(response, &produces));
        }
        components.insert("responses", converted);
    }
    out.insert("components", components);
    if let Some(security) = swagger.get("security") {
        out.insert("security", security.clone());
    }
    Ok(Value::Object(out))
}

/// `scheme://host/basePath`: `https` when the document lists it (or lists
/// none), else its first scheme. Without a host the path alone, which the
/// importer then asks a base URL for.
fn server_url(swagger: &Value) -> Option<String> {
    let base_path = swagger
        .get("basePath")
        .and_then(as_str)
        .unwrap_or_default()
        .trim_end_matches('/');
    let Some(host) = swagger.get("host").and_then(as_str) else {
        return (!base_path.is_empty()).then(|| base_path.to_owned());
    };
    let schemes: Vec<&str> = swagger
        .get("schemes")
        .and_then(as_array)
        .into_iter()
        .flatten()
        .filter_map(as_str)
        .collect();
    let scheme = if schemes.is_empty() || schemes.contains(&"https") {
        "https"
    } else {
        schemes[0]
    };
    Some(format!("{scheme}://{host}{base_path}"))
}

fn media_types(list: Option<&Value>) -> Vec<String> {
    list.and_then(as_array)
        .into_iter()
        .flatten()
        .filter_map(as_str)
        .map(str::to_owned)
        .collect()
}

/// What every operation reads of the document.
struct Shared<'a> {
    swagger: &'a Value,
    consumes: &'a [String],
    produces: &'a [String],
}

impl Shared<'_> {
    fn path_item(&self, item: &Value) -> Value {
        let mut out = Map::new();
        let shared: Vec<Value> = item
            .get("parameters")
            .and_then(as_array)
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                out.insert(method, self.operation(operation, &shared));
            }
        }
        Value::Object(out)
    }

    fn operation(&self, operation: &Value, shared: &[Value]) -> Value {
        let mut out = Map::new();
        for key in [
            "operationId",
            "summary",
            "description",
            "tags",
            "deprecated",
            "security",
        ] {
            if let Some(value) = operation.get(key) {
                out.insert(key, value.clone());
            }
        }
        let consumes = match media_types(operation.get("consumes")) {
            own if own.is_empty() => self.consumes.to_vec(),
            own => own,
        };
        let produces = match media_types(operation.get("produces")) {
            own if own.is_empty() => self.produces.to_vec(),
            own => own,
        };
        // The operation's parameter replaces the path item's of the same
        // name and place.
        let mut parameters: Vec<Value> = Vec::new();
        let key = |p: &Value| {
            (
                p.get("name").and_then(as_str).map(str::to_owned),
                p.get("in").and_then(as_str).map(str::to_owned),
            )
        };
        let own = operation.get("parameters").and_then(as_array);
        for parameter in shared.iter().chain(own.into_iter().flatten()) {
            let parameter = self.parameter(parameter);
            parameters.retain(|earlier| key(earlier) != key(&parameter));
            parameters.push(parameter);
        }
        let mut converted = Vec::new();
        let mut form = Map::new();
        let mut form_required = Vec::new();
        for parameter in parameters {
            match parameter.get("in").and_then(as_str) {
                Some("body") => {
                    out.insert("requestBody", request_body(&parameter, &consumes));
                }
                Some("formData") => {
                    let name = parameter.get("name").and_then(as_str).unwrap_or_default();
                    if parameter.get("required").and_then(as_bool) == Some(true) {
                        form_required.push(Value::from(name.to_owned()));
                    }
                    form.insert(name.to_owned(), value_schema(&parameter));
                }
                _ => converted.push(plain_parameter(&parameter)),
            }
        }
        if !form.is_empty() {
            let kind = if consumes.iter().any(|c| c.starts_with("multipart/")) {
                "multipart/form-data"
            } else {
                "application/x-www-form-urlencoded"
            };
            let mut schema = Map::new();
            schema.insert("type", "object");
            schema.insert("properties", form);
            if !form_required.is_empty() {
                schema.insert("required", form_required);
            }
            let mut media = Map::new();
            media.insert("schema", schema);
            let mut content = Map::new();
            content.insert(kind, media);
            let mut body = Map::new();
            body.insert("content", content);
            out.insert("requestBody", body);
        }
        if !converted.is_empty() {
            out.insert("parameters", converted);
        }
        let mut responses = Map::new();
        for (code, response) in operation
            .get("responses")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|r| r.iter())
        {
            responses.insert(code.to_owned(), response_of(response, &produces));
        }
        out.insert("responses", responses);
        Value::Object(out)
    }

    /// A parameter, its `$ref` (to the document's `parameters`) followed.
    fn parameter(&self, parameter: &Value) -> Value {
        let mut parameter = parameter;
        for _ in 0..8 {
            let Some(reference) = parameter.get("$ref").and_then(as_str) else {
                break;
            };
            let Some(found) = reference
                .strip_prefix('#')
                .and_then(|pointer| self.swagger.pointer(pointer))
            else {
                break;
            };
            parameter = found;
        }
        parameter.clone()
    }
}

/// A response: its schema under each media type the operation
/// produces (JSON when it says none), a `$ref` moved to `components`.
fn response_of(response: &Value, produces: &[String]) -> Value {
    if let Some(reference) = response.get("$ref").and_then(as_str) {
        let mut out = Map::new();
        out.insert("$ref", moved_reference(reference));
        return Value::Object(out);
    }
    let mut out = Map::new();
    out.insert(
        "description",
        response
            .get("description")
            .cloned()
            .unwrap_or_else(|| Value::from("")),
    );
    if let Some(schema) = response.get("schema") {
        out.insert("content", content(&moved(schema), produces));
    }
    Value::Object(out)
}

/// `{media type: {schema}}` for each media type, `application/json`
/// when there are none.
fn content(schema: &Value, media_types: &[String]) -> Map {
    let mut content = Map::new();
    let defaults = ["application/json".to_owned()];
    let kinds = if media_types.is_empty() {
        &defaults[..]
    } else {
        media_types
    };
    for kind in kinds {
        let mut media = Map::new();
        media.insert("schema", schema.clone());
        content.insert(kind.clone(), media);
    }
    content
}

fn request_body(parameter: &Value, consumes: &[String]) -> Value {
    let mut body = Map::new();
    if let Some(description) = parameter.get("description") {
        body.insert("description", description.clone());
    }
    if let Some(required) = parameter.get("required") {
        body.insert("required", required.clone());
    }
    let schema = parameter
        .get("schema")
        .map_or_else(|| Value::Object(Map::new()), moved);
    body.insert("content", content(&schema, consumes));
    Value::Object(body)
}

/// A path, query or header parameter: its type keywords as its schema,
/// `collectionFormat` as its style.
fn plain_parameter(parameter: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "in", "description", "required"] {
        if let Some(value) = parameter.get(key) {
            out.insert(key, value.clone());
        }
    }
    let location = parameter.get("in").and_then(as_str).unwrap_or_default();
    if parameter.get("type").and_then(as_str) == Some("array") {
        // Swagger's default is `csv`: values joined by commas.
        match parameter.get("collectionFormat").and_then(as_str) {
            Some("multi") => {
                out.insert("style", "form");
                out.insert("explode", true);
            }
            Some("ssv") => {
                out.insert("style", "spaceDelimited");
                out.insert("explode", false);
            }
            Some("pipes") => {
                out.insert("style", "pipeDelimited");
                out.insert("explode", false);
            }
            Some("tsv") => {
                out.insert("style", "tabDelimited");
                out.insert("explode", false);
            }
            _ if location == "query" => {
                out.insert("style", "form");
                out.insert("explode", false);
            }
            _ => {}
        }
    }
    out.insert("schema", value_schema(parameter));
    Value::Object(out)
}

/// The schema of a non-body parameter's value, from its own keywords
/// (`type: file` is a binary string).
fn value_schema(parameter: &Value) -> Value {
    let mut schema = Map::new();
    for key in SCHEMA_KEYWORDS {
        if let Some(value) = parameter.get(key) {
            match (key, value) {
                ("items", items) => schema.insert(key, value_schema(items)),
                ("type", Value::String(kind)) if &**kind == "file" => {
                    schema.insert("type", "string");
                    schema.insert("format", "binary");
                }
                ("x-nullable", nullable) => schema.insert("nullable", nullable.clone()),
                _ => schema.insert(key, value.clone()),
            }
        }
    }
    Value::Object(schema)
}

fn security_scheme(scheme: &Value) -> Value {
    let mut out = Map::new();
    match scheme.get("type").and_then(as_str) {
        Some("basic") => {
            out.insert("type", "http");
            out.insert("scheme", "basic");
        }
        Some("apiKey") => {
            out.insert("type", "apiKey");
            for key in ["name", "in"] {
                if let Some(value) = scheme.get(key) {
                    out.insert(key, value.clone());
                }
            }
        }
        Some("oauth2") => {
            out.insert("type", "oauth2");
            out.insert("flows", Map::new());
        }
        _ => return scheme.clone(),
    }
    if let Some(description) = scheme.get("description") {
        out.insert("description", description.clone());
    }
    Value::Object(out)
}

/// `value` with every `$ref` into Swagger's sections moved to the
/// `components` section that holds them now, and `x-nullable` read as
/// `nullable`.
fn moved(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, inner) in map.iter() {
                match (key, inner) {
                    ("$ref", Value::String(reference)) => {
                        out.insert("$ref", moved_reference(reference));
                    }
                    ("x-nullable", nullable) => out.insert("nullable", nullable.clone()),
                    _ => out.insert(key.to_owned(), moved(inner)),
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(moved).collect()),
        other => other.clone(),
    }
}

fn moved_reference(reference: &str) -> String {
    for (from, to) in [
        ("#/definitions/", "#/components/schemas/"),
        ("#/parameters/", "#/components/parameters/"),
        ("#/responses/", "#/components/responses/"),
    ] {
        if let Some(rest) = reference.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    reference.to_owned()
}
