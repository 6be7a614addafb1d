//! What imported descriptions need of the gateway, against a real HTTP
//! downstream: an API key in the query, a form body, a body sent whole,
//! and headers and query parameters every call sends. The key never shows
//! in what a client reads.

use crate::support::http;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::any;
use serde_json::json;
use toolschema::call::Registry;
use toolschema::catalog::Catalog;

/// What the downstream received: path and query, `Content-Type`, a
/// header every call sends, and the body as text.
type Seen = (String, String, String, String);

type Log = Arc<Mutex<Vec<Seen>>>;

const KEY: &str = "query-key-51c0e7";

async fn record(State(log): State<Log>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    log.lock().expect("log").push((
        parts.uri.to_string(),
        header("content-type"),
        header("x-target"),
        String::from_utf8_lossy(&bytes).into_owned(),
    ));
    let status = if parts.uri.path().ends_with("/refuse") {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(format!(
            "{{\"echo\": \"{}\"}}",
            parts.uri.query().unwrap_or_default()
        )))
        .expect("response")
}

fn config(port: u16) -> String {
    format!(
        r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"
toolsets = ["all"]

[[toolset]]
id = "all"
tenant = "t"
tools = ["form", "whole", "refuse"]

[[downstream]]
id = "api"
base_url = "http://127.0.0.1:{port}/v1"
auth = {{ kind = "query", param = "api_key", env = "TOOLSCHEMA_TEST_QUERY_KEY" }}

[[gateway_tool]]
name = "form"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Sends a form."
method = "POST"
path = "/form"
encoding = "form"

[[gateway_tool.version.argument]]
name = "name"
type = "string"
required = true

[[gateway_tool.version.argument]]
name = "tags[]"
source = "tag[]"
type = "string"

[[gateway_tool.version.argument]]
name = "count"
type = "integer"

[[gateway_tool]]
name = "whole"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Puts a value of several shapes."
method = "PUT"
path = "/whole"
headers = {{ "X-Target" = "Store.Put" }}
query = {{ Action = "Put" }}

[[gateway_tool.version.argument]]
name = "body"
source = "."
type = "any"
required = true
schema = '{{"oneOf": [{{"type": "array", "items": {{"type": "integer"}}}}, {{"type": "object", "required": ["id"]}}]}}'

[[gateway_tool]]
name = "refuse"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Is refused."
method = "GET"
path = "/refuse"
"#
    )
}

async fn fixture() -> (Catalog, Log) {
    // SAFETY: no other thread reads the environment while it is set (the
    // variable is set before any downstream call, always to one value).
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("TOOLSCHEMA_TEST_QUERY_KEY", KEY)
    };
    let log = Log::default();
    let router = Router::new()
        .route("/v1/{*rest}", any(record))
        .with_state(log.clone());
    let port = super::support::serve_on_loopback(router).await;
    let catalog = Catalog::from_toml_with(Registry::new(), &config(port), "shapes.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    (catalog, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_sent_with_the_key_in_the_query() {
    let (catalog, log) = fixture().await;
    let snapshot = catalog.snapshot();
    snapshot
        .call(
            "c",
            "form",
            json!({"name": "Ada L", "tags": ["a&b", "c"], "count": 2}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let seen = log.lock().expect("log").clone();
    assert_eq!(seen[0].0, format!("/v1/form?api_key={KEY}"));
    assert_eq!(seen[0].1, "application/x-www-form-urlencoded");
    // Fields in the body's order (by name), a list's values repeated.
    assert_eq!(seen[0].3, "count=2&name=Ada+L&tag=a%26b&tag=c");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_is_sent_whole_with_the_version_s_headers_and_query() {
    let (catalog, log) = fixture().await;
    let snapshot = catalog.snapshot();
    for body in [json!([1, 2]), json!({"id": "x", "more": true})] {
        snapshot
            .call("c", "whole", json!({"body": body}))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // Neither shape of the schema: refused before any call.
    let refused = snapshot
        .call("c", "whole", json!({"body": "text"}))
        .await
        .expect_err("refused");
    assert!(refused.to_string().contains("body"), "{refused}");
    let seen = log.lock().expect("log").clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].0, format!("/v1/whole?Action=Put&api_key={KEY}"));
    assert_eq!(seen[0].1, "application/json");
    assert_eq!(seen[0].2, "Store.Put");
    assert_eq!(seen[0].3, "[1,2]");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&seen[1].3).expect("json"),
        json!({"id": "x", "more": true})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_never_reaches_a_client() {
    let (catalog, _) = fixture().await;
    let snapshot = catalog.snapshot();
    // The downstream echoes the query, key included, in a refusal and in
    // an answer: the client reads neither.
    let refused = snapshot
        .call("c", "refuse", json!({}))
        .await
        .expect_err("HTTP 400");
    assert!(!refused.to_string().contains(KEY), "{refused}");
    let answered = snapshot
        .call("c", "form", json!({"name": "x"}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let text = format!("{answered:?}");
    assert!(!text.contains(KEY), "{text}");
}
