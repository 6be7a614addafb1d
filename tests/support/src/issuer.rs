//! An authorization server's part for tests and benchmarks: P-256 signing
//! keys generated on the spot, tokens signed with them, and the issuer's
//! metadata (RFC 8414) and key set served over loopback.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// A signing key of the issuer: its id, its private key (PKCS #8) and its
/// public JWK.
pub struct SigningKey {
    kid: String,
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl SigningKey {
    /// A new P-256 key named `kid`.
    pub fn generate(kid: &str) -> SigningKey {
        let document =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .expect("a P-256 key");
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, document.as_ref())
            .expect("the key reads back");
        // An uncompressed point: 0x04, then x and y.
        let point = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        SigningKey {
            kid: kid.to_owned(),
            pkcs8: document.as_ref().to_vec(),
            jwk,
        }
    }

    /// A JWT of `claims`, signed with ES256 and naming this key.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_der(&self.pkcs8))
            .expect("signs")
    }
}

/// The issuer: its published keys, and how often they were read.
#[derive(Default)]
pub struct Issuer {
    url: Mutex<String>,
    keys: Mutex<Vec<Value>>,
    reads: AtomicUsize,
    /// Opaque tokens and what introspection says of each.
    opaque: Mutex<Vec<(String, Value)>>,
    introspections: AtomicUsize,
    /// Introspections being answered now, and the most there were at once.
    answering: AtomicUsize,
    most_at_once: AtomicUsize,
    /// How long each introspection takes, in milliseconds.
    slowness: AtomicUsize,
    /// Whether every document and introspection answers 503.
    failing: std::sync::atomic::AtomicBool,
    /// How long each key set read takes, in milliseconds.
    key_slowness: AtomicUsize,
    /// Requests of its metadata, and key set reads being answered now.
    metadata_reads: AtomicUsize,
    reading_keys: AtomicUsize,
}

/// The client credentials the issuer takes at its introspection endpoint:
/// `introspector` and, as password, the value of `CARGO_PKG_NAME` (which
/// Cargo puts in the environment of the tests it runs), so that a test
/// names that variable as the secret's without setting any.
const INTROSPECTOR: &str = "introspector";

/// 503 while the issuer fails.
fn unavailable() -> (axum::http::StatusCode, String) {
    (axum::http::StatusCode::SERVICE_UNAVAILABLE, "{}".to_owned())
}

async fn metadata(State(issuer): State<Arc<Issuer>>) -> (axum::http::StatusCode, String) {
    issuer.metadata_reads.fetch_add(1, Ordering::SeqCst);
    if issuer.failing.load(Ordering::SeqCst) {
        return unavailable();
    }
    let url = issuer.url.lock().expect("url").clone();
    let document = json!({
        "issuer": url,
        "jwks_uri": format!("{url}/jwks"),
        "introspection_endpoint": format!("{url}/introspect"),
        "token_endpoint": format!("{url}/token"),
        "response_types_supported": ["code"],
    });
    (axum::http::StatusCode::OK, document.to_string())
}

/// RFC 7662: what the issuer knows of a token, to a client that
/// authenticates as the introspector.
async fn introspect(
    State(issuer): State<Arc<Issuer>>,
    headers: axum::http::HeaderMap,
    body: String,
) -> (axum::http::StatusCode, String) {
    issuer.introspections.fetch_add(1, Ordering::SeqCst);
    if issuer.failing.load(Ordering::SeqCst) {
        return unavailable();
    }
    let now = issuer.answering.fetch_add(1, Ordering::SeqCst) + 1;
    issuer.most_at_once.fetch_max(now, Ordering::SeqCst);
    let slowness = issuer.slowness.load(Ordering::SeqCst) as u64;
    if slowness > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(slowness)).await;
    }
    issuer.answering.fetch_sub(1, Ordering::SeqCst);
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!(
            "{INTROSPECTOR}:{}",
            std::env::var("CARGO_PKG_NAME").unwrap_or_default()
        ))
    );
    let authorized = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == expected);
    if !authorized {
        return (axum::http::StatusCode::UNAUTHORIZED, "{}".to_owned());
    }
    let token = body
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .unwrap_or_default()
        .to_owned();
    let opaque = issuer.opaque.lock().expect("opaque");
    let answer = opaque
        .iter()
        .find(|(t, _)| *t == token)
        .map_or_else(|| json!({"active": false}), |(_, claims)| claims.clone());
    (axum::http::StatusCode::OK, answer.to_string())
}

async fn jwks(State(issuer): State<Arc<Issuer>>) -> (axum::http::StatusCode, String) {
    issuer.reads.fetch_add(1, Ordering::SeqCst);
    issuer.reading_keys.fetch_add(1, Ordering::SeqCst);
    let slowness = issuer.key_slowness.load(Ordering::SeqCst) as u64;
    if slowness > 0 {
        tokio::time::sleep(std::time::Duration::from_millis(slowness)).await;
    }
    issuer.reading_keys.fetch_sub(1, Ordering::SeqCst);
    if issuer.failing.load(Ordering::SeqCst) {
        return unavailable();
    }
    let keys = json!({"keys": *issuer.keys.lock().expect("keys")});
    (axum::http::StatusCode::OK, keys.to_string())
}

impl Issuer {
    /// Starts an issuer on a free loopback port, publishing `keys`; it and
    /// its URL (its `iss`).
    pub fn start(keys: &[&SigningKey]) -> (Arc<Issuer>, String) {
        let issuer = Arc::new(Issuer::default());
        *issuer.keys.lock().expect("keys") = keys.iter().map(|k| k.jwk.clone()).collect();
        let app = Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", axum::routing::post(introspect))
            .with_state(issuer.clone());
        let address = serve_in_thread(app);
        let url = format!("http://127.0.0.1:{}", address.port());
        *issuer.url.lock().expect("url") = url.clone();
        (issuer, url)
    }

    /// Publishes `key` beside the keys published so far (a rotation).
    pub fn publish(&self, key: &SigningKey) {
        self.keys.lock().expect("keys").push(key.jwk.clone());
    }

    /// Issues the opaque token `token`, which introspection answers with
    /// `claims` (`active` added).
    pub fn issue_opaque(&self, token: &str, mut claims: Value) {
        claims["active"] = json!(true);
        self.opaque
            .lock()
            .expect("opaque")
            .push((token.to_owned(), claims));
    }

    /// The client id its introspection endpoint takes.
    pub fn introspector(&self) -> &'static str {
        INTROSPECTOR
    }

    /// Makes each introspection take `millis` milliseconds.
    pub fn slow_down(&self, millis: usize) {
        self.slowness.store(millis, Ordering::SeqCst);
    }

    /// The most introspection requests it was answering at once.
    pub fn most_introspections_at_once(&self) -> usize {
        self.most_at_once.load(Ordering::SeqCst)
    }

    /// How many introspection requests it answered.
    pub fn introspections(&self) -> usize {
        self.introspections.load(Ordering::SeqCst)
    }

    /// How many times its key set was read.
    pub fn key_reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// Makes every document and introspection answer 503 (`true`), or
    /// answer again (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Makes each read of the key set take `millis` milliseconds.
    pub fn slow_keys(&self, millis: usize) {
        self.key_slowness.store(millis, Ordering::SeqCst);
    }

    /// How many times its metadata was asked for.
    pub fn metadata_reads(&self) -> usize {
        self.metadata_reads.load(Ordering::SeqCst)
    }

    /// How many reads of its key set it is answering now.
    pub fn key_reads_in_flight(&self) -> usize {
        self.reading_keys.load(Ordering::SeqCst)
    }
}

/// Serves `router` on a free loopback port from a thread of its own (with
/// a runtime of its own, so it answers whatever the caller's runtime is
/// doing); its address, once it listens.
pub fn serve_in_thread(router: Router) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let address = listener.local_addr().expect("address");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, router).await.expect("serves");
        });
    });
    address
}
