//! The OAuth 2.1 resource server: access tokens signed by an issuer the
//! test runs (its metadata and key set served over HTTP, keys generated
//! here, tokens signed with `jsonwebtoken`), checked case by case, with the
//! protected resource metadata and the challenges a client reads.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use toolschema_catalog::hash_api_key;
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_serve::Server;
use toolschema_test_support::issuer::{Issuer, SigningKey};

use crate::common;

const RESOURCE: &str = "http://localhost/mcp";

fn catalog(issuer: &str) -> String {
    format!(
        r#"
[authorization]
issuer = "{issuer}"
resource = "{RESOURCE}"
tenant_claim = "tenant"
algorithms = ["ES256"]
leeway_seconds = 0
introspection_client_id = "introspector"
introspection_secret_env = "CARGO_PKG_NAME"

[[tenant]]
id = "acme"

[[tenant]]
id = "globex"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
toolsets = ["reading", "invoices"]

[[client]]
id = "keyed"
tenant = "acme"
api_keys = ["{key}"]
toolsets = ["reading"]

[[toolset]]
id = "reading"
tenant = "acme"
tools = ["billing.list-invoices"]

[[toolset]]
id = "invoices"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read"]
"#,
        key = hash_api_key("sk-keyed")
    )
}

struct Fixture {
    address: SocketAddr,
    issuer: Arc<Issuer>,
    issuer_url: String,
    key: SigningKey,
    http: reqwest::Client,
}

fn fixture() -> Fixture {
    fixture_with(|server| server, "CARGO_PKG_NAME")
}

/// The fixture's server changed by `change`, its introspection secret read
/// from `secret_env`.
fn fixture_with(change: impl FnOnce(Server) -> Server, secret_env: &str) -> Fixture {
    let key = SigningKey::generate("key-1");
    let (issuer, issuer_url) = Issuer::start(&[&key]);
    let catalog = catalog(&issuer_url).replace(
        r#"introspection_secret_env = "CARGO_PKG_NAME""#,
        &format!(r#"introspection_secret_env = "{secret_env}""#),
    );
    let server = change(Server::new("billing", "1"))
        .tool::<GetInvoice>()
        .tool::<ListInvoices>()
        .catalog_toml(catalog, "catalog.toml");
    let (address, stop) = common::spawn(server);
    std::mem::forget(stop);
    Fixture {
        address,
        issuer,
        issuer_url,
        key,
        http: reqwest::Client::new(),
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

impl Fixture {
    /// The claims of a good token of `finance-app` holding `scope`.
    fn claims(&self, scope: &str) -> Value {
        json!({
            "iss": self.issuer_url, "aud": RESOURCE, "sub": "service-account",
            "client_id": "finance-app", "tenant": "acme", "scope": scope,
            "iat": now(), "exp": now() + 300,
        })
    }

    /// `POST /mcp` with `body` and `authorization`; the status, the
    /// challenge (if any) and the body.
    async fn post(&self, authorization: Option<&str>, body: Value) -> (u16, String, Value) {
        self.post_to("/mcp", authorization, body).await
    }

    async fn post_to(
        &self,
        path: &str,
        authorization: Option<&str>,
        body: Value,
    ) -> (u16, String, Value) {
        let version = [("mcp-protocol-version", "2025-11-25")];
        self.post_with(path, authorization, &version, body).await
    }

    /// `POST path` with `headers` beside the usual ones.
    async fn post_with(
        &self,
        path: &str,
        authorization: Option<&str>,
        headers: &[(&str, &str)],
        body: Value,
    ) -> (u16, String, Value) {
        let mut request = self
            .http
            .post(format!("http://{}{path}", self.address))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = response.text().await.expect("a body");
        (
            status,
            challenge,
            serde_json::from_str(&text).unwrap_or(Value::Null),
        )
    }

    async fn list(&self, token: &str) -> Vec<String> {
        let (status, _, reply) = self
            .post(
                Some(&format!("Bearer {token}")),
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            )
            .await;
        assert_eq!(status, 200, "{reply}");
        let tools = reply["result"]["tools"].as_array().expect("tools");
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// The 401 a token gets, with its challenge's description.
    async fn refused(&self, token: &str) -> String {
        let (status, challenge, _) = self
            .post(
                Some(&format!("Bearer {token}")),
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            )
            .await;
        assert_eq!(status, 401, "{challenge}");
        assert!(
            challenge.contains(r#"error="invalid_token""#),
            "{challenge}"
        );
        assert!(
            challenge.contains(
                r#"resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp""#
            ),
            "{challenge}"
        );
        challenge
    }
}

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": name, "arguments": {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protected_resource_metadata_names_the_issuer_and_the_scopes() {
    let f = fixture();
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = f
            .http
            .get(format!("http://{}{path}", f.address))
            .send()
            .await
            .expect("answers");
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let document: Value =
            serde_json::from_str(&response.text().await.expect("a body")).expect("JSON");
        // RFC 9728 §2: `resource` is required; the others are lists of
        // strings when present.
        assert_eq!(document["resource"], RESOURCE);
        assert_eq!(document["authorization_servers"], json!([f.issuer_url]));
        assert_eq!(document["scopes_supported"], json!(["invoices:read"]));
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            document["resource_signing_alg_values_supported"],
            json!(["ES256"])
        );
        for (field, value) in document.as_object().expect("object") {
            let known = [
                "resource",
                "authorization_servers",
                "scopes_supported",
                "bearer_methods_supported",
                "resource_signing_alg_values_supported",
                "resource_name",
            ];
            assert!(known.contains(&field.as_str()), "{field}");
            if field != "resource" && field != "resource_name" {
                assert!(
                    value
                        .as_array()
                        .is_some_and(|l| l.iter().all(Value::is_string)),
                    "{field}"
                );
            }
        }
    }
    let elsewhere = f
        .http
        .get(format!(
            "http://{}/.well-known/oauth-protected-resource/other",
            f.address
        ))
        .send()
        .await
        .expect("answers");
    assert_eq!(elsewhere.status().as_u16(), 404);
    // Without a credential: 401, pointing at the metadata.
    let (status, challenge, _) = f
        .post(
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        r#"Bearer realm="mcp", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp""#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_token_lists_and_calls_what_its_scopes_allow() {
    let f = fixture();
    let scoped = f.key.sign(&f.claims("invoices:read openid"));
    assert_eq!(
        f.list(&scoped).await,
        ["billing.get-invoice", "billing.list-invoices"]
    );
    let (status, _, reply) = f
        .post(
            Some(&format!("Bearer {scoped}")),
            call("billing.get-invoice"),
        )
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(
        reply["result"]["structuredContent"]["status"], "paid",
        "{reply}"
    );

    // Without the scope: the tool is not listed, and calling it is 403
    // with the scope it needs.
    let unscoped = f.key.sign(&f.claims("openid"));
    assert_eq!(f.list(&unscoped).await, ["billing.list-invoices"]);
    let (status, challenge, reply) = f
        .post(
            Some(&format!("Bearer {unscoped}")),
            call("billing.get-invoice"),
        )
        .await;
    assert_eq!(status, 403, "{reply}");
    assert!(
        challenge.starts_with(
            r#"Bearer realm="mcp", error="insufficient_scope", scope="invoices:read""#
        ),
        "{challenge}"
    );
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    assert_eq!(
        reply,
        json!({"error": "insufficient_scope",
               "message": "calling `billing.get-invoice` needs a token with the scopes: invoices:read"})
    );
    let denied = (status, challenge, reply);
    // Over REST, and in the 2026-07-28 revision, the same answer.
    let rest = f
        .post_to(
            "/v1/tools/billing.get-invoice/call",
            Some(&format!("Bearer {unscoped}")),
            json!({"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}),
        )
        .await;
    assert_eq!(rest, denied);
    let mut stateless = call("billing.get-invoice");
    stateless["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "billing.get-invoice"),
    ];
    let authorization = format!("Bearer {unscoped}");
    let answered = f
        .post_with("/mcp", Some(&authorization), &headers, stateless.clone())
        .await;
    assert_eq!(answered, denied);
    // With the scope, the same 2026-07-28 call runs.
    let authorization = format!("Bearer {scoped}");
    let (status, _, reply) = f
        .post_with("/mcp", Some(&authorization), &headers, stateless)
        .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(
        reply["result"]["structuredContent"]["status"], "paid",
        "{reply}"
    );
    // A tool the client has in no toolset stays unknown, not forbidden.
    let (status, _, reply) = f
        .post(
            Some(&format!("Bearer {unscoped}")),
            call("billing.void-invoice"),
        )
        .await;
    assert_eq!(status, 200);
    assert!(reply["error"].is_object(), "{reply}");

    // API keys keep working beside tokens.
    let (status, _, reply) = f
        .post(
            Some("Bearer sk-keyed"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["tools"][0]["name"], "billing.list-invoices");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_are_refused_each_with_its_reason() {
    let f = fixture();
    let mut claims = f.claims("invoices:read");
    claims["exp"] = json!(now() - 60);
    assert!(f.refused(&f.key.sign(&claims)).await.contains("expired"));

    let mut claims = f.claims("invoices:read");
    claims["aud"] = json!("https://elsewhere.example.com/mcp");
    assert!(
        f.refused(&f.key.sign(&claims))
            .await
            .contains("another resource")
    );

    let mut claims = f.claims("invoices:read");
    claims["iss"] = json!("https://impostor.example.com");
    assert!(
        f.refused(&f.key.sign(&claims))
            .await
            .contains("another authorization server")
    );

    let mut claims = f.claims("invoices:read");
    claims["nbf"] = json!(now() + 600);
    assert!(
        f.refused(&f.key.sign(&claims))
            .await
            .contains("not valid yet")
    );

    // A client no client application is configured for.
    let mut claims = f.claims("invoices:read");
    claims["client_id"] = json!("stranger-app");
    assert!(
        f.refused(&f.key.sign(&claims))
            .await
            .contains("not a client of this server")
    );

    // Another tenant than its client's.
    let mut claims = f.claims("invoices:read");
    claims["tenant"] = json!("globex");
    assert!(f.refused(&f.key.sign(&claims)).await.contains("tenant"));

    // `alg: none`, and an HMAC token (not an allowed algorithm, whatever
    // the secret).
    let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(f.claims("invoices:read").to_string());
    f.refused(&format!("{none_header}.{payload}.AAAA")).await;
    let hmac = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &f.claims("invoices:read"),
        &EncodingKey::from_secret(b"anything").expect("a secret"),
    )
    .expect("signs");
    assert!(f.refused(&hmac).await.contains("not accepted"));

    // A signature by a key the issuer does not publish.
    let forger = SigningKey::generate("key-1");
    f.refused(&forger.sign(&f.claims("invoices:read"))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_read_when_a_token_names_it() {
    let f = fixture();
    let good = f.key.sign(&f.claims(""));
    assert_eq!(f.list(&good).await, ["billing.list-invoices"]);
    let reads = f.issuer.key_reads();
    assert_eq!(reads, 1);
    // Cached: another token reads no keys.
    f.list(&f.key.sign(&f.claims(""))).await;
    assert_eq!(f.issuer.key_reads(), 1);

    // The issuer rotates to a new key: a token naming it makes the keys be
    // read again, once.
    let next = SigningKey::generate("key-2");
    f.issuer.publish(&next);
    assert_eq!(
        f.list(&next.sign(&f.claims(""))).await,
        ["billing.list-invoices"]
    );
    assert_eq!(f.issuer.key_reads(), 2);

    // Tokens naming keys nobody publishes are refused, and do not make the
    // server ask the issuer again and again.
    for i in 0..5 {
        let unknown = SigningKey::generate(&format!("nobody-{i}"));
        f.refused(&unknown.sign(&f.claims(""))).await;
    }
    assert!(f.issuer.key_reads() <= 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_in_the_query_string_is_refused() {
    let f = fixture();
    let token = f.key.sign(&f.claims("invoices:read"));
    let (status, challenge, reply) = f
        .post_to(
            &format!("/mcp?access_token={token}"),
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(status, 400, "{reply}");
    assert!(challenge.contains("invalid_request"), "{challenge}");
    assert!(
        reply["message"]
            .as_str()
            .is_some_and(|m| m.contains("never accepted in the URL"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_token_still_expires() {
    let f = fixture();
    let mut claims = f.claims("");
    claims["exp"] = json!(now() + 2);
    let token = f.key.sign(&claims);
    // Verified, then remembered: the second call reads no keys and checks
    // no signature, but an expired token is never taken from memory.
    assert_eq!(f.list(&token).await, ["billing.list-invoices"]);
    assert_eq!(f.list(&token).await, ["billing.list-invoices"]);
    tokio::time::sleep(std::time::Duration::from_millis(3_100)).await;
    assert!(f.refused(&token).await.contains("expired"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_checked_by_introspection() {
    let f = fixture();
    f.issuer.issue_opaque(
        "opaque-good",
        json!({"iss": f.issuer_url, "aud": RESOURCE, "client_id": "finance-app",
               "tenant": "acme", "scope": "invoices:read", "exp": now() + 300}),
    );
    assert_eq!(
        f.list("opaque-good").await,
        ["billing.get-invoice", "billing.list-invoices"]
    );
    let (status, _, reply) = f
        .post(Some("Bearer opaque-good"), call("billing.get-invoice"))
        .await;
    assert_eq!(status, 200, "{reply}");
    // Asked once, then remembered.
    assert_eq!(f.issuer.introspections(), 1);

    f.issuer.issue_opaque(
        "opaque-elsewhere",
        json!({"iss": f.issuer_url, "aud": "https://other.example.com/mcp",
               "client_id": "finance-app", "tenant": "acme", "exp": now() + 300}),
    );
    assert!(
        f.refused("opaque-elsewhere")
            .await
            .contains("another resource")
    );
    f.issuer.issue_opaque(
        "opaque-expired",
        json!({"iss": f.issuer_url, "aud": RESOURCE, "client_id": "finance-app",
               "tenant": "acme", "exp": now() - 60}),
    );
    assert!(f.refused("opaque-expired").await.contains("expired"));
    // Unknown to the issuer: inactive. An API key still works beside.
    assert!(f.refused("made-up-token").await.contains("not active"));
    let (status, _, _) = f
        .post(
            Some("Bearer sk-keyed"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_made_up_opaque_tokens_reaches_the_issuer_a_few_at_a_time() {
    let f = Arc::new(fixture());
    f.issuer.slow_down(50);
    let mut flood = Vec::new();
    for i in 0..40 {
        let f = f.clone();
        flood.push(tokio::spawn(async move {
            f.refused(&format!("made-up-{i}")).await;
        }));
    }
    for one in flood {
        one.await.expect("refused");
    }
    assert_eq!(f.issuer.introspections(), 40);
    let most = f.issuer.most_introspections_at_once();
    assert!((1..=8).contains(&most), "{most} at once");
}

/// Every header a downstream received, per request.
type Received = Arc<std::sync::Mutex<Vec<Vec<(String, String)>>>>;

/// A downstream that answers `{"echoed": true}` and keeps every request's
/// headers; its base URL.
fn recording_downstream(received: Received) -> String {
    let router = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let received = received.clone();
        async move {
            let headers = request
                .headers()
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect();
            received.lock().expect("received").push(headers);
            ([("content-type", "application/json")], r#"{"echoed":true}"#)
        }
    });
    let address = toolschema_test_support::issuer::serve_in_thread(router);
    format!("http://{address}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_never_reaches_a_downstream() {
    let key = SigningKey::generate("key-1");
    let (_issuer, issuer_url) = Issuer::start(&[&key]);
    let received = Received::default();
    let (plain, credentialed) = (
        recording_downstream(received.clone()),
        recording_downstream(received.clone()),
    );
    let catalog = format!(
        r#"
[authorization]
issuer = "{issuer_url}"
resource = "{RESOURCE}"
algorithms = ["ES256"]

[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
toolsets = ["echo"]

[[toolset]]
id = "echo"
tenant = "acme"
tools = ["echo.plain", "echo.credentialed"]

[[downstream]]
id = "plain"
base_url = "{plain}"

[[downstream]]
id = "credentialed"
base_url = "{credentialed}"
auth = {{ kind = "bearer", env = "CARGO_PKG_NAME" }}

[[gateway_tool]]
name = "echo.plain"
downstream = "plain"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Echoes."
method = "GET"
path = "/echo"

[[gateway_tool]]
name = "echo.credentialed"
downstream = "credentialed"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Echoes, with the gateway's own credential."
method = "POST"
path = "/echo"
"#
    );
    let server = Server::new("billing", "1").catalog_toml(catalog, "catalog.toml");
    let (address, stop) = common::spawn(server);
    let token = key.sign(&json!({
        "iss": issuer_url, "aud": RESOURCE, "client_id": "finance-app",
        "iat": now(), "exp": now() + 300,
    }));
    let http = reqwest::Client::new();
    for tool in ["echo.plain", "echo.credentialed"] {
        let reply = http
            .post(format!("http://{address}/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("authorization", format!("Bearer {token}"))
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": {}}})
                .to_string(),
            )
            .send()
            .await
            .expect("the server answers")
            .text()
            .await
            .expect("a body");
        let reply: Value = serde_json::from_str(&reply).expect("JSON");
        assert_eq!(
            reply["result"]["content"][0]["text"], r#"{"echoed":true}"#,
            "{tool}: {reply}"
        );
        let rest = http
            .post(format!("http://{address}/v1/tools/{tool}/call"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body("{}")
            .send()
            .await
            .expect("the server answers");
        assert_eq!(rest.status(), 200, "{tool} over REST");
    }
    let received = received.lock().expect("received").clone();
    assert_eq!(received.len(), 4, "each tool called twice: {received:?}");
    let signature = token.rsplit('.').next().expect("a signature");
    for headers in &received {
        for (name, value) in headers {
            assert!(
                !value.contains(&token) && !value.contains(signature),
                "the caller's token reached a downstream in `{name}`"
            );
        }
    }
    // The plain downstream got no credential at all; the other only its own.
    let authorizations: Vec<Option<&str>> = received
        .iter()
        .map(|headers| {
            headers
                .iter()
                .find(|(name, _)| name == "authorization")
                .map(|(_, value)| value.as_str())
        })
        .collect();
    let own = format!("Bearer {}", env!("CARGO_PKG_NAME"));
    assert_eq!(
        authorizations.iter().filter(|a| a.is_none()).count(),
        2,
        "{authorizations:?}"
    );
    assert_eq!(
        authorizations
            .iter()
            .filter(|a| **a == Some(own.as_str()))
            .count(),
        2,
        "{authorizations:?}"
    );
    drop(stop);
}

/// A secret source of the application's own: a vault holding what no
/// environment variable does.
struct Vault;

/// The variable the vault answers for, set nowhere.
const VAULT_ONLY: &str = "TOOLSCHEMA_TEST_VAULT_ONLY_INTROSPECTION_SECRET";

impl toolschema_config::SecretSource for Vault {
    fn secret(&self, name: &str) -> Option<String> {
        // What the test issuer takes as the introspector's password.
        (name == VAULT_ONLY).then(|| env!("CARGO_PKG_NAME").to_owned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_introspection_secret_is_read_from_the_applications_secret_source() {
    assert!(
        std::env::var(VAULT_ONLY).is_err(),
        "{VAULT_ONLY} must not be set"
    );
    let claims = |f: &Fixture| {
        json!({"iss": f.issuer_url, "aud": RESOURCE, "client_id": "finance-app",
               "tenant": "acme", "exp": now() + 300})
    };
    let with_vault = fixture_with(|server| server.secrets(Arc::new(Vault)), VAULT_ONLY);
    with_vault
        .issuer
        .issue_opaque("opaque-vault", claims(&with_vault));
    assert_eq!(
        with_vault.list("opaque-vault").await,
        ["billing.list-invoices"]
    );
    assert_eq!(with_vault.issuer.introspections(), 1);

    // Without the vault, the same name is read from the environment, which
    // does not hold it: the token cannot be checked, and the issuer is not
    // asked without credentials.
    let without = fixture_with(|server| server, VAULT_ONLY);
    without
        .issuer
        .issue_opaque("opaque-vault", claims(&without));
    let (status, challenge, _) = without
        .post(
            Some("Bearer opaque-vault"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_ne!(status, 200, "{challenge}");
    assert_eq!(without.issuer.introspections(), 0);
}
