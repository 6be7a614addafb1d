//! What verifying access tokens costs a call: `tools/call` over loopback
//! authenticated by a JWT access token (ES256, the issuer's keys cached,
//! the token's scopes unlocking the tool's toolset) against the same call
//! authenticated by an API key, in interleaved rounds.
//!
//! `cargo bench -p toolschema-bench-http --bench auth` (`AUTH_CALLS` calls
//! per variant, default 20,000). Prints p50 and p99 of each and the
//! difference.

#![allow(missing_docs)]

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;
use toolschema::catalog::hash_api_key;
use toolschema::serve::Server;
use toolschema_bench_http::mcp::paid_invoice;
use toolschema_bench_http::timing::compare;
use toolschema_demo::{GetInvoice, ListInvoices};
use toolschema_test_support::issuer::{Issuer, SigningKey};

const RESOURCE: &str = "http://localhost/mcp";

fn catalog(issuer: &str) -> String {
    format!(
        r#"
[authorization]
issuer = "{issuer}"
resource = "{RESOURCE}"
algorithms = ["ES256"]

[[tenant]]
id = "acme"

[[client]]
id = "keyed"
tenant = "acme"
api_keys = ["{key}"]
toolsets = ["invoices"]

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
toolsets = ["invoices"]

[[toolset]]
id = "invoices"
tenant = "acme"
tools = ["billing.get-invoice", "billing.list-invoices"]
scopes = ["invoices:read"]
"#,
        key = hash_api_key("sk-bench")
    )
}

fn main() {
    let calls: usize = std::env::var("AUTH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let key = SigningKey::generate("bench-key");
    let (_issuer, issuer_url) = Issuer::start(&[&key]);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let token = key.sign(&json!({
        "iss": issuer_url, "aud": RESOURCE, "client_id": "finance-app",
        "scope": "invoices:read", "iat": now, "exp": now + 3600,
    }));
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async move {
        let server = Server::new("billing", "1")
            .tool::<GetInvoice>()
            .tool::<ListInvoices>()
            .catalog_toml(catalog(&issuer_url), "bench.toml")
            .bind_http("127.0.0.1:0")
            .await
            .expect("binds");
        let url = format!("http://{}/mcp", server.local_addr());
        tokio::spawn(server.run_until(std::future::pending()));
        let http = reqwest::Client::new();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "billing.get-invoice",
                       "arguments": {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}}})
        .to_string();
        compare(
            "tools/call, access token against API key",
            calls,
            10,
            (
                "access token (JWKS cached)",
                paid_invoice(&http, &url, &format!("Bearer {token}"), &body),
            ),
            (
                "API key",
                paid_invoice(&http, &url, "Bearer sk-bench", &body),
            ),
        )
        .await;
    });
}
