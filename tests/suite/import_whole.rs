//! Bodies and paths public API descriptions have that do not flatten into
//! one argument per leaf: a body of several shapes or of one value, a body
//! too large to list field by field, values of mixed types, and paths that
//! carry a fragment or a query. Each imports into a configuration that
//! checks, advertises the schema the description gives, and sends what
//! the description says.

use super::imported::{config, import, request, version};
use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema::project::{Mode, project_tool};
use toolschema::validate::{InputValidator, Limits};
use toolschema_import::Imported;

/// Sixty-five properties, past what the importer lists field by field.
fn wide_properties() -> Value {
    let mut properties = serde_json::Map::new();
    for i in 0..65 {
        properties.insert(format!("field{i}"), json!({"type": "string"}));
    }
    properties.insert(
        "address".to_owned(),
        json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"},
            "geo": {"type": "object", "properties": {"lat": {"type": "number"}}}}}),
    );
    Value::Object(properties)
}

fn document() -> Value {
    json!({
      "openapi": "3.0.1",
      "servers": [{"url": "https://api.example.com"}],
      "paths": {
        "/#X-Amz-Target=Store.PutItem": {"post": {
          "operationId": "PutItem",
          "parameters": [
            {"name": "X-Amz-Target", "in": "header", "required": true,
             "schema": {"type": "string", "enum": ["Store.PutItem"]}}],
          "requestBody": {"required": true, "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/PutItemInput"}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/#Action=ListItems": {"get": {
          "operationId": "ListItems",
          "parameters": [
            {"name": "Action", "in": "query", "required": true, "schema": {"type": "string", "enum": ["ListItems"]}},
            {"name": "Version", "in": "query", "required": true, "schema": {"type": "string", "enum": ["2020-01-01"]}},
            {"name": "Limit", "in": "query", "schema": {"type": "integer"}}],
          "responses": {"200": {"description": "ok"}}}},
        "/jobs?op=LIST": {"get": {
          "operationId": "listJobs",
          "responses": {"200": {"description": "ok"}}}},
        "/export?filename={filename}": {"get": {
          "operationId": "export",
          "parameters": [{"name": "filename", "in": "path", "required": true, "schema": {"type": "string"}}],
          "responses": {"200": {"description": "ok"}}}},
        "/shapes": {"post": {
          "operationId": "postShape",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}},
            {"type": "array", "items": {"type": "string"}}]}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/notes": {"put": {
          "operationId": "putNote",
          "requestBody": {"content": {"application/json": {"schema": {"type": "string", "maxLength": 10}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/people": {"post": {
          "operationId": "createPerson",
          "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {
              "name": {"type": "string"},
              "nickname": {"type": "string", "nullable": true},
              "active": {"type": "bool"},
              "score": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/login": {"post": {
          "operationId": "login",
          "security": [{"key": []}],
          "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object", "required": ["user"], "properties": {
              "user": {"type": "string"},
              "roles": {"type": "array", "items": {"type": "string"}}}}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/profile": {"post": {
          "operationId": "setProfile",
          "security": [{"ghost": []}],
          "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object", "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}},
          "responses": {"200": {"description": "ok"}}}},
        "/people{?names}": {"get": {
          "operationId": "findPeople",
          "security": [{"ghost": []}],
          "parameters": [{"name": "names", "in": "query", "schema": {"type": "string"}}],
          "responses": {"200": {"description": "ok"}}}},
        "/wide": {"post": {
          "operationId": "postWide",
          "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": wide_properties()}}}},
          "responses": {"200": {"description": "ok"}}}}
      },
      "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"}},
        "schemas": {
        "PutItemInput": {"type": "object", "required": ["TableName"], "properties": {
          "TableName": {"type": "string"},
          "Item": {"$ref": "#/components/schemas/Attributes"}}},
        "Attributes": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Value"}},
        "Value": {"type": "object", "properties": {
          "S": {"type": "string"},
          "L": {"type": "array", "items": {"$ref": "#/components/schemas/Value"}}}}
      }}
    })
}

fn imported() -> Imported {
    import(&document().to_string(), "api")
}

/// The Full input schema clients are shown.
fn input_schema(config: &Config, name: &str) -> Value {
    let version = version(config, name);
    project_tool(version.def(), Mode::Full).to_value()["inputSchema"].clone()
}

#[test]
fn every_operation_imports_and_checks() {
    let imported = imported();
    let config = config(&imported);
    // A form of objects is the one operation a form cannot carry.
    assert_eq!(imported.skipped.len(), 1, "{:?}", imported.skipped);
    assert_eq!(imported.skipped[0].operation, "setProfile");
    assert!(
        imported.skipped[0]
            .reason
            .contains("the form field `address.city` holds more than a value"),
        "{:?}",
        imported.skipped
    );
    assert_eq!(config.configured_tools().len(), 10, "{}", imported.toml);
}

#[test]
fn a_form_body_and_a_key_in_the_query_are_written_as_the_description_says() {
    let imported = imported();
    let config = config(&imported);
    let text = &imported.toml;
    assert!(
        text.contains(
            "[downstream.auth]\nkind = \"query\"\nparam = \"api_key\"\nenv = \"API_KEY\""
        ),
        "{text}"
    );
    let login = &text[text.find("name = \"login\"").expect("login")..];
    assert!(login.contains("encoding = \"form\""), "{login}");
    // A type JSON Schema does not name takes any value.
    let person = &text[text
        .find("name = \"create-person\"")
        .expect("create-person")..];
    assert!(
        person.contains("name = \"active\"\nin = \"body\"\ntype = \"any\""),
        "{person}"
    );
    let sent = request(
        &config,
        "login",
        json!({"user": "ada", "roles": ["a", "b"]}),
    );
    assert_eq!(sent.body, Some(json!({"user": "ada", "roles": ["a", "b"]})));
    // A scheme named and never defined: written without credentials, said.
    assert!(
        imported.dropped.iter().any(|d| d.operation == "findPeople"
            && d.reason.contains("security scheme `ghost` is not defined")),
        "{:?}",
        imported.dropped
    );
    // A URI template's query expansion leaves the path before it.
    let sent = request(&config, "find-people", json!({"names": "x"}));
    assert_eq!(sent.segments, ["people"]);
    assert_eq!(sent.query, [("names".to_owned(), "x".to_owned())]);
}

#[test]
fn a_fragment_is_never_sent_and_a_parameter_of_one_value_is_sent_with_every_call() {
    let config = config(&imported());
    let sent = request(
        &config,
        "put-item",
        json!({"table_name": "t", "item": {"k": {"S": "v"}}}),
    );
    // The path is `/`, the fragment left out.
    assert_eq!(sent.segments, [""]);
    assert_eq!(
        sent.headers,
        [("X-Amz-Target".to_owned(), "Store.PutItem".to_owned())]
    );
    assert_eq!(
        sent.body,
        Some(json!({"TableName": "t", "Item": {"k": {"S": "v"}}}))
    );
    // The client is not asked for what is fixed.
    let schema = input_schema(&config, "put-item");
    assert!(
        schema["properties"].get("x_amz_target").is_none(),
        "{schema}"
    );

    let sent = request(&config, "list-items", json!({"limit": 5}));
    assert_eq!(
        sent.query,
        [
            ("Action".to_owned(), "ListItems".to_owned()),
            ("Version".to_owned(), "2020-01-01".to_owned()),
            ("Limit".to_owned(), "5".to_owned()),
        ]
    );
}

#[test]
fn a_query_in_the_path_key_is_sent_as_query_parameters() {
    let config = config(&imported());
    let sent = request(&config, "list-jobs", json!({}));
    assert_eq!(sent.segments, ["jobs"]);
    assert_eq!(sent.query, [("op".to_owned(), "LIST".to_owned())]);
    let sent = request(&config, "export", json!({"filename": "a b.csv"}));
    assert_eq!(sent.segments, ["export"]);
    assert_eq!(sent.query, [("filename".to_owned(), "a b.csv".to_owned())]);
}

#[test]
fn a_body_of_several_shapes_or_one_value_is_one_argument_sent_whole() {
    let config = config(&imported());
    let schema = input_schema(&config, "post-shape");
    assert_eq!(schema["required"], json!(["body"]), "{schema}");
    let body = &schema["properties"]["body"];
    // The description's alternatives, as JSON Schema 2020-12 reads them
    // (OpenAPI 3.0's boolean `exclusiveMinimum` turned into a bound).
    assert_eq!(
        body["oneOf"][0]["properties"]["id"],
        json!({"type": "integer", "exclusiveMinimum": 0}),
        "{body}"
    );
    assert_eq!(body["oneOf"][1]["items"], json!({"type": "string"}));
    for value in [json!({"id": 3}), json!(["a", "b"])] {
        let sent = request(&config, "post-shape", json!({"body": value}));
        assert_eq!(sent.body, Some(value));
    }
    let sent = request(&config, "put-note", json!({"body": "remember"}));
    assert_eq!(sent.body, Some(json!("remember")));
    let schema = input_schema(&config, "put-note");
    assert_eq!(
        schema["properties"]["body"],
        json!({"type": "string", "maxLength": 10})
    );
}

#[test]
fn values_of_mixed_types_keep_their_schema_and_nullable_reads_as_null() {
    let config = config(&imported());
    let schema = input_schema(&config, "create-person");
    assert_eq!(
        schema["properties"]["score"],
        json!({"oneOf": [{"type": "integer"}, {"type": "string"}]}),
        "{schema}"
    );
    let sent = request(
        &config,
        "create-person",
        json!({"name": "Ada", "score": "high"}),
    );
    assert_eq!(sent.body, Some(json!({"name": "Ada", "score": "high"})));
}

#[test]
fn a_schema_that_contains_itself_is_written_once_more_then_stands_open() {
    let config = config(&imported());
    let schema = input_schema(&config, "put-item");
    let value = &schema["properties"]["item"]["additionalProperties"];
    assert_eq!(
        value["properties"]["S"],
        json!({"type": "string"}),
        "{schema}"
    );
    // Where `Value` comes back inside itself, any value stands.
    assert_eq!(value["properties"]["L"]["items"], json!({}), "{schema}");
}

#[test]
fn a_wide_body_lists_its_properties_and_passes_objects_below_whole() {
    let imported = imported();
    let config = config(&imported);
    let schema = input_schema(&config, "post-wide");
    let properties = schema["properties"].as_object().expect("object");
    assert_eq!(properties.len(), 66, "{schema}");
    assert_eq!(
        properties["address"],
        json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"},
            "geo": {"type": "object", "properties": {"lat": {"type": "number"}}}}})
    );
    // Names inside a value passed whole are the API's own, both ways.
    let address = json!({"city": "Oslo", "geo": {"lat": 59.9}});
    let sent = request(
        &config,
        "post-wide",
        json!({"field0": "a", "address": address}),
    );
    assert_eq!(sent.body, Some(json!({"field0": "a", "address": address})));
}

#[test]
fn a_value_passed_whole_is_validated_against_its_schema() {
    let config = config(&imported());
    let shape = version(&config, "post-shape");
    let validator = InputValidator::new(shape.def(), Limits::default());
    for good in [json!({"body": {"id": 1}}), json!({"body": ["x"]})] {
        validator
            .check_value(good.clone())
            .unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    // `id` must be above 0, and a list holds strings.
    for bad in [
        json!({"body": {"id": 0}}),
        json!({"body": [1]}),
        json!({"body": "x"}),
    ] {
        let refused = validator.check_value(bad.clone()).expect_err("refused");
        assert!(refused.to_string().contains("body"), "{bad}: {refused}");
    }
    let person = version(&config, "create-person");
    let validator = InputValidator::new(person.def(), Limits::default());
    validator
        .check_value(json!({"score": 3}))
        .expect("an integer score");
    validator
        .check_value(json!({"score": true}))
        .expect_err("a boolean score");
}

/// A configuration with a mistake in each whole value and fixed
/// parameter: tool `put`, a keyed downstream, tools `send` and `post`.
const MISWRITTEN: &str = r##"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "api"
base_url = "https://api.example.com"

[[gateway_tool]]
name = "put"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Puts."
method = "POST"
path = "/put"
headers = { "X-Target" = "Store.Put", Authorization = "secret" }
query = { Action = "Put" }

[[gateway_tool.version.argument]]
name = "a"
type = "object"
schema = '{"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}'

[[gateway_tool.version.argument]]
name = "c"
type = "object"
schema = '{"type": "string"}'

[[gateway_tool.version.argument]]
name = "d"
type = "string"
pattern = "^x"
schema = '{"type": "string"}'

[[gateway_tool.version.argument]]
name = "e"
type = "any"
schema = '{"oneOf": [1'

[[gateway_tool.version.argument]]
name = "body"
source = "."
type = "any"

[[gateway_tool.version.argument]]
name = "f"
type = "string"

[[gateway_tool.version.argument]]
name = "target"
source = "x-target"
in = "header"
type = "string"

[[gateway_tool.version.argument]]
name = "action"
source = "Action"
in = "query"
type = "string"

[[gateway_tool.version.argument]]
name = "g"
type = "object"
schema = '{"type": "object"}'

[[gateway_tool.version.argument]]
name = "g.h"
type = "string"

[[downstream]]
id = "keyed"
base_url = "https://api.example.com"
auth = { kind = "query", env = "KEYED_KEY" }

[[gateway_tool]]
name = "send"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Sends a form."
method = "POST"
path = "/send"
encoding = "form"

[[gateway_tool.version.argument]]
name = "who.name"
type = "string"

[[gateway_tool]]
name = "post"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Posts XML."
method = "POST"
path = "/post"
encoding = "xml"
"##;

#[test]
fn whole_values_and_fixed_parameters_are_checked_where_they_are_written() {
    let text = MISWRITTEN;
    let errors = Config::from_toml(text, "put.toml", &Registry::new()).expect_err("refused");
    let message = errors.to_string();
    let at = |n: usize| format!("gateway_tool[0].version[0].argument[{n}]");
    for (place, says) in [
        (format!("{}.schema", at(0)), "has a `$ref` (`#/$defs/B`)"),
        (
            format!("{}.schema", at(1)),
            "says `\"type\": \"string\"`, and the field is an object",
        ),
        (
            format!("{}.schema", at(2)),
            "`pattern` is written beside it",
        ),
        (format!("{}.schema", at(3)), "is not JSON text"),
        // The whole body is one value: no other argument goes in it.
        (
            format!("{}.source", at(5)),
            "`body` and `f` write to the same place",
        ),
        (
            format!("{}.source", at(6)),
            "`x-target` is sent with every call (the version's `headers`)",
        ),
        (
            format!("{}.source", at(7)),
            "`Action` is sent with every call (the version's `query`)",
        ),
        (
            format!("{}.name", at(8)),
            "`g` states its whole `schema`, and other fields go inside it",
        ),
        (
            "gateway_tool[0].version[0].headers".to_owned(),
            "credentials are never written in the configuration",
        ),
        (
            "downstream[1].auth.param".to_owned(),
            "`kind = \"query\"` needs `param`",
        ),
        (
            "gateway_tool[1].version[0].argument[0].source".to_owned(),
            "`who.name` goes in a form, whose fields each hold one string",
        ),
        (
            "gateway_tool[2].version[0].encoding".to_owned(),
            "unknown encoding `xml`; use json or form",
        ),
    ] {
        assert!(
            message
                .lines()
                .any(|line| line.contains(&place) && line.contains(says)),
            "{place}: {says}\n{message}"
        );
    }
}
