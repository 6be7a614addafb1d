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
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};
use toolschema_runtime::call::Registry;
use toolschema_serve::HttpTimeouts;

use crate::{Action, Body, Kind, Records, Refused, Store, StoreError};
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
    Router::new()
        .route("/v1/revision", get(revision))
        .route("/v1/catalog", get(catalog).put(replace))
        .route("/v1/import", post(import))
        .route("/v1/audit", get(audit))
        .route("/v1/mappings/{tool}/versions", post(draft))
        .route(
            "/v1/mappings/{tool}/versions/{version}/{step}",
            post(step).get(compatibility),
        )
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
        .merge(console::routes())
        .with_state(Admin {
            store,
            registry,
            guard: Arc::new(Guard::default()),
            timeouts,
            console: Arc::default(),
        })
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
#[derive(Deserialize, Default)]
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

async fn step(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path((tool, version, step)): Path<(String, u32, String)>,
    body: RequestBody,
) -> Response {
    let bytes = match admin.body(body, RECORD_LIMIT).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let options: Step = match bytes.iter().all(u8::is_ascii_whitespace) {
        true => Step::default(),
        false => match serde_json::from_slice(&bytes) {
            Ok(options) => options,
            Err(error) => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    &format!("the body is empty or {{\"accept\": \"<digest>\"}}: {error}"),
                );
            }
        },
    };
    if options.accept_breaking.is_some() {
        return refusal(
            StatusCode::BAD_REQUEST,
            "bad_request",
            ACCEPT_NAMES_A_REPORT,
        );
    }
    let Accepting(mut accept) = accepting;
    match options.accept {
        Some(Digests::One(digest)) => accept.push(digest),
        Some(Digests::Several(digests)) => accept.extend(digests),
        None => {}
    }
    let accepting = Accepting(accept);
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
    apply(&admin, operator, action, accepting).await
}

/// `GET …/versions/{n}/compatibility`: the report of a version against
/// the one served, without changing anything.
async fn compatibility(
    State(admin): State<Admin>,
    _: Operator,
    Path((tool, version, what)): Path<(String, u32, String)>,
) -> Response {
    if what != "compatibility" {
        return refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "a version's compatibility report is at …/versions/{n}/compatibility",
        );
    }
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

async fn switch(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
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
    apply(&admin, operator, action, accepting).await
}

async fn assign(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path((client, toolset)): Path<(String, String)>,
) -> Response {
    apply(
        &admin,
        operator,
        Action::Assign { client, toolset },
        accepting,
    )
    .await
}

async fn unassign(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path((client, toolset)): Path<(String, String)>,
) -> Response {
    apply(
        &admin,
        operator,
        Action::Unassign { client, toolset },
        accepting,
    )
    .await
}

async fn rotate_key(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path(client): Path<String>,
) -> Response {
    apply(&admin, operator, Action::RotateKey { client }, accepting).await
}

/// A JSON object body, read within its limit, or the answer saying what is
/// expected.
async fn object_body(admin: &Admin, body: RequestBody) -> Result<Body, Response> {
    let bytes = admin.body(body, RECORD_LIMIT).await?;
    match serde_json::from_slice::<Value>(&bytes) {
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
    operator: Operator,
    accepting: Accepting,
    Path((kind, id)): Path<(String, String)>,
    body: RequestBody,
) -> Response {
    let kind = match kind_of(&kind) {
        Ok(kind) => kind,
        Err(refused) => return refused,
    };
    match object_body(&admin, body).await {
        Ok(body) => apply(&admin, operator, Action::Put { kind, id, body }, accepting).await,
        Err(refused) => refused,
    }
}

async fn delete_record(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path((kind, id)): Path<(String, String)>,
) -> Response {
    match kind_of(&kind) {
        Ok(kind) => apply(&admin, operator, Action::Delete { kind, id }, accepting).await,
        Err(refused) => refused,
    }
}

async fn put_setting(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path(name): Path<String>,
    body: RequestBody,
) -> Response {
    match object_body(&admin, body).await {
        Ok(body) => {
            let action = Action::Setting {
                name,
                body: Some(body),
            };
            apply(&admin, operator, action, accepting).await
        }
        Err(refused) => refused,
    }
}

async fn delete_setting(
    State(admin): State<Admin>,
    operator: Operator,
    accepting: Accepting,
    Path(name): Path<String>,
) -> Response {
    apply(
        &admin,
        operator,
        Action::Setting { name, body: None },
        accepting,
    )
    .await
}
