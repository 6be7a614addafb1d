//! What the workspace's test suites share: validators for the specification
//! fixtures kept in `tests/spec/` (the MCP schema of each protocol version,
//! the registry's `server.json` schema and examples), and small helpers.

#[cfg(feature = "contract")]
pub mod contract;
pub mod documents;
#[cfg(feature = "issuer")]
pub mod issuer;
pub mod postgres;

use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// An example's binary, which `cargo test` builds beside the test binaries
/// (`target/<profile>/examples/NAME`), as a command to run.
pub fn example(name: &str) -> std::process::Command {
    let exe = std::env::current_exe().expect("the test binary");
    let dir: PathBuf = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>")
        .join("examples");
    std::process::Command::new(dir.join(name))
}

/// The `tests/spec` directory of the repository.
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// A JSON document of `tests/spec`, by its path there.
pub fn spec_json(path: &str) -> Value {
    let path = spec_dir().join(path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A validator for one definition of the MCP schema of `version`, whichever
/// dialect the version uses (2025-06-18 is draft-07 with `definitions`).
pub fn spec_validator(version: &str, definition: &str) -> jsonschema::Validator {
    let document = spec_json(&format!("mcp/{version}/schema.json"));
    match document.get("definitions") {
        Some(definitions) => jsonschema::draft7::new(&json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": definitions,
            "$ref": format!("#/definitions/{definition}"),
        }))
        .expect("MCP schema compiles"),
        None => jsonschema::draft202012::new(&json!({
            "$schema": DRAFT_2020_12,
            "$defs": document["$defs"],
            "$ref": format!("#/$defs/{definition}"),
        }))
        .expect("MCP schema compiles"),
    }
}

/// What `validator` finds wrong with `value`, one line each with its place
/// (empty when valid).
pub fn violations(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Asserts that `message` is valid as `definition` of MCP `version`.
pub fn assert_conforms(version: &str, definition: &str, message: &Value) {
    let errors = violations(&spec_validator(version, definition), message);
    assert!(
        errors.is_empty(),
        "{version} {definition}: {errors:#?}\n{message:#}"
    );
}

/// The `name` of each tool in a JSON array of tools (`null` gives none).
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

/// Runs a future that never waits on I/O to completion.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

/// A connection to a server under test, reads timing out after 10 s.
pub fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream
}

/// One HTTP/1.1 exchange on a kept-alive connection (`Host: 127.0.0.1`
/// unless `headers` name another): the status and the body.
pub fn exchange(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str("Host: 127.0.0.1\r\n");
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("write");
    stream.write_all(body).expect("write body");
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("read head");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let status: u16 = head[9..12].parse().expect("status");
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("read body");
    (status, body)
}

/// Sends a request that announces a `length`-byte body but sends only
/// `part` of it, then reads what the server answered so
/// far: `(status, the whole answer as text)`. A server that refuses a body
/// by what it announces answers at once; one that waits for the rest
/// fails the read after five seconds.
pub fn answer_before_the_body(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    length: usize,
    part: &[u8],
) -> (u16, String) {
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {length}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("head");
    stream.write_all(part).expect("part of the body");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut answer = vec![0u8; 64 * 1024];
    let n = stream
        .read(&mut answer)
        .expect("answered before the body ends");
    let text = String::from_utf8_lossy(&answer[..n]).into_owned();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

/// POSTs a JSON-RPC message to `/mcp` with `headers`: the status and the
/// parsed reply (`null` for an empty body).
pub fn post_mcp(
    address: SocketAddr,
    headers: &[(&str, &str)],
    message: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let mut stream = connect(address);
    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/mcp",
        headers,
        message.to_string().as_bytes(),
    );
    let reply = if body.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&body).expect("a JSON reply")
    };
    (status, reply)
}

/// What one MCP POST answered: the status, and the messages (one for a
/// JSON answer, each event's for an event stream, in order).
#[derive(Debug)]
pub struct Answered {
    /// The HTTP status.
    pub status: u16,
    /// Whether the answer was a server-sent event stream.
    pub streamed: bool,
    /// The JSON-RPC messages.
    pub messages: Vec<serde_json::Value>,
}

/// POSTs a JSON-RPC message to `/mcp` on a connection of its own and reads
/// the whole answer, JSON or an event stream, until the server ends it.
pub fn post_mcp_all(
    address: SocketAddr,
    headers: &[(&str, &str)],
    message: &serde_json::Value,
) -> Answered {
    let mut stream = connect(address);
    let body = message.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").expect("a response");
    let status: u16 = head[9..12].parse().expect("status");
    let streamed = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("content-type: text/event-stream")
    });
    let messages = if streamed {
        rest.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect()
    } else if rest.trim().is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(rest.trim()).expect("a JSON answer")]
    };
    Answered {
        status,
        streamed,
        messages,
    }
}

/// The catalog configuration `text` with every toolset in search mode
/// (`mode = "search"`, per-tool overrides dropped) and, with `profile`,
/// every client in that dialect.
pub fn in_search_mode(text: &str, profile: Option<&str>) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut section = "";
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("[[") || trimmed.starts_with('[') {
            section = if trimmed.starts_with("[[toolset]]") {
                "toolset"
            } else if trimmed.starts_with("[[client]]") {
                "client"
            } else {
                ""
            };
        }
        let key = trimmed.split([' ', '=']).next().unwrap_or("");
        let replaced = match section {
            "toolset" => key == "mode" || key == "modes",
            "client" => key == "profile" && profile.is_some(),
            _ => false,
        };
        if replaced {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if key == "tenant" {
            match (section, profile) {
                ("toolset", _) => out.push_str("mode = \"search\"\n"),
                ("client", Some(profile)) => out.push_str(&format!("profile = \"{profile}\"\n")),
                _ => {}
            }
        }
    }
    out
}
