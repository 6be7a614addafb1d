//! The MCP protocol over a catalog snapshot: a message in, a reply out, for
//! one authenticated client application. Transports (stdio, Streamable HTTP)
//! carry the bytes; this module decides what they say.
//!
//! A message is read once ([`Incoming::parse`]) into a typed envelope; a
//! request is answered by [`Protocol::handle`]. Both protocol eras are
//! served: the handshake era (`initialize`, 2025-06-18 and 2025-11-25) and
//! the stateless 2026-07-28 revision (`server/discover`, `_meta` on every
//! request, `resultType`, and `ttlMs` with `cacheScope` on lists).
//!
//! Error policy (DESIGN §5): an unknown or invisible tool, or malformed
//! params, is a JSON-RPC error -32602; arguments that break the schema are a
//! result with `isError: true` listing every violation; a result that breaks
//! its own output schema is an internal error (-32603), never sent as valid.
//! `tools/list` is answered from the snapshot's pre-serialized bytes.

mod asking;
mod backchannel;
mod call;
#[cfg(feature = "http")]
pub(crate) use call::call_meta;
mod handshake;
mod id;
mod identity;
mod list;
mod message;
mod negotiation;
mod reply;
mod state;
mod subscription;
mod trace;

#[cfg(feature = "otel")]
mod telemetry;

pub use asking::Pending;
pub use backchannel::Backchannel;
pub use id::Id;
pub use identity::Identity;
use message::Sent;
pub use message::{ClientResponse, Incoming, Notification, Request};
pub use reply::{Outcome, Reply, error};
pub use state::StateKey;
pub use subscription::Subscription;
#[cfg(feature = "otel")]
pub use telemetry::Telemetry;
pub use trace::{Outgoing, Trace};

use std::sync::Arc;

use serde_json::{Map, Value};
use toolschema_runtime::call::{Caller, LogLevel};

use asking::Round;
use toolschema_catalog::{ClientView, Denial, Snapshot};
use toolschema_runtime::project::ProtocolRevision;

use reply::success;

/// The handshake-era protocol versions served, oldest first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

/// The stateless protocol version served.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// Every protocol version served, newest first: what `server/discover`
/// lists and an unsupported version's error names.
pub const SUPPORTED_VERSIONS: [&str; 3] = [STATELESS_VERSION, "2025-11-25", "2025-06-18"];

/// The `_meta` key that carries a stateless request's protocol version.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The `_meta` key that carries a stateless request's client capabilities.
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// The `_meta` key by which a stateless request asks for log messages.
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// JSON-RPC error codes.
pub mod code {
    /// The message is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message is not a JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params, or an unknown tool.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A server-side defect.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers missing, or disagreeing with the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability the client did not declare.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// A protocol version the server does not speak.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// What a transport knows of a request besides its body: over HTTP, the
/// headers the 2026-07-28 revision requires and checks against the body.
#[derive(Debug, Clone, Copy, Default)]
pub struct Headers<'a> {
    /// Whether the request came over HTTP (where 2026-07-28 requests must
    /// carry `MCP-Protocol-Version`, `Mcp-Method` and, naming a tool,
    /// `Mcp-Name`).
    pub http: bool,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
    /// `Mcp-Method`.
    pub method: Option<&'a str>,
    /// `Mcp-Name`.
    pub name: Option<&'a str>,
    /// The `Mcp-Param-<name>` headers, as `(name, value)`: arguments a tool
    /// marks with `x-mcp-header`, mirrored for routing.
    pub params: &'a [(&'a str, &'a str)],
    /// The W3C trace context of the HTTP request (`traceparent`,
    /// `tracestate`): the parent of the request's span when its `_meta`
    /// names none, else linked to it.
    pub trace_context: (Option<&'a str>, Option<&'a str>),
    /// The first of the MCP headers above that the request sent more than
    /// once, if any: which of its values counts is ambiguous (a proxy may
    /// route on one, the server read another), so the request is refused.
    pub repeated: Option<&'static str>,
    /// The scopes of the caller's access token, when it sent one (HTTP
    /// with OAuth): a call of a tool its client has that they do not
    /// unlock is answered with a [`Reply::denial`].
    pub scopes: Option<&'a [String]>,
}

impl Headers<'static> {
    /// No headers: stdio, or a caller of the core of its own.
    pub const NONE: Headers<'static> = Headers {
        http: false,
        protocol_version: None,
        method: None,
        name: None,
        params: &[],
        trace_context: (None, None),
        repeated: None,
        scopes: None,
    };
}

/// What the core makes of a request: a reply to send, or a stream of
/// notifications for the transport to open (`subscriptions/listen`).
#[derive(Debug)]
#[non_exhaustive]
pub enum Answer {
    /// Send this.
    Reply(Reply),
    /// Open a notification stream for this subscription.
    Stream(Subscription),
}

/// The notification that a client's tool list changed (handshake era).
pub const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;

/// The protocol core: the server's identity and list settings.
#[derive(Debug, Clone)]
pub struct Protocol {
    identity: Identity,
    page_size: usize,
    list_ttl_ms: u64,
    state_key: StateKey,
    #[cfg(feature = "otel")]
    telemetry: Option<std::sync::Arc<Telemetry>>,
}

/// What a connection has agreed on (handshake era): the protocol version
/// and the least severe log level the client wants (`info` until it says
/// otherwise with `logging/setLevel`). Over HTTP each request is a session
/// of its own.
#[derive(Debug, Clone)]
pub struct Session {
    protocol: Option<&'static str>,
    log_level: LogLevel,
    capabilities: Option<Value>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            protocol: None,
            log_level: LogLevel::Info,
            capabilities: None,
        }
    }
}

impl Session {
    /// The protocol version agreed at `initialize`, if any.
    pub fn protocol(&self) -> Option<&'static str> {
        self.protocol
    }

    /// The least severe log level the client wants.
    pub fn log_level(&self) -> LogLevel {
        self.log_level
    }
}

/// Whom a tool call is for, and by whom.
struct Target<'a> {
    snapshot: &'a Snapshot,
    client: &'a ClientView,
    /// The revision the answer is shaped for.
    revision: ProtocolRevision,
    caller: Caller,
    /// 2026-07-28: the round of answers and questions.
    round: Option<Arc<Round>>,
}

/// The era a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Handshake,
    Stateless,
}

impl Protocol {
    /// The core for a server with `identity`: lists in pages of at most
    /// 1,000 tools, cacheable by stateless clients for a minute.
    pub fn new(identity: Identity) -> Protocol {
        Protocol {
            identity,
            page_size: 1_000,
            list_ttl_ms: 60_000,
            state_key: StateKey::random(),
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }

    /// The same, with a span and metrics for every request (feature
    /// `otel`).
    #[cfg(feature = "otel")]
    pub fn with_telemetry(mut self, telemetry: Telemetry) -> Protocol {
        self.telemetry = Some(std::sync::Arc::new(telemetry));
        self
    }

    /// The same, sealing the `requestState` of input-required results
    /// (2026-07-28) with `key`. Replicas that share the key can continue
    /// each other's calls; the default key is this process's own.
    pub fn with_state_key(mut self, key: StateKey) -> Protocol {
        self.state_key = key;
        self
    }

    /// The same, with at most `page_size` tools per `tools/list` page.
    pub fn with_page_size(mut self, page_size: usize) -> Protocol {
        self.page_size = page_size.max(1);
        self
    }

    /// The same, with lists cacheable for `ttl_ms` (`ttlMs`).
    pub fn with_list_ttl_ms(mut self, ttl_ms: u64) -> Protocol {
        self.list_ttl_ms = ttl_ms;
        self
    }

    /// The server's identity.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Answers one request from `client`: checks which protocol era it
    /// belongs to (and, for 2026-07-28, its `_meta` and `headers`), then
    /// the method that era serves.
    pub async fn handle(
        &self,
        snapshot: &Snapshot,
        client: &ClientView,
        session: &mut Session,
        request: Request,
        headers: &Headers<'_>,
        back: &Backchannel,
    ) -> Answer {
        #[cfg(feature = "otel")]
        if let Some(telemetry) = &self.telemetry {
            use opentelemetry::context::FutureExt as _;
            let version = headers
                .protocol_version
                .or_else(|| request.meta_version().and_then(Value::as_str))
                .or(session.protocol);
            let observed = telemetry.start(&request, client, headers, version);
            let context = observed.context.clone();
            let answer = self
                .answer(snapshot, client, session, request, headers, back)
                .with_context(context)
                .await;
            telemetry.finish(observed, &answer);
            return answer;
        }
        self.answer(snapshot, client, session, request, headers, back)
            .await
    }

    async fn answer(
        &self,
        snapshot: &Snapshot,
        client: &ClientView,
        session: &mut Session,
        mut request: Request,
        headers: &Headers<'_>,
        back: &Backchannel,
    ) -> Answer {
        // A call the caller's token may not make is refused before
        // anything else is read of it, as HTTP refuses a credential.
        if let Some(held) = headers.scopes
            && request.method() == "tools/call"
            && let Some(name) = request.params().get("name").and_then(Value::as_str)
            && let Some(denial) = snapshot.denial(client, name, held)
        {
            return Answer::Reply(denied(request.id(), denial));
        }
        let era = match Era::admit(&request, headers) {
            Ok(era) => era,
            Err(refused) => return Answer::Reply(refused),
        };
        let id = request.id().clone();
        let revision = era.revision(session, headers);
        let text = match (era, request.method()) {
            (_, "tools/list") => {
                return Answer::Reply(self.list(&id, era, revision, client, request.params()));
            }
            (_, "tools/call") => {
                let arguments = request.take_arguments();
                if era == Era::Stateless
                    && headers.http
                    && let Err(message) =
                        headers.check_call(client, &request, arguments.as_ref().map(Sent::text))
                {
                    return Answer::Reply(refusal(era, &id, code::HEADER_MISMATCH, &message, None));
                }
                let (caller, round) = match self.caller(era, client, session, &request, back) {
                    Ok(found) => found,
                    Err(refused) => return Answer::Reply(refused),
                };
                let target = Target {
                    snapshot,
                    client,
                    revision,
                    caller,
                    round,
                };
                return Answer::Reply(
                    self.call(&id, era, target, request.params(), arguments)
                        .await,
                );
            }
            (Era::Handshake, "initialize") => self.initialize(&id, request.params(), session),
            (Era::Handshake, "ping") => success(&id, Map::new()),
            (Era::Handshake, "logging/setLevel") => {
                self.set_log_level(&id, request.params(), session)
            }
            (Era::Stateless, "server/discover") => self.discover(&id),
            (Era::Stateless, "subscriptions/listen") => {
                return Answer::Stream(Subscription::new(id, request.params()));
            }
            (era, other) => {
                return Answer::Reply(refusal(
                    era,
                    &id,
                    code::METHOD_NOT_FOUND,
                    &format!("Method not found: {other}"),
                    None,
                ));
            }
        };
        Answer::Reply(Reply::from(text))
    }
}

/// An error reply to a request of `era`: over HTTP, a 2026-07-28 refusal
/// carries the status its code calls for (404 for an unknown method, 400
/// for bad params, headers, capabilities or versions); the handshake era's
/// errors travel with 200.
fn refusal(era: Era, id: &Id, code: i64, message: &str, data: Option<Value>) -> Reply {
    let status = match (era, code) {
        (Era::Handshake, _) => 200,
        (Era::Stateless, code::METHOD_NOT_FOUND) => 404,
        (
            Era::Stateless,
            code::INVALID_PARAMS
            | code::HEADER_MISMATCH
            | code::MISSING_CLIENT_CAPABILITY
            | code::UNSUPPORTED_VERSION,
        ) => 400,
        (Era::Stateless, _) => 200,
    };
    Reply::from(error(Some(id), code, message, data))
        .with_status(status)
        .with_outcome(Outcome::Error(code))
}

/// The reply to a call `denial` refuses: the JSON-RPC error a transport
/// without authorization sends, which HTTP answers with its `403`.
fn denied(id: &Id, denial: Denial) -> Reply {
    Reply::from(error(
        Some(id),
        code::INVALID_PARAMS,
        &denial.to_string(),
        None,
    ))
    .with_status(403)
    .with_outcome(Outcome::Denied)
    .with_denial(denial)
}

/// The most bytes of a client's text one message repeats.
const MAX_ECHO: usize = 200;
