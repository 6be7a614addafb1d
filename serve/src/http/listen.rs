//! The connection loop: each accepted connection served by hyper's HTTP/1
//! with the router as its service, under the server's timeouts, and shut
//! down gracefully with the server.
//!
//! - headers: hyper's header read timeout, from the connection's start
//!   (408 when part of a request came; a connection that sent nothing is
//!   closed);
//! - idle: a kept-alive connection with no request in flight is closed
//!   (a request is in flight until its response body ends, so an event
//!   stream never counts as idle);
//! - body: a route that takes a body reads it whole within its time (408)
//!   and size (413), once it knows who sent it ([`read_body`]).

use core::convert::Infallible;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, mpsc, watch};
use tokio::time::Instant;

use super::refusal;
use crate::service::{HttpTimeouts, Service};

/// Serves `router` on `listener` until `stop`; then stops accepting, lets
/// each connection finish what it is doing (`closing` runs first, to end
/// the event streams), and returns when all have.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    timeouts: HttpTimeouts,
    stop: impl Future<Output = ()> + Send + 'static,
    closing: impl FnOnce() + Send + 'static,
) -> std::io::Result<()> {
    let (shutdown, shutting_down) = watch::channel(false);
    // Each connection holds a sender; all are gone when all have ended.
    let (alive, mut ended) = mpsc::channel::<()>(1);
    tokio::pin!(stop);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors and the like: wait, do not spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::warn!(%error, "cannot set TCP_NODELAY");
        }
        let activity = Arc::new(Activity::default());
        let service = TowerToHyperService::new(Tracked {
            router: router.clone(),
            activity: activity.clone(),
            peer,
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(timeouts.headers);
        let mut connection = builder.serve_connection(TokioIo::new(tcp), service);
        let mut shutting_down = shutting_down.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let _alive = alive;
            let mut closing = false;
            // Polled without shutting the socket down when it ends, so that
            // a request whose headers came too slowly can still be told.
            let ended = loop {
                tokio::select! {
                    ended = core::future::poll_fn(|cx| connection.poll_without_shutdown(cx)) => break ended,
                    changed = shutting_down.changed(), if !closing => {
                        let _ = changed;
                        closing = true;
                        Pin::new(&mut connection).graceful_shutdown();
                    }
                    () = activity.idle_for(timeouts.idle), if !closing => {
                        closing = true;
                        Pin::new(&mut connection).graceful_shutdown();
                    }
                }
            };
            if ended.as_ref().is_err_and(hyper::Error::is_timeout) {
                let parts = connection.into_parts();
                // Part of a request came, and not all its headers: 408. A
                // connection that sent nothing is just closed.
                if !parts.read_buf.is_empty() {
                    headers_too_slow(parts.io.into_inner()).await;
                }
            }
        });
    }
    drop(listener);
    closing();
    let _ = shutdown.send(true);
    drop(alive);
    let _ = ended.recv().await;
    Ok(())
}

/// Answers 408 on a connection whose request headers did not all arrive in
/// time, then closes it; a client that does not read is given a second.
async fn headers_too_slow(tcp: tokio::net::TcpStream) {
    let body = r#"{"error":"timeout","message":"the request headers did not arrive in time; send them at once"}"#;
    let answer = format!(
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let send = async {
        let mut rest = answer.as_bytes();
        while !rest.is_empty() {
            if tcp.writable().await.is_err() {
                return;
            }
            match tcp.try_write(rest) {
                Ok(written) => rest = &rest[written..],
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), send).await;
}

/// Whether a connection has a request in flight, and since when it has not.
#[derive(Debug)]
struct Activity {
    in_flight: AtomicUsize,
    changed: Notify,
    since: std::sync::Mutex<Instant>,
}

impl Default for Activity {
    fn default() -> Activity {
        Activity {
            in_flight: AtomicUsize::new(0),
            changed: Notify::new(),
            since: std::sync::Mutex::new(Instant::now()),
        }
    }
}

impl Activity {
    fn start(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_waiters();
    }

    fn end(&self) {
        if let Ok(mut since) = self.since.lock() {
            *since = Instant::now();
        }
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.changed.notify_waiters();
    }

    /// Resolves once no request has been in flight for `idle`.
    async fn idle_for(&self, idle: Duration) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.in_flight.load(Ordering::Acquire) > 0 {
                changed.await;
                continue;
            }
            let since = self.since.lock().map_or_else(|_| Instant::now(), |s| *s);
            tokio::select! {
                () = tokio::time::sleep_until(since + idle) => {
                    if self.in_flight.load(Ordering::Acquire) == 0 {
                        return;
                    }
                }
                () = changed => {}
            }
        }
    }
}

/// The router, counting each request in flight until its response body
/// ends, and telling each request its peer (axum's `ConnectInfo`).
#[derive(Clone)]
struct Tracked {
    router: Router,
    activity: Arc<Activity>,
    peer: std::net::SocketAddr,
}

impl tower_service::Service<Request<hyper::body::Incoming>> for Tracked {
    type Response = Response;
    type Error = core::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<hyper::body::Incoming>) -> Self::Future {
        let activity = self.activity.clone();
        activity.start();
        let mut router = self.router.clone();
        let peer = self.peer;
        Box::pin(async move {
            let guard = InFlight(activity);
            let mut request = request.map(Body::new);
            request
                .extensions_mut()
                .insert(axum::extract::ConnectInfo(peer));
            let response = match tower_service::Service::call(&mut router, request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(response.map(|body| {
                Body::new(Ending {
                    body,
                    _guard: guard,
                })
            }))
        })
    }
}

/// Ends a request's flight when dropped.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A response body that ends its request's flight when it is done.
struct Ending {
    body: Body,
    _guard: InFlight,
}

impl http_body::Body for Ending {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The guard in front of every route: a request that names a host that is
/// not served is refused (403) before its route sees it. It decides at
/// once, from the request's head: no future of its own, no copy of the
/// route.
#[derive(Clone)]
pub(super) struct HostGuard(pub(super) Arc<Service>);

impl<S> tower_layer::Layer<S> for HostGuard {
    type Service = Guarded<S>;

    fn layer(&self, route: S) -> Guarded<S> {
        Guarded {
            route,
            service: self.0.clone(),
        }
    }
}

/// A route behind the [`HostGuard`].
#[derive(Clone)]
pub(super) struct Guarded<S> {
    route: S,
    service: Arc<Service>,
}

impl<S> tower_service::Service<Request> for Guarded<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>,
    S::Future: Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Guard<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.route.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Guard<S::Future> {
        match super::authenticated::host_refusal(&self.service, &request) {
            Some(refused) => Guard::Refused(Some(refused)),
            None => Guard::Passed(self.route.call(request)),
        }
    }
}

/// The answer of a guarded route: the refusal, or the route's own.
pub(super) enum Guard<F> {
    Refused(Option<Response>),
    Passed(F),
}

impl<F: Future<Output = Result<Response, Infallible>> + Unpin> Future for Guard<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Guard::Refused(refused) => Poll::Ready(Ok(refused.take().unwrap_or_default())),
            Guard::Passed(route) => Pin::new(route).poll(cx),
        }
    }
}

/// Reads a request's whole `body`, of at most `limit` bytes, within
/// `timeouts.body`: the answer to send instead when it is larger (413) or
/// slower (408, and the connection closes). A handler that authenticates
/// first reads its body with this once it has.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use toolschema_serve::{HttpTimeouts, read_body};
///
/// let body = axum::body::Body::from("{\"version\": 3}");
/// let bytes = read_body(body, 1024, HttpTimeouts::default()).await.unwrap();
/// assert_eq!(&bytes[..], b"{\"version\": 3}");
/// let large = axum::body::Body::from(vec![b' '; 2048]);
/// let refused = read_body(large, 1024, HttpTimeouts::default()).await.unwrap_err();
/// assert_eq!(refused.status(), 413);
/// # });
/// ```
pub async fn read_body(
    body: Body,
    limit: usize,
    timeouts: HttpTimeouts,
) -> Result<Bytes, Response> {
    // A body announced larger than the limit is refused before a byte of
    // it is read; one that grows past it while read is refused then. Either
    // way the rest is unread, so the connection closes.
    let announced = http_body::Body::size_hint(&body).lower();
    if usize::try_from(announced).map_or(true, |announced| announced > limit) {
        return Err(closing(too_large()));
    }
    let read = axum::body::to_bytes(body, limit);
    match tokio::time::timeout(timeouts.body, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err(closing(too_large())),
        Err(_) => Err(closing(refusal(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request body did not arrive in time; send it at once",
        ))),
    }
}

fn too_large() -> Response {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        "the request body is larger than the server accepts",
    )
}

/// `response`, telling the peer the connection closes after it.
fn closing(response: impl IntoResponse) -> Response {
    let mut response = response.into_response();
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// Serves `router` on `listener` as the MCP listener is served, until
/// `stop` resolves (then gracefully): each connection under `timeouts`
/// (headers in their time or 408, kept-alive connections closed when
/// idle; bodies are read in their time by [`read_body`]), and each request
/// told its peer's address as axum's `ConnectInfo<SocketAddr>`. The
/// store's admin API is served so.
pub async fn serve_router(
    listener: TcpListener,
    router: Router,
    timeouts: HttpTimeouts,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve(listener, router, timeouts, stop, || {}).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that says nothing of its length and sends 1 KiB frames, as a
    /// chunked request does.
    struct Unannounced {
        left: usize,
    }

    impl http_body::Body for Unannounced {
        type Data = Bytes;
        type Error = axum::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            if self.left == 0 {
                return Poll::Ready(None);
            }
            self.left -= 1;
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![b' '; 1024])))))
        }
    }

    /// The bytes read, or the refusal's status and `Connection` header.
    fn read(body: Body, limit: usize) -> Result<Bytes, (StatusCode, String)> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime
            .block_on(read_body(body, limit, HttpTimeouts::default()))
            .map_err(|refused| {
                let connection = refused.headers().get("connection");
                let connection = connection.and_then(|value| value.to_str().ok());
                (refused.status(), connection.unwrap_or("").to_owned())
            })
    }

    #[test]
    fn a_body_over_the_limit_is_refused_whether_announced_or_not_and_the_connection_closes() {
        let announced = Body::from(vec![b' '; 4096]);
        let unannounced = Body::new(Unannounced { left: 4 });
        for body in [announced, unannounced] {
            let refused = read(body, 3000).expect_err("over the limit");
            assert_eq!(refused, (StatusCode::PAYLOAD_TOO_LARGE, "close".to_owned()));
        }
        let within = read(Body::new(Unannounced { left: 2 }), 3000).expect("within");
        assert_eq!(within.len(), 2048);
    }
}
