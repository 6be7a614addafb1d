//! The HTTP server: MCP and REST per client, authentication and
//! isolation, limits, load, event streams and shutting down.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use toolschema_test_support::{answer_before_the_body, exchange, spec_validator};

use super::globex_in_full;
use crate::common::{Http, connect, read_events, root};

/// A running HTTP server on a free loopback port.
const GLOBEX: (&str, &str) = ("X-API-Key", "demo-globex-support-key");
const ACME: (&str, &str) = ("Authorization", "Bearer demo-acme-finance-key");

#[test]
fn http_serves_mcp_and_rest_per_client() {
    let server = Http::start();
    let mut stream = connect(server.port);
    let (status, _) = exchange(&mut stream, "GET", "/v1/tools", &[], b"");
    assert_eq!(status, 401);
    let (status, _) = exchange(
        &mut stream,
        "GET",
        "/v1/tools",
        &[("X-API-Key", "wrong")],
        b"",
    );
    assert_eq!(status, 401);
    let (status, body) = exchange(&mut stream, "GET", "/v1/tools", &[GLOBEX], b"");
    assert_eq!(status, 200);
    assert!(
        !String::from_utf8_lossy(&body).contains("billing."),
        "tenant isolation"
    );

    let mcp_list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let (_, body) = exchange(&mut stream, "POST", "/mcp", &[GLOBEX], mcp_list.as_bytes());
    let over_mcp: Value = serde_json::from_slice(&body).expect("JSON");
    let (_, rest) = exchange(&mut stream, "GET", "/v1/tools", &[GLOBEX], b"");
    let over_rest: Value = serde_json::from_slice(&rest).expect("JSON");
    assert_eq!(
        over_mcp["result"], over_rest,
        "the same descriptors over MCP and REST"
    );

    // A hidden tool is refused exactly as a missing one, over both.
    let refusal = |name: &str, stream: &mut TcpStream| {
        let (s1, b1) = exchange(stream, "GET", &format!("/v1/tools/{name}"), &[GLOBEX], b"");
        let (s2, b2) = exchange(
            stream,
            "POST",
            &format!("/v1/tools/{name}/call"),
            &[GLOBEX],
            b"{}",
        );
        let call =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name}})
                .to_string();
        let (s3, b3) = exchange(stream, "POST", "/mcp", &[GLOBEX], call.as_bytes());
        let text = format!(
            "{s1}{s2}{s3}{}{}{}",
            String::from_utf8_lossy(&b1),
            String::from_utf8_lossy(&b2),
            String::from_utf8_lossy(&b3)
        );
        text.replace(name, "NAME")
    };
    assert_eq!(
        refusal("billing.get-invoice", &mut stream),
        refusal("billing.none-such", &mut stream)
    );

    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.list-invoices/call",
        &[ACME],
        br#"{"customer": "", "limit": 0}"#,
    );
    assert_eq!(status, 422);
    let refused: Value = serde_json::from_slice(&body).expect("JSON");
    let paths: Vec<&str> = refused["violations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["path"].as_str())
        .collect();
    assert_eq!(paths, ["/customer", "/limit"]);
    let (status, body) = exchange(
        &mut stream,
        "GET",
        "/v1/tools/billing.get-invoice",
        &[ACME],
        b"",
    );
    assert_eq!(status, 200);
    assert!(
        spec_validator("2026-07-28", "Tool")
            .is_valid(&serde_json::from_slice(&body).expect("JSON"))
    );

    let (status, body) = exchange(&mut stream, "POST", "/mcp", &[ACME], b"{oops");
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).expect("JSON")["error"]["code"],
        -32700
    );
    let (status, _) = exchange(
        &mut stream,
        "POST",
        "/mcp",
        &[ACME],
        br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
    );
    assert_eq!(status, 202);
}

#[test]
fn http_refuses_foreign_hosts_and_oversized_bodies_and_stays_up() {
    let server = Http::start();
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let request = "GET /v1/tools HTTP/1.1\r\nHost: attacker.example\r\nX-API-Key: demo-globex-support-key\r\nContent-Length: 0\r\n\r\n";
    stream.write_all(request.as_bytes()).expect("write");
    let mut reply = [0u8; 12];
    stream.read_exact(&mut reply).expect("read");
    assert_eq!(&reply[9..12], b"403");

    let mut stream = connect(server.port);
    let (status, _) = exchange(
        &mut stream,
        "GET",
        "/v1/tools",
        &[GLOBEX, ("Origin", "http://attacker.example")],
        b"",
    );
    assert_eq!(status, 403);
    // 2 MiB announced: refused before the body is read.
    let mut big = connect(server.port);
    let (status, answer) =
        answer_before_the_body(&mut big, "POST", "/mcp", &[ACME], 2 << 20, &[b' '; 4096]);
    assert_eq!(status, 413, "{answer}");
    let mut again = connect(server.port);
    let (status, _) = exchange(&mut again, "GET", "/v1/tools", &[GLOBEX], b"");
    assert_eq!(status, 200, "still answering");
}

#[test]
fn a_bounded_load_test_ends_without_errors() {
    let server = Http::start();
    let port = server.port;
    let workers: Vec<_> = (0..64)
        .map(|worker| {
            std::thread::spawn(move || {
                let mut stream = connect(port);
                let mut failures = 0;
                for i in 0..157 {
                    let body =
                        json!({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).to_string();
                    let key = if worker % 2 == 0 { GLOBEX } else { ACME };
                    let (status, reply) =
                        exchange(&mut stream, "POST", "/mcp", &[key], body.as_bytes());
                    let ok = status == 200
                        && serde_json::from_slice::<Value>(&reply)
                            .is_ok_and(|v| v["result"]["tools"].is_array());
                    failures += usize::from(!ok);
                }
                (157, failures)
            })
        })
        .collect();
    let (mut total, mut failures) = (0, 0);
    for worker in workers {
        let (n, f) = worker.join().expect("a worker panicked");
        total += n;
        failures += f;
    }
    assert!(total >= 10_000);
    assert_eq!(failures, 0);
    let mut stream = connect(port);
    assert_eq!(
        exchange(&mut stream, "GET", "/v1/tools", &[GLOBEX], b"").0,
        200,
        "still answering"
    );
}

/// Reads server-sent events from `stream` until `count` more `data:`
/// messages arrived.
/// Opens a 2026-07-28 `subscriptions/listen` stream (id `id`) and an event
/// stream of the handshake era (`GET /mcp`), both as Globex's support
/// client; returns them with the listen stream's acknowledgment read.
fn open_streams(port: u16, id: &str) -> (TcpStream, Value, TcpStream) {
    let listen = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": {}},
            "notifications": {"toolsListChanged": true}
        }
    })
    .to_string();
    let mut modern = connect(port);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: demo-globex-support-key\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{listen}",
        listen.len()
    );
    modern.write_all(request.as_bytes()).expect("write");
    let ack = read_events(&mut modern, 1).remove(0);
    let mut legacy = connect(port);
    legacy
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: demo-globex-support-key\r\nAccept: text/event-stream\r\n\r\n")
        .expect("write");
    // Let the server open the legacy stream before anything happens.
    std::thread::sleep(Duration::from_millis(200));
    (modern, ack, legacy)
}

#[test]
fn http_streams_change_notices_in_both_eras() {
    let dir = std::env::temp_dir().join(format!("toolschema-cli-sse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("catalog.toml");
    let text = std::fs::read_to_string(root().join("examples/catalog.toml")).expect("read");
    std::fs::write(&config, &text).expect("write");
    let server = Http::start_with(&["--demo", "--config", config.to_str().expect("utf-8")]);

    let (mut modern, ack, mut legacy) = open_streams(server.port, "listen-1");
    assert!(
        spec_validator("2026-07-28", "SubscriptionsAcknowledgedNotification").is_valid(&ack),
        "{ack}"
    );
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);

    std::fs::write(&config, globex_in_full(&text)).expect("write");
    // The acknowledgment was read above; what comes now is the change.
    let modern_events = read_events(&mut modern, 1);
    let change = &modern_events[0];
    assert!(
        spec_validator("2026-07-28", "ToolListChangedNotification").is_valid(change),
        "{change}"
    );
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
    let legacy_events = read_events(&mut legacy, 1);
    assert!(
        spec_validator("2025-11-25", "ToolListChangedNotification").is_valid(&legacy_events[0])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shutting_down_ends_event_streams_and_exits() {
    let mut server = Http::start();
    let (mut modern, ack, mut legacy) = open_streams(server.port, "listen-9");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // What a container runtime sends to stop a service.
    let terminated = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(terminated.success());

    // The listen stream gets its result (the acknowledgment was read above),
    // then closes.
    let events = read_events(&mut modern, 1);
    let last = &events[0];
    assert_eq!(last["id"], "listen-9");
    assert!(
        spec_validator("2026-07-28", "JSONRPCResultResponse").is_valid(last),
        "{last}"
    );
    assert!(
        spec_validator("2026-07-28", "SubscriptionsListenResult").is_valid(&last["result"]),
        "{last}"
    );
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-9"
    );
    // Both streams end, and so does the server, on its own and cleanly.
    for stream in [&mut modern, &mut legacy] {
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        assert!(
            !String::from_utf8_lossy(&rest).contains("\"method\""),
            "nothing more after the end"
        );
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server still runs 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}
