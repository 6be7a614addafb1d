//! OpenTelemetry traces and metrics of the protocol core, in the MCP
//! semantic conventions (now part of the GenAI conventions).
//!
//! Each request is a server span named `{mcp.method.name} {target}`
//! (`tools/call billing.get-invoice`, `tools/list`), with
//! `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`, the
//! client application and tenant, and for a call `gen_ai.tool.name` and
//! `gen_ai.operation.name = execute_tool`; an error sets `error.type` (the
//! JSON-RPC code, or `tool_error` for a result with `isError`) and the
//! span's status. Its parent is the W3C trace context in the request's
//! `_meta` (`traceparent`, `tracestate`; SEP-414), else the HTTP request's
//! headers; when both are there, the HTTP one is linked. The tool's handler
//! runs inside the span, so spans it starts are its children. Arguments and
//! results are never recorded.
//!
//! Metrics: `mcp.server.operation.duration` (a histogram, in seconds) per
//! method, tool, protocol version and error type, and the counters
//! `toolschema.tool.calls` and `toolschema.tool.errors` per tool and client
//! application.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::global::{self, BoxedTracer};
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{Link, SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::Value;
use toolschema_runtime::catalog::ClientView;

use super::{Answer, Headers, Outcome, Request};

/// The instrumentation scope's name.
const SCOPE: &str = "toolschema";

/// Where a server's traces and metrics go: a tracer and a meter.
///
/// ```
/// use toolschema_serve::Telemetry;
///
/// // The providers installed with `opentelemetry::global`.
/// let telemetry = Telemetry::global();
/// # let _ = telemetry;
/// ```
pub struct Telemetry {
    tracer: BoxedTracer,
    duration: Histogram<f64>,
    calls: Counter<u64>,
    errors: Counter<u64>,
    propagator: TraceContextPropagator,
}

impl core::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

impl Telemetry {
    /// The tracer and meter of the providers installed globally
    /// (`opentelemetry::global::set_tracer_provider`, `set_meter_provider`)
    /// when it is called: install them first.
    pub fn global() -> Telemetry {
        Telemetry::with(global::tracer(SCOPE), &global::meter(SCOPE))
    }

    /// The tracer and meter of `tracer_provider` and `meter_provider`.
    pub fn new<T>(tracer_provider: &T, meter_provider: &impl MeterProvider) -> Telemetry
    where
        T: TracerProvider,
        T::Tracer: Tracer + Send + Sync + 'static,
        <T::Tracer as Tracer>::Span: Send + Sync + 'static,
    {
        let tracer = BoxedTracer::new(Box::new(tracer_provider.tracer(SCOPE)));
        Telemetry::with(tracer, &meter_provider.meter(SCOPE))
    }

    fn with(tracer: BoxedTracer, meter: &Meter) -> Telemetry {
        Telemetry {
            tracer,
            duration: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("How long the server took to answer an MCP request.")
                .build(),
            calls: meter
                .u64_counter("toolschema.tool.calls")
                .with_description("Tool calls answered, per tool and client application.")
                .build(),
            errors: meter
                .u64_counter("toolschema.tool.errors")
                .with_description(
                    "Tool calls that ended in an error (a tool's or the protocol's), per tool and client application.",
                )
                .build(),
            propagator: TraceContextPropagator::new(),
        }
    }

    /// Starts the span of `request`; its context is the one the request's
    /// handling runs in.
    pub(crate) fn start(
        &self,
        request: &Request,
        client: &ClientView,
        headers: &Headers<'_>,
        version: Option<&str>,
    ) -> Observed {
        let method = method_name(request.method());
        // Shared, not copied, between the span, the metrics and `Observed`.
        let tool: Option<Arc<str>> = (method == "tools/call")
            .then(|| request.params().get("name").and_then(Value::as_str))
            .flatten()
            .map(Arc::from);
        let client_id: Arc<str> = Arc::from(client.id());
        let version: Option<Arc<str>> = version.map(Arc::from);
        let from_meta = self.extract(TraceFields::Meta(request));
        let from_http = self.extract(TraceFields::Http(headers));
        let (parent, link) = match (from_meta, from_http) {
            (Some(meta), http) => (meta, http),
            (None, Some(http)) => (http, None),
            (None, None) => (Context::new(), None),
        };
        let name: Cow<'static, str> = match &tool {
            Some(tool) => {
                let mut name = String::with_capacity(method.len() + 1 + tool.len());
                name.push_str(&method);
                name.push(' ');
                name.push_str(tool);
                name.into()
            }
            None => method.clone(),
        };
        let mut attributes = Vec::with_capacity(9);
        attributes.extend([
            KeyValue::new("mcp.method.name", method.clone()),
            KeyValue::new("jsonrpc.request.id", id_text(request.id().as_json())),
            KeyValue::new(
                "network.transport",
                if headers.http { "tcp" } else { "pipe" },
            ),
            KeyValue::new("toolschema.client.id", client_id.clone()),
            KeyValue::new("toolschema.tenant.id", client.tenant().to_owned()),
        ]);
        if let Some(version) = &version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.clone()));
        }
        if let Some(tool) = &tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.clone()));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        let mut builder = self
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(attributes);
        if let Some(linked) = link {
            let span = linked.span();
            builder = builder.with_links(vec![Link::with_context(span.span_context().clone())]);
        }
        let span = builder.start_with_context(&self.tracer, &parent);
        Observed {
            context: parent.with_span(span),
            started: Instant::now(),
            method,
            tool,
            version,
            client: client_id,
        }
    }

    /// The remote span context the fields carry, if any.
    fn extract(&self, fields: TraceFields<'_>) -> Option<Context> {
        // Most requests carry no trace context: nothing to parse.
        fields.get("traceparent")?;
        let context = self.propagator.extract(&fields);
        context.span().span_context().is_valid().then_some(context)
    }

    /// Ends `observed`'s span with `answer`'s outcome and records its
    /// metrics.
    pub(crate) fn finish(&self, observed: Observed, answer: &Answer) {
        let outcome = match answer {
            Answer::Reply(reply) => reply.outcome(),
            _ => Outcome::Success,
        };
        let error = match outcome {
            Outcome::Success => None,
            Outcome::ToolError => Some("tool_error".to_owned()),
            Outcome::Error(code) => Some(code.to_string()),
        };
        let span = observed.context.span();
        if let Some(error) = &error {
            span.set_attribute(KeyValue::new("error.type", error.clone()));
            if let Outcome::Error(code) = outcome {
                span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
            }
            span.set_status(Status::error(match outcome {
                Outcome::ToolError => "the tool returned an error",
                _ => "the request was refused",
            }));
        }
        span.end();
        let elapsed = observed.started.elapsed().as_secs_f64();
        let mut attributes = Vec::with_capacity(4);
        attributes.push(KeyValue::new("mcp.method.name", observed.method));
        if let Some(version) = observed.version {
            attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        if let Some(error) = &error {
            attributes.push(KeyValue::new("error.type", error.clone()));
        }
        if let Some(tool) = observed.tool {
            let tool = KeyValue::new("gen_ai.tool.name", tool);
            let per_client = [
                tool.clone(),
                KeyValue::new("toolschema.client.id", observed.client),
            ];
            self.calls.add(1, &per_client);
            if error.is_some() {
                self.errors.add(1, &per_client);
            }
            attributes.push(tool);
        }
        self.duration.record(elapsed, &attributes);
    }
}

/// The method's name, without a copy for the methods MCP defines.
fn method_name(method: &str) -> Cow<'static, str> {
    const KNOWN: [&str; 9] = [
        "tools/call",
        "tools/list",
        "initialize",
        "ping",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
        "resources/list",
        "prompts/list",
    ];
    match KNOWN.iter().find(|known| **known == method) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(method.to_owned()),
    }
}

/// A JSON-RPC id as the attribute holds it: a string id's text, a
/// number's digits.
fn id_text(json: &str) -> String {
    match json
        .strip_prefix('"')
        .and_then(|text| text.strip_suffix('"'))
    {
        // A string without escapes is its own text.
        Some(text) if !text.contains('\\') => text.to_owned(),
        Some(_) => serde_json::from_str::<String>(json).unwrap_or_else(|_| json.to_owned()),
        None => json.to_owned(),
    }
}

/// One request under observation: its span's context, and what its
/// metrics are recorded with.
pub(crate) struct Observed {
    pub(crate) context: Context,
    started: Instant,
    method: Cow<'static, str>,
    tool: Option<Arc<str>>,
    version: Option<Arc<str>>,
    client: Arc<str>,
}

/// Where a W3C trace context is read from.
enum TraceFields<'a> {
    /// `_meta.traceparent` and `_meta.tracestate`.
    Meta(&'a Request),
    /// The HTTP request's `traceparent` and `tracestate` headers.
    Http(&'a Headers<'a>),
}

impl Extractor for TraceFields<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match self {
            TraceFields::Meta(request) => request.meta(key).and_then(Value::as_str),
            TraceFields::Http(headers) => match key {
                "traceparent" => headers.trace_context.0,
                "tracestate" => headers.trace_context.1,
                _ => None,
            },
        }
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent", "tracestate"]
    }
}

#[cfg(test)]
mod tests {
    use super::id_text;

    #[test]
    fn a_request_id_is_recorded_as_its_text() {
        assert_eq!(id_text("7"), "7");
        assert_eq!(id_text(r#""list-1""#), "list-1");
        assert_eq!(id_text(r#""a\"b\u00e9""#), "a\"bé");
        assert_eq!(id_text(r#""""#), "");
    }
}
