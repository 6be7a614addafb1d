//! What the import tests share: a document imported, its configuration
//! checked as an operator's file is, and the request a tool of it sends.

use serde_json::Value;
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema_configured::ConfiguredVersion;
use toolschema_gateway::encode::{self, DownstreamRequest};
use toolschema_import::{ImportOptions, Imported, import_openapi, parse_document};

/// `text` (OpenAPI or Swagger, JSON or YAML) imported with `downstream`
/// as the downstream's id.
pub(crate) fn import(text: &str, downstream: &str) -> Imported {
    let document = parse_document(text).expect("JSON or YAML");
    let options = ImportOptions {
        downstream: downstream.to_owned(),
        ..ImportOptions::default()
    };
    import_openapi(&document, &options).expect("imports")
}

/// The imported configuration, with a tenant and a client, checked; a
/// refusal fails the test with every problem and the text.
pub(crate) fn config(imported: &Imported) -> Config {
    let text = format!(
        "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n{}",
        imported.toml
    );
    Config::from_toml(&text, "imported.toml", &Registry::new())
        .unwrap_or_else(|errors| panic!("{errors}\n{}", imported.toml))
}

/// The first version of the tool `name`.
pub(crate) fn version(config: &Config, name: &str) -> ConfiguredVersion {
    config
        .configured_tools()
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .versions()[0]
        .clone()
}

/// The request the tool `name` sends for `arguments`.
pub(crate) fn request(config: &Config, name: &str, arguments: Value) -> DownstreamRequest {
    encode::request(version(config, name).operation(), &arguments).unwrap_or_else(|e| panic!("{e}"))
}
