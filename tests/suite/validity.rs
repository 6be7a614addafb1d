//! Every rendered schema is a valid JSON Schema 2020-12 document, and every
//! tool is a valid MCP `Tool` of each protocol version that uses 2020-12.

use toolschema_test_support::{spec_validator, violations};

use serde_json::{Value, json};

use crate::corpus;

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

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
