//! `tools/call`: the caller a call runs with, the call itself (the meta
//! tool's schema lookups too), and what it ends in: a result, the questions
//! of an input-required result (2026-07-28, with the answers so far sealed
//! in `requestState`), or a refusal; and the `Mcp-Param-<name>` headers a
//! call over HTTP mirrors its arguments in.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use toolschema_catalog::{ClientView, MetaAnswer, MetaRefusal};
use toolschema_runtime::call::{CallArguments, Caller, LogLevel, StructuredJson};
use toolschema_runtime::project::{Mode, Profile, ProtocolRevision, RESULT_PROPERTY, SEARCH_TOOL};
use toolschema_text::shorten::shorten;

use super::asking::{Round, input_requests};
use super::backchannel::{Backchannel, CallPeer};
use super::reply::success;
use super::state::RequestState;
use super::{
    CAPABILITIES_KEY, Era, Headers, Id, LOG_LEVEL_KEY, MAX_ECHO, Outcome, Protocol, Reply, Request,
    Sent, Session, Target, code, refusal,
};
use crate::refused::Refused;

/// A call of `view`'s meta-tool `name`; `None` when its list carries no
/// such meta-tool. A search that ranks by meaning embeds its query
/// (milliseconds of CPU): it runs on a blocking thread, off the async
/// workers.
pub(crate) async fn call_meta(
    view: &ClientView,
    name: &str,
    arguments: CallArguments,
    revision: ProtocolRevision,
) -> Option<Result<MetaAnswer, MetaRefusal>> {
    if name != SEARCH_TOOL || !view.searches_by_meaning() {
        return view.call_meta_arguments(name, arguments, revision);
    }
    let (view, name) = (view.clone(), name.to_owned());
    let searched =
        tokio::task::spawn_blocking(move || view.call_meta_arguments(&name, arguments, revision));
    match searched.await {
        Ok(answered) => answered,
        // A panic goes on as the call's own: the transport answers it as
        // it answers any handler's.
        Err(failed) => match failed.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(_) => Some(Err(MetaRefusal::Unreadable {
                reason: "the search was cancelled: the server is shutting down".into(),
            })),
        },
    }
}

impl Protocol {
    /// The caller a call runs with: the least severe log level the client
    /// wants and its capabilities (the session's in the handshake era, the
    /// request's `_meta` in 2026-07-28) and, in 2026-07-28, the round of
    /// answers it comes with. A sealed state that fails its check is refused.
    pub(super) fn caller(
        &self,
        era: Era,
        client: &ClientView,
        session: &Session,
        request: &Request,
        back: &Backchannel,
    ) -> Result<(Caller, Option<Arc<Round>>), Reply> {
        let tool = request
            .params()
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (min_level, capabilities, round) = match era {
            Era::Handshake => (Some(session.log_level), session.capabilities.clone(), None),
            Era::Stateless => {
                let round = Arc::new(self.round(request, client.id(), tool)?);
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
        Ok((back.caller(Arc::new(peer)), round))
    }

    pub(super) async fn call(
        &self,
        id: &Id,
        era: Era,
        target: Target<'_>,
        params: &Map<String, Value>,
        arguments: Option<Sent>,
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
            Some(sent) => sent.into_call(),
            None => CallArguments::Parsed(Value::Object(Map::new())),
        };
        if client.lists_meta_tool(name) {
            let answered = call_meta(client, name, arguments, revision).await;
            let answered = answered.unwrap_or_else(|| {
                Err(MetaRefusal::UnknownTool {
                    name: name.to_owned(),
                })
            });
            return match answered {
                Ok(answer) => {
                    self.tool_result(id, era, text(&answer.text), Some(answer.structured), false)
                }
                Err(refused) => self.refused(id, era, name, refused.into()),
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
                let (mut content, structured) = result.into_json();
                let structured = match structured {
                    // Kept as its text (a large mapped answer): an object,
                    // which every revision takes as it is.
                    Some(StructuredJson::Text(json)) => {
                        return self.tool_result_text(id, era, content, &json);
                    }
                    Some(StructuredJson::Value(value)) => Some(match client.def_of(name) {
                        Some(def) => {
                            let fitted = revision.fit_result(def, value);
                            same_json_as_text(&mut content, &fitted);
                            fitted
                        }
                        None => value,
                    }),
                    _ => None,
                };
                self.tool_result(id, era, Blocks::Value(content), structured, false)
            }
            Err(error) => self.refused(id, era, name, Refused::of_call(name, error)),
        }
    }

    /// A call of `tool` refused, as MCP says it: a JSON-RPC error for a
    /// request the server cannot act on, a tool result with `isError` for
    /// what the model can mend (its arguments) or must know (the tool
    /// failed).
    fn refused(&self, id: &Id, era: Era, tool: &str, refused: Refused) -> Reply {
        match refused {
            Refused::UnknownTool { name } => refusal(
                era,
                id,
                code::INVALID_PARAMS,
                &format!("Unknown tool: {}", shorten(&name, MAX_ECHO)),
                None,
            ),
            // The text was read as JSON already: only a number beyond what
            // a tree holds is refused here.
            Refused::Unreadable { reason } => refusal(
                era,
                id,
                code::INVALID_REQUEST,
                &format!("Invalid request: the message cannot be read: {reason}"),
                None,
            ),
            Refused::InvalidArguments(invalid) => {
                use core::fmt::Write as _;
                // Room for a few sentences at once: no copy as it grows.
                let mut message = String::with_capacity(1024);
                let _ = write!(
                    message,
                    "The arguments for `{tool}` were refused: {invalid}"
                );
                self.tool_result(id, era, text(message), None, true)
            }
            Refused::ToolFailed(failure) => {
                self.tool_result(id, era, text(failure.message()), None, true)
            }
            Refused::Defect { message } => refusal(
                era,
                id,
                code::INTERNAL_ERROR,
                &format!("Internal error: {message}"),
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
        content: Blocks,
        structured: Option<Value>,
        is_error: bool,
    ) -> Reply {
        // `content` is the whole array; `resultType` in the stateless era.
        // The members in the order a map writes them (by name), without one.
        #[derive(serde::Serialize)]
        struct Written {
            content: Blocks,
            #[serde(rename = "isError", skip_serializing_if = "core::ops::Not::not")]
            is_error: bool,
            #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
            result_type: Option<&'static str>,
            #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
            structured: Option<Value>,
        }
        let written = Written {
            content,
            is_error,
            result_type: matches!(era, Era::Stateless).then_some("complete"),
            structured,
        };
        let outcome = match is_error {
            true => Outcome::ToolError,
            false => Outcome::Success,
        };
        Reply::from(success(id, written)).with_outcome(outcome)
    }

    /// [`tool_result`](Self::tool_result) of a success whose structured
    /// result is JSON text, written as it is (its members in the order a
    /// map writes them).
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

impl Headers<'_> {
    /// The `Mcp-Param-<name>` headers of a 2026-07-28 call over HTTP,
    /// checked against its `arguments` ([`check_param_headers`]).
    pub(super) fn check_call(
        &self,
        client: &ClientView,
        request: &Request,
        arguments: Option<&str>,
    ) -> Result<(), String> {
        let tool = request.params().get("name").and_then(Value::as_str);
        // Only a client shown the `x-mcp-header` annotations can send the
        // headers: not one whose dialect drops them, nor one shown the tool
        // without its properties.
        let shown = client.profile() == Profile::Default;
        let def = tool
            .filter(|tool| shown && client.mode_of(tool).is_some_and(Mode::shows_arguments))
            .and_then(|tool| client.def_of(tool));
        let Some(def) = def else {
            return Ok(());
        };
        // The arguments as a tree, only for a tool that mirrors some.
        let mirrored = match &*def.input {
            toolschema_runtime::model::Node::Object(object) => {
                object.fields.iter().any(|field| field.header.is_some())
            }
            _ => false,
        };
        if !mirrored {
            return Ok(());
        }
        let arguments: Option<Value> = arguments.and_then(|a| serde_json::from_str(a).ok());
        check_param_headers(def, arguments.as_ref(), self)
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
fn text(text: impl Into<String>) -> Blocks {
    Blocks::Text(text.into())
}

/// A result's content blocks: as the tool's result gave them, or one text
/// block, written as the tree `[{"text": …, "type": "text"}]` would be
/// (members by name) without building it.
enum Blocks {
    Value(Value),
    Text(String),
}

impl serde::Serialize for Blocks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct TextBlock<'a> {
            text: &'a str,
            #[serde(rename = "type")]
            kind: &'static str,
        }
        match self {
            Blocks::Value(value) => value.serialize(serializer),
            Blocks::Text(text) => [TextBlock { text, kind: "text" }].serialize(serializer),
        }
    }
}

/// A result wrapped for an older revision (`{"result": [...]}`) keeps its
/// text block the same JSON as its `structuredContent`. A structured
/// result's content is the one text block written from its value
/// (`ToolResult` gives a handler no other way to make one), so that block
/// is written again from the wrapper: one serialization, only when wrapped.
fn same_json_as_text(content: &mut Value, structured: &Value) {
    let wrapper = structured
        .as_object()
        .is_some_and(|object| object.len() == 1 && object.contains_key(RESULT_PROPERTY));
    if !wrapper {
        return;
    }
    if let Some([block]) = content.as_array_mut().map(Vec::as_mut_slice)
        && block["type"] == "text"
    {
        block["text"] = Value::String(structured.to_string());
    }
}
