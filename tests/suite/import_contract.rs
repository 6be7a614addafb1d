//! Shapes of real API descriptions whose imported tools sent requests the
//! API's own contract refuses, or refused the API's normal answers (issue
//! on gateway calls judged by the API's contract): each document here has
//! the shape, and the test holds the tool to what the document says.

use super::imported::{config, import, request, version};
use serde_json::{Value, json};
use toolschema::project::{Mode, Profile, project_tool_as};

const DOCUMENT: &str = r##"{
  "openapi": "3.0.3",
  "servers": [{"url": "//api.example.com/v1"}],
  "paths": {
    "/widgets": {
      "post": {
        "operationId": "createWidget",
        "security": [{"apiKey": [], "clientId": []}],
        "parameters": [
          {"name": "X-Amz-Date", "in": "header", "schema": {"type": "string"}},
          {"name": "X-Amz-Security-Token", "in": "header", "schema": {"type": "string"}}
        ],
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewWidget"}}}},
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Widget"}}}}}
      },
      "head": {"operationId": "countWidgets", "responses": {"200": {"description": "ok"}}}
    },
    "/batches": {
      "post": {
        "operationId": "createBatch",
        "requestBody": {"content": {"application/json": {"schema": {"type": "array", "items": {"type": "object", "properties": {"etag": {"type": "string", "format": "byte"}, "link": {"type": "string", "format": "url"}}}}}}},
        "responses": {"204": {"description": "done"}}
      }
    },
    "/widgets/{id}/report": {
      "get": {
        "operationId": "widgetReport",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "ok", "content": {"application/xml": {"schema": {"type": "string"}}, "text/xml": {"schema": {"type": "string"}}}}}
      }
    },
    "/widgets/{id}/refresh": {
      "post": {
        "operationId": "refreshWidget",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"allOf": [{"$ref": "#/components/schemas/Id"}]}}],
        "responses": {"204": {"description": "done"}}
      }
    }
  },
  "components": {"securitySchemes": {
    "apiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
    "clientId": {"type": "apiKey", "in": "header", "name": "X-Client-Id"}
  }, "schemas": {
    "Id": {"type": "integer", "minimum": 1},
    "Num": {"type": "integer", "minimum": 3, "maximum": 9},
    "TextList": {"type": "array", "items": {"type": "string", "maxLength": 8}},
    "Color": {"type": "string", "enum": ["red", "blue"]},
    "NewWidget": {"type": "object", "required": ["name", "count"], "properties": {
      "name": {"allOf": [{"$ref": "#/components/schemas/Color"}, {"description": "The widget's color."}]},
      "count": {"allOf": [{"$ref": "#/components/schemas/Num"}]},
      "tags": {"allOf": [{"$ref": "#/components/schemas/TextList"}], "description": "Labels."},
      "labels": {"additionalProperties": {"type": "string"}},
      "sku": {"type": "object", "properties": {"code": {"type": "string"}, "lot": {"type": "integer"}}},
      "note": {"type": "string"}
    }},
    "Widget": {"type": "object", "required": ["id", "closed_at"], "properties": {
      "id": {"type": "integer"},
      "closed_at": {"type": "string", "format": "date-time", "nullable": true},
      "parts": {"allOf": [{"$ref": "#/components/schemas/TextList"}]}
    }}
  }}
}"##;

/// The tool's input and output schemas as a client in Full mode sees them.
fn shown(config: &toolschema::catalog::Config, name: &str) -> Value {
    let version = version(config, name);
    project_tool_as(version.def(), Mode::Full, Profile::Default).to_value()
}

#[test]
fn a_property_wrapped_in_all_of_keeps_its_type_and_constraints() {
    let imported = import(DOCUMENT, "widgets");
    let config = config(&imported);
    let tool = shown(&config, "create-widget");
    let properties = &tool["inputSchema"]["properties"];
    // P1: `allOf: [{$ref}]` is the referenced schema's type, with its
    // bounds, values and items, not a string.
    assert_eq!(properties["count"]["type"], "integer", "{tool}");
    assert_eq!(
        (
            &properties["count"]["minimum"],
            &properties["count"]["maximum"]
        ),
        (&json!(3), &json!(9))
    );
    assert_eq!(properties["name"]["enum"], json!(["red", "blue"]), "{tool}");
    assert_eq!(properties["tags"]["type"], "array", "{tool}");
    // A bare map (`additionalProperties` alone) is an object.
    assert_eq!(properties["labels"]["type"], "object", "{tool}");
    // A path parameter wrapped the same way.
    let refresh = shown(&config, "refresh-widget");
    assert_eq!(
        refresh["inputSchema"]["properties"]["id"]["type"], "integer",
        "{refresh}"
    );
    assert_eq!(
        refresh["inputSchema"]["properties"]["id"]["minimum"], 1,
        "{refresh}"
    );
    // The request sends the array and the object as such.
    let sent = request(
        &config,
        "create-widget",
        json!({"name": "red", "count": 4, "tags": ["a", "b"], "labels": {"k": "v"}}),
    );
    let body = sent.body.expect("a body");
    assert_eq!(body["tags"], json!(["a", "b"]), "{body}");
    assert_eq!(body["labels"], json!({"k": "v"}), "{body}");
    // An answer whose array is wrapped in `allOf` reads back.
    assert_eq!(
        tool["outputSchema"]["properties"]["parts"]["type"], "array",
        "{tool}"
    );
}

#[test]
fn a_body_s_required_properties_are_required_when_the_document_does_not_say() {
    let config = config(&import(DOCUMENT, "widgets"));
    let tool = shown(&config, "create-widget");
    // P4: `requestBody.required` absent.
    let mut required: Vec<&str> = tool["inputSchema"]["required"]
        .as_array()
        .expect("required arguments")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["count", "name"], "{tool}");
}

#[test]
fn a_post_without_a_request_body_sends_none() {
    let config = config(&import(DOCUMENT, "widgets"));
    // P3: no `{}`, and so no Content-Type.
    let sent = request(&config, "refresh-widget", json!({"id": 7}));
    assert_eq!(sent.body, None);
    assert_eq!(sent.segments, ["widgets", "7", "refresh"]);
    // An operation with body arguments still sends a body.
    let sent = request(&config, "create-widget", json!({"name": "red", "count": 3}));
    assert_eq!(sent.body, Some(json!({"name": "red", "count": 3})));
}

#[test]
fn a_required_answer_field_the_document_marks_nullable_takes_null() {
    let config = config(&import(DOCUMENT, "widgets"));
    let tool = shown(&config, "create-widget");
    // P6: GitHub's `closed_at: null` is a normal answer.
    let output = jsonschema::validator_for(&tool["outputSchema"]).expect("compiles");
    let answer = json!({"id": 1, "closed_at": null});
    assert!(output.is_valid(&answer), "{tool}");
    assert!(output.is_valid(&json!({"id": 1, "closed_at": "2026-12-05T08:00:00Z"})));
    assert!(
        !output.is_valid(&json!({"id": 1, "closed_at": 5})),
        "{tool}"
    );
}

#[test]
fn what_a_document_says_beside_its_operations_is_read_as_the_api_means_it() {
    let imported = import(DOCUMENT, "widgets");
    // A scheme-relative server is reached over HTTPS.
    assert!(
        imported
            .toml
            .contains("base_url = \"https://api.example.com/v1\""),
        "{}",
        imported.toml
    );
    // AWS's signing headers are the downstream's, not arguments.
    let tool = shown(&config(&imported), "create-widget");
    let names: Vec<&String> = tool["inputSchema"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert!(
        names
            .iter()
            .all(|name| !name.to_ascii_lowercase().contains("amz")),
        "{names:?}"
    );
    assert!(
        imported.dropped.iter().any(|d| d
            .reason
            .contains("Signature Version 4 header parameters (`X-Amz-Date`, `X-Amz-Signature`, …) are left out")),
        "{:?}",
        imported.dropped
    );
    // HEAD is said, not silently dropped.
    assert!(
        imported
            .skipped
            .iter()
            .any(|s| s.operation == "countWidgets" && s.reason.contains("headers only")),
        "{:?}",
        imported.skipped
    );
}

#[test]
fn schemes_required_together_are_all_sent() {
    // P2: `security: [{apiKey: [], clientId: []}]` needs both credentials
    // on every call; a downstream with one of them is refused (401).
    let imported = import(DOCUMENT, "widgets");
    assert!(
        imported.toml.contains(
            "[[downstream.auth]]\nkind = \"header\"\nheader = \"X-Api-Key\"\nenv = \"WIDGETS_API_KEY\"\n\n[[downstream.auth]]\nkind = \"header\"\nheader = \"X-Client-Id\"\nenv = \"WIDGETS_CLIENT_ID\""
        ),
        "{}",
        imported.toml
    );
    assert!(
        !imported
            .dropped
            .iter()
            .any(|d| d.operation == "createWidget" && d.reason.contains("together")),
        "{:?}",
        imported.dropped
    );
    let config = config(&imported);
    let tool = config
        .configured_tools()
        .iter()
        .find(|t| t.name() == "create-widget")
        .expect("imported");
    let downstream = config
        .downstream(tool.downstream())
        .expect("the tool's downstream");
    assert_eq!(downstream.id(), "widgets-api-key-client-id");
    let headers: Vec<&str> = downstream
        .auth()
        .iter()
        .map(|auth| match auth {
            toolschema_configured::Auth::Header { header, .. } => header.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(headers, ["X-Api-Key", "X-Client-Id"]);
    // Two flows of one token (Google's `Oauth2` and `Oauth2c`) send one
    // `Authorization` header, not two.
    let google = import(
        r#"{"openapi": "3.0.0", "servers": [{"url": "https://g.example"}],
          "security": [{"Oauth2": ["read"], "Oauth2c": ["read"]}],
          "paths": {"/v1/items": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}},
          "components": {"securitySchemes": {
            "Oauth2": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://g.example/a", "scopes": {"read": "r"}}}},
            "Oauth2c": {"type": "oauth2", "flows": {"authorizationCode": {"authorizationUrl": "https://g.example/a", "tokenUrl": "https://g.example/t", "scopes": {"read": "r"}}}}
          }}}"#,
        "g",
    );
    let config = super::imported::config(&google);
    let downstream = config.downstream("g-oauth2").expect("written");
    assert_eq!(
        downstream.auth(),
        [toolschema_configured::Auth::Bearer {
            env: "G_OAUTH2".to_owned()
        }]
    );
    assert!(
        google
            .dropped
            .iter()
            .any(|d| d.reason.contains("`Oauth2` and `Oauth2c` both send")),
        "{:?}",
        google.dropped
    );
}

#[test]
fn a_document_of_webhooks_only_says_what_to_import_instead() {
    let document = toolschema_import::parse_document(
        r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://x.example"}], "webhooks": {"ping": {"post": {"responses": {"200": {"description": "ok"}}}}}}"#,
    )
    .expect("JSON");
    let error = toolschema_import::import_openapi(&document, &Default::default())
        .expect_err("no operations");
    assert!(error.to_string().contains("only `webhooks`"), "{error}");
}

#[test]
fn an_operation_that_answers_in_xml_only_asks_for_xml() {
    let config = config(&import(DOCUMENT, "widgets"));
    // An XML-only operation refuses the gateway's default JSON `Accept`
    // (406): it is asked for what it answers in.
    let sent = request(&config, "widget-report", json!({"id": 2}));
    assert!(
        sent.headers
            .iter()
            .any(|(name, value)| name == "Accept" && value == "application/xml, text/xml"),
        "{:?}",
        sent.headers
    );
    // A JSON operation keeps the gateway's default.
    let sent = request(&config, "create-widget", json!({"name": "red", "count": 3}));
    assert!(
        sent.headers
            .iter()
            .all(|(name, _)| !name.eq_ignore_ascii_case("accept")),
        "{:?}",
        sent.headers
    );
}

#[test]
fn an_object_given_empty_is_sent_as_an_empty_object() {
    let config = config(&import(DOCUMENT, "widgets"));
    // P5: `"sku": {}` (its fields all optional) is an object of the body,
    // not dropped.
    let sent = request(
        &config,
        "create-widget",
        json!({"name": "red", "count": 3, "sku": {}}),
    );
    assert_eq!(
        sent.body,
        Some(json!({"name": "red", "count": 3, "sku": {}}))
    );
    let sent = request(
        &config,
        "create-widget",
        json!({"name": "red", "count": 3, "sku": {"lot": 2}}),
    );
    assert_eq!(
        sent.body,
        Some(json!({"name": "red", "count": 3, "sku": {"lot": 2}}))
    );
    // Not given, not sent.
    let sent = request(&config, "create-widget", json!({"name": "red", "count": 3}));
    assert_eq!(sent.body, Some(json!({"name": "red", "count": 3})));
}

#[test]
fn a_list_body_given_nothing_is_an_empty_list_and_its_formats_are_kept() {
    let config = config(&import(DOCUMENT, "widgets"));
    // A body that is a list, no item given: `[]`, not `{}`.
    let sent = request(&config, "create-batch", json!({}));
    assert_eq!(sent.body, Some(json!([])));
    // OpenAPI's `byte` is base64 text, its `url` JSON Schema's `uri`.
    let tool = shown(&config, "create-batch");
    let item = &tool["inputSchema"]["properties"]["items"]["items"]["properties"];
    let etag = jsonschema::validator_for(&item["etag"]).expect("compiles");
    assert!(etag.is_valid(&json!("aGVsbG8=")), "{tool}");
    assert!(!etag.is_valid(&json!("not base64!")), "{tool}");
    assert_eq!(item["link"]["format"], "uri", "{tool}");
}

#[test]
fn a_credential_header_the_document_requires_without_a_security_requirement_is_sent() {
    // brandlovers.com: a scheme defined, never named in `security`, and its
    // header a required parameter of every operation.
    let document = r##"{
      "openapi": "3.0.0",
      "servers": [{"url": "https://api.example.com"}],
      "paths": {"/orders/{id}": {"get": {
        "operationId": "getOrder",
        "parameters": [
          {"name": "authorization", "in": "header", "required": true, "schema": {"type": "string"}},
          {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "ok"}}
      }}},
      "components": {"securitySchemes": {"authorization": {"type": "apiKey", "in": "header", "name": "authorization"}}}
    }"##;
    let imported = import(document, "orders");
    assert!(
        imported
            .toml
            .contains("[downstream.auth]\nkind = \"header\"\nheader = \"authorization\""),
        "{}",
        imported.toml
    );
    assert!(
        imported.dropped.iter().any(|d| d
            .reason
            .contains("needs the header its security scheme `authorization` sends")),
        "{:?}",
        imported.dropped
    );
    // And the configuration checks.
    config(&imported);
}

#[test]
fn a_content_type_the_document_requires_is_sent_without_a_body_too() {
    // VTEX's APIs require `Content-Type` on every operation, GETs too:
    // without a body the gateway sends none unless the version says it.
    let imported = import(
        r#"{"openapi": "3.0.0", "servers": [{"url": "https://v.example"}],
          "paths": {"/reports/{id}": {
            "get": {"operationId": "report",
              "parameters": [
                {"name": "Content-Type", "in": "header", "required": true, "schema": {"type": "string", "default": "application/json"}},
                {"name": "Accept", "in": "header", "required": true, "schema": {"type": "string", "default": "application/json"}},
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "responses": {"200": {"description": "ok"}}},
            "put": {"operationId": "replace",
              "parameters": [
                {"name": "Content-Type", "in": "header", "required": true, "schema": {"type": "string", "default": "application/json"}},
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
              "responses": {"204": {"description": "done"}}}}}}"#,
        "v",
    );
    let config = config(&imported);
    let sent = request(&config, "report", json!({"id": "r1"}));
    for header in ["Content-Type", "Accept"] {
        assert!(
            sent.headers
                .iter()
                .any(|(name, value)| name == header && value == "application/json"),
            "{header}: {:?}\n{}",
            sent.headers,
            imported.toml
        );
    }
    // `Accept` is the gateway's to send, not a value for the model to
    // invent (Prism crashed on `Accept: judge`).
    let input = shown(&config, "report");
    assert_eq!(input["inputSchema"]["required"], json!(["id"]), "{input}");
    // With a body, the body's type is sent, once.
    let sent = request(&config, "replace", json!({"id": "r1", "n": 2}));
    assert!(
        !sent
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("content-type")),
        "{:?}",
        sent.headers
    );
    // And a version with a body may not name its own.
    let at = imported.toml.find("name = \"replace\"").expect("written");
    let text = format!(
        "{}{}",
        &imported.toml[..at],
        imported.toml[at..].replacen(
            "[[gateway_tool.version.argument]]\nname = \"id\"",
            "[gateway_tool.version.headers]\nContent-Type = \"text/plain\"\n\n[[gateway_tool.version.argument]]\nname = \"id\"",
            1,
        )
    );
    let errors =
        toolschema::catalog::Config::from_toml(&text, "v.toml", &toolschema::call::Registry::new())
            .expect_err("refused");
    assert!(
        errors
            .to_string()
            .contains("the gateway sets `Content-Type` itself with the body"),
        "{errors}\n{text}"
    );
}

#[test]
fn a_result_pattern_the_python_sdk_cannot_compile_is_left_out() {
    // AWS tags: `^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$`. The Python SDK checks an
    // output schema's patterns with Python's `re`, which has no `\p{…}`,
    // and refuses every call of the tool; an argument keeps its pattern.
    let imported = import(
        r#"{"openapi": "3.0.0", "servers": [{"url": "https://a.example"}],
          "paths": {"/tags": {"post": {"operationId": "tag",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "properties": {
              "key": {"type": "string", "pattern": "^([\\p{L}\\p{N}_.:/=+\\-@]*)$"}}}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {
              "key": {"type": "string", "pattern": "^([\\p{L}\\p{N}_.:/=+\\-@]*)$"},
              "tags": {"type": "object", "additionalProperties": {"type": "string", "pattern": "^\\p{L}+$"}}}}}}}}}}}}"#,
        "a",
    );
    let tool = shown(&config(&imported), "tag");
    let text = tool["outputSchema"].to_string();
    assert!(!text.contains("\\\\p{"), "{text}");
    assert_eq!(
        tool["inputSchema"]["properties"]["key"]["pattern"],
        json!("^([\\p{L}\\p{N}_.:/=+\\-@]*)$"),
        "{tool}"
    );
    assert!(
        imported
            .dropped
            .iter()
            .filter(|d| d.reason.contains("the Python SDK refuses an output schema"))
            .count()
            >= 2,
        "{:?}",
        imported.dropped
    );
}

#[test]
fn an_answer_of_any_type_is_asked_for_as_json_then_anything() {
    // Salesloft (converted from Swagger without `produces`) declares its
    // answers `*/*`: `Accept: application/json` alone got 406 from a
    // server that negotiates strictly.
    let imported = import(
        r#"{"openapi": "3.0.0", "servers": [{"url": "https://s.example"}],
          "paths": {"/stages/{id}.json": {"get": {"operationId": "stage",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok", "content": {"*/*": {"schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}}}}}}"#,
        "s",
    );
    let config = config(&imported);
    let sent = request(&config, "stage", json!({"id": 3}));
    assert_eq!(
        sent.headers,
        [("Accept".to_owned(), "application/json, */*".to_owned())]
    );
    // Its answer is still read as JSON, field by field.
    let tool = shown(&config, "stage");
    assert_eq!(
        tool["outputSchema"]["properties"]["id"]["type"],
        json!("integer"),
        "{tool}"
    );
}
