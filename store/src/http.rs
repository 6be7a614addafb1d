//! The admin REST API: the publish workflow over HTTP, on a listener of its
//! own, for operators with keys of their own (never an MCP client's key).
//!
//! Every request carries `Authorization: Bearer <operator key>` (keys made
//! by [`Store::add_operator`], `toolschema admin add-operator`); the
//! operator's name is what the audit trail records.
//!
//! | Method and path | Action |
//! |---|---|
//! | `GET /v1/catalog` | the stored configuration, as a TOML file |
//! | `PUT /v1/catalog` | replace it with a TOML file (the body) |
//! | `POST /v1/import` | add the records of a TOML file, every version a draft |
//! | `POST /v1/mappings/{tool}/versions` | a draft: `{"version": 3}`, a configured tool's `"definition"`, and for a new one its `"downstream"` |
//! | `POST /v1/mappings/{tool}/versions/{n}/propose` (`publish`, `deprecate`) | move a version |
//! | `POST /v1/toolsets/{id}/activate` (`deactivate`) | switch a toolset |
//! | `PUT`, `DELETE /v1/clients/{id}/toolsets/{toolset}` | assign, unassign |
//! | `POST /v1/clients/{id}/rotate-key` | a new API key, returned once |
//! | `PUT`, `DELETE /v1/records/{kind}/{id}` | a record, whole (kind: `tenant`, `client`, `toolset`, `downstream`, `gateway_tool`) |
//! | `PUT`, `DELETE /v1/settings/{name}` | `catalog`, `server`, `authorization` |
//! | `GET /v1/audit?limit=50` | the newest audit entries |
//! | `GET /v1/revision` | the current revision |
//!
//! A change answers `200` with `{"revision", "target", "summary"}` (and
//! `"api_key"` for a rotation); `422` with every problem at its record and
//! field when the result would not pass the checks; `404` or `409` when the
//! action does not fit; `401` without a valid operator key; `503` when the
//! database is unreachable. Nothing is written unless the answer is `200`.

// A refused request's answer is the error of the helpers that read it.
#![expect(
    clippy::result_large_err,
    reason = "an axum Response is the natural error of a request's parts"
)]

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};
use toolschema_runtime::call::Registry;

use crate::{Action, Body, Kind, Records, Refused, Store, StoreError};

/// The largest request body: a configuration file of some 100,000 tools.
const BODY_LIMIT: usize = 64 << 20;

/// What the handlers share.
#[derive(Clone)]
struct Admin {
    store: Store,
    registry: Arc<Registry>,
}

/// The admin API's router, over `store`, checking changes against the tools
/// of `registry`.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
///
/// let store = toolschema_store::Store::new("postgresql://toolschema@localhost/catalog")?;
/// let registry = Arc::new(toolschema_runtime::call::Registry::new());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// axum::serve(listener, toolschema_store::http::router(store, registry)).await?;
/// # Ok(())
/// # }
/// ```
pub fn router(store: Store, registry: Arc<Registry>) -> Router {
    Router::new()
        .route("/v1/revision", get(revision))
        .route("/v1/catalog", get(catalog).put(replace))
        .route("/v1/import", post(import))
        .route("/v1/audit", get(audit))
        .route("/v1/mappings/{tool}/versions", post(draft))
        .route("/v1/mappings/{tool}/versions/{version}/{step}", post(step))
        .route("/v1/toolsets/{id}/{switch}", post(switch))
        .route(
            "/v1/clients/{id}/toolsets/{toolset}",
            put(assign).delete(unassign),
        )
        .route("/v1/clients/{id}/rotate-key", post(rotate_key))
        .route(
            "/v1/records/{kind}/{id}",
            put(put_record).delete(delete_record),
        )
        .route(
            "/v1/settings/{name}",
            put(put_setting).delete(delete_setting),
        )
        // A whole catalog of thousands of tools is several megabytes.
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(Admin { store, registry })
}

/// The operator a request is from, by its key.
async fn operator(admin: &Admin, headers: &HeaderMap) -> Result<String, Response> {
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(key) = key else {
        return Err(refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send an operator key: Authorization: Bearer <key> (made with `toolschema admin add-operator NAME`)",
        ));
    };
    match admin.store.operator(key).await {
        Ok(Some(name)) => Ok(name),
        Ok(None) => Err(refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this key is no operator's key",
        )),
        Err(error) => Err(failure(error)),
    }
}

fn refusal(status: StatusCode, error: &str, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": error, "message": message})),
    )
        .into_response()
}

/// The answer to a store error.
fn failure(error: StoreError) -> Response {
    match error {
        StoreError::Invalid(problems) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({
                "error": "invalid",
                "message": problems.to_string(),
                "problems": problems.0.iter().map(|p| json!({
                    "record": p.record, "field": p.field, "message": p.message,
                })).collect::<Vec<_>>(),
            })),
        )
            .into_response(),
        StoreError::Refused(Refused::NotFound(message)) => {
            refusal(StatusCode::NOT_FOUND, "not_found", &message)
        }
        StoreError::Refused(Refused::Conflict(message)) => {
            refusal(StatusCode::CONFLICT, "conflict", &message)
        }
        other => {
            tracing::error!(error = %other, "admin request failed");
            refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                &other.to_string(),
            )
        }
    }
}

/// Applies `action` for the request's operator.
async fn apply(admin: &Admin, headers: &HeaderMap, action: Action) -> Response {
    let actor = match operator(admin, headers).await {
        Ok(actor) => actor,
        Err(response) => return response,
    };
    match admin.store.apply(&actor, action, &admin.registry).await {
        Ok(applied) => {
            tracing::info!(
                actor = %actor,
                target = %applied.done.target,
                summary = %applied.done.summary,
                revision = applied.revision,
                "catalog changed"
            );
            axum::Json(applied).into_response()
        }
        Err(error) => failure(error),
    }
}

async fn revision(State(admin): State<Admin>, headers: HeaderMap) -> Response {
    if let Err(response) = operator(&admin, &headers).await {
        return response;
    }
    match admin.store.revision().await {
        Ok(revision) => axum::Json(json!({"revision": revision})).into_response(),
        Err(error) => failure(error),
    }
}

async fn catalog(State(admin): State<Admin>, headers: HeaderMap) -> Response {
    if let Err(response) = operator(&admin, &headers).await {
        return response;
    }
    match admin.store.read().await {
        Ok((revision, records)) => match records.render() {
            Ok(rendered) => (
                [
                    (header::CONTENT_TYPE, "application/toml".to_owned()),
                    (
                        header::HeaderName::from_static("x-catalog-revision"),
                        revision.to_string(),
                    ),
                ],
                rendered.text,
            )
                .into_response(),
            Err(problems) => failure(StoreError::Invalid(problems)),
        },
        Err(error) => failure(error),
    }
}

/// A TOML file's records, checked as the file; problems at line and key.
fn records_of(admin: &Admin, text: &str) -> Result<Records, Response> {
    Records::from_toml(text, "(request body)", &admin.registry).map_err(|errors| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(json!({
                "error": "invalid",
                "message": errors.to_string(),
                "problems": errors.iter().map(|e| json!({
                    "line": e.line, "column": e.column, "field": e.key, "message": e.message,
                })).collect::<Vec<_>>(),
            })),
        )
            .into_response()
    })
}

async fn replace(State(admin): State<Admin>, headers: HeaderMap, body: String) -> Response {
    match records_of(&admin, &body) {
        Ok(records) => {
            apply(
                &admin,
                &headers,
                Action::Replace {
                    records: Box::new(records),
                },
            )
            .await
        }
        Err(response) => response,
    }
}

async fn import(State(admin): State<Admin>, headers: HeaderMap, body: String) -> Response {
    // What `toolschema import` writes: downstreams and tools from
    // configuration, checked once added to the rest.
    match Records::read_toml(&body, "(request body)") {
        Ok(records) => {
            apply(
                &admin,
                &headers,
                Action::Import {
                    records: Box::new(records),
                },
            )
            .await
        }
        Err(problems) => failure(StoreError::Invalid(problems)),
    }
}

#[derive(Deserialize)]
struct Limit {
    limit: Option<i64>,
}

async fn audit(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Query(limit): Query<Limit>,
) -> Response {
    if let Err(response) = operator(&admin, &headers).await {
        return response;
    }
    let limit = limit.limit.unwrap_or(50).clamp(1, 1000);
    match admin.store.audit(limit).await {
        Ok(entries) => axum::Json(json!({"entries": entries})).into_response(),
        Err(error) => failure(error),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Draft {
    version: u32,
    #[serde(default)]
    definition: Option<Body>,
    #[serde(default)]
    downstream: Option<String>,
}

async fn draft(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path(tool): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    let draft: Draft = match serde_json::from_slice(&body) {
        Ok(draft) => draft,
        Err(error) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "bad_request",
                &format!(
                    "the body is {{\"version\": N, \"definition\": {{...}}}} (definition for a configured tool only): {error}"
                ),
            );
        }
    };
    apply(
        &admin,
        &headers,
        Action::Draft {
            tool,
            version: draft.version,
            definition: draft.definition,
            downstream: draft.downstream,
        },
    )
    .await
}

async fn step(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((tool, version, step)): Path<(String, u32, String)>,
) -> Response {
    let action = match step.as_str() {
        "propose" => Action::Propose { tool, version },
        "publish" => Action::Publish { tool, version },
        "deprecate" => Action::Deprecate { tool, version },
        _ => {
            return refusal(
                StatusCode::NOT_FOUND,
                "not_found",
                "a version can be proposed, published or deprecated",
            );
        }
    };
    apply(&admin, &headers, action).await
}

async fn switch(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((toolset, switch)): Path<(String, String)>,
) -> Response {
    let action = match switch.as_str() {
        "activate" => Action::Activate { toolset },
        "deactivate" => Action::Deactivate { toolset },
        _ => {
            return refusal(
                StatusCode::NOT_FOUND,
                "not_found",
                "a toolset can be activated or deactivated",
            );
        }
    };
    apply(&admin, &headers, action).await
}

async fn assign(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((client, toolset)): Path<(String, String)>,
) -> Response {
    apply(&admin, &headers, Action::Assign { client, toolset }).await
}

async fn unassign(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((client, toolset)): Path<(String, String)>,
) -> Response {
    apply(&admin, &headers, Action::Unassign { client, toolset }).await
}

async fn rotate_key(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path(client): Path<String>,
) -> Response {
    apply(&admin, &headers, Action::RotateKey { client }).await
}

/// A JSON object body, or the answer saying what is expected.
fn object_body(body: &[u8]) -> Result<Body, Response> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(body)) => Ok(body),
        _ => Err(refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "the body is a JSON object: the record's fields as the configuration file has them, without its identifier",
        )),
    }
}

fn kind_of(kind: &str) -> Result<Kind, Response> {
    Kind::from_name(kind).ok_or_else(|| {
        refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "records are tenant, client, toolset, downstream or gateway_tool",
        )
    })
}

async fn put_record(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((kind, id)): Path<(String, String)>,
    body: axum::body::Bytes,
) -> Response {
    let (kind, body) = match (kind_of(&kind), object_body(&body)) {
        (Ok(kind), Ok(body)) => (kind, body),
        (Err(response), _) | (_, Err(response)) => return response,
    };
    apply(&admin, &headers, Action::Put { kind, id, body }).await
}

async fn delete_record(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path((kind, id)): Path<(String, String)>,
) -> Response {
    match kind_of(&kind) {
        Ok(kind) => apply(&admin, &headers, Action::Delete { kind, id }).await,
        Err(response) => response,
    }
}

async fn put_setting(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    match object_body(&body) {
        Ok(body) => {
            apply(
                &admin,
                &headers,
                Action::Setting {
                    name,
                    body: Some(body),
                },
            )
            .await
        }
        Err(response) => response,
    }
}

async fn delete_setting(
    State(admin): State<Admin>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    apply(&admin, &headers, Action::Setting { name, body: None }).await
}
