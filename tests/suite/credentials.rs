//! A downstream's credentials never reach a client (DESIGN §9), whatever
//! the downstream echoes: the request's `Authorization` (basic: the user,
//! the password, `user:password` and its Base64) in a refusal's JSON or
//! text, cut short, in a SOAP fault, in an answer passed on as text, and in
//! a mapped result. The downstream is an in-process HTTP server that
//! echoes the header it received.

use crate::support::http;
use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Catalog;

const USER: &str = "svc-gateway";
const PASSWORD: &str = "correct-horse-battery-staple";
/// `Basic ` and the Base64 of `svc-gateway:correct-horse-battery-staple`.
const BASIC: &str = "Basic c3ZjLWdhdGV3YXk6Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5LXN0YXBsZQ==";

fn authorization(request: &Request) -> String {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("(none)")
        .to_owned()
}

fn respond(status: StatusCode, content_type: &str, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, content_type.to_owned())],
        body,
    )
        .into_response()
}

/// Every route echoes the header it received, in its own way.
fn downstream() -> Router {
    Router::new()
        .route(
            "/api/json",
            get(|request: Request| async move {
                let message = format!("the header {} is not allowed here", authorization(&request));
                respond(
                    StatusCode::BAD_REQUEST,
                    "application/json",
                    json!({ "message": message }).to_string(),
                )
            }),
        )
        .route(
            "/api/text",
            get(|request: Request| async move {
                respond(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "text/plain",
                    format!("Rejected.\nAuthorization:\t{}\n", authorization(&request)),
                )
            }),
        )
        .route(
            "/api/cut",
            get(|request: Request| async move {
                let header: String = authorization(&request).chars().take(30).collect();
                respond(
                    StatusCode::CONFLICT,
                    "text/plain",
                    format!("conflict for {header}..."),
                )
            }),
        )
        .route(
            "/api/decoded",
            get(|_: Request| async move {
                respond(
                    StatusCode::NOT_FOUND,
                    "text/plain",
                    format!("user {USER} with password {PASSWORD} may not"),
                )
            }),
        )
        .route(
            "/api/echo",
            get(|request: Request| async move {
                respond(
                    StatusCode::OK,
                    "text/plain",
                    format!("you sent {}", authorization(&request)),
                )
            }),
        )
        .route(
            "/api/mapped",
            get(|request: Request| async move {
                respond(
                    StatusCode::OK,
                    "application/json",
                    json!({"id": 1, "seen": authorization(&request)}).to_string(),
                )
            }),
        )
        .route(
            "/soap",
            post(|request: Request| async move {
                let reason = authorization(&request);
                respond(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "text/xml",
                    format!(
                        r#"<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><env:Fault><faultcode>env:Client</faultcode><faultstring>bad credentials {reason}</faultstring></env:Fault></env:Body></env:Envelope>"#
                    ),
                )
            }),
        )
}

fn rest_tool(route: &str, mapped: bool) -> String {
    let result = if mapped {
        "\n[[gateway_tool.version.result]]\nname = \"seen\"\ntype = \"string\"\n"
    } else {
        ""
    };
    format!(
        r#"
[[gateway_tool]]
name = "echo.{route}"
downstream = "rest"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Calls /{route}."
method = "GET"
path = "/{route}"
{result}"#
    )
}

fn config(port: u16) -> String {
    let routes = ["json", "text", "cut", "decoded", "echo", "mapped"];
    let tools: Vec<String> = routes
        .iter()
        .map(|r| format!("echo.{r}"))
        .chain(["echo.soap".to_owned()])
        .collect();
    let mut text = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["echo"]

[[toolset]]
id = "echo"
tenant = "acme"
tools = {tools:?}

[[downstream]]
id = "rest"
base_url = "http://127.0.0.1:{port}/api"
auth = {{ kind = "basic", user_env = "TOOLSCHEMA_TEST_ECHO_USER", password_env = "TOOLSCHEMA_TEST_ECHO_PASSWORD" }}

[[downstream]]
id = "soap"
base_url = "http://127.0.0.1:{port}/soap"
protocol = "soap"
auth = {{ kind = "basic", user_env = "TOOLSCHEMA_TEST_ECHO_USER", password_env = "TOOLSCHEMA_TEST_ECHO_PASSWORD" }}

[[gateway_tool]]
name = "echo.soap"
downstream = "soap"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Calls the SOAP service."
operation = "Check"
namespace = "urn:echo"

[[gateway_tool.version.result]]
name = "ok"
type = "boolean"
"#
    );
    for route in routes {
        text.push_str(&rest_tool(route, route == "mapped"));
    }
    text
}

/// Whether `text` holds the credentials or any run of ten of their
/// characters.
fn leaks(text: &str) -> Option<String> {
    let encoded = BASIC.trim_start_matches("Basic ");
    for secret in [USER, PASSWORD, encoded] {
        let chars: Vec<char> = secret.chars().collect();
        for window in chars.windows(10.min(chars.len())) {
            let piece: String = window.iter().collect();
            if text.contains(&piece) {
                return Some(piece);
            }
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_credentials_echoed_by_a_downstream_never_reach_the_client() {
    // SAFETY: these variables are set once, to these values, before any
    // call reads them, and no other test names them.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("TOOLSCHEMA_TEST_ECHO_USER", USER);
        std::env::set_var("TOOLSCHEMA_TEST_ECHO_PASSWORD", PASSWORD);
    }
    let port = super::support::serve_on_loopback(downstream()).await;
    let catalog = Catalog::from_toml_with(Registry::new(), &config(port), "echo.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    let mut answers = Vec::new();
    for tool in [
        "echo.json",
        "echo.text",
        "echo.cut",
        "echo.decoded",
        "echo.echo",
        "echo.mapped",
        "echo.soap",
    ] {
        let outcome = snapshot.call("assistant", tool, json!({})).await;
        let text = match &outcome {
            Ok(result) => json!({
                "content": result.content_json(),
                "structuredContent": result.structured(),
            })
            .to_string(),
            Err(error) => error.to_string(),
        };
        if let Some(piece) = leaks(&text) {
            panic!("{tool} shows `{piece}` of the credentials: {text}");
        }
        answers.push((tool, outcome.is_ok(), text));
    }
    // The answers still say what the downstream said, credentials hidden.
    let said: Vec<(&str, bool, &str)> = answers
        .iter()
        .map(|(tool, ok, text)| (*tool, *ok, text.as_str()))
        .collect();
    let expect = |tool: &str, ok: bool, part: &str| {
        let (_, was_ok, text) = said.iter().find(|(t, ..)| *t == tool).expect("called");
        assert_eq!(*was_ok, ok, "{tool}: {text}");
        assert!(text.contains(part), "{tool}: `{part}` not in {text}");
    };
    expect(
        "echo.json",
        false,
        "the header Basic [redacted] is not allowed here",
    );
    expect(
        "echo.text",
        false,
        "Rejected. Authorization: Basic [redacted]",
    );
    expect("echo.cut", false, "conflict for Basic [redacted]");
    expect(
        "echo.decoded",
        false,
        "user [redacted] with password [redacted] may not",
    );
    expect("echo.echo", true, "you sent Basic [redacted]");
    expect("echo.soap", false, "bad credentials Basic [redacted]");
    let mapped = said
        .iter()
        .find(|(t, ..)| *t == "echo.mapped")
        .expect("called");
    let mapped: Value = serde_json::from_str(mapped.2).expect("JSON");
    assert_eq!(
        mapped["structuredContent"],
        json!({"seen": "Basic [redacted]"})
    );
}

/// Secrets from a source of the service's own, recording what is asked.
struct Vault {
    known: Vec<(&'static str, &'static str)>,
    asked: std::sync::Mutex<Vec<String>>,
}

impl toolschema_gateway::SecretSource for Vault {
    fn secret(&self, name: &str) -> Option<String> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(name.to_owned());
        self.known
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, value)| (*value).to_owned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_secret_of_the_services_own_source_is_named() {
    let port = super::support::serve_on_loopback(downstream()).await;
    // The user's secret only: the password's is missing.
    let vault = std::sync::Arc::new(Vault {
        known: vec![("TOOLSCHEMA_TEST_ECHO_USER", USER)],
        asked: std::sync::Mutex::new(Vec::new()),
    });
    let transport = toolschema_gateway::HttpTransport::new(vault.clone());
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &config(port),
        "echo.toml",
        std::sync::Arc::new(transport),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    let outcome = catalog
        .snapshot()
        .call("assistant", "echo.echo", json!({}))
        .await;
    let Err(toolschema::CallError::Defect { message, .. }) = outcome else {
        panic!("a call without its credentials goes through: {outcome:?}");
    };
    assert!(
        message.contains("`TOOLSCHEMA_TEST_ECHO_PASSWORD`") && message.contains("secret"),
        "{message}"
    );
    assert_eq!(leaks(&message), None, "{message}");
    // The service's own source was asked, for the user and then the password.
    let asked = vault
        .asked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    assert_eq!(
        asked,
        ["TOOLSCHEMA_TEST_ECHO_USER", "TOOLSCHEMA_TEST_ECHO_PASSWORD"]
    );
}

/// Answers only a call that carries the key header and the client id in the
/// query together, and echoes both.
fn both_required() -> Router {
    Router::new().route(
        "/both",
        get(|request: Request| async move {
            let key = request
                .headers()
                .get("x-api-key")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let client = request.uri().query().and_then(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .find(|(name, _)| name == "client_id")
                    .map(|(_, value)| value.into_owned())
            });
            match (key, client) {
                (Some(key), Some(client)) => respond(
                    StatusCode::OK,
                    "application/json",
                    json!({"seen": format!("{key} for {client}")}).to_string(),
                ),
                (key, client) => respond(
                    StatusCode::UNAUTHORIZED,
                    "application/json",
                    json!({"message": format!("both needed; key {key:?}, client {client:?}")})
                        .to_string(),
                ),
            }
        }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_required_together_are_each_sent_and_each_hidden() {
    let port = super::support::serve_on_loopback(both_required()).await;
    let vault = std::sync::Arc::new(Vault {
        known: vec![
            ("BOTH_KEY", "key-0123456789abcdef"),
            ("BOTH_CLIENT", "client-fedcba9876543210"),
        ],
        asked: std::sync::Mutex::new(Vec::new()),
    });
    let text = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["both"]

[[toolset]]
id = "both"
tenant = "acme"
tools = ["both"]

[[downstream]]
id = "both"
base_url = "http://127.0.0.1:{port}"

[[downstream.auth]]
kind = "header"
header = "X-Api-Key"
env = "BOTH_KEY"

[[downstream.auth]]
kind = "query"
param = "client_id"
env = "BOTH_CLIENT"

[[gateway_tool]]
name = "both"
downstream = "both"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Needs a key and a client id."
method = "GET"
path = "/both"
"#
    );
    let transport = toolschema_gateway::HttpTransport::new(vault.clone());
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &text,
        "both.toml",
        std::sync::Arc::new(transport),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    let result = catalog
        .snapshot()
        .call("assistant", "both", json!({}))
        .await
        .unwrap_or_else(|error| panic!("both credentials sent: {error}"));
    // Both were sent (the downstream answered), and neither is shown.
    assert_eq!(
        result.content_json().to_string(),
        json!([{"type": "text", "text": "{\"seen\":\"[redacted] for [redacted]\"}"}]).to_string()
    );
}

#[test]
fn two_credentials_of_a_downstream_never_go_to_one_place() {
    let text = r#"
[[downstream]]
id = "both"
base_url = "https://api.example.com"

[[downstream.auth]]
kind = "bearer"
env = "TOKEN"

[[downstream.auth]]
kind = "header"
header = "authorization"
env = "OTHER"

[[downstream.auth]]
kind = "query"
param = "key"
env = "not a name"

[[downstream]]
id = "aws"
base_url = "https://pricing.us-east-1.amazonaws.com"
auth = { kind = "aws_sigv4", access_key_env = "AWS_ACCESS_KEY_ID", secret_key_env = "AWS_SECRET_ACCESS_KEY", service = "pricing service" }
"#;
    let errors = toolschema::catalog::Config::from_toml(text, "both.toml", &Registry::new())
        .expect_err("refused");
    let message = errors.to_string();
    for (place, says) in [
        (
            "downstream[0].auth[1]",
            "the `authorization` header is already sent by `downstream[0].auth[0]`",
        ),
        (
            "downstream[0].auth[2].env",
            "`not a name` is not an environment variable name",
        ),
        (
            "downstream[1].auth",
            "`kind = \"aws_sigv4\"` needs `region`",
        ),
        (
            "downstream[1].auth.service",
            "`pricing service` is not an AWS service name",
        ),
    ] {
        assert!(
            message
                .lines()
                .any(|line| line.contains(place) && line.contains(says)),
            "{place}: {says}\n{message}"
        );
    }
}

/// What a downstream received: each request's target and headers.
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<(String, String)>)>>>;

/// Records what arrives, and answers `{}`.
fn recording(seen: Received) -> Router {
    Router::new().fallback(move |request: Request| {
        let seen = seen.clone();
        async move {
            let headers = request
                .headers()
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        value.to_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect();
            seen.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((request.uri().to_string(), headers));
            respond(StatusCode::OK, "application/json", "{}".to_owned())
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aws_downstream_gets_each_request_signed_and_never_the_secret_key() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let port = super::support::serve_on_loopback(recording(seen.clone())).await;
    let vault = std::sync::Arc::new(Vault {
        known: vec![
            ("AWS_KEY", "AKIDTOOLSCHEMATEST"),
            ("AWS_SECRET", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYTESTKEY"),
            ("AWS_TOKEN", "session-token-0123456789"),
        ],
        asked: std::sync::Mutex::new(Vec::new()),
    });
    let text = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["aws"]

[[toolset]]
id = "aws"
tenant = "acme"
tools = ["prices"]

[[downstream]]
id = "pricing"
base_url = "http://127.0.0.1:{port}"
auth = {{ kind = "aws_sigv4", access_key_env = "AWS_KEY", secret_key_env = "AWS_SECRET", session_token_env = "AWS_TOKEN", region = "eu-west-3", service = "pricing" }}

[[gateway_tool]]
name = "prices"
downstream = "pricing"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Lists prices."
method = "POST"
path = "/"
headers = {{ "X-Amz-Target" = "AWSPriceListService.GetProducts" }}
query = {{ "b" = "two words", "a" = "1" }}

[[gateway_tool.version.argument]]
name = "service_code"
source = "ServiceCode"
type = "string"
required = true
"#
    );
    let transport = toolschema_gateway::HttpTransport::new(vault.clone());
    let catalog = Catalog::from_toml_with(
        Registry::new(),
        &text,
        "aws.toml",
        std::sync::Arc::new(transport),
    )
    .unwrap_or_else(|errors| panic!("{errors}"));
    catalog
        .snapshot()
        .call("assistant", "prices", json!({"service_code": "AmazonEC2"}))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let [(target, headers)] = seen.as_slice() else {
        panic!("one request: {seen:?}");
    };
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name}: {headers:?}"))
    };
    // The query is sent as it was signed: sorted, spaces as %20.
    assert_eq!(target, "/?a=1&b=two%20words");
    let date = header("x-amz-date");
    assert_eq!(date.len(), 16, "{date}");
    assert_eq!(header("x-amz-security-token"), "session-token-0123456789");
    let authorization = header("authorization");
    let expected = format!(
        "AWS4-HMAC-SHA256 Credential=AKIDTOOLSCHEMATEST/{}/eu-west-3/pricing/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=",
        &date[..8]
    );
    assert!(
        authorization.starts_with(&expected),
        "{authorization}\n{expected}"
    );
    let signature = &authorization[expected.len()..];
    assert!(
        signature.len() == 64 && signature.bytes().all(|b| b.is_ascii_hexdigit()),
        "{signature}"
    );
    // The secret access key is never sent.
    assert!(
        headers
            .iter()
            .all(|(_, value)| !value.contains("CYTESTKEY")),
        "{headers:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_without_content_is_a_result_without_fields() {
    // AWS Detective's TagResource answers 204 with no body; its result
    // (an object of no required field) is then empty, not a failure.
    let router = Router::new().route(
        "/tags",
        post(|| async { respond(StatusCode::NO_CONTENT, "application/json", String::new()) }),
    );
    let port = super::support::serve_on_loopback(router).await;
    let text = format!(
        r#"
[[tenant]]
id = "acme"

[[client]]
id = "assistant"
tenant = "acme"
toolsets = ["tags"]

[[toolset]]
id = "tags"
tenant = "acme"
tools = ["tag"]

[[downstream]]
id = "tags"
base_url = "http://127.0.0.1:{port}"

[[gateway_tool]]
name = "tag"
downstream = "tags"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Tags."
method = "POST"
path = "/tags"

[[gateway_tool.version.result]]
name = "tagged"
type = "integer"
"#
    );
    let catalog = Catalog::from_toml_with(Registry::new(), &text, "tags.toml", http())
        .unwrap_or_else(|errors| panic!("{errors}"));
    let result = catalog
        .snapshot()
        .call("assistant", "tag", json!({}))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(result.structured(), Some(&json!({})));
}

#[test]
fn an_aws_signing_name_may_have_capitals() {
    // AWS Migration Hub signs as `AWSMigrationHub`, IoT Secure Tunneling
    // as `IoTSecuredTunneling`: every operation of those documents was
    // skipped while the check wanted lowercase.
    let text = r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "aws"
base_url = "https://mgh.us-west-2.amazonaws.com"
auth = { kind = "aws_sigv4", access_key_env = "AWS_ACCESS_KEY_ID", secret_key_env = "AWS_SECRET_ACCESS_KEY", region = "us-west-2", service = "AWSMigrationHub" }
"#;
    let config = toolschema::catalog::Config::from_toml(text, "aws.toml", &Registry::new())
        .unwrap_or_else(|errors| panic!("{errors}"));
    assert!(matches!(
        config.downstream("aws").expect("checked").auth(),
        [toolschema_configured::Auth::AwsSigV4 { service, .. }] if service == "AWSMigrationHub"
    ));
}
