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
use serde_json::{Value, json};
use toolschema_catalog::{MetaRefusal, Snapshot};
use toolschema_runtime::call::{CallError, Caller, StructuredJson};
use toolschema_runtime::project::ProtocolRevision;

use super::authenticated::Authenticated;
use super::{json_response, refusal};
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
    body: Bytes,
) -> Response {
    // A large body holds one blocking slot from its parse to the reading
    // of its arguments, both off the async workers.
    let reserved = match body.len() > crate::offload::LARGE_REQUEST {
        true => match service.blocking.reserve().await {
            Some(reserved) => Some(reserved),
            None => {
                return refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "the server is shutting down",
                );
            }
        },
        false => None,
    };
    let parsed = match &reserved {
        Some(reserved) => {
            let text = body.clone();
            reserved
                .run_for(move || serde_json::from_slice::<Value>(&text))
                .await
        }
        None if body.is_empty() => Some(Ok(json!({}))),
        None => Some(serde_json::from_slice(&body)),
    };
    let arguments: Value = {
        let Some(parsed) = parsed else {
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "the server is shutting down",
            );
        };
        match parsed {
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
    if let Some(answered) = caller
        .view
        .call_meta(&name, &arguments, ProtocolRevision::LATEST)
    {
        return match answered {
            Ok(answer) => json_response(
                StatusCode::OK,
                json!({"result": answer.structured}).to_string(),
            ),
            Err(unknown @ MetaRefusal::UnknownTool { .. }) => {
                refusal(StatusCode::NOT_FOUND, "unknown_tool", &unknown.to_string())
            }
            Err(invalid) => {
                let violations: Vec<Value> = match &invalid {
                    MetaRefusal::InvalidArguments(violations) => violations
                        .iter()
                        .map(|v| json!({"path": v.path, "rule": v.rule, "message": v.message}))
                        .collect(),
                    _ => Vec::new(),
                };
                json_response(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    json!({
                        "error": "invalid_arguments",
                        "message": invalid.to_string(),
                        "violations": violations,
                        "omitted": 0,
                    })
                    .to_string(),
                )
            }
        };
    }
    if caller.view.def_of(&name).is_none()
        && let Some(refused) = caller.lacks_scopes_for(&name)
    {
        return refused;
    }
    // A large body's arguments are read off the async workers.
    let context = match reserved {
        Some(reserved) => Caller::anonymous().with_offload(reserved),
        None => Caller::anonymous(),
    };
    match caller
        .snapshot
        .call_in(&caller.view, &name, arguments, context)
        .await
    {
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
                        result: &'a serde_json::value::RawValue,
                    }
                    serde_json::to_string(&Written { result: &json }).unwrap_or_default()
                }
                _ => json!({"content": content}).to_string(),
            };
            json_response(StatusCode::OK, body)
        }
        Err(unknown @ CallError::UnknownTool { .. }) => {
            refusal(StatusCode::NOT_FOUND, "unknown_tool", &unknown.to_string())
        }
        Err(CallError::InvalidArguments(errors)) => {
            let violations: Vec<Value> = errors
                .iter()
                .map(|v| json!({"path": v.path(), "rule": v.rule().keyword(), "message": v.message()}))
                .collect();
            json_response(
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({
                    "error": "invalid_arguments",
                    "message": errors.to_string(),
                    "violations": violations,
                    "omitted": errors.omitted(),
                })
                .to_string(),
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
