//! Swagger 2.0 documents import as the OpenAPI 3.0 documents they
//! describe: server, body and form parameters, parameters' own type
//! keywords, `collectionFormat`, `definitions`, shared parameters and
//! answers, security definitions.

use super::imported::{config, import, request};
use serde_json::json;
use toolschema_import::{ImportOptions, Imported, import_openapi, parse_document};

const DOCUMENT: &str = r##"
swagger: "2.0"
info: {title: Shelter, version: "1.0"}
host: pets.example.com
basePath: /v1/
schemes: [http, https]
consumes: [application/json]
produces: [application/json]
securityDefinitions:
  key: {type: apiKey, in: header, name: X-Api-Key}
security: [{key: []}]
parameters:
  limit: {name: limit, in: query, type: integer, format: int32, minimum: 1, maximum: 100}
responses:
  Pets:
    description: pets
    schema: {type: array, items: {$ref: "#/definitions/Pet"}}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - $ref: "#/parameters/limit"
        - {name: tags, in: query, type: array, items: {type: string}}
        - {name: ids, in: query, type: array, collectionFormat: multi, items: {type: integer}}
      responses:
        "200": {$ref: "#/responses/Pets"}
    post:
      operationId: addPet
      parameters:
        - {name: pet, in: body, required: true, schema: {$ref: "#/definitions/NewPet"}}
      responses:
        "201": {description: made, schema: {$ref: "#/definitions/Pet"}}
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, type: string}
    put:
      operationId: updatePet
      parameters:
        - {name: X-Request-Id, in: header, type: string}
        - {name: pet, in: body, schema: {$ref: "#/definitions/NewPet"}}
      responses:
        "200": {description: ok}
    delete:
      operationId: deletePet
      responses:
        "204": {description: gone}
  /pets/{petId}/photo:
    post:
      operationId: uploadPhoto
      consumes: [multipart/form-data]
      parameters:
        - {name: petId, in: path, required: true, type: string}
        - {name: file, in: formData, type: file, required: true}
      responses:
        "200": {description: ok}
definitions:
  NewPet:
    type: object
    required: [name]
    properties:
      name: {type: string, maxLength: 40}
      nickname: {type: string, x-nullable: true}
      birthday: {type: string, format: date}
  Pet:
    allOf:
      - $ref: "#/definitions/NewPet"
      - {type: object, properties: {id: {type: integer, format: int64}}}
"##;

fn imported() -> Imported {
    import(DOCUMENT, "shelter")
}

#[test]
fn a_swagger_document_imports_as_the_openapi_one_it_describes() {
    let imported = imported();
    let config = config(&imported);
    assert_eq!(
        imported.tools,
        ["list-pets", "add-pet", "update-pet", "delete-pet"],
        "{:?}",
        imported.skipped
    );
    // A form carrying a file is skipped, and says why.
    assert_eq!(imported.skipped.len(), 1);
    assert_eq!(imported.skipped[0].operation, "uploadPhoto");
    assert!(
        imported.skipped[0].reason.contains("multipart/form-data"),
        "{:?}",
        imported.skipped
    );
    // `https` is chosen among the schemes; the base path's slash is one.
    assert!(
        imported
            .toml
            .contains("base_url = \"https://pets.example.com/v1\""),
        "{}",
        imported.toml
    );
    // The API key goes in its header, from the environment.
    assert!(
        imported.toml.contains(
            "[downstream.auth]\nkind = \"header\"\nheader = \"X-Api-Key\"\nenv = \"SHELTER_KEY\""
        ),
        "{}",
        imported.toml
    );
    assert_eq!(config.configured_tools().len(), 4);
}

#[test]
fn parameters_keep_their_types_and_collection_formats() {
    let imported = imported();
    let config = config(&imported);
    let sent = request(
        &config,
        "list-pets",
        json!({"limit": 5, "tags": ["a", "b"], "ids": [1, 2]}),
    );
    assert_eq!(
        sent.query,
        [
            ("limit".to_owned(), "5".to_owned()),
            // `csv`, Swagger's default: one parameter.
            ("tags".to_owned(), "a,b".to_owned()),
            // `multi`: the parameter repeated.
            ("ids".to_owned(), "1".to_owned()),
            ("ids".to_owned(), "2".to_owned()),
        ]
    );
    // The shared parameter's bounds are kept.
    let text = &imported.toml;
    let limit = &text[text.find("name = \"limit\"").expect("limit")..];
    assert!(limit.contains("minimum = 1\nmaximum = 100"), "{limit}");
    let sent = request(
        &config,
        "update-pet",
        json!({"pet_id": "p1", "x_request_id": "r", "name": "Rex", "nickname": "R"}),
    );
    assert_eq!(sent.segments, ["pets", "p1"]);
    assert_eq!(sent.headers, [("X-Request-Id".to_owned(), "r".to_owned())]);
    assert_eq!(sent.body, Some(json!({"name": "Rex", "nickname": "R"})));
}

#[test]
fn bodies_and_answers_come_from_definitions() {
    let imported = imported();
    let config = config(&imported);
    let sent = request(
        &config,
        "add-pet",
        json!({"name": "Rex", "birthday": "2020-02-29"}),
    );
    assert_eq!(
        sent.body,
        Some(json!({"name": "Rex", "birthday": "2020-02-29"}))
    );
    let text = &imported.toml;
    let add = &text[text.find("name = \"add-pet\"").expect("add-pet")..];
    let add = &add[..add.find("[[gateway_tool]]").unwrap_or(add.len())];
    // The body's required name, its bound and format; the answer's
    // fields from both parts of its `allOf`.
    assert!(
        add.contains("name = \"name\"\ntype = \"string\"\nrequired = true\nmax_length = 40"),
        "{add}"
    );
    assert!(add.contains("format = \"date\""), "{add}");
    assert!(
        add.contains("[[gateway_tool.version.result]]\nname = \"id\"\ntype = \"integer\""),
        "{add}"
    );
    let list = &text[text.find("name = \"list-pets\"").expect("list-pets")..];
    // A shared answer (`#/responses/Pets`), a list of pets.
    assert!(
        list.contains("name = \"items[].id\"\nsource = \"[].id\""),
        "{list}"
    );
}

#[test]
fn other_swagger_versions_are_refused_with_what_to_do() {
    let document = parse_document(r#"{"swagger": "1.2", "apis": []}"#).expect("JSON");
    let refused = import_openapi(&document, &ImportOptions::default()).expect_err("1.2");
    assert!(
        refused.to_string().contains("convert it to OpenAPI 3"),
        "{refused}"
    );
}

#[test]
fn a_byte_order_mark_is_read_past() {
    let text = format!(
        "\u{feff}{}",
        r#"{"swagger": "2.0", "host": "a.example", "paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}"#
    );
    let imported = import(&text, "a");
    assert_eq!(imported.tools, ["ping"]);
}
