//! REST over the same snapshot and projection as MCP:
//!
//! - `GET /v1/tools`: the descriptors the client gets over MCP;
//! - `GET /v1/tools/{name}`: the Full descriptor, as `discover_tool_schema`
//!   returns it;
//! - `POST /v1/tools/{name}/call`: the arguments as the body; the answer
//!   is `{"result": ...}` for a tool with an output schema, `{"content":
//!   [...]}` (MCP content blocks) for one without; errors carry the same
//!   violation list as MCP.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use toolschema_catalog::{MetaRefusal, Snapshot};
use toolschema_runtime::call::{
    CallArguments, CallError, Caller, ReadArguments, StructuredJson, ToolResult,
};
use toolschema_runtime::project::ProtocolRevision;

use super::authenticated::Authenticated;
use super::{json_response, refusal};
use crate::refused::Refused;
use crate::service::Service;

pub(super) async fn list(caller: Authenticated) -> Response {
    json_response(
        StatusCode::OK,
        caller.view.list_json(ProtocolRevision::LATEST).to_string(),
    )
}

pub(super) async fn schema(caller: Authenticated, Path(name): Path<String>) -> Response {
    if let Some(descriptor) = caller.view.meta_descriptor(&name) {
        return json_response(StatusCode::OK, descriptor);
    }
    match Snapshot::discover_in(&caller.view, &name, ProtocolRevision::LATEST) {
        Ok(descriptor) => json_response(StatusCode::OK, descriptor.to_string()),
        Err(refused) => refusal(StatusCode::NOT_FOUND, "unknown_tool", &refused.to_string()),
    }
}

pub(super) async fn call(
    State(service): State<Arc<Service>>,
    caller: Authenticated,
    Path(name): Path<String>,
    request: axum::extract::Request,
) -> Response {
    let timeouts = service.options.timeouts;
    let body = match super::read_body(request.into_body(), super::BODY_LIMIT, timeouts).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    // A large body holds one blocking slot from its parse to the reading
    // of its arguments, both off the async workers.
    let Ok(reserved) = service.reserve_for(body.len()).await else {
        return unavailable();
    };
    let arguments = match read_arguments(&caller, &name, &body, reserved.as_deref()).await {
        Ok(arguments) => arguments,
        Err(refused) => return refused,
    };
    if caller.view.lists_meta_tool(&name) {
        return call_meta(&caller, &name, arguments).await;
    }
    // The same denial the protocol core gives, where the call was refused
    // before this change: after its arguments are read.
    if let Some(held) = caller.token_scopes()
        && let Some(denial) = caller.snapshot.denial(&caller.view, &name, held)
    {
        return caller.denied(&denial);
    }
    // A large body's arguments are read off the async workers.
    let context = match reserved {
        Some(reserved) => Caller::anonymous().with_offload(reserved),
        None => Caller::anonymous(),
    };
    let result = caller
        .snapshot
        .call_in(&caller.view, &name, arguments, context)
        .await;
    answer(&name, result)
}

fn unavailable() -> Response {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "the server is shutting down",
    )
}

/// The body read once: by a derived tool's one pass into its type, else
/// as JSON kept as its text (for the call to read); an empty body is no
/// arguments. A large one is read as text in its reserved slot, and by the
/// tool there.
async fn read_arguments(
    caller: &Authenticated,
    tool: &str,
    body: &Bytes,
    reserved: Option<&crate::offload::Reserved>,
) -> Result<CallArguments, Response> {
    let parsed = match reserved {
        Some(reserved) => {
            let text = body.clone();
            let read = move || serde_json::from_slice::<Box<RawValue>>(&text);
            reserved.run_for(read).await.ok_or_else(unavailable)?
        }
        None if body.is_empty() => serde_json::from_str("{}"),
        None => {
            if let Some(read) = read_ahead(caller, tool, body) {
                return Ok(CallArguments::Read(read));
            }
            serde_json::from_slice(body)
        }
    };
    parsed.map(CallArguments::Text).map_err(|e| not_json(&e))
}

/// The body read by the tool's one pass, when it is one JSON value that
/// the tool reads (accepted or refused): nothing scans it first.
fn read_ahead(caller: &Authenticated, tool: &str, body: &[u8]) -> Option<ReadArguments> {
    let text = core::str::from_utf8(body).ok()?;
    let space = [' ', '\t', '\n', '\r'];
    let value = text.trim_start_matches(space);
    let (read, used) = caller.snapshot.read_arguments(&caller.view, tool, value)?;
    value
        .get(used..)?
        .trim_start_matches(space)
        .is_empty()
        .then_some(read)
}

fn not_json(reason: &dyn std::fmt::Display) -> Response {
    refusal(
        StatusCode::BAD_REQUEST,
        "invalid_json",
        &format!("the body is not JSON: {reason}"),
    )
}

/// A call of a meta-tool.
async fn call_meta(caller: &Authenticated, name: &str, arguments: CallArguments) -> Response {
    let answered = crate::mcp::call_meta(&caller.view, name, arguments, ProtocolRevision::LATEST)
        .await
        .unwrap_or_else(|| Err(MetaRefusal::UnknownTool { name: name.into() }));
    match answered {
        Ok(answer) => json_response(
            StatusCode::OK,
            json!({"result": answer.structured}).to_string(),
        ),
        Err(refused) => refused_response(refused.into()),
    }
}

/// The outcome of a call of `tool` as the REST answer.
fn answer(tool: &str, result: Result<ToolResult, CallError>) -> Response {
    match result {
        Ok(result) => {
            let (content, structured) = result.into_json();
            let body = match structured {
                Some(StructuredJson::Value(structured)) => {
                    json!({"result": structured}).to_string()
                }
                // Kept as its text (a large mapped answer): written as it is.
                Some(StructuredJson::Text(json)) => {
                    #[derive(serde::Serialize)]
                    struct Written<'a> {
                        result: &'a RawValue,
                    }
                    serde_json::to_string(&Written { result: &json }).unwrap_or_default()
                }
                _ => json!({"content": content}).to_string(),
            };
            json_response(StatusCode::OK, body)
        }
        Err(error) => refused_response(Refused::of_call(tool, error)),
    }
}

/// A refused call as REST says it: a status, the kind of refusal and a
/// message; arguments a schema refuses list every violation, as MCP's
/// refusal does.
fn refused_response(refused: Refused) -> Response {
    match refused {
        Refused::UnknownTool { name } => refusal(
            StatusCode::NOT_FOUND,
            "unknown_tool",
            &Refused::unknown_tool(&name),
        ),
        Refused::Unreadable { reason } => not_json(&reason),
        Refused::InvalidArguments(invalid) => {
            let violations: Vec<Value> = invalid
                .broken()
                .iter()
                .map(|v| json!({"path": v.path, "rule": v.rule, "message": v.message}))
                .collect();
            let body = json!({
                "error": "invalid_arguments",
                "message": invalid.to_string(),
                "violations": violations,
                "omitted": invalid.omitted(),
            });
            json_response(StatusCode::UNPROCESSABLE_ENTITY, body.to_string())
        }
        Refused::ToolFailed(failure) => {
            refusal(StatusCode::CONFLICT, "tool_error", failure.message())
        }
        Refused::Defect { message } => {
            refusal(StatusCode::INTERNAL_SERVER_ERROR, "server_defect", &message)
        }
    }
}
