//! A service's state reaches its handlers (DESIGN §12): given once to the
//! server, typed, shared by every handler of that server and no other;
//! over MCP (HTTP and stdio), REST and a governed catalog; tools without
//! state beside it unchanged.

use std::net::SocketAddr;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::call::{Context, Handler, ToolError, ToolResult};
use toolschema::{Schema, Tool};
use toolschema_serve::Server;
use toolschema_test_support::{connect, exchange, post_mcp};

use crate::common;

/// A warehouse's stock: what the service's handlers share.
#[derive(Default)]
struct Warehouse {
    name: String,
    stock: Mutex<Vec<(String, u32)>>,
}

impl Warehouse {
    fn named(name: &str) -> Warehouse {
        Warehouse {
            name: name.to_owned(),
            stock: Mutex::default(),
        }
    }
}

/// How much of an item is in stock now.
#[derive(Schema, Serialize)]
struct Level {
    /// The warehouse.
    warehouse: String,
    /// The item.
    sku: String,
    /// How many are in stock.
    quantity: u32,
}

/// Adds stock of an item.
#[derive(Tool, Deserialize)]
#[tool(name = "stock.add", state = Warehouse, output = Level)]
struct AddStock {
    /// The item.
    sku: String,
    /// How many arrived.
    #[tool(minimum = 1)]
    quantity: u32,
}

impl Handler for AddStock {
    async fn call(self, ctx: Context<Warehouse>) -> Result<Level, ToolError> {
        let warehouse = ctx.state();
        let mut stock = warehouse
            .stock
            .lock()
            .map_err(|_| ToolError::new("the stock is unavailable"))?;
        let quantity = match stock.iter_mut().find(|(sku, _)| *sku == self.sku) {
            Some((_, quantity)) => {
                *quantity += self.quantity;
                *quantity
            }
            None => {
                stock.push((self.sku.clone(), self.quantity));
                self.quantity
            }
        };
        Ok(Level {
            warehouse: warehouse.name.clone(),
            sku: self.sku,
            quantity,
        })
    }
}

/// Says how much of an item is in stock.
#[derive(Tool, Deserialize)]
#[tool(name = "stock.level", state = Warehouse, output = Level)]
struct StockLevel {
    /// The item.
    sku: String,
}

impl Handler for StockLevel {
    async fn call(self, ctx: Context<Warehouse>) -> Result<Level, ToolError> {
        let stock = ctx
            .state()
            .stock
            .lock()
            .map_err(|_| ToolError::new("the stock is unavailable"))?;
        let quantity = stock
            .iter()
            .find(|(sku, _)| *sku == self.sku)
            .map_or(0, |(_, quantity)| *quantity);
        Ok(Level {
            warehouse: ctx.state().name.clone(),
            sku: self.sku,
            quantity,
        })
    }
}

/// Answers pong (no state).
#[derive(Tool, Deserialize)]
#[tool(name = "ping")]
struct Ping {}

impl Handler for Ping {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("pong"))
    }
}

fn warehouse(name: &str) -> Server<Warehouse> {
    Server::new("warehouse", "1")
        .tool::<Ping>()
        .state(Warehouse::named(name))
        .tool::<AddStock>()
        .tool::<StockLevel>()
}

fn start<S: Send + Sync + 'static>(server: Server<S>) -> SocketAddr {
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    address
}

fn call(address: SocketAddr, tool: &str, arguments: Value) -> Value {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}
    });
    let (status, reply) = post_mcp(address, &[("MCP-Protocol-Version", "2025-11-25")], &message);
    assert_eq!(status, 200, "{reply}");
    reply["result"].clone()
}

#[test]
fn each_server_has_its_own_state_and_a_change_is_seen_by_the_next_call() {
    let north = start(warehouse("north"));
    let south = start(warehouse("south"));
    let added = call(north, "stock.add", json!({"sku": "A-1", "quantity": 3}));
    assert_eq!(
        added["structuredContent"],
        json!({"warehouse": "north", "sku": "A-1", "quantity": 3})
    );
    let again = call(north, "stock.add", json!({"sku": "A-1", "quantity": 2}));
    assert_eq!(again["structuredContent"]["quantity"], 5);
    let level = call(north, "stock.level", json!({"sku": "A-1"}));
    assert_eq!(level["structuredContent"]["quantity"], 5);
    // The other server's state is its own.
    let other = call(south, "stock.level", json!({"sku": "A-1"}));
    assert_eq!(
        other["structuredContent"],
        json!({"warehouse": "south", "sku": "A-1", "quantity": 0})
    );
    // Arguments are checked before the state is touched.
    let refused = call(north, "stock.add", json!({"sku": "A-1", "quantity": 0}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        call(north, "stock.level", json!({"sku": "A-1"}))["structuredContent"]["quantity"],
        5
    );
    // A tool without state, registered before the state, beside them.
    assert_eq!(call(north, "ping", json!({}))["content"][0]["text"], "pong");
    // REST reaches the same state.
    let mut stream = connect(north);
    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/v1/tools/stock.add/call",
        &[("Content-Type", "application/json")],
        br#"{"sku": "A-1", "quantity": 1}"#,
    );
    assert_eq!(status, 200);
    let body: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(body["result"]["quantity"], 6);
}

#[test]
fn a_governed_catalog_serves_stateful_tools_to_its_clients() {
    let catalog = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "clerk"
tenant = "acme"
api_keys = ["{key}"]
toolsets = ["stock"]

[[toolset]]
id = "stock"
tenant = "acme"
tools = ["stock.add", "stock.level"]
"#,
        key = toolschema::catalog::hash_api_key("clerk-key")
    );
    let address = start(warehouse("governed").catalog_toml(catalog, "catalog.toml"));
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "stock.add", "arguments": {"sku": "B-2", "quantity": 4}}
    });
    let (status, reply) = post_mcp(
        address,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("X-API-Key", "clerk-key"),
        ],
        &message,
    );
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["quantity"], 4);
    // `ping` is not in the client's toolsets.
    let (_, reply) = post_mcp(
        address,
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("X-API-Key", "clerk-key"),
        ],
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ping", "arguments": {}}}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

#[test]
fn over_stdio_the_state_is_the_servers() {
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
        } = common::stdio_pipe(warehouse("stdio"));
        for (id, tool, arguments) in [
            (1, "stock.add", json!({"sku": "C-3", "quantity": 7})),
            (2, "stock.level", json!({"sku": "C-3"})),
        ] {
            let message = json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}
            });
            client_write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .expect("write");
            let line = lines.next_line().await.expect("read").expect("a reply");
            let reply: Value = serde_json::from_str(&line).expect("JSON");
            assert_eq!(
                reply["result"]["structuredContent"]["quantity"], 7,
                "{reply}"
            );
        }
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("serves");
    });
}

/// A gate a handler waits at, and what it did: shared with the test.
struct Gate {
    started: std::sync::Arc<std::sync::atomic::AtomicBool>,
    open: std::sync::Arc<tokio::sync::Semaphore>,
    finished: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Waits at the gate, then records that it went through.
#[derive(Tool, Deserialize)]
#[tool(name = "gate.wait", state = Gate)]
struct WaitAtGate {}

impl Handler for WaitAtGate {
    async fn call(self, ctx: Context<Gate>) -> Result<ToolResult, ToolError> {
        use std::sync::atomic::Ordering;
        let gate = ctx.state();
        gate.started.store(true, Ordering::SeqCst);
        let _permit = gate
            .open
            .acquire()
            .await
            .map_err(|_| ToolError::new("closed"))?;
        gate.finished.store(true, Ordering::SeqCst);
        Ok(ToolResult::text("through"))
    }
}

/// Panics: a handler's defect.
#[derive(Tool, Deserialize)]
#[tool(name = "defect")]
struct Defect {}

impl Handler for Defect {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        panic!("a handler's defect")
    }
}

/// Until `done` holds, for a few seconds at most.
fn eventually(done: impl Fn() -> bool) -> bool {
    for _ in 0..500 {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    done()
}

#[test]
fn a_call_whose_client_goes_away_runs_to_its_end_and_a_panic_answers_500() {
    use std::io::Write as _;
    use std::sync::atomic::Ordering;
    let gate = Gate {
        started: std::sync::Arc::default(),
        open: std::sync::Arc::new(tokio::sync::Semaphore::new(0)),
        finished: std::sync::Arc::default(),
    };
    let (started, open, finished) = (
        gate.started.clone(),
        gate.open.clone(),
        gate.finished.clone(),
    );
    let address = start(
        Server::new("gated", "1")
            .state(gate)
            .tool::<WaitAtGate>()
            .tool::<Defect>()
            .tool::<Ping>(),
    );
    // The call starts; its client leaves before the answer (MCP: leaving
    // is no cancellation).
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "gate.wait", "arguments": {}}
    })
    .to_string();
    let mut stream = connect(address);
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("sent");
    assert!(
        eventually(|| started.load(Ordering::SeqCst)),
        "the call did not start"
    );
    drop(stream);
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!finished.load(Ordering::SeqCst));
    open.add_permits(1);
    assert!(
        eventually(|| finished.load(Ordering::SeqCst)),
        "the call stopped when its client left"
    );
    // A handler that panics: 500 for its request, and the server serves on.
    let message = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "defect", "arguments": {}}
    });
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, _) = post_mcp(address, &headers, &message);
    assert_eq!(status, 500);
    assert_eq!(
        call(address, "ping", json!({}))["content"][0]["text"],
        "pong"
    );
}
