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
//! | `POST /v1/mappings/{tool}/versions/{n}/propose` (`publish`, `deprecate`) | move a version (a publish may carry `{"accept": "<digest>"}`) |
//! | `GET /v1/mappings/{tool}/versions/{n}/compatibility` | what publishing it would change for the clients of the version served |
//! | `POST /v1/toolsets/{id}/activate` (`deactivate`) | switch a toolset |
//! | `PUT`, `DELETE /v1/clients/{id}/toolsets/{toolset}` | assign, unassign |
//! | `POST /v1/clients/{id}/rotate-key` | a new API key, returned once |
//! | `PUT`, `DELETE /v1/records/{kind}/{id}` | a record, whole (kind: `tenant`, `client`, `toolset`, `downstream`, `gateway_tool`) |
//! | `PUT`, `DELETE /v1/settings/{name}` | `catalog`, `server`, `authorization` |
//! | `GET /v1/audit?limit=50` | the newest audit entries |
//! | `GET /v1/revision` | the current revision |
//! | `GET /console` and below | the operator console: pages for people, logged in with the same keys (a session cookie, CSRF tokens on every form) |
//!
//! Every change passes the compatibility gate: when it would serve a
//! tool's clients something that may break them (another version, or a
//! version's definition changed in place), whatever the route, it answers
//! `409` with `"error": "breaking"` and the `"compatibility"` reports, each
//! with its `"digest"`; the same change sent again with `?accept=<digest>`
//! (several: repeated, or separated by commas; a publish may also carry
//! `{"accept": "<digest>"}`) is applied, and the accepted reports are
//! audited. An acceptance names one report: a change that differs (another
//! version, another definition) has another digest and is refused again.
//!
//! A change answers `200` with `{"revision", "target", "summary"}` (and
//! `"api_key"` for a rotation, `"compatibility"`, a list, for a draft or a
//! change of what a tool serves); `422` with every problem at its record
//! and field when the result would not pass the checks; `404` or `409` when
//! the action does not fit or the gate refuses it; `401` without a valid
//! operator key; `503` when the database is unreachable. Nothing is written
//! unless the answer is `200`.
//!
//! A request is authenticated from its headers before anything else (see
//! the `operator` module): its body is not read, nor the store touched,
//! for a request without a valid key; a peer that keeps sending wrong keys
//! gets `429` for every key not proven valid (a valid key is always
//! served, whatever others sent from its address). Bodies are bounded per route (a configuration file 64 MiB, a
//! record 8 MiB) and read within the listener's body timeout; [`serve`]
//! serves the API with the MCP listener's connection timeouts.

// A refused request's answer is the error of the helpers that read it.
#![expect(
    clippy::result_large_err,
    reason = "an axum Response is the natural error of a request's parts"
)]

mod console;
mod operator;

use core::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body as RequestBody, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};
use toolschema_runtime::call::Registry;
use toolschema_serve::HttpTimeouts;

use crate::{Action, ActionKind, Body, Given, Records, Refused, Shape, Store, StoreError};
use operator::{Guard, Operator};

/// The largest configuration file taken (`PUT /v1/catalog`, `POST
/// /v1/import`): some 100,000 tools.
pub(super) const FILE_LIMIT: usize = 64 << 20;

/// The largest record or draft taken: a tool from configuration with many
/// versions.
const RECORD_LIMIT: usize = 8 << 20;

/// What the handlers share.
#[derive(Clone)]
struct Admin {
    store: Store,
    registry: Arc<Registry>,
    guard: Arc<Guard>,
    timeouts: HttpTimeouts,
    console: Arc<console::Console>,
}

impl Admin {
    /// The request's body, read now that it is authenticated.
    async fn body(&self, body: RequestBody, limit: usize) -> Result<Bytes, Response> {
        toolschema_serve::read_body(body, limit, self.timeouts).await
    }
}

/// The admin API's router, over `store`, checking changes against the tools
/// of `registry`, reading bodies within the default [`HttpTimeouts`].
/// [`serve`] serves it with the listener's own timeouts too.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
///
/// let store = toolschema_store::Store::new("postgresql://toolschema@localhost/catalog")?;
/// let registry = Arc::new(toolschema_runtime::call::Registry::new());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// axum::serve(listener, toolschema_store::admin::router(store, registry)).await?;
/// # Ok(())
/// # }
/// ```
pub fn router(store: Store, registry: Arc<Registry>) -> Router {
    router_with(store, registry, HttpTimeouts::default())
}

fn router_with(store: Store, registry: Arc<Registry>, timeouts: HttpTimeouts) -> Router {
    let mut router = Router::new()
        .route("/v1/revision", get(revision))
        .route("/v1/catalog", get(catalog))
        .route("/v1/audit", get(audit))
        .route(
            "/v1/mappings/{tool}/versions/{version}/compatibility",
            get(compatibility),
        );
    // Every action of the one list has its route.
    for kind in ActionKind::ALL {
        let (path, handler) = route(kind);
        router = router.route(path, handler);
    }
    router.merge(console::routes()).with_state(Admin {
        store,
        registry,
        guard: Arc::new(Guard::default()),
        timeouts,
        console: Arc::default(),
    })
}

/// The route of an action of the list: its path and its handler. The
/// path's parameters are named as the action's arguments.
fn route(kind: ActionKind) -> (&'static str, MethodRouter<Admin>) {
    let acted = move |fields: Fields| {
        move |admin: State<Admin>,
              operator: Operator,
              accepting: Accepting,
              params: Path<Vec<(String, String)>>,
              body: RequestBody| act(kind, fields, admin, operator, accepting, params, body)
    };
    match kind {
        ActionKind::Draft => ("/v1/mappings/{tool}/versions", post(draft)),
        ActionKind::Propose => (
            "/v1/mappings/{tool}/versions/{version}/propose",
            post(acted(Fields::None)),
        ),
        ActionKind::Publish => (
            "/v1/mappings/{tool}/versions/{version}/publish",
            post(acted(Fields::None)),
        ),
        ActionKind::Deprecate => (
            "/v1/mappings/{tool}/versions/{version}/deprecate",
            post(acted(Fields::None)),
        ),
        ActionKind::Activate => ("/v1/toolsets/{toolset}/activate", post(acted(Fields::None))),
        ActionKind::Deactivate => (
            "/v1/toolsets/{toolset}/deactivate",
            post(acted(Fields::None)),
        ),
        ActionKind::Assign => (
            "/v1/clients/{client}/toolsets/{toolset}",
            put(acted(Fields::None)),
        ),
        ActionKind::Unassign => (
            "/v1/clients/{client}/toolsets/{toolset}",
            delete(acted(Fields::None)),
        ),
        ActionKind::RotateKey => ("/v1/clients/{client}/rotate-key", post(acted(Fields::None))),
        ActionKind::Put => ("/v1/records/{kind}/{id}", put(acted(Fields::Body))),
        ActionKind::Delete => ("/v1/records/{kind}/{id}", delete(acted(Fields::None))),
        ActionKind::Setting => (
            "/v1/settings/{name}",
            put(acted(Fields::Body)).delete(acted(Fields::None)),
        ),
        ActionKind::Replace => ("/v1/catalog", put(replace)),
        ActionKind::Import => ("/v1/import", post(import)),
    }
}

/// What the body of an action's route holds.
#[derive(Debug, Clone, Copy)]
enum Fields {
    /// Nothing, or the reports the change accepts (`{"accept": …}`).
    None,
    /// The record's or setting's fields, a JSON object.
    Body,
}

/// Serves the admin API on `listener` until `stop` resolves: the MCP
/// listener's connection loop and `timeouts` (headers, bodies, idle
/// connections), and the failures of each peer's address counted.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
///
/// let store = toolschema_store::Store::new("postgresql://toolschema@localhost/catalog")?;
/// let registry = Arc::new(toolschema_runtime::call::Registry::new());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
/// let timeouts = toolschema_serve::HttpTimeouts::default();
/// toolschema_store::admin::serve(listener, store, registry, timeouts, std::future::pending()).await?;
/// # Ok(())
/// # }
/// ```
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Store,
    registry: Arc<Registry>,
    timeouts: HttpTimeouts,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = router_with(store, registry, timeouts);
    toolschema_serve::serve_router(listener, router, timeouts, stop).await
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
        StoreError::Breaking(reports) => (
            StatusCode::CONFLICT,
            axum::Json(json!({
                "error": "breaking",
                "message": StoreError::Breaking(reports.clone()).to_string(),
                "compatibility": reports,
            })),
        )
            .into_response(),
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

/// The compatibility reports a request accepts: `?accept=<digest>`,
/// repeated or separated by commas.
struct Accepting(Vec<String>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Accepting {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Accepting, Response> {
        let query = parts.uri.query().unwrap_or("");
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).map_err(|error| {
            refusal(
                StatusCode::BAD_REQUEST,
                "bad_request",
                &format!("the query cannot be read: {error}"),
            )
        })?;
        let mut digests = Vec::new();
        for (name, value) in pairs {
            match name.as_str() {
                "accept" => digests.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|digest| !digest.is_empty())
                        .map(str::to_owned),
                ),
                "accept_breaking" => {
                    return Err(refusal(
                        StatusCode::BAD_REQUEST,
                        "bad_request",
                        ACCEPT_NAMES_A_REPORT,
                    ));
                }
                _ => {}
            }
        }
        Ok(Accepting(digests))
    }
}

/// Why `accept_breaking` is no longer taken.
const ACCEPT_NAMES_A_REPORT: &str = "an acceptance names the report it accepts: send the change without it, read the report of the 409 answer, then send it again with accept=<the report's digest>";

/// Applies `action` for `operator`, accepting the reports `accepting` names.
async fn apply(
    admin: &Admin,
    Operator(actor): Operator,
    action: Action,
    Accepting(accept): Accepting,
) -> Response {
    match admin
        .store
        .apply(&actor, action.accepting(accept), &admin.registry)
        .await
    {
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

async fn revision(State(admin): State<Admin>, _: Operator) -> Response {
    match admin.store.revision().await {
        Ok(revision) => axum::Json(json!({"revision": revision})).into_response(),
        Err(error) => failure(error),
    }
}

async fn catalog(State(admin): State<Admin>, _: Operator) -> Response {
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
                rendered,
            )
                .into_response(),
            Err(problems) => failure(StoreError::Invalid(problems)),
        },
        Err(error) => failure(error),
    }
}

/// A body that must be UTF-8 text (a configuration file).
fn text_of(bytes: &Bytes) -> Result<&str, Response> {
    core::str::from_utf8(bytes).map_err(|_| {
        refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "the body is a TOML file, in UTF-8",
        )
    })
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
                    "line": e.line(), "column": e.column(), "field": e.key(), "message": e.message(),
                })).collect::<Vec<_>>(),
                "omitted": errors.omitted(),
            })),
        )
            .into_response()
    })
}

async fn replace(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    body: RequestBody,
) -> Response {
    let bytes = match admin.body(body, FILE_LIMIT).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let records = match text_of(&bytes).and_then(|text| records_of(&admin, text)) {
        Ok(records) => records,
        Err(refused) => return refused,
    };
    let action = Action::Replace {
        records: Box::new(records),
    };
    apply(&admin, operator, action, accepting).await
}

async fn import(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    body: RequestBody,
) -> Response {
    let bytes = match admin.body(body, FILE_LIMIT).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let text = match text_of(&bytes) {
        Ok(text) => text,
        Err(refused) => return refused,
    };
    // What `toolschema import` writes: downstreams and tools from
    // configuration, checked once added to the rest.
    match Records::read_toml(text, "(request body)") {
        Ok(records) => {
            let action = Action::Import {
                records: Box::new(records),
            };
            apply(&admin, operator, action, accepting).await
        }
        Err(problems) => failure(StoreError::Invalid(problems)),
    }
}

#[derive(Deserialize)]
struct Limit {
    limit: Option<i64>,
}

async fn audit(State(admin): State<Admin>, _: Operator, Query(limit): Query<Limit>) -> Response {
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
    operator: Operator,
    accepting: Accepting,
    Path(tool): Path<String>,
    body: RequestBody,
) -> Response {
    let bytes = match admin.body(body, RECORD_LIMIT).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let draft: Draft = match serde_json::from_slice(&bytes) {
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
    let action = Action::Draft {
        tool,
        version: draft.version,
        definition: draft.definition,
        downstream: draft.downstream,
    };
    apply(&admin, operator, action, accepting).await
}

/// What a publish may carry: `{"accept": "<digest>"}` (or a list).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    #[serde(default)]
    accept: Option<Digests>,
    /// No longer taken: an acceptance names its report.
    #[serde(default)]
    accept_breaking: Option<Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Digests {
    One(String),
    Several(Vec<String>),
}

/// `GET …/versions/{n}/compatibility`: the report of a version against
/// the one served, without changing anything.
async fn compatibility(
    State(admin): State<Admin>,
    _: Operator,
    Path((tool, version)): Path<(String, u32)>,
) -> Response {
    match admin.store.compatibility(&tool, version, &admin.registry).await {
        Ok(Some(report)) => axum::Json(report).into_response(),
        Ok(None) => axum::Json(json!({
            "tool": tool,
            "to": version,
            "served": null,
            "message": "no other version of the tool is served: publishing this one breaks no client of another",
        }))
        .into_response(),
        Err(error) => failure(error),
    }
}

/// An action of the list made from the route's path parameters (by the
/// action's argument names) and its body: the fields of a record or a
/// setting, or the reports a change accepts. A path naming nothing the
/// action takes is not found.
async fn act(
    kind: ActionKind,
    fields: Fields,
    State(admin): State<Admin>,
    operator: Operator,
    Accepting(mut accept): Accepting,
    Path(params): Path<Vec<(String, String)>>,
    body: RequestBody,
) -> Response {
    let bytes = match admin.body(body, RECORD_LIMIT).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let mut body = None;
    match fields {
        Fields::Body => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(fields)) => body = Some(fields),
            _ => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    "the body is a JSON object: the record's fields as the configuration file has them, without its identifier",
                );
            }
        },
        Fields::None => match accepted(&bytes) {
            Ok(digests) => accept.extend(digests),
            Err(refused) => return refused,
        },
    }
    let action = Action::from_arguments(kind, |argument| {
        let param = params.iter().find(|(name, _)| name == argument.name);
        Ok(match (argument.shape, param) {
            (Shape::Fields { .. }, _) => body.take().map(Given::Fields),
            (Shape::Number, Some((_, text))) => match text.parse() {
                Ok(number) => Some(Given::Number(number)),
                Err(_) => return Err(format!("`{text}` is not a version number")),
            },
            (_, param) => param.map(|(_, text)| Given::Text(text.clone())),
        })
    });
    match action {
        Ok(action) => apply(&admin, operator, action, Accepting(accept)).await,
        Err(message) => refusal(StatusCode::NOT_FOUND, "not_found", &message),
    }
}

/// The reports a body accepts: none when it is empty, else
/// `{"accept": "<digest>"}` (or a list).
fn accepted(bytes: &Bytes) -> Result<Vec<String>, Response> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let options: Step = serde_json::from_slice(bytes).map_err(|error| {
        refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            &format!("the body is empty or {{\"accept\": \"<digest>\"}}: {error}"),
        )
    })?;
    if options.accept_breaking.is_some() {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            ACCEPT_NAMES_A_REPORT,
        ));
    }
    Ok(match options.accept {
        Some(Digests::One(digest)) => vec![digest],
        Some(Digests::Several(digests)) => digests,
        None => Vec::new(),
    })
}
