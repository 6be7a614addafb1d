//! Arguments never change the endpoint (DESIGN §9): a path argument is one
//! segment whatever it holds, `.`, `..` and an empty value are refused by
//! the argument's exposed name, and a query argument is one parameter. The
//! property runs over the request a gateway tool builds and the URL it is
//! sent to; the end-to-end test sends what the adversarial run sent to a
//! real downstream and reads what arrived.

use crate::support::http;
use std::sync::{Arc, Mutex};
use toolschema_gateway::encode;

use axum::Router;
use axum::extract::{Request, State};
use proptest::prelude::*;
use serde_json::{Value, json};
use toolschema::call::{CallError, Registry};
use toolschema::catalog::{Catalog, Config};

/// Two tools of one downstream: a path argument alone in its segment,
/// followed by a literal one, and a path argument sharing its segment with
/// the template's text, beside a query argument.
fn config(base_url: &str) -> String {
    format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["shop"]

[[toolset]]
id = "shop"
tenant = "acme"
tools = ["orders.cancel", "items.details"]

[[downstream]]
id = "shop"
base_url = "{base_url}"

[[gateway_tool]]
name = "orders.cancel"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Cancels one order."
method = "DELETE"
path = "/orders/{{orderId}}"

[[gateway_tool.version.argument]]
name = "order_id"
source = "orderId"
in = "path"
type = "string"
required = true

[[gateway_tool]]
name = "items.details"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Describes one item."
method = "GET"
path = "/items/{{id}}.json/details"

[[gateway_tool.version.argument]]
name = "item"
source = "id"
in = "path"
type = "string"
required = true

[[gateway_tool.version.argument]]
name = "lang"
in = "query"
type = "string"
"#
    )
}

const BASE: &str = "http://127.0.0.1:4010/api/";

fn offline() -> &'static Config {
    static CONFIG: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
    CONFIG.get_or_init(|| {
        Config::from_toml(&config(BASE), "endpoint.toml", &Registry::new())
            .unwrap_or_else(|errors| panic!("{errors}"))
    })
}

/// The URL tool number `tool` sends `arguments` to, or why it refuses.
fn url_for(tool: usize, arguments: &Value) -> Result<url::Url, String> {
    let config = offline();
    let tool = &config.configured_tools()[tool];
    let operation = tool.versions()[0].operation();
    let downstream = config.downstream(tool.downstream()).expect("downstream");
    let request = encode::request(operation, arguments).map_err(|e| e.to_string())?;
    Ok(url::Url::parse(&encode::url(downstream, &request)).expect("a URL"))
}

fn decoded(segment: &str) -> String {
    percent_decode(segment)
}

/// Percent-decoding, by hand: the test does not trust the encoder's crate
/// to read back what it wrote.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ascii");
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits after %"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// Values an attacker would try first, and characters some server reads
/// as structure.
fn hostile_value() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just(";".to_owned()),
        Just("%".to_owned()),
        Just("%2e".to_owned()),
        Just("%2F".to_owned()),
        Just("?".to_owned()),
        Just("#".to_owned()),
        Just("&".to_owned()),
        Just("=".to_owned()),
        Just(":".to_owned()),
        Just("@".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        Just("\u{0}".to_owned()),
        Just("é".to_owned()),
        Just("\u{ff0e}".to_owned()),
        Just("\u{2215}".to_owned()),
        "[a-z0-9]{1,3}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// The method, scheme, host, port and every segment but the
    /// argument's own stay as configured; the argument's segment reads
    /// back as the value exactly; only `""`, `.` and `..` are refused.
    #[test]
    fn a_path_argument_is_one_segment_and_changes_nothing_else(value in hostile_value()) {
        let outcome = url_for(0, &json!({"order_id": value}));
        let refused = matches!(value.as_str(), "" | "." | "..");
        match outcome {
            Err(message) => {
                prop_assert!(refused, "{value:?} refused: {message}");
                prop_assert!(message.contains("`order_id`"), "{message}");
            }
            Ok(url) => {
                prop_assert!(!refused, "{value:?} sent to {url}");
                prop_assert_eq!(url.scheme(), "http");
                prop_assert_eq!(url.host_str(), Some("127.0.0.1"));
                prop_assert_eq!(url.port(), Some(4010));
                prop_assert_eq!(url.query(), None);
                prop_assert_eq!(url.fragment(), None);
                let segments: Vec<&str> = url.path_segments().expect("segments").collect();
                prop_assert_eq!(segments.len(), 3, "{}", url);
                prop_assert_eq!(segments[0], "api");
                prop_assert_eq!(segments[1], "orders");
                prop_assert_eq!(decoded(segments[2]), value.clone());
                // Nothing in the segment a server splits or trims on.
                prop_assert!(
                    segments[2].bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)),
                    "{}", segments[2]
                );
            }
        }
    }

    /// With the template's own text in the segment, and a query argument
    /// beside it: the segment still reads back as the text around the
    /// value, and the query is one parameter, whatever the values hold.
    #[test]
    fn a_shared_segment_and_a_query_argument_stay_in_place(
        value in hostile_value(),
        lang in hostile_value(),
    ) {
        let url = url_for(1, &json!({"item": value, "lang": lang}));
        // `{id}.json` is never empty, `.` or `..`.
        let url = url.map_err(TestCaseError::fail)?;
        let segments: Vec<&str> = url.path_segments().expect("segments").collect();
        prop_assert_eq!(segments.len(), 4, "{}", url);
        prop_assert_eq!(segments[0], "api");
        prop_assert_eq!(segments[1], "items");
        prop_assert_eq!(decoded(segments[2]), format!("{value}.json"));
        prop_assert_eq!(segments[3], "details");
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        prop_assert_eq!(pairs, vec![("lang".to_owned(), lang)]);
        prop_assert_eq!(url.fragment(), None);
    }
}

#[test]
fn dots_and_empty_values_are_refused_by_exposed_name() {
    for value in ["..", "."] {
        let message = url_for(0, &json!({"order_id": value})).expect_err("refused");
        assert_eq!(
            message,
            format!(
                "`order_id` cannot be `{value}` in the request path, which a server reads as another path; send the identifier itself"
            )
        );
    }
    let message = url_for(0, &json!({"order_id": ""})).expect_err("refused");
    assert_eq!(
        message,
        "`order_id` is empty, and the request path needs a value there; send the identifier"
    );
    // `..;` is a traversal to Tomcat and Spring: sent as one encoded segment.
    let url = url_for(0, &json!({"order_id": "..;"})).expect("sent");
    assert_eq!(url.as_str(), "http://127.0.0.1:4010/api/orders/..%3B");
    let url = url_for(0, &json!({"order_id": "%2e%2e"})).expect("sent");
    assert_eq!(url.as_str(), "http://127.0.0.1:4010/api/orders/%252e%252e");
    let url = url_for(0, &json!({"order_id": "..\\..\\admin"})).expect("sent");
    assert_eq!(
        url.as_str(),
        "http://127.0.0.1:4010/api/orders/..%5C..%5Cadmin"
    );
}

#[test]
fn a_template_that_url_rules_would_change_is_refused() {
    for (path, says) in [
        ("/orders/../admin", "the segment `..`"),
        ("/orders/./{orderId}", "the segment `.`"),
        ("/orders/%2E%2e/{orderId}", "the segment `%2E%2e`"),
        ("/orders\\\\{orderId}", "a backslash"),
        ("/orders/{orderId}?force=true", "`?`"),
        ("/orders/{orderId}#top", "`#`"),
    ] {
        let text = config(BASE).replacen("/orders/{orderId}", path, 1);
        let errors = Config::from_toml(&text, "endpoint.toml", &Registry::new())
            .expect_err("refused")
            .to_string();
        assert!(
            errors.contains("gateway_tool[0].version[0].path"),
            "{errors}"
        );
        assert!(errors.contains(says), "{path}: {errors}");
    }
}

/// What a downstream received: method and raw path and query.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

async fn record(State(seen): State<Seen>, request: Request) -> &'static str {
    seen.lock().expect("log").push((
        request.method().to_string(),
        request.uri().path_and_query().expect("a path").to_string(),
    ));
    "{}"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_downstream_receives_one_segment_or_nothing() {
    let seen = Seen::default();
    let router = Router::new().fallback(record).with_state(seen.clone());
    let port = super::support::serve_on_loopback(router).await;
    let base = format!("http://127.0.0.1:{port}/api/");
    let catalog = Catalog::from_toml_with(Registry::new(), &config(&base), "endpoint.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    let call = |tool: &'static str, arguments: Value| {
        let snapshot = snapshot.clone();
        async move { snapshot.call("assistant", tool, arguments).await }
    };
    for value in ["..", ".", ""] {
        let error = call("orders.cancel", json!({"order_id": value}))
            .await
            .expect_err("refused");
        assert!(matches!(error, CallError::Tool(_)), "{error:?}");
        assert!(error.to_string().contains("`order_id`"), "{error}");
    }
    assert!(seen.lock().expect("log").is_empty(), "nothing is sent");
    for value in ["..;", "a/../b", "%2e%2e", "x?y#z"] {
        call("orders.cancel", json!({"order_id": value}))
            .await
            .expect("sent");
    }
    call("items.details", json!({"item": "..", "lang": "en&admin=1"}))
        .await
        .expect("sent");
    let seen = seen.lock().expect("log").clone();
    let paths: Vec<(&str, &str)> = seen.iter().map(|(m, p)| (m.as_str(), p.as_str())).collect();
    assert_eq!(
        paths,
        [
            ("DELETE", "/api/orders/..%3B"),
            ("DELETE", "/api/orders/a%2F..%2Fb"),
            ("DELETE", "/api/orders/%252e%252e"),
            ("DELETE", "/api/orders/x%3Fy%23z"),
            ("GET", "/api/items/...json/details?lang=en%26admin%3D1"),
        ]
    );
}
