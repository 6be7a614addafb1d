//! The second adversarial round's findings on the MCP listener: each test
//! sends what that run sent and checks the answer, and that the tool did
//! not run when it must not.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use toolschema::call::{Context, Handler, ToolError, ToolResult};
use toolschema::{Schema, Tool};
use toolschema_serve::{HttpTimeouts, Server};
use toolschema_test_support::{connect, exchange};

use crate::common;

/// The invoices [`Refund`] refunded (each test refunds its own).
static REFUNDED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// How many times `invoice` was refunded.
fn refunds(invoice: &str) -> usize {
    REFUNDED
        .lock()
        .expect("log")
        .iter()
        .filter(|i| *i == invoice)
        .count()
}

/// Refunds an invoice (counts its runs).
#[derive(Tool, Deserialize)]
#[tool(name = "billing.refund")]
struct Refund {
    /// The invoice.
    invoice: String,
}

impl Handler for Refund {
    async fn call(self, _: Context) -> Result<ToolResult, ToolError> {
        REFUNDED.lock().expect("log").push(self.invoice.clone());
        Ok(ToolResult::text(format!("refunded {}", self.invoice)))
    }
}

/// The threads that read [`Line`]s and that ran [`Bulk`]'s handler, by
/// the request's marker.
static THREADS: Mutex<Vec<(String, std::thread::ThreadId)>> = Mutex::new(Vec::new());

/// One line of a bulk request; reading it notes the thread it is read on.
#[derive(Schema)]
#[serde(transparent)]
struct Line {
    text: String,
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Line, D::Error> {
        let text = String::deserialize(deserializer)?;
        if let Some(marker) = text.strip_prefix("marker:") {
            THREADS
                .lock()
                .expect("log")
                .push((format!("read {marker}"), std::thread::current().id()));
        }
        Ok(Line { text })
    }
}

/// Takes many lines at once.
#[derive(Tool, Deserialize)]
#[tool(name = "billing.bulk")]
struct Bulk {
    /// The lines; the first names the request.
    lines: Vec<Line>,
}

impl Handler for Bulk {
    async fn call(self, _: Context) -> Result<ToolResult, ToolError> {
        let marker = self.lines[0].text.trim_start_matches("marker:").to_owned();
        THREADS
            .lock()
            .expect("log")
            .push((format!("ran {marker}"), std::thread::current().id()));
        Ok(ToolResult::text(format!("{} lines", self.lines.len())))
    }
}

/// The thread that read `marker`'s lines, and the one that ran its handler.
fn threads_of(marker: &str) -> (std::thread::ThreadId, std::thread::ThreadId) {
    let threads = THREADS.lock().expect("log");
    let find = |what: String| {
        threads
            .iter()
            .find(|(w, _)| *w == what)
            .map(|(_, id)| *id)
            .unwrap_or_else(|| panic!("no `{what}`"))
    };
    (
        find(format!("read {marker}")),
        find(format!("ran {marker}")),
    )
}

fn start() -> SocketAddr {
    let quick = Duration::from_millis(400);
    let server = Server::new("billing", "1")
        .tool::<Refund>()
        .tool::<Bulk>()
        .http_timeouts(HttpTimeouts {
            headers: quick,
            body: quick,
            idle: Duration::from_secs(5),
        });
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

/// `POST /mcp` with `body` and `headers`: the status and the JSON reply.
fn post(address: SocketAddr, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let mut stream = connect(address);
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend_from_slice(headers);
    let (status, reply) = exchange(&mut stream, "POST", "/mcp", &all, body.as_bytes());
    (
        status,
        serde_json::from_slice(&reply).unwrap_or(Value::Null),
    )
}

const STATELESS: &str = "2026-07-28";

/// A 2026-07-28 call of the refund tool, and the headers it needs.
fn stateless_call(id: u64, invoice: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "billing.refund", "arguments": {"invoice": invoice},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string()
}

#[test]
fn a_json_array_is_not_a_request_over_http() {
    let address = start();
    for body in [
        r#"["2.0",3,"tools/call",{"name":"billing.refund","arguments":{"invoice":"inv-http"}}]"#,
        r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"billing.refund","arguments":{"invoice":"inv-http"}}}]"#,
    ] {
        let (status, reply) = post(address, &[("MCP-Protocol-Version", "2025-11-25")], body);
        assert_eq!(status, 200, "{body}: {reply}");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        assert!(reply.get("id").is_none(), "{reply}");
    }
    assert_eq!(refunds("inv-http"), 0, "the tool ran");
    // The same call as an object runs.
    let (status, reply) = post(
        address,
        &[("MCP-Protocol-Version", "2025-11-25")],
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"billing.refund","arguments":{"invoice":"inv-http"}}}"#,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "refunded inv-http");
    assert_eq!(refunds("inv-http"), 1);
}

#[test]
fn a_json_array_is_not_a_request_over_stdio() {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let common::Pipe {
            mut lines,
            writer: mut client_write,
            serving,
        } = common::stdio_pipe(Server::new("billing", "1").tool::<Refund>());
            client_write
            .write_all(b"[\"2.0\",3,\"tools/call\",{\"name\":\"billing.refund\",\"arguments\":{\"invoice\":\"inv-stdio\"}}]\n")
            .await
            .expect("write");
        let line = lines.next_line().await.expect("read").expect("a reply");
        let reply: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        assert_eq!(refunds("inv-stdio"), 0, "the tool ran");
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("serves");
    });
}

#[test]
fn a_routing_header_sent_twice_is_refused_whichever_comes_first() {
    let address = start();
    let body = stateless_call(5, "inv-stateless");
    for headers in [
        // Ours first, another tool second: a proxy that routes on the
        // last one would route elsewhere than this server reads.
        vec![
            ("MCP-Protocol-Version", STATELESS),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "billing.refund"),
            ("Mcp-Name", "billing.other"),
        ],
        vec![
            ("MCP-Protocol-Version", STATELESS),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Method", "tools/list"),
            ("Mcp-Name", "billing.refund"),
        ],
        vec![
            ("MCP-Protocol-Version", STATELESS),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "billing.refund"),
        ],
    ] {
        let (status, reply) = post(address, &headers, &body);
        assert_eq!(status, 400, "{headers:?}: {reply}");
        assert_eq!(reply["error"]["code"], -32020, "{reply}");
        let message = reply["error"]["message"].as_str().expect("message");
        assert!(message.contains("is sent more than once"), "{message}");
    }
    assert_eq!(refunds("inv-stateless"), 0, "the tool ran");
    let (status, reply) = post(
        address,
        &[
            ("MCP-Protocol-Version", STATELESS),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "billing.refund"),
        ],
        &body,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "refunded inv-stateless"
    );
}

#[test]
fn a_header_a_client_chose_is_echoed_cut_short() {
    let address = start();
    let long = "x".repeat(6000);
    let (status, reply) = post(
        address,
        &[
            ("MCP-Protocol-Version", STATELESS),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", &long),
        ],
        &stateless_call(6, "inv-long"),
    );
    assert_eq!(status, 400, "{reply}");
    let message = reply["error"]["message"].as_str().expect("message");
    assert!(message.len() < 600, "{} bytes", message.len());
    assert!(message.contains("xxx…"), "{message}");
    let (status, reply) = post(
        address,
        &[("MCP-Protocol-Version", &long)],
        &stateless_call(7, "inv-long"),
    );
    assert_eq!(status, 400, "{reply}");
    assert!(reply.to_string().len() < 1200, "{reply}");
}

/// Sends `head` (a request's first bytes), then waits: what the server
/// answered before closing.
fn answer_to_a_stalled_request(address: SocketAddr, head: &[u8]) -> String {
    let mut stream = connect(address);
    stream.write_all(head).expect("write");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn headers_that_do_not_arrive_in_time_get_408_and_silence_gets_closed() {
    let address = start();
    let answer = answer_to_a_stalled_request(address, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(
        answer.ends_with(
            r#""message":"the request headers did not arrive in time; send them at once"}"#
        ),
        "{answer}"
    );
    // Nothing sent: closed, nothing said.
    assert_eq!(answer_to_a_stalled_request(address, b""), "");
}

#[test]
fn a_host_with_a_port_out_of_range_is_refused() {
    let address = start();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let status = |host: &str| {
        let mut stream = connect(address);
        exchange(
            &mut stream,
            "POST",
            "/mcp",
            &[("Host", host), ("Content-Type", "application/json")],
            ping.as_bytes(),
        )
        .0
    };
    assert_eq!(status(&format!("127.0.0.1:{}", address.port())), 200);
    assert_eq!(status("127.0.0.1"), 200);
    for host in [
        "127.0.0.1:99999",
        "127.0.0.1:65536",
        "127.0.0.1:0",
        "localhost:00000",
    ] {
        assert_eq!(status(host), 403, "{host}");
    }
}

#[test]
fn a_host_with_a_colon_and_no_port_is_refused() {
    let address = start();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let status = |headers: &[(&str, &str)]| {
        let mut stream = connect(address);
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        exchange(&mut stream, "POST", "/mcp", &all, ping.as_bytes()).0
    };
    assert_eq!(status(&[("Host", "[::1]")]), 200);
    for host in ["127.0.0.1:", "localhost:", "[::1]:"] {
        assert_eq!(status(&[("Host", host)]), 403, "{host}");
    }
    let host = format!("127.0.0.1:{}", address.port());
    assert_eq!(
        status(&[("Host", &host), ("Origin", "http://localhost")]),
        200
    );
    assert_eq!(
        status(&[("Host", &host), ("Origin", "http://localhost:")]),
        403
    );
}

/// A `tools/call` of the refund tool whose arguments hold a string with
/// a byte that is not UTF-8 (`\xff`): not JSON text.
fn call_with_a_byte_that_is_not_utf8(invoice: &str) -> Vec<u8> {
    let mut body = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"billing.refund","arguments":{{"invoice":"{invoice}"}},"note":"a"#
    )
    .into_bytes();
    body.push(0xff);
    body.extend_from_slice(br#""}}"#);
    body
}

#[test]
fn a_body_that_is_not_utf8_is_a_parse_error_over_http() {
    let address = start();
    for body in [
        call_with_a_byte_that_is_not_utf8("inv-utf8-http"),
        // A member the envelope does not read.
        b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":\"\xff\"}".to_vec(),
    ] {
        let mut stream = connect(address);
        let (status, reply) = exchange(
            &mut stream,
            "POST",
            "/mcp",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            &body,
        );
        let reply: Value = serde_json::from_slice(&reply).expect("a JSON reply");
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert!(reply.get("result").is_none(), "{reply}");
    }
    assert_eq!(refunds("inv-utf8-http"), 0, "the tool ran");
}

#[test]
fn a_line_that_is_not_utf8_is_a_parse_error_over_stdio() {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let common::Pipe {
            mut lines,
            writer: mut client_write,
            serving,
        } = common::stdio_pipe(Server::new("billing", "1").tool::<Refund>());
        let mut line = call_with_a_byte_that_is_not_utf8("inv-utf8-stdio");
        line.push(b'\n');
        client_write.write_all(&line).await.expect("write");
        let line = lines.next_line().await.expect("read").expect("a reply");
        let reply: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert_eq!(refunds("inv-utf8-stdio"), 0, "the tool ran");
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("serves");
    });
}

#[test]
fn a_large_request_is_read_off_the_async_workers_and_a_small_one_in_place() {
    let address = start();
    let call = |marker: &str, lines: usize| {
        let mut all = vec![format!("marker:{marker}")];
        all.extend((1..lines).map(|i| format!("line {i:06} of a bulk order")));
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "billing.bulk", "arguments": {"lines": all}}
        })
        .to_string();
        let (status, reply) = post(address, &[("MCP-Protocol-Version", "2025-11-25")], &body);
        assert_eq!(status, 200, "{reply}");
        assert_eq!(
            reply["result"]["content"][0]["text"],
            format!("{lines} lines")
        );
        body.len()
    };
    // The server has one async worker: the handler runs there, and so
    // does the reading of a small request's arguments.
    assert!(call("small", 10) < 1024);
    let (read, ran) = threads_of("small");
    assert_eq!(read, ran, "a small request is read where it runs");
    assert!(call("large", 5_000) > 100 << 10);
    let (read, ran) = threads_of("large");
    assert_ne!(read, ran, "a large request is read on a blocking thread");
    // Over REST too.
    let mut lines = vec!["marker:rest".to_owned()];
    lines.extend((1..5_000).map(|i| format!("line {i:06} of a bulk order")));
    let mut stream = connect(address);
    let (status, _) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/billing.bulk/call",
        &[("Content-Type", "application/json")],
        json!({"lines": lines}).to_string().as_bytes(),
    );
    assert_eq!(status, 200);
    let (read, ran) = threads_of("rest");
    assert_ne!(read, ran, "a large REST call is read on a blocking thread");
}

#[test]
fn a_huge_unknown_tool_name_is_echoed_cut_short() {
    let address = start();
    let name = "x".repeat(500_000);
    let body = json!({
        "jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": name, "arguments": {}}
    })
    .to_string();
    let (status, reply) = post(address, &[("MCP-Protocol-Version", "2025-11-25")], &body);
    assert_eq!(status, 200);
    assert_eq!(reply["error"]["code"], -32602, "{reply:.200}");
    assert!(
        reply.to_string().len() < 1024,
        "{} bytes",
        reply.to_string().len()
    );
    for (method, path) in [
        ("GET", format!("/v1/tools/{}", "y".repeat(60_000))),
        ("POST", format!("/v1/tools/{}/call", "y".repeat(60_000))),
    ] {
        let mut stream = connect(address);
        let (status, reply) = exchange(
            &mut stream,
            method,
            &path,
            &[("Content-Type", "application/json")],
            b"{}",
        );
        assert_eq!(status, 404, "{method}");
        assert!(reply.len() < 1024, "{method}: {} bytes", reply.len());
    }
}

#[test]
fn a_stdio_line_longer_than_a_message_is_refused_and_the_next_one_served() {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let common::Pipe {
            mut lines,
            writer: mut client_write,
            serving,
        } = common::stdio_pipe(Server::new("billing", "1").tool::<Refund>());
        let writing = tokio::spawn(async move {
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..8 {
                client_write.write_all(&chunk).await.expect("write");
            }
            client_write
                .write_all(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
                .await
                .expect("write");
            client_write
        });
        let first: Value =
            serde_json::from_str(&lines.next_line().await.expect("read").expect("a reply"))
                .expect("JSON");
        assert_eq!(first["error"]["code"], -32600, "{first}");
        assert!(
            first["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("longer than")),
            "{first}"
        );
        let second: Value =
            serde_json::from_str(&lines.next_line().await.expect("read").expect("a reply"))
                .expect("JSON");
        assert_eq!(second["id"], 2, "{second}");
        assert!(second.get("result").is_some(), "{second}");
        let mut client_write = writing.await.expect("joins");
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("serves");
    });
}
