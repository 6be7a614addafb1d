//! The trace records every message a transport sends, once, as it leaves,
//! with the protocol version it belongs to and the method it answers: over
//! HTTP a reply's body and each event of a stream, over stdio each line,
//! including a call's notifications and the refusal of an over-long line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use toolschema::{Context, Handler, Tool, ToolError, ToolResult};
use toolschema_serve::Server;
use toolschema_test_support::post_mcp_all;

use crate::common;

/// Reports progress twice, answers, and leaves a task behind that still
/// holds the call's context and reports once more a little later.
#[derive(Tool, Deserialize)]
#[tool(name = "trace.linger")]
struct Linger {}

impl Handler for Linger {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        ctx.progress(1.0, Some(2.0));
        ctx.progress(2.0, Some(2.0));
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            ctx.progress(3.0, Some(2.0));
        });
        Ok(ToolResult::text("done"))
    }
}

/// Reports progress, leaves a task behind that holds the call's context
/// for a long while, and panics.
#[derive(Tool, Deserialize)]
#[tool(name = "trace.fail")]
struct Fail {}

impl Handler for Fail {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        ctx.progress(1.0, None);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            ctx.progress(2.0, None);
        });
        panic!("the handler fails after its first notification");
    }
}

fn traced(path: &Path) -> Server<()> {
    Server::new("tracer", "1")
        .tool::<Linger>()
        .tool::<Fail>()
        .trace_file(path)
}

fn trace_path(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("toolschema-trace-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a directory");
    let path = directory.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// The trace's records: (version, method, message).
fn records(path: &Path) -> Vec<(String, Value, Value)> {
    std::fs::read_to_string(path)
        .expect("the trace")
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("a JSON line");
            let version = record["version"].as_str().expect("a version").to_owned();
            (version, record["method"].clone(), record["message"].clone())
        })
        .collect()
}

fn call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "trace.linger", "arguments": {}, "_meta": {"progressToken": "t"}}})
}

#[test]
fn over_http_each_event_and_reply_is_recorded_as_it_leaves() {
    let path = trace_path("http.jsonl");
    let (address, _stop) = common::spawn(traced(&path));
    let answered = post_mcp_all(
        address,
        &[("Accept", "application/json, text/event-stream")],
        &call(7),
    );
    assert!(answered.streamed, "{answered:?}");
    // The stream ends with the reply, though a task the call left still
    // holds a way to send: what it sends later is not part of this answer.
    let received: Vec<&str> = answered
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(reply)"))
        .collect();
    assert_eq!(
        received,
        [
            "notifications/progress",
            "notifications/progress",
            "(reply)"
        ]
    );
    std::thread::sleep(Duration::from_millis(400));
    let recorded = records(&path);
    let messages: Vec<&Value> = recorded.iter().map(|(_, _, message)| message).collect();
    assert_eq!(messages, answered.messages.iter().collect::<Vec<_>>());
    let methods: Vec<&Value> = recorded.iter().map(|(_, method, _)| method).collect();
    assert_eq!(
        methods,
        [
            &json!("notifications/progress"),
            &json!("notifications/progress"),
            &json!("tools/call")
        ]
    );
    // A plain JSON reply is recorded too, and a message that cannot be
    // read, with no method.
    let plain = post_mcp_all(address, &[], &call(8));
    assert!(!plain.streamed);
    let broken = post_mcp_all(
        address,
        &[],
        &json!({"jsonrpc": "2.0", "id": 9, "method": 5}),
    );
    let recorded = records(&path);
    let tail: Vec<(&Value, &Value)> = recorded[3..].iter().map(|(_, m, v)| (m, v)).collect();
    assert_eq!(
        tail,
        [
            (&json!("tools/call"), &plain.messages[0]),
            (&Value::Null, &broken.messages[0])
        ]
    );
}

#[test]
fn a_call_that_fails_after_a_notification_ends_its_stream() {
    let path = trace_path("failed.jsonl");
    let (address, _stop) = common::spawn(traced(&path));
    let failing = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "trace.fail", "arguments": {}, "_meta": {"progressToken": "f"}}});
    // The stream ends with the call (no reply can follow a failure once
    // events have been sent), not when the task it left lets go: a read
    // waits 10 s at most.
    let answered = post_mcp_all(
        address,
        &[("Accept", "application/json, text/event-stream")],
        &failing,
    );
    assert!(answered.streamed, "{answered:?}");
    let methods: Vec<&Value> = answered.messages.iter().map(|m| &m["method"]).collect();
    assert_eq!(methods, [&json!("notifications/progress")]);
    assert_eq!(records(&path).len(), 1);
}

#[test]
fn over_stdio_every_line_written_is_recorded_once() {
    let path = trace_path("stdio.jsonl");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let written: Vec<Value> = runtime.block_on(async {
        let common::Pipe {
            mut lines,
            mut writer,
            serving,
        } = common::stdio_pipe(traced(&path));
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        let too_long = format!("{{\"pad\": \"{}\"}}", "x".repeat(1 << 21));
        for line in [initialize.to_string(), call(2).to_string(), too_long] {
            writer
                .write_all(format!("{line}\n").as_bytes())
                .await
                .expect("write");
        }
        // The lingering task's progress comes after the reply.
        let mut written = Vec::new();
        while written.len() < 6 {
            let line = lines.next_line().await.expect("read").expect("a line");
            written.push(serde_json::from_str::<Value>(&line).expect("JSON"));
        }
        writer.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("ends cleanly");
        written
    });
    let recorded = records(&path);
    let messages: Vec<&Value> = recorded.iter().map(|(_, _, message)| message).collect();
    // Each line once; the over-long line's refusal and the call's messages
    // are written from different tasks, so only their own orders hold.
    assert_eq!(messages.len(), written.len(), "{recorded:#?}");
    for message in &written {
        assert_eq!(
            messages.iter().filter(|m| **m == message).count(),
            1,
            "{message} recorded once"
        );
    }
    let method_of = |id: u64| {
        recorded
            .iter()
            .find(|(_, _, message)| message["id"] == id)
            .map(|(version, method, _)| (version.as_str(), method.clone()))
    };
    assert_eq!(method_of(1), Some(("2025-11-25", json!("initialize"))));
    assert_eq!(method_of(2), Some(("2025-11-25", json!("tools/call"))));
    let progress: Vec<f64> = recorded
        .iter()
        .filter(|(version, method, _)| {
            version == "2025-11-25" && method == "notifications/progress"
        })
        .map(|(_, _, message)| message["params"]["progress"].as_f64().expect("a number"))
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);
    let refused = recorded
        .iter()
        .find(|(_, _, message)| {
            message["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("longer than"))
        })
        .expect("the over-long line's refusal is recorded");
    assert_eq!(refused.1, Value::Null);
}
