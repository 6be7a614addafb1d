//! A failing or slow authorization server under a flood of made-up
//! tokens: it is read one request at a time and then left alone (back-off),
//! so that garbage never costs it a request each, and a valid token whose
//! keys are known is never held behind a read.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use toolschema_demo::ListInvoices;
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
algorithms = ["ES256"]
introspection_client_id = "introspector"
introspection_secret_env = "CARGO_PKG_NAME"

[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
toolsets = ["reading"]

[[toolset]]
id = "reading"
tenant = "acme"
tools = ["billing.list-invoices"]
"#
    )
}

struct Fixture {
    address: SocketAddr,
    issuer: Arc<Issuer>,
    issuer_url: String,
    key: SigningKey,
    http: reqwest::Client,
}

fn fixture(failing_from_the_start: bool) -> Fixture {
    let key = SigningKey::generate("key-1");
    let (issuer, issuer_url) = Issuer::start(&[&key]);
    issuer.fail(failing_from_the_start);
    let server = Server::new("billing", "1")
        .tool::<ListInvoices>()
        .catalog_toml(catalog(&issuer_url), "catalog.toml");
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
    fn claims(&self) -> Value {
        json!({
            "iss": self.issuer_url, "aud": RESOURCE, "client_id": "finance-app",
            "iat": now(), "exp": now() + 300,
        })
    }

    fn valid_token(&self) -> String {
        self.key.sign(&self.claims())
    }

    /// A well-formed token signed by a key the issuer never published.
    fn made_up_token(&self, n: usize) -> String {
        SigningKey::generate(&format!("junk-{n}")).sign(&self.claims())
    }

    /// `tools/list` with `token`: the status and the challenge.
    async fn list(&self, token: &str) -> (u16, String) {
        let response = self
            .http
            .post(format!("http://{}/mcp", self.address))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("authorization", format!("Bearer {token}"))
            .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
            .send()
            .await
            .expect("the server answers");
        let challenge = response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (response.status().as_u16(), challenge)
    }

    /// `tools/list` with each of `tokens` at once: every status.
    async fn flood(self: &Arc<Self>, tokens: Vec<String>) -> Vec<(u16, String)> {
        let tasks: Vec<_> = tokens
            .into_iter()
            .map(|token| {
                let fixture = self.clone();
                tokio::spawn(async move { fixture.list(&token).await })
            })
            .collect();
        let mut answers = Vec::new();
        for task in tasks {
            answers.push(task.await.expect("joins"));
        }
        answers
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_issuer_is_asked_once_however_many_tokens_wait() {
    let fixture = Arc::new(fixture(true));
    let tokens = (0..200).map(|n| fixture.made_up_token(n)).collect();
    let answers = fixture.flood(tokens).await;
    for (status, challenge) in &answers {
        assert_eq!(*status, 401);
        assert!(challenge.contains("cannot be read now"), "{challenge}");
    }
    // One read (its two metadata addresses), or two if the flood outlasted
    // the first second of back-off: not one a token.
    let asked = fixture.issuer.metadata_reads();
    assert!(
        (1..=4).contains(&asked),
        "the issuer was asked {asked} times"
    );
    assert_eq!(fixture.issuer.key_reads(), 0);
    // The issuer comes back: once the back-off has passed, a valid token
    // is verified, and the back-off is forgotten.
    fixture.issuer.fail(false);
    let token = fixture.valid_token();
    let mut tries = 0;
    loop {
        tries += 1;
        let (status, _) = fixture.list(&token).await;
        if status == 200 {
            break;
        }
        assert!(
            tries < 40,
            "a valid token was still refused after {tries} tries"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(fixture.issuer.key_reads(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_token_is_not_held_behind_a_slow_read_of_the_keys() {
    let fixture = Arc::new(fixture(false));
    let token = fixture.valid_token();
    assert_eq!(fixture.list(&token).await.0, 200);
    assert_eq!(fixture.issuer.key_reads(), 1);
    // A made-up key makes the keys be read again, slowly.
    fixture.issuer.slow_keys(3000);
    let made_up = fixture.made_up_token(0);
    let garbage = {
        let fixture = fixture.clone();
        tokio::spawn(async move { fixture.list(&made_up).await })
    };
    for _ in 0..100 {
        if fixture.issuer.key_reads_in_flight() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fixture.issuer.key_reads_in_flight(), 1, "the read started");
    // The valid token is answered while that read still runs.
    assert_eq!(fixture.list(&token).await.0, 200);
    assert_eq!(
        fixture.issuer.key_reads_in_flight(),
        1,
        "answered meanwhile"
    );
    let (status, challenge) = garbage.await.expect("joins");
    assert_eq!(status, 401);
    assert!(challenge.contains("does not publish"), "{challenge}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_backs_off_from_a_failing_issuer() {
    let fixture = Arc::new(fixture(false));
    fixture.issuer.issue_opaque(
        "opaque-good",
        json!({"iss": fixture.issuer_url, "aud": RESOURCE, "client_id": "finance-app", "exp": now() + 300}),
    );
    assert_eq!(fixture.list("opaque-good").await.0, 200);
    let before = fixture.issuer.introspections();
    fixture.issuer.fail(true);
    let tokens = (0..60).map(|n| format!("opaque-made-up-{n}")).collect();
    let answers = fixture.flood(tokens).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 401),
        "{answers:?}"
    );
    // At most eight at once, then the issuer is left alone: one wave, or
    // two if the flood outlasted the first second.
    let asked = fixture.issuer.introspections() - before;
    assert!(
        (1..=16).contains(&asked),
        "{asked} introspections for 60 tokens"
    );
}
