//! A gateway tool maps its downstream's answer in memory within a small
//! constant of the answer's size (DESIGN §9, §11): a counting allocator
//! measures the most bytes live during a call beyond those live before it,
//! against the answer's size, for an answer mapped field by field and one
//! passed on as text. An answer past `max_response_bytes` is refused before
//! it is read whole.

#![allow(missing_docs, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Body;
use axum::body::Bytes;
use axum::http::header;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;
use toolschema::call::{CallError, Registry};
use toolschema::catalog::Catalog;
use toolschema_serve::mcp::{Answer, Backchannel, Headers, Identity, Incoming, Protocol, Session};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
        PEAK.fetch_max(live, Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::SeqCst)
                + (new_size - layout.size());
            PEAK.fetch_max(live, Ordering::SeqCst);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
        }
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// An answer of about `bytes` bytes: orders, each with a customer and
/// lines, as a listing endpoint returns them.
fn orders(bytes: usize) -> Bytes {
    let mut out = String::with_capacity(bytes + 1024);
    out.push('[');
    let mut n = 0;
    while out.len() < bytes {
        if n > 0 {
            out.push(',');
        }
        out.push_str(
            &json!({
                "id": n,
                "status": "open",
                "customer": {"email": format!("customer{n}@example.com"), "name": "Ana Example"},
                "lines": [{"sku": "A-1", "qty": 2}, {"sku": format!("B-{n}"), "qty": 1}],
                "note": "delivered to the front desk",
            })
            .to_string(),
        );
        n += 1;
    }
    out.push(']');
    Bytes::from(out)
}

fn config(port: u16, limit: usize) -> String {
    format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["orders"]

[[toolset]]
id = "orders"
tenant = "acme"
tools = ["orders.list", "orders.export"]

[[downstream]]
id = "shop"
base_url = "http://127.0.0.1:{port}"
max_response_bytes = {limit}
timeout_ms = 60000

[[gateway_tool]]
name = "orders.list"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Lists the orders."
method = "GET"
path = "/orders"

[[gateway_tool.version.result]]
name = "orders"
type = "array"

[[gateway_tool.version.result]]
name = "orders[].number"
source = "[].id"
type = "integer"
required = true

[[gateway_tool.version.result]]
name = "orders[].email"
source = "[].customer.email"
type = "string"

[[gateway_tool.version.result]]
name = "orders[].skus[]"
source = "[].lines[].sku"
type = "string"

[[gateway_tool]]
name = "orders.export"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Exports the orders as the service writes them."
method = "GET"
path = "/orders"
"#
    )
}

/// The most bytes live while `call` runs, beyond those live before it.
fn peak_during<T>(call: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let out = call();
    (out, PEAK.load(Ordering::SeqCst).saturating_sub(before))
}

#[test]
fn an_answer_is_mapped_within_four_times_its_size_and_refused_past_the_limit() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let answer = orders(9 << 20);
    let size = answer.len();
    let served = answer.clone();
    let port = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let router = Router::new().route(
            "/orders",
            get(move || {
                let body = served.clone();
                async move {
                    Response::builder()
                        .header(header::CONTENT_TYPE, "application/json")
                        .body(Body::from(body))
                        .expect("response")
                }
            }),
        );
        tokio::spawn(axum::serve(listener, router).into_future());
        port
    });
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &config(port, 16 << 20),
        "memory.toml",
        http(),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    // Warm: connections, validators.
    for tool in ["orders.list", "orders.export"] {
        runtime
            .block_on(snapshot.call("assistant", tool, json!({})))
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
    }
    // The whole call as the server makes it: the MCP request read, the
    // call, the reply written.
    let protocol = Protocol::new(Identity::new("shop", "1"));
    let view = snapshot.client("assistant").expect("client").clone();
    let mut report = Vec::new();
    for tool in ["orders.list", "orders.export"] {
        let request = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}
        })
        .to_string();
        let (reply, peak) = peak_during(|| {
            let Incoming::Request(request) = Incoming::parse(request.as_bytes()) else {
                panic!("a request");
            };
            let answer = runtime.block_on(protocol.handle(
                &snapshot,
                &view,
                &mut Session::default(),
                request,
                &Headers::NONE,
                &Backchannel::none(),
            ));
            let Answer::Reply(reply) = answer else {
                panic!("a reply");
            };
            reply.to_string()
        });
        assert!(!reply.contains("isError"), "{tool}: {:.300}", reply);
        let ratio = peak as f64 / size as f64;
        report.push(format!(
            "{tool}: answer {size} bytes, reply {} bytes, peak {peak} bytes over, {ratio:.2}x",
            reply.len()
        ));
        drop(reply);
        assert!(ratio <= 4.0, "{}", report.join("\n"));
    }
    eprintln!("{}", report.join("\n"));
    // Past the limit: refused, and never read whole.
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &config(port, 1 << 20),
        "memory.toml",
        http(),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    let (refused, peak) =
        peak_during(|| runtime.block_on(snapshot.call("assistant", "orders.list", json!({}))));
    let Err(CallError::Tool(error)) = refused else {
        panic!("{refused:?}");
    };
    assert!(
        error.message().contains("larger than the 1048576 bytes"),
        "{error}"
    );
    assert!(peak < 2 << 20, "{peak} bytes to refuse an answer");
}

/// The HTTP transport of configured tools.
fn http() -> std::sync::Arc<toolschema_gateway::HttpTransport> {
    std::sync::Arc::new(toolschema_gateway::HttpTransport::from_environment())
}
