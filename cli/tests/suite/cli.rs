//! The `toolschema` binary end to end: its commands, MCP over stdio, and the
//! HTTP server (MCP, REST, authentication, isolation, limits, load).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use toolschema_test_support::{exchange, spec_validator};

use crate::common;
use common::{BIN, Http, connect, read_events, root, run};

/// The demo catalog with globex's support toolset in Full mode: only
/// `globex-support`'s list changes.
fn globex_in_full(text: &str) -> String {
    text.replace(
        "mode = \"lazy\"\ntools = [\"support.open-ticket\"",
        "mode = \"full\"\ntools = [\"support.open-ticket\"",
    )
}

#[test]
fn list_prints_a_clients_tools() {
    let (ok, out, _) = run(&["list", "--client", "acme-assistant"]);
    assert!(ok);
    let list: Value = serde_json::from_str(&out).expect("JSON");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "discover_tool_schema"
        ]
    );
    let (ok, _, err) = run(&["list", "--client", "nobody"]);
    assert!(!ok && err.contains("nobody"));
}

#[test]
fn list_stats_prints_what_lists_cost_in_tokens() {
    let (ok, stdout, stderr) = run(&["list", "--client", "globex-support", "--stats"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("tokens counted with o200k_base"),
        "{stdout}"
    );
    let row = |name: &str| -> Vec<usize> {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` row in {stdout}"));
        line[name.len()..]
            .split_whitespace()
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let (lazy, meta, list, full) = (
        row("lazy"),
        row("discover_tool_schema"),
        row("the list"),
        row("all in Full mode"),
    );
    assert_eq!(lazy[0] + meta[0], list[0], "tools: {stdout}");
    assert_eq!(full[0], lazy[0], "the meta-tool is not in the Full list");
    assert!(list[2] < full[2], "{stdout}");
    let saving = 100.0 * (1.0 - list[2] as f64 / full[2] as f64);
    assert!(
        stdout.contains(&format!(
            "saving: {saving:.1}% of the Full list's tokens ({} fewer)",
            full[2] - list[2]
        )),
        "{stdout}"
    );

    let (ok, table, stderr) = run(&["list", "--all-clients"]);
    assert!(ok, "{stderr}");
    for client in [
        "acme-analyst",
        "acme-assistant",
        "acme-finance",
        "globex-support",
    ] {
        assert!(
            table.lines().any(|line| line.starts_with(client)),
            "{client} missing: {table}"
        );
    }
    // The same client's line says the same as its own table.
    let line = table
        .lines()
        .find(|line| line.starts_with("globex-support"))
        .expect("a line");
    assert!(
        line.contains(&format!("{} ", list[1])) && line.contains(&format!("{:.1}%", saving)),
        "{line}"
    );
    let (ok, _, stderr) = run(&["list", "--client", "nobody", "--stats"]);
    assert!(
        !ok && stderr.contains("no client application `nobody`"),
        "{stderr}"
    );
    let (ok, _, stderr) = run(&["list"]);
    assert!(!ok && stderr.contains("--client"), "{stderr}");
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `toolschema list ... | head -c 600`: the pipe closes before the list
    // is written.
    let mut child = Command::new(BIN)
        .args(["list", "--client", "globex-support"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn check_reports_every_problem() {
    let (ok, out, _) = run(&["check", "examples/catalog.toml"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("ok (2 tenants, 5 toolsets, 4 client applications, 0 gateway tools)"),
        "{out}"
    );
    let dir = std::env::temp_dir().join(format!("toolschema-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[[tenant]]\nid = \"a\"\n[[toolset]]\nid = \"s\"\ntenant = \"b\"\nmode = \"eager\"\ntools = [\"billing.get-invoce\"]\n").expect("write");
    let (ok, _, err) = run(&["check", bad.to_str().expect("utf-8")]);
    assert!(!ok);
    assert!(err.contains("4 problems"), "{err}");
    assert!(err.contains("names no client application"), "{err}");
    assert!(
        err.contains(":5:10: toolset[0].tenant: unknown tenant `b`"),
        "{err}"
    );
    assert!(
        err.contains("unknown mode `eager`") && err.contains("did you mean `billing.get-invoice`"),
        "{err}"
    );
    // An empty file is not an empty catalog.
    let empty = dir.join("empty.toml");
    std::fs::write(&empty, "").expect("write");
    let (ok, out, err) = run(&["check", empty.to_str().expect("utf-8")]);
    assert!(!ok, "{out}");
    assert!(err.contains("the configuration is empty"), "{err}");
}

#[test]
fn export_checks_the_committed_file_and_keys_hash() {
    let (ok, out, err) = run(&["export", "--check", "examples/server.json"]);
    assert!(ok, "{err}");
    assert!(out.contains("up to date"));
    let (ok, out, _) = run(&["export", "--client", "globex-support"]);
    assert!(ok);
    assert!(out.contains("support.open-ticket") && !out.contains("billing."));
    let (ok, out, _) = run(&["hash-key", "demo-acme-finance-key"]);
    assert!(ok);
    assert!(
        std::fs::read_to_string(root().join("examples/catalog.toml"))
            .expect("read")
            .contains(out.trim())
    );
}

/// A running `serve --stdio`.
struct StdioServer {
    child: Child,
    replies: mpsc::Receiver<String>,
}

impl StdioServer {
    fn start(args: &[&str]) -> StdioServer {
        let mut child = Command::new(BIN)
            .args(["serve", "--stdio"])
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let stdout = child.stdout.take().expect("stdout");
        let (send, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        StdioServer { child, replies }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    fn next(&self) -> Value {
        serde_json::from_str(&self.next_text()).expect("each line is JSON")
    }

    /// The next line, as sent.
    fn next_text(&self) -> String {
        self.replies
            .recv_timeout(Duration::from_secs(10))
            .expect("a reply")
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_stdio_session_lists_and_calls() {
    let mut server = StdioServer::start(&["--client", "acme-finance"]);
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let init = server.next();
    assert!(
        spec_validator("2025-11-25", "JSONRPCResultResponse").is_valid(&init),
        "{init}"
    );
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = server.next();
    assert_eq!(list["id"], 2, "the notification got no reply");
    assert!(spec_validator("2025-11-25", "ListToolsResult").is_valid(&list["result"]));
    server.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "billing.void-invoice", "arguments": {"invoiceId": "0c1e55aa-0000-4000-8000-000000000002", "reason": "duplicate"}}}));
    let call = server.next();
    assert!(
        spec_validator("2025-11-25", "CallToolResult").is_valid(&call["result"]),
        "{call}"
    );
    assert_eq!(call["result"]["structuredContent"]["status"], "void");
}

/// A copy of the demo configuration in a directory of its own (`name`
/// tells the tests apart): the directory, the file, and its text.
fn demo_config_copy(name: &str) -> (PathBuf, PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("toolschema-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("catalog.toml");
    let text = std::fs::read_to_string(root().join("examples/catalog.toml")).expect("read");
    std::fs::write(&config, &text).expect("write");
    (dir, config, text)
}

#[test]
fn a_stdio_client_hears_that_its_list_changed() {
    let (dir, config, text) = demo_config_copy("watch");
    let mut server = StdioServer::start(&[
        "--client",
        "globex-support",
        "--config",
        config.to_str().expect("utf-8"),
    ]);
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert_eq!(server.next()["id"], 1);
    std::fs::write(&config, globex_in_full(&text)).expect("write");
    let notice = server.next();
    assert_eq!(
        notice,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    for version in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        assert!(spec_validator(version, "ToolListChangedNotification").is_valid(&notice));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdio_survives_bad_bytes_and_answers_every_request_with_its_id() {
    let (dir, config, text) = demo_config_copy("stdio");
    let mut server = StdioServer::start(&[
        "--client",
        "acme-finance",
        "--config",
        config.to_str().expect("utf-8"),
    ]);
    // A line that is not UTF-8: a parse error (no id can be read), and the
    // next request is still served.
    server.send_raw(b"\xff\xfe{\n");
    let refused = server.next();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert!(refused.get("id").is_none_or(Value::is_null), "{refused}");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\"ping\"}\n");
    let big = server.next_text();
    assert!(
        big.contains(r#""id":18446744073709551616,"#),
        "the id echoed as sent: {big}"
    );
    for id in ["1e2", "true", "null", "[1]", "{}"] {
        server.send_raw(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes(),
        );
        let refused = server.next();
        assert_eq!(refused["error"]["code"], -32600, "{id}: {refused}");
    }
    // The client is removed from the configuration (published by rename):
    // its requests are refused, each with its id.
    let removed = text.replace("id = \"acme-finance\"", "id = \"acme-finance-retired\"");
    let staged = dir.join("catalog.toml.new");
    std::fs::write(&staged, removed).expect("write");
    std::fs::rename(&staged, &config).expect("publish");
    let mut reply = Value::Null;
    for id in 3..200 {
        server.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
        // The removal is announced first (the client's list changed).
        reply = server.next();
        while reply.get("method").is_some() {
            reply = server.next();
        }
        assert_eq!(reply["id"], id, "{reply}");
        if reply.get("error").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}

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
    let huge = vec![b' '; 2 << 20];
    let mut big = connect(server.port);
    let (status, _) = exchange(&mut big, "POST", "/mcp", &[ACME], &huge);
    assert_eq!(status, 413);
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
    let server = Http::start_with(&["--config", config.to_str().expect("utf-8")]);

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

/// A folder of its own holding a configuration with one tenant and one
/// client, for imports to add to.
fn scratch_config(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("toolschema-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("catalog.toml");
    std::fs::write(
        &config,
        "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n",
    )
    .expect("write");
    (dir, config)
}

const PETSTORE_IMPORT: [&str; 9] = [
    "import",
    "openapi",
    "examples/rest-gateway/petstore.json",
    "--downstream",
    "petstore",
    "--base-url",
    "http://127.0.0.1:4010",
    "--prefix",
    "petstore.",
];

#[test]
fn import_openapi_writes_drafts_and_reports_what_it_skips() {
    let (ok, json_out, stderr) = run(&PETSTORE_IMPORT);
    assert!(ok, "{stderr}");
    // What the configuration cannot carry is named, with the reason.
    assert!(
        stderr.contains("skipped uploadFile: the request body is multipart/form-data"),
        "{stderr}"
    );
    // A form of plain fields is written, sent as a form.
    assert!(!stderr.contains("skipped updatePetWithForm"), "{stderr}");
    assert!(stderr.contains("19 tools written as drafts"), "{stderr}");
    let written: toml::Table = json_out.parse().expect("TOML");
    let tools = written["gateway_tool"].as_array().expect("tools");
    assert_eq!(tools.len(), 19);
    assert!(
        tools.iter().any(
            |t| t["name"].as_str() == Some("petstore.update-pet-with-form")
                && t["version"][0]["encoding"].as_str() == Some("form")
        ),
        "{json_out}"
    );
    assert!(
        tools
            .iter()
            .flat_map(|t| t["version"].as_array().into_iter().flatten())
            .all(|v| v["status"].as_str() == Some("draft")),
        "every version is a draft"
    );
    // One downstream per security scheme, its secret named, never written.
    let downstreams: Vec<&str> = written["downstream"]
        .as_array()
        .expect("downstreams")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(
        downstreams,
        ["petstore-petstore-auth", "petstore-api-key", "petstore"]
    );

    // The YAML document says the same.
    let mut yaml = PETSTORE_IMPORT;
    yaml[2] = "examples/rest-gateway/petstore.yaml";
    let (ok, yaml_out, stderr) = run(&yaml);
    assert!(ok, "{stderr}");
    assert_eq!(yaml_out, json_out);

    // Added to a configuration, the result passes `check`; an operation
    // the document lacks is refused.
    let (dir, config) = scratch_config("import");
    let config_arg = config.display().to_string();
    let mut into: Vec<&str> = PETSTORE_IMPORT.to_vec();
    into.extend(["--into", &config_arg]);
    let (ok, stdout, stderr) = run(&into);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("19 gateway tools added"), "{stdout}");
    let (ok, stdout, stderr) = run(&["check", &config_arg]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("19 gateway tools"), "{stdout}");
    // Importing again clashes with the tools now there: refused, and the
    // file is left as it was.
    let before = std::fs::read_to_string(&config).expect("read");
    let (ok, _, stderr) = run(&into);
    assert!(!ok);
    assert!(stderr.contains("duplicate gateway tool"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), before);
    let mut unknown: Vec<&str> = PETSTORE_IMPORT.to_vec();
    unknown.extend(["--operations", "getPetById,flyPet"]);
    let (ok, _, stderr) = run(&unknown);
    assert!(!ok && stderr.contains("no operation `flyPet`"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

const INSURANCE_IMPORT: [&str; 7] = [
    "import",
    "wsdl",
    "examples/rest-gateway/insurance.wsdl",
    "--downstream",
    "insurance",
    "--prefix",
    "insurance.",
];

#[test]
fn import_wsdl_writes_soap_drafts_that_check_clean() {
    let (ok, stdout, stderr) = run(&INSURANCE_IMPORT);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("skipped FileClaim: the request is one of several elements (`xsd:choice`)"),
        "{stderr}"
    );
    assert!(stderr.contains("3 tools written as drafts"), "{stderr}");
    let written: toml::Table = stdout.parse().expect("TOML");
    let downstream = &written["downstream"].as_array().expect("downstreams")[0];
    assert_eq!(downstream["protocol"].as_str(), Some("soap"));
    assert_eq!(
        downstream["base_url"].as_str(),
        Some("http://127.0.0.1:4030/insurance")
    );
    assert!(downstream.get("soap_version").is_none());
    let tools = written["gateway_tool"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "insurance.get-quote",
            "insurance.list-policies",
            "insurance.cancel-policy"
        ]
    );
    let quote = &tools[0]["version"][0];
    assert_eq!(quote["operation"].as_str(), Some("GetQuote"));
    assert_eq!(quote["namespace"].as_str(), Some("urn:pets-inc:insurance"));
    assert_eq!(
        quote["soap_action"].as_str(),
        Some("urn:pets-inc:insurance/GetQuote")
    );
    let field = |version: &toml::Value, role: &str, name: &str| -> toml::Table {
        version[role]
            .as_array()
            .and_then(|fields| fields.iter().find(|f| f["name"].as_str() == Some(name)))
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_else(|| panic!("no {role} `{name}` in {version}"))
    };
    // Restrictions become keywords; attributes and repeated elements get
    // their source syntax; XSD dates keep their format only as arguments.
    let age = field(quote, "argument", "age_years");
    assert_eq!(age["source"].as_str(), Some("ageYears"));
    assert_eq!(
        (age["minimum"].as_integer(), age["maximum"].as_integer()),
        (Some(0), Some(30))
    );
    let currency = field(quote, "argument", "coverage.currency");
    assert_eq!(currency["source"].as_str(), Some("coverage.@currency"));
    assert_eq!(currency["pattern"].as_str(), Some("^(?:[A-Z]{3})$"));
    assert_eq!(
        field(quote, "argument", "extra")["max_items"].as_integer(),
        Some(5)
    );
    assert_eq!(
        field(quote, "argument", "start_date")["format"].as_str(),
        Some("date")
    );
    // The answer's lone `quote` element is read through.
    assert_eq!(
        field(quote, "result", "monthly_premium")["source"].as_str(),
        Some("quote.monthlyPremium")
    );
    assert!(
        field(quote, "result", "valid_until")
            .get("format")
            .is_none()
    );
    let cancel = &tools[2]["version"][0];
    assert_eq!(
        field(cancel, "argument", "policy_number")["pattern"].as_str(),
        Some("^(?:PI-[0-9]{6})$")
    );
    let policies = &tools[1]["version"][0];
    assert_eq!(
        field(policies, "result", "policy[].number")["source"].as_str(),
        Some("policy[].@number")
    );

    // The SOAP 1.2 port on request; the drafts pass `check` once added.
    let mut v12 = INSURANCE_IMPORT.to_vec();
    v12.extend(["--soap-version", "1.2", "--operations", "GetQuote"]);
    let (ok, stdout, stderr) = run(&v12);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("soap_version = \"1.2\"") && stdout.contains("/insurance12\""),
        "{stdout}"
    );
    let (dir, config) = scratch_config("wsdl");
    let config_arg = config.display().to_string();
    let mut into = INSURANCE_IMPORT.to_vec();
    into.extend(["--into", &config_arg]);
    let (ok, stdout, stderr) = run(&into);
    assert!(
        ok && stdout.contains("3 gateway tools added"),
        "{stdout}{stderr}"
    );
    let (ok, stdout, stderr) = run(&["check", &config_arg]);
    assert!(ok && stdout.contains("3 gateway tools"), "{stdout}{stderr}");
    let mut unknown = INSURANCE_IMPORT.to_vec();
    unknown.extend(["--operations", "GetQuote,FlyPet"]);
    let (ok, _, stderr) = run(&unknown);
    assert!(!ok && stderr.contains("no operation `FlyPet`"), "{stderr}");
    let (ok, _, stderr) = run(&["import", "wsdl", "examples/rest-gateway/petstore.json"]);
    assert!(!ok && stderr.contains("cannot be read"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);

    // The example serves what the import writes, reviewed: only statuses
    // and hints differ.
    let example: toml::Table =
        std::fs::read_to_string(root().join("examples/rest-gateway/catalog.toml"))
            .expect("the example")
            .parse()
            .expect("TOML");
    let reviewed = |tool: &toml::Value| -> toml::Value {
        let mut tool = tool.clone();
        for version in tool["version"].as_array_mut().into_iter().flatten() {
            if let Some(version) = version.as_table_mut() {
                for key in ["status", "read_only", "destructive"] {
                    version.remove(key);
                }
            }
        }
        tool
    };
    for tool in tools {
        let served = example["gateway_tool"]
            .as_array()
            .and_then(|all| all.iter().find(|t| t["name"] == tool["name"]))
            .unwrap_or_else(|| panic!("{} is not in the example", tool["name"]));
        assert_eq!(reviewed(served), reviewed(tool), "{}", tool["name"]);
    }
}

#[test]
fn the_rest_gateway_example_checks_clean() {
    let (ok, stdout, stderr) = run(&["check", "examples/rest-gateway/catalog.toml"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("2 client applications, 11 gateway tools"),
        "{stdout}"
    );
}
