//! Each MCP revision served gets the tools and the results its own schema
//! describes, over HTTP and stdio: icons from 2025-11-25, a list result as
//! it is in 2026-07-28 and as `{"result": [...]}` for older clients, its
//! text block the same JSON.

use std::net::SocketAddr;

use serde_json::{Value, json};
use toolschema_demo::{OpenBalances, StatementChart};
use toolschema_serve::Server;
use toolschema_test_support::{assert_conforms, post_mcp};

use crate::common;

fn start() -> SocketAddr {
    let server = Server::new("billing", "1")
        .tool::<OpenBalances>()
        .tool::<StatementChart>();
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

/// Sends `method` as a client of `version` would over HTTP.
fn send(address: SocketAddr, version: &str, method: &str, mut params: Value) -> Value {
    let mut headers = vec![("MCP-Protocol-Version", version)];
    if version == "2026-07-28" {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        headers.push(("Mcp-Method", method));
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            let name: &'static str = name.to_owned().leak();
            headers.push(("Mcp-Name", name));
        }
    }
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (status, reply) = post_mcp(address, &headers, &message);
    assert_eq!(status, 200, "{reply:#}");
    reply["result"].clone()
}

#[test]
fn every_revision_is_answered_in_its_own_shape() {
    let address = start();
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let list = send(address, version, "tools/list", json!({}));
        assert_conforms(version, "ListToolsResult", &list);
        let tools = list["tools"].as_array().expect("tools");
        let balances = tools
            .iter()
            .find(|t| t["name"] == "billing.open-balances")
            .expect("listed");
        let output = &balances["outputSchema"];
        let call = send(
            address,
            version,
            "tools/call",
            json!({"name": "billing.open-balances", "arguments": {"limit": 1}}),
        );
        assert_conforms(version, "CallToolResult", &call);
        let structured = &call["structuredContent"];
        let validator = jsonschema::draft202012::new(output).expect("compiles");
        assert!(
            validator.is_valid(structured),
            "{version}: {structured} against {output}"
        );
        // The text block is the same JSON as `structuredContent` (what the
        // specification asks of a client that reads only content), wrapped
        // where the structured result is.
        let text: Value =
            serde_json::from_str(call["content"][0]["text"].as_str().expect("text")).expect("JSON");
        assert_eq!(structured, &text, "{version}");
        let value = if version == "2026-07-28" {
            assert_eq!(output["type"], "array");
            structured
        } else {
            assert_eq!(output["type"], "object");
            &structured["result"]
        };
        assert_eq!(value[0]["customer"], "cust-42");
        let icons = balances.get("icons");
        assert_eq!(
            icons.is_some(),
            version != "2025-06-18",
            "{version}: {balances}"
        );
    }
}

#[test]
fn a_client_that_names_no_version_is_answered_as_the_oldest() {
    let address = start();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, reply) = post_mcp(address, &[], &message);
    assert_eq!(status, 200);
    let tools = reply["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().all(|t| t.get("icons").is_none()), "{reply}");
    assert!(
        tools
            .iter()
            .all(|t| t.get("outputSchema").is_none_or(|s| s["type"] == "object")),
        "{reply}"
    );
}
