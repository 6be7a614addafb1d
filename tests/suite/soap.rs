//! Gateway tools in front of SOAP downstreams (DESIGN §9): the request
//! element written from exposed arguments through source paths (elements
//! in order, attributes, repeated elements), the answer read back into the
//! result, and every fault, refusal and hostile answer turned into its
//! documented outcome. The downstream is an in-process HTTP server that
//! records the envelopes it receives.

use crate::support::http;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};
use toolschema::call::{CallError, Registry};
use toolschema::catalog::Catalog;
use toolschema::project::ProtocolRevision;

mod mistakes;

const SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";

/// A request the downstream received.
#[derive(Debug, Clone, Default)]
struct Seen {
    path: String,
    content_type: String,
    action: Option<String>,
    body: String,
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn xml(status: StatusCode, content_type: &str, body: String) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .expect("response")
}

fn envelope(namespace: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?><env:Envelope xmlns:env="{namespace}"><env:Body>{body}</env:Body></env:Envelope>"#
    )
}

const QUOTE: &str = r#"<tns:GetQuoteResponse xmlns:tns="urn:pets-inc:insurance"><tns:quote currency="EUR"><tns:monthlyPremium>12.50</tns:monthlyPremium><tns:validUntil>2026-12-31</tns:validUntil><tns:exclusion>dental</tns:exclusion><tns:exclusion>hereditary</tns:exclusion><tns:policy number="PI-000123"><tns:active>true</tns:active></tns:policy><tns:internalScore>7</tns:internalScore></tns:quote></tns:GetQuoteResponse>"#;

/// The insurance service, in SOAP 1.1 at `/insurance` and 1.2 at
/// `/insurance12`: quotes, and a fault for any policy but PI-000123.
async fn insurance(State(log): State<Log>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 1 << 20).await.unwrap_or_default();
    let body = String::from_utf8_lossy(&bytes).into_owned();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let v12 = parts.uri.path().trim_end_matches('/').ends_with("12");
    log.lock().expect("log").push(Seen {
        path: parts.uri.path().to_owned(),
        content_type: header("content-type").unwrap_or_default(),
        action: header("soapaction"),
        body: body.clone(),
    });
    let (namespace, content_type) = if v12 {
        (SOAP12, "application/soap+xml; charset=utf-8")
    } else {
        (SOAP11, "text/xml; charset=utf-8")
    };
    if body.contains("GetQuote") {
        return xml(StatusCode::OK, content_type, envelope(namespace, QUOTE));
    }
    if body.contains(">PI-000123<") {
        return xml(
            StatusCode::OK,
            content_type,
            envelope(
                namespace,
                r#"<CancelPolicyResponse xmlns="urn:pets-inc:insurance"><cancelled>true</cancelled></CancelPolicyResponse>"#,
            ),
        );
    }
    let fault = if v12 {
        r#"<env:Fault><env:Code><env:Value>env:Sender</env:Value></env:Code><env:Reason><env:Text xml:lang="en">No policy with this number exists.</env:Text></env:Reason></env:Fault>"#
    } else {
        r#"<env:Fault><faultcode>env:Client</faultcode><faultstring>No policy with this number exists.</faultstring><detail><code>E-404</code></detail></env:Fault>"#
    };
    xml(
        StatusCode::INTERNAL_SERVER_ERROR,
        content_type,
        envelope(namespace, fault),
    )
}

/// The routes that misbehave, one per outcome.
fn downstream(log: Log) -> Router {
    let text_xml = "text/xml; charset=utf-8";
    Router::new()
        .route("/insurance", post(insurance))
        .route("/insurance12/", post(insurance))
        .route(
            "/slow",
            post(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                xml(StatusCode::OK, "text/xml", envelope(SOAP11, QUOTE))
            }),
        )
        .route(
            "/crash",
            post(move || async move {
                xml(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    text_xml,
                    envelope(
                        SOAP11,
                        "<env:Fault><faultcode>env:Server</faultcode><faultstring>Rating engine unavailable</faultstring></env:Fault>",
                    ),
                )
            }),
        )
        .route(
            "/broken",
            post(move || async move {
                let whole = envelope(SOAP11, QUOTE);
                xml(StatusCode::OK, text_xml, whole[..whole.len() / 2].to_owned())
            }),
        )
        .route(
            "/xxe",
            post(move || async move {
                xml(
                    StatusCode::OK,
                    text_xml,
                    format!(
                        r#"<?xml version="1.0"?><!DOCTYPE env:Envelope [<!ENTITY secret SYSTEM "file:///etc/passwd">]><env:Envelope xmlns:env="{SOAP11}"><env:Body><r><quote><monthlyPremium>&secret;</monthlyPremium></quote></r></env:Body></env:Envelope>"#
                    ),
                )
            }),
        )
        .route(
            "/entity",
            post(move || async move {
                xml(
                    StatusCode::OK,
                    text_xml,
                    envelope(SOAP11, "<r><quote><monthlyPremium>&lol;</monthlyPremium></quote></r>"),
                )
            }),
        )
        .route(
            "/longentity",
            post(move || async move {
                let name = "x".repeat(99_000);
                xml(
                    StatusCode::OK,
                    text_xml,
                    envelope(SOAP11, &format!("<r><quote><monthlyPremium>&{name};</monthlyPremium></quote></r>")),
                )
            }),
        )
        .route(
            "/html",
            post(|| async {
                xml(
                    StatusCode::BAD_GATEWAY,
                    "text/html",
                    "<html><body>Bad gateway</body></html>".to_owned(),
                )
            }),
        )
        .route(
            "/version",
            post(move || async move { xml(StatusCode::OK, text_xml, envelope(SOAP12, QUOTE)) }),
        )
        .with_state(log)
}

/// The quote tool's fields, with the SOAP keys of its version.
fn quote_tool(name: &str, downstream: &str, soap: &str) -> String {
    format!(
        r#"
[[gateway_tool]]
name = "{name}"
downstream = "{downstream}"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Quotes the monthly premium of pet insurance."
{soap}

[[gateway_tool.version.argument]]
name = "species"
type = "string"
required = true
enum = ["dog", "cat", "rabbit"]

[[gateway_tool.version.argument]]
name = "age_years"
source = "ageYears"
type = "integer"
required = true
minimum = 0
maximum = 40

[[gateway_tool.version.argument]]
name = "coverage"
type = "object"
required = true

[[gateway_tool.version.argument]]
name = "coverage.amount"
type = "integer"
required = true

[[gateway_tool.version.argument]]
name = "coverage.currency"
source = "coverage.@currency"
type = "string"
pattern = "^[A-Z]{{3}}$"

[[gateway_tool.version.argument]]
name = "extras[]"
source = "extra[]"
type = "string"

[[gateway_tool.version.argument]]
name = "note"
type = "string"

[[gateway_tool.version.result]]
name = "currency"
source = "quote.@currency"
type = "string"
required = true

[[gateway_tool.version.result]]
name = "monthly_premium"
source = "quote.monthlyPremium"
type = "number"
required = true

[[gateway_tool.version.result]]
name = "valid_until"
source = "quote.validUntil"
type = "string"
format = "date"

[[gateway_tool.version.result]]
name = "exclusions[]"
source = "quote.exclusion[]"
type = "string"

[[gateway_tool.version.result]]
name = "policies"
type = "array"

[[gateway_tool.version.result]]
name = "policies[].number"
source = "quote.policy[].@number"
type = "string"

[[gateway_tool.version.result]]
name = "policies[].active"
source = "quote.policy[].active"
type = "boolean"
"#
    )
}

fn cancel_tool(name: &str, downstream: &str) -> String {
    format!(
        r#"
[[gateway_tool]]
name = "{name}"
downstream = "{downstream}"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Cancels a policy."
operation = "CancelPolicy"
namespace = "urn:pets-inc:insurance"
soap_action = "urn:pets-inc:insurance/CancelPolicy"
destructive = true

[[gateway_tool.version.argument]]
name = "policy_number"
source = "policyNumber"
type = "string"
required = true

[[gateway_tool.version.result]]
name = "cancelled"
type = "boolean"
required = true
"#
    )
}

const QUOTE_11: &str = r#"operation = "GetQuote"
namespace = "urn:pets-inc:insurance"
soap_action = "urn:pets-inc:insurance/GetQuote""#;

const FAULTS: [&str; 8] = [
    "slow",
    "crash",
    "broken",
    "xxe",
    "entity",
    "longentity",
    "html",
    "version",
];

fn config(port: u16) -> String {
    let mut tools = vec![
        "insurance.quote".to_owned(),
        "insurance.cancel".to_owned(),
        "insurance12.quote".to_owned(),
        "insurance12.cancel".to_owned(),
    ];
    tools.extend(FAULTS.iter().map(|f| format!("faults.{f}")));
    let mut text = format!(
        r#"
[[tenant]]
id = "pets"

[[client]]
id = "assistant"
tenant = "pets"
toolsets = ["insurance"]

[[client]]
id = "lean"
tenant = "pets"
toolsets = ["insurance-lazy"]
profile = "openai-strict"

[[toolset]]
id = "insurance"
tenant = "pets"
tools = {tools:?}

[[toolset]]
id = "insurance-lazy"
tenant = "pets"
mode = "lazy"
tools = ["insurance.quote", "insurance12.quote"]

[[downstream]]
id = "insurance"
base_url = "http://127.0.0.1:{port}/insurance"
protocol = "soap"

[[downstream]]
id = "insurance12"
base_url = "http://127.0.0.1:{port}/insurance12/"
protocol = "soap"
soap_version = "1.2"
"#
    );
    text.push_str(&quote_tool("insurance.quote", "insurance", QUOTE_11));
    text.push_str(&cancel_tool("insurance.cancel", "insurance"));
    text.push_str(&quote_tool(
        "insurance12.quote",
        "insurance12",
        "operation = \"GetQuote\"\nnamespace = \"urn:pets-inc:insurance\"\nqualified = false",
    ));
    text.push_str(&cancel_tool("insurance12.cancel", "insurance12"));
    for fault in FAULTS {
        text.push_str(&format!(
            r#"
[[downstream]]
id = "soap-{fault}"
base_url = "http://127.0.0.1:{port}/{fault}"
protocol = "soap"
timeout_ms = 500
"#
        ));
        text.push_str(&quote_tool(
            &format!("faults.{fault}"),
            &format!("soap-{fault}"),
            QUOTE_11,
        ));
    }
    text
}

struct Fixture {
    catalog: Catalog,
    log: Log,
}

async fn fixture() -> Fixture {
    let log = Log::default();
    let port = super::support::serve_on_loopback(downstream(log.clone())).await;
    let catalog = Catalog::from_toml_with(Registry::new(), &config(port), "soap.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    Fixture { catalog, log }
}

fn quote_arguments() -> Value {
    json!({
        "species": "dog",
        "age_years": 3,
        "coverage": {"amount": 5000, "currency": "EUR"},
        "extras": ["dental", "travel"],
        "note": "a<b & \"c\""
    })
}

fn quote_result() -> Value {
    json!({
        "currency": "EUR",
        "monthly_premium": 12.5,
        "valid_until": "2026-12-31",
        "exclusions": ["dental", "hereditary"],
        "policies": [{"number": "PI-000123", "active": true}]
    })
}

/// What the downstream names and a client must never see: elements,
/// attributes, namespaces, the envelope.
const SOURCE_NAMES: [&str; 12] = [
    "GetQuote",
    "CancelPolicy",
    "ageYears",
    "policyNumber",
    "monthlyPremium",
    "validUntil",
    "\"exclusion\"",
    "internalScore",
    "@currency",
    "@number",
    "urn:",
    "Envelope",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soap_call_writes_the_request_element_in_order_and_reads_the_answer_back() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let result = snapshot
        .call("assistant", "insurance.quote", quote_arguments())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.structured(), Some(&quote_result()));
    let result = snapshot
        .call("assistant", "insurance12.quote", quote_arguments())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.structured(), Some(&quote_result()));

    let seen = fixture.log.lock().expect("log").clone();
    assert_eq!(seen.len(), 2);
    // SOAP 1.1: text/xml, the action quoted in SOAPAction, children in
    // the operation's namespace (qualified), in the configured order.
    assert_eq!(seen[0].path, "/insurance");
    assert_eq!(seen[0].content_type, "text/xml; charset=utf-8");
    assert_eq!(
        seen[0].action.as_deref(),
        Some("\"urn:pets-inc:insurance/GetQuote\"")
    );
    assert_eq!(
        seen[0].body,
        format!(
            r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="{SOAP11}"><soap:Body><m:GetQuote xmlns:m="urn:pets-inc:insurance"><m:species>dog</m:species><m:ageYears>3</m:ageYears><m:coverage currency="EUR"><m:amount>5000</m:amount></m:coverage><m:extra>dental</m:extra><m:extra>travel</m:extra><m:note>a&lt;b &amp; &quot;c&quot;</m:note></m:GetQuote></soap:Body></soap:Envelope>"#
        )
    );
    // SOAP 1.2: the endpoint as configured (trailing slash kept), the
    // action-less content type, unqualified children.
    assert_eq!(seen[1].path, "/insurance12/");
    assert_eq!(seen[1].content_type, "application/soap+xml; charset=utf-8");
    assert_eq!(seen[1].action, None);
    assert!(
        seen[1].body.starts_with(&format!(
            r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="{SOAP12}"><soap:Body><m:GetQuote xmlns:m="urn:pets-inc:insurance"><species>dog</species><ageYears>3</ageYears>"#
        )),
        "{}",
        seen[1].body
    );

    let cancelled = snapshot
        .call(
            "assistant",
            "insurance12.cancel",
            json!({"policy_number": "PI-000123"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cancelled.structured(), Some(&json!({"cancelled": true})));
    let seen = fixture.log.lock().expect("log").clone();
    assert_eq!(
        seen[2].content_type,
        "application/soap+xml; charset=utf-8; action=\"urn:pets-inc:insurance/CancelPolicy\""
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soap_tool_is_listed_validated_and_answered_with_exposed_names_only() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let list: Value = serde_json::from_str(
        &snapshot
            .discover("assistant", ProtocolRevision::LATEST)
            .expect("client"),
    )
    .expect("json");
    let quote = list["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "insurance.quote"))
        .expect("listed");
    assert_eq!(
        quote["inputSchema"]["required"],
        json!(["species", "age_years", "coverage"])
    );
    assert_eq!(
        quote["inputSchema"]["properties"]["coverage"]["properties"]["currency"]["pattern"],
        "^[A-Z]{3}$"
    );
    assert_eq!(
        quote["outputSchema"]["properties"]["policies"]["items"]["properties"]["active"]["type"],
        "boolean"
    );
    let mut shown = Vec::new();
    for client in ["assistant", "lean"] {
        for revision in ProtocolRevision::ALL {
            shown.push(
                snapshot
                    .discover(client, revision)
                    .expect("client")
                    .to_string(),
            );
        }
    }
    shown.push(
        snapshot
            .discover_schema("lean", "insurance.quote", ProtocolRevision::LATEST)
            .expect("visible")
            .to_string(),
    );
    // A bad call is refused before the downstream, by exposed path.
    let refused = snapshot
        .call(
            "assistant",
            "insurance.quote",
            json!({"species": "dog", "age_years": 41, "coverage": {"amount": 1, "currency": "euro"}}),
        )
        .await
        .expect_err("out of bounds");
    let CallError::InvalidArguments(errors) = &refused else {
        panic!("{refused:?}");
    };
    let paths: Vec<String> = errors.iter().map(|e| e.path().to_string()).collect();
    assert_eq!(paths, ["/age_years", "/coverage/currency"], "{refused}");
    shown.push(refused.to_string());
    // A character XML cannot carry is refused by exposed name, unsent.
    let control = snapshot
        .call(
            "assistant",
            "insurance.quote",
            json!({"species": "cat", "age_years": 2, "coverage": {"amount": 1}, "note": "bell\u{7}"}),
        )
        .await
        .expect_err("unwritable");
    assert!(
        matches!(control, CallError::Tool(_)) && control.to_string().contains("`note`"),
        "{control}"
    );
    shown.push(control.to_string());
    assert!(fixture.log.lock().expect("log").is_empty());
    let fault = snapshot
        .call(
            "assistant",
            "insurance.cancel",
            json!({"policy_number": "PI-999999"}),
        )
        .await
        .expect_err("fault");
    shown.push(fault.to_string());
    for text in &shown {
        for name in SOURCE_NAMES {
            assert!(!text.contains(name), "`{name}` shown to a client: {text}");
        }
    }
}

#[test]
fn no_element_or_namespace_reaches_an_export() {
    let text = format!(
        "{}\n[server]\nname = \"dev.example/insurance\"\ndescription = \"Pet insurance behind a gateway.\"\nversion = \"1.0.0\"\n",
        config(1)
    );
    let catalog = Catalog::from_toml_with(Registry::new(), &text, "soap.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let exported =
        toolschema::export::export(&catalog.snapshot(), toolschema::export::Scope::Catalog)
            .expect("exports");
    assert!(
        exported.contains("insurance.quote") && exported.contains("monthly_premium"),
        "{exported}"
    );
    for name in SOURCE_NAMES {
        assert!(
            !exported.contains(name),
            "`{name}` in the export: {exported}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_soap_fault_and_hostile_answer_has_its_documented_outcome() {
    let fixture = fixture().await;
    let snapshot = fixture.catalog.snapshot();
    let call = |tool: String, arguments: Value| {
        let snapshot = snapshot.clone();
        async move { snapshot.call("assistant", &tool, arguments).await }
    };
    let fault = |name: &str| call(format!("faults.{name}"), quote_arguments());

    // A client fault (1.1 and 1.2): refused, with the fault's text and
    // nothing of its code or detail.
    for tool in ["insurance.cancel", "insurance12.cancel"] {
        let refused = call(tool.to_owned(), json!({"policy_number": "PI-999999"}))
            .await
            .expect_err("fault");
        assert!(matches!(refused, CallError::Tool(_)), "{refused:?}");
        assert_eq!(
            refused.to_string(),
            "The downstream service refused the request: No policy with this number exists. Check the arguments against the tool's description."
        );
    }
    // A server fault: may be retried.
    let crash = fault("crash").await.expect_err("fault");
    assert!(matches!(crash, CallError::Tool(_)));
    assert_eq!(
        crash.to_string(),
        "The downstream service failed: Rating engine unavailable. The call may be retried."
    );
    let slow = fault("slow").await.expect_err("times out");
    assert!(
        matches!(slow, CallError::Tool(_))
            && slow.to_string().contains("did not answer within 500 ms"),
        "{slow}"
    );
    let html = fault("html").await.expect_err("502 without a fault");
    assert!(
        matches!(html, CallError::Tool(_)) && html.to_string().contains("HTTP 502"),
        "{html}"
    );
    // Malformed, hostile or mismatched answers are the server's defects,
    // never shown as data.
    for (name, says) in [
        ("broken", "not well-formed XML"),
        ("xxe", "document type declaration"),
        ("entity", "`&lol;`"),
        ("version", "set `soap_version`"),
    ] {
        let error = fault(name).await.expect_err("refused");
        let CallError::Defect { message, .. } = &error else {
            panic!("{name}: expected a defect, got {error:?}");
        };
        assert!(message.contains(says), "{name}: {message}");
        assert!(!message.contains("root:"), "{name}: {message}");
    }
    // A name the downstream chose is shown cut short, not relayed whole.
    let error = fault("longentity").await.expect_err("refused");
    let text = error.to_string();
    assert!(text.len() < 400, "{} bytes: {text:.200}", text.len());
    assert!(text.contains(&format!("`&{}…;`", "x".repeat(40))), "{text}");
}
