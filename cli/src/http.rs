//! Streamable HTTP and REST on one server.
//!
//! - `POST /mcp`: one JSON-RPC message, answered with one JSON response (202
//!   for a notification); `subscriptions/listen` (2026-07-28) is answered
//!   with a server-sent event stream: the acknowledgment, then
//!   `notifications/tools/list_changed` whenever the client's list changes.
//! - `GET /mcp`: the handshake era's server-to-client event stream, with the
//!   same change notices.
//! - `GET /v1/tools`: the same descriptors the client gets over MCP.
//! - `GET /v1/tools/{name}`: the Full descriptor, as `discover_tool_schema`
//!   returns it.
//! - `POST /v1/tools/{name}/call`: the arguments as the body; errors carry
//!   the same violation list as MCP.
//!
//! Every request is authenticated (`Authorization: Bearer <key>` or
//! `X-API-Key: <key>`) as one client application; `Host` and `Origin` must
//! name an allowed host (loopback by default) against DNS rebinding.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use std::collections::VecDeque;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use core::convert::Infallible;
use core::pin::Pin;
use core::task::{Context, Poll};
use serde_json::{Value, json};
use toolschema::call::CallError;

use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::{broadcast, mpsc, watch};
use toolschema::catalog::{Catalog, ChangeSet, ClientView, Snapshot};
use toolschema::mcp::{
    LIST_CHANGED, Reply, STATELESS_VERSION, Server, Session, Subscription, Trace,
    cursor_fingerprint, version_of,
};

/// The largest request body accepted: the 1 MiB argument limit plus room for
/// the JSON-RPC envelope.
const BODY_LIMIT: usize = (1 << 20) + (64 << 10);

struct App {
    catalog: Arc<Catalog>,
    server: Server,
    allowed_hosts: Vec<String>,
    /// Every reload's change set, for the event streams.
    changes: broadcast::Sender<Arc<ChangeSet>>,
    /// Turns `true` when the server shuts down: event streams then end.
    closing: watch::Receiver<bool>,
    /// Kept here so that the channel lives as long as the router, whether
    /// or not the [`Shutdown`] handle does.
    _closer: Arc<watch::Sender<bool>>,
    trace: Arc<Trace>,
}

/// Ends the event streams of a [`router_with_shutdown`] router, so that a
/// graceful shutdown is not held open by them: each `subscriptions/listen`
/// stream receives its `SubscriptionsListenResult`, then every stream
/// closes. Dropping it ends nothing.
#[derive(Debug)]
pub struct Shutdown(Arc<watch::Sender<bool>>);

impl Shutdown {
    /// Ends every event stream, open now or opened later.
    pub fn close(&self) {
        self.0.send_replace(true);
    }
}

/// The router: MCP at `/mcp`, REST under `/v1/tools`, every request
/// authenticated. `allowed_hosts` are accepted in `Host` and `Origin`
/// besides loopback. Its event streams stay open until their clients leave;
/// see [`router_with_shutdown`] to end them.
pub fn router(catalog: Arc<Catalog>, allowed_hosts: Vec<String>) -> Router {
    router_with_shutdown(catalog, allowed_hosts).0
}

/// [`router`], and the handle that ends its event streams when the server
/// shuts down.
pub fn router_with_shutdown(
    catalog: Arc<Catalog>,
    allowed_hosts: Vec<String>,
) -> (Router, Shutdown) {
    let (closer, closing) = watch::channel(false);
    let closer = Arc::new(closer);
    let (changes, _) = broadcast::channel(64);
    let notices = catalog.subscribe();
    let forward = changes.clone();
    std::thread::spawn(move || {
        while let Ok(change) = notices.recv() {
            // Sending fails only when no stream is listening, which is fine.
            let _ = forward.send(Arc::new(change));
        }
    });
    let app = Arc::new(App {
        catalog,
        server: Server::default(),
        allowed_hosts,
        changes,
        closing,
        _closer: closer.clone(),
        trace: Arc::new(Trace::from_env()),
    });
    let router = Router::new()
        .route("/mcp", post(mcp).get(stream))
        .route("/v1/tools", get(list))
        .route("/v1/tools/{name}", get(schema))
        .route("/v1/tools/{name}/call", post(call))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app);
    (router, Shutdown(closer))
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

/// Serves [`router`] on `bind` until Ctrl-C or SIGTERM, announcing the
/// address on stderr. Shutting down ends the event streams (each
/// `subscriptions/listen` stream with its result), lets requests in flight
/// finish, and returns.
pub async fn serve(
    catalog: Arc<Catalog>,
    bind: SocketAddr,
    allowed_hosts: Vec<String>,
) -> Result<(), String> {
    use axum::serve::ListenerExt;
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let governed = catalog.snapshot().is_governed();
    tracing::info!(address = %local, governed, "serving MCP at /mcp and REST at /v1/tools");
    eprintln!(
        "toolschema is serving on http://{local}\n  MCP (Streamable HTTP): http://{local}/mcp\n  REST: http://{local}/v1/tools\n  authenticate with `Authorization: Bearer <key>` or `X-API-Key: <key>`{}",
        if governed {
            " (demo keys: demo-acme-finance-key, demo-acme-assistant-key, demo-globex-support-key)"
        } else {
            ""
        }
    );
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY");
        }
    });
    let (router, shutdown) = router_with_shutdown(catalog, allowed_hosts);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            tracing::info!("shutting down: ending event streams, finishing requests");
            shutdown.close();
        })
        .await
        .map_err(|e| format!("the server stopped: {e}"))
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

/// The host part of `host[:port]` or `[v6]:port`.
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host)
}

impl App {
    fn host_allowed(&self, host: &str) -> bool {
        matches!(host, "localhost" | "127.0.0.1" | "::1")
            || self.allowed_hosts.iter().any(|h| h == host)
    }

    /// The caller's snapshot and client view, or the refusal to send.
    #[allow(clippy::result_large_err)]
    fn authorize(&self, headers: &HeaderMap) -> Result<(Arc<Snapshot>, Arc<ClientView>), Response> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(host_of);
        if !host.is_some_and(|h| self.host_allowed(h)) {
            return Err(refusal(
                StatusCode::FORBIDDEN,
                "forbidden_host",
                "this Host is not served; start the server with --allow-host",
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
            if !self.host_allowed(host_of(authority)) {
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    "forbidden_origin",
                    "requests from this Origin are refused",
                ));
            }
        }
        let key = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .or_else(|| headers.get("x-api-key").and_then(|v| v.to_str().ok()));
        let snapshot = self.catalog.snapshot();
        let view = match key {
            Some(key) => snapshot.client_by_key(key.trim()).cloned(),
            None if !snapshot.is_governed() => snapshot.client("*").cloned(),
            None => None,
        };
        match view {
            Some(view) => Ok((snapshot, view)),
            None => Err(refusal(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "send a valid API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`",
            )),
        }
    }
}

async fn mcp(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let (snapshot, view) = match app.authorize(&headers) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if let Some(subscription) = Subscription::parse(&body) {
        let first = subscription.acknowledgement();
        let last = subscription.ended();
        let notice = move || subscription.tools_changed();
        return events(
            &app,
            view.id(),
            Stream {
                first: Some(first),
                last: Some(last),
                version: STATELESS_VERSION,
            },
            notice,
        );
    }
    // A cursor is read in the snapshot that made it, even after a reload.
    let (snapshot, view) = match cursor_fingerprint(&body) {
        Some(fingerprint) if fingerprint != view.fingerprint() => app
            .catalog
            .snapshot_with_list(view.id(), fingerprint)
            .and_then(|older| older.client(view.id()).cloned().map(|v| (older.clone(), v)))
            .unwrap_or((snapshot, view)),
        _ => (snapshot, view),
    };
    // Each request stands alone: the catalog is stateless per request.
    let mut session = Session::default();
    let reply = app
        .server
        .handle(&snapshot, &view, &mut session, &body)
        .await;
    let Some(reply) = reply else {
        return StatusCode::ACCEPTED.into_response();
    };
    if app.trace.is_on() {
        let header = headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok());
        let version = version_of(&body, &Session::default(), header);
        app.trace
            .record(version, Trace::method_of(&body).as_deref(), &reply);
    }
    reply_response(reply)
}

/// The handshake era's event stream (`GET /mcp`).
async fn stream(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.authorize(&headers) {
        Ok((_, view)) => {
            let header = headers
                .get("mcp-protocol-version")
                .and_then(|v| v.to_str().ok());
            let version = version_of(b"{}", &Session::default(), header);
            let stream = Stream {
                first: None,
                last: None,
                version,
            };
            events(&app, view.id(), stream, || Some(LIST_CHANGED.to_owned()))
        }
        Err(refused) => refused,
    }
}

/// What an event stream says besides change notices.
struct Stream {
    /// Sent when the stream opens.
    first: Option<String>,
    /// Sent when the server shuts down, before the stream closes.
    last: Option<String>,
    /// The protocol version its messages belong to (for the trace).
    version: &'static str,
}

/// A server-sent event stream for one client: `first`, then what `notice`
/// makes each time a reload changes that client's list, and `last` when the
/// server shuts down.
fn events(
    app: &App,
    client: &str,
    stream: Stream,
    notice: impl Fn() -> Option<String> + Send + 'static,
) -> Response {
    let Stream {
        first,
        last,
        version,
    } = stream;
    let (send, receive) = mpsc::unbounded_channel::<String>();
    if let Some(first) = first {
        app.trace.record(version, None, &first);
        let _ = send.send(first);
    }
    let trace = app.trace.clone();
    let mut changes = app.changes.subscribe();
    let mut closing = app.closing.clone();
    let client = client.to_owned();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(change) if change.clients.contains(&client) => {
                        if let Some(message) = notice() {
                            trace.record(version, None, &message);
                            if send.send(message).is_err() {
                                return;
                            }
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = closing.wait_for(|closing| *closing) => {
                    if let Some(last) = last {
                        trace.record(version, Some("subscriptions/listen"), &last);
                        let _ = send.send(last);
                    }
                    // Dropping the sender ends the stream.
                    return;
                }
            }
            if send.is_closed() {
                return;
            }
        }
    });
    Sse::new(Messages(receive))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Messages as server-sent events.
struct Messages(mpsc::UnboundedReceiver<String>);

impl futures_core::Stream for Messages {
    type Item = Result<Event, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0
            .poll_recv(cx)
            .map(|message| message.map(|m| Ok(Event::default().event("message").data(m))))
    }
}

async fn list(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match app.authorize(&headers) {
        Ok((_, view)) => json_response(StatusCode::OK, view.list_json().to_string()),
        Err(refused) => refused,
    }
}

async fn schema(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    let (snapshot, view) = match app.authorize(&headers) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    match snapshot.discover_schema(view.id(), &name) {
        Ok(descriptor) => json_response(StatusCode::OK, descriptor.to_string()),
        Err(refused) => refusal(StatusCode::NOT_FOUND, "unknown_tool", &refused.to_string()),
    }
}

async fn call(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    let (snapshot, view) = match app.authorize(&headers) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let arguments: Value = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&body) {
            Ok(arguments) => arguments,
            Err(e) => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "invalid_json",
                    &format!("the body is not JSON: {e}"),
                );
            }
        }
    };
    match snapshot.call(view.id(), &name, arguments).await {
        Ok(result) => json_response(StatusCode::OK, json!({"result": result}).to_string()),
        Err(CallError::UnknownTool { name }) => refusal(
            StatusCode::NOT_FOUND,
            "unknown_tool",
            &format!("there is no tool named `{name}`"),
        ),
        Err(CallError::InvalidArguments(errors)) => {
            let violations: Vec<Value> = errors
                .iter()
                .map(|v| json!({"path": v.path(), "rule": v.rule().keyword(), "message": v.message()}))
                .collect();
            json_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"error": "invalid_arguments", "message": errors.to_string(), "violations": violations}).to_string(),
            )
        }
        Err(CallError::Tool(failure)) => {
            refusal(StatusCode::CONFLICT, "tool_error", failure.message())
        }
        Err(defect) => refusal(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_defect",
            &defect.to_string(),
        ),
    }
}

/// A reply as a response whose body hands the snapshot's bytes to the
/// network as they are, without copying them.
fn reply_response(reply: Reply) -> Response {
    let chunks: VecDeque<Bytes> = reply
        .into_chunks()
        .map(|chunk| match chunk {
            Ok((text, range)) => Bytes::from_owner(Shared(text, range)),
            Err(owned) => Bytes::from(owned),
        })
        .collect();
    let mut response = Response::new(axum::body::Body::new(Chunks(chunks)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A range of a snapshot's text, as bytes.
struct Shared(Arc<str>, core::ops::Range<usize>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0.as_bytes()[self.1.clone()]
    }
}

/// A body of chunks known in advance, so that its length is exact.
struct Chunks(VecDeque<Bytes>);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        Poll::Ready(
            self.0
                .pop_front()
                .map(|chunk| Ok(http_body::Frame::data(chunk))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.iter().map(|c| c.len() as u64).sum())
    }
}
