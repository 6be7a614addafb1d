//! OpenTelemetry: the spans and metrics of requests over HTTP, read from
//! the SDK's in-memory exporters: names, kinds and attributes in the MCP
//! semantic conventions, parents taken from `_meta` and from the HTTP
//! `traceparent`, errors, and the duration histogram and call counters.

use std::collections::HashMap;

use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanKind, Status, TraceId};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde::Deserialize;
use serde_json::{Value, json};
use toolschema::{Context, Handler, Tool, ToolError, ToolResult};
use toolschema_catalog::hash_api_key;
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::{Server, Telemetry};
use toolschema_test_support::post_mcp;

use crate::common;

const PAID: &str = "0c1e55aa-0000-4000-8000-000000000001";
const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";
const HTTP_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const HTTP_PARENT: &str = "b7ad6b7169203331";

/// Says which span its handler runs in.
#[derive(Tool, Deserialize)]
#[tool(name = "probe.current-span")]
struct CurrentSpan {}

impl Handler for CurrentSpan {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        use opentelemetry::trace::TraceContextExt as _;
        let current = opentelemetry::Context::current();
        let span = current.span().span_context().span_id().to_string();
        Ok(ToolResult::text(span))
    }
}

fn attributes(attributes: &[KeyValue]) -> HashMap<String, String> {
    attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

struct Observed {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meters: SdkMeterProvider,
    address: std::net::SocketAddr,
}

fn observed() -> Observed {
    let spans = InMemorySpanExporter::default();
    let tracers = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let metrics = InMemoryMetricExporter::default();
    let meters = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
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
tools = ["billing.get-invoice", "billing.list-invoices", "probe.current-span"]
"#,
        hash_api_key("sk-finance")
    );
    let server = Server::new("billing", "1")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>()
        .tool::<CurrentSpan>()
        .catalog_toml(catalog, "catalog.toml")
        .telemetry(Telemetry::new(&tracers, &meters));
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    std::mem::forget(tracers);
    Observed {
        spans,
        metrics,
        meters,
        address,
    }
}

impl Observed {
    fn post(&self, extra: &[(&str, &str)], message: Value) -> Value {
        let mut headers = vec![
            ("Authorization", "Bearer sk-finance"),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        headers.extend_from_slice(extra);
        let (status, reply) = post_mcp(self.address, &headers, &message);
        assert_eq!(status, 200, "{reply}");
        reply
    }

    fn spans(&self) -> Vec<SpanData> {
        self.spans.get_finished_spans().expect("spans")
    }

    fn metrics(&self) -> Vec<ResourceMetrics> {
        self.meters.force_flush().expect("flush");
        self.metrics.get_finished_metrics().expect("metrics")
    }
}

fn call(id: u64, name: &str, arguments: Value, meta: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[test]
fn a_tool_call_is_a_server_span_parented_by_its_meta_trace_context() {
    let o = observed();
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let http_traceparent = format!("00-{HTTP_TRACE}-{HTTP_PARENT}-01");
    let reply = o.post(
        &[("traceparent", &http_traceparent)],
        call(
            7,
            "billing.get-invoice",
            json!({"invoice_id": PAID}),
            Some(json!({"traceparent": traceparent, "tracestate": "vendor=1"})),
        ),
    );
    assert_eq!(reply["result"]["structuredContent"]["status"], "paid");
    let spans = o.spans();
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(span.name, "tools/call billing.get-invoice");
    assert_eq!(span.span_kind, SpanKind::Server);
    // The `_meta` context is the parent; the HTTP one is linked.
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE).expect("hex")
    );
    assert_eq!(span.parent_span_id.to_string(), PARENT);
    assert_eq!(span.links.links.len(), 1);
    assert_eq!(
        span.links.links[0].span_context.trace_id(),
        TraceId::from_hex(HTTP_TRACE).expect("hex")
    );
    assert_eq!(span.status, Status::Unset);
    let found = attributes(&span.attributes);
    let expected = [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "billing.get-invoice"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "7"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "tcp"),
        ("toolschema.client.id", "finance"),
        ("toolschema.tenant.id", "acme"),
    ];
    for (key, value) in expected {
        assert_eq!(
            found.get(key).map(String::as_str),
            Some(value),
            "{key}: {found:?}"
        );
    }
    assert!(!found.contains_key("error.type"));
    // Arguments and results are never recorded.
    assert!(
        !found
            .values()
            .any(|v| v.contains(PAID) || v.contains("paid")),
        "{found:?}"
    );
}

#[test]
fn without_meta_the_http_trace_context_is_the_parent_and_errors_are_typed() {
    let o = observed();
    let http_traceparent = format!("00-{HTTP_TRACE}-{HTTP_PARENT}-01");
    o.post(
        &[("traceparent", &http_traceparent)],
        json!({"jsonrpc": "2.0", "id": "list-1", "method": "tools/list"}),
    );
    // A tool's own error, and a protocol error (unknown tool).
    let refused = o.post(
        &[],
        call(
            8,
            "billing.get-invoice",
            json!({"invoice_id": "nope"}),
            None,
        ),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let unknown = o.post(&[], call(9, "billing.nothing", json!({}), None));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let spans = o.spans();
    let by_name = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no span {name}: {spans:?}"))
    };
    let list = by_name("tools/list");
    assert_eq!(
        list.span_context.trace_id(),
        TraceId::from_hex(HTTP_TRACE).expect("hex")
    );
    assert_eq!(list.parent_span_id.to_string(), HTTP_PARENT);
    assert!(list.links.links.is_empty());
    assert_eq!(
        attributes(&list.attributes)
            .get("jsonrpc.request.id")
            .map(String::as_str),
        Some("list-1")
    );

    let tool_error = by_name("tools/call billing.get-invoice");
    assert_eq!(
        attributes(&tool_error.attributes)
            .get("error.type")
            .map(String::as_str),
        Some("tool_error")
    );
    assert!(matches!(tool_error.status, Status::Error { .. }));
    // Without any trace context, a new trace.
    assert_ne!(
        tool_error.span_context.trace_id(),
        TraceId::from_hex(HTTP_TRACE).expect("hex")
    );

    let unknown = by_name("tools/call billing.nothing");
    let found = attributes(&unknown.attributes);
    assert_eq!(found.get("error.type").map(String::as_str), Some("-32602"));
    assert_eq!(
        found.get("rpc.response.status_code").map(String::as_str),
        Some("-32602")
    );
}

/// A data point: its attributes and its count or value.
type Point = (HashMap<String, String>, u64);

#[test]
fn durations_and_calls_are_measured_per_tool_and_client() {
    let o = observed();
    for id in 0..3 {
        o.post(
            &[],
            call(id, "billing.get-invoice", json!({"invoice_id": PAID}), None),
        );
    }
    o.post(
        &[],
        call(
            3,
            "billing.get-invoice",
            json!({"invoice_id": "nope"}),
            None,
        ),
    );
    o.post(
        &[],
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    );
    let exported = o.metrics();
    let latest = exported.last().expect("an export");
    let mut histogram_points: Vec<Point> = Vec::new();
    let mut counts: HashMap<String, Vec<Point>> = HashMap::new();
    for scope in latest.scope_metrics() {
        assert_eq!(scope.scope().name(), "toolschema");
        for metric in scope.metrics() {
            match metric.data() {
                AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                    assert_eq!(metric.name(), "mcp.server.operation.duration");
                    assert_eq!(metric.unit(), "s");
                    for point in histogram.data_points() {
                        let labels: Vec<KeyValue> = point.attributes().cloned().collect();
                        histogram_points.push((attributes(&labels), point.count()));
                    }
                }
                AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                    for point in sum.data_points() {
                        let labels: Vec<KeyValue> = point.attributes().cloned().collect();
                        counts
                            .entry(metric.name().to_owned())
                            .or_default()
                            .push((attributes(&labels), point.value()));
                    }
                }
                other => panic!("unexpected metric {}: {other:?}", metric.name()),
            }
        }
    }
    let count_of = |method: &str, error: Option<&str>| {
        histogram_points
            .iter()
            .filter(|(labels, _)| {
                labels.get("mcp.method.name").map(String::as_str) == Some(method)
                    && labels.get("error.type").map(String::as_str) == error
            })
            .map(|(_, n)| *n)
            .sum::<u64>()
    };
    assert_eq!(count_of("tools/call", None), 3, "{histogram_points:?}");
    assert_eq!(count_of("tools/call", Some("tool_error")), 1);
    assert_eq!(count_of("tools/list", None), 1);
    let per_client = |name: &str| {
        counts
            .get(name)
            .into_iter()
            .flatten()
            .filter(|(labels, _)| {
                labels.get("gen_ai.tool.name").map(String::as_str) == Some("billing.get-invoice")
                    && labels.get("toolschema.client.id").map(String::as_str) == Some("finance")
            })
            .map(|(_, n)| *n)
            .sum::<u64>()
    };
    assert_eq!(per_client("toolschema.tool.calls"), 4, "{counts:?}");
    assert_eq!(per_client("toolschema.tool.errors"), 1, "{counts:?}");
}

#[test]
fn the_handler_runs_inside_the_call_span() {
    let o = observed();
    let reply = o.post(&[], call(1, "probe.current-span", json!({}), None));
    let inside = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("a span id")
        .to_owned();
    let spans = o.spans();
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call probe.current-span")
        .expect("the call's span");
    assert_eq!(inside, span.span_context.span_id().to_string());
}

/// The span and metrics of one call, written as docs/telemetry.md shows them.
fn rendered(span: &SpanData, metrics: &[ResourceMetrics]) -> String {
    let mut out = format!(
        "span \"{}\" kind={:?} scope={}\n  trace_id={} parent={}\n",
        span.name,
        span.span_kind,
        span.instrumentation_scope.name(),
        span.span_context.trace_id(),
        span.parent_span_id
    );
    let mut found: Vec<(String, String)> = attributes(&span.attributes).into_iter().collect();
    found.sort();
    for (key, value) in found {
        out.push_str(&format!("  {key}={value}\n"));
    }
    for link in &span.links.links {
        out.push_str(&format!(
            "  link trace_id={}\n",
            link.span_context.trace_id()
        ));
    }
    let latest = metrics.last().expect("an export");
    for scope in latest.scope_metrics() {
        let mut lines = Vec::new();
        for metric in scope.metrics() {
            let (kind, points): (&str, Vec<(Vec<KeyValue>, u64)>) = match metric.data() {
                AggregatedMetrics::F64(MetricData::Histogram(h)) => (
                    "histogram",
                    h.data_points()
                        .map(|p| (p.attributes().cloned().collect(), p.count()))
                        .collect(),
                ),
                AggregatedMetrics::U64(MetricData::Sum(sum)) => (
                    "counter",
                    sum.data_points()
                        .map(|p| (p.attributes().cloned().collect(), p.value()))
                        .collect(),
                ),
                _ => continue,
            };
            for (labels, n) in points {
                let mut labels: Vec<(String, String)> = attributes(&labels).into_iter().collect();
                labels.sort();
                let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let unit = match metric.unit() {
                    "" => String::new(),
                    unit => format!(", {unit}"),
                };
                lines.push(format!(
                    "metric {} ({kind}{unit}) {{{}}}: {n}\n",
                    metric.name(),
                    labels.join(", ")
                ));
            }
        }
        lines.sort();
        out.extend(lines);
    }
    out
}

#[test]
fn the_guide_shows_one_calls_span_and_metrics_as_this_test_renders_them() {
    let o = observed();
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let http_traceparent = format!("00-{HTTP_TRACE}-{HTTP_PARENT}-01");
    o.post(
        &[("traceparent", &http_traceparent)],
        call(
            7,
            "billing.get-invoice",
            json!({"invoice_id": PAID}),
            Some(json!({"traceparent": traceparent})),
        ),
    );
    let spans = o.spans();
    let text = rendered(&spans[0], &o.metrics());
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/telemetry.md"))
            .expect("the telemetry guide");
    assert!(
        guide.contains(&text),
        "docs/telemetry.md should show:\n{text}"
    );
}
