//! What the workspace's test suites share: validators for the specification
//! fixtures kept in `tests/spec/` (the MCP schema of each protocol version,
//! the registry's `server.json` schema and examples), and small helpers.

use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use std::path::PathBuf;

use serde_json::{Value, json};

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The `tests/spec` directory of the repository.
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// A JSON document of `tests/spec`, by its path there.
pub fn spec_json(path: &str) -> Value {
    let path = spec_dir().join(path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator for one definition of the MCP schema of `version`, whichever
/// dialect the version uses (2025-06-18 is draft-07 with `definitions`).
pub fn spec_validator(version: &str, definition: &str) -> jsonschema::Validator {
    let document = spec_json(&format!("mcp/{version}/schema.json"));
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

/// What `validator` finds wrong with `value`, one line each with its place
/// (empty when valid).
pub fn violations(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Asserts that `message` is valid as `definition` of MCP `version`.
pub fn assert_conforms(version: &str, definition: &str, message: &Value) {
    let errors = violations(&spec_validator(version, definition), message);
    assert!(
        errors.is_empty(),
        "{version} {definition}: {errors:#?}\n{message:#}"
    );
}

/// Runs a future that never waits on I/O to completion.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}
