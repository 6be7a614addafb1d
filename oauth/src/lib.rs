//! The OAuth 2.1 resource server of the MCP authorization specification:
//! access tokens (JWTs) verified against the keys of the authorization
//! server the configuration names, and the protected resource metadata
//! (RFC 9728) that tells clients where to get one.
//!
//! A token is accepted when its signature verifies with one of the issuer's
//! published keys under an allowed public-key algorithm, its `iss` is the
//! issuer, its `aud` names this server's resource (RFC 8707), and `exp` and
//! `nbf` hold within the configured leeway. Its client id (`client_id`,
//! then `azp`, or the configured claim) must name a configured client
//! application, and its tenant claim, if configured, that client's tenant.
//! The keys are read from the issuer's metadata, cached, and read again
//! when a token names a key not seen yet (at most once every few seconds).
//! A token verified once is remembered (by its SHA-256) for a minute at
//! most, never past its expiry, and forgotten when the `[authorization]`
//! section changes: a client sends the same token call after call, and its
//! signature need not be checked each time. Opaque tokens are introspected
//! (RFC 7662), at most eight at a time.
//!
//! The issuer is read one request at a time (those waiting take that
//! read's outcome), and a failing issuer is left alone: after a failed
//! read of its keys or metadata, or a failed introspection, it is not
//! asked again for a second, doubling with each failure in a row up to a
//! minute, while tokens whose keys are known go on being verified and the
//! rest are refused at once.

#![cfg_attr(docsrs, feature(doc_cfg))]
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use toolschema_config::{Authorization, SecretSource};

/// How long keys are kept before they are read again.
const KEYS_FRESH: Duration = Duration::from_secs(3600);

/// How often, at most, a token naming an unknown key makes the keys be
/// read again.
const REFRESH_AT_MOST_EVERY: Duration = Duration::from_secs(5);

/// The largest metadata or key set document read.
const MAX_DOCUMENT: usize = 256 << 10;

/// How long a verified token is remembered at most.
const REMEMBERED_FOR: Duration = Duration::from_secs(60);

/// How many verified tokens are remembered at most.
const REMEMBERED_AT_MOST: usize = 10_000;

/// How many introspection requests may be in flight at once: a flood of
/// made-up opaque tokens reaches the authorization server no faster.
const INTROSPECTIONS_AT_ONCE: usize = 8;

/// After a failed read of the issuer's keys or metadata, or a failed
/// introspection, nothing is asked of the issuer for this long, doubled
/// with each failure in a row up to [`BACK_OFF_AT_MOST`].
const BACK_OFF_FIRST: Duration = Duration::from_secs(1);

/// The longest wait between two tries of a failing issuer.
const BACK_OFF_AT_MOST: Duration = Duration::from_secs(60);

/// How long the issuer has failed in a row, and until when it is left
/// alone.
#[derive(Debug, Default)]
struct BackOff(Mutex<Option<(u32, Instant)>>);

impl BackOff {
    /// Whether the issuer is being left alone now.
    fn waiting(&self) -> bool {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.is_some_and(|(_, until)| Instant::now() < until)
    }

    /// One more failure: leave the issuer alone for twice as long as last
    /// time (the first time, [`BACK_OFF_FIRST`]).
    fn failed(&self) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let failures = state.map_or(0, |(failures, _)| failures).saturating_add(1);
        let wait = BACK_OFF_FIRST
            .saturating_mul(1 << (failures - 1).min(16))
            .min(BACK_OFF_AT_MOST);
        *state = Some((failures, Instant::now() + wait));
    }

    fn succeeded(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Tokens verified lately, for the `[authorization]` section they were
/// verified under.
#[derive(Debug, Default)]
struct Remembered {
    under: Option<Authorization>,
    tokens: HashMap<[u8; 32], (Verified, Instant)>,
}

/// A verified access token: who it is, what it may do, until when.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The token's client id, as configured in `oauth_client_ids`.
    pub client: String,
    /// Its tenant claim, when the configuration names one.
    pub tenant: Option<String>,
    /// The scopes it grants.
    pub scopes: Arc<[String]>,
    /// When it expires.
    pub expires: SystemTime,
}

/// Why a token is refused (the `error_description` of the challenge).
#[derive(Debug)]
pub struct Refused(pub String);

/// The issuer's keys as last read.
#[derive(Debug)]
struct Keys {
    issuer: String,
    set: JwkSet,
    read: Instant,
}

/// Verifies access tokens; shared by every request.
#[derive(Debug)]
pub struct Verifier {
    http: reqwest::Client,
    keys: RwLock<Option<Arc<Keys>>>,
    /// Held while the keys are read, with when a token naming an unknown
    /// key last made them be read.
    reading: tokio::sync::Mutex<Option<Instant>>,
    /// The keys' reads failing in a row.
    keys_back_off: BackOff,
    /// The introspection endpoint the metadata named, for an issuer.
    endpoint: RwLock<Option<(String, String)>>,
    /// Held while the metadata is read for the introspection endpoint.
    finding_endpoint: tokio::sync::Mutex<()>,
    /// Introspections (and the metadata reads for their endpoint) failing
    /// in a row.
    introspection_back_off: BackOff,
    remembered: Mutex<Remembered>,
    introspecting: tokio::sync::Semaphore,
    /// Where the introspection client's secret is read.
    secrets: Secrets,
}

/// The application's source of secrets (its values never shown, not even
/// by `Debug`).
struct Secrets(Arc<dyn SecretSource>);

impl core::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Secrets")
    }
}

impl Verifier {
    /// A verifier reading the introspection client's secret from `secrets`.
    pub fn new(secrets: Arc<dyn SecretSource>) -> Verifier {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .connect_timeout(Duration::from_secs(3))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Verifier {
            http,
            keys: RwLock::new(None),
            reading: tokio::sync::Mutex::new(None),
            keys_back_off: BackOff::default(),
            endpoint: RwLock::new(None),
            finding_endpoint: tokio::sync::Mutex::new(()),
            introspection_back_off: BackOff::default(),
            remembered: Mutex::new(Remembered::default()),
            introspecting: tokio::sync::Semaphore::new(INTROSPECTIONS_AT_ONCE),
            secrets: Secrets(secrets),
        }
    }
}

/// Whether a bearer credential has the shape of a JWT (three base64url
/// parts), rather than an API key.
pub fn is_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let shaped = |part: Option<&str>| {
        part.is_some_and(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
    };
    shaped(parts.next()) && shaped(parts.next()) && shaped(parts.next()) && parts.next().is_none()
}

impl Verifier {
    /// Verifies `token` as `authorization` configures: remembered if it was
    /// verified lately, else checked in full.
    pub async fn verify(
        &self,
        token: &str,
        authorization: &Authorization,
    ) -> Result<Verified, Refused> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(verified) = self.recall(&digest, authorization) {
            return Ok(verified);
        }
        let verified = self.check(token, authorization).await?;
        let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        if remembered.tokens.len() >= REMEMBERED_AT_MOST {
            remembered
                .tokens
                .retain(|_, (_, at)| at.elapsed() < REMEMBERED_FOR);
            if remembered.tokens.len() >= REMEMBERED_AT_MOST {
                remembered.tokens.clear();
            }
        }
        remembered
            .tokens
            .insert(digest, (verified.clone(), Instant::now()));
        Ok(verified)
    }

    /// A token verified lately under the same section, still within its
    /// expiry (and leeway).
    fn recall(&self, digest: &[u8; 32], authorization: &Authorization) -> Option<Verified> {
        let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        if remembered.under.as_ref() != Some(authorization) {
            remembered.under = Some(authorization.clone());
            remembered.tokens.clear();
            return None;
        }
        let (verified, at) = remembered.tokens.get(digest)?;
        let fresh = at.elapsed() < REMEMBERED_FOR
            && SystemTime::now() < verified.expires + authorization.leeway();
        fresh.then(|| verified.clone())
    }

    /// Verifies `token` in full: a JWT against the issuer's keys, anything
    /// else by introspection.
    async fn check(&self, token: &str, authorization: &Authorization) -> Result<Verified, Refused> {
        if is_jwt(token) {
            self.check_jwt(token, authorization).await
        } else {
            self.introspect(token, authorization).await
        }
    }

    async fn check_jwt(
        &self,
        token: &str,
        authorization: &Authorization,
    ) -> Result<Verified, Refused> {
        let refused = |why: &str| Refused(why.to_owned());
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| refused("the token is not a signed JWT this server can read"))?;
        let allowed = authorization
            .algorithms()
            .filter_map(|name| Algorithm::from_str(name).ok())
            .any(|allowed| allowed == header.alg);
        if !allowed {
            return Err(Refused(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let kid = header.kid.as_deref();
        let keys = self.keys_with(kid, authorization).await?;
        let jwk = match kid {
            Some(kid) => keys.set.find(kid),
            // Without a `kid`, the one key of the set, if it is alone.
            None if keys.set.keys.len() == 1 => keys.set.keys.first(),
            None => None,
        }
        .ok_or_else(|| refused("the token is signed with a key the issuer does not publish"))?;
        // A key published for one algorithm is not used with another (both
        // are named alike: `RS256`, `ES256`, ...).
        if let Some(key_alg) = &jwk.common.key_algorithm
            && format!("{key_alg:?}") != format!("{:?}", header.alg)
        {
            return Err(refused("the token's algorithm is not its key's"));
        }
        let key = DecodingKey::from_jwk(jwk)
            .map_err(|_| refused("the issuer's key for this token cannot be used"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[authorization.issuer()]);
        validation.set_audience(&[authorization.resource()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = authorization.leeway().as_secs();
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| Refused(reason(error.kind()).to_owned()))?;
        verified(&data.claims, authorization)
    }

    /// The issuer's keys, read again when they are old, were read for
    /// another issuer, or lack `kid` (at most once every few seconds).
    async fn keys_with(
        &self,
        kid: Option<&str>,
        authorization: &Authorization,
    ) -> Result<Arc<Keys>, Refused> {
        let usable = |keys: &Keys| {
            keys.issuer == authorization.issuer()
                && keys.read.elapsed() < KEYS_FRESH
                && kid.is_none_or(|kid| keys.set.find(kid).is_some())
        };
        let cached = self.keys.read().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(keys) = &cached
            && usable(keys)
        {
            return Ok(keys.clone());
        }
        // A failing issuer is left alone: the keys last read, if they are
        // its own, else a refusal, at once.
        let unread = |cached: Option<Arc<Keys>>| match cached {
            Some(keys) if keys.issuer == authorization.issuer() => Ok(keys),
            _ => Err(Refused(
                "the authorization server's keys cannot be read now; try again later".into(),
            )),
        };
        if self.keys_back_off.waiting() {
            return unread(cached);
        }
        // One read at a time; those who waited for it take its outcome.
        let mut reading = self.reading.lock().await;
        let cached = self.keys.read().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(keys) = &cached
            && usable(keys)
        {
            return Ok(keys.clone());
        }
        if self.keys_back_off.waiting() {
            return unread(cached);
        }
        let fresh_enough = cached.as_ref().is_some_and(|keys| {
            keys.issuer == authorization.issuer() && keys.read.elapsed() < KEYS_FRESH
        });
        if fresh_enough {
            // A key not seen yet: read them again, unless an unknown key
            // did that a moment ago.
            if reading.is_some_and(|at| at.elapsed() < REFRESH_AT_MOST_EVERY) {
                return cached.ok_or_else(|| Refused("the issuer's keys are unavailable".into()));
            }
            *reading = Some(Instant::now());
        }
        match self.read_keys(authorization).await {
            Ok(set) => {
                self.keys_back_off.succeeded();
                let keys = Arc::new(Keys {
                    issuer: authorization.issuer().to_owned(),
                    set,
                    read: Instant::now(),
                });
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(keys.clone());
                Ok(keys)
            }
            Err(error) => {
                self.keys_back_off.failed();
                tracing::warn!(issuer = authorization.issuer(), %error, "cannot read the authorization server's keys");
                unread(cached)
            }
        }
    }

    /// Reads the issuer's key set: from `jwks_uri` if configured, else from
    /// the URI its metadata names.
    async fn read_keys(&self, authorization: &Authorization) -> Result<JwkSet, String> {
        let jwks_uri = match authorization.jwks_uri() {
            Some(uri) => uri.to_owned(),
            None => self.metadata_field(authorization, "jwks_uri").await?,
        };
        let set = self.document(&jwks_uri).await?;
        serde_json::from_value(set).map_err(|e| format!("{jwks_uri} is not a JWK set: {e}"))
    }

    /// The URL the issuer's metadata (RFC 8414, then OpenID Connect
    /// discovery) gives for `field`; the metadata's `issuer` must be the
    /// one configured.
    async fn metadata_field(
        &self,
        authorization: &Authorization,
        field: &str,
    ) -> Result<String, String> {
        for url in metadata_urls(authorization.issuer()) {
            let Ok(metadata) = self.document(&url).await else {
                continue;
            };
            if metadata.get("issuer").and_then(Value::as_str) != Some(authorization.issuer()) {
                return Err(format!("{url} names another issuer"));
            }
            return metadata
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("the issuer's metadata has no {field}"));
        }
        Err("the issuer publishes no metadata".to_owned())
    }

    /// Checks an opaque token by asking the authorization server (RFC
    /// 7662), authenticated as this server's own client.
    async fn introspect(
        &self,
        token: &str,
        authorization: &Authorization,
    ) -> Result<Verified, Refused> {
        let refused = |why: &str| Refused(why.to_owned());
        let Some(introspection) = authorization.introspection() else {
            return Err(refused(
                "the token is not a signed JWT this server can read",
            ));
        };
        let unavailable = || refused("the token cannot be checked now; try again later");
        // A failing issuer is left alone.
        if self.introspection_back_off.waiting() {
            return Err(unavailable());
        }
        let endpoint = match introspection.endpoint() {
            Some(endpoint) => endpoint.to_owned(),
            None => self
                .introspection_endpoint(authorization)
                .await
                .ok_or_else(unavailable)?,
        };
        // Waiting for a turn is bounded by the requests' own timeouts.
        let Ok(_turn) = self.introspecting.acquire().await else {
            return Err(unavailable());
        };
        if self.introspection_back_off.waiting() {
            return Err(unavailable());
        }
        let Some(secret) = self.secrets.0.secret(introspection.secret_env()) else {
            tracing::error!(
                variable = introspection.secret_env(),
                "the introspection secret is not set"
            );
            return Err(unavailable());
        };
        let body = form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let response = self
            .http
            .post(&endpoint)
            .basic_auth(introspection.client_id(), Some(secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| {
                tracing::warn!(%error, "introspection failed");
                self.introspection_back_off.failed();
                unavailable()
            })?;
        if !response.status().is_success() {
            tracing::warn!(status = %response.status(), "introspection refused");
            self.introspection_back_off.failed();
            return Err(unavailable());
        }
        let bytes = response.bytes().await.map_err(|_| unavailable())?;
        if bytes.len() > MAX_DOCUMENT {
            return Err(unavailable());
        }
        let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(&bytes) else {
            self.introspection_back_off.failed();
            return Err(unavailable());
        };
        self.introspection_back_off.succeeded();
        if claims.get("active") != Some(&Value::Bool(true)) {
            return Err(refused(
                "the authorization server says the token is not active",
            ));
        }
        if claims
            .get("iss")
            .and_then(Value::as_str)
            .is_some_and(|iss| iss != authorization.issuer())
        {
            return Err(refused(
                "the token was issued by another authorization server",
            ));
        }
        let for_us = match claims.get("aud") {
            Some(Value::String(aud)) => aud == authorization.resource(),
            Some(Value::Array(auds)) => auds
                .iter()
                .any(|a| a.as_str() == Some(authorization.resource())),
            _ => false,
        };
        if !for_us {
            return Err(refused("the token is for another resource"));
        }
        let leeway = authorization.leeway().as_secs();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        match claims.get("exp").and_then(Value::as_u64) {
            Some(exp) if exp + leeway > now => {}
            Some(_) => return Err(refused("the token has expired")),
            None => return Err(refused("the token lacks exp, iss or aud")),
        }
        verified(&claims, authorization)
    }

    /// The introspection endpoint the issuer's metadata names, read once
    /// (one read at a time) and kept for that issuer; `None` while it
    /// cannot be read (the failure backs introspection off).
    async fn introspection_endpoint(&self, authorization: &Authorization) -> Option<String> {
        let known = || {
            let endpoint = self.endpoint.read().unwrap_or_else(|e| e.into_inner());
            endpoint
                .as_ref()
                .filter(|(issuer, _)| issuer == authorization.issuer())
                .map(|(_, endpoint)| endpoint.clone())
        };
        if let Some(endpoint) = known() {
            return Some(endpoint);
        }
        let _finding = self.finding_endpoint.lock().await;
        if let Some(endpoint) = known() {
            return Some(endpoint);
        }
        if self.introspection_back_off.waiting() {
            return None;
        }
        match self
            .metadata_field(authorization, "introspection_endpoint")
            .await
        {
            Ok(endpoint) => {
                *self.endpoint.write().unwrap_or_else(|e| e.into_inner()) =
                    Some((authorization.issuer().to_owned(), endpoint.clone()));
                Some(endpoint)
            }
            Err(error) => {
                tracing::warn!(%error, "cannot find the introspection endpoint");
                self.introspection_back_off.failed();
                None
            }
        }
    }

    async fn document(&self, url: &str) -> Result<Value, String> {
        let response = self
            .http
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("{url}: status {}", response.status()));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT as u64)
        {
            return Err(format!("{url}: too large"));
        }
        let bytes = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
        if bytes.len() > MAX_DOCUMENT {
            return Err(format!("{url}: too large"));
        }
        serde_json::from_slice(&bytes).map_err(|e| format!("{url}: {e}"))
    }
}

/// What a token's claims (or an introspection answer) say: its client,
/// tenant, scopes and expiry.
fn verified(
    claims: &Map<String, Value>,
    authorization: &Authorization,
) -> Result<Verified, Refused> {
    let client = authorization
        .client_claims()
        .find_map(|claim| claims.get(claim).and_then(Value::as_str))
        .ok_or_else(|| Refused("the token names no client".to_owned()))?
        .to_owned();
    let tenant = authorization
        .tenant_claim()
        .and_then(|claim| claims.get(claim))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let expires = claims
        .get("exp")
        .and_then(Value::as_u64)
        .map_or(SystemTime::UNIX_EPOCH, |exp| {
            SystemTime::UNIX_EPOCH + Duration::from_secs(exp)
        });
    Ok(Verified {
        client,
        tenant,
        scopes: scopes_of(claims).into(),
        expires,
    })
}

/// Where an issuer's metadata may be: RFC 8414's well-known URI (inserted
/// before the issuer's path), then OpenID Connect's (appended).
fn metadata_urls(issuer: &str) -> [String; 2] {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = split_origin(trimmed);
    [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ]
}

/// `scheme://authority` and the path after it.
fn split_origin(url: &str) -> (&str, &str) {
    let start = url.find("://").map_or(0, |i| i + 3);
    match url[start..].find('/') {
        Some(i) => url.split_at(start + i),
        None => (url, ""),
    }
}

/// The URL of this server's protected resource metadata (RFC 9728 §3.1):
/// the well-known path inserted before the resource's path.
pub fn metadata_url(resource: &str) -> String {
    let (origin, path) = split_origin(resource.trim_end_matches('/'));
    format!("{origin}/.well-known/oauth-protected-resource{path}")
}

/// The path this server answers its metadata at.
pub fn metadata_path(resource: &str) -> String {
    let url = metadata_url(resource);
    split_origin(&url).1.to_owned()
}

/// The protected resource metadata document (RFC 9728 §2).
pub fn metadata(authorization: &Authorization, name: Option<&str>) -> Value {
    let mut document = json!({
        "resource": authorization.resource(),
        "authorization_servers": [authorization.issuer()],
        "bearer_methods_supported": ["header"],
        "resource_signing_alg_values_supported": authorization.algorithms().collect::<Vec<_>>(),
    });
    if !authorization.scopes_supported().is_empty() {
        document["scopes_supported"] = json!(authorization.scopes_supported());
    }
    if let Some(name) = name {
        document["resource_name"] = json!(name);
    }
    document
}

/// The token's scopes: `scope` (space-separated, RFC 9068) or `scp` (a
/// list or a string).
fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let words =
        |text: &str| -> Vec<String> { text.split_ascii_whitespace().map(str::to_owned).collect() };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => words(scope),
        (_, Some(Value::Array(list))) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(scp))) => words(scp),
        _ => Vec::new(),
    }
}

/// The challenge's description of a token `jsonwebtoken` refused.
fn reason(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet",
        ErrorKind::InvalidIssuer => "the token was issued by another authorization server",
        ErrorKind::InvalidAudience => "the token is for another resource",
        ErrorKind::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
        ErrorKind::InvalidSignature => "the token's signature does not verify",
        _ => "the token cannot be verified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_configurable_algorithm_is_known() {
        for algorithm in toolschema_config::ALGORITHMS {
            assert!(Algorithm::from_str(algorithm).is_ok(), "{algorithm}");
        }
    }

    #[test]
    fn metadata_urls_insert_the_well_known_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://mcp.example.com"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_path("http://127.0.0.1:8080/mcp"),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant".to_owned(),
                "https://as.example.com/tenant/.well-known/openid-configuration".to_owned(),
            ]
        );
    }

    #[test]
    fn jwts_are_told_from_api_keys() {
        assert!(is_jwt("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"));
        assert!(!is_jwt("sk-live-1234"));
        assert!(!is_jwt("a.b"));
        assert!(!is_jwt("a..c"));
        assert!(!is_jwt("a.b.c.d"));
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let claims = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(scopes_of(&claims(json!({"scope": "a b"}))), ["a", "b"]);
        assert_eq!(scopes_of(&claims(json!({"scp": ["a", "c"]}))), ["a", "c"]);
        assert!(scopes_of(&claims(json!({}))).is_empty());
    }
}
