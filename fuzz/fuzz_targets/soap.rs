//! Any bytes as a SOAP downstream's answer to the pet insurance quote tool,
//! and as a WSDL document to import: a result, a fault or a refusal, never
//! a panic; a result is always an object, and an import either fails with a
//! message or writes configuration that parses as TOML.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema_import::{ImportOptions, import_wsdl};

const CONFIG: &str = include_str!("../../benches/fixtures/soap.toml");

fuzz_target!(|data: &[u8]| {
    static CONFIGURATION: OnceLock<Config> = OnceLock::new();
    let config = CONFIGURATION.get_or_init(|| {
        Config::from_toml(CONFIG, "soap.toml", &Registry::new()).expect("the fixture loads")
    });
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        let operation = config.configured_tools()[0].versions()[0].operation();
        if let Ok(result) = toolschema_gateway::soap::result_from_envelope(operation, bytes) {
            assert!(result.is_object(), "{result}");
        }
    } else {
        let options = ImportOptions {
            downstream: "svc".to_owned(),
            base_url: Some("https://svc.example/ws".to_owned()),
            ..ImportOptions::default()
        };
        if let Ok(imported) = import_wsdl(bytes, &options) {
            assert!(
                imported.toml.parse::<toml::Table>().is_ok(),
                "{}",
                imported.toml
            );
        }
    }
});
