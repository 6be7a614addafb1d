//! Who is calling: the `Host`/`Origin` guard every request passes, and the
//! [`Caller`] extractor that authenticates a request as one client
//! application, written once for every handler.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use toolschema_runtime::catalog::{ClientView, Snapshot};

use super::refusal;
use crate::service::Service;

/// The host part of `host[:port]` or `[v6]:port`.
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host)
}

fn host_allowed(service: &Service, host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1")
        || service.options.allowed_hosts.iter().any(|h| h == host)
}

/// Refuses requests whose `Host` or `Origin` names a host that is not
/// served, against DNS rebinding.
pub(super) async fn guard_host(
    State(service): State<Arc<Service>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(host_of);
    if !host.is_some_and(|h| host_allowed(&service, h)) {
        return refusal(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this Host is not served; the server accepts it only when started with it as an allowed host",
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
        if !host_allowed(&service, host_of(authority)) {
            return refusal(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from this Origin are refused",
            );
        }
    }
    next.run(request).await
}

/// The client application a request is authenticated as, with the snapshot
/// it was found in. Without a catalog configuration (open mode) every
/// request is the one open client; with one, a request without a key is
/// the `keyless_client`, if the configuration names one.
#[derive(Debug, Clone)]
pub(super) struct Caller {
    pub(super) snapshot: Arc<Snapshot>,
    pub(super) view: Arc<ClientView>,
}

/// The API key a request carries: `Authorization: Bearer <key>` or
/// `X-API-Key: <key>`.
fn api_key(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| headers.get("x-api-key").and_then(|v| v.to_str().ok()))
}

impl FromRequestParts<Arc<Service>> for Caller {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        service: &Arc<Service>,
    ) -> Result<Caller, Response> {
        let snapshot = service.catalog.snapshot();
        let view = match api_key(&parts.headers) {
            Some(key) => snapshot.client_by_key(key.trim()).cloned(),
            None => snapshot.keyless_client().cloned(),
        };
        match view {
            Some(view) => Ok(Caller { snapshot, view }),
            None => Err(refusal(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "send a valid API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`",
            )),
        }
    }
}
