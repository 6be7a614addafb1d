//! Any text as a catalog configuration: refused with located problems, or
//! accepted and built into a snapshot, never a panic.

#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use toolschema::call::Registry;
use toolschema::catalog::{Config, Snapshot};
use toolschema::project::ProtocolRevision;

fuzz_target!(|data: &[u8]| {
    static REGISTRY: OnceLock<Arc<Registry>> = OnceLock::new();
    let registry = REGISTRY.get_or_init(|| Arc::new(toolschema_demo::registry()));
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::from_toml(text, "fuzz.toml", registry) {
        Ok(config) => {
            let snapshot = Snapshot::build(registry.clone(), &config);
            for view in snapshot.clients() {
                let list = view.list_json(ProtocolRevision::LATEST);
                assert!(serde_json::from_str::<serde_json::Value>(list).is_ok());
            }
        }
        Err(errors) => {
            let report = errors.to_string();
            assert!(
                report.contains("fuzz.toml:"),
                "a problem without its place: {report}"
            );
        }
    }
});
