//! The serving examples run as a user runs them: `hello` serves its two
//! tools over HTTP in open mode (no key, loopback only; a network address
//! without the opt-in is refused), `hello_stdio` serves its tool over
//! stdio. Each is spawned, listed and called.

#![allow(missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Stdio};

use serde_json::{Value, json};
use toolschema_test_support::{assert_conforms, example, post_mcp};

/// A running example, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `hello` on a free loopback port; its address.
fn start_hello() -> (Running, SocketAddr) {
    let mut child = example("hello")
        .arg("127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the hello example runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("it says where it serves");
    let address = line
        .trim()
        .strip_prefix("serving MCP at http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .parse()
        .expect("an address");
    (Running(child), address)
}

/// POSTs `body` to `/mcp` without any key; the status and the reply.
fn post(address: SocketAddr, body: &Value) -> (u16, Value) {
    post_mcp(address, &[], body)
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn hello_serves_its_two_tools_without_a_key_on_loopback() {
    let (_running, address) = start_hello();
    let (status, list) = post(address, &request(1, "tools/list", json!({})));
    assert_eq!(status, 200);
    assert_conforms("2025-11-25", "ListToolsResult", &list["result"]);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["hello.add", "hello.greet"]);
    assert_eq!(
        list["result"]["tools"][1]["inputSchema"]["properties"]["name"]["maxLength"], 64,
        "listed in Full mode"
    );

    let (_, sum) = post(
        address,
        &request(
            2,
            "tools/call",
            json!({"name": "hello.add", "arguments": {"a": 2, "b": 40}}),
        ),
    );
    assert_conforms("2025-11-25", "CallToolResult", &sum["result"]);
    assert_eq!(sum["result"]["structuredContent"], json!({"value": 42}));

    let (_, refused) = post(
        address,
        &request(
            3,
            "tools/call",
            json!({"name": "hello.greet", "arguments": {"name": ""}}),
        ),
    );
    assert_eq!(refused["result"]["isError"], true);
    let message = refused["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(
        message.contains("`/name` must have at least 1 character"),
        "{message}"
    );

    let (_, info) = post(
        address,
        &request(
            4,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
    );
    assert_eq!(
        info["result"]["serverInfo"],
        json!({"name": "hello", "version": "1.0.0"})
    );
}

#[test]
fn hello_refuses_a_network_address_without_the_opt_in() {
    let output = example("hello")
        .arg("0.0.0.0:0")
        .output()
        .expect("the hello example runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("open mode") && stderr.contains("0.0.0.0:0"),
        "{stderr}"
    );
    assert!(
        stderr.contains("allow_open_network()"),
        "says how to opt in: {stderr}"
    );
    assert!(
        stderr.contains("catalog_file"),
        "or how to govern: {stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing was served");
}

#[test]
fn hello_stdio_lists_and_calls_its_tool() {
    let mut child = example("hello_stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the hello_stdio example runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let messages = [
        request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request(2, "tools/list", json!({})),
        request(
            3,
            "tools/call",
            json!({"name": "text.count-words", "arguments": {"text": "one two  three"}}),
        ),
    ];
    for message in &messages {
        writeln!(stdin, "{message}").expect("write");
    }
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|line| serde_json::from_str(&line.expect("a line")).expect("JSON"))
        .collect();
    let status = child.wait().expect("it exits");
    assert!(status.success(), "ends when stdin closes");
    assert_eq!(lines.len(), 3, "one reply per request: {lines:#?}");
    assert_eq!(lines[0]["result"]["protocolVersion"], "2025-06-18");
    assert_conforms("2025-06-18", "ListToolsResult", &lines[1]["result"]);
    assert_eq!(lines[1]["result"]["tools"][0]["name"], "text.count-words");
    assert_eq!(lines[2]["id"], 3);
    assert_eq!(lines[2]["result"]["structuredContent"], json!({"words": 3}));
}
