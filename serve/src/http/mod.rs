//! Streamable HTTP and REST on one axum router.
//!
//! - `POST /mcp`: one JSON-RPC message, answered with one JSON response (202
//!   for a notification); `subscriptions/listen` (2026-07-28) is answered
//!   with a server-sent event stream: the acknowledgment, then
//!   `notifications/tools/list_changed` whenever the client's list changes.
//! - `GET /mcp`: the handshake era's server-to-client event stream, with the
//!   same change notices.
//! - `/v1/tools…`: REST (see the `rest` module).
//!
//! Every request passes the `Host`/`Origin` guard (loopback names, and
//! hosts allowed by the server) and is authenticated as one client
//! application by the `Caller` extractor (`Authorization: Bearer <key>` or
//! `X-API-Key: <key>`; no key in open mode).

mod body;
mod caller;
mod events;
mod rest;

use core::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::json;

use crate::error::ServeError;
use crate::mcp::{Answer, Headers, Incoming, LIST_CHANGED, Protocol, STATELESS_VERSION, Session};
use crate::service::Service;
use caller::Caller;
use events::{Stream, events};

/// The largest request body accepted: the 1 MiB argument limit plus room for
/// the JSON-RPC envelope.
const BODY_LIMIT: usize = (1 << 20) + (64 << 10);

impl Service {
    /// The axum router of this service (MCP at `/mcp`, REST under
    /// `/v1/tools`), to merge into an application that listens itself.
    pub fn router(self: &Arc<Self>) -> Router {
        router(self.clone())
    }
}

/// The router of `service`: MCP at `/mcp`, REST under `/v1/tools`.
fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/mcp", post(mcp).get(stream))
        .route("/v1/tools", get(rest::list))
        .route("/v1/tools/{name}", get(rest::schema))
        .route("/v1/tools/{name}/call", post(rest::call))
        .layer(axum::middleware::from_fn_with_state(
            service.clone(),
            caller::guard_host,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(service)
}

/// A server listening on its address, ready to serve.
#[derive(Debug)]
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    local: SocketAddr,
    service: Arc<Service>,
}

impl HttpServer {
    pub(crate) async fn bind(
        service: Arc<Service>,
        address: impl tokio::net::ToSocketAddrs,
    ) -> Result<HttpServer, ServeError> {
        let addresses: Vec<SocketAddr> = tokio::net::lookup_host(address)
            .await
            .map_err(ServeError::Io)?
            .collect();
        if service.is_open()
            && !service.options.open_network
            && let Some(address) = addresses.iter().find(|a| !a.ip().is_loopback())
        {
            return Err(ServeError::OpenModeNotLoopback { address: *address });
        }
        let mut last = None;
        for address in &addresses {
            match tokio::net::TcpListener::bind(address).await {
                Ok(listener) => {
                    let local = listener.local_addr().map_err(ServeError::Io)?;
                    return Ok(HttpServer {
                        listener,
                        local,
                        service,
                    });
                }
                Err(error) => last = Some((*address, error)),
            }
        }
        Err(match last {
            Some((address, error)) => ServeError::Bind { address, error },
            None => ServeError::Address {
                given: "(no address)".to_owned(),
            },
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The service it serves.
    pub fn service(&self) -> &Arc<Service> {
        &self.service
    }

    /// Serves until Ctrl-C (SIGINT) or, on Unix, SIGTERM; then ends the
    /// event streams (each `subscriptions/listen` stream with its result),
    /// lets requests in flight finish, and returns.
    pub async fn run(self) -> Result<(), ServeError> {
        self.run_until(stop_signal()).await
    }

    /// Serves until `stop` resolves, then shuts down gracefully as
    /// [`run`](Self::run) does.
    pub async fn run_until(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        use axum::serve::ListenerExt;
        let HttpServer {
            listener,
            local,
            service,
        } = self;
        tracing::info!(
            address = %local,
            open = service.is_open(),
            "serving MCP at /mcp and REST at /v1/tools"
        );
        let listener = listener.tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::warn!(%error, "cannot set TCP_NODELAY");
            }
        });
        let closing = service.clone();
        axum::serve(listener, router(service))
            .with_graceful_shutdown(async move {
                stop.await;
                tracing::info!("shutting down: ending event streams, finishing requests");
                closing.close_streams();
            })
            .await
            .map_err(ServeError::Io)
    }
}

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM; stop with Ctrl-C");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn json_response(status: StatusCode, body: impl Into<String>) -> Response {
    let mut response = (status, body.into()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn refusal(status: StatusCode, kind: &str, message: &str) -> Response {
    json_response(
        status,
        json!({"error": kind, "message": message}).to_string(),
    )
}

fn protocol_header(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
}

/// The MCP headers of a request, for the core to check against the body.
fn mcp_headers(headers: &HeaderMap) -> Headers<'_> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    Headers {
        http: true,
        protocol_version: get("mcp-protocol-version"),
        method: get("mcp-method"),
        name: get("mcp-name"),
    }
}

/// `POST /mcp`.
async fn mcp(
    State(service): State<Arc<Service>>,
    caller: Caller,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = match Incoming::parse(&body) {
        Incoming::Request(request) => request,
        Incoming::Notification => return StatusCode::ACCEPTED.into_response(),
        Incoming::Malformed(reply) => {
            let version =
                Protocol::version_of(None, &Session::default(), protocol_header(&headers));
            service.trace.record(version, None, &reply);
            return body::reply_response(reply);
        }
    };
    // A cursor is read in the snapshot that made it, even after a reload.
    let Caller { snapshot, view } = caller;
    let (snapshot, view) = match request.cursor_fingerprint() {
        Some(fingerprint) if fingerprint != view.fingerprint() => service
            .catalog
            .snapshot_with_list(view.id(), fingerprint)
            .and_then(|older| older.client(view.id()).cloned().map(|v| (older.clone(), v)))
            .unwrap_or((snapshot, view)),
        _ => (snapshot, view),
    };
    // Each request stands alone: the catalog is stateless per request.
    let mut session = Session::default();
    let traced = service.trace.is_on().then(|| {
        let version = Protocol::version_of(Some(&request), &session, protocol_header(&headers));
        (version, request.method().to_owned())
    });
    let answer = service
        .protocol
        .handle(
            &snapshot,
            &view,
            &mut session,
            request,
            &mcp_headers(&headers),
        )
        .await;
    match answer {
        Answer::Reply(reply) => {
            if let Some((version, method)) = traced {
                service.trace.record(version, Some(&method), &reply);
            }
            body::reply_response(reply)
        }
        Answer::Stream(subscription) => {
            let first = subscription.acknowledgement();
            let last = subscription.ended();
            let notice = move || subscription.tools_changed();
            let stream = Stream {
                first: Some(first),
                last: Some(last),
                version: STATELESS_VERSION,
            };
            events(&service, view.id(), stream, notice)
        }
    }
}

/// `GET /mcp`: the handshake era's event stream.
async fn stream(
    State(service): State<Arc<Service>>,
    caller: Caller,
    headers: HeaderMap,
) -> Response {
    let version = Protocol::version_of(None, &Session::default(), protocol_header(&headers));
    let stream = Stream {
        first: None,
        last: None,
        version,
    };
    events(&service, caller.view.id(), stream, || {
        Some(LIST_CHANGED.to_owned())
    })
}
