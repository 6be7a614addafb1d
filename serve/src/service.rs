//! A service ready to serve: the live catalog, the protocol core, the
//! notices, and what the transports need to know. Built by
//! [`Server::build`](crate::Server::build); every transport shares one.

use std::sync::Arc;
use std::time::Duration;

use toolschema_catalog::{Catalog, Watch};

#[cfg(feature = "http")]
use crate::inflight::Inflight;
#[cfg(feature = "http")]
use crate::mcp::Pending;
use crate::mcp::{Protocol, Trace};
use crate::notices::Notices;

/// Everything the transports share, built once from a [`Server`](crate::Server).
#[derive(Debug)]
pub struct Service {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) protocol: Protocol,
    pub(crate) notices: Notices,
    pub(crate) trace: Trace,
    pub(crate) options: Options,
    /// Requests running now over HTTP, for cancellations (a stdio
    /// connection keeps its own).
    #[cfg(feature = "http")]
    pub(crate) inflight: Arc<Inflight>,
    /// The server's questions to HTTP clients waiting for answers.
    #[cfg(feature = "http")]
    pub(crate) pending: Arc<Pending>,
    /// Where large requests' arguments are read.
    pub(crate) blocking: Arc<crate::offload::Blocking>,
    /// The configuration file's watch, if any: it stops with the service.
    pub(crate) _watch: Option<Watch>,
    /// Verifies access tokens, with the issuer's keys cached.
    #[cfg(feature = "oauth")]
    pub(crate) tokens: crate::oauth::Verifier,
    /// What `GET /health` reports beside the service itself.
    pub(crate) health: HealthChecks,
}

/// `scope` of `snapshot` as `server.json`, described by the configuration's
/// `[server]` section, else by `identity` (see [`Service::export`]).
pub(crate) fn export_catalog(
    snapshot: &toolschema_catalog::Snapshot,
    identity: &crate::mcp::Identity,
    scope: toolschema_catalog::export::Scope<'_>,
) -> Result<String, toolschema_catalog::export::ExportError> {
    use toolschema_catalog::export::{ExportError, export, export_as};
    if snapshot.server().is_some() {
        return export(snapshot, scope);
    }
    let description = identity.description().ok_or(ExportError::NoServerSection)?;
    let mut server =
        toolschema_catalog::ServerInfo::new(identity.name(), description, identity.version());
    if let Some(title) = identity.title() {
        server = server.with_title(title);
    }
    if let Some(url) = identity.website_url() {
        server = server.with_website_url(url);
    }
    export_as(snapshot, scope, &server)
}

/// The parts `GET /health` reports, by name.
#[derive(Default)]
pub(crate) struct HealthChecks(std::sync::Mutex<Vec<(String, HealthCheck)>>);

impl core::fmt::Debug for HealthChecks {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HealthChecks")
    }
}

/// A part of a deployment whose state `GET /health` reports (see
/// [`Service::add_health_check`]).
pub type HealthCheck = Box<dyn Fn() -> Health + Send + Sync>;

/// The state of one part, as `GET /health` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Health {
    /// Whether the part is degraded: the service still serves (say, the
    /// last good configuration), but not as it should.
    pub degraded: bool,
    /// What the part says of itself, as JSON.
    pub detail: serde_json::Value,
}

/// The settings transports read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Host names accepted in `Host` and `Origin` besides loopback.
    pub(crate) allowed_hosts: Vec<String>,
    /// Whether open mode may be served on a non-loopback address.
    pub(crate) open_network: bool,
    /// The client application served over stdio.
    pub(crate) stdio_client: Option<String>,
    /// How long HTTP clients may take.
    pub(crate) timeouts: HttpTimeouts,
}

/// How long an HTTP client may take before its connection is closed
/// ([`Server::http_timeouts`](crate::Server::http_timeouts)): against
/// clients that hold connections open without finishing a request.
///
/// ```
/// use std::time::Duration;
/// use toolschema_serve::HttpTimeouts;
///
/// let patient = HttpTimeouts {
///     body: Duration::from_secs(120),
///     ..HttpTimeouts::default()
/// };
/// assert_eq!(patient.headers, Duration::from_secs(10));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpTimeouts {
    /// To receive a request's headers, counted from the connection's start
    /// (default 10 s): a client that opens a connection and sends nothing,
    /// or its headers a byte at a time, is cut off.
    pub headers: Duration,
    /// To receive a request's whole body, after its headers (default
    /// 30 s); a slower body gets 408.
    pub body: Duration,
    /// A kept-alive connection with no request in flight (default 60 s). An
    /// event stream is a request in flight, kept alive by its own pings.
    pub idle: Duration,
}

impl Default for HttpTimeouts {
    fn default() -> HttpTimeouts {
        HttpTimeouts {
            headers: Duration::from_secs(10),
            body: Duration::from_secs(30),
            idle: Duration::from_secs(60),
        }
    }
}

impl Service {
    /// The backchannel of a large request whose blocking slot is
    /// `reserved`: its arguments are read in that slot, off the async
    /// workers; without one, a request's own.
    #[cfg(feature = "http")]
    pub(crate) fn backchannel_reserved(
        &self,
        reserved: Option<Arc<crate::offload::Reserved>>,
    ) -> crate::mcp::Backchannel {
        let back = crate::mcp::Backchannel::none();
        match reserved {
            Some(reserved) => back.with_offload(reserved),
            None => back,
        }
    }

    /// The blocking slot a request of `size` bytes holds from its parse to
    /// the reading of its arguments: none for a small one; `Err` when the
    /// runtime is shutting down.
    #[cfg(feature = "http")]
    pub(crate) async fn reserve_for(
        &self,
        size: usize,
    ) -> Result<Option<Arc<crate::offload::Reserved>>, ()> {
        match size > crate::offload::LARGE_REQUEST {
            true => self.blocking.reserve().await.map(Some).ok_or(()),
            false => Ok(None),
        }
    }

    /// The backchannel of a request `size` bytes long: a large one's
    /// arguments are read off the async workers.
    #[cfg(feature = "stdio")]
    pub(crate) fn backchannel_for(&self, size: usize) -> crate::mcp::Backchannel {
        let back = crate::mcp::Backchannel::none();
        match size > crate::offload::LARGE_REQUEST {
            true => back.with_offload(self.blocking.clone()),
            false => back,
        }
    }

    /// The live catalog: its current snapshot, reloads, change notices.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The catalog as `server.json` (the MCP registry's format, tools
    /// under `_meta`): every tool some client sees ([`Scope::Catalog`]), or
    /// what one client application sees ([`Scope::Client`]).
    ///
    /// The server is described by the configuration's `[server]` section
    /// when it has one, else by its own identity: its name (a registry name
    /// such as `io.github.acme/warehouse`), version, and the
    /// [`description`](crate::Server::description) given to it. So a
    /// service with no configuration exports its own tools.
    ///
    /// ```
    /// # use toolschema_serve::Server;
    /// use toolschema_catalog::export::Scope;
    ///
    /// let service = Server::new("io.github.acme/warehouse", "1.4.0")
    ///     .description("Stock levels and reservations")
    ///     .build()?;
    /// let json = service.export(Scope::Catalog)?;
    /// assert!(json.contains(r#""description": "Stock levels and reservations""#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Scope::Catalog`]: toolschema_catalog::export::Scope::Catalog
    /// [`Scope::Client`]: toolschema_catalog::export::Scope::Client
    pub fn export(
        &self,
        scope: toolschema_catalog::export::Scope<'_>,
    ) -> Result<String, toolschema_catalog::export::ExportError> {
        export_catalog(&self.catalog.snapshot(), self.protocol.identity(), scope)
    }

    /// The protocol core.
    pub fn protocol(&self) -> &Protocol {
        &self.protocol
    }

    /// How long its HTTP clients may take (what
    /// [`Server::http_timeouts`](crate::Server::http_timeouts) set).
    pub fn http_timeouts(&self) -> HttpTimeouts {
        self.options.timeouts
    }

    /// Whether the service runs in open mode: no catalog configuration, so
    /// every tool is listed in Full mode to every caller, without a key.
    pub fn is_open(&self) -> bool {
        !self.catalog.snapshot().is_governed()
    }

    /// Adds a part to what `GET /health` reports: `check` is called on
    /// every health request, under `name`. The endpoint answers `200` with
    /// `{"status": "ok"}`, or `"degraded"` when a part is, and each part's
    /// detail under `checks`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema_serve::{Health, Server};
    ///
    /// let service = Server::new("billing", "1").build().unwrap();
    /// service.add_health_check("database", || Health {
    ///     degraded: false,
    ///     detail: json!({"connected": true}),
    /// });
    /// assert_eq!(service.health()["status"], "ok");
    /// ```
    pub fn add_health_check(
        &self,
        name: impl Into<String>,
        check: impl Fn() -> Health + Send + Sync + 'static,
    ) {
        let mut checks = match self.health.0.lock() {
            Ok(checks) => checks,
            Err(poisoned) => poisoned.into_inner(),
        };
        checks.push((name.into(), Box::new(check)));
    }

    /// What `GET /health` answers now: each added check's part and, when
    /// the configuration names a search model (`[catalog] search_model`),
    /// a `search` part saying how the search mode ranks (degraded when it
    /// ranks by words alone because the model cannot be used, with why).
    pub fn health(&self) -> serde_json::Value {
        let checks = match self.health.0.lock() {
            Ok(checks) => checks,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut degraded = false;
        let mut parts = serde_json::Map::new();
        for (name, check) in checks.iter() {
            let health = check();
            degraded |= health.degraded;
            parts.insert(name.clone(), health.detail);
        }
        // A search model the configuration names but this server cannot
        // use: it serves, ranking by words alone.
        if let Some((words_instead, detail)) = self.catalog.snapshot().search_ranking().health() {
            degraded |= words_instead;
            parts.insert("search".into(), detail);
        }
        let mut answer = serde_json::Map::new();
        answer.insert(
            "status".into(),
            serde_json::Value::from(if degraded { "degraded" } else { "ok" }),
        );
        if !parts.is_empty() {
            answer.insert("checks".into(), serde_json::Value::Object(parts));
        }
        serde_json::Value::Object(answer)
    }

    /// Ends every event stream (each `subscriptions/listen` stream with its
    /// result), so that a graceful shutdown is not held open by them.
    pub fn close_streams(&self) {
        self.notices.close();
    }
}
