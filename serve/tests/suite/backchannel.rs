//! What a running tool says to its client, and what the client says back:
//! progress and log notifications stream before the reply (over HTTP as an
//! event stream, only when the client takes one; over stdio as lines), log
//! messages only at the levels the client asked for, and a
//! `notifications/cancelled` reaches the call it names.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use toolschema::{Context, Handler, LogLevel, Tool, ToolError, ToolResult};
use toolschema_serve::Server;
use toolschema_test_support::{assert_conforms, post_mcp_all};

use crate::common;

/// Counts to `to`, logging and reporting progress at each step, and stops
/// early when cancelled.
#[derive(Tool, Deserialize)]
#[tool(name = "slow.count")]
struct Count {
    /// How far to count.
    to: u32,
    /// How long each step takes, in milliseconds.
    #[serde(default)]
    step_ms: u64,
}

impl Handler for Count {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        ctx.log(LogLevel::Debug, "counting (debug)");
        for step in 1..=self.to {
            ctx.log(LogLevel::Info, &format!("step {step}"));
            ctx.progress(f64::from(step), Some(f64::from(self.to)));
            tokio::select! {
                () = ctx.cancelled() => {
                    return Ok(ToolResult::text(format!("cancelled at step {step}")));
                }
                () = tokio::time::sleep(Duration::from_millis(self.step_ms)) => {}
            }
        }
        Ok(ToolResult::text(format!("counted to {}", self.to)))
    }
}

fn start() -> SocketAddr {
    let (address, stop) = common::spawn(Server::new("counter", "1").tool::<Count>());
    std::mem::forget(stop);
    address
}

const EVENTS: (&str, &str) = ("Accept", "application/json, text/event-stream");

fn call(id: u64, arguments: Value, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "slow.count", "arguments": arguments, "_meta": meta}})
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(reply)"))
        .collect()
}

#[test]
fn notifications_stream_before_the_reply_when_the_client_takes_a_stream() {
    let address = start();
    let answered = post_mcp_all(
        address,
        &[EVENTS],
        &call(1, json!({"to": 3}), json!({"progressToken": "p-1"})),
    );
    assert_eq!(answered.status, 200);
    assert!(
        answered.streamed,
        "notifications turn the answer into a stream"
    );
    assert_eq!(
        methods(&answered.messages),
        [
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress",
            "(reply)"
        ],
        "info and above by default (no debug), progress for the token, then the reply: {:#?}",
        answered.messages
    );
    let progress: Vec<&Value> = answered
        .messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    for (i, notice) in progress.iter().enumerate() {
        assert_eq!(notice["params"]["progressToken"], "p-1");
        assert_eq!(notice["params"]["progress"], f64::from(i as u32 + 1));
        assert_eq!(notice["params"]["total"], 3.0);
        assert_conforms("2025-11-25", "ProgressNotification", notice);
    }
    let log = &answered.messages[0];
    assert_eq!(log["params"], json!({"level": "info", "data": "step 1"}));
    assert_conforms("2025-11-25", "LoggingMessageNotification", log);
    let reply = answered.messages.last().expect("a reply");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["content"][0]["text"], "counted to 3");
}

#[test]
fn a_client_that_takes_only_json_gets_the_reply_alone() {
    let address = start();
    let answered = post_mcp_all(
        address,
        &[("Accept", "application/json")],
        &call(2, json!({"to": 2}), json!({"progressToken": 7})),
    );
    assert!(!answered.streamed);
    assert_eq!(methods(&answered.messages), ["(reply)"]);
    assert_eq!(
        answered.messages[0]["result"]["content"][0]["text"],
        "counted to 2"
    );
}

#[test]
fn a_stateless_request_gets_logs_only_at_the_level_it_asks_for() {
    let address = start();
    let meta = |level: Option<&str>| {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        if let Some(level) = level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        meta
    };
    let headers = [
        EVENTS,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "slow.count"),
    ];
    let quiet = post_mcp_all(address, &headers, &call(3, json!({"to": 2}), meta(None)));
    assert_eq!(
        methods(&quiet.messages),
        ["(reply)"],
        "no logLevel, no logs"
    );
    assert_eq!(quiet.messages[0]["result"]["resultType"], "complete");

    let debug = post_mcp_all(
        address,
        &headers,
        &call(4, json!({"to": 1}), meta(Some("debug"))),
    );
    let logs: Vec<&Value> = debug
        .messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| &m["params"]["data"])
        .collect();
    assert_eq!(logs, [&json!("counting (debug)"), &json!("step 1")]);
    assert_conforms(
        "2026-07-28",
        "LoggingMessageNotification",
        &debug.messages[0],
    );
}

#[test]
fn a_cancellation_reaches_the_call_it_names_over_http() {
    let address = start();
    let (done, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let answered = post_mcp_all(
            address,
            &[("Accept", "application/json")],
            &call(42, json!({"to": 1000, "step_ms": 20}), json!({})),
        );
        let _ = done.send(answered);
    });
    std::thread::sleep(Duration::from_millis(200));
    // Another client's id, or another id, cancels nothing.
    let cancel = |id: Value| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "changed my mind"}});
    let other = post_mcp_all(address, &[], &cancel(json!(41)));
    assert_eq!(other.status, 202);
    let named = post_mcp_all(address, &[], &cancel(json!(42)));
    assert_eq!(named.status, 202);
    let answered = answer
        .recv_timeout(Duration::from_secs(10))
        .expect("the call ends soon after");
    let text = answered.messages[0]["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("cancelled at step"), "{text}");
}

#[test]
fn over_stdio_calls_run_side_by_side_and_can_be_cancelled() {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let common::Pipe {
            mut lines,
            writer: mut client_write,
            serving,
        } = common::stdio_pipe(Server::new("counter", "1").tool::<Count>());
        let slow = call(1, json!({"to": 1000, "step_ms": 20}), json!({}));
        let quick = call(2, json!({"to": 1}), json!({"progressToken": "q"}));
        for message in [&slow, &quick] {
            client_write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .expect("write");
        }
        // The quick call finishes while the slow one runs: its progress,
        // then its reply.
        let mut seen = Vec::new();
        while seen.iter().all(|m: &Value| m["id"] != 2) {
            let line = lines.next_line().await.expect("read").expect("a line");
            seen.push(serde_json::from_str(&line).expect("JSON"));
        }
        let quick_messages: Vec<&Value> = seen
            .iter()
            .filter(|m| m["id"] == 2 || m["params"]["progressToken"] == "q")
            .collect();
        assert_eq!(quick_messages.len(), 2, "{seen:#?}");
        assert_eq!(quick_messages[0]["method"], "notifications/progress");
        assert_eq!(quick_messages[1]["result"]["content"][0]["text"], "counted to 1");

        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
        client_write
            .write_all(format!("{cancel}\n").as_bytes())
            .await
            .expect("write");
        let reply = loop {
            let line = lines.next_line().await.expect("read").expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == 1 {
                break message;
            }
        };
        let text = reply["result"]["content"][0]["text"].as_str().expect("text");
        assert!(text.starts_with("cancelled at step"), "{text}");
        // End of input: the server finishes and returns.
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("ends cleanly");
    });
}
