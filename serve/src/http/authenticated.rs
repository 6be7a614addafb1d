//! Who is calling: the `Host`/`Origin` guard every request passes, and the
//! [`Authenticated`] extractor that authenticates a request as one client
//! application, written once for every handler.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use toolschema_catalog::{ClientView, Denial, Snapshot};

use super::refusal;
use crate::service::Service;

/// The host of an authority (`host[:port]`, `[v6]:port`), if it is one: no
/// user information, a port (when there is a colon) of one to five digits
/// from 1 to 65535, a host of the characters a host may have.
fn host_of(authority: &str) -> Option<&str> {
    let (host, port, v6) = match authority.strip_prefix('[') {
        Some(rest) => {
            let (v6, after) = rest.split_once(']')?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':')?),
            };
            (v6, port, true)
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port), false),
            None => (authority, None, false),
        },
    };
    // A colon with no port after it (`127.0.0.1:`) is no authority a
    // client sends: refused like any other malformed one.
    let port_ok = port.is_none_or(|port| {
        (1..=5).contains(&port.len())
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u16>().is_ok_and(|port| port > 0)
    });
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || (v6 && b == b':'));
    (port_ok && host_ok).then_some(host)
}

fn host_allowed(service: &Service, host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1")
        || service
            .options
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
}

/// The authority a request is addressed to: the request target's, when it
/// is in absolute form (which then overrides `Host`, RFC 9112), else the one
/// `Host` header. Two `Host` headers, or one that is not an authority, are
/// none.
fn addressed_host(request: &Request) -> Option<&str> {
    if let Some(authority) = request.uri().authority() {
        return host_of(authority.as_str());
    }
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let (host, extra) = (hosts.next()?, hosts.next());
    if extra.is_some() {
        return None;
    }
    host_of(host.to_str().ok()?)
}

/// The refusal of a request whose `Host` (or absolute target) or `Origin`
/// names a host that is not served, against DNS rebinding.
pub(super) fn host_refusal(service: &Service, request: &Request) -> Option<Response> {
    if !addressed_host(request).is_some_and(|h| host_allowed(service, h)) {
        return Some(refusal(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this Host is not served; the server accepts it only when started with it as an allowed host",
        ));
    }
    let mut origins = request.headers().get_all(header::ORIGIN).iter();
    if let Some(origin) = origins.next() {
        let origin = origin.to_str().unwrap_or("");
        let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
        let allowed = origins.next().is_none()
            && host_of(authority).is_some_and(|h| host_allowed(service, h));
        if !allowed {
            return Some(refusal(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from this Origin are refused",
            ));
        }
    }
    None
}

/// The client application a request is authenticated as, with the snapshot
/// it was found in. Without a catalog configuration (open mode) every
/// request is the one open client; with one, a request without a key is
/// the `keyless_client`, if the configuration names one.
#[derive(Debug, Clone)]
pub(super) struct Authenticated {
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) view: Arc<ClientView>,
    /// How it authenticated, to tell later whether it still does.
    pub(super) credential: Credential,
}

/// What a request authenticated with.
#[derive(Clone)]
pub(super) enum Credential {
    /// Open mode: no configuration, no key.
    Open,
    /// No key: the configuration's keyless client.
    Keyless,
    /// An API key.
    Key(Arc<str>),
    /// A verified access token: its client id, scopes, and expiry.
    #[cfg(feature = "oauth")]
    Token {
        client: Arc<str>,
        scopes: Arc<[String]>,
        expires: std::time::SystemTime,
    },
}

impl core::fmt::Debug for Credential {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Credential::Open => "Open",
            Credential::Keyless => "Keyless",
            Credential::Key(_) => "Key(..)",
            #[cfg(feature = "oauth")]
            Credential::Token { .. } => "Token(..)",
        })
    }
}

impl Credential {
    /// Whether, in `snapshot`, this credential still authenticates as
    /// `client`: after a reload that revoked its key (or its client, or the
    /// keyless client), it does not.
    pub(super) fn still_names(&self, snapshot: &Snapshot, client: &str) -> bool {
        let view = match self {
            Credential::Open if !snapshot.is_governed() => snapshot.keyless_client(),
            Credential::Open => None,
            Credential::Keyless => snapshot.keyless_client(),
            Credential::Key(key) => snapshot.client_by_key(key),
            // A token stops naming its client when it expires, or when a
            // reload takes its client id or the authorization away.
            #[cfg(feature = "oauth")]
            Credential::Token {
                client, expires, ..
            } => snapshot
                .authorization()
                .and_then(|_| snapshot.client_by_token(client))
                .filter(|_| std::time::SystemTime::now() < *expires),
        };
        view.is_some_and(|view| view.id() == client)
    }

    /// `view` as this credential may use it: narrowed to a token's scopes.
    pub(super) fn narrow(&self, snapshot: &Snapshot, view: Arc<ClientView>) -> Arc<ClientView> {
        match self {
            #[cfg(feature = "oauth")]
            Credential::Token { scopes, .. } => {
                let held: Vec<&str> = scopes.iter().map(String::as_str).collect();
                snapshot.view_for_scopes(&view, &held)
            }
            _ => {
                let _ = snapshot;
                view
            }
        }
    }
}

impl Authenticated {
    /// The scopes of the caller's access token, when it sent one.
    pub(super) fn token_scopes(&self) -> Option<&Arc<[String]>> {
        match &self.credential {
            #[cfg(feature = "oauth")]
            Credential::Token { scopes, .. } => Some(scopes),
            _ => None,
        }
    }

    /// The `403 insufficient_scope` answer to a call that `denial`
    /// refuses, its challenge naming the scopes to ask for (RFC 6750
    /// §3.1), for MCP and REST alike.
    pub(super) fn denied(&self, denial: &Denial) -> Response {
        let scope = denial.scopes().join(" ");
        let mut response = refusal(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            &denial.to_string(),
        );
        let mut challenge =
            format!(r#"Bearer realm="mcp", error="insufficient_scope", scope="{scope}""#);
        #[cfg(feature = "oauth")]
        if let Some(authorization) = self.snapshot.authorization() {
            challenge.push_str(&format!(
                r#", resource_metadata="{}""#,
                crate::oauth::metadata_url(authorization.resource())
            ));
        }
        challenge.push_str(r#", error_description="the token lacks scopes this tool needs""#);
        if let Ok(value) = header::HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// What a request says about its credentials.
#[derive(Debug, PartialEq, Eq)]
enum Credentials<'a> {
    /// None: the keyless client, if any.
    None,
    /// One key, however many headers agree on it.
    Key(&'a str),
    /// Something that cannot be one client's key: refused with a reason.
    Unusable(&'static str),
}

/// The API key a request carries: `Authorization: Bearer <key>` (the
/// scheme in any case, RFC 9110) or `X-API-Key: <key>`. Two headers of a
/// kind, two different keys, another scheme or a blank key are unusable:
/// a request is one client or none.
fn credentials(headers: &HeaderMap) -> Credentials<'_> {
    let mut authorization = headers.get_all(header::AUTHORIZATION).iter();
    let mut api_key = headers.get_all("x-api-key").iter();
    let (bearer, extra_authorization) = (authorization.next(), authorization.next());
    let (keyed, extra_key) = (api_key.next(), api_key.next());
    if extra_authorization.is_some() || extra_key.is_some() {
        return Credentials::Unusable(
            "send one credential: the request has two of the same header",
        );
    }
    let bearer = match bearer.map(|value| value.to_str().map(str::trim)) {
        None => None,
        Some(Err(_)) => return Credentials::Unusable("the Authorization header is not text"),
        Some(Ok(value)) => match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => Some(token.trim()),
            _ => {
                return Credentials::Unusable(
                    "only the Bearer scheme is accepted: `Authorization: Bearer <key>`",
                );
            }
        },
    };
    let keyed = match keyed.map(|value| value.to_str().map(str::trim)) {
        None => None,
        Some(Err(_)) => return Credentials::Unusable("the X-API-Key header is not text"),
        Some(Ok(value)) => Some(value),
    };
    match (bearer, keyed) {
        (None, None) => Credentials::None,
        (Some(""), _) | (_, Some("")) => Credentials::Unusable("the key is blank"),
        (Some(a), Some(b)) if a != b => Credentials::Unusable(
            "the Authorization and X-API-Key headers carry different keys; send one",
        ),
        (Some(key), _) | (None, Some(key)) => Credentials::Key(key),
    }
}

/// A 401 with its `WWW-Authenticate` challenge (RFC 6750): `invalid_token`
/// when a credential was sent and is not usable; with where the protected
/// resource metadata is (RFC 9728) when access tokens are accepted.
fn unauthorized(message: &str, sent: bool, snapshot: &Snapshot) -> Response {
    let mut response = refusal(StatusCode::UNAUTHORIZED, "unauthorized", message);
    let mut challenge = String::from(r#"Bearer realm="mcp""#);
    if sent {
        challenge.push_str(r#", error="invalid_token""#);
    }
    #[cfg(feature = "oauth")]
    if let Some(authorization) = snapshot.authorization() {
        challenge.push_str(&format!(
            r#", resource_metadata="{}""#,
            crate::oauth::metadata_url(authorization.resource())
        ));
        if sent
            && message
                .bytes()
                .all(|b| b != b'"' && b != b'\\' && b.is_ascii())
        {
            challenge.push_str(&format!(r#", error_description="{message}""#));
        }
    }
    let _ = snapshot;
    if let Ok(value) = header::HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Whether the request's query carries an access token, which is refused
/// wherever it comes (OAuth 2.1 §5.2.2: tokens in URLs end up in logs).
fn token_in_query(parts: &Parts) -> bool {
    parts.uri.query().is_some_and(|query| {
        query.split('&').any(|pair| {
            pair.split('=')
                .next()
                .is_some_and(|k| k.eq_ignore_ascii_case("access_token"))
        })
    })
}

/// `GET /.well-known/oauth-protected-resource[/path]`: the protected
/// resource metadata (RFC 9728), when access tokens are accepted.
#[cfg(feature = "oauth")]
pub(super) async fn resource_metadata(
    axum::extract::State(service): axum::extract::State<Arc<Service>>,
    request: Request,
) -> Response {
    let snapshot = service.catalog.snapshot();
    let Some(authorization) = snapshot.authorization() else {
        return refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "this server accepts no access tokens",
        );
    };
    let path = request.uri().path();
    let own = crate::oauth::metadata_path(authorization.resource());
    if path != own && path != "/.well-known/oauth-protected-resource" {
        return refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "no protected resource is described here",
        );
    }
    let name = snapshot.server().map(|server| server.name());
    super::json_response(
        StatusCode::OK,
        crate::oauth::metadata(authorization, name).to_string(),
    )
}

/// The caller a verified access token names.
#[cfg(feature = "oauth")]
async fn token_caller(
    service: &Service,
    snapshot: Arc<Snapshot>,
    token: &str,
) -> Result<Authenticated, Response> {
    let Some(authorization) = snapshot.authorization() else {
        return Err(unauthorized(
            "access tokens are not accepted",
            true,
            &snapshot,
        ));
    };
    let verified = match service.tokens.verify(token, authorization).await {
        Ok(verified) => verified,
        Err(refused) => return Err(unauthorized(&refused.0, true, &snapshot)),
    };
    let Some(view) = snapshot.client_by_token(&verified.client).cloned() else {
        tracing::info!(client = %verified.client, "a valid token names no configured client");
        return Err(unauthorized(
            "the token's client is not a client of this server",
            true,
            &snapshot,
        ));
    };
    if authorization.tenant_claim().is_some() && verified.tenant.as_deref() != Some(view.tenant()) {
        return Err(unauthorized(
            "the token's tenant is not its client's",
            true,
            &snapshot,
        ));
    }
    let credential = Credential::Token {
        client: verified.client.into(),
        scopes: verified.scopes,
        expires: verified.expires,
    };
    let view = credential.narrow(&snapshot, view);
    Ok(Authenticated {
        snapshot,
        view,
        credential,
    })
}

impl FromRequestParts<Arc<Service>> for Authenticated {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        service: &Arc<Service>,
    ) -> Result<Authenticated, Response> {
        let snapshot = service.catalog.snapshot();
        if !snapshot.is_governed() {
            // Open mode: no keys, whatever a client sends.
            if let Some(view) = snapshot.keyless_client().cloned() {
                return Ok(Authenticated {
                    snapshot,
                    view,
                    credential: Credential::Open,
                });
            }
        }
        if token_in_query(parts) {
            let mut response = refusal(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "an access token is never accepted in the URL; send it as `Authorization: Bearer <token>`",
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static(r#"Bearer realm="mcp", error="invalid_request""#),
            );
            return Err(response);
        }
        let (view, credential) = match credentials(&parts.headers) {
            #[cfg(feature = "oauth")]
            Credentials::Key(token)
                if snapshot.authorization().is_some() && crate::oauth::is_jwt(token) =>
            {
                return token_caller(service, snapshot, token).await;
            }
            Credentials::Key(key) => {
                let view = snapshot.client_by_key(key).cloned();
                // Not an API key: an opaque access token, if the
                // authorization server can be asked about it.
                #[cfg(feature = "oauth")]
                if view.is_none()
                    && snapshot
                        .authorization()
                        .is_some_and(|a| a.introspection().is_some())
                {
                    return token_caller(service, snapshot, key).await;
                }
                (view, Credential::Key(key.into()))
            }
            Credentials::None => (snapshot.keyless_client().cloned(), Credential::Keyless),
            Credentials::Unusable(why) => return Err(unauthorized(why, true, &snapshot)),
        };
        let sent = matches!(credential, Credential::Key(_));
        match view {
            Some(view) => Ok(Authenticated {
                snapshot,
                view,
                credential,
            }),
            None => Err(unauthorized(
                "send a valid API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`",
                sent,
                &snapshot,
            )),
        }
    }
}
