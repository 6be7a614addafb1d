//! The MCP protocol core over the demo catalog: every message the server
//! sends validates against the schema of its protocol version; errors follow
//! DESIGN §5; tenants are isolated, and a refusal never tells a hidden tool
//! from a missing one.

use serde_json::{Value, json};
use toolschema_catalog::{Catalog, ClientView, Snapshot};
use toolschema_demo::CATALOG_TOML;
use toolschema_serve::mcp::{
    Answer, Backchannel, Headers, Identity, Incoming, LIST_CHANGED, Outcome, Protocol, Reply,
    STATELESS_VERSION, Session,
};
use toolschema_test_support::{assert_conforms as conforms, block_on, tool_names};

/// The protocol core as the binary configures it.
fn protocol() -> Protocol {
    Protocol::new(Identity::new("toolschema", "0.1.0"))
}

/// One message through the core, as a transport passes it: read once, then
/// answered; `None` when it needs no reply.
fn handle(
    protocol: &Protocol,
    snapshot: &Snapshot,
    view: &ClientView,
    session: &mut Session,
    bytes: &[u8],
) -> Option<Reply> {
    match read_as_parse_does(bytes, snapshot, view) {
        Incoming::Request(request) => {
            match block_on(protocol.handle(
                snapshot,
                view,
                session,
                request,
                &Headers::NONE,
                &Backchannel::none(),
            )) {
                Answer::Reply(reply) => Some(reply),
                Answer::Stream(subscription) => Some(Reply::from(subscription.acknowledgement())),
                _ => None,
            }
        }
        Incoming::Malformed(reply) => Some(reply),
        _ => None,
    }
}

/// `bytes` read as a transport reads them (a call's arguments read into
/// the tool's type as they are met), held to what [`Incoming::parse`] (the
/// envelope's reader alone) reads from them: the same request, or the
/// same refusal.
fn read_as_parse_does(bytes: &[u8], snapshot: &Snapshot, view: &ClientView) -> Incoming {
    let read = Incoming::parse_for(bytes, snapshot, view);
    let parsed = Incoming::parse(bytes);
    let text = String::from_utf8_lossy(bytes);
    match (&read, &parsed) {
        (Incoming::Request(read), Incoming::Request(parsed)) => {
            assert_eq!(read.id(), parsed.id(), "{text}");
            assert_eq!(read.method(), parsed.method(), "{text}");
            assert_eq!(read.params(), parsed.params(), "{text}");
            assert_eq!(read.arguments(), parsed.arguments(), "{text}");
        }
        (Incoming::Malformed(read), Incoming::Malformed(parsed)) => {
            assert_eq!(read.to_string(), parsed.to_string(), "{text}");
        }
        (read, parsed) => assert_eq!(format!("{read:?}"), format!("{parsed:?}"), "{text}"),
    }
    read
}

/// Whether the request's arguments were read into the tool's type.
fn read_ahead(incoming: &Incoming) -> bool {
    matches!(incoming, Incoming::Request(request) if format!("{request:?}").contains("ReadArguments"))
}

#[test]
fn a_message_read_member_by_member_is_the_message_the_envelope_reads() {
    let catalog = demo();
    let snapshot = catalog.snapshot();
    let view = snapshot.client("acme-finance").expect("demo client");
    let call = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#)
    };
    let get = |arguments: &str| {
        call(&format!(
            r#"{{"name":"billing.get-invoice","arguments":{arguments}}}"#
        ))
    };
    let deep = |levels: usize| format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
    // A value `x` beside the arguments, in `params`.
    let beside = |x: String| {
        call(&format!(
            r#"{{"name":"billing.get-invoice","x":{x},"arguments":{{}}}}"#
        ))
    };
    // Read ahead: the usual shapes, spaced or not, with other params.
    for message in [
        get(r#"{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"}"#),
        " \n{ \"method\" : \"tools/call\" , \"params\" : { \"_meta\" : {\"progressToken\": [1, {}]}, \"name\" : \"billing.get-invoice\" , \"arguments\" : { \"invoice_id\" : \"0c1e55aa-0000-4000-8000-000000000001\" } } , \"jsonrpc\" : \"2.0\" , \"id\" : \"a\" }\t"
            .to_owned(),
        // Arguments the tool refuses are read too: the call lists why.
        get(r#"{"invoice_id":7,"extra":true}"#),
        get(r#"{}"#),
        get(r#"[1,2]"#),
        get(r#""text""#),
        get(&deep(100)),
    ] {
        let read = read_as_parse_does(message.as_bytes(), &snapshot, view);
        assert!(read_ahead(&read), "{message}");
    }
    // Kept as text: what the call reads itself.
    for message in [
        // The name after the arguments, the method after the params.
        call(
            r#"{"arguments":{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"},"name":"billing.get-invoice"}"#,
        ),
        r#"{"jsonrpc":"2.0","id":4,"params":{"name":"billing.get-invoice","arguments":{}},"method":"tools/call"}"#.to_owned(),
        // A meta-tool, a tool the client does not see, no tool at all.
        call(r#"{"name":"discover_tool_schema","arguments":{"tool_name":"billing.get-invoice"}}"#),
        call(r#"{"name":"internal.reindex","arguments":{}}"#),
        call(r#"{"name":"nothing.here","arguments":{"a":1}}"#),
        call(r#"{"arguments":{"a":1}}"#),
        call(r#"{"name":7,"arguments":{"a":1}}"#),
        get("null"),
    ] {
        let read = read_as_parse_does(message.as_bytes(), &snapshot, view);
        assert!(
            matches!(&read, Incoming::Request(_)) && !read_ahead(&read),
            "{message}"
        );
    }
    // Read by the envelope alone, or near its limits: as it reads them.
    for message in [
        // Members twice, escapes in keys, unknown members, other ids.
        call(r#"{"name":"billing.get-invoice","name":"billing.refund","arguments":{}}"#),
        call(
            r#"{"name":"billing.get-invoice","arguments":{},"arguments":{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"}}"#,
        ),
        call(
            r#"{"na\u006de":"billing.get-invoice","arguments":{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"}}"#,
        ),
        r#"{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"ping","extra":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_owned(),
        // Not JSON, or more than one value.
        get(r#"{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"#),
        get(r#"{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"}}"#),
        format!(
            "{} x",
            get(r#"{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001"}"#)
        ),
        get(r#"{"invoice_id":"0c1e55aa-0000-4000-8000-000000000001",}"#),
        // Nesting at serde_json's limit, in the arguments and beside them.
        get(&deep(125)),
        get(&deep(126)),
        get(&deep(127)),
        get(&deep(128)),
        get(&format!(r#"{{"a":{}}}"#, deep(125))),
        get(&format!(r#"{{"a":{}}}"#, deep(126))),
        beside(deep(125)),
        beside(deep(128)),
        beside(format!(r#"{{"y":{}}}"#, deep(125))),
        beside(deep(126)),
        beside(deep(127)),
    ] {
        read_as_parse_does(message.as_bytes(), &snapshot, view);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// A call's bytes cut, doubled or changed anywhere read as the
    /// envelope reads them: an attacker's bytes get the same answer.
    #[test]
    fn bytes_changed_anywhere_read_as_the_envelope_reads_them(
        at in 0usize..200,
        edit in 0u8..4,
        byte in proptest::prelude::any::<u8>(),
    ) {
        let catalog = demo();
        let snapshot = catalog.snapshot();
        let view = snapshot.client("acme-finance").expect("demo client");
        let mut bytes = br#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"_meta":{"progressToken":3},"name":"billing.list-invoices","arguments":{"customer":"acme","status":"open","limit":20}}}"#.to_vec();
        let at = at % bytes.len();
        match edit {
            0 => { bytes.remove(at); }
            1 => bytes.insert(at, byte),
            2 => bytes[at] = byte,
            _ => { let copy = bytes[at..].to_vec(); bytes.extend_from_slice(&copy); }
        }
        read_as_parse_does(&bytes, &snapshot, view);
    }
}

const HANDSHAKE: [&str; 2] = ["2025-06-18", "2025-11-25"];
const PAID: &str = "0c1e55aa-0000-4000-8000-000000000001";

fn demo() -> Catalog {
    toolschema_demo::catalog()
}

/// Sends one message as `client` and returns the parsed reply.
/// One connection to the MCP core: the server and the session it keeps.
struct Chat<'a> {
    server: &'a Protocol,
    session: Session,
}

impl<'a> Chat<'a> {
    fn new(server: &'a Protocol) -> Chat<'a> {
        Chat {
            server,
            session: Session::default(),
        }
    }

    /// Sends `message` as `client` over `snapshot`; the reply, if any.
    fn send(&mut self, snapshot: &Snapshot, client: &str, message: Value) -> Option<Value> {
        let view = snapshot.client(client).expect("demo client");
        let bytes = message.to_string();
        let reply = handle(
            self.server,
            snapshot,
            view,
            &mut self.session,
            bytes.as_bytes(),
        )?;
        Some(serde_json::from_str(&reply.to_string()).expect("replies are JSON"))
    }
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn stateless(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "suite", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    params
}

fn response_kind(version: &str) -> &'static str {
    if version == "2025-06-18" {
        "JSONRPCResponse"
    } else {
        "JSONRPCResultResponse"
    }
}

fn error_kind(version: &str) -> &'static str {
    if version == "2025-06-18" {
        "JSONRPCError"
    } else {
        "JSONRPCErrorResponse"
    }
}

#[test]
fn a_handshake_session_speaks_each_version() {
    let catalog = demo();
    let snapshot = catalog.snapshot();
    let server = protocol();
    for version in HANDSHAKE {
        let mut chat = Chat::new(&server);
        let init = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "suite", "version": "1"}});
        let reply = chat
            .send(&snapshot, "acme-finance", request(1, "initialize", init))
            .expect("reply");
        conforms(version, response_kind(version), &reply);
        conforms(version, "InitializeResult", &reply["result"]);
        assert_eq!(reply["result"]["protocolVersion"], version);
        let none = chat.send(
            &snapshot,
            "acme-finance",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert!(none.is_none(), "notifications get no reply");

        let list = chat
            .send(
                &snapshot,
                "acme-finance",
                request(2, "tools/list", json!({})),
            )
            .expect("reply");
        conforms(version, response_kind(version), &list);
        conforms(version, "ListToolsResult", &list["result"]);
        assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(4));

        let call = chat
            .send(
                &snapshot,
                "acme-finance",
                request(
                    3,
                    "tools/call",
                    json!({"name": "billing.get-invoice", "arguments": {"invoice_id": PAID}}),
                ),
            )
            .expect("reply");
        conforms(version, response_kind(version), &call);
        conforms(version, "CallToolResult", &call["result"]);
        let structured = &call["result"]["structuredContent"];
        assert_eq!(structured["customer"], "cust-42");
        let text: Value =
            serde_json::from_str(call["result"]["content"][0]["text"].as_str().expect("text"))
                .expect("JSON text");
        assert_eq!(&text, structured, "the same JSON as text");

        let bad = chat.send(&snapshot, "acme-finance", request(4, "tools/call", json!({"name": "billing.list-invoices", "arguments": {"customer": "", "limit": 500, "colour": 1}})),
        )
        .expect("reply");
        conforms(version, "CallToolResult", &bad["result"]);
        assert_eq!(bad["result"]["isError"], true);
        let text = bad["result"]["content"][0]["text"].as_str().expect("text");
        for path in ["/customer", "/limit", "/colour"] {
            assert!(text.contains(path), "{path} missing in {text}");
        }

        let refused = chat
            .send(
                &snapshot,
                "acme-finance",
                request(5, "tools/call", json!({"name": "billing.nothing"})),
            )
            .expect("reply");
        conforms(version, error_kind(version), &refused);
        assert_eq!(refused["error"]["code"], -32602);

        let ping = chat
            .send(&snapshot, "acme-finance", request(6, "ping", json!({})))
            .expect("reply");
        conforms(version, response_kind(version), &ping);
        let missing = chat
            .send(
                &snapshot,
                "acme-finance",
                request(7, "prompts/list", json!({})),
            )
            .expect("reply");
        conforms(version, error_kind(version), &missing);
        assert_eq!(missing["error"]["code"], -32601);
    }
}

#[test]
fn unknown_handshake_versions_get_the_newest() {
    let snapshot = demo().snapshot();
    let server = protocol();
    let mut chat = Chat::new(&server);
    let init = json!({"protocolVersion": "2024-01-01", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}});
    let reply = chat
        .send(&snapshot, "acme-finance", request(1, "initialize", init))
        .expect("reply");
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(chat.session.protocol(), Some("2025-11-25"));
}

#[test]
fn the_stateless_revision_is_served() {
    let snapshot = demo().snapshot();
    let server = protocol();
    let mut chat = Chat::new(&server);
    let v = STATELESS_VERSION;
    let discover = chat
        .send(
            &snapshot,
            "acme-assistant",
            request(1, "server/discover", stateless(json!({}))),
        )
        .expect("reply");
    conforms(v, "JSONRPCResultResponse", &discover);
    conforms(v, "DiscoverResult", &discover["result"]);

    let list = chat
        .send(
            &snapshot,
            "acme-assistant",
            request(2, "tools/list", stateless(json!({}))),
        )
        .expect("reply");
    conforms(v, "ListToolsResult", &list["result"]);
    assert_eq!(list["result"]["cacheScope"], "private");
    let names: Vec<&str> = tool_names(&list["result"]["tools"]);
    assert_eq!(
        names,
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "discover_tool_schema"
        ]
    );

    let schema = chat.send(&snapshot, "acme-assistant", request(3, "tools/call", stateless(json!({"name": "discover_tool_schema", "arguments": {"name": "billing.list-invoices"}}))),
    )
    .expect("reply");
    conforms(v, "CallToolResult", &schema["result"]);
    conforms(v, "Tool", &schema["result"]["structuredContent"]);
    assert!(
        schema["result"]["structuredContent"]["outputSchema"].is_object(),
        "the Full descriptor"
    );

    let call = chat.send(&snapshot, "acme-assistant", request(4, "tools/call", stateless(json!({"name": "billing.list-invoices", "arguments": {"customer": "cust-42", "_schema_discovery": "seen"}}))),
    )
    .expect("reply");
    conforms(v, "CallToolResult", &call["result"]);
    assert_eq!(
        call["result"]["structuredContent"]["invoices"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    let mut wrong = stateless(json!({}));
    wrong["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let refused = chat
        .send(&snapshot, "acme-assistant", request(5, "tools/list", wrong))
        .expect("reply");
    conforms(v, "JSONRPCErrorResponse", &refused);
    assert_eq!(refused["error"]["code"], -32022);
    assert_eq!(refused["error"]["data"]["requested"], "1900-01-01");
}

#[test]
fn malformed_messages_get_json_rpc_errors() {
    let snapshot = demo().snapshot();
    let view = snapshot.client("acme-finance").expect("client");
    let server = protocol();
    let mut session = Session::default();
    let reply = |bytes: &[u8], session: &mut Session| -> Value {
        serde_json::from_str(
            &handle(&server, &snapshot, view, session, bytes)
                .expect("reply")
                .to_string(),
        )
        .expect("JSON")
    };
    assert_eq!(reply(b"{not json", &mut session)["error"]["code"], -32700);
    assert_eq!(reply(b"[1, 2]", &mut session)["error"]["code"], -32600);
    assert_eq!(
        reply(br#"{"id": 1, "method": "ping"}"#, &mut session)["error"]["code"],
        -32600
    );
    assert_eq!(
        reply(
            br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 3}"#,
            &mut session
        )["error"]["code"],
        -32602
    );
    assert_eq!(
        reply(
            br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}"#,
            &mut session
        )["error"]["code"],
        -32602
    );
    // 2025-06-18 requires an id on every error, which an unreadable message
    // does not have; later revisions let it be left out.
    for version in ["2025-11-25", STATELESS_VERSION] {
        conforms(
            version,
            "JSONRPCErrorResponse",
            &reply(b"{not json", &mut session),
        );
    }
    let response = handle(
        &server,
        &snapshot,
        view,
        &mut session,
        br#"{"jsonrpc": "2.0", "id": 9, "result": {}}"#,
    );
    assert!(response.is_none(), "a client's response needs no answer");
}

#[test]
fn pages_chain_through_cursors_and_stale_cursors_are_refused() {
    let catalog = demo();
    let snapshot = catalog.snapshot();
    let server = protocol().with_page_size(1);
    let mut chat = Chat::new(&server);
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for id in 0..10 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = chat
            .send(&snapshot, "acme-finance", request(id, "tools/list", params))
            .expect("reply");
        conforms("2025-11-25", "ListToolsResult", &page["result"]);
        names.extend(
            tool_names(&page["result"]["tools"])
                .into_iter()
                .map(str::to_owned),
        );
        cursor = page["result"]["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(
        names,
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "billing.refund",
            "billing.void-invoice"
        ]
    );

    let first = chat
        .send(
            &snapshot,
            "acme-finance",
            request(20, "tools/list", json!({})),
        )
        .expect("reply");
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("more pages")
        .to_owned();
    let changed = CATALOG_TOML.replace(
        "\"billing.void-invoice\", \"billing.refund\"",
        "\"billing.void-invoice\"",
    );
    catalog
        .reload_toml(&changed, "catalog.toml")
        .expect("valid");
    let fresh = catalog.snapshot();
    let stale = chat
        .send(
            &fresh,
            "acme-finance",
            request(21, "tools/list", json!({"cursor": cursor})),
        )
        .expect("reply");
    // The current list cannot read a cursor of the list before the reload…
    assert_eq!(stale["error"]["code"], -32602);
    // …but the catalog still holds that snapshot, where the listing
    // finishes as it began: four tools, the refund among them.
    let listing = request(21, "tools/list", json!({"cursor": cursor})).to_string();
    let Incoming::Request(listing) = Incoming::parse(listing.as_bytes()) else {
        panic!("a request");
    };
    let fingerprint = listing.cursor_fingerprint().expect("a cursor of ours");
    let before = catalog
        .snapshot_with_list("acme-finance", fingerprint)
        .expect("kept");
    let mut names = vec![
        first["result"]["tools"][0]["name"]
            .as_str()
            .expect("name")
            .to_owned(),
    ];
    let mut cursor = Some(cursor);
    while let Some(next) = cursor {
        let page = chat
            .send(
                &before,
                "acme-finance",
                request(23, "tools/list", json!({"cursor": next})),
            )
            .expect("reply");
        names.extend(
            tool_names(&page["result"]["tools"])
                .into_iter()
                .map(str::to_owned),
        );
        cursor = page["result"]["nextCursor"].as_str().map(str::to_owned);
    }
    assert_eq!(
        names,
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "billing.refund",
            "billing.void-invoice"
        ]
    );
    assert!(
        catalog
            .snapshot_with_list("acme-finance", fingerprint ^ 1)
            .is_none()
    );
    let junk = chat
        .send(
            &fresh,
            "acme-finance",
            request(22, "tools/list", json!({"cursor": "zzz"})),
        )
        .expect("reply");
    assert_eq!(junk["error"]["code"], -32602);
}

#[test]
fn tenants_are_isolated_and_refusals_reveal_nothing() {
    let snapshot = demo().snapshot();
    let server = protocol();
    let mut chat = Chat::new(&server);
    let list = chat
        .send(
            &snapshot,
            "globex-support",
            request(1, "tools/list", json!({})),
        )
        .expect("reply");
    assert!(
        !list.to_string().contains("billing."),
        "globex sees no acme tool"
    );
    let mut refusals = Vec::new();
    for name in ["billing.get-invoice", "billing.no-such-tool"] {
        let call = chat
            .send(
                &snapshot,
                "globex-support",
                request(
                    2,
                    "tools/call",
                    json!({"name": name, "arguments": {"invoice_id": PAID}}),
                ),
            )
            .expect("reply");
        let schema = chat
            .send(
                &snapshot,
                "globex-support",
                request(
                    3,
                    "tools/call",
                    json!({"name": "discover_tool_schema", "arguments": {"name": name}}),
                ),
            )
            .expect("reply");
        refusals.push((
            call.to_string().replace(name, "NAME"),
            schema.to_string().replace(name, "NAME"),
        ));
    }
    assert_eq!(
        refusals[0], refusals[1],
        "a hidden tool is refused exactly as a missing one"
    );
    assert!(refusals[0].0.contains("-32602"));
    // A client without reduced modes has no meta-tool to call.
    let meta = chat.send(&snapshot, "acme-finance", request(
            4,
            "tools/call",
            json!({"name": "discover_tool_schema", "arguments": {"name": "billing.get-invoice"}}),
        ),
    )
    .expect("reply");
    assert_eq!(meta["error"]["code"], -32602);
}

#[test]
fn the_list_changed_notification_is_valid() {
    let notification: Value = serde_json::from_str(LIST_CHANGED).expect("JSON");
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        conforms(version, "ToolListChangedNotification", &notification);
    }
}

/// The demo catalog with every toolset in search mode and every client in
/// `profile`.
fn searched(profile: &str) -> std::sync::Arc<Snapshot> {
    let text = toolschema_test_support::in_search_mode(CATALOG_TOML, Some(profile));
    Catalog::from_toml(toolschema_demo::registry(), &text, "search.toml")
        .expect("the demo in search mode")
        .snapshot()
}

/// `structuredContent` of a successful call, checked against the output
/// schema its tool is listed with.
fn structured(list: &Value, tool: &str, reply: &Value) -> Value {
    assert_ne!(reply["result"]["isError"], true, "{reply}");
    let listed = list["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == tool))
        .expect("listed");
    let structured = reply["result"]["structuredContent"].clone();
    let validator = jsonschema::validator_for(&listed["outputSchema"]).expect("compiles");
    let errors: Vec<String> = validator
        .iter_errors(&structured)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{tool}: {errors:?} in {structured}");
    // The text block carries the same JSON.
    let text: Value = serde_json::from_str(
        reply["result"]["content"][0]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON text");
    assert_eq!(text, structured);
    structured
}

#[test]
fn the_search_mode_speaks_every_version_in_every_profile() {
    let server = protocol();
    for profile in ["default", "openai-strict", "gemini"] {
        let snapshot = searched(profile);
        for version in HANDSHAKE.into_iter().chain([STATELESS_VERSION]) {
            let at = format!("{profile} {version}");
            let mut chat = Chat::new(&server);
            let params = |params: Value| match version {
                STATELESS_VERSION => stateless(params),
                _ => params,
            };
            if version != STATELESS_VERSION {
                let init = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "suite", "version": "1"}});
                chat.send(&snapshot, "acme-finance", request(1, "initialize", init))
                    .expect("reply");
                chat.send(
                    &snapshot,
                    "acme-finance",
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                );
            }
            let list = chat
                .send(
                    &snapshot,
                    "acme-finance",
                    request(2, "tools/list", params(json!({}))),
                )
                .expect("reply");
            conforms(version, "ListToolsResult", &list["result"]);
            assert_eq!(
                tool_names(&list["result"]["tools"]),
                ["discover_tool_schema", "search_tools"],
                "{at}: only the meta-tools are listed"
            );
            let call = |chat: &mut Chat<'_>, id: u64, name: &str, arguments: Value| {
                let reply = chat
                    .send(
                        &snapshot,
                        "acme-finance",
                        request(
                            id,
                            "tools/call",
                            params(json!({"name": name, "arguments": arguments})),
                        ),
                    )
                    .expect("reply");
                conforms(version, "CallToolResult", &reply["result"]);
                reply
            };
            // What a client of the profile sends: strict sends every
            // property, absent ones as null.
            let mut arguments = json!({"query": "void an invoice", "limit": 2});
            if profile == "openai-strict" {
                arguments["detail"] = Value::Null;
            }
            let found = call(&mut chat, 3, "search_tools", arguments);
            let found = structured(&list, "search_tools", &found);
            assert_eq!(
                found["tools"][0]["name"], "billing.void-invoice",
                "{at}: {found}"
            );
            assert_eq!(found["returned"], 2, "{at}: {found}");
            assert!(found["total"].as_u64() >= Some(2), "{at}: {found}");
            assert!(found["tools"][0].get("inputSchema").is_none(), "brief");

            let detailed = call(
                &mut chat,
                4,
                "search_tools",
                json!({"query": "invoice by id", "limit": 1, "detail": "schema"}),
            );
            let detailed = structured(&list, "search_tools", &detailed);
            let name = detailed["tools"][0]["name"]
                .as_str()
                .expect("a tool")
                .to_owned();
            let described = call(
                &mut chat,
                5,
                "discover_tool_schema",
                json!({"names": [name, "billing.refund"]}),
            );
            let described = structured(&list, "discover_tool_schema", &described);
            assert_eq!(described["tools"][0]["name"], name);
            assert_eq!(described["tools"][1]["name"], "billing.refund");
            assert_eq!(
                described["tools"][0]["inputSchema"], detailed["tools"][0]["inputSchema"],
                "{at}: detail `schema` is the schema discovery gives"
            );

            // Found tools are called by name, validated against their own
            // schema.
            let paid = call(
                &mut chat,
                6,
                "billing.get-invoice",
                json!({"invoice_id": PAID}),
            );
            assert_eq!(
                paid["result"]["structuredContent"]["customer"], "cust-42",
                "{at}: {paid}"
            );
            let refused = call(
                &mut chat,
                7,
                "billing.get-invoice",
                json!({"invoice_id": 7}),
            );
            assert_eq!(refused["result"]["isError"], true, "{at}: {refused}");
            let bad = call(
                &mut chat,
                8,
                "search_tools",
                json!({"query": "", "limit": 99}),
            );
            assert_eq!(bad["result"]["isError"], true, "{at}: {bad}");
            let text = bad["result"]["content"][0]["text"].as_str().unwrap_or("");
            assert!(
                text.contains("`/query` is empty") && text.contains("`/limit` must be"),
                "{text}"
            );
        }
    }
}

/// A call of a tool the caller's client has, in a toolset the scopes of
/// its access token do not unlock, is denied by the core itself: a reply
/// that names the scopes, for the transport to answer as its
/// authorization scheme says, whose text is the JSON-RPC error a
/// transport without one sends. Without a token, or for a tool the client
/// has in no toolset, the tool is unknown, as for anyone.
#[test]
fn the_core_denies_a_call_its_token_scopes_do_not_unlock() {
    let text = r#"
[authorization]
issuer = "https://idp.example.com"
resource = "https://mcp.example.com/mcp"
[[tenant]]
id = "acme"
[[client]]
id = "finance"
tenant = "acme"
toolsets = ["reading", "invoices"]
[[toolset]]
id = "reading"
tenant = "acme"
tools = ["billing.list-invoices"]
[[toolset]]
id = "invoices"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read"]
"#;
    let snapshot = Catalog::from_toml(toolschema_demo::registry(), text, "scoped.toml")
        .expect("valid")
        .snapshot();
    let client = snapshot.client("finance").expect("the client");
    let call_with = |view: &ClientView, tool: &str, headers: &Headers<'_>| -> Reply {
        let message = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": tool, "arguments": {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}}});
        let bytes = message.to_string();
        let Incoming::Request(request) = Incoming::parse_for(bytes.as_bytes(), &snapshot, view)
        else {
            panic!("a request");
        };
        match block_on(Protocol::new(Identity::new("t", "1")).handle(
            &snapshot,
            view,
            &mut Session::default(),
            request,
            headers,
            &Backchannel::none(),
        )) {
            Answer::Reply(reply) => reply,
            other => panic!("{other:?}"),
        }
    };
    let call = |view: &ClientView, tool: &str, scopes: Option<&[String]>| {
        let headers = Headers {
            scopes,
            ..Headers::NONE
        };
        call_with(view, tool, &headers)
    };
    let held = ["openid".to_owned()];
    let narrowed = snapshot.view_for_scopes(client, &["openid"]);

    let denied = call(&narrowed, "billing.get-invoice", Some(&held));
    let denial = denied.denial().expect("denied");
    assert_eq!(
        (denial.tool(), denial.scopes()),
        ("billing.get-invoice", &["invoices:read".to_owned()][..])
    );
    assert_eq!(denied.status(), 403);
    assert_eq!(denied.outcome(), Outcome::Denied);
    let error: Value = serde_json::from_str(&denied.to_string()).expect("JSON");
    conforms("2025-11-25", "JSONRPCErrorResponse", &error);
    assert_eq!(error["id"], 7);
    assert_eq!(error["error"]["code"], -32602);
    assert_eq!(
        error["error"]["message"],
        "calling `billing.get-invoice` needs a token with the scopes: invoices:read"
    );

    // Refused before anything else is read of the call: a 2026-07-28
    // request over HTTP without its `_meta` is denied all the same.
    let stateless = Headers {
        http: true,
        protocol_version: Some("2026-07-28"),
        method: Some("tools/call"),
        name: Some("billing.get-invoice"),
        scopes: Some(&held),
        ..Headers::NONE
    };
    let first = call_with(&narrowed, "billing.get-invoice", &stateless);
    assert_eq!(first.denial(), Some(denial));
    assert_eq!(first.to_string(), denied.to_string());
    let unscoped = Headers {
        scopes: None,
        ..stateless
    };
    let malformed = call_with(&narrowed, "billing.get-invoice", &unscoped);
    assert_eq!(malformed.status(), 400, "{malformed}");

    let unknown = |reply: Reply, tool: &str| {
        assert!(reply.denial().is_none(), "{reply}");
        let error: Value = serde_json::from_str(&reply.to_string()).expect("JSON");
        assert_eq!(error["error"]["message"], format!("Unknown tool: {tool}"));
    };
    unknown(
        call(&narrowed, "billing.get-invoice", None),
        "billing.get-invoice",
    );
    let void = "billing.void-invoice";
    unknown(call(&narrowed, void, Some(&held)), void);

    // With the scope, the tool is seen and runs.
    let scoped = ["invoices:read".to_owned()];
    let ran = call(client, "billing.get-invoice", Some(&scoped));
    assert!(ran.denial().is_none());
    let result: Value = serde_json::from_str(&ran.to_string()).expect("JSON");
    assert_eq!(
        result["result"]["structuredContent"]["status"], "paid",
        "{result}"
    );
}
