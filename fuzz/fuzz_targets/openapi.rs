//! Any bytes as an OpenAPI document, JSON or YAML, to import: a
//! configuration or a refusal with a message, never a panic, and in time
//! and memory bounded by the fuzzer's limits (an alias bomb, a `$ref`
//! fan-out, deep nesting). What an import writes always parses as TOML.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolschema_import::{ImportOptions, import_openapi, parse_document};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(document) = parse_document(text) else {
        return;
    };
    let options = ImportOptions {
        downstream: "api".to_owned(),
        base_url: Some("https://api.example/v1".to_owned()),
        ..ImportOptions::default()
    };
    if let Ok(imported) = import_openapi(&document, &options) {
        assert!(
            imported.toml.parse::<toml::Table>().is_ok(),
            "{}",
            imported.toml
        );
    }
});
