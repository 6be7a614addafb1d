//! Every rendered schema is a valid JSON Schema 2020-12 document, and every
//! tool is a valid MCP `Tool` of each protocol version that uses 2020-12.

use crate::support::violations;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::corpus;

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The MCP schema document of a protocol version.
fn spec_document(version: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/spec/mcp")
        .join(version)
        .join("schema.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).expect("MCP schema is JSON")
}

/// A validator for one definition of an MCP schema version, whichever
/// dialect the version uses (2025-06-18 is draft-07 with `definitions`).
pub fn spec_validator(version: &str, definition: &str) -> jsonschema::Validator {
    let document = spec_document(version);
    match document.get("definitions") {
        Some(definitions) => jsonschema::draft7::new(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": definitions,
            "$ref": format!("#/definitions/{definition}"),
        }))
        .expect("MCP schema compiles"),
        None => jsonschema::draft202012::new(&json!({
            "$schema": DRAFT_2020_12,
            "$defs": document["$defs"],
            "$ref": format!("#/$defs/{definition}"),
        }))
        .expect("MCP schema compiles"),
    }
}

fn assert_meta_valid(name: &str, schema: &Value) {
    let mut schema = schema.clone();
    schema
        .as_object_mut()
        .expect("schemas are objects")
        .insert("$schema".into(), DRAFT_2020_12.into());
    if let Err(error) = jsonschema::meta::validate(&schema) {
        panic!("{name}: not a valid 2020-12 schema: {error}");
    }
    // A schema that the validator cannot compile (a bad `$ref`, say) fails here.
    if let Err(error) = jsonschema::draft202012::new(&schema) {
        panic!("{name}: does not compile: {error}");
    }
}

#[test]
fn every_schema_is_valid_2020_12() {
    for entry in corpus::schemas() {
        assert_meta_valid(entry.name, &entry.json.to_value());
    }
    for entry in corpus::tools() {
        let tool = entry.json.to_value();
        assert_meta_valid(entry.name, &tool["inputSchema"]);
        if let Some(output) = tool.get("outputSchema") {
            assert_meta_valid(entry.name, output);
        }
    }
}

#[test]
fn every_tool_is_a_valid_mcp_tool() {
    for version in ["2025-11-25", "2026-07-28"] {
        let validator = spec_validator(version, "Tool");
        for entry in corpus::tools() {
            let tool = entry.json.to_value();
            let errors = violations(&validator, &tool);
            assert!(
                errors.is_empty(),
                "{} is not an MCP {version} Tool: {errors:#?}",
                entry.name
            );
        }
    }
}

#[test]
fn the_mcp_tool_check_is_real() {
    // Shapes MCP refuses: proves the validator above is not vacuous.
    let validator = spec_validator("2026-07-28", "Tool");
    let bad = [
        json!({"name": "x", "inputSchema": {"type": "array"}}),
        json!({"name": "x"}),
        json!({"inputSchema": {"type": "object"}}),
        json!({"name": "x", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}),
    ];
    for tool in bad {
        assert!(!validator.is_valid(&tool), "accepted {tool}");
    }
}
