//! A service exports its own catalog (DESIGN §8): from its tools and the
//! identity given to the server, with no configuration file; per client
//! from a governed catalog; the identity is also the `serverInfo` clients
//! see.

use serde_json::{Value, json};
use toolschema::export::{ExportError, NAMESPACE, Scope};
use toolschema_demo::{CATALOG_TOML, GetInvoice, ListInvoices, VoidInvoice};
use toolschema_serve::Server;
use toolschema_test_support::{post_mcp, spec_json};

use crate::common;
use common::spawn;

/// The MCP registry's `server.json` schema, with formats checked.
fn registry_validator() -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&spec_json("registry/2025-12-11/server.schema.json"))
        .expect("the registry schema compiles")
}

fn valid_server_json(text: &str) -> Value {
    let document: Value = serde_json::from_str(text).expect("JSON");
    let errors: Vec<String> = registry_validator()
        .iter_errors(&document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{text}");
    document
}

fn tool_names(document: &Value) -> Vec<&str> {
    document["_meta"][NAMESPACE]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect()
}

fn billing() -> Server {
    Server::new("io.github.acme/billing", "2.1.0")
        .title("Acme billing")
        .description("Invoices: read, list and void")
        .website_url("https://acme.example/billing")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>()
        .tool::<VoidInvoice>()
}

#[test]
fn a_service_without_configuration_exports_its_own_tools_under_its_identity() {
    let service = billing().build().expect("builds");
    let text = service.export(Scope::Catalog).expect("exports");
    let document = valid_server_json(&text);
    assert_eq!(document["name"], "io.github.acme/billing");
    assert_eq!(document["version"], "2.1.0");
    assert_eq!(document["title"], "Acme billing");
    assert_eq!(document["description"], "Invoices: read, list and void");
    assert_eq!(document["websiteUrl"], "https://acme.example/billing");
    assert_eq!(
        tool_names(&document),
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "billing.void-invoice"
        ]
    );
    // Every tool in Full mode: its whole input schema.
    let tools = document["_meta"][NAMESPACE]["tools"]
        .as_array()
        .expect("tools");
    assert!(
        tools
            .iter()
            .all(|tool| tool["inputSchema"]["properties"].is_object())
    );
    // The same text each time: a committed file stays fresh.
    assert_eq!(service.export(Scope::Catalog).expect("exports"), text);
}

#[test]
fn an_identity_the_registry_refuses_is_refused_by_field() {
    let missing = Server::new("io.github.acme/billing", "2.1.0")
        .tool::<GetInvoice>()
        .build()
        .expect("builds");
    let error = missing.export(Scope::Catalog).expect_err("no description");
    assert!(matches!(error, ExportError::NoServerSection));
    assert!(
        error
            .to_string()
            .contains("a description given to the server"),
        "{error}"
    );

    let refused = Server::new("billing", "^2.1")
        .description("x".repeat(101))
        .website_url("ftp://acme.example")
        .tool::<GetInvoice>()
        .build()
        .expect("builds");
    let error = refused.export(Scope::Catalog).expect_err("refused");
    let ExportError::InvalidServer(problems) = &error else {
        panic!("{error:?}");
    };
    let fields: Vec<&str> = problems.iter().map(|(field, _)| *field).collect();
    assert_eq!(fields, ["name", "description", "version", "website_url"]);
    let message = error.to_string();
    assert!(
        message.contains("name: `billing` is not a registry server name"),
        "{message}"
    );
    assert!(message.contains("101 characters long"), "{message}");
}

#[test]
fn a_governed_catalog_exports_per_client_and_its_server_section_wins() {
    let governed = Server::new("io.github.acme/billing", "9.9.9")
        .description("Described in code")
        .registry(toolschema_demo::registry())
        .catalog_toml(CATALOG_TOML, "catalog.toml")
        .build()
        .expect("builds");
    let whole = valid_server_json(&governed.export(Scope::Catalog).expect("exports"));
    // The demo configuration's `[server]` section describes the catalog.
    assert_eq!(whole["name"], "dev.toolschema.demo/gateway");
    let finance = valid_server_json(
        &governed
            .export(Scope::Client("acme-finance"))
            .expect("exports"),
    );
    let support = valid_server_json(
        &governed
            .export(Scope::Client("globex-support"))
            .expect("exports"),
    );
    assert_ne!(tool_names(&finance), tool_names(&support));
    assert!(tool_names(&whole).len() >= tool_names(&finance).len());
    assert!(matches!(
        governed.export(Scope::Client("nobody")),
        Err(ExportError::UnknownClient(_))
    ));

    // Without a `[server]` section, the identity given in code describes it.
    let without: String = CATALOG_TOML
        .split("\n[")
        .filter(|section| !section.starts_with("server]") && !section.starts_with("[server."))
        .collect::<Vec<_>>()
        .join("\n[");
    assert!(!without.contains("[server"));
    let governed = Server::new("io.github.acme/billing", "9.9.9")
        .description("Described in code")
        .registry(toolschema_demo::registry())
        .catalog_toml(without, "catalog.toml")
        .build()
        .expect("builds");
    let finance = valid_server_json(
        &governed
            .export(Scope::Client("acme-finance"))
            .expect("exports"),
    );
    assert_eq!(finance["name"], "io.github.acme/billing");
    assert_eq!(finance["version"], "9.9.9");
}

#[test]
fn server_info_carries_the_description_from_2025_11_25_on() {
    let (address, _stop) = spawn(billing());
    for (version, described) in [("2025-06-18", false), ("2025-11-25", true)] {
        let (status, reply) = post_mcp(
            address,
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        );
        assert_eq!(status, 200);
        let info = &reply["result"]["serverInfo"];
        assert_eq!(info["name"], "io.github.acme/billing", "{version}");
        assert_eq!(info["title"], "Acme billing", "{version}");
        assert_eq!(
            info.get("description").is_some(),
            described,
            "{version}: {info}"
        );
        assert_eq!(info.get("websiteUrl").is_some(), described, "{version}");
    }
}
