//! The 2026-07-28 revision over HTTP, to the letter: every request carries
//! `_meta` (protocol version and client capabilities) and the headers that
//! repeat it, and each refusal has the status, the JSON-RPC code and the id
//! the specification and the official conformance suite require. The
//! handshake era keeps its own methods.

#![allow(missing_docs)]

use std::net::SocketAddr;

use serde_json::{Value, json};
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::Server;
use toolschema_test_support::{assert_conforms, post_mcp};

mod common;

const V: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn start() -> SocketAddr {
    let server = Server::new("billing", "1")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>();
    let (address, stop) = common::spawn(server);
    // The server lives as long as the test process.
    std::mem::forget(stop);
    address
}

/// POSTs `method` with `params` and the standard headers (`overrides`
/// replace or, with `None`, remove them): the status and the reply.
fn send(
    address: SocketAddr,
    id: u64,
    method: &str,
    params: Value,
    overrides: &[(&str, Option<&str>)],
) -> (u16, Value) {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut headers: Vec<(String, String)> = vec![
        ("MCP-Protocol-Version".into(), V.into()),
        ("Mcp-Method".into(), method.into()),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name".into(), name));
    }
    for (header, value) in overrides {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(header));
        if let Some(value) = value {
            headers.push(((*header).into(), (*value).into()));
        }
    }
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(h, v)| (h.as_str(), v.as_str()))
        .collect();
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    post_mcp(address, &headers, &message)
}

/// Asserts a refusal: status, code, and the request id echoed.
fn refused(reply: &(u16, Value), status: u16, code: i64, id: u64) {
    let (got, body) = reply;
    assert_eq!(*got, status, "{body:#}");
    assert_eq!(body["error"]["code"], code, "{body:#}");
    assert_eq!(body["id"], id, "every error carries the request id");
    assert_conforms(V, "JSONRPCErrorResponse", body);
}

#[test]
fn meta_is_required_with_its_version_and_capabilities() {
    let address = start();
    refused(
        &send(address, 101, "server/discover", json!({}), &[]),
        400,
        -32602,
        101,
    );
    let mut without_version = meta();
    without_version
        .as_object_mut()
        .expect("object")
        .remove("io.modelcontextprotocol/protocolVersion");
    refused(
        &send(
            address,
            102,
            "server/discover",
            json!({"_meta": without_version}),
            &[],
        ),
        400,
        -32602,
        102,
    );
    let mut without_capabilities = meta();
    without_capabilities
        .as_object_mut()
        .expect("object")
        .remove("io.modelcontextprotocol/clientCapabilities");
    refused(
        &send(
            address,
            104,
            "server/discover",
            json!({"_meta": without_capabilities}),
            &[],
        ),
        400,
        -32602,
        104,
    );
    // A 2026-07-28 header without `_meta` no longer gets the legacy answer.
    refused(
        &send(address, 106, "tools/list", json!({}), &[]),
        400,
        -32602,
        106,
    );

    // clientInfo is a SHOULD: its absence is served.
    let mut without_info = meta();
    without_info
        .as_object_mut()
        .expect("object")
        .remove("io.modelcontextprotocol/clientInfo");
    let (status, reply) = send(
        address,
        105,
        "server/discover",
        json!({"_meta": without_info}),
        &[],
    );
    assert_eq!(status, 200, "{reply:#}");
    assert_conforms(V, "DiscoverResult", &reply["result"]);
}

#[test]
fn versions_are_checked_and_listed_alike() {
    let address = start();
    let (_, discovered) = send(
        address,
        201,
        "server/discover",
        json!({"_meta": meta()}),
        &[],
    );
    let supported = discovered["result"]["supportedVersions"].clone();
    assert_eq!(supported, json!(["2026-07-28", "2025-11-25", "2025-06-18"]));
    assert_eq!(
        discovered["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "billing"
    );

    let mut future = meta();
    future["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let reply = send(
        address,
        301,
        "server/discover",
        json!({"_meta": future}),
        &[("MCP-Protocol-Version", Some("v999.0.0"))],
    );
    refused(&reply, 400, -32022, 301);
    assert_conforms(V, "UnsupportedProtocolVersionError", &reply.1);
    assert_eq!(
        reply.1["error"]["data"]["supported"], supported,
        "the same list"
    );
    assert_eq!(reply.1["error"]["data"]["requested"], "v999.0.0");

    // The header and `_meta` disagree.
    let reply = send(
        address,
        302,
        "server/discover",
        json!({"_meta": future}),
        &[],
    );
    refused(&reply, 400, -32020, 302);
    assert_conforms(V, "HeaderMismatchError", &reply.1);

    // `_meta` without the header.
    let reply = send(
        address,
        303,
        "tools/list",
        json!({"_meta": meta()}),
        &[("MCP-Protocol-Version", None)],
    );
    refused(&reply, 400, -32020, 303);

    // A header that names no version served.
    let reply = send(
        address,
        304,
        "tools/list",
        json!({}),
        &[("MCP-Protocol-Version", Some("garbage"))],
    );
    refused(&reply, 400, -32022, 304);
    assert_eq!(reply.1["error"]["data"]["requested"], "garbage");

    // A listen stream in an unserved version is refused, not acknowledged.
    let mut later = meta();
    later["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let reply = send(
        address,
        305,
        "subscriptions/listen",
        json!({"_meta": later, "notifications": {"toolsListChanged": true}}),
        &[("MCP-Protocol-Version", Some("2030-01-01"))],
    );
    refused(&reply, 400, -32022, 305);
}

#[test]
fn methods_not_in_the_revision_are_not_found() {
    let address = start();
    for (i, method) in [
        "unknown/method",
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
    ]
    .into_iter()
    .enumerate()
    {
        let id = 500 + i as u64;
        refused(
            &send(address, id, method, json!({"_meta": meta()}), &[]),
            404,
            -32601,
            id,
        );
    }
    // The handshake era keeps `initialize` and `ping` (no `_meta`, no
    // 2026-07-28 header).
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, reply) = post_mcp(address, &[], &init);
    assert_eq!(
        (status, reply["result"]["protocolVersion"].as_str()),
        (200, Some("2025-11-25"))
    );
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let (status, reply) = post_mcp(address, &[("MCP-Protocol-Version", "2025-11-25")], &ping);
    assert_eq!((status, &reply["result"]), (200, &json!({})));
    // An unknown method in the handshake era is still -32601, with 200.
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "unknown/method"});
    let (status, reply) = post_mcp(address, &[], &unknown);
    assert_eq!(
        (status, reply["error"]["code"].as_i64()),
        (200, Some(-32601))
    );
}

#[test]
fn routing_headers_must_match_the_body() {
    let address = start();
    let list = || json!({"_meta": meta()});
    refused(
        &send(
            address,
            1,
            "tools/list",
            list(),
            &[("Mcp-Method", Some("prompts/list"))],
        ),
        400,
        -32020,
        1,
    );
    refused(
        &send(address, 2, "tools/list", list(), &[("Mcp-Method", None)]),
        400,
        -32020,
        2,
    );
    refused(
        &send(
            address,
            3,
            "tools/list",
            list(),
            &[("Mcp-Method", Some("TOOLS/LIST"))],
        ),
        400,
        -32020,
        3,
    );
    for header in ["mcp-method", "MCP-METHOD"] {
        let (status, reply) = send(
            address,
            4,
            "tools/list",
            list(),
            &[("Mcp-Method", None), (header, Some("tools/list"))],
        );
        assert_eq!(status, 200, "header names are case-insensitive: {reply:#}");
    }

    let call = || json!({"name": "billing.list-invoices", "arguments": {"customer": "c"}, "_meta": meta()});
    refused(
        &send(
            address,
            5,
            "tools/call",
            call(),
            &[("Mcp-Name", Some("wrong_tool_name"))],
        ),
        400,
        -32020,
        5,
    );
    refused(
        &send(address, 6, "tools/call", call(), &[("Mcp-Name", None)]),
        400,
        -32020,
        6,
    );
    let (status, reply) = send(
        address,
        7,
        "tools/call",
        call(),
        &[("Mcp-Name", Some("  billing.list-invoices  "))],
    );
    assert_eq!(
        status, 200,
        "whitespace around a value is not part of it: {reply:#}"
    );
    assert_eq!(reply["result"]["resultType"], "complete");
}

#[test]
fn stateless_refusals_of_tools_are_bad_requests_and_results_are_complete() {
    let address = start();
    let reply = send(
        address,
        9,
        "tools/call",
        json!({"name": "nope", "arguments": {}, "_meta": meta()}),
        &[],
    );
    refused(&reply, 400, -32602, 9);
    let (status, list) = send(address, 10, "tools/list", json!({"_meta": meta()}), &[]);
    assert_eq!(status, 200);
    assert_conforms(V, "ListToolsResult", &list["result"]);
    assert_eq!(list["result"]["resultType"], "complete");
    assert!(list["result"]["ttlMs"].is_u64());
    assert_eq!(list["result"]["cacheScope"], "private");
}
