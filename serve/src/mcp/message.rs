//! One JSON-RPC message from a client, read once into a typed envelope.

mod ahead;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use toolschema_catalog::{ClientView, Snapshot};
use toolschema_runtime::call::{CallArguments, ReadArguments};

use super::id::Id;
use super::reply::{Reply, error};
use super::{STATELESS_VERSION, VERSION_KEY, code};

/// A request to answer: its id, method and params (its `arguments` kept
/// as the JSON text the client sent, for the tool to read in one pass, or
/// read already into the tool's type: [`Incoming::parse_for`]).
#[derive(Debug)]
pub struct Request {
    id: Id,
    method: String,
    params: Map<String, Value>,
    arguments: Option<Sent>,
}

/// A call's arguments as its message held them.
#[derive(Debug)]
pub(crate) enum Sent {
    /// Their JSON text, for the call to read.
    Text(Box<RawValue>),
    /// Read into the tool's type where they stood; their text kept.
    Read { text: Box<str>, read: ReadArguments },
}

impl Sent {
    /// The arguments' JSON text.
    pub(crate) fn text(&self) -> &str {
        match self {
            Sent::Text(text) => text.get(),
            Sent::Read { text, .. } => text,
        }
    }

    /// The arguments as a call takes them (`null` as none: `{}`).
    pub(crate) fn into_call(self) -> CallArguments {
        match self {
            Sent::Read { read, .. } => CallArguments::Read(read),
            Sent::Text(text) if text.get() != "null" => CallArguments::Text(text),
            Sent::Text(_) => CallArguments::Parsed(Value::Object(Map::new())),
        }
    }
}

impl Request {
    /// The request id.
    pub fn id(&self) -> &Id {
        &self.id
    }

    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params (an empty object when the request has none), but for
    /// `arguments`: see [`arguments`](Self::arguments).
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    /// The `arguments` of the params, as the JSON text the client sent
    /// (read as JSON, not yet into a tree), if present.
    ///
    /// ```
    /// use toolschema_serve::mcp::Incoming;
    ///
    /// let sent = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
    ///     "params":{"name":"items.get","arguments":{"id": 7}}}"#;
    /// let Incoming::Request(request) = Incoming::parse(sent) else { panic!("a request") };
    /// assert_eq!(request.arguments(), Some(r#"{"id": 7}"#));
    /// assert!(request.params().get("arguments").is_none());
    /// ```
    pub fn arguments(&self) -> Option<&str> {
        self.arguments.as_ref().map(Sent::text)
    }

    /// The `arguments`, taken out of the request.
    pub(crate) fn take_arguments(&mut self) -> Option<Sent> {
        self.arguments.take()
    }

    /// The protocol version named in `_meta` (2026-07-28 requests carry
    /// one), if any.
    pub fn meta_version(&self) -> Option<&Value> {
        self.meta(VERSION_KEY)
    }

    /// A member of the request's `_meta`, if any.
    pub fn meta(&self, key: &str) -> Option<&Value> {
        self.params.get("_meta")?.get(key)
    }

    /// Whether the request belongs to the stateless 2026-07-28 revision.
    pub fn is_stateless(&self) -> bool {
        self.meta_version().and_then(Value::as_str) == Some(STATELESS_VERSION)
    }

    /// The list fingerprint a `tools/list` request's cursor came from, if it
    /// carries one: transports use it to answer from the snapshot that made
    /// the cursor.
    pub fn cursor_fingerprint(&self) -> Option<u64> {
        if self.method != "tools/list" {
            return None;
        }
        let cursor = self.params.get("cursor")?.as_str()?;
        parse_cursor(cursor).map(|(fingerprint, _)| fingerprint)
    }
}

/// A response from the client to a request of the server's.
#[derive(Debug, Clone)]
pub struct ClientResponse {
    /// The id of the server's request, as JSON text.
    pub(crate) id: String,
    /// The result, or the error object.
    pub(crate) outcome: Result<Value, Value>,
}

/// A notification from the client.
#[derive(Debug, Clone)]
pub struct Notification {
    method: String,
    params: Map<String, Value>,
}

impl Notification {
    /// The method (`notifications/cancelled`, `notifications/initialized`, …).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params (an empty object when there are none).
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    /// The id of the request a `notifications/cancelled` cancels, as JSON
    /// text (the form [`Id::as_json`](super::Id::as_json) gives).
    pub fn cancelled_request(&self) -> Option<String> {
        if self.method != "notifications/cancelled" {
            return None;
        }
        self.params.get("requestId").map(Value::to_string)
    }
}

/// `(fingerprint, offset)` of a cursor made by a paged `tools/list`.
pub(crate) fn parse_cursor(cursor: &str) -> Option<(u64, usize)> {
    if cursor.len() != 24 {
        return None;
    }
    let fingerprint = u64::from_str_radix(cursor.get(..16)?, 16).ok()?;
    let offset = usize::from_str_radix(cursor.get(16..)?, 16).ok()?;
    Some((fingerprint, offset))
}

/// A cursor that continues a list with `fingerprint` at `offset`.
pub(crate) fn cursor(fingerprint: u64, offset: usize) -> String {
    format!("{fingerprint:016x}{offset:08x}")
}

/// What a client sent, read once.
#[derive(Debug)]
#[non_exhaustive]
pub enum Incoming {
    /// A request to answer with [`Protocol::handle`](super::Protocol::handle).
    Request(Request),
    /// A notification from the client (`notifications/cancelled`, …):
    /// nothing to answer.
    Notification(Notification),
    /// A response from the client to a request of the server's: nothing to
    /// answer; it goes to the call that asked.
    Response(ClientResponse),
    /// A message that cannot be handled, with the error reply to send.
    Malformed(Reply),
}

/// The JSON-RPC envelope, each member as it came.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Box<RawValue>>,
    #[serde(default)]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Params>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Box<RawValue>>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Box<RawValue>>,
}

/// A message's params, read in the envelope's one pass: an object's
/// members as values but for `arguments`, kept as its JSON text; anything
/// else skipped (params must be an object).
enum Params {
    Object(Map<String, Value>, Option<Box<RawValue>>),
    Other,
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Params, D::Error> {
        deserializer.deserialize_any(ParamsVisitor)
    }
}

struct ParamsVisitor;

/// Visitor methods that take any scalar as params that are not an object.
macro_rules! scalars_are_other {
    ($($visit:ident($scalar:ty)),*) => {$(
        fn $visit<E: de::Error>(self, _: $scalar) -> Result<Params, E> {
            Ok(Params::Other)
        }
    )*};
}

impl<'de> Visitor<'de> for ParamsVisitor {
    type Value = Params;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the params of a request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
        let (mut params, mut arguments) = (Map::new(), None);
        while let Some(key) = map.next_key::<String>()? {
            // A member twice: the last one counts, as for every member.
            if key == "arguments" {
                arguments = Some(map.next_value::<Box<RawValue>>()?);
            } else {
                let value = map.next_value::<Value>()?;
                params.insert(key, value);
            }
        }
        Ok(Params::Object(params, arguments))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Params, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Params::Other)
    }

    scalars_are_other!(
        visit_bool(bool),
        visit_i64(i64),
        visit_u64(u64),
        visit_f64(f64),
        visit_str(&str)
    );

    fn visit_unit<E: de::Error>(self) -> Result<Params, E> {
        Ok(Params::Other)
    }
}

/// Only the id of a message, everything else skipped unread.
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default)]
    id: Option<Box<RawValue>>,
}

/// A member that is present, even as `null`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

impl Incoming {
    /// Reads one message.
    ///
    /// ```
    /// use toolschema_serve::mcp::Incoming;
    ///
    /// let Incoming::Request(request) =
    ///     Incoming::parse(br#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#)
    /// else {
    ///     panic!("a request");
    /// };
    /// assert_eq!((request.id().as_json(), request.method()), (r#""a-1""#, "ping"));
    /// assert!(matches!(Incoming::parse(b"{oops"), Incoming::Malformed(_)));
    /// ```
    pub fn parse(message: &[u8]) -> Incoming {
        Incoming::read(message, None)
    }

    /// [`parse`](Self::parse) a message of `view`'s client in `snapshot`: a
    /// request of the usual shape is read in one pass over its members, and
    /// a `tools/call` of a derived tool has its arguments read into the
    /// tool's type as they are met ([`Snapshot::read_arguments`]), rather
    /// than kept as text and read again. Any other message is read by
    /// `parse`. What is refused, and how, is exactly what `parse` and the
    /// call would say.
    ///
    /// ```
    /// use toolschema_catalog::Catalog;
    /// use toolschema_runtime::call::Registry;
    /// use toolschema_serve::mcp::Incoming;
    ///
    /// let catalog = Catalog::open(Registry::new());
    /// let snapshot = catalog.snapshot();
    /// let view = snapshot.keyless_client().unwrap();
    /// let sent = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call",
    ///     "params":{"name":"nothing.here","arguments":{}}}"#;
    /// let Incoming::Request(request) = Incoming::parse_for(sent, &snapshot, view) else {
    ///     panic!("a request")
    /// };
    /// // No such tool: the text is kept, for the call to refuse.
    /// assert_eq!(request.arguments(), Some("{}"));
    /// ```
    pub fn parse_for(message: &[u8], snapshot: &Snapshot, view: &ClientView) -> Incoming {
        Incoming::read(
            message,
            Some(&|tool, text| snapshot.read_arguments(view, tool, text)),
        )
    }

    /// The message, read member by member with `ahead` when it is given
    /// and the message has the usual shape, else by the envelope's reader.
    fn read(message: &[u8], ahead: Option<ahead::ReadAhead<'_>>) -> Incoming {
        // JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are no
        // JSON to read, a parse error wherever they stand (serde skips
        // what it does not read, unknown members, without checking them).
        // Checked once here, the text is then read as `str`, unchecked.
        let Ok(message) = core::str::from_utf8(message) else {
            return Incoming::Malformed(Reply::from(error(
                None,
                code::PARSE_ERROR,
                "Parse error: the message is not UTF-8 text",
                None,
            )));
        };
        // Only an object is a message: serde would read the envelope from
        // an array too, member by member (`["2.0", 3, "tools/call", {…}]`).
        let object = message
            .bytes()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            == Some(b'{');
        // The usual shape of a request, each member read where it stands;
        // anything else, read from the start by the envelope's reader.
        if object
            && let Some(read) = ahead
            && let Some(request) = ahead::request(message, read)
        {
            return Incoming::Request(request);
        }
        let parsed = match object {
            true => serde_json::from_str::<Envelope>(message).map_err(Some),
            false => Err(None),
        };
        let envelope = match parsed {
            Ok(envelope) => envelope,
            Err(first) => {
                // Only on this path is the text parsed again, to tell JSON
                // that is not a request from text that is not JSON.
                return match serde_json::from_str::<serde::de::IgnoredAny>(message) {
                    // JSON, and an object, that the envelope cannot hold: a
                    // number out of range, nesting past the limit, a member
                    // twice. Said so, with the id if it can be read.
                    Ok(_) if object => {
                        let id = serde_json::from_str::<IdOnly>(message)
                            .ok()
                            .and_then(|only| only.id)
                            .filter(|raw| Id::is_valid(raw))
                            .map(Id);
                        let reason = first.map_or_else(String::new, |e| e.to_string());
                        invalid(id, &format!("the message cannot be read: {reason}"))
                    }
                    Ok(_) => invalid(
                        None,
                        "send one JSON-RPC request object per message (not an array, a batch or another value)",
                    ),
                    Err(e) => Incoming::Malformed(Reply::from(error(
                        None,
                        code::PARSE_ERROR,
                        &format!("Parse error: {}", first.unwrap_or(e)),
                        None,
                    ))),
                };
            }
        };
        let Envelope {
            jsonrpc,
            id,
            method,
            params,
            result,
            error: failure,
        } = envelope;
        let had_id = id.is_some();
        let id = id.filter(|raw| Id::is_valid(raw)).map(Id);
        let version_ok = jsonrpc.as_deref().map(RawValue::get) == Some("\"2.0\"");
        let method = match method {
            Some(Value::String(method)) => Some(method),
            _ => None,
        };
        let Some(method) = method.filter(|_| version_ok) else {
            if let (Some(id), true) = (&id, result.is_some() || failure.is_some()) {
                let outcome = match (result, failure) {
                    (Some(result), _) => {
                        Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null))
                    }
                    (None, failure) => Err(failure
                        .and_then(|f| serde_json::from_str(f.get()).ok())
                        .unwrap_or(Value::Null)),
                };
                return Incoming::Response(ClientResponse {
                    id: id.as_json().to_owned(),
                    outcome,
                });
            }
            if result.is_some() || failure.is_some() {
                return invalid(None, "a response needs the id of the request it answers");
            }
            return invalid(
                id,
                "a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\" and a \"method\" string",
            );
        };
        let id = match id {
            Some(id) => id,
            None if had_id => {
                return invalid(None, "a request id must be a string or an integer");
            }
            // Notifications (`notifications/initialized`, …) need no reply.
            None => {
                let params = match params {
                    Some(Params::Object(mut params, arguments)) => {
                        if let Some(arguments) = arguments {
                            let value = serde_json::from_str(arguments.get());
                            params.insert("arguments".into(), value.unwrap_or(Value::Null));
                        }
                        params
                    }
                    _ => Map::new(),
                };
                return Incoming::Notification(Notification { method, params });
            }
        };
        let (params, arguments) = match params {
            None => (Map::new(), None),
            Some(Params::Object(params, arguments)) => (params, arguments),
            Some(Params::Other) => {
                return Incoming::Malformed(Reply::from(error(
                    Some(&id),
                    code::INVALID_PARAMS,
                    "Invalid params: params must be an object",
                    None,
                )));
            }
        };
        Incoming::Request(Request {
            id,
            method,
            params,
            arguments: arguments.map(Sent::Text),
        })
    }
}

fn invalid(id: Option<Id>, what: &str) -> Incoming {
    Incoming::Malformed(Reply::from(error(
        id.as_ref(),
        code::INVALID_REQUEST,
        &format!("Invalid request: {what}"),
        None,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str) -> Request {
        match Incoming::parse(text.as_bytes()) {
            Incoming::Request(request) => request,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn ids_are_echoed_as_written() {
        assert_eq!(
            request(r#"{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}"#)
                .id()
                .as_json(),
            "12345678901234567890123"
        );
        assert_eq!(
            request(r#"{"jsonrpc":"2.0","id":"\u00e9","method":"ping"}"#)
                .id()
                .as_json(),
            r#""\u00e9""#
        );
    }

    #[test]
    fn null_and_fractional_ids_are_refused() {
        for id in ["null", "1.5", "true", "[1]"] {
            let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert!(
                matches!(Incoming::parse(text.as_bytes()), Incoming::Malformed(_)),
                "{id}"
            );
        }
    }

    #[test]
    fn notifications_and_responses_get_no_reply() {
        for text in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        ] {
            assert!(matches!(
                Incoming::parse(text.as_bytes()),
                Incoming::Notification(_) | Incoming::Response(_)
            ));
        }
    }

    #[test]
    fn only_an_object_is_a_message() {
        // serde reads a struct from an array too; the envelope must not.
        for text in [
            r#"["2.0",3,"tools/call",{"name":"billing.refund","arguments":{}}]"#,
            r#" [{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#""ping""#,
        ] {
            let Incoming::Malformed(reply) = Incoming::parse(text.as_bytes()) else {
                panic!("{text} taken as a message");
            };
            let reply: Value = serde_json::from_str(&reply.to_string()).expect("JSON");
            assert_eq!(reply["error"]["code"], code::INVALID_REQUEST, "{text}");
            assert_eq!(reply["id"], Value::Null);
        }
        // JSON the envelope cannot hold: said so, with its id.
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for text in [
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"n":1e400}}"#,
            deep.as_str(),
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/call"}"#,
        ] {
            let Incoming::Malformed(reply) = Incoming::parse(text.as_bytes()) else {
                panic!("{text} taken as a message");
            };
            let reply: Value = serde_json::from_str(&reply.to_string()).expect("JSON");
            assert_eq!(reply["error"]["code"], code::INVALID_REQUEST, "{text}");
            assert_eq!(reply["id"], 9, "{reply}");
            let message = reply["error"]["message"].as_str().expect("message");
            assert!(
                message.starts_with("Invalid request: the message cannot be read: "),
                "{message}"
            );
        }
        let Incoming::Malformed(reply) = Incoming::parse(b"[1,") else {
            panic!("not JSON");
        };
        assert!(reply.to_string().contains(&code::PARSE_ERROR.to_string()));
        // Bytes that are not UTF-8 are no JSON, in a member read or not.
        for text in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xc3\"}",
        ] {
            let Incoming::Malformed(reply) = Incoming::parse(text) else {
                panic!("not UTF-8");
            };
            let reply: Value = serde_json::from_str(&reply.to_string()).expect("JSON");
            assert_eq!(reply["error"]["code"], code::PARSE_ERROR, "{reply}");
        }
    }

    #[test]
    fn cursors_round_trip() {
        let text = cursor(0xfeed, 1000);
        assert_eq!(parse_cursor(&text), Some((0xfeed, 1000)));
        assert_eq!(parse_cursor("nope"), None);
    }
}
