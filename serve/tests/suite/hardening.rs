//! Hostile and malformed input over HTTP gets a bounded, clear answer, and
//! the server stays as it was: each test sends what an adversarial run sent
//! and checks the outcome.

use std::fmt::Write as _;
use std::net::SocketAddr;

use serde_json::{Value, json};
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::Server;
use toolschema_test_support::{connect, exchange, post_mcp};

use crate::common;

fn start() -> SocketAddr {
    let server = Server::new("billing", "1")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>();
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

/// Arguments with `count` unknown keys, about `count * 13` bytes.
fn unknown_keys(count: usize) -> String {
    let mut text = String::from(r#"{"customer": "cust-42""#);
    for i in 0..count {
        let _ = write!(text, r#","k{i:07}":0"#);
    }
    text.push('}');
    text
}

/// `POST /v1/tools/billing.list-invoices/call` with `body`: the status and
/// the reply.
fn list_invoices_over_rest(address: SocketAddr, body: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = connect(address);
    exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.list-invoices/call",
        &[("Content-Type", "application/json")],
        body,
    )
}

#[test]
fn a_rest_body_is_one_json_value_read_once_by_the_tool() {
    let address = start();
    let status = |body: &[u8]| list_invoices_over_rest(address, body);
    // Spaced around: one value still.
    assert_eq!(status(b" \r\n\t{\"customer\": \"cust-42\"} \n").0, 200);
    // More than one value, or text after it: not JSON, whatever the tool.
    for body in [
        &br#"{"customer": "cust-42"} x"#[..],
        br#"{"customer": "cust-42"}{}"#,
        br#"{"customer": "cust-42"}}"#,
        b"{\"customer\": \"cust-\xff\"}",
        b"\x0c{\"customer\": \"cust-42\"}",
    ] {
        let (code, reply) = status(body);
        let reply: Value = serde_json::from_slice(&reply).expect("JSON");
        assert_eq!(
            (code, &reply["error"]),
            (400, &json!("invalid_json")),
            "{reply}"
        );
    }
    // Read by the tool and refused: each violation, at its place.
    let (code, reply) = status(br#"{"customer": 5, "limit": 0}"#);
    let reply: Value = serde_json::from_slice(&reply).expect("JSON");
    assert_eq!(code, 422);
    let paths: Vec<&str> = reply["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .filter_map(|v| v["path"].as_str())
        .collect();
    assert_eq!(paths, ["/customer", "/limit"]);
}

/// The most a refusal of any size of arguments may take.
const REPLY_BOUND: usize = 64 * 1024;

#[test]
fn a_flood_of_unknown_keys_gets_a_bounded_report_over_rest() {
    let address = start();
    let body = unknown_keys(70_000);
    assert!(body.len() > 900_000, "{}", body.len());
    let (status, reply) = list_invoices_over_rest(address, body.as_bytes());
    assert_eq!(status, 422);
    assert!(
        reply.len() < REPLY_BOUND,
        "a reply of {} bytes",
        reply.len()
    );
    let reply: Value = serde_json::from_slice(&reply).expect("JSON");
    let listed = reply["violations"].as_array().expect("violations");
    assert_eq!(listed.len(), 100);
    assert_eq!(reply["omitted"], 70_000 - 100);
    // The first by path, each naming its key.
    assert_eq!(listed[0]["path"], "/k0000000");
    assert_eq!(listed[99]["path"], "/k0000099");
    let message = reply["message"].as_str().expect("message");
    assert!(
        message.starts_with("the arguments break 70000 rules:"),
        "{message:.80}"
    );
    assert!(
        message.ends_with("and 69900 more, not listed; fix these and the rest will be reported.")
    );
}

#[test]
fn a_flood_of_unknown_keys_gets_a_bounded_report_over_mcp() {
    let address = start();
    let arguments: Value = serde_json::from_str(&unknown_keys(70_000)).expect("JSON");
    let message = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "billing.list-invoices", "arguments": arguments}
    });
    let (status, reply) = post_mcp(address, &[("MCP-Protocol-Version", "2025-11-25")], &message);
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["isError"], true);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.len() < REPLY_BOUND, "a reply of {} bytes", text.len());
    assert_eq!(text.matches("is not a parameter here").count(), 100);
    assert!(text.contains("and 69900 more"), "{text:.200}");
}

#[test]
fn a_huge_key_is_named_but_not_echoed_whole() {
    let address = start();
    let key = "x".repeat(500_000);
    let body = format!(r#"{{"customer": "cust-42", "{key}": 1}}"#);
    let (status, reply) = list_invoices_over_rest(address, body.as_bytes());
    assert_eq!(status, 422);
    assert!(reply.len() < 4096, "a reply of {} bytes", reply.len());
    let reply: Value = serde_json::from_slice(&reply).expect("JSON");
    let path = reply["violations"][0]["path"].as_str().expect("path");
    assert!(path.starts_with("/xxxx") && path.ends_with('…'), "{path}");
    assert_eq!(reply["violations"][0]["rule"], "additionalProperties");
}

/// The demo catalog, served with its keys.
fn start_governed() -> SocketAddr {
    let server = Server::new("billing", "1")
        .registry(toolschema_demo::registry())
        .catalog_toml(toolschema_demo::CATALOG_TOML, "catalog.toml");
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

const ACME: &str = "demo-acme-finance-key";
const GLOBEX: &str = "demo-globex-support-key";

/// GET /v1/tools with raw header lines: the status, the body and the
/// `WWW-Authenticate` challenge.
fn list_with(address: SocketAddr, headers: &[(&str, &str)]) -> (u16, Value, Option<String>) {
    use std::io::{Read as _, Write as _};
    let mut stream = connect(address);
    let mut request =
        String::from("GET /v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a response");
    let status = head[9..12].parse().expect("status");
    let challenge = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("www-authenticate")
            .then(|| value.trim().to_owned())
    });
    (
        status,
        serde_json::from_str(body).unwrap_or(Value::Null),
        challenge,
    )
}

fn names(list: &Value) -> Vec<&str> {
    toolschema_test_support::tool_names(&list["tools"])
}

#[test]
fn one_request_is_one_client_or_none() {
    let address = start_governed();
    let bearer = |key: &str| format!("Bearer {key}");
    let (status, acme, _) = list_with(address, &[("Authorization", &bearer(ACME))]);
    assert_eq!(status, 200);
    let acme_tools = names(&acme).join(",");
    // The scheme is case-insensitive; the same key twice is one key.
    for headers in [
        vec![("Authorization", format!("bearer {ACME}"))],
        vec![("Authorization", format!("BEARER   {ACME}"))],
        vec![
            ("Authorization", bearer(ACME)),
            ("X-API-Key", ACME.to_owned()),
        ],
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let (status, list, _) = list_with(address, &headers);
        assert_eq!(status, 200, "{headers:?}");
        assert_eq!(names(&list).join(","), acme_tools, "{headers:?}");
    }
    // Two clients at once, two headers of a kind, another scheme, a blank
    // key: refused, and said why.
    for (headers, why) in [
        (
            vec![
                ("Authorization", bearer(ACME)),
                ("X-API-Key", GLOBEX.to_owned()),
            ],
            "different keys",
        ),
        (
            vec![
                ("Authorization", bearer(ACME)),
                ("Authorization", bearer(GLOBEX)),
            ],
            "two of the same header",
        ),
        (
            vec![
                ("X-API-Key", ACME.to_owned()),
                ("X-API-Key", ACME.to_owned()),
            ],
            "two of the same header",
        ),
        (
            vec![("Authorization", format!("Basic {ACME}"))],
            "only the Bearer scheme",
        ),
        (
            vec![("Authorization", "Bearer  ".to_owned())],
            "Bearer scheme",
        ),
        (vec![("X-API-Key", " ".to_owned())], "blank"),
    ] {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let (status, body, challenge) = list_with(address, &headers);
        assert_eq!(status, 401, "{headers:?}");
        assert!(
            body["message"].as_str().is_some_and(|m| m.contains(why)),
            "{headers:?}: {body}"
        );
        assert_eq!(
            challenge.as_deref(),
            Some(r#"Bearer realm="mcp", error="invalid_token""#)
        );
    }
    // No credential: a challenge without an error.
    let (status, _, challenge) = list_with(address, &[]);
    assert_eq!(status, 401);
    assert_eq!(challenge.as_deref(), Some(r#"Bearer realm="mcp""#));
    let (status, _, challenge) = list_with(address, &[("X-API-Key", "wrong")]);
    assert_eq!(status, 401);
    assert_eq!(
        challenge.as_deref(),
        Some(r#"Bearer realm="mcp", error="invalid_token""#)
    );
}

/// Sends raw request bytes; the status.
fn raw_status(address: SocketAddr, request: &str) -> u16 {
    use std::io::{Read as _, Write as _};
    let mut stream = connect(address);
    stream.write_all(request.as_bytes()).expect("write");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[test]
fn only_well_formed_served_hosts_pass() {
    let address = start();
    let port = address.port();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let post = |target: &str, hosts: &[String]| {
        let mut request = format!("POST {target} HTTP/1.1\r\n");
        for host in hosts {
            request.push_str(&format!("Host: {host}\r\n"));
        }
        request.push_str(&format!(
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{ping}",
            ping.len()
        ));
        raw_status(address, &request)
    };
    assert_eq!(post("/mcp", &[format!("127.0.0.1:{port}")]), 200);
    assert_eq!(post("/mcp", &[format!("localhost:{port}")]), 200);
    assert_eq!(post("/mcp", &[format!("[::1]:{port}")]), 200);
    for hosts in [
        vec![format!("127.0.0.1:{port}@evil.com")],
        vec!["127.0.0.1:abc".to_owned()],
        vec![format!("127.0.0.1:{port}"), "evil.com".to_owned()],
        vec!["evil.com".to_owned()],
        vec![format!("[::1]x:{port}")],
        vec![],
    ] {
        let status = post("/mcp", &hosts);
        assert!(status == 403 || status == 400, "{hosts:?}: {status}");
    }
    // An absolute-form target names the host the request is for.
    let status = post("http://evil.com/mcp", &[format!("127.0.0.1:{port}")]);
    assert!(status == 403 || status == 400, "absolute form: {status}");
    assert_eq!(
        post(
            &format!("http://127.0.0.1:{port}/mcp"),
            &[format!("127.0.0.1:{port}")]
        ),
        200
    );
}

/// A server whose clients must be quick.
fn start_impatient() -> SocketAddr {
    let quick = std::time::Duration::from_millis(300);
    let server = Server::new("billing", "1")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>()
        .http_timeouts(toolschema_serve::HttpTimeouts {
            headers: quick,
            body: quick,
            idle: quick,
        });
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

/// Reads until the server closes the connection (or 5 s pass): what it
/// sent, and whether it closed.
fn read_until_closed(stream: &mut std::net::TcpStream) -> (String, bool) {
    use std::io::Read as _;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("timeout");
    let mut all = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return (String::from_utf8_lossy(&all).into_owned(), true),
            Ok(n) => all.extend_from_slice(&buffer[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                return (String::from_utf8_lossy(&all).into_owned(), true);
            }
            Err(_) => return (String::from_utf8_lossy(&all).into_owned(), false),
        }
    }
}

#[test]
fn a_connection_that_sends_nothing_or_dawdles_is_closed() {
    use std::io::Write as _;
    let address = start_impatient();
    let started = std::time::Instant::now();
    // Nothing at all.
    let mut silent = connect(address);
    assert!(
        read_until_closed(&mut silent).1,
        "an idle connection stays open"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(3));

    // Headers a byte at a time.
    let mut slow = connect(address);
    let head = b"GET /v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let mut cut_off = false;
    for byte in head {
        if slow.write_all(&[*byte]).is_err() {
            cut_off = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (answer, closed) = read_until_closed(&mut slow);
    assert!(cut_off || closed, "slow headers were served: {answer}");
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");

    // A body a byte at a time: 408.
    let mut dawdler = connect(address);
    dawdler
        .write_all(b"POST /v1/tools/billing.list-invoices/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{")
        .expect("head");
    for _ in 0..10 {
        if dawdler.write_all(b" ").is_err() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (answer, closed) = read_until_closed(&mut dawdler);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(closed);
}

#[test]
fn a_kept_alive_connection_is_closed_when_idle_but_an_event_stream_is_not() {
    use std::io::Write as _;
    let address = start_impatient();
    let mut stream = connect(address);
    let (status, _) = exchange(&mut stream, "GET", "/v1/tools", &[], b"");
    assert_eq!(status, 200);
    let (_, closed) = read_until_closed(&mut stream);
    assert!(closed, "an idle kept-alive connection stays open");

    // The handshake era's event stream: a request in flight, however
    // quiet.
    let mut events = connect(address);
    events
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n")
        .expect("request");
    events
        .set_read_timeout(Some(std::time::Duration::from_millis(1500)))
        .expect("timeout");
    let mut buffer = [0u8; 1024];
    let n = std::io::Read::read(&mut events, &mut buffer).expect("the stream's head");
    assert!(String::from_utf8_lossy(&buffer[..n]).starts_with("HTTP/1.1 200"));
    // Three idle timeouts later it is still open: a read times out rather
    // than ending.
    std::thread::sleep(std::time::Duration::from_millis(900));
    match std::io::Read::read(&mut events, &mut buffer) {
        Ok(0) => panic!("the event stream was closed as idle"),
        Ok(_) => {}
        Err(error) => assert!(
            matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "{error}"
        ),
    }
}

/// Reads an event stream until it ends (its last chunk) or `wait` passes:
/// what came, and whether it ended.
fn read_stream(stream: &mut std::net::TcpStream, wait: std::time::Duration) -> (String, bool) {
    use std::io::Read as _;
    let deadline = std::time::Instant::now() + wait;
    stream
        .set_read_timeout(Some(std::time::Duration::from_millis(100)))
        .expect("timeout");
    let mut all = Vec::new();
    let mut buffer = [0u8; 4096];
    while std::time::Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => return (String::from_utf8_lossy(&all).into_owned(), true),
            Ok(n) => {
                all.extend_from_slice(&buffer[..n]);
                // The last chunk of a chunked body.
                if all == b"0\r\n\r\n" || all.ends_with(b"\r\n0\r\n\r\n") {
                    return (String::from_utf8_lossy(&all).into_owned(), true);
                }
            }
            Err(_) => {}
        }
    }
    (String::from_utf8_lossy(&all).into_owned(), false)
}

#[test]
fn a_revoked_key_loses_its_streams() {
    use std::io::Write as _;
    let dir = std::env::temp_dir().join(format!("toolschema-revoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("catalog.toml");
    let text = toolschema_demo::CATALOG_TOML;
    std::fs::write(&path, text).expect("write");
    let server = Server::new("billing", "1")
        .registry(toolschema_demo::registry())
        .catalog_file(&path)
        .reload_every(std::time::Duration::from_millis(20))
        .reload_settle(std::time::Duration::ZERO);
    let (address, stop) = common::spawn(server);
    let open = |key: &str| {
        let mut stream = connect(address);
        stream
            .write_all(format!("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nX-API-Key: {key}\r\n\r\n").as_bytes())
            .expect("request");
        let (head, ended) = read_stream(&mut stream, std::time::Duration::from_millis(300));
        assert!(head.starts_with("HTTP/1.1 200") && !ended, "{head}");
        stream
    };
    let mut acme = open(ACME);
    let mut globex = open(GLOBEX);
    // Acme's key is revoked; its client and every list stay as they were.
    let acme_hash = text
        .lines()
        .skip_while(|line| *line != "id = \"acme-finance\"")
        .find(|line| line.starts_with("api_keys"))
        .expect("acme's keys");
    let revoked = text.replacen(acme_hash, "api_keys = []", 1);
    assert_ne!(revoked, text);
    let staged = dir.join("catalog.toml.new");
    std::fs::write(&staged, revoked).expect("write");
    std::fs::rename(&staged, &path).expect("publish");
    let (said, ended) = read_stream(&mut acme, std::time::Duration::from_secs(5));
    let (status, _, _) = list_with(address, &[("X-API-Key", ACME)]);
    assert_eq!(status, 401, "the key is revoked");
    assert!(ended, "the revoked key's stream stays open: {said}");
    let (said, ended) = read_stream(&mut globex, std::time::Duration::from_millis(500));
    assert!(!ended, "another client's stream ended: {said}");
    let _ = stop.send(());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn search_tools_listed_over_rest_is_served_over_rest() {
    let text = toolschema_test_support::in_search_mode(toolschema_demo::CATALOG_TOML, None);
    let server = Server::new("billing", "1")
        .registry(toolschema_demo::registry())
        .catalog_toml(&text, "catalog.toml");
    let (address, stop) = common::spawn(server);
    let key = [("X-API-Key", ACME)];
    let (status, list, _) = list_with(address, &key);
    assert_eq!(status, 200);
    let names: Vec<&str> = list["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["discover_tool_schema", "search_tools"]);
    let mut stream = connect(address);
    for meta in ["search_tools", "discover_tool_schema"] {
        let (status, descriptor) =
            exchange(&mut stream, "GET", &format!("/v1/tools/{meta}"), &key, b"");
        assert_eq!(status, 200);
        let descriptor: Value = serde_json::from_slice(&descriptor).expect("JSON");
        let listed = list["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == meta));
        assert_eq!(
            Some(&descriptor),
            listed,
            "the descriptor is the listed one"
        );
    }
    let (status, found) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/search_tools/call",
        &key,
        br#"{"query": "refund a paid invoice", "limit": 3}"#,
    );
    assert_eq!(status, 200);
    let found: Value = serde_json::from_slice(&found).expect("JSON");
    assert_eq!(
        found["result"]["tools"][0]["name"], "billing.refund",
        "{found}"
    );
    assert_eq!(found["result"]["returned"], 3, "{found}");
    let (status, refused) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/search_tools/call",
        &key,
        br#"{"query": "refund", "detail": "everything"}"#,
    );
    assert_eq!(status, 422);
    let refused: Value = serde_json::from_slice(&refused).expect("JSON");
    assert_eq!(refused["violations"][0]["path"], "/detail", "{refused}");
    assert_eq!(refused["violations"][0]["rule"], "enum", "{refused}");
    let (status, described) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/discover_tool_schema/call",
        &key,
        br#"{"names": ["billing.refund", "support.open-ticket"]}"#,
    );
    assert_eq!(
        status, 404,
        "another tenant's tool is unknown: {described:?}"
    );
    // A tool in search mode is called over REST by its name.
    let (status, paid) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.get-invoice/call",
        &key,
        br#"{"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}"#,
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&paid));
    let _ = stop.send(());
}

#[test]
fn the_meta_tool_listed_over_rest_is_served_over_rest() {
    let address = start_governed();
    let key = [("X-API-Key", "demo-acme-assistant-key")];
    let (status, list, _) = list_with(address, &key);
    assert_eq!(status, 200);
    let listed = list["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "discover_tool_schema"))
        .expect("a reduced-mode client is listed the meta-tool")
        .clone();
    let mut stream = connect(address);
    let (status, descriptor) = exchange(
        &mut stream,
        "GET",
        "/v1/tools/discover_tool_schema",
        &key,
        b"",
    );
    assert_eq!(status, 200);
    let descriptor: Value = serde_json::from_slice(&descriptor).expect("JSON");
    assert_eq!(descriptor, listed, "the descriptor is the listed one");

    let (status, found) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/discover_tool_schema/call",
        &key,
        br#"{"name": "billing.list-invoices"}"#,
    );
    assert_eq!(status, 200);
    let found: Value = serde_json::from_slice(&found).expect("JSON");
    assert_eq!(found["result"]["name"], "billing.list-invoices");
    assert!(
        found["result"]["inputSchema"]["properties"]["customer"].is_object(),
        "{found}"
    );

    let (status, _) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/discover_tool_schema/call",
        &key,
        br#"{"name": "support.open-ticket"}"#,
    );
    assert_eq!(status, 404, "another tenant's tool is unknown");
    let (status, refused) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/discover_tool_schema/call",
        &key,
        b"{}",
    );
    assert_eq!(status, 422);
    let refused: Value = serde_json::from_slice(&refused).expect("JSON");
    assert_eq!(refused["violations"][0]["path"], "/name");

    // A client shown every tool in Full mode has no meta-tool.
    let finance = [("X-API-Key", ACME)];
    let (status, _) = exchange(
        &mut stream,
        "GET",
        "/v1/tools/discover_tool_schema",
        &finance,
        b"",
    );
    assert_eq!(status, 404);
}
