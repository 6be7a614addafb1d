//! The gateway's overhead per call: a configured tool called through the
//! catalog (arguments checked and mapped, the downstream called with the
//! gateway's client, the answer mapped back and checked against the output
//! schema) against calling the same downstream directly, as a service would
//! without the gateway: for REST, reqwest and serde_json; for SOAP, a
//! hand-formatted envelope posted with reqwest and the answer read with
//! quick-xml's streaming reader. Both over loopback to the same in-process
//! axum downstream, in interleaved rounds so that the machine's noise falls
//! on both alike.
//!
//! `cargo bench -p toolschema-bench-http --bench gateway` (`GATEWAY_CALLS`
//! calls per variant, default 20,000). Prints p50 and p99 of each, and the
//! difference, for the REST tool and then the SOAP one.

#![allow(missing_docs)]

use std::future::Future;

use axum::Router;
use axum::http::header;
use axum::routing::{get, post};
use quick_xml::events::Event;
use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Catalog;
use toolschema_bench_http::timing::compare;

/// The downstream's answer, and the catalog of the tool, shared with the
/// instruction counts (`benches/callgrind.rs`).
const ANSWER: &str = include_str!("../../fixtures/gateway-answer.json");
const CONFIG: &str = include_str!("../../fixtures/gateway.toml");
/// The SOAP tool (imported from the example's WSDL) and its answer.
const SOAP_ANSWER: &str = include_str!("../../fixtures/soap-answer.xml");
const SOAP_CONFIG: &str = include_str!("../../fixtures/soap.toml");

fn config(text: &str, port: u16) -> String {
    text.replace("127.0.0.1:4030", &format!("127.0.0.1:{port}"))
}

/// A call of `tool` through the catalog, its result structured.
fn through(
    catalog: &Catalog,
    tool: &'static str,
    arguments: Value,
) -> impl Fn() -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
    let snapshot = catalog.snapshot();
    move || {
        let snapshot = snapshot.clone();
        let arguments = arguments.clone();
        Box::pin(async move {
            let result = snapshot
                .call("c", tool, arguments)
                .await
                .expect("the call succeeds");
            assert!(result.structured().is_some());
        })
    }
}

/// The quote's premium, read from a SOAP answer as a hand-written client
/// would: a streaming pass that keeps the one element it wants.
fn premium(xml: &[u8]) -> Option<f64> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buffer = Vec::new();
    let mut inside = false;
    loop {
        match reader.read_event_into(&mut buffer).ok()? {
            Event::Start(start) => inside = start.local_name().as_ref() == "monthlyPremium",
            Event::Text(text) if inside => return text.xml10_content().parse().ok(),
            Event::Eof => return None,
            _ => {}
        }
        buffer.clear();
    }
}

fn main() {
    let calls: usize = std::env::var("GATEWAY_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let app = Router::new()
            .route(
                "/api/orders/{id}",
                get(|| async { ([(header::CONTENT_TYPE, "application/json")], ANSWER) }),
            )
            .route(
                "/insurance",
                post(|| async { ([(header::CONTENT_TYPE, "text/xml; charset=utf-8")], SOAP_ANSWER) }),
            );
        tokio::spawn(axum::serve(listener, app).into_future());
        let direct = reqwest::Client::new();

        let rest = Catalog::from_toml_with(Registry::new(), &config(CONFIG, port), "bench.toml", http())
            .unwrap_or_else(|errors| panic!("{errors}"));
        let url = format!("http://127.0.0.1:{port}/api/orders/42?expand=lines");
        compare(
            "REST (reqwest + serde_json directly)",
            calls,
            10,
            (
                "through the gateway",
                through(&rest, "orders.get", json!({"order_id": 42, "expand": "lines"})),
            ),
            ("direct", || {
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
            }),
        )
        .await;

        let soap = Catalog::from_toml_with(Registry::new(), &config(SOAP_CONFIG, port), "soap.toml", http())
            .unwrap_or_else(|errors| panic!("{errors}"));
        let url = format!("http://127.0.0.1:{port}/insurance");
        compare(
            "SOAP (envelope formatted, reqwest + quick-xml directly)",
            calls,
            10,
            (
                "through the gateway",
                through(
                    &soap,
                    "insurance.get-quote",
                    json!({"species": "dog", "age_years": 3, "coverage": {"amount": 5000, "currency": "EUR"}, "extra": ["dental", "travel"]}),
                ),
            ),
            ("direct", || {
                let direct = direct.clone();
                let url = url.clone();
                async move {
                    let (species, age, amount, currency) = ("dog", 3, 5000, "EUR");
                    let envelope = format!(
                        r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:GetQuote xmlns:m="urn:pets-inc:insurance"><m:species>{species}</m:species><m:ageYears>{age}</m:ageYears><m:coverage currency="{currency}"><m:amount>{amount}</m:amount></m:coverage><m:extra>dental</m:extra><m:extra>travel</m:extra></m:GetQuote></soap:Body></soap:Envelope>"#
                    );
                    let bytes = direct
                        .post(&url)
                        .header(header::CONTENT_TYPE, "text/xml; charset=utf-8")
                        .header("SOAPAction", "\"urn:pets-inc:insurance/GetQuote\"")
                        .body(envelope)
                        .send()
                        .await
                        .expect("answer")
                        .bytes()
                        .await
                        .expect("body");
                    assert!(premium(&bytes).is_some());
                }
            }),
        )
        .await;
    });
}

/// The HTTP transport of configured tools, as a server hands its catalog.
fn http() -> std::sync::Arc<toolschema::gateway::HttpTransport> {
    std::sync::Arc::new(toolschema::gateway::HttpTransport::from_environment())
}
