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
mod id;
mod message;
mod reply;
mod state;
mod subscription;
mod trace;

#[cfg(feature = "otel")]
mod telemetry;

pub use asking::Pending;
pub use backchannel::Backchannel;
pub use id::Id;
pub use message::{ClientResponse, Incoming, Notification, Request};
pub use reply::{Outcome, Reply, error};
pub use state::StateKey;
pub use subscription::Subscription;
#[cfg(feature = "otel")]
pub use telemetry::Telemetry;
pub use trace::Trace;

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use toolschema_runtime::call::{CallError, Caller, LogLevel, StructuredJson};

use asking::{Round, input_requests};
use backchannel::CallPeer;
use state::RequestState;
use toolschema_catalog::{ClientView, Snapshot};
use toolschema_runtime::project::{META_TOOL, Mode, Profile, Revision};
use toolschema_text::shorten::shorten;

use message::{cursor, parse_cursor};
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

/// Who the server is: `serverInfo` in `initialize` and `server/discover`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    website_url: Option<String>,
}

impl Identity {
    /// A server called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Identity {
        Identity {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
        }
    }

    /// The same, with a description (shown to clients of protocol
    /// 2025-11-25 and later, and exported as `server.json`'s).
    pub fn with_description(mut self, description: impl Into<String>) -> Identity {
        self.description = Some(description.into());
        self
    }

    /// The same, with the server's homepage.
    pub fn with_website_url(mut self, url: impl Into<String>) -> Identity {
        self.website_url = Some(url.into());
        self
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The homepage, if any.
    pub fn website_url(&self) -> Option<&str> {
        self.website_url.as_deref()
    }

    /// The same, with a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Identity {
        self.title = Some(title.into());
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The display title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// `serverInfo` for `version`: a description and a homepage only from
    /// 2025-11-25, whose `Implementation` has them.
    fn to_json(&self, version: &str) -> Value {
        let mut info = json!({"name": self.name, "version": self.version});
        if let Some(title) = &self.title {
            info["title"] = json!(title);
        }
        if version != HANDSHAKE_VERSIONS[0] {
            if let Some(description) = &self.description {
                info["description"] = json!(description);
            }
            if let Some(url) = &self.website_url {
                info["websiteUrl"] = json!(url);
            }
        }
        info
    }
}

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
    revision: Revision,
    caller: Caller,
    /// 2026-07-28: the round of answers and questions.
    round: Option<Arc<Round>>,
}

/// The revision a reply is shaped for: 2026-07-28 for a stateless request;
/// in the handshake era the version agreed at `initialize`, else the one the
/// `MCP-Protocol-Version` header names, else the oldest served (an HTTP
/// client that sends no header predates the header).
fn revision_of(era: Era, session: &Session, headers: &Headers<'_>) -> Revision {
    if era == Era::Stateless {
        return Revision::V2026_07_28;
    }
    session
        .protocol
        .or(headers.protocol_version.map(str::trim))
        .and_then(Revision::from_version)
        .unwrap_or(Revision::V2025_06_18)
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
        let era = match admit(&request, headers) {
            Ok(era) => era,
            Err(refused) => return Answer::Reply(refused),
        };
        let id = request.id().clone();
        let revision = revision_of(era, session, headers);
        let text = match (era, request.method()) {
            (_, "tools/list") => {
                return Answer::Reply(self.list(&id, era, revision, client, request.params()));
            }
            (_, "tools/call") => {
                let arguments = request.params_mut().remove("arguments");
                if era == Era::Stateless && headers.http {
                    let tool = request.params().get("name").and_then(Value::as_str);
                    // Only a client shown the `x-mcp-header` annotations can
                    // send the headers: not one whose dialect drops them, nor
                    // one shown the tool without its properties.
                    let shown = client.profile() == Profile::Default;
                    let def = tool
                        .filter(|tool| shown && client.mode_of(tool) != Some(Mode::Lazy))
                        .and_then(|tool| client.def_of(tool));
                    if let Some(Err(message)) =
                        def.map(|def| check_param_headers(def, arguments.as_ref(), headers))
                    {
                        return Answer::Reply(refusal(
                            era,
                            &id,
                            code::HEADER_MISMATCH,
                            &message,
                            None,
                        ));
                    }
                }
                let tool = request
                    .params()
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let (min_level, capabilities, round) = match era {
                    Era::Handshake => (Some(session.log_level), session.capabilities.clone(), None),
                    Era::Stateless => {
                        let round = match self.round(&request, client.id(), tool) {
                            Ok(round) => Arc::new(round),
                            Err(refused) => return Answer::Reply(refused),
                        };
                        let min_level = request
                            .meta(LOG_LEVEL_KEY)
                            .and_then(Value::as_str)
                            .and_then(LogLevel::from_name);
                        (
                            min_level,
                            request.meta(CAPABILITIES_KEY).cloned(),
                            Some(round),
                        )
                    }
                };
                let peer = back.peer(CallPeer {
                    client: client.id().to_owned(),
                    progress_token: request.meta("progressToken").cloned(),
                    min_level,
                    capabilities,
                    round: round.clone(),
                });
                let caller = back.caller(Arc::new(peer));
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
                match request
                    .params()
                    .get("level")
                    .and_then(Value::as_str)
                    .and_then(LogLevel::from_name)
                {
                    Some(level) => {
                        session.log_level = level;
                        success(&id, Map::new())
                    }
                    None => error(
                        Some(&id),
                        code::INVALID_PARAMS,
                        "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                        None,
                    ),
                }
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

    /// The protocol version a reply to `request` belongs to: 2026-07-28
    /// when its `_meta` says so, else the version the session agreed on,
    /// else the one an HTTP client names in its `MCP-Protocol-Version`
    /// header, else the newest handshake-era version (an `initialize` names
    /// its own).
    pub fn version_of(
        request: Option<&Request>,
        session: &Session,
        header: Option<&str>,
    ) -> &'static str {
        if request.is_some_and(Request::is_stateless) {
            return STATELESS_VERSION;
        }
        if let Some(version) = session.protocol {
            return version;
        }
        let named = header.or_else(|| {
            request
                .filter(|r| r.method() == "initialize")
                .and_then(|r| r.params().get("protocolVersion"))
                .and_then(Value::as_str)
        });
        HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == named)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[1])
    }

    /// A result object, with `resultType` in the stateless era.
    fn result(&self, era: Era, body: Map<String, Value>) -> Map<String, Value> {
        match era {
            Era::Handshake => body,
            Era::Stateless => {
                let mut out = Map::new();
                out.insert("resultType".into(), json!("complete"));
                out.extend(body);
                out
            }
        }
    }

    fn initialize(&self, id: &Id, params: &Map<String, Value>, session: &mut Session) -> String {
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        // Agree on the client's version if served, else offer the newest.
        let version = HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == requested)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[1]);
        session.protocol = Some(version);
        session.capabilities = params.get("capabilities").cloned();
        success(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "serverInfo": self.identity.to_json(version),
            }),
        )
    }

    fn discover(&self, id: &Id) -> String {
        success(
            id,
            json!({
                "resultType": "complete",
                "supportedVersions": SUPPORTED_VERSIONS,
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": self.identity.to_json(STATELESS_VERSION)},
                "ttlMs": self.list_ttl_ms,
                "cacheScope": "private",
            }),
        )
    }

    /// `tools/list`: the client's pre-serialized entries, paged, sent as
    /// parts of the snapshot's own text.
    fn list(
        &self,
        id: &Id,
        era: Era,
        revision: Revision,
        client: &ClientView,
        params: &Map<String, Value>,
    ) -> Reply {
        let entries = client.entries(revision);
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(text)) => match parse_cursor(text) {
                Some((fingerprint, offset))
                    if fingerprint == client.fingerprint(revision) && offset <= entries.len() =>
                {
                    offset
                }
                _ => {
                    return refusal(
                        era,
                        id,
                        code::INVALID_PARAMS,
                        "Invalid cursor: it is not from this tool list (the list may have changed); list again without a cursor",
                        None,
                    );
                }
            },
            Some(_) => {
                return refusal(
                    era,
                    id,
                    code::INVALID_PARAMS,
                    "Invalid params: cursor must be a string",
                    None,
                );
            }
        };
        let end = (start + self.page_size).min(entries.len());
        let mut reply = Reply::default();
        let mut head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"#);
        if era == Era::Stateless {
            head.push_str(r#""resultType":"complete","#);
        }
        if start == 0 && end == entries.len() {
            // The whole list: the pre-serialized `{"tools":[...]}`, unbraced.
            reply.push(head);
            let list = client.list_json(revision);
            reply.share(list, 1..list.len() - 1);
        } else {
            head.push_str(r#""tools":["#);
            reply.push(head);
            for (i, entry) in entries[start..end].iter().enumerate() {
                if i > 0 {
                    reply.push(",");
                }
                reply.share(entry, 0..entry.len());
            }
            reply.push("]");
        }
        let mut tail = String::new();
        if end < entries.len() {
            tail.push_str(&format!(
                r#","nextCursor":"{}""#,
                cursor(client.fingerprint(revision), end)
            ));
        }
        if era == Era::Stateless {
            tail.push_str(&format!(
                r#","ttlMs":{},"cacheScope":"private""#,
                self.list_ttl_ms
            ));
        }
        tail.push_str("}}");
        reply.push(tail);
        reply
    }

    async fn call(
        &self,
        id: &Id,
        era: Era,
        target: Target<'_>,
        params: &Map<String, Value>,
        arguments: Option<Value>,
    ) -> Reply {
        let Target {
            snapshot,
            client,
            revision,
            caller,
            round,
        } = target;
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return refusal(
                era,
                id,
                code::INVALID_PARAMS,
                "Invalid params: tools/call needs a tool \"name\"",
                None,
            );
        };
        let arguments = match arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(arguments) => arguments,
        };
        let unknown = |name: &str| {
            refusal(
                era,
                id,
                code::INVALID_PARAMS,
                &format!("Unknown tool: {}", shorten(name, MAX_ECHO)),
                None,
            )
        };
        if name == META_TOOL {
            if !client.has_meta_tool() {
                return unknown(name);
            }
            let Some(target) = arguments.get("name").and_then(Value::as_str) else {
                return self.tool_result(
                    id,
                    era,
                    text("discover_tool_schema needs a tool \"name\" (a string)."),
                    None,
                    true,
                );
            };
            return match Snapshot::discover_in(client, target, revision) {
                Ok(descriptor) => {
                    let value: Value = serde_json::from_str(&descriptor).unwrap_or(Value::Null);
                    self.tool_result(id, era, text(&descriptor), Some(value), false)
                }
                Err(_) => unknown(target),
            };
        }
        let outcome = snapshot.call_in(client, name, arguments, caller).await;
        if let Some(round) = &round {
            if let Some(capability) = round.missing() {
                let mut required = Map::new();
                required.insert(capability.into(), json!({}));
                return refusal(
                    era,
                    id,
                    code::MISSING_CLIENT_CAPABILITY,
                    &format!(
                        "Missing client capability: `{name}` needs `{capability}`, which the client did not declare"
                    ),
                    Some(json!({"requiredCapabilities": required})),
                );
            }
            let asked = round.asked();
            if !asked.is_empty() {
                return self.input_required(id, name, client.id(), round, &asked);
            }
        }
        match outcome {
            Ok(result) => {
                let (content, structured) = result.into_json();
                let structured = match structured {
                    // Kept as its text (a large mapped answer): an object,
                    // which every revision takes as it is.
                    Some(StructuredJson::Text(json)) => {
                        return self.tool_result_text(id, era, content, &json);
                    }
                    Some(StructuredJson::Value(value)) => Some(match client.def_of(name) {
                        Some(def) => revision.fit_result(def, value),
                        None => value,
                    }),
                    _ => None,
                };
                self.tool_result(id, era, content, structured, false)
            }
            Err(CallError::UnknownTool { .. }) => unknown(name),
            Err(CallError::InvalidArguments(errors)) => {
                let message = format!("The arguments for `{name}` were refused: {errors}");
                self.tool_result(id, era, text(&message), None, true)
            }
            Err(CallError::Tool(failure)) => {
                self.tool_result(id, era, text(failure.message()), None, true)
            }
            Err(defect) => refusal(
                era,
                id,
                code::INTERNAL_ERROR,
                &format!("Internal error: {defect}"),
                None,
            ),
        }
    }

    /// The round of answers a 2026-07-28 call comes with: those of its
    /// sealed `requestState`, and the new ones (`inputResponses`) to the
    /// questions last asked. A state that fails its check is refused.
    fn round(&self, request: &Request, client: &str, tool: &str) -> Result<Round, Reply> {
        let invalid = |message: &str| {
            Err(refusal(
                Era::Stateless,
                request.id(),
                code::INVALID_PARAMS,
                message,
                None,
            ))
        };
        let responses = match request.params().get("inputResponses") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(responses)) => responses.clone(),
            Some(_) => {
                return invalid(
                    "Invalid params: inputResponses must be an object of answers by question key",
                );
            }
        };
        let answers = match request.params().get("requestState") {
            None | Some(Value::Null) => responses,
            Some(Value::String(sealed)) => {
                let Some(state) = self
                    .state_key
                    .open(sealed)
                    .filter(|state| state.tool == tool && state.client == client)
                else {
                    return invalid(
                        "Invalid params: requestState failed its integrity check (altered, expired, or not from this call); call the tool again without it",
                    );
                };
                let mut answers = state.answers;
                for key in state.asked {
                    if let Some(answer) = responses.get(&key) {
                        answers.insert(key, answer.clone());
                    }
                }
                answers
            }
            Some(_) => return invalid("Invalid params: requestState must be a string"),
        };
        Ok(Round::new(answers))
    }

    /// The input-required result of a round that ended with questions.
    fn input_required(
        &self,
        id: &Id,
        tool: &str,
        client: &str,
        round: &Round,
        asked: &[toolschema_runtime::call::Question],
    ) -> Reply {
        let keys = asked.iter().map(|q| q.key().to_owned()).collect();
        let state = RequestState::new(tool, client, round.answers().clone(), keys);
        Reply::from(success(
            id,
            json!({
                "resultType": "input_required",
                "inputRequests": input_requests(asked),
                "requestState": self.state_key.seal(&state),
            }),
        ))
    }

    fn tool_result(
        &self,
        id: &Id,
        era: Era,
        content: Value,
        structured: Option<Value>,
        is_error: bool,
    ) -> Reply {
        // `content` is the whole array.
        let mut result = Map::new();
        result.insert("content".into(), content);
        if let Some(structured) = structured {
            result.insert("structuredContent".into(), structured);
        }
        if is_error {
            result.insert("isError".into(), json!(true));
        }
        let outcome = match is_error {
            true => Outcome::ToolError,
            false => Outcome::Success,
        };
        Reply::from(success(id, self.result(era, result))).with_outcome(outcome)
    }

    /// [`tool_result`](Self::tool_result) of a success whose structured
    /// result is JSON text, written as it is (its members in the order a
    /// map of [`result`](Self::result) writes them).
    fn tool_result_text(&self, id: &Id, era: Era, content: Value, structured: &RawValue) -> Reply {
        #[derive(serde::Serialize)]
        struct Written<'a> {
            content: Value,
            #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
            result_type: Option<&'static str>,
            #[serde(rename = "structuredContent")]
            structured: &'a RawValue,
        }
        let written = Written {
            content,
            result_type: matches!(era, Era::Stateless).then_some("complete"),
            structured,
        };
        Reply::from(success(id, written)).with_outcome(Outcome::Success)
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

/// The era `request` belongs to, or the refusal to send: a request with a
/// protocol version in `_meta`, or a non-handshake `MCP-Protocol-Version`
/// header, is a 2026-07-28 request, whose `_meta` must name the version and
/// the client's capabilities, agree with the headers, and name a version
/// served.
fn admit(request: &Request, headers: &Headers<'_>) -> Result<Era, Reply> {
    let header = headers.protocol_version.map(str::trim);
    let meta_version = request.meta_version();
    let refuse =
        |code, message: &str, data| Err(refusal(Era::Stateless, request.id(), code, message, data));
    let unsupported = |requested: &str| {
        let requested = shorten(requested, MAX_ECHO);
        refuse(
            code::UNSUPPORTED_VERSION,
            &format!("Unsupported protocol version: {requested}"),
            Some(json!({"supported": SUPPORTED_VERSIONS, "requested": requested})),
        )
    };
    if let Some(name) = headers.repeated {
        return refuse(
            code::HEADER_MISMATCH,
            &format!("Header mismatch: the {name} header is sent more than once; send it once"),
            None,
        );
    }
    match (meta_version, header) {
        (None, None) => return Ok(Era::Handshake),
        (None, Some(header)) if HANDSHAKE_VERSIONS.contains(&header) => return Ok(Era::Handshake),
        (None, Some(header)) if header != STATELESS_VERSION => return unsupported(header),
        _ => {}
    }
    if headers.http && header.is_none() {
        return refuse(
            code::HEADER_MISMATCH,
            "Header mismatch: a 2026-07-28 request needs the MCP-Protocol-Version header",
            None,
        );
    }
    let missing: Vec<&str> = [VERSION_KEY, CAPABILITIES_KEY]
        .into_iter()
        .filter(|key| request.meta(key).is_none())
        .collect();
    if !missing.is_empty() {
        return refuse(
            code::INVALID_PARAMS,
            &format!(
                "Invalid params: a 2026-07-28 request's _meta must carry {}",
                missing.join(" and ")
            ),
            None,
        );
    }
    let Some(version) = meta_version.and_then(Value::as_str) else {
        return refuse(
            code::INVALID_PARAMS,
            &format!("Invalid params: _meta {VERSION_KEY} must be a string"),
            None,
        );
    };
    if let Some(header) = header.filter(|header| *header != version) {
        return refuse(
            code::HEADER_MISMATCH,
            &format!(
                "Header mismatch: the MCP-Protocol-Version header says {}, _meta says {}",
                shorten(header, MAX_ECHO),
                shorten(version, MAX_ECHO)
            ),
            None,
        );
    }
    if version != STATELESS_VERSION {
        return unsupported(version);
    }
    if headers.http {
        check_routing_headers(request, headers).map_err(|message| {
            refusal(
                Era::Stateless,
                request.id(),
                code::HEADER_MISMATCH,
                &message,
                None,
            )
        })?;
    }
    Ok(Era::Stateless)
}

/// The most bytes of a client's text one message repeats.
const MAX_ECHO: usize = 200;

/// The 2026-07-28 routing headers: `Mcp-Method` must be the body's method,
/// exactly (values are case-sensitive; surrounding whitespace is not part
/// of a value), and `Mcp-Name` the name or URI the body targets.
fn check_routing_headers(request: &Request, headers: &Headers<'_>) -> Result<(), String> {
    // What either side says is echoed cut short: both are the client's.
    let echo = |text: &str| shorten(text, MAX_ECHO).into_owned();
    match headers.method.map(str::trim) {
        Some(method) if method == request.method() => {}
        Some(method) => {
            return Err(format!(
                "Header mismatch: the Mcp-Method header says {}, the body's method is {}",
                echo(method),
                echo(request.method())
            ));
        }
        None => {
            return Err(format!(
                "Header mismatch: the Mcp-Method header is missing; send Mcp-Method: {}",
                echo(request.method())
            ));
        }
    }
    let key = match request.method() {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let Some(target) = request.params().get(key).and_then(Value::as_str) else {
        return Ok(());
    };
    match headers.name.map(str::trim) {
        Some(name) if name == target => Ok(()),
        Some(name) => Err(format!(
            "Header mismatch: the Mcp-Name header says {}, the body names {}",
            echo(name),
            echo(target)
        )),
        None => Err(format!(
            "Header mismatch: the Mcp-Name header is missing; send Mcp-Name: {}",
            echo(target)
        )),
    }
}

/// The arguments a tool mirrors in `Mcp-Param-<name>` headers
/// (`x-mcp-header`) must agree with the body: a value in the body needs its
/// header, and a header its value; a header value is literal, or base64
/// as `=?base64?…?=` (which must decode).
fn check_param_headers(
    def: &toolschema_runtime::ToolDef,
    arguments: Option<&Value>,
    headers: &Headers<'_>,
) -> Result<(), String> {
    use base64::Engine;
    let toolschema_runtime::model::Node::Object(object) = &*def.input else {
        return Ok(());
    };
    for field in &object.fields {
        let Some(name) = &field.header else { continue };
        let body = arguments
            .and_then(|a| a.get(&*field.exposed))
            .and_then(|value| match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
                _ => None,
            });
        let header = headers
            .params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim());
        let header = match header {
            Some(raw) => match raw
                .strip_prefix("=?base64?")
                .and_then(|rest| rest.strip_suffix("?="))
            {
                Some(encoded) => {
                    let decoded = base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .ok()
                        .and_then(|bytes| String::from_utf8(bytes).ok());
                    match decoded {
                        Some(decoded) => Some(decoded),
                        None => {
                            return Err(format!(
                                "Header mismatch: Mcp-Param-{name} is not valid base64 inside =?base64?…?="
                            ));
                        }
                    }
                }
                None => Some(raw.to_owned()),
            },
            None => None,
        };
        match (body, header) {
            (None, None) => {}
            (Some(body), Some(header)) if body == header => {}
            (Some(_), None) => {
                return Err(format!(
                    "Header mismatch: `{}` is in the body, so send it as the Mcp-Param-{name} header too",
                    field.exposed
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{name} is sent, but `{}` is not in the body",
                    field.exposed
                ));
            }
            (Some(_), Some(_)) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{name} does not match `{}` in the body",
                    field.exposed
                ));
            }
        }
    }
    Ok(())
}

/// A `content` array of one text block.
fn text(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}
