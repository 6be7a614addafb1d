//! Tools from configuration (DESIGN §9): a downstream REST API put in front
//! of clients by a `[[gateway_tool]]`, described, validated and served as
//! derived tools are, with every fault of the downstream turned into its
//! documented outcome. The downstream here is an in-process HTTP server
//! that records what it receives.

use crate::support::http;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};
use toolschema::call::{CallError, Registry};
use toolschema::catalog::Catalog;
use toolschema::model::Ref;
use toolschema::project::ProtocolRevision;

mod mistakes;

/// What the downstream received.
#[derive(Debug, Clone, Default)]
struct Seen {
    path: String,
    query: Option<String>,
    tenant: Option<String>,
    authorization: Option<String>,
    body: Option<Value>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

const SECRET: &str = "sekret-token-9f2c";

fn json_response(status: StatusCode, body: String) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .expect("response")
}

async fn record(State(log): State<Log>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let seen = Seen {
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        tenant: header("x-tenant"),
        authorization: header("authorization"),
        body: serde_json::from_slice(&bytes).ok(),
    };
    log.lock().expect("log").push(seen);
    let answer = match (parts.method.as_str(), parts.uri.path()) {
        ("POST", _) => json!({"id": 7, "state": "open"}),
        (_, path) => {
            let id: i64 = path
                .rsplit('/')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            json!({
                "id": id,
                "customer": {"email": "ana@example.com", "internal_score": 3},
                "entries": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}],
                "internal_note": "never shown"
            })
        }
    };
    json_response(StatusCode::OK, answer.to_string())
}

/// The downstream: orders, and a route for each fault.
fn downstream(log: Log) -> Router {
    Router::new()
        .route("/api/orders/{id}", get(record))
        .route("/api/orders", post(record))
        .route(
            "/api/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                json_response(StatusCode::OK, "{}".to_owned())
            }),
        )
        .route(
            "/api/fail",
            get(|| async {
                json_response(
                    StatusCode::BAD_GATEWAY,
                    "{\"error\":\"upstream down\"}".to_owned(),
                )
            }),
        )
        .route(
            "/api/big",
            get(|| async {
                json_response(
                    StatusCode::OK,
                    format!("{{\"id\": 1, \"pad\": \"{}\"}}", "x".repeat(4096)),
                )
            }),
        )
        .route(
            "/api/wrong",
            get(|| async { json_response(StatusCode::OK, "{\"id\": \"seven\"}".to_owned()) }),
        )
        .route(
            "/api/html",
            get(|| async {
                Response::builder()
                    .header(header::CONTENT_TYPE, "text/html")
                    .body(Body::from("<html>maintenance</html>"))
                    .expect("response")
            }),
        )
        .route(
            "/api/missing",
            get(|| async {
                json_response(
                    StatusCode::NOT_FOUND,
                    format!("{{\"message\": \"no order 99 for token {SECRET}\"}}"),
                )
            }),
        )
        .route(
            "/api/locked",
            get(|| async {
                json_response(
                    StatusCode::UNAUTHORIZED,
                    "{\"message\":\"bad token\"}".to_owned(),
                )
            }),
        )
        .with_state(log)
}

/// A fault tool: `GET /api/<route>` mapping `id` from the answer.
fn fault_tool(name: &str, route: &str, downstream: &str) -> String {
    format!(
        r#"
[[gateway_tool]]
name = "faults.{name}"
downstream = "{downstream}"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Calls /{route}."
method = "GET"
path = "/{route}"

[[gateway_tool.version.result]]
name = "id"
type = "integer"
required = true
"#
    )
}

/// The catalog configuration, with the downstream at `port` and a
/// downstream nobody listens on at `closed`.
fn config(port: u16, closed: u16, order_status: &str) -> String {
    let mut text = clients_and_downstreams(port, closed);
    text.push_str(&orders_get(order_status));
    text.push_str(ORDERS_CREATE);
    for (name, route) in [
        ("slow", "slow"),
        ("fail", "fail"),
        ("big", "big"),
        ("wrong", "wrong"),
        ("html", "html"),
        ("missing", "missing"),
        ("locked", "locked"),
    ] {
        text.push_str(&fault_tool(name, route, "shop"));
    }
    text.push_str(&fault_tool("closed", "orders/1", "nowhere"));
    text
}

/// The tenant, its two clients and toolsets, and the two downstreams.
fn clients_and_downstreams(port: u16, closed: u16) -> String {
    format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["orders"]

[[client]]
id = "lean"
tenant = "acme"
toolsets = ["orders-lazy"]

[[toolset]]
id = "orders"
tenant = "acme"
tools = ["orders.get", "orders.create", "faults.slow", "faults.fail", "faults.big", "faults.wrong", "faults.html", "faults.missing", "faults.locked", "faults.closed"]

[[toolset]]
id = "orders-lazy"
tenant = "acme"
mode = "lazy"
tools = ["orders.get", "orders.create"]

[[downstream]]
id = "shop"
base_url = "http://127.0.0.1:{port}/api"
timeout_ms = 500
max_response_bytes = 1024
headers = {{ "X-Gateway" = "toolschema" }}
auth = {{ kind = "bearer", env = "TOOLSCHEMA_TEST_SHOP_TOKEN" }}

[[downstream]]
id = "nowhere"
base_url = "http://127.0.0.1:{closed}"
connect_timeout_ms = 500
"#
    )
}

/// `orders.get`: version 1 with `status`, and a draft version 2.
fn orders_get(status: &str) -> String {
    format!(
        r#"
[[gateway_tool]]
name = "orders.get"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "{status}"
description = "Returns one order with its lines."
method = "GET"
path = "/orders/{{orderId}}"
read_only = true

[[gateway_tool.version.argument]]
name = "order_id"
source = "orderId"
in = "path"
type = "integer"
required = true
minimum = 1
description = "The order's number."

[[gateway_tool.version.argument]]
name = "tenant"
source = "X-Tenant"
in = "header"
type = "string"

[[gateway_tool.version.argument]]
name = "expand"
in = "query"
type = "string"
enum = ["lines", "customer"]

[[gateway_tool.version.result]]
name = "order_id"
source = "id"
type = "integer"
required = true

[[gateway_tool.version.result]]
name = "customer_email"
source = "customer.email"
type = "string"
format = "email"

[[gateway_tool.version.result]]
name = "lines[].code"
source = "entries[].sku"
type = "string"
required = true

[[gateway_tool.version.result]]
name = "lines[].quantity"
source = "entries[].qty"
type = "integer"

[[gateway_tool.version]]
version = 2
status = "draft"
description = "Returns one order (draft: only its number)."
method = "GET"
path = "/orders/{{orderId}}"

[[gateway_tool.version.argument]]
name = "order_number"
source = "orderId"
in = "path"
type = "integer"
required = true

[[gateway_tool.version.result]]
name = "order_number"
source = "id"
type = "integer"
required = true
"#
    )
}

/// `orders.create`: a body of nested fields.
const ORDERS_CREATE: &str = r#"
[[gateway_tool]]
name = "orders.create"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Opens an order."
method = "POST"
path = "/orders"

[[gateway_tool.version.argument]]
name = "customer_email"
source = "customer.email"
type = "string"
format = "email"
required = true

[[gateway_tool.version.argument]]
name = "lines"
type = "array"
required = true
min_items = 1
description = "What is ordered."

[[gateway_tool.version.argument]]
name = "lines[].code"
source = "entries[].sku"
type = "string"
required = true
min_length = 1

[[gateway_tool.version.argument]]
name = "lines[].quantity"
source = "entries[].qty"
type = "integer"
minimum = 1
maximum = 100
default = 1

[[gateway_tool.version.result]]
name = "order_id"
source = "id"
type = "integer"
required = true
"#;

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

struct Fixture {
    catalog: Catalog,
    log: Log,
    port: u16,
    closed: u16,
}

async fn fixture() -> Fixture {
    // SAFETY-free: tests in this binary set this variable to one value only.
    // SAFETY: no other thread reads the environment while it is set (the
    // variable is set before any downstream call, to the same value).
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("TOOLSCHEMA_TEST_SHOP_TOKEN", SECRET)
    };
    let log = Log::default();
    let port = super::support::serve_on_loopback(downstream(log.clone())).await;
    let closed = closed_port();
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &config(port, closed, "published"),
        "gateway.toml",
        http(),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    Fixture {
        catalog,
        log,
        port,
        closed,
    }
}

fn message(error: &CallError) -> String {
    error.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_tool_is_listed_with_exposed_names_only() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let list = snapshot
        .discover("assistant", ProtocolRevision::LATEST)
        .expect("client");
    let list: Value = serde_json::from_str(&list).expect("json");
    let get = list["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "orders.get"))
        .expect("listed");
    assert_eq!(get["description"], "Returns one order with its lines.");
    assert_eq!(get["annotations"]["readOnlyHint"], true);
    let input = &get["inputSchema"];
    assert_eq!(
        input["properties"]["order_id"],
        json!({"type": "integer", "minimum": 1, "description": "The order's number."})
    );
    assert_eq!(input["required"], json!(["order_id"]));
    assert_eq!(input["additionalProperties"], false);
    assert_eq!(
        input["properties"]["expand"]["enum"],
        json!(["lines", "customer"])
    );
    let output = &get["outputSchema"];
    assert_eq!(output["required"], json!(["order_id"]));
    assert_eq!(
        output["properties"]["lines"]["items"]["properties"]["code"]["type"],
        "string"
    );
    // No source path, header or field of the downstream anywhere in any
    // client's list, in any revision.
    for client in ["assistant", "lean"] {
        for revision in ProtocolRevision::ALL {
            let text = snapshot.discover(client, revision).expect("client");
            for source in [
                "orderId",
                "X-Tenant",
                "entries",
                "sku",
                "qty",
                "customer.email",
                "internal_",
            ] {
                assert!(
                    !text.contains(source),
                    "`{source}` in {client}'s list: {text}"
                );
            }
        }
    }
    // The lazy client sees the meta-tool, which returns the full schema.
    let lean = snapshot
        .discover("lean", ProtocolRevision::LATEST)
        .expect("client");
    assert!(lean.contains("discover_tool_schema"));
    let full = snapshot
        .discover_schema("lean", "orders.create", ProtocolRevision::LATEST)
        .expect("visible");
    assert!(
        full.contains("\"customer_email\"") && !full.contains("entries"),
        "{full}"
    );
}

/// The names the downstream uses and the client must never see.
const SOURCE_NAMES: [&str; 7] = [
    "orderId",
    "X-Tenant",
    "entries",
    "sku",
    "qty",
    "customer.email",
    "internal_",
];

#[test]
fn no_source_name_reaches_an_export_or_a_strict_dialect() {
    let text = format!(
        "{}\n[[client]]\nid = \"strict\"\ntenant = \"acme\"\ntoolsets = [\"orders\", \"orders-lazy\"]\nprofile = \"openai-strict\"\n\n[server]\nname = \"dev.example/orders\"\ndescription = \"Orders behind a gateway.\"\nversion = \"1.0.0\"\n",
        config(1, 2, "published")
    );
    let catalog = Catalog::from_toml_with(Registry::new(), &text, "gateway.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    let exported =
        toolschema::export::export(&snapshot, toolschema::export::Scope::Catalog).expect("exports");
    assert!(
        exported.contains("orders.get") && exported.contains("lines"),
        "{exported}"
    );
    let strict = snapshot
        .discover("strict", ProtocolRevision::LATEST)
        .expect("client");
    // The strict dialect lists every property as required, optional ones
    // taking null.
    assert!(
        strict.contains("\"required\":[\"order_id\",\"tenant\",\"expand\"]"),
        "{strict}"
    );
    let full = snapshot
        .discover_schema("strict", "orders.create", ProtocolRevision::LATEST)
        .expect("visible");
    for text in [exported.as_str(), &*strict, &*full] {
        for source in SOURCE_NAMES {
            assert!(!text.contains(source), "`{source}` in {text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_are_mapped_into_path_query_headers_and_body() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let result = snapshot
        .call(
            "assistant",
            "orders.get",
            json!({"order_id": 42, "tenant": "acme", "expand": "lines", "_schema_discovery": "full"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        result.structured(),
        Some(&json!({
            "order_id": 42,
            "customer_email": "ana@example.com",
            "lines": [{"code": "A-1", "quantity": 2}, {"code": "B-2", "quantity": 1}]
        }))
    );
    let created = snapshot
        .call(
            "assistant",
            "orders.create",
            json!({"customer_email": "bo@example.com", "lines": [{"code": "A-1", "quantity": 3}, {"code": "C-3"}]}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(created.structured(), Some(&json!({"order_id": 7})));
    let seen = fixture.log.lock().expect("log").clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].path, "/api/orders/42");
    assert_eq!(seen[0].query.as_deref(), Some("expand=lines"));
    assert_eq!(seen[0].tenant.as_deref(), Some("acme"));
    assert_eq!(
        seen[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert_eq!(seen[1].path, "/api/orders");
    assert_eq!(
        seen[1].body,
        Some(
            json!({"customer": {"email": "bo@example.com"}, "entries": [{"sku": "A-1", "qty": 3}, {"sku": "C-3"}]})
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_refused_before_the_downstream_is_called() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let refused = snapshot
        .call(
            "assistant",
            "orders.create",
            json!({"customer_email": "not an email", "lines": [{"code": "", "quantity": 0}], "sku": "x"}),
        )
        .await
        .expect_err("invalid");
    let CallError::InvalidArguments(errors) = &refused else {
        panic!("expected invalid arguments, got {refused:?}");
    };
    let mut paths: Vec<&str> = errors.iter().map(|v| v.path()).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "/customer_email",
            "/lines/0/code",
            "/lines/0/quantity",
            "/sku"
        ]
    );
    let text = refused.to_string();
    for source in ["entries", "qty", "customer.email"] {
        assert!(!text.contains(source), "{text}");
    }
    assert!(fixture.log.lock().expect("log").is_empty(), "nothing sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_downstream_fault_has_its_documented_outcome() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let call = |tool: &'static str| {
        let snapshot = snapshot.clone();
        async move { snapshot.call("assistant", tool, json!({})).await }
    };

    let slow = call("faults.slow").await.expect_err("times out");
    assert!(matches!(slow, CallError::Tool(_)), "{slow:?}");
    assert!(
        message(&slow).contains("did not answer within 500 ms")
            && message(&slow).contains("may be retried"),
        "{slow}"
    );

    let fail = call("faults.fail").await.expect_err("5xx");
    assert!(matches!(fail, CallError::Tool(_)));
    assert!(
        message(&fail).contains("HTTP 502") && message(&fail).contains("may be retried"),
        "{fail}"
    );

    let closed = call("faults.closed").await.expect_err("refused");
    assert!(matches!(closed, CallError::Tool(_)));
    assert!(
        message(&closed).contains("could not be reached")
            && message(&closed).contains("may be retried"),
        "{closed}"
    );

    let big = call("faults.big").await.expect_err("oversized");
    assert!(matches!(big, CallError::Tool(_)));
    assert!(
        message(&big).contains("larger than the 1024 bytes"),
        "{big}"
    );

    let wrong = call("faults.wrong")
        .await
        .expect_err("breaks the output schema");
    let CallError::InvalidOutput(errors) = &wrong else {
        panic!("expected an output error, got {wrong:?}");
    };
    assert_eq!(errors.iter().map(|v| v.path()).collect::<Vec<_>>(), ["/id"]);

    let html = call("faults.html").await.expect_err("not JSON");
    assert!(matches!(html, CallError::Defect { .. }), "{html:?}");
    assert!(message(&html).contains("not JSON"), "{html}");

    let missing = call("faults.missing").await.expect_err("4xx");
    assert!(matches!(missing, CallError::Tool(_)));
    let text = message(&missing);
    assert!(
        text.contains("HTTP 404") && text.contains("no order 99 for token [redacted]"),
        "{text}"
    );
    assert!(!text.contains(SECRET), "a credential echoed: {text}");

    let locked = call("faults.locked").await.expect_err("401");
    assert!(
        message(&locked).contains("refused the gateway's credentials"),
        "{locked}"
    );
    assert!(!message(&locked).contains(SECRET));
    let _ = (fixture.port, fixture.closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_never_interrupts_the_published_version_and_publishing_switches_atomically() {
    let fixture = fixture().await;
    let before = fixture.catalog.snapshot();
    let v1 = before
        .client("assistant")
        .expect("client")
        .version_of("orders.get");
    assert_eq!(v1, Some(1), "the draft version 2 is not served");
    let changes = fixture.catalog.subscribe();
    // Version 2 published: the highest published version is served.
    let published = config(fixture.port, fixture.closed, "published").replacen(
        "version = 2\nstatus = \"draft\"",
        "version = 2\nstatus = \"published\"",
        1,
    );
    let change = fixture
        .catalog
        .reload_toml(&published, "gateway.toml")
        .expect("valid");
    assert!(change.clients.contains("assistant"), "{change:?}");
    assert!(changes.try_recv().is_ok(), "subscribers are told");
    let after = fixture.catalog.snapshot();
    assert_eq!(
        after
            .client("assistant")
            .expect("client")
            .version_of("orders.get"),
        Some(2)
    );
    let list = after
        .discover("assistant", ProtocolRevision::LATEST)
        .expect("client");
    assert!(
        list.contains("order_number")
            && !list.contains("customer_email\":{\"type\":\"string\",\"format\":\"email\"}}")
    );
    // The old snapshot still serves version 1 to whoever holds it.
    let result = before
        .call("assistant", "orders.get", json!({"order_id": 5}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        result.structured().and_then(|v| v.get("order_id")),
        Some(&json!(5))
    );
    let result = after
        .call("assistant", "orders.get", json!({"order_number": 5}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.structured(), Some(&json!({"order_number": 5})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reloading_frees_the_descriptors_of_the_configuration_it_replaces() {
    let fixture = fixture().await;
    let weak = {
        let snapshot = fixture.catalog.snapshot();
        let view = snapshot.client("assistant").expect("client");
        match view.def_of("orders.get").expect("visible") {
            Ref::Shared(def) => Arc::downgrade(def),
            other => panic!("a configured descriptor is shared, not {other:?}"),
        }
    };
    let text = config(fixture.port, fixture.closed, "published");
    for _ in 0..1_000 {
        fixture
            .catalog
            .reload_toml(&text, "gateway.toml")
            .expect("valid");
    }
    assert!(
        weak.upgrade().is_none(),
        "the first configuration's descriptor is still alive"
    );
}

/// A secret source of the application's own, answering for the shop's
/// token with a value of its own.
#[cfg(feature = "gateway")]
struct Vault(&'static str);

#[cfg(feature = "gateway")]
impl toolschema::serve::SecretSource for Vault {
    fn secret(&self, name: &str) -> Option<String> {
        (name == "TOOLSCHEMA_TEST_SHOP_TOKEN").then(|| self.0.to_owned())
    }
}

#[cfg(feature = "gateway")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_secret_source_gives_the_default_transport_its_credentials() {
    let log = Log::default();
    let port = super::support::serve_on_loopback(downstream(log.clone())).await;
    // The last source named is the one in force, for every reader.
    let service = toolschema::serve::Server::new("shop", "1")
        .secrets(Arc::new(Vault("first-vault-token")))
        .secrets(Arc::new(Vault("vault-token")))
        .catalog_toml(config(port, closed_port(), "published"), "gateway.toml")
        .build()
        .unwrap_or_else(|error| panic!("{error}"));
    let client = toolschema::serve::TestClient::as_client(service, "assistant")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let called = client
        .call("orders.get", json!({"order_id": 7}))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!called.is_error(), "{}", called.text());
    let seen = log.lock().expect("log");
    let authorization = seen.last().and_then(|s| s.authorization.clone());
    assert_eq!(authorization.as_deref(), Some("Bearer vault-token"));
}
