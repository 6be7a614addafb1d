//! `tools/list` of 1,000 tools over HTTP/1.1 on loopback: the `toolschema`
//! server (authentication, snapshot lookup, the MCP core splicing the
//! pre-serialized list) against a bare axum handler that returns the same
//! cached response bytes, and, with `--features rmcp`, against the official
//! SDK's default path (tools serialized on every request). One kept-alive
//! connection each; each iteration is one 2026-07-28 `tools/list` request
//! and the whole response. Results are in `benches/README.md`.

#![allow(missing_docs)]

use std::hint::black_box;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use toolschema::project::ProtocolRevision;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};
use toolschema::Tool;
use toolschema::ToolDef;
use toolschema::call::Registry;
use toolschema::catalog::Catalog;
use toolschema::model::{Ref, Text};
use toolschema::serve::Server;
use toolschema_bench_http::loopback::{list_request, round_trip};
use toolschema_demo::ListInvoices;

const TOOLS: usize = 1_000;
const KEY: &str = "bench-key";

/// The server measured, configured with `TOOLS` tools for one client.
fn server() -> Server {
    let mut registry = Registry::new();
    let mut names = Vec::new();
    for i in 0..TOOLS {
        let name = format!("svc.tool-{i:05}");
        let def = Ref::new(ToolDef {
            name: Text::from(name.clone()),
            ..ListInvoices::TOOL.clone()
        });
        registry
            .register_descriptor::<ListInvoices>(def)
            .expect("unique");
        names.push(format!("\"{name}\""));
    }
    let config = format!(
        "[[tenant]]\nid = \"t\"\n\n[[toolset]]\nid = \"s\"\ntenant = \"t\"\ntools = [{}]\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\napi_keys = [\"{}\"]\ntoolsets = [\"s\"]\n",
        names.join(", "),
        toolschema::catalog::hash_api_key(KEY)
    );
    Server::new("bench", "1")
        .registry(registry)
        .catalog_toml(config, "bench.toml")
}

/// Runs `serve` on a one-worker runtime of its own thread; what it sends
/// first (once it listens) is returned.
fn in_background<T, F>(serve: impl FnOnce(std::sync::mpsc::Sender<T>) -> F + Send + 'static) -> T
where
    T: Send + 'static,
    F: core::future::Future<Output = ()>,
{
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = toolschema_bench_http::runtime(1);
        runtime.block_on(serve(send));
    });
    receive.recv().expect("the server starts")
}

/// Runs `server` as `toolschema serve` does (its own connection loop and
/// timeouts) on a loopback port: its address and its catalog.
fn start_server(server: Server) -> (SocketAddr, Arc<Catalog>) {
    in_background(|send| async move {
        let http = server.bind_http("127.0.0.1:0").await.expect("binds");
        send.send((http.local_addr(), http.service().catalog().clone()))
            .expect("send");
        http.run_until(std::future::pending())
            .await
            .expect("serves");
    })
}

/// Serves `app` with `axum::serve` on a loopback port.
fn start(app: Router) -> SocketAddr {
    in_background(|send| async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        send.send(listener.local_addr().expect("addr"))
            .expect("send");
        // As `toolschema serve` does, for every server measured.
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app).await.expect("serve");
    })
}

fn list_over_http(c: &mut Criterion) {
    let (ours, catalog) = start_server(server());
    let request = list_request(Some(KEY));

    // The bare handler answers with the very bytes our server sends.
    let list = catalog
        .snapshot()
        .discover("c", ProtocolRevision::LATEST)
        .expect("client");
    let cached = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete",{},"ttlMs":60000,"cacheScope":"private"}}}}"#,
        &list[1..list.len() - 1]
    );
    let cached: Arc<str> = cached.into();
    let bare = start(Router::new().route(
        "/mcp",
        post(move || {
            let cached = cached.clone();
            async move {
                let mut response = cached.to_string().into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
        }),
    ));

    let mut buffer = Vec::new();
    let mut ours_stream = TcpStream::connect(ours).expect("connect");
    let mut bare_stream = TcpStream::connect(bare).expect("connect");
    ours_stream.set_nodelay(true).expect("nodelay");
    bare_stream.set_nodelay(true).expect("nodelay");
    let ours_len = round_trip(&mut ours_stream, request.as_bytes(), &mut buffer);
    let bare_len = round_trip(&mut bare_stream, request.as_bytes(), &mut buffer);
    assert_eq!(ours_len, bare_len, "both send the same response");

    let mut group = c.benchmark_group("tools_list_1000_over_http");
    group.bench_function("toolschema_server", |b| {
        b.iter(|| {
            black_box(round_trip(
                &mut ours_stream,
                request.as_bytes(),
                &mut buffer,
            ))
        })
    });
    group.bench_function("bare_axum_cached_bytes", |b| {
        b.iter(|| {
            black_box(round_trip(
                &mut bare_stream,
                request.as_bytes(),
                &mut buffer,
            ))
        })
    });
    #[cfg(feature = "rmcp")]
    {
        let service =
            toolschema_bench_http::sdk::service(&catalog, "c").expect("the SDK serves the client");
        let sdk = start(Router::new().route_service("/mcp", service));
        let mut sdk_stream = TcpStream::connect(sdk).expect("connect");
        sdk_stream.set_nodelay(true).expect("nodelay");
        round_trip(&mut sdk_stream, request.as_bytes(), &mut buffer);
        let start = buffer
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("head")
            + 4;
        let reply: serde_json::Value =
            serde_json::from_slice(&buffer[start..]).expect("the SDK answers JSON");
        assert_eq!(
            reply["result"]["tools"].as_array().map(Vec::len),
            Some(TOOLS),
            "{}",
            String::from_utf8_lossy(&buffer[..buffer.len().min(600)])
        );
        group.bench_function("rmcp_sdk_default_path", |b| {
            b.iter(|| black_box(round_trip(&mut sdk_stream, request.as_bytes(), &mut buffer)))
        });
    }
    group.finish();
}

criterion_group!(benches, list_over_http);
criterion_main!(benches);
