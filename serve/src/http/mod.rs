//! Streamable HTTP and REST on one axum router.
//!
//! - `POST /mcp`: one JSON-RPC message, answered with one JSON response (202
//!   for a notification); `subscriptions/listen` (2026-07-28) is answered
//!   with a server-sent event stream: the acknowledgment, then
//!   `notifications/tools/list_changed` whenever the client's list changes.
//! - `GET /mcp`: the handshake era's server-to-client event stream, with the
//!   same change notices.
//! - `/v1/tools…`: REST (see the `rest` module).
//! - `GET /health` (when the server listens itself): `200` while serving,
//!   with `"status": "ok"` or `"degraded"` and the state of each checked
//!   part (say, a catalog store that is unreachable while the last good
//!   configuration keeps serving).
//!
//! Every request passes the `Host`/`Origin` guard (loopback names, and
//! hosts allowed by the server) and is authenticated as one client
//! application by the `Authenticated` extractor (`Authorization: Bearer <key>` or
//! `X-API-Key: <key>`; no key in open mode).

mod answering;
mod authenticated;
mod body;
mod events;
mod listen;
mod rest;

use core::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::json;

use crate::error::ServeError;
use tokio::sync::mpsc;

use crate::mcp::{
    Answer, Backchannel, Headers, Incoming, LIST_CHANGED, Outgoing, Protocol, Request,
    STATELESS_VERSION, Session,
};
use crate::service::Service;
use authenticated::Authenticated;
use events::{Stream, events};
pub use listen::{read_body, serve_router};

/// The largest request body accepted: the 1 MiB argument limit plus room for
/// the JSON-RPC envelope.
const BODY_LIMIT: usize = (1 << 20) + (64 << 10);

impl Service {
    /// The axum router of this service (MCP at `/mcp`, REST under
    /// `/v1/tools`), to merge into an application that listens itself.
    /// `GET /health` is not in it: the application has its own, and can
    /// answer with [`Service::health`] there.
    pub fn router(self: &Arc<Self>) -> Router {
        router(self.clone())
    }
}

/// The router of `service`: MCP at `/mcp`, REST under `/v1/tools`.
fn router(service: Arc<Service>) -> Router {
    let router = Router::new()
        .route("/mcp", post(mcp).get(stream))
        .route("/v1/tools", get(rest::list))
        .route("/v1/tools/{name}", get(rest::schema))
        .route("/v1/tools/{name}/call", post(rest::call));
    #[cfg(feature = "oauth")]
    let router = router
        .route(
            "/.well-known/oauth-protected-resource",
            get(authenticated::resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/{*path}",
            get(authenticated::resource_metadata),
        );
    router
        .layer(listen::HostGuard(service.clone()))
        .with_state(service)
}

/// The router a server listening itself serves: [`router`], and `GET
/// /health` (left out of the router an application merges, which has a
/// health endpoint of its own). The health endpoint says nothing a page
/// could misuse: it answers load balancers whatever the Host they probe
/// with.
fn served(service: Arc<Service>) -> Router {
    let health = Router::new()
        .route("/health", get(health))
        .with_state(service.clone());
    router(service).merge(health)
}

/// `GET /health`: `200` while the service serves, with `"status": "ok"` or
/// `"degraded"` and what each checked part says.
async fn health(State(service): State<Arc<Service>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        service.health().to_string(),
    )
        .into_response()
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
        let closing = service.clone();
        let timeouts = service.options.timeouts;
        listen::serve(listener, served(service), timeouts, stop, move || {
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

/// The MCP headers of a request, in one pass over them: the first value
/// of each (a value that is not text is none), and the first that comes
/// more than once, by the name the specification gives it. `params` is
/// where their `Mcp-Param-*` list is laid out; `scopes` are the caller's
/// token's, if it sent one.
fn mcp_headers<'a>(
    headers: &'a HeaderMap,
    params: &'a mut Vec<(&'a str, &'a str)>,
    scopes: Option<&'a [String]>,
) -> Headers<'a> {
    const ONCE: [&str; 3] = ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"];
    let mut once: [Option<&str>; 3] = [None; 3];
    let mut trace_context = (None, None);
    let mut seen = [0u8; 3];
    let mut params_repeated = false;
    for (name, value) in headers {
        let value = value.to_str().ok();
        let slot = match name.as_str() {
            "mcp-protocol-version" => 0,
            "mcp-method" => 1,
            "mcp-name" => 2,
            "traceparent" => {
                trace_context.0 = trace_context.0.or(value);
                continue;
            }
            "tracestate" => {
                trace_context.1 = trace_context.1.or(value);
                continue;
            }
            other => {
                if let (Some(param), Some(value)) = (other.strip_prefix("mcp-param-"), value) {
                    params_repeated |= params.iter().any(|(n, _)| *n == param);
                    params.push((param, value));
                }
                continue;
            }
        };
        seen[slot] = seen[slot].saturating_add(1);
        if seen[slot] == 1 {
            once[slot] = value;
        }
    }
    let repeated = match seen.iter().position(|n| *n > 1) {
        Some(slot) => Some(ONCE[slot]),
        None => params_repeated.then_some("Mcp-Param-*"),
    };
    let [protocol_version, method, name] = once;
    Headers {
        http: true,
        protocol_version,
        method,
        name,
        params,
        trace_context,
        repeated,
        scopes,
    }
}

/// Whether the client takes a server-sent event stream in answer.
fn accepts_events(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/event-stream"))
}

/// `POST /mcp`. The request is taken whole (not its headers copied by
/// an extractor): its headers are read where they are.
async fn mcp(
    State(service): State<Arc<Service>>,
    caller: Authenticated,
    request: axum::extract::Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let body = match read_body(body, BODY_LIMIT, service.options.timeouts).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    // A large request holds one blocking slot from its parse to the
    // reading of its arguments.
    let Ok(reserved) = service.reserve_for(body.len()).await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let request =
        match incoming_request(&service, &caller, &headers, &body, reserved.as_deref()).await {
            Ok(request) => request,
            Err(answered) => return answered,
        };
    let caller = in_cursor_snapshot(&service, &request, caller);
    let version = Protocol::version_of(
        Some(&request),
        &Session::default(),
        protocol_header(&headers),
    );
    let method = request.method().to_owned();
    if method != "tools/call" {
        // Each request stands alone: the catalog is stateless per request.
        let mut session = Session::default();
        let mut params = Vec::new();
        let answer = service
            .protocol
            .handle(
                &caller.snapshot,
                &caller.view,
                &mut session,
                request,
                &mcp_headers(&headers, &mut params, caller.token_scopes().map(|s| &**s)),
                &Backchannel::none(),
            )
            .await;
        return respond(&service, &caller, version, &method, answer);
    }
    let call = Call {
        request,
        version,
        reserved,
    };
    call_tool(service, caller, headers, call).await
}

/// The body read as a message of `caller`'s (a large one off the async
/// workers; a call's arguments read into the tool's type as they are met):
/// a request to answer, or the response that a notification, a client's
/// response or a malformed message gets.
async fn incoming_request(
    service: &Arc<Service>,
    caller: &Authenticated,
    headers: &HeaderMap,
    body: &Bytes,
    reserved: Option<&crate::offload::Reserved>,
) -> Result<Request, Response> {
    let incoming = match reserved {
        Some(reserved) => {
            let text = body.clone();
            let (snapshot, view) = (caller.snapshot.clone(), caller.view.clone());
            let parse = move || Incoming::parse_for(&text, &snapshot, &view);
            match reserved.run_for(parse).await {
                Some(incoming) => incoming,
                None => return Err(StatusCode::SERVICE_UNAVAILABLE.into_response()),
            }
        }
        None => Incoming::parse_for(body, &caller.snapshot, &caller.view),
    };
    let client = caller.view.id();
    match incoming {
        Incoming::Request(request) => Ok(request),
        Incoming::Notification(notification) => {
            if let Some(id) = notification.cancelled_request() {
                service.inflight.cancel(client, &id);
            }
            Err(StatusCode::ACCEPTED.into_response())
        }
        Incoming::Response(response) => {
            // The answer to a question a running call of this client asked.
            service.pending.answer(client, response);
            Err(StatusCode::ACCEPTED.into_response())
        }
        Incoming::Malformed(reply) => {
            let version = Protocol::version_of(None, &Session::default(), protocol_header(headers));
            Err(body::reply_response(&service.trace, (version, None), reply))
        }
    }
}

/// The caller as of the snapshot that made the request's cursor, if it
/// names an older list: a cursor is read where it was made, even after a
/// reload.
fn in_cursor_snapshot(
    service: &Service,
    request: &Request,
    caller: Authenticated,
) -> Authenticated {
    let Some(fingerprint) = request.cursor_fingerprint() else {
        return caller;
    };
    if caller.view.has_list(fingerprint) {
        return caller;
    }
    let older = service
        .catalog
        .snapshot_with_list(caller.view.id(), fingerprint)
        .and_then(|older| {
            let view = older.client(caller.view.id()).cloned()?;
            Some((older.clone(), caller.credential.narrow(&older, view)))
        });
    match older {
        Some((snapshot, view)) => Authenticated {
            snapshot,
            view,
            credential: caller.credential,
        },
        None => caller,
    }
}

/// A `tools/call` request, with what its answer needs.
struct Call {
    request: Request,
    version: &'static str,
    /// A large request's blocking slot, in which its arguments are read.
    reserved: Option<Arc<crate::offload::Reserved>>,
}

/// Runs a tool call so that notifications it sends can stream while it
/// goes on (and it may be cancelled): the answer is the reply alone, or an
/// event stream of the notifications, then the reply. The call is polled
/// on the request's task until its first notification (see `answering`).
async fn call_tool(
    service: Arc<Service>,
    caller: Authenticated,
    headers: HeaderMap,
    call: Call,
) -> Response {
    let Call {
        request,
        version,
        reserved,
    } = call;
    let running = service
        .inflight
        .start(caller.view.id(), request.id().as_json());
    let (outbox, mut inbox) = mpsc::unbounded_channel::<Outgoing>();
    let mut back = service
        .backchannel_reserved(reserved)
        .with_cancellation(running.cancellation().clone());
    if accepts_events(&headers) {
        back = back
            .with_outbox(outbox, version)
            .with_pending(service.pending.clone());
    }
    let worker = service.clone();
    let (snapshot, view) = (caller.snapshot.clone(), caller.view.clone());
    let scopes = caller.token_scopes().cloned();
    // Polled here, not spawned: most calls answer before any notification.
    let mut answer = answering::Answering::new(async move {
        let _running = running;
        // Each request stands alone: the catalog is stateless per request.
        let mut session = Session::default();
        let mut params = Vec::new();
        let headers = mcp_headers(&headers, &mut params, scopes.as_deref());
        worker
            .protocol
            .handle(&snapshot, &view, &mut session, request, &headers, &back)
            .await
    });
    // The first notification, if one comes before the answer (or with it:
    // a handler that finishes at once may have sent some).
    let (first, done) = tokio::select! {
        biased;
        Some(notification) = inbox.recv() => (Some(notification), None),
        answer = &mut answer => (inbox.try_recv().ok(), Some(answer)),
    };
    let Some(first) = first else {
        return match done {
            Some(Ok(answer)) => respond(&service, &caller, version, "tools/call", answer),
            _ => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        };
    };
    // Notifications came: the answer becomes an event stream of them, then
    // the reply. The stream ends when this task does, after the reply (or a
    // failed call), whatever a task the call left behind still holds.
    let (send, receive) = mpsc::unbounded_channel::<Outgoing>();
    tokio::spawn(async move {
        let forward = |message: Outgoing| {
            let _ = send.send(message);
        };
        forward(first);
        let answer = match done {
            Some(answer) => answer,
            None => loop {
                tokio::select! {
                    Some(notification) = inbox.recv() => forward(notification),
                    answer = &mut answer => break answer,
                }
            },
        };
        // What was sent before the reply goes first.
        while let Ok(notification) = inbox.try_recv() {
            forward(notification);
        }
        if let Ok(Answer::Reply(reply)) = answer {
            // A denied call runs nothing, so it sends no notification first.
            debug_assert!(reply.denial().is_none(), "a denial after notifications");
            forward(Outgoing::reply(version, "tools/call", reply.to_string()));
        }
    });
    events::messages(&service, receive)
}

/// The response of an answer that sent no notifications first.
fn respond(
    service: &Arc<Service>,
    caller: &Authenticated,
    version: &'static str,
    method: &str,
    answer: Answer,
) -> Response {
    match answer {
        Answer::Reply(reply) => match reply.denial() {
            Some(denial) => caller.denied(denial),
            None => body::reply_response(&service.trace, (version, Some(method)), reply),
        },
        Answer::Stream(subscription) => {
            let first = subscription.acknowledgement();
            let last = subscription.ended();
            let notice = move || subscription.tools_changed();
            let stream = Stream {
                first: Some(first),
                last: Some(last),
                version: STATELESS_VERSION,
            };
            events(service, caller, stream, notice)
        }
    }
}

/// `GET /mcp`: the handshake era's event stream.
async fn stream(
    State(service): State<Arc<Service>>,
    caller: Authenticated,
    headers: HeaderMap,
) -> Response {
    let version = Protocol::version_of(None, &Session::default(), protocol_header(&headers));
    let stream = Stream {
        first: None,
        last: None,
        version,
    };
    events(&service, &caller, stream, || Some(LIST_CHANGED.to_owned()))
}
