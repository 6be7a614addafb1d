//! The MCP protocol over a catalog snapshot: JSON-RPC messages in, JSON-RPC
//! messages out, for one authenticated client application. Transports
//! (stdio, Streamable HTTP) carry the bytes; this module decides what they
//! say.
//!
//! Both protocol eras are served: the handshake era (`initialize`,
//! 2025-06-18 and 2025-11-25) and the stateless 2026-07-28 revision
//! (`server/discover`, `_meta` on every request, `resultType`, and `ttlMs`
//! with `cacheScope` on lists).
//!
//! Error policy (DESIGN §5): an unknown or invisible tool, or malformed
//! params, is a JSON-RPC error -32602; arguments that break the schema are a
//! result with `isError: true` listing every violation; a result that breaks
//! its own output schema is an internal error (-32603), never sent as valid.
//! `tools/list` is answered from the snapshot's pre-serialized bytes.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::call::CallError;
use crate::catalog::{ClientView, Snapshot};
use crate::project::META_TOOL;

/// The handshake-era protocol versions served, oldest first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

/// The stateless protocol version served.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// The `_meta` key that carries a stateless request's protocol version.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

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
    /// A protocol version the server does not speak.
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// The server's identity and list settings.
#[derive(Debug, Clone)]
pub struct Server {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// The most tools in one `tools/list` page.
    pub page_size: usize,
    /// How long a stateless client may cache a list (`ttlMs`).
    pub list_ttl_ms: u64,
}

impl Default for Server {
    fn default() -> Server {
        Server {
            name: "toolschema".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            page_size: 1_000,
            list_ttl_ms: 60_000,
        }
    }
}

/// What a connection has agreed on (handshake era).
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// The negotiated protocol version, after `initialize`.
    pub protocol: Option<&'static str>,
}

/// The notification that a client's tool list changed.
pub const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;

/// A reply ready to send: its text in parts, written in order. The tool
/// list is a part shared with the snapshot, never copied: a 1,000-tool list
/// is megabytes.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Owned(String),
    /// A range of bytes of a snapshot's text.
    Shared(Arc<str>, core::ops::Range<usize>),
}

impl Reply {
    /// The parts' text, in order.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map(|part| match part {
            Part::Owned(text) => text.as_str(),
            Part::Shared(text, range) => &text[range.clone()],
        })
    }

    /// The shared parts and their ranges, and the owned text, for transports
    /// that hand bytes to the network without copying: each item is either a
    /// shared string with the range to send, or owned text.
    pub fn into_chunks(
        self,
    ) -> impl Iterator<Item = Result<(Arc<str>, core::ops::Range<usize>), String>> {
        self.parts.into_iter().map(|part| match part {
            Part::Owned(text) => Err(text),
            Part::Shared(text, range) => Ok((text, range)),
        })
    }

    /// The total length in bytes.
    pub fn len(&self) -> usize {
        self.parts().map(str::len).sum()
    }

    /// Whether the reply is empty (it never is).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, text: impl Into<String>) {
        self.parts.push(Part::Owned(text.into()));
    }

    fn share(&mut self, text: &Arc<str>, range: core::ops::Range<usize>) {
        self.parts.push(Part::Shared(text.clone(), range));
    }
}

impl From<String> for Reply {
    fn from(text: String) -> Reply {
        Reply {
            parts: vec![Part::Owned(text)],
        }
    }
}

impl core::fmt::Display for Reply {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.parts().try_for_each(|part| f.write_str(part))
    }
}

/// The era a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Handshake,
    Stateless,
}

/// A reply under construction: a JSON-RPC response text.
fn response(id: &Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id)
}

/// A JSON-RPC error response. Without a request id (unreadable messages)
/// the `id` member is left out, as MCP's schemas from 2025-11-25 allow.
pub fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> String {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut response = json!({"jsonrpc": "2.0", "error": error});
    if !id.is_null() {
        response["id"] = id.clone();
    }
    response.to_string()
}

impl Server {
    /// Handles one JSON-RPC message from `client` and returns the reply, if
    /// the message wants one (notifications get none).
    pub async fn handle(
        &self,
        snapshot: &Snapshot,
        client: &ClientView,
        session: &mut Session,
        message: &[u8],
    ) -> Option<Reply> {
        let mut message: Value = match serde_json::from_slice(message) {
            Ok(value) => value,
            Err(e) => {
                return Some(Reply::from(error(
                    &Value::Null,
                    code::PARSE_ERROR,
                    &format!("Parse error: {e}"),
                    None,
                )));
            }
        };
        // A call's arguments are moved out of the request, not copied.
        let arguments = match message.get("method").and_then(Value::as_str) {
            Some("tools/call") => message
                .get_mut("params")
                .and_then(|params| params.get_mut("arguments"))
                .map(Value::take),
            _ => None,
        };
        let Some(request) = message.as_object() else {
            return Some(Reply::from(error(
                &Value::Null,
                code::INVALID_REQUEST,
                "Invalid request: send one JSON-RPC object per message",
                None,
            )));
        };
        let id = request.get("id").cloned();
        let method = request.get("method").and_then(Value::as_str);
        let (Some(method), true) = (method, request.get("jsonrpc") == Some(&json!("2.0"))) else {
            if request.contains_key("result") || request.contains_key("error") {
                // A response from the client: nothing to answer.
                return None;
            }
            return Some(Reply::from(error(
                &id.unwrap_or(Value::Null),
                code::INVALID_REQUEST,
                "Invalid request: a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\" and a \"method\"",
                None,
            )));
        };
        let Some(id) = id else {
            // Notifications (`notifications/initialized`, …) need no reply.
            return None;
        };
        let empty = Map::new();
        let params = match request.get("params") {
            None => &empty,
            Some(Value::Object(params)) => params,
            Some(_) => {
                return Some(Reply::from(error(
                    &id,
                    code::INVALID_PARAMS,
                    "Invalid params: params must be an object",
                    None,
                )));
            }
        };
        let era = match params.get("_meta").and_then(|m| m.get(VERSION_KEY)) {
            None => Era::Handshake,
            Some(Value::String(v)) if v == STATELESS_VERSION => Era::Stateless,
            Some(requested) => {
                let data = json!({"supported": [STATELESS_VERSION, HANDSHAKE_VERSIONS[1], HANDSHAKE_VERSIONS[0]], "requested": requested});
                return Some(Reply::from(error(
                    &id,
                    code::UNSUPPORTED_VERSION,
                    "Unsupported protocol version",
                    Some(data),
                )));
            }
        };
        if method == "tools/list" {
            return Some(self.list(&id, era, client, params));
        }
        Some(Reply::from(match method {
            "initialize" => self.initialize(&id, params, session),
            "server/discover" => self.discover(&id),
            "ping" => response(&id, &self.result(era, "{}")),
            "tools/call" => {
                self.call(&id, era, snapshot, client, params, arguments)
                    .await
            }
            // Transports open these streams themselves (see `Subscription`).
            "subscriptions/listen" => error(
                &id,
                code::METHOD_NOT_FOUND,
                "subscriptions/listen needs a transport that streams",
                None,
            ),
            other => error(
                &id,
                code::METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
                None,
            ),
        }))
    }

    /// A result object, with `resultType` in the stateless era.
    fn result(&self, era: Era, body: &str) -> String {
        match era {
            Era::Handshake => body.to_owned(),
            Era::Stateless if body == "{}" => r#"{"resultType":"complete"}"#.to_owned(),
            Era::Stateless => format!(r#"{{"resultType":"complete",{}"#, &body[1..]),
        }
    }

    fn server_info(&self) -> Value {
        json!({"name": self.name, "version": self.version})
    }

    fn initialize(&self, id: &Value, params: &Map<String, Value>, session: &mut Session) -> String {
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        // Agree on the client's version if served, else offer the newest.
        let version = HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == requested)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[1]);
        session.protocol = Some(version);
        let result = json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": true}},
            "serverInfo": self.server_info(),
        });
        response(id, &result.to_string())
    }

    fn discover(&self, id: &Value) -> String {
        let result = json!({
            "resultType": "complete",
            "supportedVersions": [STATELESS_VERSION],
            "capabilities": {"tools": {"listChanged": true}},
            "_meta": {"io.modelcontextprotocol/serverInfo": self.server_info()},
            "ttlMs": self.list_ttl_ms,
            "cacheScope": "private",
        });
        response(id, &result.to_string())
    }

    /// `tools/list`: the client's pre-serialized entries, paged, sent as
    /// parts of the snapshot's own text.
    fn list(
        &self,
        id: &Value,
        era: Era,
        client: &ClientView,
        params: &Map<String, Value>,
    ) -> Reply {
        let entries = client.entries();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => match parse_cursor(cursor) {
                Some((fingerprint, offset))
                    if fingerprint == client.fingerprint() && offset <= entries.len() =>
                {
                    offset
                }
                _ => {
                    return error(
                        id,
                        code::INVALID_PARAMS,
                        "Invalid cursor: it is not from this tool list (the list may have changed); list again without a cursor",
                        None,
                    )
                    .into();
                }
            },
            Some(_) => {
                return error(
                    id,
                    code::INVALID_PARAMS,
                    "Invalid params: cursor must be a string",
                    None,
                )
                .into();
            }
        };
        let end = (start + self.page_size.max(1)).min(entries.len());
        let mut reply = Reply::default();
        let mut head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"#);
        if era == Era::Stateless {
            head.push_str(r#""resultType":"complete","#);
        }
        if start == 0 && end == entries.len() {
            // The whole list: the pre-serialized `{"tools":[...]}`, unbraced.
            reply.push(head);
            let list = client.list_json();
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
                r#","nextCursor":"{:016x}{:08x}""#,
                client.fingerprint(),
                end
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
        id: &Value,
        era: Era,
        snapshot: &Snapshot,
        client: &ClientView,
        params: &Map<String, Value>,
        arguments: Option<Value>,
    ) -> String {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return error(
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
        let unknown = || {
            error(
                id,
                code::INVALID_PARAMS,
                &format!("Unknown tool: {name}"),
                None,
            )
        };
        if name == META_TOOL {
            if !client.has_meta_tool() {
                return unknown();
            }
            let Some(target) = arguments.get("name").and_then(Value::as_str) else {
                return self.tool_result(
                    id,
                    era,
                    &[text(
                        "discover_tool_schema needs a tool \"name\" (a string).",
                    )],
                    None,
                    true,
                );
            };
            return match snapshot.discover_schema(client.id(), target) {
                Ok(descriptor) => {
                    let value: Value = serde_json::from_str(&descriptor).unwrap_or(Value::Null);
                    self.tool_result(id, era, &[text(&descriptor)], Some(&value), false)
                }
                Err(_) => error(
                    id,
                    code::INVALID_PARAMS,
                    &format!("Unknown tool: {target}"),
                    None,
                ),
            };
        }
        let has_output = client
            .tools()
            .any(|(def, _)| def.name == name && def.output.is_some());
        match snapshot.call(client.id(), name, arguments).await {
            Ok(value) => {
                let text_value = value.to_string();
                let structured = has_output.then_some(&value);
                self.tool_result(id, era, &[text(&text_value)], structured, false)
            }
            Err(CallError::UnknownTool { .. }) => unknown(),
            Err(CallError::InvalidArguments(errors)) => {
                let message = format!("The arguments for `{name}` were refused: {errors}");
                self.tool_result(id, era, &[text(&message)], None, true)
            }
            Err(CallError::Tool(failure)) => {
                self.tool_result(id, era, &[text(failure.message())], None, true)
            }
            Err(defect) => error(
                id,
                code::INTERNAL_ERROR,
                &format!("Internal error: {defect}"),
                None,
            ),
        }
    }

    fn tool_result(
        &self,
        id: &Value,
        era: Era,
        content: &[Value],
        structured: Option<&Value>,
        is_error: bool,
    ) -> String {
        let mut result = Map::new();
        if era == Era::Stateless {
            result.insert("resultType".into(), json!("complete"));
        }
        result.insert("content".into(), Value::Array(content.to_vec()));
        if let Some(structured) = structured {
            result.insert("structuredContent".into(), structured.clone());
        }
        if is_error {
            result.insert("isError".into(), json!(true));
        }
        response(id, &Value::Object(result).to_string())
    }
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// The list fingerprint a `tools/list` request's cursor came from, if it
/// carries one: transports use it to answer from the snapshot that made the
/// cursor ([`crate::catalog::Catalog::snapshot_with_list`]).
pub fn cursor_fingerprint(message: &[u8]) -> Option<u64> {
    let message = request_of(message, "tools/list", b"\"cursor\"")?;
    let cursor = message.get("params")?.get("cursor")?.as_str()?;
    parse_cursor(cursor).map(|(fingerprint, _)| fingerprint)
}

/// `(fingerprint, offset)` of a cursor made by [`Server::list`].
fn parse_cursor(cursor: &str) -> Option<(u64, usize)> {
    if cursor.len() != 24 {
        return None;
    }
    let fingerprint = u64::from_str_radix(cursor.get(..16)?, 16).ok()?;
    let offset = usize::from_str_radix(cursor.get(16..)?, 16).ok()?;
    Some((fingerprint, offset))
}

/// A `subscriptions/listen` request (2026-07-28): a long-lived stream of
/// notifications, opened by the transport rather than answered once.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    /// The request id, which every notification on the stream carries.
    pub id: Value,
    /// Whether the client asked for `notifications/tools/list_changed`.
    pub tools: bool,
}

impl Subscription {
    /// The subscription a message opens, if it is a `subscriptions/listen`
    /// request.
    pub fn parse(message: &[u8]) -> Option<Subscription> {
        let message = request_of(message, "subscriptions/listen", b"subscriptions/listen")?;
        let id = message.get("id")?.clone();
        let tools = message
            .get("params")
            .and_then(|p| p.get("notifications"))
            .and_then(|n| n.get("toolsListChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Some(Subscription { id, tools })
    }

    fn meta(&self) -> Value {
        json!({"io.modelcontextprotocol/subscriptionId": self.id})
    }

    /// The acknowledgment that opens the stream: the notification types the
    /// server honors (tool list changes only; it offers nothing else).
    pub fn acknowledgement(&self) -> String {
        let mut honored = Map::new();
        if self.tools {
            honored.insert("toolsListChanged".into(), json!(true));
        }
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": honored, "_meta": self.meta()},
        })
        .to_string()
    }

    /// The response that ends the subscription gracefully (the server is
    /// shutting down): a `SubscriptionsListenResult` answering the listen
    /// request, after which the stream closes.
    ///
    /// ```
    /// use toolschema_runtime::mcp::Subscription;
    ///
    /// let listen = br#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    /// let subscription = Subscription::parse(listen).unwrap();
    /// let end: serde_json::Value = serde_json::from_str(&subscription.ended()).unwrap();
    /// assert_eq!(end["id"], 7);
    /// assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    /// ```
    pub fn ended(&self) -> String {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "result": {"resultType": "complete", "_meta": self.meta()},
        })
        .to_string()
    }

    /// The notification that the client's tool list changed, on this stream;
    /// `None` when the client did not ask for it.
    pub fn tools_changed(&self) -> Option<String> {
        self.tools.then(|| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": self.meta()},
            })
            .to_string()
        })
    }
}

/// The protocol version a message belongs to: 2026-07-28 when its `_meta`
/// says so, else the version the session agreed on, else the one an HTTP
/// client names in its `MCP-Protocol-Version` header, else the newest
/// handshake-era version (an `initialize` names its own).
pub fn version_of(message: &[u8], session: &Session, header: Option<&str>) -> &'static str {
    let parsed: Option<Value> = serde_json::from_slice(message).ok();
    let params = parsed.as_ref().and_then(|m| m.get("params"));
    if params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(VERSION_KEY))
        .and_then(Value::as_str)
        == Some(STATELESS_VERSION)
    {
        return STATELESS_VERSION;
    }
    if let Some(version) = session.protocol {
        return version;
    }
    let named = header.or_else(|| {
        params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
    });
    HANDSHAKE_VERSIONS
        .iter()
        .find(|v| Some(**v) == named)
        .copied()
        .unwrap_or(HANDSHAKE_VERSIONS[1])
}

/// Where the transports record every message they send, for conformance
/// checks: the file named by `TOOLSCHEMA_TRACE`, one JSON object a line
/// (`{"version", "method", "message"}`), or nowhere.
#[derive(Debug)]
pub struct Trace {
    file: Option<std::sync::Mutex<std::fs::File>>,
}

impl Trace {
    /// The trace `TOOLSCHEMA_TRACE` asks for.
    pub fn from_env() -> Trace {
        let file = std::env::var_os("TOOLSCHEMA_TRACE").and_then(|path| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()
        });
        Trace {
            file: file.map(std::sync::Mutex::new),
        }
    }

    /// Whether messages are being recorded.
    pub fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// Records a message sent in `version` in answer to `method` (the
    /// message's own method for notifications).
    pub fn record(&self, version: &str, method: Option<&str>, sent: impl core::fmt::Display) {
        use std::io::Write;
        let Some(file) = &self.file else { return };
        let message: Value = serde_json::from_str(&sent.to_string()).unwrap_or(Value::Null);
        let method = method.map(str::to_owned).or_else(|| {
            message
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        let line = json!({"version": version, "method": method, "message": message});
        if let Ok(mut file) = file.lock() {
            let _ = writeln!(file, "{line}");
        }
    }

    /// The method of a request, for [`Trace::record`].
    pub fn method_of(message: &[u8]) -> Option<String> {
        let parsed: Value = serde_json::from_slice(message).ok()?;
        parsed.get("method")?.as_str().map(str::to_owned)
    }
}

/// The message, parsed, if it is a `method` request; messages without
/// `hint` in their bytes are passed over unparsed, since most are not.
fn request_of(message: &[u8], method: &str, hint: &[u8]) -> Option<Value> {
    if !contains(message, hint) {
        return None;
    }
    let parsed: Value = serde_json::from_slice(message).ok()?;
    (parsed.get("method")?.as_str()? == method).then_some(parsed)
}

/// Whether `haystack` contains `needle`: a cheap test before parsing.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}
