//! What tracing costs a call: `tools/call` over loopback to a server that
//! traces and measures every request (OpenTelemetry SDK providers: spans
//! batched to an in-memory exporter, metrics aggregated for a periodic
//! reader) against the same call to a server that does not, one call of
//! each in turn (so the machine's drift, and the exporter's work on its own
//! thread, fall on both alike).
//!
//! `cargo bench -p toolschema-bench-http --bench telemetry`
//! (`TELEMETRY_CALLS` calls per variant, default 20,000). Prints p50 and
//! p99 of each and the difference. With `TELEMETRY_ONLY=traced` or
//! `plain` it only makes that variant's calls, for counting instructions
//! under callgrind (both servers start either way); `TELEMETRY_SAMPLER=off`
//! samples every span out, which leaves what the server itself does per
//! request (attributes, trace context, metrics) without the SDK recording
//! and exporting spans. `TELEMETRY_EXPORT=otlp` exports instead as
//! `toolschema serve` does, by OTLP/HTTP (protobuf, the SDK's batch span
//! processor and periodic metric reader) to a collector stand-in on the
//! same machine (a thread of this process that reads each export and
//! answers 200), so the exporter's encoding and sending share the cores
//! with the call. `TELEMETRY_CONTROL=untraced` makes the traced server
//! trace nothing as well: what the comparison reports between two like
//! servers is the measurement's own error.

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

/// Exports the collector stand-in received, and their bytes.
static RECEIVED: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

/// A collector stand-in: answers every OTLP/HTTP export with 200 after
/// reading it, on its own thread; returns its address.
fn collector() -> std::net::SocketAddr {
    let router = axum::Router::new().fallback(|body: axum::body::Bytes| async move {
        RECEIVED[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        RECEIVED[1].fetch_add(body.len(), std::sync::atomic::Ordering::Relaxed);
        (
            [("content-type", "application/x-protobuf")],
            Vec::<u8>::new(),
        )
    });
    toolschema_test_support::issuer::serve_in_thread(router)
}

fn main() {
    let calls: usize = std::env::var("TELEMETRY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let spans = InMemorySpanExporter::default();
    let otlp = std::env::var("TELEMETRY_EXPORT").as_deref() == Ok("otlp");
    let mut tracers = SdkTracerProvider::builder();
    let mut meters = SdkMeterProvider::builder();
    if otlp {
        use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};
        let address = collector();
        let span_exporter = SpanExporter::builder()
            .with_http()
            .with_endpoint(format!("http://{address}/v1/traces"))
            .build()
            .expect("span exporter");
        let metric_exporter = MetricExporter::builder()
            .with_http()
            .with_endpoint(format!("http://{address}/v1/metrics"))
            .build()
            .expect("metric exporter");
        tracers = tracers.with_batch_exporter(span_exporter);
        meters = meters.with_periodic_exporter(metric_exporter);
    } else {
        tracers = tracers.with_batch_exporter(spans.clone());
        meters =
            meters.with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build());
    }
    if std::env::var("TELEMETRY_SAMPLER").as_deref() == Ok("off") {
        tracers = tracers.with_sampler(opentelemetry_sdk::trace::Sampler::AlwaysOff);
    }
    let tracers = tracers.build();
    let meters = meters.build();
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async {
        // `TELEMETRY_CONTROL=untraced`: the "traced" server traces nothing
        // either, to show the difference the measurement finds between
        // two like servers.
        let mut traced = server();
        if std::env::var("TELEMETRY_CONTROL").as_deref() != Ok("untraced") {
            traced = traced.telemetry(Telemetry::new(&tracers, &meters));
        }
        let traced = traced.bind_http("127.0.0.1:0").await.expect("binds");
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
    if otlp {
        let [exports, bytes] = &RECEIVED;
        let exports = exports.load(std::sync::atomic::Ordering::Relaxed);
        let bytes = bytes.load(std::sync::atomic::Ordering::Relaxed);
        println!("  exports the collector received: {exports} ({bytes} bytes)");
    } else {
        let exported = spans.get_finished_spans().expect("spans").len();
        println!("  spans exported: {exported}");
    }
}
