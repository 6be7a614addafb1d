//! Shapes public API descriptions have, which the importer once wrote as
//! configurations the checks refuse: each now imports into one that checks
//! and calls the downstream as the description says, or is left out with a
//! reason, never failing its neighbours.

use super::imported::{config, import, request};
use serde_json::json;
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema_import::{ImportOptions, Imported, import_openapi, parse_document};

const DOCUMENT: &str = r##"{
  "openapi": "3.0.3",
  "servers": [{"url": "https://api.example.com/v2"}],
  "paths": {
    "/records/{recordId}": {
      "parameters": [
        {"name": "recordId", "in": "path", "required": true, "schema": {"type": "integer"}},
        {"name": "view", "in": "query", "schema": {"type": "integer"}}
      ],
      "get": {
        "operationId": "getRecord",
        "parameters": [
          {"name": "view", "in": "query", "schema": {"type": "string", "enum": ["full", "brief"]}},
          {"name": "filter.name", "in": "query", "schema": {"type": "string"}},
          {"name": "fields", "in": "query", "style": "form", "explode": false, "schema": {"type": "string"}},
          {"name": "ids", "in": "query", "explode": false, "schema": {"type": "array", "items": {"type": "integer"}}},
          {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
          {"name": "status", "in": "query", "schema": {"type": "string"}},
          {"name": "status[]", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
          {"name": "Content-Type", "in": "header", "required": true, "schema": {"type": "string"}},
          {"name": "limit", "in": "query", "schema": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 500, "example": "ten"}}
        ],
        "responses": {"200": {"description": "ok", "content": {"application/json; charset=utf-8": {"schema": {"$ref": "#/components/schemas/Record"}}}}}
      },
      "delete": {
        "operationId": "deleteRecord",
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"reason": {"type": "string", "pattern": "(?<=x)y\\"}}}}}},
        "responses": {"204": {"description": "gone"}}
      }
    },
    "/records/{recordId}/copy": {
      "post": {
        "operationId": "get_record",
        "parameters": [{"name": "recordId", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "responses": {"201": {"description": "ok", "content": {"application/json": {"schema": {
          "$ref": "#/paths/~1records~1%7BrecordId%7D/get/responses/200/content/application~1json;%20charset=utf-8/schema"}}}}}
      }
    },
    "/search": {
      "post": {
        "operationId": "searchTheRecordsOfTheWholeArchiveByEveryFieldTheyHaveIncludingThoseNobodyEverFillsInAndThenSomeMoreToMakeThisLong",
        "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}
      }
    },
    "/ping": {
      "get": {
        "operationId": "ping",
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"deep": {"type": "boolean"}}}}}},
        "responses": {"200": {"description": "ok"}}
      }
    }
  },
  "components": {"schemas": {
    "Record": {"type": "object", "properties": {
      "id": {"type": "integer"},
      "jobId": {"type": "string"},
      "job_id": {"type": "string"},
      "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
      "parent": {"$ref": "#/components/schemas/Record"},
      "owner": {"anyOf": [{"$ref": "#/components/schemas/Person"}, {"type": "object", "properties": {"team": {"type": "string"}}}]},
      "size": {"oneOf": [{"type": "integer", "maximum": 10}, {"type": "integer", "minimum": 100}]}
    }},
    "Person": {"type": "object", "properties": {"name": {"type": "string"}}}
  }}
}"##;

fn imported() -> Imported {
    import(DOCUMENT, "records")
}

#[test]
fn every_operation_imports_into_a_configuration_that_checks() {
    let imported = imported();
    let config = config(&imported);
    let long = "search-the-records-of-the-whole-archive-by-every-field-they-have-including-those-nobody-ever-fills-in-and-then";
    assert_eq!(imported.tools.len(), 4, "{:?}", imported.skipped);
    assert_eq!(
        imported.tools[..3],
        ["get-record", "delete-record", "get-record-2"]
    );
    // Past 120 bytes a name keeps its start, and a hash of the whole after.
    let searched = &imported.tools[3];
    assert!(
        searched.len() <= 120 && searched.starts_with(long),
        "{searched}"
    );
    let hash = &searched[long.len()..];
    assert!(
        hash.len() == 9
            && hash.starts_with('_')
            && hash[1..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{searched}"
    );
    // A GET with a body is refused by the checks, so it is skipped with
    // their reason, and the rest still import.
    assert_eq!(imported.skipped.len(), 1, "{:?}", imported.skipped);
    assert!(
        imported.skipped[0]
            .reason
            .starts_with("the checks refuse what it would write")
            && imported.skipped[0].reason.contains("goes in the body"),
        "{:?}",
        imported.skipped
    );
    assert_eq!(imported.skipped[0].operation, "ping");
    assert_eq!(config.configured_tools().len(), 4);
    // What was left out of written tools is said.
    let dropped: Vec<&str> = imported.dropped.iter().map(|d| d.reason.as_str()).collect();
    assert!(
        dropped
            .iter()
            .any(|d| d.contains("example of `limit` is left out")),
        "{dropped:?}"
    );
    assert!(
        dropped
            .iter()
            .any(|d| d.contains("pattern of `reason` is left out")),
        "{dropped:?}"
    );
}

#[test]
fn queries_keep_their_names_and_the_operation_s_parameters_win() {
    let config = config(&imported());
    let sent = request(
        &config,
        "get-record",
        json!({"record_id": 7, "view": "brief", "filter_name": "ada", "fields": "id,name", "ids": [1, 2], "tags": ["a", "b"], "status": "open", "status_list": ["x", "y"], "limit": 10}),
    );
    assert_eq!(sent.segments, ["records", "7"]);
    assert_eq!(
        sent.query,
        [
            ("view".to_owned(), "brief".to_owned()),
            ("filter.name".to_owned(), "ada".to_owned()),
            ("fields".to_owned(), "id,name".to_owned()),
            // A list without explode is one parameter; one with, repeated.
            ("ids".to_owned(), "1,2".to_owned()),
            ("tags".to_owned(), "a".to_owned()),
            ("tags".to_owned(), "b".to_owned()),
            // `status` and `status[]` both: the list is `status_list`.
            ("status".to_owned(), "open".to_owned()),
            ("status[]".to_owned(), "x".to_owned()),
            ("status[]".to_owned(), "y".to_owned()),
            ("limit".to_owned(), "10".to_owned()),
        ]
    );
    // The `Content-Type` the document requires of this GET is sent
    // without a body (the document names no type: JSON's).
    assert_eq!(
        sent.headers,
        [("Content-Type".to_owned(), "application/json".to_owned())]
    );
    assert_eq!(sent.body, None);
    // The operation's `view` (a string of two values) replaced the path's
    // (an integer), and `int32` and the schema's bounds were intersected.
    let text = imported().toml;
    let view = text.find("name = \"view\"").expect("view");
    assert!(
        text[view..].contains("enum = [\"full\", \"brief\"]"),
        "{text}"
    );
    let limit = &text[text.find("name = \"limit\"").expect("limit")..];
    let limit = &limit[..limit.find("\n\n").unwrap_or(limit.len())];
    assert!(limit.contains("minimum = 1\nmaximum = 500"), "{limit}");
    assert_eq!(limit.matches("minimum").count(), 1, "{limit}");
}

#[test]
fn a_delete_sends_its_body() {
    let config = config(&imported());
    let sent = request(
        &config,
        "delete-record",
        json!({"record_id": 7, "reason": "duplicate"}),
    );
    assert_eq!(sent.body, Some(json!({"reason": "duplicate"})));
    // Without a body argument, a DELETE sends none.
    let sent = request(&config, "delete-record", json!({"record_id": 7}));
    assert_eq!(sent.body, None);
}

#[test]
fn answers_map_with_unique_names_and_recursion_passed_whole() {
    let text = imported().toml;
    // `jobId` and `job_id` read alike once cased: the later is numbered.
    assert!(
        text.contains("name = \"job_id\"\nsource = \"jobId\""),
        "{text}"
    );
    assert!(
        text.contains("name = \"job_id_2\"\nsource = \"job_id\""),
        "{text}"
    );
    // An array of arrays, and the record inside itself, are passed whole.
    assert!(text.contains("name = \"grid\"\ntype = \"array\""), "{text}");
    assert!(
        text.contains("name = \"parent\"\ntype = \"object\""),
        "{text}"
    );
    // Alternatives of one JSON type are passed whole as that type.
    assert!(
        text.contains("name = \"owner\"\ntype = \"object\""),
        "{text}"
    );
    assert!(
        text.contains("name = \"size\"\ntype = \"integer\""),
        "{text}"
    );
    // A `$ref` whose fragment is percent-encoded resolves: the copy's
    // answer maps as the record's does.
    let copy = &text[text.find("name = \"get-record-2\"").expect("copy")..];
    assert!(copy.contains("name = \"job_id_2\""), "{copy}");
}

#[test]
fn explode_applies_to_query_lists_only() {
    let text = r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "records"
base_url = "https://api.example.com"

[[gateway_tool]]
name = "find"
downstream = "records"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Finds records."
method = "GET"
path = "/records"

[[gateway_tool.version.argument]]
name = "q"
in = "query"
type = "string"
explode = false
"#;
    let errors = Config::from_toml(text, "find.toml", &Registry::new()).expect_err("refused");
    let message = errors.to_string();
    assert!(
        message.contains("gateway_tool[0].version[0].argument[0].explode")
            && message.contains("`q` is not one (a query argument `name[]`)"),
        "{message}"
    );
}

#[test]
fn a_server_s_variables_take_their_defaults() {
    let document = parse_document(
        r#"{"openapi": "3.0.0",
            "servers": [{"url": "{scheme}://{host}/v{version}", "variables": {
              "scheme": {"default": "https", "enum": ["https", "http"]},
              "host": {"default": "api.example.com"},
              "version": {"default": "3"}}}],
            "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}"#,
    )
    .expect("JSON");
    let options = ImportOptions {
        downstream: "api".to_owned(),
        ..ImportOptions::default()
    };
    let imported = import_openapi(&document, &options).expect("imports");
    assert!(
        imported
            .toml
            .contains("base_url = \"https://api.example.com/v3\""),
        "{}",
        imported.toml
    );
    // A variable without a default leaves the URL unusable: the whole
    // document is refused for one reason, which says what to do.
    let document = parse_document(
        r#"{"openapi": "3.0.0", "servers": [{"url": "https://{tenant}.example.com"}],
            "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}"#,
    )
    .expect("JSON");
    let refused = import_openapi(&document, &options).expect_err("no default");
    assert!(refused.to_string().contains("--base-url"), "{refused}");
}
