//! The 2026-07-28 revision over HTTP, to the letter: every request carries
//! `_meta` (protocol version and client capabilities) and the headers that
//! repeat it, and each refusal has the status, the JSON-RPC code and the id
//! the specification and the official conformance suite require. The
//! handshake era keeps its own methods.

use std::net::SocketAddr;

use serde_json::{Value, json};
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::Server;
use toolschema_test_support::{assert_conforms, post_mcp};

use crate::common;

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

/// Moves a shipment; the region and the priority also travel in headers,
/// for routing.
#[derive(toolschema::Tool, serde::Deserialize)]
#[tool(name = "ship")]
struct Ship {
    /// Where the shipment goes.
    #[tool(header = "Region")]
    region: String,
    /// How urgent it is.
    #[tool(header = "Priority")]
    priority: Option<u8>,
    /// A note, in the body only.
    note: Option<String>,
}

impl toolschema::Handler for Ship {
    async fn call(
        self,
        _ctx: toolschema::Context,
    ) -> Result<toolschema::ToolResult, toolschema::ToolError> {
        Ok(toolschema::ToolResult::text(format!(
            "to {} ({:?}) {:?}",
            self.region, self.priority, self.note
        )))
    }
}

#[test]
fn arguments_mirrored_in_headers_must_agree_with_the_body() {
    let (address, stop) = common::spawn(Server::new("shipping", "1").tool::<Ship>());
    let (status, list) = send(address, 1, "tools/list", json!({"_meta": meta()}), &[]);
    assert_eq!(status, 200);
    let properties = &list["result"]["tools"][0]["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region", "{list:#}");
    assert_eq!(properties["priority"]["x-mcp-header"], "Priority");
    assert!(properties["note"].get("x-mcp-header").is_none());

    let call = |arguments: Value| json!({"name": "ship", "arguments": arguments, "_meta": meta()});
    let ok = |reply: (u16, Value)| {
        assert_eq!(reply.0, 200, "{:#}", reply.1);
        assert_ne!(reply.1["result"]["isError"], true, "{:#}", reply.1);
        reply.1["result"]["content"][0]["text"].clone()
    };
    // Literal values, header names in any case, numbers as JSON writes them.
    let text = ok(send(
        address,
        2,
        "tools/call",
        call(json!({"region": "eu-west", "priority": 3, "note": "fragile"})),
        &[
            ("mcp-param-region", Some("eu-west")),
            ("MCP-PARAM-PRIORITY", Some("3")),
        ],
    ));
    assert_eq!(text, "to eu-west (Some(3)) Some(\"fragile\")");
    // Base64 carries what a header cannot: "Zürich" is not ASCII.
    let text = ok(send(
        address,
        3,
        "tools/call",
        call(json!({"region": "Zürich"})),
        &[("Mcp-Param-Region", Some("=?base64?WsO8cmljaA==?="))],
    ));
    assert_eq!(text, "to Zürich (None) None");

    let mismatch = |id, arguments, headers: &[(&str, Option<&str>)], says: &str| {
        let reply = send(address, id, "tools/call", call(arguments), headers);
        refused(&reply, 400, -32020, id);
        let message = reply.1["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{message}");
    };
    mismatch(
        4,
        json!({"region": "eu-west"}),
        &[],
        "send it as the Mcp-Param-Region header",
    );
    mismatch(
        5,
        json!({"region": "eu-west"}),
        &[("Mcp-Param-Region", Some("us-east"))],
        "does not match `region`",
    );
    mismatch(
        6,
        json!({"region": "eu-west"}),
        &[
            ("Mcp-Param-Region", Some("eu-west")),
            ("Mcp-Param-Priority", Some("1")),
        ],
        "`priority` is not in the body",
    );
    mismatch(
        7,
        json!({"region": "eu-west"}),
        &[("Mcp-Param-Region", Some("=?base64?not base64!?="))],
        "not valid base64",
    );
    mismatch(
        8,
        json!({"region": "eu-west", "priority": 3}),
        &[
            ("Mcp-Param-Region", Some("eu-west")),
            ("Mcp-Param-Priority", Some("03")),
        ],
        "does not match `priority`",
    );

    // The handshake era has no such headers: the body alone counts.
    let initialize = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (status, _) = post_mcp(address, &[], &initialize);
    assert_eq!(status, 200);
    let legacy = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
        "params": {"name": "ship", "arguments": {"region": "eu-west"}}});
    let (status, reply) = post_mcp(
        address,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Param-Region", "elsewhere"),
        ],
        &legacy,
    );
    assert_eq!(status, 200, "{reply:#}");
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "to eu-west (None) None"
    );
    drop(stop);
}

/// Three clients of one tool: shown the headers, shown a dialect without
/// them, shown the tool without its properties.
const SHIPPING_CATALOG: &str = r#"
[[tenant]]
id = "logistics"

[[toolset]]
id = "full"
tenant = "logistics"
tools = ["ship"]

[[toolset]]
id = "lazy"
tenant = "logistics"
mode = "lazy"
tools = ["ship"]

[[client]]
id = "shipper"
tenant = "logistics"
api_keys = ["sha256:35d706a19b74224c7817d2e520324c9a8bb3e4deadc1be93dcee00ee038ff308"]
toolsets = ["full"]

[[client]]
id = "gemini"
tenant = "logistics"
profile = "gemini"
api_keys = ["sha256:b647c36e02b856909e64617626b8bc671ccf00da8596ac6cb86487d5586af07d"]
toolsets = ["full"]

[[client]]
id = "lazy"
tenant = "logistics"
api_keys = ["sha256:b0a603f422515d2eefa8e9469658dba7415fe101d1239bd54bd15b33928b6ef7"]
toolsets = ["lazy"]
"#;

#[test]
fn only_a_client_shown_the_header_annotations_must_send_the_headers() {
    let server = Server::new("shipping", "1")
        .tool::<Ship>()
        .catalog_toml(SHIPPING_CATALOG, "shipping.toml");
    let (address, stop) = common::spawn(server);
    let call = json!({"name": "ship", "arguments": {"region": "eu-west"}, "_meta": meta()});
    for (key, annotated) in [
        ("shipper-key", true),
        ("gemini-key", false),
        ("lazy-key", false),
    ] {
        let (_, list) = send(
            address,
            1,
            "tools/list",
            json!({"_meta": meta()}),
            &[("X-API-Key", Some(key))],
        );
        let listed = list["result"]["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|tool| tool["name"] == "ship"))
            .cloned()
            .unwrap_or_else(|| panic!("{key} sees ship: {list:#}"));
        assert_eq!(
            listed.to_string().contains("x-mcp-header"),
            annotated,
            "{key}: {listed:#}"
        );
        let reply = send(
            address,
            2,
            "tools/call",
            call.clone(),
            &[("X-API-Key", Some(key))],
        );
        if annotated {
            refused(&reply, 400, -32020, 2);
        } else {
            assert_eq!(
                reply.0, 200,
                "{key} is not asked for headers: {:#}",
                reply.1
            );
            assert_eq!(
                reply.1["result"]["content"][0]["text"],
                "to eu-west (None) None"
            );
        }
    }
    drop(stop);
}
