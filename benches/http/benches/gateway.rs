//! The gateway's overhead per call: a configured tool called through the
//! catalog (arguments checked and mapped, the downstream called with the
//! gateway's client, the answer mapped back and checked against the output
//! schema) against calling the same downstream directly with reqwest and
//! parsing its JSON, as a service would without the gateway. Both over
//! loopback to the same in-process axum downstream, in interleaved rounds
//! so that the machine's noise falls on both alike.
//!
//! `cargo bench -p toolschema-bench-http --bench gateway` (`GATEWAY_CALLS`
//! calls per variant, default 20,000). Prints p50 and p99 of each, and the
//! difference.

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use axum::Router;
use axum::http::header;
use axum::routing::get;
use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Catalog;

/// The downstream's answer, and the catalog of the tool, shared with the
/// instruction counts (`benches/instructions.rs`).
const ANSWER: &str = include_str!("../../fixtures/gateway-answer.json");
const CONFIG: &str = include_str!("../../fixtures/gateway.toml");

fn config(port: u16) -> String {
    CONFIG.replace("127.0.0.1:4030", &format!("127.0.0.1:{port}"))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

fn main() {
    let calls: usize = std::env::var("GATEWAY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let app = Router::new().route(
            "/api/orders/{id}",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], ANSWER) }),
        );
        tokio::spawn(axum::serve(listener, app).into_future());

        let catalog = Catalog::from_toml(Registry::new(), &config(port), "bench.toml")
            .unwrap_or_else(|errors| panic!("{errors}"));
        let snapshot = catalog.snapshot();
        let arguments = json!({"order_id": 42, "expand": "lines"});
        let direct = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{port}/api/orders/42?expand=lines");

        let through_gateway = || {
            let snapshot = snapshot.clone();
            let arguments = arguments.clone();
            async move {
                let result = snapshot
                    .call("c", "orders.get", arguments)
                    .await
                    .expect("the call succeeds");
                assert!(result.structured().is_some());
            }
        };
        let directly = || {
            let direct = direct.clone();
            let url = url.clone();
            async move {
                let bytes = direct
                    .get(&url)
                    .header(header::ACCEPT, "application/json")
                    .send()
                    .await
                    .expect("answer")
                    .bytes()
                    .await
                    .expect("body");
                let value: Value = serde_json::from_slice(&bytes).expect("json");
                assert!(value.get("id").is_some());
            }
        };

        // Warm up connections and caches.
        for _ in 0..1_000 {
            through_gateway().await;
            directly().await;
        }
        let rounds = 10;
        let per_round = calls / rounds;
        let (mut gateway, mut plain) = (Vec::with_capacity(calls), Vec::with_capacity(calls));
        for _ in 0..rounds {
            for _ in 0..per_round {
                let start = Instant::now();
                through_gateway().await;
                gateway.push(start.elapsed());
            }
            for _ in 0..per_round {
                let start = Instant::now();
                directly().await;
                plain.push(start.elapsed());
            }
        }
        gateway.sort_unstable();
        plain.sort_unstable();
        let (g50, g99) = (percentile(&gateway, 0.50), percentile(&gateway, 0.99));
        let (d50, d99) = (percentile(&plain, 0.50), percentile(&plain, 0.99));
        println!("{} calls each, over loopback", gateway.len());
        println!("direct (reqwest + serde_json): p50 {d50:?}, p99 {d99:?}");
        println!("through the gateway:           p50 {g50:?}, p99 {g99:?}");
        println!(
            "overhead: p50 {:?} ({:.2}x), p99 {:?}",
            g50.saturating_sub(d50),
            g50.as_secs_f64() / d50.as_secs_f64(),
            g99.saturating_sub(d99)
        );
    });
}
