//! `server.json` export: valid for the MCP registry, each tool a valid MCP
//! `Tool`, deterministic, free of secrets and source names; the staleness
//! check catches real changes and blessing rewrites.

use crate::support::{DEMO_TOOLS, tool_names, violations};
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use toolschema::Tool;
use toolschema::ToolDef;
use toolschema::call::Registry;
use toolschema::catalog::{Catalog, Config, Snapshot};
use toolschema::export::{NAMESPACE, Scope, Verdict, export, verify_file, verify_file_with};
use toolschema::model::{Node, Ref};
use toolschema_demo::{CATALOG_TOML, GetInvoice, ListInvoices, VoidInvoice, registry};

use toolschema_test_support::{spec_dir, spec_json, spec_validator};

fn registry_validator() -> jsonschema::Validator {
    let schema = spec_json("registry/2025-12-11/server.schema.json");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .expect("registry schema compiles")
}

fn examples(kind: &str) -> Vec<(String, Value)> {
    let dir = spec_dir().join("registry/examples").join(kind);
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("examples")
        .map(|entry| {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("read");
            (
                path.display().to_string(),
                serde_json::from_str(&text).expect("JSON"),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn demo() -> Arc<Snapshot> {
    toolschema_demo::catalog().snapshot()
}

#[test]
fn the_committed_example_export_is_fresh() {
    let document = export(&demo(), Scope::Catalog).expect("the demo has a [server] section");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/server.json");
    match verify_file(&path, &document) {
        Ok(Verdict::Fresh | Verdict::Blessed) => {}
        Err(stale) => panic!("{stale}"),
    }
}

#[test]
fn the_registry_check_is_real() {
    let validator = registry_validator();
    let valid = examples("valid");
    let invalid = examples("invalid");
    assert!(valid.len() >= 3 && invalid.len() >= 4);
    for (name, document) in valid {
        assert!(validator.is_valid(&document), "{name} should be valid");
    }
    for (name, document) in invalid {
        assert!(!validator.is_valid(&document), "{name} should be refused");
    }
}

#[test]
fn every_export_is_a_valid_server_json_of_valid_tools() {
    let snapshot = demo();
    let registry_check = registry_validator();
    let tool_checks = [
        spec_validator("2025-11-25", "Tool"),
        spec_validator("2026-07-28", "Tool"),
    ];
    let scopes = [
        Scope::Catalog,
        Scope::Client("acme-finance"),
        Scope::Client("acme-assistant"),
        Scope::Client("globex-support"),
    ];
    for scope in scopes {
        let text = export(&snapshot, scope).expect("exports");
        assert!(
            text.ends_with("}\n") && !text.ends_with("\n\n"),
            "{scope:?}: one trailing newline"
        );
        assert_eq!(
            export(&snapshot, scope).expect("again"),
            text,
            "{scope:?}: deterministic"
        );
        let document: Value = serde_json::from_str(&text).expect("JSON");
        let errors = violations(&registry_check, &document);
        assert!(errors.is_empty(), "{scope:?}: {errors:#?}");
        let tools = document["_meta"][NAMESPACE]["tools"]
            .as_array()
            .expect("tools");
        assert!(!tools.is_empty());
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "{scope:?}: sorted");
        for tool in tools {
            for check in &tool_checks {
                assert!(
                    check.is_valid(tool),
                    "{scope:?}: {} is not an MCP Tool",
                    tool["name"]
                );
            }
        }
        for secret in [
            "sha256:",
            "demo-acme",
            "\"acme-finance\"",
            "\"globex-support\"",
            "api_keys",
            "\"tenant\"",
            "\"acme\"",
            "\"globex\"",
        ] {
            assert!(!text.contains(secret), "{scope:?} leaks {secret:?}");
        }
    }
    let whole: Value =
        serde_json::from_str(&export(&snapshot, Scope::Catalog).expect("exports")).expect("JSON");
    let names: Vec<&str> = tool_names(&whole["_meta"][NAMESPACE]["tools"]);
    assert_eq!(names, DEMO_TOOLS);
    let assistant: Value =
        serde_json::from_str(&export(&snapshot, Scope::Client("acme-assistant")).expect("exports"))
            .expect("JSON");
    let tools = assistant["_meta"][NAMESPACE]["tools"]
        .as_array()
        .expect("tools");
    assert!(
        tools.iter().any(|t| t["name"] == "discover_tool_schema"),
        "the client's meta-tool"
    );
    let lazy = tools
        .iter()
        .find(|t| t["name"] == "billing.list-invoices")
        .expect("listed");
    assert!(
        lazy.get("outputSchema").is_none(),
        "the client's modes apply"
    );
}

#[test]
fn no_source_name_is_exported() {
    let text = export(&demo(), Scope::Catalog).expect("exports");
    let document: Value = serde_json::from_str(&text).expect("JSON");
    let tools = document["_meta"][NAMESPACE]["tools"]
        .as_array()
        .expect("tools");
    let void = tools
        .iter()
        .find(|t| t["name"] == "billing.void-invoice")
        .expect("listed")
        .to_string();
    assert!(
        void.contains("\"invoiceId\"") && !void.contains("\"invoice_id\""),
        "{void}"
    );
    let Node::Object(object) = &*VoidInvoice::TOOL.input else {
        panic!("an object")
    };
    assert!(
        object
            .fields
            .iter()
            .any(|f| f.source == "invoice_id" && f.exposed == "invoiceId")
    );
}

#[test]
fn refusals_name_the_field_and_the_rule() {
    let bad = CATALOG_TOML
        .replace("name = \"dev.toolschema.demo/gateway\"", "name = \"demo gateway\"")
        .replace(
            "description = \"Billing and support tools of the toolschema demo, governed per tenant and client.\"",
            &format!("description = \"{}\"", "x".repeat(101)),
        );
    let errors = Config::from_toml(&bad, "catalog.toml", &registry()).expect_err("refused");
    let text = errors.to_string();
    assert!(
        text.contains("server.name: `demo gateway` is not a registry server name"),
        "{text}"
    );
    assert!(text.contains("server.description: the description is 101 characters long; the registry allows 1 to 100"), "{text}");
    let without = Catalog::from_toml(
        registry(),
        "[[tenant]]\nid = \"a\"\n[[client]]\nid = \"c\"\ntenant = \"a\"\n",
        "x.toml",
    )
    .expect("valid");
    let refused = export(&without.snapshot(), Scope::Catalog).expect_err("no [server]");
    assert!(refused.to_string().contains("[server]"));
    assert!(export(&demo(), Scope::Client("nobody")).is_err());
}

/// A catalog of the given descriptors, all exposed to one client.
fn small_export(defs: &[Ref<ToolDef>]) -> String {
    let mut registry = Registry::new();
    for def in defs {
        registry
            .register_descriptor::<GetInvoice>(def.clone())
            .expect("unique");
    }
    let names: Vec<String> = defs.iter().map(|d| format!("\"{}\"", d.name)).collect();
    let config = format!(
        "[server]\nname = \"dev.example/small\"\ndescription = \"A small catalog.\"\nversion = \"1.0.0\"\n\n[[tenant]]\nid = \"t\"\n\n[[toolset]]\nid = \"s\"\ntenant = \"t\"\ntools = [{}]\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\"s\"]\n",
        names.join(", ")
    );
    let catalog = Catalog::from_toml(registry, &config, "small.toml").expect("valid");
    export(&catalog.snapshot(), Scope::Catalog).expect("exports")
}

#[test]
fn staleness_is_caught_and_blessing_rewrites() {
    let dir = std::env::temp_dir().join(format!("toolschema-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("server.json");
    let base = [
        Ref::Static(GetInvoice::TOOL),
        Ref::Static(ListInvoices::TOOL),
    ];
    let original = small_export(&base);
    assert_eq!(
        verify_file_with(&path, &original, true).expect("written"),
        Verdict::Blessed
    );
    assert_eq!(
        verify_file_with(&path, &original, false).expect("fresh"),
        Verdict::Fresh
    );

    let added = small_export(&[
        Ref::Static(GetInvoice::TOOL),
        Ref::Static(ListInvoices::TOOL),
        Ref::Static(VoidInvoice::TOOL),
    ]);
    let stale = verify_file_with(&path, &added, false).expect_err("a tool was added");
    assert!(
        stale.diff().contains("+") && stale.diff().contains("billing.void-invoice"),
        "{stale}"
    );
    let tools: Vec<(&str, Vec<&str>)> = stale
        .compatibility()
        .iter()
        .map(|t| {
            (
                t.tool.as_str(),
                t.report.changes().iter().map(|c| c.rule).collect(),
            )
        })
        .collect();
    assert_eq!(tools, [("billing.void-invoice", vec!["tool-added"])]);
    assert!(!stale.breaks(), "a new tool breaks no client: {stale}");

    let described = Ref::new(ToolDef {
        description: Ref::Static("Returns one invoice, now described differently."),
        ..GetInvoice::TOOL.clone()
    });
    let changed = small_export(&[described, Ref::Static(ListInvoices::TOOL)]);
    let stale = verify_file_with(&path, &changed, false).expect_err("a description changed");
    assert!(
        stale.diff().contains("- ") && stale.diff().contains("described differently"),
        "{stale}"
    );
    assert!(stale.to_string().contains("TOOLSCHEMA_BLESS=1"));
    assert!(!stale.breaks(), "{stale}");
    assert_eq!(
        stale.compatibility()[0].report.changes()[0].rule,
        "annotation-changed"
    );

    let reshaped = Ref::new(ToolDef {
        input: VoidInvoice::TOOL.input.clone(),
        ..GetInvoice::TOOL.clone()
    });
    let changed = small_export(&[reshaped, Ref::Static(ListInvoices::TOOL)]);
    let stale = verify_file_with(&path, &changed, false).expect_err("a field changed");
    assert!(stale.diff().contains("\"invoiceId\""), "{stale}");
    assert!(stale.breaks(), "another argument is required: {stale}");
    let message = stale.to_string();
    assert!(
        message.contains("1 of the 1 tools that changed may break")
            && message.contains("billing.get-invoice: breaking"),
        "{message}"
    );

    assert_eq!(
        verify_file_with(&path, &changed, true).expect("blessed"),
        Verdict::Blessed
    );
    assert_eq!(
        verify_file_with(&path, &changed, false).expect("fresh now"),
        Verdict::Fresh
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), changed);
    let _ = std::fs::remove_dir_all(&dir);
}
