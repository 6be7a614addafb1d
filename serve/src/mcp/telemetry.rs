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
//! The trace context is read here rather than by the SDK's propagator: a
//! `traceparent` is four fixed-width fields, and reading them directly
//! costs a tenth of what the propagator does (it collects the fields into a
//! vector and reads each number through `from_str_radix`), on a path whose
//! whole cost of tracing must stay under a tenth of a call. It is also
//! exactly the W3C format, where the propagator accepts more (a `+` sign,
//! fields shorter than their width). `tracestate` is read by the API
//! crate's own parser.
//!
//! Metrics: `mcp.server.operation.duration` (a histogram, in seconds) per
//! method, tool, protocol version and error type, and the counters
//! `toolschema.tool.calls` and `toolschema.tool.errors` per tool and client
//! application.

use std::borrow::Cow;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry::global::{self, BoxedTracer};
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider};
use opentelemetry::trace::{
    Link, SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState,
    Tracer, TracerProvider,
};
use opentelemetry::{Context, KeyValue};
use serde_json::Value;
use toolschema_catalog::ClientView;

use super::{Answer, Headers, Outcome, Request, SUPPORTED_VERSIONS};

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
        let method = known_or_owned(request.method(), &METHODS);
        let version = version.map(|version| known_or_owned(version, &SUPPORTED_VERSIONS));
        // Shared, not copied, between the span, the metrics and `Observed`.
        let tool: Option<Arc<str>> = (method == "tools/call")
            .then(|| request.params().get("name").and_then(Value::as_str))
            .flatten()
            .map(Arc::from);
        let client_id = client.shared_id();
        let from_meta = remote_parent(request.meta("traceparent").and_then(Value::as_str), || {
            request.meta("tracestate").and_then(Value::as_str)
        });
        let from_http = remote_parent(headers.trace_context.0, || headers.trace_context.1);
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
            KeyValue::new("toolschema.tenant.id", client.shared_tenant()),
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
            Outcome::Denied => Some("insufficient_scope".to_owned()),
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

/// The methods MCP defines, recorded without a copy.
const METHODS: [&str; 9] = [
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

/// `text` as an attribute value: the `known` constant it equals, else a
/// copy.
fn known_or_owned(text: &str, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|candidate| **candidate == text) {
        Some(constant) => Cow::Borrowed(constant),
        None => Cow::Owned(text.to_owned()),
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
    version: Option<Cow<'static, str>>,
    client: Arc<str>,
}

/// The context of the remote span a W3C `traceparent` (and `tracestate`,
/// looked up only then) names, if `traceparent` is there and well formed.
fn remote_parent<'a>(
    traceparent: Option<&str>,
    tracestate: impl FnOnce() -> Option<&'a str>,
) -> Option<Context> {
    let (trace_id, span_id, flags) = read_traceparent(traceparent?)?;
    // A malformed `tracestate` is dropped; the parent still holds.
    let state = tracestate()
        .and_then(|text| TraceState::from_str(text).ok())
        .unwrap_or_default();
    let remote = SpanContext::new(trace_id, span_id, flags, true, state);
    Some(Context::new().with_remote_span_context(remote))
}

/// The trace id, parent span id and flags of a W3C `traceparent`
/// (Trace Context, "traceparent Header"): `version-traceid-parentid-flags`
/// in lowercase hex, 2, 32, 16 and 2 digits. Version `00` is exactly that;
/// a later version may add fields after a `-`, and `ff` is invalid. All-zero
/// ids are invalid. Of the flags, only `sampled` is kept (as the SDK's
/// propagator keeps it). Spaces and tabs around the value are ignored, as
/// HTTP ignores them around a header's.
fn read_traceparent(text: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let text = text.trim_matches([' ', '\t']).as_bytes();
    let fixed = text.get(..55)?;
    let version = hex_byte(&fixed[0..2])?;
    let valid_length = match version {
        0xff => false,
        0 => text.len() == 55,
        _ => text.len() == 55 || text[55] == b'-',
    };
    if !valid_length || fixed[2] != b'-' || fixed[35] != b'-' || fixed[52] != b'-' {
        return None;
    }
    let mut trace_id = [0u8; 16];
    for (byte, pair) in trace_id.iter_mut().zip(fixed[3..35].chunks_exact(2)) {
        *byte = hex_byte(pair)?;
    }
    let mut span_id = [0u8; 8];
    for (byte, pair) in span_id.iter_mut().zip(fixed[36..52].chunks_exact(2)) {
        *byte = hex_byte(pair)?;
    }
    let flags = hex_byte(&fixed[53..55])?;
    if trace_id == [0; 16] || span_id == [0; 8] {
        return None;
    }
    Some((
        TraceId::from_bytes(trace_id),
        SpanId::from_bytes(span_id),
        TraceFlags::new(flags) & TraceFlags::SAMPLED,
    ))
}

/// The byte two lowercase hex digits write.
fn hex_byte(pair: &[u8]) -> Option<u8> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use opentelemetry::propagation::TextMapPropagator;
    use opentelemetry::trace::{SpanContext, TraceContextExt, TraceFlags};
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use proptest::prelude::*;

    use super::{id_text, remote_parent};

    #[test]
    fn a_request_id_is_recorded_as_its_text() {
        assert_eq!(id_text("7"), "7");
        assert_eq!(id_text(r#""list-1""#), "list-1");
        assert_eq!(id_text(r#""a\"b\u00e9""#), "a\"bé");
        assert_eq!(id_text(r#""""#), "");
    }

    /// The remote span context we read, if any.
    fn ours(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
        remote_parent(Some(traceparent), || tracestate)
            .map(|context| context.span().span_context().clone())
    }

    /// The remote span context the SDK's W3C propagator reads, if any.
    fn sdk(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
        let mut fields = HashMap::from([("traceparent".to_owned(), traceparent.to_owned())]);
        if let Some(state) = tracestate {
            fields.insert("tracestate".to_owned(), state.to_owned());
        }
        let context = TraceContextPropagator::new().extract(&fields);
        let span = context.span();
        let remote = span.span_context();
        remote.is_valid().then(|| remote.clone())
    }

    #[test]
    fn the_w3c_examples_are_read() {
        let remote = ours(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"),
        )
        .expect("the specification's own example");
        assert_eq!(
            remote.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(remote.span_id().to_string(), "00f067aa0ba902b7");
        assert!(remote.is_sampled());
        assert!(remote.is_remote());
        assert_eq!(remote.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
        let unsampled = ours(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
            None,
        )
        .expect("unsampled");
        assert!(!unsampled.is_sampled());
        // Flags other than `sampled` are dropped, as the SDK drops them.
        let random = ours(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
            None,
        )
        .expect("sampled and random");
        assert_eq!(random.trace_flags(), TraceFlags::SAMPLED);
        // A later version may carry more fields.
        assert!(
            ours(
                "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-next",
                None
            )
            .is_some()
        );
        // A malformed tracestate is dropped, the parent kept.
        let bare = ours(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            Some("rojo"),
        )
        .expect("parent without state");
        assert_eq!(bare.trace_state().header(), "");
    }

    #[test]
    fn malformed_traceparents_name_no_parent() {
        for (traceparent, why) in [
            ("", "empty"),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                "no flags",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
                "version 00 with more",
            ),
            (
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "version ff",
            ),
            (
                "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
                "more without a dash",
            ),
            (
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "zero trace id",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "zero span id",
            ),
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "upper case",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
                "not hex",
            ),
            (
                "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
                "no dashes",
            ),
            // What the SDK's propagator reads but the format forbids.
            (
                "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "a sign",
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e47-0000f067aa0ba902b7-01",
                "a short trace id",
            ),
            (
                "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "a short version",
            ),
        ] {
            assert_eq!(ours(traceparent, None), None, "{why}: {traceparent}");
        }
    }

    /// A traceparent as the W3C format writes it: any version but `ff`,
    /// random ids (zero now and then) and flags, more fields for a later
    /// version, and spaces around now and then.
    fn well_formed() -> impl Strategy<Value = String> {
        (
            0u8..=0xfe,
            prop_oneof![Just(0u128), any::<u128>()],
            prop_oneof![Just(0u64), any::<u64>()],
            any::<u8>(),
            prop_oneof![Just(String::new()), "-[a-z0-9-]{0,12}"],
            prop_oneof![Just(""), Just(" "), Just("\t ")],
        )
            .prop_map(|(version, trace, span, flags, more, padding)| {
                let more = if version == 0 { "" } else { more.as_str() };
                format!(
                    "{padding}{version:02x}-{trace:032x}-{span:016x}-{flags:02x}{more}{padding}"
                )
            })
    }

    /// A traceparent with one character replaced, inserted or removed.
    fn damaged() -> impl Strategy<Value = String> {
        (
            well_formed(),
            any::<prop::sample::Index>(),
            0u8..3,
            "[0-9a-fA-F+ x-]",
        )
            .prop_map(|(text, at, how, with)| {
                let mut chars: Vec<char> = text.chars().collect();
                let at = at.index(chars.len() + 1);
                let with = with.chars().next().unwrap_or('x');
                match (how, at < chars.len()) {
                    (0, true) => chars[at] = with,
                    (1, _) => chars.insert(at, with),
                    (_, true) => {
                        chars.remove(at);
                    }
                    _ => {}
                }
                chars.into_iter().collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// On every well-formed traceparent, the same parent as the SDK's
        /// propagator (including refusing zero ids).
        #[test]
        fn well_formed_traceparents_read_as_the_sdk_reads_them(
            traceparent in well_formed(),
            tracestate in prop::option::of("[a-z]{1,5}=[a-z0-9]{1,5}(,[a-z]{1,5}=[a-z0-9]{1,5}){0,2}"),
        ) {
            prop_assert_eq!(ours(&traceparent, tracestate.as_deref()), sdk(&traceparent, tracestate.as_deref()));
        }

        /// Never more lenient than the SDK's propagator: whatever we read,
        /// it reads the same.
        #[test]
        fn what_we_read_the_sdk_reads_the_same(traceparent in damaged()) {
            if let Some(remote) = ours(&traceparent, None) {
                prop_assert_eq!(Some(remote), sdk(&traceparent, None));
            }
        }
    }
}
