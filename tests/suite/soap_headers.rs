//! SOAP header blocks and namespaces (DESIGN §9, issue 47): arguments
//! placed in the envelope's `Header` (`in = "soap_header"`), credentials
//! written there from the secret source (`[[gateway_tool.version.soap_header]]`
//! with `secret`), which no client sees, sends or gets back, and elements
//! of other namespaces named by the version's `prefixes`. The
//! downstream is an in-process server that records the envelopes it
//! receives and echoes the credential in its fault and answer.

use std::sync::{Arc, Mutex};

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

const TOKEN: &str = "dev-token-5f3a9c1e77";
const TOKEN_VARIABLE: &str = "TOOLSCHEMA_TEST_ADS_DEVELOPER_TOKEN";

type Log = Arc<Mutex<Vec<String>>>;

/// Secrets of the test's own: the developer token, when `known`.
struct Vault {
    known: bool,
}

impl toolschema_gateway::SecretSource for Vault {
    fn secret(&self, name: &str) -> Option<String> {
        (self.known && name == TOKEN_VARIABLE).then(|| TOKEN.to_owned())
    }
}

/// The service: a fault that echoes the token for the query `fault`, else
/// an answer that echoes it.
async fn ads(State(log): State<Log>, request: Request) -> Response {
    let bytes = to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let body = String::from_utf8_lossy(&bytes).into_owned();
    log.lock().expect("log").push(body.clone());
    let (status, inside) = if body.contains("<m:Query>fault</m:Query>") {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "<soap:Fault><faultcode>soap:Client</faultcode><faultstring>The developer token {TOKEN} is not allowed for customer 42.</faultstring></soap:Fault>"
            ),
        )
    } else {
        (
            StatusCode::OK,
            format!(
                r#"<r:GetThingsResponse xmlns:r="urn:ads"><r:Seen>token {TOKEN}</r:Seen></r:GetThingsResponse>"#
            ),
        )
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/xml; charset=utf-8")
        .body(Body::from(format!(
            r#"<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>{inside}</soap:Body></soap:Envelope>"#
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
toolsets = ["ads"]

[[toolset]]
id = "ads"
tenant = "t"
tools = ["ads.get-things"]

[[downstream]]
id = "ads"
base_url = "http://127.0.0.1:{port}/ads"
protocol = "soap"

[[gateway_tool]]
name = "ads.get-things"
downstream = "ads"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets things."
operation = "GetThings"
namespace = "urn:ads"
soap_action = "GetThings"

[[gateway_tool.version.soap_header]]
element = "DeveloperToken"
secret = "{TOKEN_VARIABLE}"

[[gateway_tool.version.soap_header]]
element = "Tracking"
namespace = "urn:ads:tracking"

[[gateway_tool.version.argument]]
name = "customer_id"
source = "CustomerId"
in = "soap_header"
type = "integer"

[[gateway_tool.version.argument]]
name = "trace"
source = "Tracking.@id"
in = "soap_header"
type = "string"

[[gateway_tool.version.argument]]
name = "trace_label"
source = "Tracking.Label"
in = "soap_header"
type = "string"

[[gateway_tool.version.argument]]
name = "query"
source = "Query"
type = "string"
required = true

[[gateway_tool.version.result]]
name = "seen"
source = "Seen"
type = "string"
"#
    )
}

async fn catalog(known: bool) -> (Catalog, Log) {
    let log = Log::default();
    let router = Router::new()
        .route("/ads", post(ads))
        .with_state(log.clone());
    let port = super::support::serve_on_loopback(router).await;
    let transport = toolschema_gateway::HttpTransport::new(Arc::new(Vault { known }));
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &config(port),
        "ads.toml",
        Arc::new(transport),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    (catalog, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_arguments_and_credentials_are_written_as_header_blocks() {
    let (catalog, log) = catalog(true).await;
    let snapshot = catalog.snapshot();
    let result = snapshot
        .call(
            "c",
            "ads.get-things",
            json!({"customer_id": 42, "trace": "t-1", "trace_label": "a<b", "query": "shoes"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // The answer's echo of the credential is hidden.
    assert_eq!(
        result.structured(),
        Some(&json!({"seen": "token [redacted]"}))
    );
    // Declared blocks first (the credential, then `Tracking` in its own
    // namespace), then those only arguments write; each block qualified
    // by its namespace, its children by the operation's `qualified`.
    let seen = log.lock().expect("log").clone();
    assert_eq!(
        seen,
        [format!(
            concat!(
                r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">"#,
                r#"<soap:Header><h:DeveloperToken xmlns:h="urn:ads">{}</h:DeveloperToken>"#,
                r#"<h:Tracking xmlns:h="urn:ads:tracking" id="t-1"><h:Label>a&lt;b</h:Label></h:Tracking>"#,
                r#"<h:CustomerId xmlns:h="urn:ads">42</h:CustomerId></soap:Header>"#,
                r#"<soap:Body><m:GetThings xmlns:m="urn:ads"><m:Query>shoes</m:Query></m:GetThings></soap:Body></soap:Envelope>"#
            ),
            TOKEN
        )]
    );
    // Blocks the arguments leave empty are not written; the credential is.
    snapshot
        .call("c", "ads.get-things", json!({"query": "hats"}))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let last = log.lock().expect("log").last().cloned().unwrap_or_default();
    assert!(
        last.contains(&format!(
            r#"<soap:Header><h:DeveloperToken xmlns:h="urn:ads">{TOKEN}</h:DeveloperToken></soap:Header>"#
        )),
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_header_is_never_shown_asked_for_or_echoed_back() {
    let (catalog, _) = catalog(true).await;
    let snapshot = catalog.snapshot();
    let listed = snapshot
        .discover("c", ProtocolRevision::LATEST)
        .expect("client");
    let list: Value = serde_json::from_str(&listed).expect("JSON");
    let properties: Vec<&str> = list["tools"][0]["inputSchema"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(properties, ["customer_id", "query", "trace", "trace_label"]);
    for hidden in ["DeveloperToken", "developer", TOKEN_VARIABLE, "Tracking"] {
        assert!(!listed.contains(hidden), "{hidden} in {listed}");
    }
    // A client cannot send the credential either.
    let refused = snapshot
        .call(
            "c",
            "ads.get-things",
            json!({"query": "x", "developer_token": "mine"}),
        )
        .await
        .expect_err("an unknown argument");
    assert!(
        matches!(refused, CallError::InvalidArguments(_)),
        "{refused:?}"
    );
    // The fault that echoes it reaches the client without it.
    let fault = snapshot
        .call("c", "ads.get-things", json!({"query": "fault"}))
        .await
        .expect_err("a fault");
    assert_eq!(
        fault.to_string(),
        "The downstream service refused the request: The developer token [redacted] is not allowed for customer 42. Check the arguments against the tool's description."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_header_credential_is_named_and_nothing_is_sent() {
    let (catalog, log) = catalog(false).await;
    let error = catalog
        .snapshot()
        .call("c", "ads.get-things", json!({"query": "x"}))
        .await
        .expect_err("no credential");
    let CallError::Defect { message, .. } = &error else {
        panic!("expected a defect, got {error:?}");
    };
    assert!(
        message.contains(&format!("`{TOKEN_VARIABLE}`")) && message.contains("SOAP header"),
        "{message}"
    );
    assert!(log.lock().expect("log").is_empty());
}

#[test]
fn every_misplaced_header_value_is_refused_with_its_place_and_remedy() {
    let text = r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "ads"
base_url = "https://ads.example/api"
protocol = "soap"

[[downstream]]
id = "rest"
base_url = "https://rest.example"

[[gateway_tool]]
name = "ads.get"
downstream = "ads"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
operation = "Get"
namespace = "urn:ads"

[[gateway_tool.version.soap_header]]
element = "DeveloperToken"
secret = "ADS_DEVELOPER_TOKEN"

[[gateway_tool.version.soap_header]]
element = "Password"
secret = "hunter2 plain"

[[gateway_tool.version.soap_header]]
element = "Nobody"

[[gateway_tool.version.soap_header]]
element = "DeveloperToken"
secret = "OTHER_TOKEN"

[[gateway_tool.version.soap_header]]
element = "ns:Tracking"
secret = "TRACKING"

[[gateway_tool.version.argument]]
name = "token"
source = "DeveloperToken"
in = "soap_header"
type = "string"

[[gateway_tool.version.argument]]
name = "version"
source = "@version"
in = "soap_header"
type = "string"

[[gateway_tool.version.argument]]
name = "tenant"
source = "X-Tenant"
in = "header"
type = "string"

[[gateway_tool]]
name = "rest.get"
downstream = "rest"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
method = "GET"
path = "/things"

[[gateway_tool.version.soap_header]]
element = "DeveloperToken"
secret = "ADS_DEVELOPER_TOKEN"

[[gateway_tool.version.argument]]
name = "customer_id"
source = "CustomerId"
in = "soap_header"
type = "string"
"#;
    let Err(errors) = Catalog::from_toml(Registry::new(), text, "bad.toml") else {
        panic!("the configuration was accepted");
    };
    let shown = errors.to_string();
    let expect = [
        (
            "gateway_tool[0].version[0].soap_header[1].secret",
            "`hunter2 plain` is not a secret's name",
        ),
        (
            "gateway_tool[0].version[0].soap_header[2]",
            "the header block `Nobody` has no `secret`, and no argument writes in it",
        ),
        (
            "gateway_tool[0].version[0].soap_header[3].element",
            "the header block `DeveloperToken` is declared twice",
        ),
        (
            "gateway_tool[0].version[0].soap_header[4].element",
            "`ns:Tracking` is not an element name",
        ),
        (
            "gateway_tool[0].version[0].argument[0].source",
            "`token` writes in the header block `DeveloperToken`, whose value is the secret `ADS_DEVELOPER_TOKEN`",
        ),
        (
            "gateway_tool[0].version[0].argument[1].in",
            "starts with the block's element",
        ),
        (
            "gateway_tool[0].version[0].argument[2].in",
            "(`soap_header`), not `header`",
        ),
        (
            "gateway_tool[1].version[0].soap_header[0]",
            "`soap_header` is for a SOAP downstream",
        ),
        (
            "gateway_tool[1].version[0].argument[0].in",
            "this tool's downstream is REST; use `in = \"header\"`",
        ),
    ];
    for (key, says) in expect {
        let error = errors
            .iter()
            .find(|e| e.key() == key)
            .unwrap_or_else(|| panic!("no problem at {key} in:\n{shown}"));
        assert!(error.to_string().contains(says), "{key}: {error}");
        assert!(error.line() > 1, "{error}");
    }
    assert_eq!(errors.len(), expect.len(), "{shown}");
}

#[test]
fn every_unsound_namespace_prefix_is_refused_with_its_place_and_remedy() {
    let text = r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "ads"
base_url = "https://ads.example/api"
protocol = "soap"

[[downstream]]
id = "rest"
base_url = "https://rest.example"

[[gateway_tool]]
name = "ads.get"
downstream = "ads"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
operation = "Get"
namespace = "urn:ads"

[gateway_tool.version.prefixes]
n1 = "urn:arrays"
m = "urn:mine"
n2 = " "

[[gateway_tool.version.argument]]
name = "ids[]"
source = "Ids.n1:long[]"
type = "integer"

[[gateway_tool.version.argument]]
name = "tags[]"
source = "Tags.x:string[]"
type = "string"

[[gateway_tool.version.argument]]
name = "tracking"
source = "n1:Tracking"
in = "soap_header"
type = "string"

[[gateway_tool.version.result]]
name = "count"
source = "n1:Count"
type = "integer"

[[gateway_tool]]
name = "rest.get"
downstream = "rest"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
method = "GET"
path = "/things"

[gateway_tool.version.prefixes]
n1 = "urn:arrays"
"#;
    let Err(errors) = Catalog::from_toml(Registry::new(), text, "bad.toml") else {
        panic!("the configuration was accepted");
    };
    let shown = errors.to_string();
    let expect = [
        (
            "gateway_tool[0].version[0].prefixes.m",
            "the gateway writes the prefix `m` itself",
        ),
        (
            "gateway_tool[0].version[0].prefixes.n2",
            "`n2` is bound to an empty namespace",
        ),
        (
            "gateway_tool[0].version[0].argument[1].source",
            "the prefix `x` of `x:string` is not declared; add it to the version's `prefixes`",
        ),
        (
            "gateway_tool[0].version[0].argument[2].in",
            "its source starts with the block's local name",
        ),
        (
            "gateway_tool[0].version[0].result[0].source",
            "an answer's elements are read by their local names; write `Count`",
        ),
        (
            "gateway_tool[1].version[0].prefixes.n1",
            "this tool's downstream is REST",
        ),
    ];
    for (key, says) in expect {
        let error = errors
            .iter()
            .find(|e| e.key() == key)
            .unwrap_or_else(|| panic!("no problem at {key} in:\n{shown}"));
        assert!(error.to_string().contains(says), "{key}: {error}");
    }
    assert_eq!(errors.len(), expect.len(), "{shown}");
}
