//! The `[authorization]` section: access tokens issued by an OAuth 2.1
//! authorization server, which the serving library verifies as a resource
//! server (the MCP authorization specification), and the scope words
//! toolsets require.

use crate::location::{ConfigLocation, Section};
use std::time::Duration;

use super::errors::Problems;
use crate::sections::AuthorizationSection;

/// The signature algorithms an access token may be signed with: public-key
/// algorithms only (a shared-secret HMAC is refused, and so is `none`).
pub const ALGORITHMS: [&str; 9] = [
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

/// How far a token's `exp` and `nbf` may be off at most, whatever is
/// configured.
const MAX_LEEWAY: Duration = Duration::from_secs(300);

/// The `[authorization]` section, checked: whose tokens are accepted, for
/// which resource, and how a token names its client application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    issuer: String,
    resource: String,
    jwks_uri: Option<String>,
    algorithms: Vec<String>,
    client_claims: Vec<String>,
    tenant_claim: Option<String>,
    leeway: Duration,
    scopes_supported: Vec<String>,
    introspection: Option<Introspection>,
}

/// How opaque access tokens are checked: by asking the authorization
/// server (RFC 7662), as a client of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introspection {
    endpoint: Option<String>,
    client_id: String,
    secret_env: String,
}

impl Introspection {
    /// The introspection endpoint, when configured rather than read from
    /// the issuer's metadata (`introspection_endpoint`).
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// The client id this server authenticates to it with.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The environment variable that holds this server's client secret
    /// (never the secret itself).
    pub fn secret_env(&self) -> &str {
        &self.secret_env
    }
}

impl Authorization {
    /// The authorization server's issuer identifier: tokens' `iss`, and
    /// where its metadata is found.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// This server's canonical URI (RFC 8707): the audience (`aud`) a
    /// token must name, and the `resource` of its protected resource
    /// metadata.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the issuer's signing keys are, when configured rather than
    /// read from the issuer's metadata.
    pub fn jwks_uri(&self) -> Option<&str> {
        self.jwks_uri.as_deref()
    }

    /// The signature algorithms accepted (`alg`).
    pub fn algorithms(&self) -> impl Iterator<Item = &str> {
        self.algorithms.iter().map(String::as_str)
    }

    /// The claims that name a token's client application, tried in order
    /// (`client_id`, then `azp`, unless configured).
    pub fn client_claims(&self) -> impl Iterator<Item = &str> {
        self.client_claims.iter().map(String::as_str)
    }

    /// The claim that names a token's tenant, checked against its client
    /// application's, if configured.
    pub fn tenant_claim(&self) -> Option<&str> {
        self.tenant_claim.as_deref()
    }

    /// How far `exp` and `nbf` may be off (at most five minutes).
    pub fn leeway(&self) -> Duration {
        self.leeway
    }

    /// The scopes advertised in the protected resource metadata: those
    /// configured, else every scope a toolset requires.
    pub fn scopes_supported(&self) -> &[String] {
        &self.scopes_supported
    }

    /// How opaque (non-JWT) access tokens are checked, if they are
    /// accepted: by RFC 7662 introspection.
    pub fn introspection(&self) -> Option<&Introspection> {
        self.introspection.as_ref()
    }

    pub(super) fn with_scopes(mut self, scopes: impl Iterator<Item = String>) -> Authorization {
        if self.scopes_supported.is_empty() {
            let mut all: Vec<String> = scopes.collect();
            all.sort_unstable();
            all.dedup();
            self.scopes_supported = all;
        }
        self
    }
}

/// Whether `url` is an absolute `https` URL, or `http` on a loopback host
/// (for development), without a fragment.
fn is_server_url(url: &str) -> bool {
    let rest = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
        (Some(rest), _) => rest,
        (None, Some(rest)) => {
            let host = rest.split(['/', '?']).next().unwrap_or("");
            let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
            if !matches!(host, "localhost" | "127.0.0.1" | "[::1]") {
                return false;
            }
            rest
        }
        (None, None) => return false,
    };
    !rest.is_empty()
        && !rest.starts_with('/')
        && !url.contains('#')
        && !url.contains(char::is_whitespace)
}

/// Whether `word` is a scope token (RFC 6749 §3.3): printable ASCII but
/// space, `"` and `\`.
pub(super) fn is_scope(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
}

pub(super) fn check_authorization(
    raw: &AuthorizationSection,
    p: &mut Problems<'_>,
) -> Authorization {
    let url = |value: &String, key: &str, p: &mut Problems<'_>| {
        let url = value;
        if !is_server_url(url) {
            p.at(
                authorization_key(key),
                format!("`{url}` is not a URL a resource server can rely on: write an absolute `https://` URL without a fragment (`http://` only on localhost, for development)"),
            );
        }
        url.clone()
    };
    let issuer = url(&raw.issuer, "issuer", p);
    let resource = url(&raw.resource, "resource", p);
    let jwks_uri = raw.jwks_uri.as_ref().map(|uri| url(uri, "jwks_uri", p));
    let mut algorithms = Vec::new();
    for (i, word) in raw.algorithms.iter().enumerate() {
        let name = word;
        if ALGORITHMS.contains(&name.as_str()) {
            algorithms.push(name.clone());
            continue;
        }
        let why = if name.eq_ignore_ascii_case("none") {
            "an unsigned token proves nothing".to_owned()
        } else if name.to_ascii_uppercase().starts_with("HS") {
            "an HMAC key is a shared secret, so anyone who can verify a token could also forge one"
                .to_owned()
        } else {
            format!("it is not one of {}", ALGORITHMS.join(", "))
        };
        p.at(
            authorization_key("algorithms").item(i),
            format!(
                "`{name}` is refused: {why}; use a public-key algorithm such as RS256 or ES256"
            ),
        );
    }
    if raw.algorithms.is_empty() {
        algorithms = ALGORITHMS.iter().map(|a| (*a).to_owned()).collect();
    }
    let claim = |value: &String, key: &str, p: &mut Problems<'_>| {
        let name = value;
        if name.trim().is_empty() {
            p.at(
                authorization_key(key),
                "the claim name is blank; name the token claim that holds the value",
            );
        }
        name.clone()
    };
    let client_claims = match &raw.client_claim {
        Some(name) => vec![claim(name, "client_claim", p)],
        None => vec!["client_id".to_owned(), "azp".to_owned()],
    };
    let tenant_claim = raw
        .tenant_claim
        .as_ref()
        .map(|name| claim(name, "tenant_claim", p));
    let leeway = match &raw.leeway_seconds {
        None => Duration::from_secs(60),
        Some(seconds) => match u64::try_from(*seconds) {
            Ok(s) if Duration::from_secs(s) <= MAX_LEEWAY => Duration::from_secs(s),
            _ => {
                p.at(
                    authorization_key("leeway_seconds"),
                    format!("the leeway must be 0 to {} seconds", MAX_LEEWAY.as_secs()),
                );
                Duration::from_secs(60)
            }
        },
    };
    let mut scopes_supported = Vec::new();
    for (i, scope) in raw.scopes_supported.iter().enumerate() {
        if is_scope(scope) {
            scopes_supported.push(scope.clone());
        } else {
            p.at(
                authorization_key("scopes_supported").item(i),
                scope_problem(scope),
            );
        }
    }
    let introspection = match (&raw.introspection_client_id, &raw.introspection_secret_env) {
        (None, None) => {
            if raw.introspection_endpoint.is_some() {
                p.at(
                    authorization_key("introspection_endpoint"),
                    "introspection needs this server's client credentials: set `introspection_client_id` and `introspection_secret_env`",
                );
            }
            None
        }
        (Some(client_id), Some(secret_env)) => {
            let env = secret_env;
            let name_ok = !env.is_empty()
                && env.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !env.as_bytes()[0].is_ascii_digit();
            if !name_ok {
                p.at(
                    authorization_key("introspection_secret_env"),
                    format!("`{env}` is not an environment variable name: name the variable that holds the secret (letters, digits, `_`), never the secret itself"),
                );
            }
            if client_id.trim().is_empty() {
                p.at(
                    authorization_key("introspection_client_id"),
                    "the client id is blank",
                );
            }
            Some(Introspection {
                endpoint: raw
                    .introspection_endpoint
                    .as_ref()
                    .map(|endpoint| url(endpoint, "introspection_endpoint", p)),
                client_id: client_id.clone(),
                secret_env: env.clone(),
            })
        }
        (Some(_), None) | (None, Some(_)) => {
            p.at(
                if raw.introspection_client_id.is_some() {
                    authorization_key("introspection_client_id")
                } else {
                    authorization_key("introspection_secret_env")
                },
                "introspection needs both `introspection_client_id` and `introspection_secret_env`",
            );
            None
        }
    };
    Authorization {
        issuer,
        resource,
        jwks_uri,
        algorithms,
        client_claims,
        tenant_claim,
        leeway,
        scopes_supported,
        introspection,
    }
}

pub(super) fn scope_problem(word: &str) -> String {
    format!(
        "`{word}` is not a scope: a scope is one word of printable ASCII without spaces, `\"` or `\\`"
    )
}

/// The field `field` of the `[authorization]` section.
fn authorization_key(field: &str) -> ConfigLocation {
    ConfigLocation::section_whole(Section::Authorization).field_of(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_urls_are_https_or_loopback_http() {
        assert!(is_server_url("https://mcp.example.com/mcp"));
        assert!(is_server_url("http://127.0.0.1:8080/mcp"));
        assert!(is_server_url("http://localhost:9000"));
        assert!(!is_server_url("http://mcp.example.com/mcp"));
        assert!(!is_server_url("https://mcp.example.com/mcp#frag"));
        assert!(!is_server_url("https:///mcp"));
        assert!(!is_server_url("mcp.example.com"));
    }

    #[test]
    fn scopes_are_printable_words() {
        assert!(is_scope("billing:read"));
        assert!(!is_scope("billing read"));
        assert!(!is_scope("a\"b"));
        assert!(!is_scope(""));
    }
}
