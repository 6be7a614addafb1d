//! The call path, schema access, rendering and the gateway's own work in
//! instructions rather than seconds (callgrind, through gungraun): counts
//! that do not move with the machine's load, unlike timings on a shared
//! two-core machine. Each benchmark is run once under callgrind, its
//! set-up (parsing fixtures, warming the compiled-validator cache as a
//! running server has it) left out of the count.
//!
//! `python3 benches/callgrind.py` builds and runs it (the `gungraun-runner`
//! binary of the same version must be installed; the script says how) and
//! prints the counts and the ratios of `benches/README.md`.

#![allow(missing_docs, unreachable_pub, dead_code)]

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use toolschema_gateway::{encode, soap};

use serde::Deserialize;
use toolschema::{Context, Handler, Tool, ToolError, ToolResult};
use toolschema_test_support::block_on;

use gungraun::{library_benchmark, library_benchmark_group, main};
use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema::validate::{InputValidator, Limits, OutputValidator};
use toolschema_configured::ConfiguredVersion;

#[path = "fixtures/invoice.rs"]
mod invoice;

use invoice::{CreateInvoice, bad_payload, payload, usual_validator};

/// Drops what a benchmark hands back, outside the count (a validator's
/// drop is not part of a call).
fn release<T>(value: T) {
    drop(black_box(value));
}

/// The valid payload, the compiled-validator cache warm.
fn valid() -> String {
    let text = payload();
    assert!(toolschema::parse_args::<CreateInvoice>(&text).is_ok());
    text
}

/// The payload with five violations, the cache warm.
fn invalid() -> String {
    let text = bad_payload();
    assert!(toolschema::parse_args::<CreateInvoice>(&text).is_err());
    text
}

/// The usual stack's validator and the valid payload.
fn usual_valid() -> (jsonschema::Validator, String) {
    (usual_validator(), payload())
}

fn usual_invalid() -> (jsonschema::Validator, String) {
    (usual_validator(), bad_payload())
}

/// The arguments already parsed, and our validator.
fn parsed() -> (InputValidator, Value) {
    let value: Value = serde_json::from_str(&payload()).expect("json");
    let validator =
        InputValidator::new(<CreateInvoice as toolschema::Tool>::TOOL, Limits::default());
    assert!(validator.read::<CreateInvoice>(value.clone()).is_ok());
    (validator, value)
}

fn usual_parsed() -> (jsonschema::Validator, Value) {
    (
        usual_validator(),
        serde_json::from_str(&payload()).expect("json"),
    )
}

// (a) serde alone, (b) the usual stack (serde_json, jsonschema,
// serde), (c) ours (`parse_args`: the one pass).
#[library_benchmark]
#[bench::valid(setup = valid)]
fn a_serde(text: String) -> bool {
    serde_json::from_str::<CreateInvoice>(black_box(&text)).is_ok()
}

#[library_benchmark]
#[bench::valid(setup = usual_valid, teardown = release)]
fn b_usual((validator, text): (jsonschema::Validator, String)) -> (bool, jsonschema::Validator) {
    let value: Value = serde_json::from_str(black_box(&text)).expect("json");
    let ok = validator.is_valid(&value) && serde_json::from_value::<CreateInvoice>(value).is_ok();
    (ok, validator)
}

#[library_benchmark]
#[bench::valid(setup = valid)]
fn c_ours(text: String) -> bool {
    toolschema::parse_args::<CreateInvoice>(black_box(&text)).is_ok()
}

// The same three from arguments already parsed (as an MCP server has
// them, inside the JSON-RPC request).
#[library_benchmark]
#[bench::valid(setup = parsed, teardown = release)]
fn a_serde_value((validator, value): (InputValidator, Value)) -> (bool, InputValidator) {
    (
        serde_json::from_value::<CreateInvoice>(black_box(value)).is_ok(),
        validator,
    )
}

#[library_benchmark]
#[bench::valid(setup = usual_parsed, teardown = release)]
fn b_usual_value(
    (validator, value): (jsonschema::Validator, Value),
) -> (bool, jsonschema::Validator) {
    let ok = validator.is_valid(black_box(&value))
        && serde_json::from_value::<CreateInvoice>(value).is_ok();
    (ok, validator)
}

#[library_benchmark]
#[bench::valid(setup = parsed, teardown = release)]
fn c_ours_value((validator, value): (InputValidator, Value)) -> (bool, InputValidator) {
    let ok = validator.read::<CreateInvoice>(black_box(value)).is_ok();
    (ok, validator)
}

// Five violations, every one reported with its path and message: the
// usual stack's `iter_errors`, and ours (exposed path, rule, sentence).
#[library_benchmark]
#[bench::five(setup = usual_invalid, teardown = release)]
fn b_usual_errors(
    (validator, text): (jsonschema::Validator, String),
) -> (usize, jsonschema::Validator) {
    let value: Value = serde_json::from_str(black_box(&text)).expect("json");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    (errors.len(), validator)
}

#[library_benchmark]
#[bench::five(setup = invalid)]
fn c_ours_errors(text: String) -> usize {
    toolschema::parse_args::<CreateInvoice>(black_box(&text))
        .err()
        .map_or(0, |errors| errors.len())
}

library_benchmark_group!(
    name = call_path;
    benchmarks = a_serde, b_usual, c_ours, a_serde_value, b_usual_value, c_ours_value,
        b_usual_errors, c_ours_errors
);

// A tool's input and output schema, obtained.
#[library_benchmark]
fn schema_access() -> usize {
    let tool = black_box(<CreateInvoice as toolschema::Tool>::TOOL);
    let input: &toolschema::model::Node = &tool.input;
    black_box((input, tool.output.as_deref())).1.is_some() as usize
}

// The MCP `Tool` of one tool, rendered to JSON text.
#[library_benchmark]
fn render_tool() -> usize {
    let tool = black_box(<CreateInvoice as toolschema::Tool>::TOOL);
    toolschema::render::render_tool(tool)
        .to_compact_string()
        .len()
}

/// A client's `tools/list`, handed out (the demo catalog's snapshot).
fn demo() -> std::sync::Arc<toolschema::catalog::Snapshot> {
    let snapshot = toolschema_demo::catalog().snapshot();
    assert!(
        snapshot
            .discover(
                "acme-finance",
                toolschema::project::ProtocolRevision::LATEST
            )
            .is_ok()
    );
    snapshot
}

#[library_benchmark]
#[bench::demo(setup = demo, teardown = release)]
fn tools_list(
    snapshot: std::sync::Arc<toolschema::catalog::Snapshot>,
) -> (usize, std::sync::Arc<toolschema::catalog::Snapshot>) {
    let length = snapshot
        .discover(
            black_box("acme-finance"),
            toolschema::project::ProtocolRevision::LATEST,
        )
        .map_or(0, |list| list.len());
    (length, snapshot)
}

library_benchmark_group!(
    name = schemas;
    benchmarks = schema_access, render_tool, tools_list
);

/// A configuration's first gateway tool, its validators, the arguments of
/// a call and the downstream's answer.
struct Gateway {
    version: ConfiguredVersion,
    input: InputValidator,
    output: OutputValidator,
    arguments: Value,
    answer: &'static [u8],
}

fn gateway(config: &str, arguments: Value, answer: &'static [u8]) -> Gateway {
    let config = Config::from_toml(config, "fixture.toml", &Registry::new())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let version = config.configured_tools()[0].versions()[0].clone();
    let input = InputValidator::new(version.def(), Limits::default());
    let output = OutputValidator::new(version.def()).expect("an output schema");
    Gateway {
        version,
        input,
        output,
        arguments,
        answer,
    }
}

fn rest() -> Gateway {
    gateway(
        include_str!("fixtures/gateway.toml"),
        json!({"order_id": 42, "expand": "lines"}),
        include_bytes!("fixtures/gateway-answer.json"),
    )
}

fn soap() -> Gateway {
    gateway(
        include_str!("fixtures/soap.toml"),
        json!({"species": "dog", "age_years": 3, "coverage": {"amount": 5000, "currency": "EUR"}, "extra": ["dental", "travel"]}),
        include_bytes!("fixtures/soap-answer.xml"),
    )
}

// What a REST caller without the gateway does with the answer: parse it.
#[library_benchmark]
#[bench::rest(setup = rest, teardown = release)]
fn gateway_rest_floor(fixture: Gateway) -> (bool, Gateway) {
    let ok = serde_json::from_slice::<Value>(black_box(fixture.answer))
        .is_ok_and(|v| v.get("id").is_some());
    (ok, fixture)
}

// The gateway's work on a REST call: arguments checked and mapped into a
// request, the answer parsed, mapped to exposed names and checked.
#[library_benchmark]
#[bench::rest(setup = rest, teardown = release)]
fn gateway_rest(fixture: Gateway) -> (bool, Gateway) {
    let ok = gateway_call(&fixture);
    (ok, fixture)
}

/// A gateway call's own work: the arguments checked, mapped into a request
/// (REST) or written into the envelope (SOAP), the answer read, mapped to
/// exposed names and checked against the output schema.
fn gateway_call(fixture: &Gateway) -> bool {
    let operation = fixture.version.operation();
    let Ok(arguments) = fixture
        .input
        .read::<Value>(black_box(fixture.arguments.clone()))
    else {
        return false;
    };
    let result = if operation.soap().is_some() {
        let Ok(envelope) = soap::request_envelope(operation, &arguments) else {
            return false;
        };
        black_box(envelope);
        soap::result_from_envelope(operation, black_box(fixture.answer)).ok()
    } else {
        let Ok(request) = encode::request(operation, &arguments) else {
            return false;
        };
        black_box(request);
        serde_json::from_slice::<Value>(black_box(fixture.answer))
            .ok()
            .and_then(|answer| encode::result(operation, &answer).ok())
    };
    result.is_some_and(|result| fixture.output.check(result).is_ok())
}

// What a SOAP caller without the gateway does: format a fixed envelope,
// read the one value it wants from the answer with quick-xml.
#[library_benchmark]
#[bench::soap(setup = soap, teardown = release)]
fn gateway_soap_floor(fixture: Gateway) -> (bool, Gateway) {
    let ok = soap_floor(fixture.answer);
    (ok, fixture)
}

fn soap_floor(answer: &[u8]) -> bool {
    use quick_xml::events::Event;
    let (species, age, amount, currency) = black_box(("dog", 3, 5000, "EUR"));
    black_box(format!(
        r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:GetQuote xmlns:m="urn:pets-inc:insurance"><m:species>{species}</m:species><m:ageYears>{age}</m:ageYears><m:coverage currency="{currency}"><m:amount>{amount}</m:amount></m:coverage><m:extra>dental</m:extra><m:extra>travel</m:extra></m:GetQuote></soap:Body></soap:Envelope>"#
    ));
    let mut reader = quick_xml::Reader::from_reader(black_box(answer));
    let mut buffer = Vec::new();
    let mut inside = false;
    loop {
        match reader.read_event_into(&mut buffer) {
            Ok(Event::Start(start)) => inside = start.local_name().as_ref() == "monthlyPremium",
            Ok(Event::Text(text)) if inside => return text.xml10_content().parse::<f64>().is_ok(),
            Ok(Event::Eof) | Err(_) => return false,
            _ => {}
        }
        buffer.clear();
    }
}

// The gateway's work on a SOAP call: arguments checked and written into
// the envelope, the answer read, mapped to exposed names and checked.
#[library_benchmark]
#[bench::soap(setup = soap, teardown = release)]
fn gateway_soap(fixture: Gateway) -> (bool, Gateway) {
    let ok = gateway_call(&fixture);
    (ok, fixture)
}

/// How many times [`Tally`] ran without state.
static TALLIES: AtomicU64 = AtomicU64::new(0);

/// Counts (stateless: a process-wide counter).
#[derive(Tool, Deserialize)]
#[tool(name = "count.stateless")]
struct Tally {
    /// By how much.
    by: u64,
}

impl Handler for Tally {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        TALLIES.fetch_add(self.by, Ordering::Relaxed);
        Ok(ToolResult::new())
    }
}

/// A server's state: a counter.
#[derive(Default)]
struct Counter(AtomicU64);

/// Counts (the same work, on the server's state).
#[derive(Tool, Deserialize)]
#[tool(name = "count.stateful", state = Counter)]
struct StatefulTally {
    /// By how much.
    by: u64,
}

impl Handler for StatefulTally {
    async fn call(self, ctx: Context<Counter>) -> Result<ToolResult, ToolError> {
        ctx.state().0.fetch_add(self.by, Ordering::Relaxed);
        Ok(ToolResult::new())
    }
}

/// A registry of the one counter `T`, warm, and the arguments. Each
/// counter has a registry of its own: in one registry of both, finding
/// `count.stateful` took more name comparisons than `count.stateless`
/// (about 60 instructions), which is the lookup's cost, not the state's.
fn counter<T: Tool>(with: impl FnOnce(&mut Registry)) -> (Registry, Value) {
    let mut registry = Registry::new();
    with(&mut registry);
    let arguments = json!({"by": 2});
    let name: &str = &T::TOOL.name;
    assert!(block_on(registry.call(name, arguments.clone())).is_ok());
    (registry, arguments)
}

fn stateless_counter() -> (Registry, Value) {
    counter::<Tally>(|registry| {
        registry.register::<Tally>().expect("registers");
    })
}

fn stateful_counter() -> (Registry, Value) {
    counter::<StatefulTally>(|registry| {
        registry
            .register_with::<StatefulTally, _>(&Arc::new(Counter::default()))
            .expect("registers");
    })
}

// A whole call of a tool without state, and of one with state doing the
// same work: what the state costs.
#[library_benchmark]
#[bench::warm(setup = stateless_counter, teardown = release)]
fn call_stateless(fixture: (Registry, Value)) -> (bool, (Registry, Value)) {
    let ok = block_on(
        fixture
            .0
            .call("count.stateless", black_box(fixture.1.clone())),
    )
    .is_ok();
    (ok, fixture)
}

#[library_benchmark]
#[bench::warm(setup = stateful_counter, teardown = release)]
fn call_stateful(fixture: (Registry, Value)) -> (bool, (Registry, Value)) {
    let ok = block_on(
        fixture
            .0
            .call("count.stateful", black_box(fixture.1.clone())),
    )
    .is_ok();
    (ok, fixture)
}

// A whole `tools/call` over HTTP, from the request's bytes to the
// response's: through the serving library's router (ours), and through a
// bare axum handler doing what a hand-written server would (bare: the
// envelope read by serde into a typed struct, the same handler, the answer
// serialized; usual: the arguments read as a tree and checked by
// jsonschema first, every violation listed, as the error path's floor).

impl Handler for CreateInvoice {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(invoiced(&self)))
    }
}

/// What the invoice tool answers.
fn invoiced(invoice: &CreateInvoice) -> String {
    format!(
        "invoice for {} with {} lines",
        invoice.customer_email,
        invoice.lines.len()
    )
}

/// A router, the runtime it runs on, and a request's body.
struct EndToEnd {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    path: &'static str,
    body: bytes::Bytes,
}

/// The `tools/call` envelope of `arguments`.
fn envelope(arguments: &str) -> bytes::Bytes {
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"billing.create-invoice","arguments":{arguments}}}}}"#
    );
    bytes::Bytes::from(text)
}

/// Sends the fixture's request; the response's status and body.
fn post(fixture: &EndToEnd) -> (u16, bytes::Bytes) {
    use tower_service::Service as _;
    let request = axum::http::Request::post(fixture.path)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("host", "localhost")
        .header("mcp-protocol-version", "2025-06-18")
        .body(axum::body::Body::from(fixture.body.clone()))
        .expect("a request");
    let mut router = fixture.router.clone();
    fixture.runtime.block_on(async move {
        let response = router.call(request).await.expect("infallible");
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("a body");
        (status, body)
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The serving library's router with the invoice tool, warm, and `body`.
fn ours_with(body: bytes::Bytes) -> EndToEnd {
    let mut registry = Registry::new();
    registry.register::<CreateInvoice>().expect("registers");
    let runtime = runtime();
    let router = {
        let _entered = runtime.enter();
        toolschema::serve::Server::new("bench", "1.0.0")
            .registry(registry)
            .router()
            .expect("a router")
    };
    let fixture = EndToEnd {
        runtime,
        router,
        path: "/mcp",
        body,
    };
    let (status, answer) = post(&fixture);
    assert_eq!(status, 200, "{answer:?}");
    fixture
}

fn ours_valid() -> EndToEnd {
    let fixture = ours_with(envelope(&payload()));
    let (_, answer) = post(&fixture);
    assert!(
        answer.starts_with(b"{") && !contains(&answer, b"\"isError\":true"),
        "{answer:?}"
    );
    fixture
}

fn ours_invalid() -> EndToEnd {
    let fixture = ours_with(envelope(&bad_payload()));
    let (_, answer) = post(&fixture);
    assert!(contains(&answer, b"\"isError\":true"), "{answer:?}");
    fixture
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// What a hand-written server reads: the envelope, typed.
#[derive(Deserialize)]
struct TypedCall {
    #[allow(dead_code)]
    jsonrpc: String,
    id: Value,
    #[allow(dead_code)]
    method: String,
    params: TypedParams,
}

#[derive(Deserialize)]
struct TypedParams {
    #[allow(dead_code)]
    name: String,
    arguments: CreateInvoice,
}

/// The envelope with the arguments as a tree, for jsonschema.
#[derive(Deserialize)]
struct TreeCall {
    id: Value,
    params: TreeParams,
}

#[derive(Deserialize)]
struct TreeParams {
    arguments: Value,
}

fn answered(id: &Value, text: &str, is_error: bool) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
        "content": [{"type": "text", "text": text}], "isError": is_error}});
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        answer.to_string(),
    )
        .into_response()
}

fn refused(message: &str) -> axum::response::Response {
    answered(&Value::Null, message, true)
}

/// serde into a typed struct, the handler, the answer serialized.
async fn bare(body: bytes::Bytes) -> axum::response::Response {
    match serde_json::from_slice::<TypedCall>(&body) {
        Ok(call) => answered(&call.id, &invoiced(&call.params.arguments), false),
        Err(error) => refused(&error.to_string()),
    }
}

/// serde into a tree, jsonschema, then serde into the type.
async fn usual(
    axum::extract::State(validator): axum::extract::State<Arc<jsonschema::Validator>>,
    body: bytes::Bytes,
) -> axum::response::Response {
    let call = match serde_json::from_slice::<TreeCall>(&body) {
        Ok(call) => call,
        Err(error) => return refused(&error.to_string()),
    };
    let violations: Vec<String> = validator
        .iter_errors(&call.params.arguments)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if !violations.is_empty() {
        return answered(&call.id, &violations.join("; "), true);
    }
    match serde_json::from_value::<CreateInvoice>(call.params.arguments) {
        Ok(invoice) => answered(&call.id, &invoiced(&invoice), false),
        Err(error) => answered(&call.id, &error.to_string(), true),
    }
}

fn floor_with(body: bytes::Bytes, path: &'static str) -> EndToEnd {
    let router = axum::Router::new()
        .route("/bare", axum::routing::post(bare))
        .route("/usual", axum::routing::post(usual))
        .with_state(Arc::new(usual_validator()));
    let fixture = EndToEnd {
        runtime: runtime(),
        router,
        path,
        body,
    };
    assert_eq!(post(&fixture).0, 200);
    fixture
}

fn bare_valid() -> EndToEnd {
    floor_with(envelope(&payload()), "/bare")
}

fn usual_invalid_call() -> EndToEnd {
    let fixture = floor_with(envelope(&bad_payload()), "/usual");
    assert!(contains(&post(&fixture).1, b"\"isError\":true"));
    fixture
}

#[library_benchmark]
#[bench::warm(setup = ours_valid, teardown = release)]
fn end_to_end_ours(fixture: EndToEnd) -> (u16, EndToEnd) {
    let (status, _) = post(black_box(&fixture));
    (status, fixture)
}

#[library_benchmark]
#[bench::warm(setup = bare_valid, teardown = release)]
fn end_to_end_bare(fixture: EndToEnd) -> (u16, EndToEnd) {
    let (status, _) = post(black_box(&fixture));
    (status, fixture)
}

#[library_benchmark]
#[bench::warm(setup = ours_invalid, teardown = release)]
fn end_to_end_ours_errors(fixture: EndToEnd) -> (u16, EndToEnd) {
    let (status, _) = post(black_box(&fixture));
    (status, fixture)
}

#[library_benchmark]
#[bench::warm(setup = usual_invalid_call, teardown = release)]
fn end_to_end_usual_errors(fixture: EndToEnd) -> (u16, EndToEnd) {
    let (status, _) = post(black_box(&fixture));
    (status, fixture)
}

library_benchmark_group!(
    name = end_to_end;
    benchmarks = end_to_end_ours, end_to_end_bare, end_to_end_ours_errors, end_to_end_usual_errors
);

library_benchmark_group!(
    name = state;
    benchmarks = call_stateless, call_stateful
);

library_benchmark_group!(
    name = gateway_tools;
    benchmarks = gateway_rest_floor, gateway_rest, gateway_soap_floor, gateway_soap
);

main!(
    library_benchmark_groups = call_path,
    schemas,
    gateway_tools,
    state,
    end_to_end
);
