//! Hostile and malformed input over HTTP gets a bounded, clear answer, and
//! the server stays as it was: each test sends what an adversarial run sent
//! and checks the outcome.

#![allow(missing_docs)]

use std::fmt::Write as _;
use std::net::SocketAddr;

use serde_json::{Value, json};
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::Server;
use toolschema_test_support::{connect, exchange, post_mcp};

mod common;

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

/// The most a refusal of any size of arguments may take.
const REPLY_BOUND: usize = 64 * 1024;

#[test]
fn a_flood_of_unknown_keys_gets_a_bounded_report_over_rest() {
    let address = start();
    let body = unknown_keys(70_000);
    assert!(body.len() > 900_000, "{}", body.len());
    let mut stream = connect(address);
    let (status, reply) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.list-invoices/call",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
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
    let mut stream = connect(address);
    let (status, reply) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.list-invoices/call",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(status, 422);
    assert!(reply.len() < 4096, "a reply of {} bytes", reply.len());
    let reply: Value = serde_json::from_slice(&reply).expect("JSON");
    let path = reply["violations"][0]["path"].as_str().expect("path");
    assert!(path.starts_with("/xxxx") && path.ends_with('…'), "{path}");
    assert_eq!(reply["violations"][0]["rule"], "additionalProperties");
}
