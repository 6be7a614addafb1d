//! What tracing costs a call: `tools/call` over loopback to a server that
//! traces and measures every request (OpenTelemetry SDK providers: spans
//! batched to an in-memory exporter, metrics aggregated for a periodic
//! reader) against the same call to a server that does not, in
//! interleaved rounds.
//!
//! `cargo bench -p toolschema-bench-http --bench telemetry`
//! (`TELEMETRY_CALLS` calls per variant, default 20,000). Prints p50 and
//! p99 of each and the difference. With `TELEMETRY_ONLY=traced` or
//! `plain` it only makes that variant's calls, for counting instructions
//! under callgrind (both servers start either way); `TELEMETRY_SAMPLER=off`
//! samples every span out, which leaves what the server itself does per
//! request (attributes, trace context, metrics) without the SDK recording
//! and exporting spans.

#![allow(missing_docs)]

use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::json;
use toolschema::catalog::hash_api_key;
use toolschema::serve::{Server, Telemetry};
use toolschema_bench_http::mcp::paid_invoice;
use toolschema_bench_http::timing::compare;
use toolschema_demo::{GetInvoice, ListInvoices};

fn server() -> Server {
    let catalog = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
api_keys = ["{}"]
toolsets = ["billing"]

[[toolset]]
id = "billing"
tenant = "acme"
tools = ["billing.get-invoice", "billing.list-invoices"]
"#,
        hash_api_key("sk-bench")
    );
    Server::new("billing", "1")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>()
        .catalog_toml(catalog, "bench.toml")
}

fn main() {
    let calls: usize = std::env::var("TELEMETRY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let spans = InMemorySpanExporter::default();
    let mut tracers = SdkTracerProvider::builder().with_batch_exporter(spans.clone());
    if std::env::var("TELEMETRY_SAMPLER").as_deref() == Ok("off") {
        tracers = tracers.with_sampler(opentelemetry_sdk::trace::Sampler::AlwaysOff);
    }
    let tracers = tracers.build();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
        .build();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let traced = server()
            .telemetry(Telemetry::new(&tracers, &meters))
            .bind_http("127.0.0.1:0")
            .await
            .expect("binds");
        let plain = server().bind_http("127.0.0.1:0").await.expect("binds");
        let traced_url = format!("http://{}/mcp", traced.local_addr());
        let plain_url = format!("http://{}/mcp", plain.local_addr());
        tokio::spawn(traced.run_until(std::future::pending()));
        tokio::spawn(plain.run_until(std::future::pending()));
        let http = reqwest::Client::new();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "billing.get-invoice",
                       "arguments": {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"},
                       "_meta": {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}})
        .to_string();
        // For instruction counts: `TELEMETRY_ONLY=traced` (or `plain`)
        // makes only those calls, once each, under callgrind.
        if let Ok(only) = std::env::var("TELEMETRY_ONLY") {
            let url = if only == "traced" { &traced_url } else { &plain_url };
            let call = paid_invoice(&http, url, "Bearer sk-bench", &body);
            for _ in 0..calls {
                call().await;
            }
            return;
        }
        compare(
            "tools/call, traced and measured against not",
            calls,
            (
                "traced (OpenTelemetry SDK)",
                paid_invoice(&http, &traced_url, "Bearer sk-bench", &body),
            ),
            (
                "not traced",
                paid_invoice(&http, &plain_url, "Bearer sk-bench", &body),
            ),
        )
        .await;
    });
    tracers.force_flush().expect("flush");
    let exported = spans.get_finished_spans().expect("spans").len();
    println!("  spans exported: {exported}");
}
