//! `serve --stdio`: an MCP session over the process's standard streams,
//! its change notices, and what it does with bad input.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use toolschema_test_support::spec_validator;

use super::globex_in_full;
use crate::common::{BIN, root};

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
        "--demo",
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
        "--demo",
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
