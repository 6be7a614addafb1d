//! Protocol revisions: what each MCP revision's clients are shown and sent.
//! Icons from 2025-11-25; non-object outputs as they are in 2026-07-28 and
//! wrapped in `{"result": ...}` before it, the list and the results agreeing.

use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::project::{Mode, ProtocolRevision, RESULT_PROPERTY, project_tool};
use toolschema::{Tool, ToolDef};
use toolschema_demo::OpenBalances;
use toolschema_test_support::{block_on, spec_validator, violations};

use crate::support::tool_names;

/// The client that sees the demo's list-returning tool and its icons.
const ANALYST: &str = "acme-analyst";

fn list(revision: ProtocolRevision) -> Vec<Value> {
    let catalog = toolschema_demo::catalog();
    let text = catalog
        .snapshot()
        .discover(ANALYST, revision)
        .expect("a demo client");
    let list: Value = serde_json::from_str(&text).expect("JSON");
    list["tools"].as_array().expect("tools").clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} listed"))
}

#[test]
fn every_revision_lists_tools_its_schema_accepts() {
    for revision in ProtocolRevision::ALL {
        let validator = spec_validator(revision.version(), "Tool");
        let tools = list(revision);
        let listed = Value::Array(tools.clone());
        assert_eq!(
            tool_names(&listed),
            [
                "billing.close-period",
                "billing.open-balances",
                "billing.statement-chart"
            ],
        );
        for tool in &tools {
            let errors = violations(&validator, tool);
            assert!(
                errors.is_empty(),
                "{}: {} {errors:#?}",
                revision.version(),
                tool["name"]
            );
        }
    }
}

#[test]
fn icons_are_shown_from_2025_11_25() {
    for revision in ProtocolRevision::ALL {
        let tools = list(revision);
        let chart = tool(&tools, "billing.statement-chart");
        if revision == ProtocolRevision::V2025_06_18 {
            assert!(chart.get("icons").is_none(), "{chart}");
            continue;
        }
        let icon = &chart["icons"][0];
        let src = icon["src"].as_str().expect("src");
        let svg = src
            .strip_prefix("data:image/svg+xml;base64,")
            .expect("embedded at compile time");
        let svg = base64_decode(svg);
        assert!(svg.starts_with("<svg"), "{svg}");
        assert_eq!(icon["mimeType"], "image/svg+xml");
        assert_eq!(icon["sizes"], json!(["any"]));
        let balances = tool(&tools, "billing.open-balances");
        assert_eq!(balances["icons"][0]["theme"], "light");
    }
}

#[test]
fn a_list_output_is_advertised_as_is_in_2026_07_28_and_wrapped_before() {
    let latest = list(ProtocolRevision::V2026_07_28);
    let output = &tool(&latest, "billing.open-balances")["outputSchema"];
    assert_eq!(output["type"], "array");
    assert_eq!(
        output["items"]["required"],
        json!(["customer", "outstanding"])
    );
    for revision in [ProtocolRevision::V2025_06_18, ProtocolRevision::V2025_11_25] {
        let tools = list(revision);
        let wrapped = &tool(&tools, "billing.open-balances")["outputSchema"];
        assert_eq!(wrapped["type"], "object");
        assert_eq!(wrapped["required"], json!([RESULT_PROPERTY]));
        assert_eq!(&wrapped["properties"][RESULT_PROPERTY], output);
        // Tools whose output is an object are the same in every revision
        // but for the icons.
        let mut chart = tool(&tools, "billing.close-period").clone();
        chart.as_object_mut().map(|o| o.remove("icons"));
        let mut newest = tool(&latest, "billing.close-period").clone();
        newest.as_object_mut().map(|o| o.remove("icons"));
        assert_eq!(chart, newest);
    }
}

#[test]
fn each_revision_gets_the_result_its_advertised_schema_accepts() {
    let mut registry = Registry::new();
    registry.register::<OpenBalances>().expect("registers");
    let result = block_on(registry.call("billing.open-balances", json!({}))).expect("runs");
    let value = result.structured().expect("structured").clone();
    assert_eq!(value[0]["customer"], "cust-42", "{value}");
    for revision in ProtocolRevision::ALL {
        let shown = revision.fit(
            OpenBalances::TOOL,
            project_tool(OpenBalances::TOOL, Mode::Full),
        );
        let schema = shown.to_value()["outputSchema"].clone();
        let sent = revision.fit_result(OpenBalances::TOOL, value.clone());
        let validator = jsonschema::draft202012::new(&schema).expect("compiles");
        assert!(validator.is_valid(&sent), "{}: {sent}", revision.version());
        assert_eq!(sent.is_array(), revision == ProtocolRevision::V2026_07_28);
        let result_schema = spec_validator(revision.version(), "CallToolResult");
        let mut call_result = json!({"content": [], "structuredContent": sent});
        if revision == ProtocolRevision::V2026_07_28 {
            call_result["resultType"] = json!("complete");
        }
        let errors = violations(&result_schema, &call_result);
        assert!(errors.is_empty(), "{}: {errors:#?}", revision.version());
    }
}

#[test]
fn a_scalar_result_of_a_tool_without_an_output_schema_is_wrapped_too() {
    let def: &ToolDef = toolschema_demo::StatementChart::TOOL;
    assert!(def.output_is_object());
    assert_eq!(
        ProtocolRevision::V2025_11_25.fit_result(def, json!(3)),
        json!({RESULT_PROPERTY: 3})
    );
    assert_eq!(
        ProtocolRevision::V2026_07_28.fit_result(def, json!(3)),
        json!(3)
    );
    assert_eq!(
        ProtocolRevision::V2025_11_25.fit_result(def, json!({"n": 3})),
        json!({"n": 3})
    );
}

fn base64_decode(text: &str) -> String {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    String::from_utf8(bytes).expect("UTF-8")
}
